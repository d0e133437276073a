#!/bin/bash
# bench/umem_compare.sh: MPI_Win_create and dynamic windows against MPI_Win_allocate
# windows (issue 36),
# 2 ranks on this host, the OSU programs of this folder under
#   rmaib        the MPICH binaries with LD_PRELOAD of the built library
#   rmaib_pvm    the same with RMAIB_MAP_USER_MEMORY=0 (user memory on process_vm_*)
#   mpich        stock MPICH (mpiexec.mpich, no preload)
#   ompi_sm      Open MPI with --mca osc sm (built here with mpicc.openmpi), if installed;
#                osc/sm serves allocated windows only
#   ompi         Open MPI with its default osc (rdma over btl/vader, single copy)
# every case once per system per round, the systems alternating, REPS rounds; prints
# the medians (us) and the ratios that docs/performance.md quotes.
#
#   bench/umem_compare.sh [--builddir DIR] [--reps N]
set -u
builddir=.
reps=5
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        *) echo "usage: $0 [--builddir DIR] [--reps N]" >&2; exit 2 ;;
    esac
done
srcdir=$(cd "$(dirname "$0")/.." && pwd)
lib=$(cd "$builddir" && pwd)/.libs/librmaib-mpi.so
[ -e "$lib" ] || { echo "$0: no $lib (run make first)" >&2; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umem-compare.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

systems="rmaib rmaib_pvm mpich"
progs="osu_put_latency osu_get_latency osu_acc_latency osu_fop_latency"
if command -v mpicc.openmpi >/dev/null 2>&1; then
    for p in $progs; do
        mpicc.openmpi -O2 -o "$scratch/$p" "$srcdir/bench/$p.c" "$srcdir/bench/osu_common.c" ||
            { echo "$0: mpicc.openmpi failed" >&2; exit 1; }
    done
    systems="$systems ompi_sm ompi"
fi

# name | program | arguments (the window flavor is added).  -B 1M: one window of 1 MiB,
# as IMB-RMA makes; put8sub keeps OMB's 8-byte window, less than a page, never mapped.
cases="put8|osu_put_latency|-m 8:8 -B 1M -i 5000 -x 200
put64k|osu_put_latency|-m 65536:65536 -B 1M -i 1000 -x 50
get8|osu_get_latency|-m 8:8 -B 1M -i 5000 -x 200
acc8|osu_acc_latency|-m 8:8 -B 1M -i 5000 -x 200
fop8|osu_fop_latency|-m 8:8 -B 1M -i 5000 -x 200
put8sub|osu_put_latency|-m 8:8 -i 5000 -x 200"

run() {   # run SYSTEM PROGRAM ARGS...: the latency of the one size asked for
    local sys=$1 prog=$2
    shift 2
    case $sys in
        rmaib) timeout 120 mpiexec.mpich -n 2 -genv LD_PRELOAD "$lib" \
                   "$builddir/bench/$prog" -f csv "$@" ;;
        rmaib_pvm) timeout 120 mpiexec.mpich -n 2 -genv LD_PRELOAD "$lib" \
                   -genv RMAIB_MAP_USER_MEMORY 0 "$builddir/bench/$prog" -f csv "$@" ;;
        mpich) timeout 120 mpiexec.mpich -n 2 "$builddir/bench/$prog" -f csv "$@" ;;
        ompi_sm) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 \
                   mpirun.openmpi --oversubscribe -n 2 --mca osc sm "$scratch/$prog" -f csv "$@" ;;
        ompi) OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 \
                   mpirun.openmpi --oversubscribe -n 2 "$scratch/$prog" -f csv "$@" ;;
    esac </dev/null 2>/dev/null | awk -F, '$5 == "latency" { v = $6 } END { print (v == "" ? "NA" : v) }'
}

echo "# $(date -u '+%F %H:%M') $(hostname), $(nproc) cores for 2 ranks, $reps rounds"
[ "$(nproc)" -lt 2 ] && echo "# ranks outnumber cores"
data=$scratch/data
for ((r = 1; r <= reps; r++)); do
    echo "$cases" | while IFS='|' read -r name prog args; do
        for w in create dynamic allocate; do
            for sys in $systems; do
                # shellcheck disable=SC2086
                echo "$name $w $sys $(run "$sys" "$prog" $args -w $w)" >>"$data"
            done
        done
    done
done

median() {   # median NAME WINDOW SYSTEM
    awk -v n="$1" -v w="$2" -v s="$3" '$1 == n && $2 == w && $3 == s && $4 != "NA" { print $4 }' \
        "$data" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "NA";
        else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf '%-8s %-8s' case window
for sys in $systems; do printf ' %10s' "$sys"; done
printf ' %12s\n' "rmaib/best"
echo "$cases" | while IFS='|' read -r name _; do
    for w in create dynamic allocate; do
        printf '%-8s %-8s' "$name" "$w"
        best=
        for sys in $systems; do
            m=$(median "$name" "$w" "$sys")
            printf ' %10s' "$m"
            case $sys in mpich|ompi_sm|ompi)
                [ "$m" != NA ] && { [ -z "$best" ] || awk -v a="$m" -v b="$best" 'BEGIN { exit !(a < b) }'; } &&
                    best=$m ;;
            esac
        done
        m=$(median "$name" "$w" rmaib)
        awk -v a="$m" -v b="$best" 'BEGIN { if (a == "NA" || b == "") print "          NA"; else printf " %12.2f\n", a / b }'
    done
    for w in create dynamic; do
        awk -v c="$(median "$name" $w rmaib)" -v a="$(median "$name" allocate rmaib)" \
            -v p="$(median "$name" $w rmaib_pvm)" -v n="$name" -v w=$w \
            'BEGIN { if (c != "NA" && a != "NA" && p != "NA")
                     printf "%-8s rmaib %s/allocate %.2f, process_vm/mapped %.2f\n", n, w, c / a, p / c }'
    done
done
