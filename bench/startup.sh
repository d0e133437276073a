#!/bin/bash
# bench/startup.sh [--reps N] [--np N] [--builddir DIR] [--nm-prefix DIR]
#
# What rmaib costs a job at start-up (bench/README.md, "Start-up"): bench/startup run
# as a whole job under each system, the systems interleaved round-robin REPS times
# (default 7), medians in ms:
#   job   the whole mpiexec, as a user's shell sees it
#   init  MPI_Init (slowest rank)     win  the first window: allocate, fence, free
# for three jobs: one that makes no window, one that makes an allocate window within
# the node, and one whose first window goes over the network (rmaib: RMAIB_TRANSPORT=ofi
# over tcp;ofi_rxm on lo; MPICH: UCX_TLS=tcp,self; Open MPI: --mca btl tcp,self).
# Systems: stock MPICH, Open MPI, rmaib preloaded into the MPICH binary, and
# rmaib as the ch4 netmod where maint/mpich-rmaib's prefix exists.  It also times
# the floor under the network window, libfabric alone (bench/startup fabric), and
# LD_PRELOAD of the library into `bash -c true` against libmpich's own, and a dlopen
# of it, and of libfabric, in a process that has libmpich loaded already.
set -u
export LC_ALL=C
srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$srcdir reps=7 np=2 nm_prefix=
while [ $# -gt 0 ]; do
    case $1 in
        --reps) reps=$2; shift ;;
        --np) np=$2; shift ;;
        --builddir) builddir=$(cd "$2" && pwd); shift ;;
        --nm-prefix) nm_prefix=$2; shift ;;
        *) echo "usage: $0 [--reps N] [--np N] [--builddir DIR] [--nm-prefix DIR]" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$nm_prefix" ] || nm_prefix=$("$srcdir/maint/mpich-rmaib" --no-build 2>/dev/null) || nm_prefix=
lib=$builddir/.libs/librmaib-mpi.so
prog=$builddir/bench/startup
[ -x "$prog" ] && [ -f "$lib" ] || { echo "startup.sh: build first (make): need $prog and $lib" >&2; exit 2; }
scratch=$(mktemp -d) && trap 'rm -rf "$scratch"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
systems="mpich rmaib"
if command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$scratch/startup_ompi" \
        "$srcdir/bench/startup.c" 2>/dev/null; then
    systems="$systems ompi"
fi
if [ -n "$nm_prefix" ] && [ -x "$nm_prefix/bin/mpicc" ] &&
        "$nm_prefix/bin/mpicc" -O2 -o "$scratch/startup_nm" "$srcdir/bench/startup.c" 2>/dev/null; then
    systems="$systems rmaib_nm"
fi
net_rmaib="-genv RMAIB_TRANSPORT ofi -genv RMAIB_OFI_PROVIDER tcp;ofi_rxm -genv FI_TCP_IFACE lo"

# run SYSTEM JOB: prints "job_ms init_ms win_ms", or "fail".
run() {
    local sys=$1 job=$2 mode=alloc out t0 t1 cmd=()
    [ "$job" = none ] && mode=none
    case $sys in
        mpich) cmd=(mpiexec.mpich -n "$np")
               [ "$job" = net ] && cmd+=(-genv UCX_TLS tcp,self -genv UCX_NET_DEVICES lo)
               cmd+=("$prog") ;;
        rmaib) cmd=(mpiexec.mpich -n "$np" -genv LD_PRELOAD "$lib" -genv RMAIB_VERBOSE 1)
               # shellcheck disable=SC2206  # words meant
               [ "$job" = net ] && cmd+=($net_rmaib)
               cmd+=("$prog") ;;
        rmaib_nm) cmd=(mpiexec.mpich -n "$np" -genv LD_LIBRARY_PATH "$nm_prefix/lib"
                       -genv RMAIB_VERBOSE 1)
               # shellcheck disable=SC2206
               [ "$job" = net ] && cmd+=($net_rmaib)
               cmd+=("$scratch/startup_nm") ;;
        ompi)  cmd=(mpirun.openmpi --oversubscribe --bind-to none -n "$np")
               [ "$job" = net ] && cmd+=(--mca btl tcp,self)
               cmd+=("$scratch/startup_ompi") ;;
    esac
    t0=$(date +%s%N)
    out=$(timeout 120 "${cmd[@]}" "$mode" 2>&1) || { echo fail; return; }
    t1=$(date +%s%N)
    # rmaib's figures count only where it served the window (its verbose line).
    case $sys in rmaib*) [ "$mode" = none ] || grep -q 'rmaib: window' <<< "$out" ||
        { echo fail; return; } ;; esac
    awk -v job=$(( (t1 - t0) / 1000 )) '/^init_ms/ { printf "%.1f %s %s\n", job / 1000, $2, $4 }' <<< "$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

