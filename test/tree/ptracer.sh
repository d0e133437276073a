#!/bin/sh
# Who rmaib lets attach to a rank, seen by strace, as TAP.  Windows of user memory
# (MPI_Win_create) reach local peers with process_vm_*; only where Yama's
# ptrace_scope is 1 does rmaib then name a ptracer, and it names the ranks' launcher,
# never PR_SET_PTRACER_ANY.  Windows rmaib allocates need no cross-memory attach:
# no PR_SET_PTRACER at all.  Without Yama, none either.
set -u
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
mpiexec=${MPIEXEC:-mpiexec.mpich}
top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/test/sanitizers/env.sh"
# LeakSanitizer stops the world by ptrace from a helper it names with its own
# PR_SET_PTRACER, and cannot under strace: these runs go without it.
[ -n "${RMAIB_SANITIZERS:-}" ] && ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
if ! command -v strace > /dev/null 2>&1; then
    echo "1..0 # SKIP strace is not installed (maint/install-deps)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-ptracer.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo none)

# run NAME PROG: 2 ranks over shm under strace -f; the PR_SET_PTRACER calls in $tmp/NAME
run() {
    if RMAIB_TRANSPORT=shm timeout 120 strace -f -qq -e trace=prctl -o "$tmp/$1.strace" \
            "$mpiexec" -n 2 "$top_builddir/test/rma/$2" > "$tmp/$1.out" 2>&1; then
        ok "$2 passes on 2 ranks under strace"
    else
        not_ok "$2 passes on 2 ranks under strace" "$(tail -n 5 "$tmp/$1.out")"
    fi
    grep 'PR_SET_PTRACER' "$tmp/$1.strace" > "$tmp/$1" || true
}

run alloc win_allocate
if [ -s "$tmp/alloc" ]; then
    not_ok "MPI_Win_allocate windows name no ptracer" "$(head -n 3 "$tmp/alloc")"
else
    ok "MPI_Win_allocate windows name no ptracer"
fi

run create win_create
case $scope in
1)
    if grep -q 'PR_SET_PTRACER_ANY' "$tmp/create"; then
        not_ok "Yama 1: MPI_Win_create names the launcher, not anyone" "$(head -n 3 "$tmp/create")"
    elif grep -qE 'PR_SET_PTRACER, [0-9]+\) = 0' "$tmp/create"; then
        ok "Yama 1: MPI_Win_create names the launcher, not anyone"
    else
        not_ok "Yama 1: MPI_Win_create names the launcher, not anyone" "no PR_SET_PTRACER seen"
    fi ;;
*)
    if [ -s "$tmp/create" ]; then
        not_ok "Yama scope $scope: MPI_Win_create names no ptracer" "$(head -n 3 "$tmp/create")"
    else
        ok "Yama scope $scope: MPI_Win_create names no ptracer"
    fi ;;
esac
echo "1..$n"
