#!/bin/sh
# The drop-in library defines every entry point of the host MPICH that an RMA program
# reaches, in every C form MPICH exports, as TAP: a call MPICH serves that rmaib
# does not see would run on a window rmaib never made (issue 35: MPI_Win_allocate_c
# went to MPICH, and the next MPI_Win_lock_all failed with "Invalid MPI_Win").
#  - every RMA and window MPI_ symbol of libmpich, int and _c, but for the calls
#    left to the host on the shadow window (HOST_KEPT below);
#  - every int and _c form of the collectives rmaib serves on its windows;
#  - every symbol src/binding/mpi/api.txt describes;
#  - every mpi_f08 entry point of libmpichfort that calls PMPI_ (libmpichfort imports
#    PMPI_Name) where rmaib defines MPI_Name, and the two Fortran MPI_Win_get_attr;
#  - every _c form of the waits rmaib wraps to serve its endpoint (serve.c).
set -u
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
lib=$top_builddir/.libs/librmaib-mpi.so
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# missing $l"; done; }
check() {   # description, then the missing names (none: ok)
    d=$1; shift
    if [ $# -eq 0 ]; then ok "$d"; else not_ok "$d" "$@"; fi
}

# Names, error handlers and keyvals stay the host's, on the shadow window
# (DESIGN.md, the drop-in binding).
HOST_KEPT='MPI_Win_call_errhandler MPI_Win_create_errhandler MPI_Win_get_errhandler
MPI_Win_set_errhandler MPI_Win_create_keyval MPI_Win_free_keyval MPI_Win_set_attr
MPI_Win_delete_attr MPI_Win_get_name MPI_Win_set_name'
RMA='^MPI_(Win_[a-z_]+|Put|Get|Rput|Rget|Accumulate|Raccumulate|Get_accumulate|Rget_accumulate|Fetch_and_op|Compare_and_swap)(_c)?$'
SERVED_COLL='^MPI_I?(Allreduce|Allgather|Alltoall|Barrier)(_c)?$'
SERVE_WAITS='^MPI_(Recv|Sendrecv|Bcast|Reduce|Gather)(_c)?$'

[ -f "$lib" ] || { echo "Bail out! $lib not built"; exit 1; }
host=$(ldd "$lib" | sed -n 's/^[[:space:]]*libmpi[a-z]*\.so[.0-9]* => \([^ ]*\) .*/\1/p' | head -n 1)
[ -n "$host" ] && [ -f "$host" ] || { echo "Bail out! no host MPI library linked by $lib"; exit 1; }
echo "# host MPI: $host"
defined() { nm -D --defined-only "$1" | awk '$2 == "T" || $2 == "W" || $2 == "i" { print $3 }' | sort -u; }
mpich=$(defined "$host")
rmaib=$(defined "$lib")
absent() {  # the names of stdin that rmaib does not define
    printf '%s\n' "$rmaib" > "${TMPDIR:-/tmp}/rmaib-syms.$$"
    grep -vxF -f "${TMPDIR:-/tmp}/rmaib-syms.$$" | grep . || true
    rm -f "${TMPDIR:-/tmp}/rmaib-syms.$$"
}
kept() { printf '%s\n' $HOST_KEPT; }

# shellcheck disable=SC2046
check "every RMA and window call of the host, int and _c, is rmaib's" \
    $(printf '%s\n' "$mpich" | grep -E "$RMA" | grep -vxF -e "$(kept)" | absent)
# shellcheck disable=SC2046
check "every served collective of the host, int and _c, is rmaib's" \
    $(printf '%s\n' "$mpich" | grep -E "$SERVED_COLL" | absent)
# shellcheck disable=SC2046
check "every wait rmaib serves its endpoint in, int and _c, is rmaib's" \
    $(printf '%s\n' "$mpich" | grep -E "$SERVE_WAITS" | absent)
# shellcheck disable=SC2046
check "every call of api.txt is defined" \
    $(python3 "$top_srcdir/maint/gen-binding" symbols "$top_srcdir/src/binding/mpi/api.txt" | absent)
# shellcheck disable=SC2046
check "the calls left to the host are the host's to keep" \
    $(kept | grep -vxF -e "$(printf '%s\n' "$mpich")" || true)
# The mpi_f08 wrappers: mpi_win_fence_f08_ and the like call PMPI_Win_fence.
fort=$(dirname "$host")/libmpichfort.so.12
if [ -f "$fort" ]; then
    fort_defs=$(defined "$fort")
    fort_pmpi=$(nm -D --undefined-only "$fort" | awk '{ print $2 }' | sed -n 's/^PMPI_//p' | sort -u)
    f08=$(for c in $fort_pmpi; do
        case " $(echo $rmaib) " in *" MPI_$c "*) ;; *) continue ;; esac
        base=$(echo "$c" | tr 'A-Z' 'a-z')
        case $base in *_c) f="mpi_${base%_c}_f08_large_" ;; *) f="mpi_${base}_f08_" ;; esac
        printf '%s\n' "$fort_defs" | grep -qxF "$f" && echo "$f"
    done; echo mpi_win_get_attr_f08_; echo mpi_win_get_attr_)
    # shellcheck disable=SC2046
    check "every mpi_f08 entry point that would bypass rmaib through PMPI_ is rmaib's" \
        $(printf '%s\n' "$f08" | absent)
else
    n=$((n + 1))
    echo "ok $n - mpi_f08 entry points # SKIP no $fort"
fi
echo "1..$n"
