#!/bin/sh
# test/scale/run.sh: the programs of a scale testlist (default test/scale/testlist),
# at its rank counts, as ONE TAP stream (make check-scale).
#
# Each NAME of the testlist is looked up in the build tree as test/scale/NAME, then
# test/rma/NAME, then test/coll/NAME, and run by test/run-test with
# RMAIB_TEST_LIST pointing at the testlist, so its lines (64 and 256 ranks, fewer
# epochs) and passes apply instead of the program's own folder's.  Its TAP points
# are renumbered into one stream, each prefixed with the program's name; a program
# that is not built is a failed point.  The plan comes last.  Exits 0: the points
# judge.  MPIEXEC, RMAIB_TEST_PASSES and the other variables of test/run-test pass
# through (test/multihost/netns_rma.sh runs it with the MPIEXEC of its namespaces).
set -u

top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
list=${RMAIB_TEST_LIST:-$top_srcdir/test/scale/testlist}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-scale.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

if [ ! -f "$list" ]; then
    echo "not ok 1 - scale: no testlist $list"
    echo "1..1"
    exit 0
fi
# The names, in the order of their first line.
names=$(awk '{ sub(/#.*/, "") } NF && $1 !~ /^%/ && !seen[$1]++ { print $1 }' "$list")

count=0
for t in $names; do
    prog=
    for d in scale rma coll; do
        if [ -x "$top_builddir/test/$d/$t" ]; then prog=$top_builddir/test/$d/$t; break; fi
    done
    if [ -z "$prog" ]; then
        count=$((count + 1))
        echo "not ok $count - $t: not built (test/scale, test/rma, test/coll)"
        continue
    fi
    RMAIB_TEST_LIST=$list sh "$top_srcdir/test/run-test" "$prog" > "$tmp/out" 2>&1
    awk -v base="$count" -v t="$t" -f "$top_srcdir/test/tap-renumber.awk" "$tmp/out" 2> "$tmp/n"
    count=$((count + $(cat "$tmp/n")))
done
if [ "$count" -eq 0 ]; then
    echo "not ok 1 - scale: $list names no program"
    count=1
fi
echo "1..$count"
exit 0
