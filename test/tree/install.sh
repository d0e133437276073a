#!/bin/sh
# make install into a temporary root, then build and run an RMA program the way
# README.md says, with pkg-config, as TAP: the library, header, rmaib.pc and man
# page are there; the program compiles against mpix_rmaib.h, links with
# pkg-config's line alone, runs on 2 ranks with rmaib serving its window
# (RMAIB_VERBOSE) and moves the right bytes; the installed rmaib-bfs runs.
set -u
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
mpiexec=${MPIEXEC:-mpiexec.mpich}
top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# A sanitized build: the program below is not instrumented, so the sanitizer's
# runtime must be preloaded ahead of the library it links.
. "$top_srcdir/test/sanitizers/env.sh"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; [ -f "$2" ] && tail -n 20 "$2" | sed 's/^/# /'; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$top_builddir" || exit 1
prefix=$(sed -n 's/^prefix = //p' Makefile)
mpicc=$(sed -n 's/^RMAIB_MPICC_PATH = //p' Makefile)
root=$tmp/root$prefix

if make install DESTDIR="$tmp/root" > "$tmp/install.log" 2>&1; then
    ok "make install DESTDIR=... succeeds"
else
    not_ok "make install DESTDIR=... succeeds" "$tmp/install.log"
fi
for f in lib/librmaib-mpi.so include/mpix_rmaib.h lib/pkgconfig/rmaib.pc share/man/man7/rmaib.7 \
         bin/rmaib-bfs; do
    if [ -e "$root/$f" ]; then ok "installs $f"; else not_ok "installs $f"; fi
done
if man -l "$root/share/man/man7/rmaib.7" 2>/dev/null | grep -q RMAIB_TRANSPORT; then
    ok "rmaib(7) renders and lists the variables"
else
    not_ok "rmaib(7) renders and lists the variables"
fi

cat > "$tmp/app.c" <<'APP'
#include <stdio.h>
#include <mpix_rmaib.h>
int main(int argc, char **argv)
{
    int rank, size, *base, bad = 0;
    MPI_Win win;
    MPI_Info info;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info_create(&info);
    MPI_Info_set(info, MPIX_RMAIB_INFO_LOCK, MPIX_RMAIB_LOCK_MCS);
    MPI_Win_allocate(sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &base, &win);
    *base = -1;
    MPI_Win_fence(0, win);
    int v = 1000 + rank;
    MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (*base != 1000 + (rank + size - 1) % size)
        bad = 1;
    printf("rank %d version %s got %d %s\n", rank, MPIX_RMAIB_VERSION, *base, bad ? "BAD" : "OK");
    MPI_Win_free(&win);
    MPI_Info_free(&info);
    MPI_Finalize();
    return bad;
}
APP
flags=$(PKG_CONFIG_PATH=$root/lib/pkgconfig pkg-config --define-variable=prefix="$tmp/root$prefix" \
        --cflags --libs rmaib 2>"$tmp/pc.err")
if [ -n "$flags" ] && "$mpicc" "$tmp/app.c" -o "$tmp/app" $flags > "$tmp/cc.log" 2>&1; then
    ok "a program builds with \$(pkg-config --cflags --libs rmaib) [$flags]"
else
    cat "$tmp/pc.err" >> "$tmp/cc.log" 2>/dev/null
    not_ok "a program builds with \$(pkg-config --cflags --libs rmaib)" "$tmp/cc.log"
fi
if LD_LIBRARY_PATH=$root/lib RMAIB_VERBOSE=1 timeout 60 "$mpiexec" -n 2 \
        ${san_runtime:+env LD_PRELOAD=$san_runtime} "$tmp/app" > "$tmp/run.log" 2>&1 \
   && [ "$(grep -c ' OK$' "$tmp/run.log")" = 2 ] && grep -q 'rmaib: window' "$tmp/run.log" \
   && grep -q 'lock=mcs' "$tmp/run.log"; then
    ok "it runs on 2 ranks with rmaib serving its window (lock=mcs from the header's key) and the puts land"
else
    not_ok "it runs on 2 ranks with rmaib serving its window and the puts land" "$tmp/run.log"
fi
if LD_LIBRARY_PATH=$root/lib timeout 60 "$mpiexec" -n 2 \
        ${san_runtime:+env LD_PRELOAD=$san_runtime} "$root/bin/rmaib-bfs" -s 8 -r 1 \
        > "$tmp/bfs.log" 2>&1 && [ "$(grep -c ' valid$' "$tmp/bfs.log")" = 3 ]; then
    ok "the installed rmaib-bfs runs its three traversals on 2 ranks, each valid"
else
    not_ok "the installed rmaib-bfs runs its three traversals on 2 ranks, each valid" "$tmp/bfs.log"
fi
echo "1..$n"
