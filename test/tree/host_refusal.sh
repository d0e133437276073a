#!/bin/sh
# A library of one host MPI preloaded into a program of the other is refused with
# a line naming both, and the job ends with an error instead of crashing inside
# the program's MPI, at its first collective and at its first window:
#   - an MPICH program with librmaib-ompi preloaded;
#   - an Open MPI program with librmaib-mpi preloaded.
# And each library runs its own host's program (the same source), whose every
# fetched value is checked by the program.  Needs the Open MPI form (configure
# found Open MPI 4.x); skipped otherwise.
set -u
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; [ -f "$2" ] && tail -n 15 "$2" | sed 's/^/# /'; }
cd "$top_builddir" || exit 1
mpicc=$(sed -n 's/^RMAIB_MPICC_PATH = //p' Makefile)
ompicc=$(sed -n 's/^RMAIB_OMPI_MPICC_PATH = //p' Makefile)
ompiexec=$(sed -n 's/^OMPI_MPIEXEC = //p' Makefile)
mpiexec=${MPIEXEC:-mpiexec.mpich}
lib=$top_builddir/.libs
if [ -z "$ompicc" ] || [ ! -f "$lib/librmaib-ompi.so" ] || [ -n "${RMAIB_SANITIZERS:-}" ]; then
    echo "1..0 # SKIP no Open MPI form in this build (or a sanitized one)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-refusal.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# One source: MODE 0 starts with a collective, 1 with a window.
cat > "$tmp/prog.c" <<'EOC'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int me, np, sum = 0, mode = atoi(argv[1]), bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (mode == 0) {
        MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        bad = sum != np * (np - 1) / 2;
    }
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 100 + me;
    MPI_Win_fence(0, win);
    int got = -1;
    MPI_Get(&got, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    bad |= got != 100 + (me + 1) % np;
    MPI_Win_free(&win);
    if (me == 0)
        printf("prog: %s\n", bad ? "wrong" : "right");
    MPI_Finalize();
    return bad;
}
EOC
if ! "$mpicc" "$tmp/prog.c" -o "$tmp/prog-mpich" > "$tmp/build.log" 2>&1 ||
    ! "$ompicc" "$tmp/prog.c" -o "$tmp/prog-ompi" >> "$tmp/build.log" 2>&1; then
    echo "1..1"
    not_ok "the program builds with both hosts' mpicc" "$tmp/build.log"
    exit 1
fi
oflags="--oversubscribe"
[ "$(id -u)" -eq 0 ] && oflags="$oflags --allow-run-as-root"

# run NAME LAUNCHER... : the job's output in $tmp/NAME.log, its status in $st.
run() {
    name=$1; shift
    RMAIB_TRANSPORT=shm timeout -k 5 60 "$@" > "$tmp/$name.log" 2>&1
    st=$?
}
# refused NAME LINE CRASH DESC: the job of run NAME ended with an error (not a
# timeout), its output has LINE and nothing matching CRASH.
refused() {
    if [ $st -ne 0 ] && [ $st -ne 124 ] && [ $st -ne 137 ] && grep -q "$2" "$tmp/$1.log" &&
        ! grep -qi "$3" "$tmp/$1.log"; then
        ok "$4"
    else
        not_ok "$4 (status $st)" "$tmp/$1.log"
    fi
}
for mode in 0 1; do
    what=$([ $mode = 0 ] && echo "collective" || echo "window")
    run mpich$mode "$mpiexec" -n 2 env LD_PRELOAD="$lib/librmaib-ompi.so" "$tmp/prog-mpich" $mode
    refused mpich$mode 'librmaib-ompi was built for Open MPI 4.x but this program runs on "MPICH' \
        'segmentation\|fatal error in' \
        "an MPICH program preloading librmaib-ompi is refused at its first $what, naming both"
    # shellcheck disable=SC2086
    run ompi$mode "$ompiexec" $oflags -n 2 -x LD_PRELOAD="$lib/librmaib-mpi.so" "$tmp/prog-ompi" $mode
    refused ompi$mode 'librmaib-mpi was built for MPICH but this program runs on "Open MPI' \
        'segmentation\|an error occurred in' \
        "an Open MPI program preloading librmaib-mpi is refused at its first $what, naming both"
done
# shellcheck disable=SC2086
run right-ompi env RMAIB_VERBOSE=1 "$ompiexec" $oflags -n 2 -x LD_PRELOAD="$lib/librmaib-ompi.so" "$tmp/prog-ompi" 0
if [ $st -eq 0 ] && grep -q '^prog: right' "$tmp/right-ompi.log" &&
    grep -q 'rmaib: window flavor=allocate' "$tmp/right-ompi.log"; then
    ok "an Open MPI program preloading librmaib-ompi runs on rmaib's window, values right"
else
    not_ok "an Open MPI program preloading librmaib-ompi runs on rmaib's window, values right (status $st)" "$tmp/right-ompi.log"
fi
run right-mpich env RMAIB_VERBOSE=1 "$mpiexec" -n 2 env LD_PRELOAD="$lib/librmaib-mpi.so" "$tmp/prog-mpich" 0
if [ $st -eq 0 ] && grep -q '^prog: right' "$tmp/right-mpich.log" &&
    grep -q 'rmaib: window flavor=allocate' "$tmp/right-mpich.log"; then
    ok "an MPICH program preloading librmaib-mpi runs on rmaib's window, values right"
else
    not_ok "an MPICH program preloading librmaib-mpi runs on rmaib's window, values right (status $st)" "$tmp/right-mpich.log"
fi
echo "1..$n"
