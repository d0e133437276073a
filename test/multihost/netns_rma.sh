#!/bin/sh
# test/multihost/netns_rma.sh: part of the RMA suite across hosts, emulated on this
# one with network namespaces.
#
# RMAIB_MULTIHOST_NODES (default 2) namespaces, node i holding 10.213.0.(i+1)/24 on
# its interface rmh0, a veth pair to a bridge in one more namespace (the hub); these
# addresses exist only inside the namespaces, so no traffic leaves them.
# mpiexec.mpich runs in node 0 with hydra's rsh launcher pointed at a wrapper that
# enters the namespace named by the host: -hosts 10.213.0.1:R,10.213.0.2:R,... puts
# RMAIB_MULTIHOST_RANKS (R, default 2) consecutive ranks in each.  rmaib sees one
# node per namespace (a node is a host name in a network namespace: each but the
# first gets a host name of its own), so within a namespace it uses shm and between
# them ofi over tcp;ofi_rxm on the bridge, and every atomic of a window goes
# through ofi.
#
# Each program below runs under test/run-test in the testlist's "multihost" pass
# (4 ranks, the environment is there); its TAP points are renumbered into one
# stream named after the program.  RMAIB_MULTIHOST_SCALE=1 runs test/scale/run.sh
# instead, in test/scale/testlist's multihost pass (its lines' 64 ranks: e.g. 8
# nodes of 8).  Where namespaces cannot be made (not root, no CAP_NET_ADMIN, no
# ip(8), rmaib built without libfabric) the whole script is one TAP skip with the
# reason.  The namespaces, the veth pairs, the bridge and anything still running in
# them are removed on exit.
set -u

top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
real_mpiexec=${MPIEXEC:-mpiexec.mpich}
# A representative subset (RMAIB_MULTIHOST_TESTS="NAME..." picks others).
tests=${RMAIB_MULTIHOST_TESTS:-"put_get_contig put_derived_types win_dynamic win_create
lock_counter lock_all_basic lock_mixed lock_mcs_handover fence_epochs pscw_epochs
target_computes_without_mpi acc_all_type_op_pairs acc_ordering acc_ticket_lock
get_accumulate_noop_consistent"}

skip_all() {
    echo "1..0 # SKIP $*"
    exit 0
}

[ "${RMAIB_HAVE_OFI:-yes}" = yes ] || skip_all "rmaib was configured without libfabric"
command -v ip >/dev/null 2>&1 || skip_all "ip(8) not found (iproute2)"
[ "$(id -u)" -eq 0 ] || skip_all "not root: network namespaces need CAP_NET_ADMIN"

nodes=${RMAIB_MULTIHOST_NODES:-2}
ppn=${RMAIB_MULTIHOST_RANKS:-2}
case $nodes in [2-9]|[1-9][0-9]) ;; *) skip_all "RMAIB_MULTIHOST_NODES=$nodes: 2 to 99" ;; esac
case $ppn in [1-9]|[1-9][0-9]) ;; *) skip_all "RMAIB_MULTIHOST_RANKS=$ppn: 1 to 99" ;; esac

