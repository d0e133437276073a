# test/multihost/netns_lib.sh: "nodes" on this one host as network namespaces, for
# test/multihost/netns_rma.sh and bench/scale.sh (sourced; POSIX sh).
#
# Node i is namespace rmaib-mh<pid>-i holding 10.213.0.(i+1)/24 on its interface
# rmh0, one end of a veth pair whose other end is on a bridge in one more namespace
# (the hub); these addresses exist only inside the namespaces, so no traffic leaves
# them.  An MPI runs in node 0 with its rsh launcher pointed at a wrapper that enters
# the namespace named by the host; each node but the first gets a host name of its
# own, so that rmaib and Open MPI see one node per namespace.
#
#   netns_init NODES    names, and a scratch directory $netns_tmp; arms the clean-up
#   netns_up            makes the namespaces, the bridge and the rsh wrapper
#   netns_reach         whether node 0 reaches every other node (ping)
#   netns_mpiexec REAL PPN OUT   writes OUT, REAL (mpiexec.mpich or Open MPI's)
#                       in node 0 placing PPN consecutive ranks on each node
#   netns_reap          ends whatever still runs in the namespaces
# Each returns non-zero with the reason in $netns_why (and what the command said
# in $netns_tmp/err).  On exit (Ctrl-C too) the namespaces, the veth pairs, the
# bridge, anything still running in them and $netns_tmp are removed.

# (SC2016: the wrapper is written with its own $s; SC2034: the caller reads netns_why)
# shellcheck shell=sh disable=SC2016,SC2034
netns_ns() { echo "rmaib-mh$netns_tag-$1"; }
netns_addr() { echo "10.213.0.$(($1 + 1))"; }

netns_init() {
    netns_nodes=$1 netns_tag=$$
    netns_hub=rmaib-mh$netns_tag-hub
    netns_tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-netns.XXXXXX") ||
        { netns_why="mktemp failed"; return 1; }
    trap netns_cleanup EXIT
    trap 'exit 130' INT TERM HUP
}

# netns_reap [del]: whatever a run left behind in our namespaces is ours: end it by
# pid (and with "del" remove the namespaces).
netns_reap() {
    _i=0
    while [ "$_i" -le "$netns_nodes" ]; do
        if [ "$_i" -eq "$netns_nodes" ]; then _ns=$netns_hub; else _ns=$(netns_ns "$_i"); fi
        _i=$((_i + 1))
        ip netns list 2>/dev/null | grep -q "^$_ns\b" || continue
        for _pid in $(ip netns pids "$_ns" 2>/dev/null); do kill -KILL "$_pid" 2>/dev/null; done
        [ "${1:-}" = del ] && ip netns del "$_ns" 2>/dev/null     # (its veth ends go with it)
    done
}

netns_cleanup() {
    netns_reap del
    _i=0
    while [ "$_i" -lt "$netns_nodes" ]; do     # a pair a failed set-up left out here
        ip link del "rmh${netns_tag}n$_i" 2>/dev/null
        _i=$((_i + 1))
    done
    rm -rf "$netns_tmp"
}

netns_up() {
    if ! ip netns add "$netns_hub" 2>"$netns_tmp/err"; then
        netns_why="cannot create a network namespace: $(head -n 1 "$netns_tmp/err")"
        return 1
    fi
    if ! netns_links 2>"$netns_tmp/err"; then
        netns_why="cannot set up the namespaces and their bridge: $(head -n 1 "$netns_tmp/err")"
        return 1
    fi
    netns_rsh > "$netns_tmp/nsrsh" && chmod +x "$netns_tmp/nsrsh"
}

netns_links() {
    ip -n "$netns_hub" link add rmbr type bridge && ip -n "$netns_hub" link set rmbr up || return 1
    _i=0
    while [ "$_i" -lt "$netns_nodes" ]; do
        _ns=$(netns_ns "$_i") _a=rmh${netns_tag}n$_i _b=rmh${netns_tag}h$_i
        ip netns add "$_ns" &&
        ip link add "$_a" type veth peer name "$_b" &&
        ip link set "$_a" netns "$_ns" &&
        ip link set "$_b" netns "$netns_hub" &&
        ip -n "$netns_hub" link set "$_b" master rmbr &&
        ip -n "$netns_hub" link set "$_b" up &&
        ip -n "$_ns" link set "$_a" name rmh0 &&
        ip -n "$_ns" addr add "$(netns_addr "$_i")/24" dev rmh0 &&
        ip -n "$_ns" link set rmh0 up &&
        ip -n "$_ns" link set lo up || return 1
        _i=$((_i + 1))
    done
}

# hydra's rsh launcher and Open MPI's plm_rsh_agent run: LAUNCHER [OPTIONS] HOST COMMAND...
netns_rsh() {
    echo '#!/bin/sh'
    echo 'while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done'
    echo 'host=$1; shift'
    echo 'case $host in'
    _i=0
    while [ "$_i" -lt "$netns_nodes" ]; do
        echo "    $(netns_addr "$_i")) ns=$(netns_ns "$_i") name=rmaib-mh-$_i ;;"
        _i=$((_i + 1))
    done
    echo '    *) echo "nsrsh: unknown host $host" >&2; exit 1 ;;'
    echo 'esac'
    echo '# (a host name of its own in each but the first: Open MPI tells nodes apart by it)'
    echo "if [ \"\$ns\" != $(netns_ns 0) ] && command -v unshare > /dev/null; then"
    echo '    exec ip netns exec "$ns" unshare --uts sh -c "hostname $name; $*"'
    echo 'fi'
    echo 'exec ip netns exec "$ns" sh -c "$*"'
}

netns_reach() {
    command -v ping >/dev/null 2>&1 || return 0
    _i=1
    while [ "$_i" -lt "$netns_nodes" ]; do
        if ! ip netns exec "$(netns_ns 0)" ping -c 1 -W 2 "$(netns_addr "$_i")" \
                > "$netns_tmp/err" 2>&1; then
            netns_why="$(netns_ns 0) cannot reach $(netns_addr "$_i") in $(netns_ns "$_i") over the bridge"
            return 1
        fi
        _i=$((_i + 1))
    done
}

netns_mpiexec() {
    _real=$1 _ppn=$2 _out=$3 _hosts='' _i=0
    while [ "$_i" -lt "$netns_nodes" ]; do
        _hosts="${_hosts:+$_hosts,}$(netns_addr "$_i"):$_ppn"
        _i=$((_i + 1))
    done
    _nsA=$(netns_ns 0) _rsh=$netns_tmp/nsrsh
    # Open MPI's ORTE starts its daemons through the same wrapper (its rsh agent),
    # and its daemons and ranks talk over the bridge only.
    if "$_real" --version 2>/dev/null | grep -q -e 'Open MPI' -e 'OpenRTE'; then
        cat > "$_out" <<WRAP
#!/bin/sh
exec ip netns exec $_nsA $_real --mca plm_rsh_agent $_rsh \\
    --mca oob_tcp_if_include rmh0 --mca btl_tcp_if_include rmh0 \\
    --host $_hosts "\$@"
WRAP
    else
        cat > "$_out" <<WRAP
#!/bin/sh
exec ip netns exec $_nsA $_real -launcher rsh -launcher-exec $_rsh -iface rmh0 \\
    -hosts $_hosts "\$@"
WRAP
    fi
    chmod +x "$_out"
}