jobs="none alloc net"
for ((r = 1; r <= reps; r++)); do
    for job in $jobs; do
        for sys in $systems; do
            echo "$(run "$sys" "$job")" >> "$scratch/$sys.$job"
        done
    done
    # libfabric alone, as many processes at once as the job has ranks: the slowest.
    for ((k = 0; k < np; k++)); do
        FI_TCP_IFACE=lo "$prog" fabric > "$scratch/fabric.$k" 2>&1 &
    done
    wait
    cat "$scratch"/fabric.[0-9]* | awk '/^load_ms/ { for (i = 2; i <= 6; i += 2) if ($i > m[i]) m[i] = $i }
        END { printf "load_ms %s getinfo_ms %s endpoint_ms %s total %.2f\n", m[2], m[4], m[6], m[2] + m[4] + m[6] }' >> "$scratch/fabric"
    for l in "$lib" "${libfabric:=$(ldconfig -p | awk '/libfabric\.so\.1 / { print $NF; exit }')}"; do
        [ -n "$l" ] && "$prog" load "$l" | awk '{ print $2 }' >> "$scratch/dlopen.${l##*/}"
    done
    for what in bash mpich rmaib; do
        case $what in
            bash) l= ;;
            mpich) l=$(ldd "$prog" | awk '/libmpich/ { print $3 }') ;;
            rmaib) l=$lib ;;
        esac
        t0=$(date +%s%N); LD_PRELOAD=$l bash -c true; t1=$(date +%s%N)
        echo $(( (t1 - t0) / 1000 )) >> "$scratch/preload.$what"
    done
done

cores=$(nproc)
echo "# Start-up, $np ranks on $cores cores ($(uname -n), $(date -u +%Y-%m-%d)), medians of $reps interleaved runs, ms"
[ "$np" -gt "$cores" ] && echo "(ranks outnumber cores: $np ranks on $cores cores)"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| job | system | job | MPI_Init | first window |"
echo "|---|---|---:|---:|---:|"
for job in $jobs; do
    for sys in $systems; do
        f=$scratch/$sys.$job
        nfail=$(grep -c fail "$f")
        col() { grep -v fail "$f" | awk -v c="$1" '{ print $c }' | median; }
        w=$(col 3); [ "$job" = none ] && w=-
        failed=; [ "$nfail" -gt 0 ] && failed=" ($nfail of $reps runs failed)"
        echo "| $job | $sys | $(col 1) | $(col 2) | $w$failed |"
    done
done
echo
fab() { awk -v c="$1" '{ print $c }' "$scratch/fabric" | median; }
echo "libfabric alone (bench/startup fabric, tcp;ofi_rxm, $np at once): load $(fab 2) ms," \
    "fi_getinfo $(fab 4) ms, endpoint $(fab 6) ms; in all $(fab 8) ms"
pre() { awk '{ printf "%.1f\n", $1 / 1000 }' "$scratch/preload.$1" | median; }
echo "bash -c true: alone $(pre bash) ms; with LD_PRELOAD of libmpich $(pre mpich) ms," \
    "of librmaib-mpi $(pre rmaib) ms"
echo "dlopen with libmpich loaded: librmaib-mpi $(median < "$scratch/dlopen.${lib##*/}") ms," \
    "libfabric $(median < "$scratch/dlopen.${libfabric##*/}" 2>/dev/null) ms (what each costs a process)"