tag=$$
hub=rmaib-mh$tag-hub
ns_of() { echo "rmaib-mh$tag-$1"; }
addr_of() { echo "10.213.0.$(($1 + 1))"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-netns.XXXXXX") || skip_all "mktemp failed"

cleanup() {
    i=0
    while [ "$i" -le "$nodes" ]; do
        if [ "$i" -eq "$nodes" ]; then ns=$hub; else ns=$(ns_of "$i"); fi
        i=$((i + 1))
        ip netns list 2>/dev/null | grep -q "^$ns\b" || continue
        # Whatever a run left behind in our namespaces is ours: end it by pid.
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null      # (its ends of the veth pairs go with it)
    done
    i=0
    while [ "$i" -lt "$nodes" ]; do     # a pair a failed set-up left out here
        ip link del "rmh${tag}n$i" 2>/dev/null
        i=$((i + 1))
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! ip netns add "$hub" 2>"$tmp/err"; then
    skip_all "cannot create a network namespace: $(head -n 1 "$tmp/err")"
fi
setup() {
    ip -n "$hub" link add rmbr type bridge && ip -n "$hub" link set rmbr up || return 1
    i=0
    while [ "$i" -lt "$nodes" ]; do
        ns=$(ns_of "$i") a=rmh${tag}n$i b=rmh${tag}h$i
        ip netns add "$ns" &&
        ip link add "$a" type veth peer name "$b" &&
        ip link set "$a" netns "$ns" &&
        ip link set "$b" netns "$hub" &&
        ip -n "$hub" link set "$b" master rmbr &&
        ip -n "$hub" link set "$b" up &&
        ip -n "$ns" link set "$a" name rmh0 &&
        ip -n "$ns" addr add "$(addr_of "$i")/24" dev rmh0 &&
        ip -n "$ns" link set rmh0 up &&
        ip -n "$ns" link set lo up || return 1
        i=$((i + 1))
    done
}
if ! setup 2>"$tmp/err"; then
    skip_all "cannot set up the namespaces and their bridge: $(head -n 1 "$tmp/err")"
fi

# hydra's rsh launcher runs: LAUNCHER [OPTIONS] HOST COMMAND...
{
    echo '#!/bin/sh'
    echo 'while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done'
    echo 'host=$1; shift'
    echo 'case $host in'
    i=0
    while [ "$i" -lt "$nodes" ]; do
        echo "    $(addr_of "$i")) ns=$(ns_of "$i") name=rmaib-mh-$i ;;"
        i=$((i + 1))
    done
    echo '    *) echo "nsrsh: unknown host $host" >&2; exit 1 ;;'
    echo 'esac'
    echo '# (a host name of its own in each but the first: Open MPI tells nodes apart by it)'
    echo "if [ \"\$ns\" != $(ns_of 0) ] && command -v unshare > /dev/null; then"
    echo '    exec ip netns exec "$ns" unshare --uts sh -c "hostname $name; $*"'
    echo 'fi'
    echo 'exec ip netns exec "$ns" sh -c "$*"'
} > "$tmp/nsrsh"
hosts= i=0
while [ "$i" -lt "$nodes" ]; do
    hosts="${hosts:+$hosts,}$(addr_of "$i"):$ppn"
    i=$((i + 1))
done
nsA=$(ns_of 0)
# What test/run-test calls as MPIEXEC: the real one, inside node 0.  Open MPI's
# ORTE starts its daemons through the same wrapper (its rsh agent), and its daemons
# and ranks talk over the bridge only.
if "$real_mpiexec" --version 2>/dev/null | grep -q -e 'Open MPI' -e 'OpenRTE'; then
    cat > "$tmp/mpiexec" <<WRAP
#!/bin/sh
exec ip netns exec $nsA $real_mpiexec --mca plm_rsh_agent $tmp/nsrsh \\
    --mca oob_tcp_if_include rmh0 --mca btl_tcp_if_include rmh0 \\
    --host $hosts "\$@"
WRAP
else
    cat > "$tmp/mpiexec" <<WRAP
#!/bin/sh
exec ip netns exec $nsA $real_mpiexec -launcher rsh -launcher-exec $tmp/nsrsh -iface rmh0 \\
    -hosts $hosts "\$@"
WRAP
fi
chmod +x "$tmp/nsrsh" "$tmp/mpiexec"

# The namespaces are up: can node 0 reach each of the others?
i=1
while command -v ping >/dev/null 2>&1 && [ "$i" -lt "$nodes" ]; do
    if ! ip netns exec "$nsA" ping -c 1 -W 2 "$(addr_of "$i")" > "$tmp/err" 2>&1; then
        echo "not ok 1 - multihost: $nsA cannot reach $(addr_of "$i") in $(ns_of "$i") over the bridge"
        sed -e 's/^/#   /' "$tmp/err"
        echo "1..1"
        exit 0
    fi
    i=$((i + 1))
done

if [ "${RMAIB_MULTIHOST_SCALE:-0}" = 1 ]; then
    MPIEXEC=$tmp/mpiexec RMAIB_TEST_PASSES=multihost sh "$top_srcdir/test/scale/run.sh"
    exit 0
fi

count=0
for t in $tests; do
    prog=$top_builddir/test/rma/$t
    [ -x "$prog" ] || continue      # not built in this tree (yet)
    MPIEXEC=$tmp/mpiexec RMAIB_TEST_PASSES=multihost \
        sh "$top_srcdir/test/run-test" "$prog" > "$tmp/out" 2>&1
    awk -v base="$count" -v t="$t" -f "$top_srcdir/test/tap-renumber.awk" "$tmp/out" 2> "$tmp/n"
    count=$((count + $(cat "$tmp/n")))
done
if [ "$count" -eq 0 ]; then
    echo "not ok 1 - multihost: none of the programs ($tests) is built"
    count=1
fi
echo "1..$count"
exit 0
