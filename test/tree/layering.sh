#!/bin/sh
# The core's layering, as TAP.  The core (src/base, src/transport, src/rma,
# src/locks, src/coll_overlay) is one library that must not need MPI: no undefined
# MPI symbol in librmaib-core (nm -u), no MPI or binding header included, and every
# include of another folder points down:
#   base (0) < transport (1) < rma, locks (2) < coll_overlay (3) < binding, mpid (4)
# Headers of src/include count as base, but rmaib_win.h (the window state the
# transports share) as transport.
set -u
top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

layer_of_dir() {
    case $1 in
        base) echo 0 ;; transport|transport/*) echo 1 ;; rma|locks) echo 2 ;;
        coll_overlay) echo 3 ;; binding|binding/*|mpid|mpid/*) echo 4 ;; *) echo 9 ;;
    esac
}
layer_of_include() {     # an include name as written, from a file in folder $2
    case $1 in
        mpi.h|mpio.h|mpi_*.h|mpix_*.h|mpidimpl.h|mpiimpl.h) echo 9 ;;
        rmaib_win.h) echo 1 ;;
        rmaib.h|rmaib_host.h|rmaib_layout.h) echo 0 ;;
        */*) layer_of_dir "$(dirname "$1")" ;;
        *) layer_of_dir "$2" ;;                       # a neighbour in its own folder
    esac
}

lib=$top_builddir/.libs/librmaib-core.a
if [ ! -f "$lib" ]; then
    not_ok "librmaib-core.a is built" "not found: $lib"
else
    bad=$(nm -u "$lib" | awk '{print $NF}' | grep -E '^P?MPI[A-Z]?_' | sort -u)
    if [ -z "$bad" ]; then
        ok "librmaib-core has no undefined MPI symbol"
    else
        # shellcheck disable=SC2086
        not_ok "librmaib-core has no undefined MPI symbol" $bad
    fi
fi

cd "$top_srcdir/src" || exit 1
for dir in base transport rma locks coll_overlay; do
    [ -d "$dir" ] || continue
    me=$(layer_of_dir "$dir")
    problems=
    for f in $(find "$dir" -name '*.[ch]' | sort); do
        fdir=$(dirname "$f")
        for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$f"); do
            case $inc in
                */*|*.h) ;;
                *) continue ;;
            esac
            # system headers (<stdio.h>, <rdma/fabric.h>) other than MPI's are fine
            if grep -Eq "^[[:space:]]*#[[:space:]]*include[[:space:]]*<$inc>" "$f"; then
                case $inc in mpi.h|mpio.h|mpix_*.h) ;; *) continue ;; esac
            fi
            l=$(layer_of_include "$inc" "$fdir")
            if [ "$l" -gt "$me" ]; then
                problems="$problems $f:$inc"
            fi
        done
    done
    if [ -z "$problems" ]; then
        ok "src/$dir includes nothing of a higher layer, nor MPI's headers"
    else
        # shellcheck disable=SC2086
        not_ok "src/$dir includes nothing of a higher layer, nor MPI's headers" $problems
    fi
done

# The headers the core shares (src/include) include no MPI either.
problems=$(grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](mpi|mpix_rmaib)\.h[">]' include/*.h 2>/dev/null)
if [ -z "$problems" ]; then
    ok "src/include's headers include no MPI header"
else
    # shellcheck disable=SC2086
    not_ok "src/include's headers include no MPI header" $problems
fi
echo "1..$n"
exit 0
