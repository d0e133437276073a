#!/bin/sh
# test/multihost/netns_rma.sh: part of the RMA suite across two hosts, emulated on
# this one with two network namespaces joined by a veth pair.
#
# Namespace A holds 10.213.0.1/24, namespace B 10.213.0.2/24 (these addresses exist
# only inside the two namespaces, so no traffic leaves them).  mpiexec.mpich runs in
# A with hydra's rsh launcher pointed at a wrapper that enters the namespace named
# by the host: -hosts 10.213.0.1:2,10.213.0.2:2 puts ranks 0-1 in A and 2-3 in B.
# rmaib sees two nodes (a node is a host name in a network namespace), so within a
# namespace it uses shm and between them ofi over tcp;ofi_rxm on the veth pair, and
# every atomic of the window goes through ofi.
#
# Each program below runs under test/run-test in the testlist's "multihost" pass
# (4 ranks, the environment is there); its TAP points are renumbered into one
# stream named after the program.  Where namespaces cannot be made (not root, no
# CAP_NET_ADMIN, no ip(8), rmaib built without libfabric) the whole script is one
# TAP skip with the reason.  The namespaces, the veth pair and anything still
# running in them are removed on exit.
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

tag=$$
nsA=rmaib-mh$tag-a
nsB=rmaib-mh$tag-b
ifA=rmh${tag}a
ifB=rmh${tag}b
addrA=10.213.0.1
addrB=10.213.0.2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-netns.XXXXXX") || skip_all "mktemp failed"

cleanup() {
    for ns in "$nsA" "$nsB"; do
        ip netns list 2>/dev/null | grep -q "^$ns\b" || continue
        # Whatever a run left behind in our namespaces is ours: end it by pid.
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! ip netns add "$nsA" 2>"$tmp/err"; then
    skip_all "cannot create a network namespace: $(head -n 1 "$tmp/err")"
fi
setup() {
    ip netns add "$nsB" &&
    ip link add "$ifA" type veth peer name "$ifB" &&
    ip link set "$ifA" netns "$nsA" &&
    ip link set "$ifB" netns "$nsB" &&
    ip -n "$nsA" link set "$ifA" name rmh0 &&
    ip -n "$nsB" link set "$ifB" name rmh0 &&
    ip -n "$nsA" addr add "$addrA/24" dev rmh0 &&
    ip -n "$nsB" addr add "$addrB/24" dev rmh0 &&
    ip -n "$nsA" link set rmh0 up &&
    ip -n "$nsB" link set rmh0 up &&
    ip -n "$nsA" link set lo up &&
    ip -n "$nsB" link set lo up
}
if ! setup 2>"$tmp/err"; then
    ip link del "$ifA" 2>/dev/null
    skip_all "cannot set up the veth pair between the namespaces: $(head -n 1 "$tmp/err")"
fi

# hydra's rsh launcher runs: LAUNCHER [OPTIONS] HOST COMMAND...
cat > "$tmp/nsrsh" <<WRAP
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
host=\$1; shift
case \$host in
    $addrA) ns=$nsA ;;
    $addrB) ns=$nsB ;;
    *) echo "nsrsh: unknown host \$host" >&2; exit 1 ;;
esac
# (a host name of its own in B: Open MPI tells nodes apart by it)
if [ "\$ns" = $nsB ] && command -v unshare > /dev/null; then
    exec ip netns exec "\$ns" unshare --uts sh -c "hostname rmaib-mh-b; \$*"
fi
exec ip netns exec "\$ns" sh -c "\$*"
WRAP
# What test/run-test calls as MPIEXEC: the real one, inside namespace A.  Open
# MPI's ORTE starts its daemon in B through the same wrapper (its rsh agent), and
# its daemons and ranks talk over the veth pair only.
if "$real_mpiexec" --version 2>/dev/null | grep -q -e 'Open MPI' -e 'OpenRTE'; then
    cat > "$tmp/mpiexec" <<WRAP
#!/bin/sh
exec ip netns exec $nsA $real_mpiexec --mca plm_rsh_agent $tmp/nsrsh \\
    --mca oob_tcp_if_include rmh0 --mca btl_tcp_if_include rmh0 \\
    --host $addrA:2,$addrB:2 "\$@"
WRAP
else
    cat > "$tmp/mpiexec" <<WRAP
#!/bin/sh
exec ip netns exec $nsA $real_mpiexec -launcher rsh -launcher-exec $tmp/nsrsh -iface rmh0 \\
    -hosts $addrA:2,$addrB:2 "\$@"
WRAP
fi
chmod +x "$tmp/nsrsh" "$tmp/mpiexec"

# The namespaces are up: can they reach each other?
if command -v ping >/dev/null 2>&1 &&
   ! ip netns exec "$nsA" ping -c 1 -W 2 "$addrB" > "$tmp/err" 2>&1; then
    echo "not ok 1 - multihost: $nsA cannot reach $addrB in $nsB over the veth pair"
    sed -e 's/^/#   /' "$tmp/err"
    echo "1..1"
    exit 0
fi

count=0
for t in $tests; do
    prog=$top_builddir/test/rma/$t
    [ -x "$prog" ] || continue      # not built in this tree (yet)
    MPIEXEC=$tmp/mpiexec RMAIB_TEST_PASSES=multihost \
        sh "$top_srcdir/test/run-test" "$prog" > "$tmp/out" 2>&1
    awk -v base="$count" -v t="$t" '
        /^(not ok|ok) [0-9]+ - / {
            st = $1 == "not" ? "not ok" : "ok"
            rest = $0; sub(/^(not ok|ok) [0-9]+ - /, "", rest)
            print st " " (base + ++n) " - " t " " rest
            next
        }
        /^1\.\.[0-9]+/ { next }
        { print }
        END { print n + 0 > "/dev/stderr" }' "$tmp/out" 2> "$tmp/n"
    count=$((count + $(cat "$tmp/n")))
done
if [ "$count" -eq 0 ]; then
    echo "not ok 1 - multihost: none of the programs ($tests) is built"
    count=1
fi
echo "1..$count"
exit 0
