#!/bin/sh
# A use mpi_f08 program (f08_fence_put.f90) through the drop-in, as TAP: it builds
# with the MPI's Fortran compiler, runs on 2 ranks with librmaib-mpi preloaded,
# rmaib serves its window (RMAIB_VERBOSE) and every integer put arrives.  A smoke
# test only: the Fortran suites are MPICH's f77/f90/f08 testlists (make conformance).
set -u
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
mpiexec=${MPIEXEC:-mpiexec.mpich}
lib=${RMAIB_PRELOAD_LIB:-$top_builddir/.libs/librmaib-mpi.so}
. "$top_srcdir/test/sanitizers/env.sh"
mpicc=$(sed -n 's/^RMAIB_MPICC_PATH = //p' "$top_builddir/Makefile")
mpifort=$(echo "${mpicc:-mpicc.mpich}" | sed 's/mpicc/mpif90/')
if ! command -v "$mpifort" >/dev/null 2>&1; then
    echo "1..0 # SKIP no MPI Fortran compiler ($mpifort)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-f08.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! "$mpifort" -o "$tmp/f08_fence_put" "$top_srcdir/test/fortran/f08_fence_put.f90" \
        > "$tmp/build.log" 2>&1; then
    echo "not ok 1 - $mpifort builds f08_fence_put.f90"
    sed 's/^/# /' "$tmp/build.log"
    echo "1..1"
    exit 0
fi
RMAIB_VERBOSE=1 RMAIB_TRANSPORT=shm timeout -k 10 60 "$mpiexec" -n 2 \
    env LD_PRELOAD="${san_runtime:+$san_runtime:}$lib" "$tmp/f08_fence_put" \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
status=$?
grep -v '^1\.\.' "$tmp/out" | grep -E '^(not )?ok ' || echo "not ok 1 - use mpi_f08: fence, put, fence (status $status)"
if grep -q 'rmaib: window flavor=create' "$tmp/out" "$tmp/err"; then
    echo "ok 2 - rmaib served the window (RMAIB_VERBOSE)"
else
    echo "not ok 2 - rmaib served the window (RMAIB_VERBOSE)"
fi
if [ "$status" -ne 0 ]; then
    echo "not ok 3 - the run exits 0 (status $status)"
    tail -n 20 "$tmp/err" | sed 's/^/# /'
else
    echo "ok 3 - the run exits 0"
fi
echo "1..3"
