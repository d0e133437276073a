#!/bin/sh
# test/multihost/netns_rma.sh: part of the RMA suite across hosts, emulated on this
# one with network namespaces.
#
# RMAIB_MULTIHOST_NODES (default 2) namespaces made by netns_lib.sh (its header says
# how); mpiexec.mpich runs in node 0 with hydra's rsh launcher pointed at a wrapper
# that enters the namespace named by the host: -hosts 10.213.0.1:R,10.213.0.2:R,...
# puts RMAIB_MULTIHOST_RANKS (R, default 2) consecutive ranks in each.  rmaib sees
# one node per namespace, so within a namespace it uses shm and between them ofi
# over tcp;ofi_rxm on the bridge, and every atomic of a window goes through ofi.
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

# shellcheck source=test/multihost/netns_lib.sh
. "$top_srcdir/test/multihost/netns_lib.sh"
netns_init "$nodes" || skip_all "$netns_why"
tmp=$netns_tmp
netns_up || skip_all "$netns_why"
# What test/run-test calls as MPIEXEC: the real one, inside node 0.
netns_mpiexec "$real_mpiexec" "$ppn" "$tmp/mpiexec"

if ! netns_reach; then
    echo "not ok 1 - multihost: $netns_why"
    sed -e 's/^/#   /' "$tmp/err"
    echo "1..1"
    exit 0
fi

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
