#!/bin/bash
# bench/scale.sh [--np "32 256"] [--nodes N] [--nwin N] [--timeout SEC] [--builddir DIR]
#
# What a window costs a process, and the connections it makes, when the ranks are
# spread over NODES (default 8) network-namespace "nodes" on this host
# (test/multihost/netns_lib.sh) that talk over TCP on a bridge: bench/ring_scale at
# each P under
#   mpich        stock MPICH (mpiexec.mpich; ring_scale built with mpicc.mpich)
#   rmaib-mpich  the same binary with LD_PRELOAD=<build>/.libs/librmaib-mpi.so
#   ompi         stock Open MPI (mpiexec.openmpi; ring_scale built with mpicc.openmpi)
#                with --mca osc pt2pt: Debian's openmpi-mca-params.conf leaves out
#                osc/pt2pt and osc/ucx, and osc/rdma over the tcp btl fails
#                MPI_Win_allocate across nodes (MPI_ERR_WIN)
#   rmaib-ompi   that binary with LD_PRELOAD=<build>/.libs/librmaib-ompi.so
# P / NODES consecutive ranks on each node; rmaib with the multihost pass's variables
# (test/scale/testlist): shm within a node, ofi over tcp;ofi_rxm on rmh0 between
# nodes.  Before each P it checks, with `hostname` under each launcher, that the
# ranks fill every node; an rmaib run counts only if it printed its RMAIB_VERBOSE
# window line, a run only if it printed its figures within SEC (default 600) with its
# data right.  A job still running 20 s after its figures (MPICH 4.0.2 over UCX's
# tcp hangs in MPI_Finalize here) is ended and its figures kept, with a note; one
# that leaves the machine less than 2 GiB available is ended with none.
# Prints a table per P: ring_scale's columns (bench/ring_scale.c), one row a system,
# and rmaib's ratio to the stock MPI it runs on (rmaib / stock: below 1, rmaib less)
# for the mean resident memory a window, its mean proportional set size (Pss: a
# page shared by n processes counts 1/n in each), the mean sockets (all: an MPI that connects
# at start-up makes none "new") and the first window's creation.
set -u
export LC_ALL=C
srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$srcdir nps="32 256" nodes=8 nwin=32 limit=600
usage() {
    echo "usage: $0 [--np \"P...\"] [--nodes N] [--nwin N] [--timeout SEC] [--builddir DIR]" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case $1 in
        --np) nps=$2 ;;
        --nodes) nodes=$2 ;;
        --nwin) nwin=$2 ;;
        --timeout) limit=$2 ;;
        --builddir) builddir=$(cd "$2" && pwd) || exit 2 ;;
        *) usage ;;
    esac
    shift 2
done
die() { echo "scale.sh: $*" >&2; exit 2; }
lib_mpich=$builddir/.libs/librmaib-mpi.so lib_ompi=$builddir/.libs/librmaib-ompi.so
[ -f "$lib_mpich" ] || die "build first (make): no $lib_mpich"
[ -f "$lib_ompi" ] || die "no $lib_ompi (configure found no Open MPI?)"
for c in mpiexec.mpich mpicc.mpich mpiexec.openmpi mpicc.openmpi; do
    command -v "$c" >/dev/null || die "needs $c"
done
command -v ip >/dev/null || die "ip(8) not found (iproute2)"
[ "$(id -u)" -eq 0 ] || die "not root: network namespaces need CAP_NET_ADMIN"
for p in $nps; do
    [ $((p % nodes)) -eq 0 ] && [ "$p" -ge "$nodes" ] || die "P=$p is not a multiple of $nodes nodes"
done

# shellcheck source=test/multihost/netns_lib.sh
. "$srcdir/test/multihost/netns_lib.sh"
netns_init "$nodes" || die "$netns_why"
scratch=$netns_tmp
netns_up || die "$netns_why"
netns_reach || die "$netns_why"
for mpi in mpich openmpi; do
    "mpicc.$mpi" -O2 -o "$scratch/ring_scale.$mpi" "$srcdir/bench/ring_scale.c" 2>"$scratch/err" ||
        die "mpicc.$mpi: $(head -n 1 "$scratch/err")"
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
systems="mpich rmaib-mpich ompi rmaib-ompi"
# Every MPI's own traffic on the bridge too: UCX sees one machine and would take
# shared memory (sysv, posix, cma) between the namespaces; Open MPI's tcp btl.
ucx_args="-genv UCX_TLS tcp,self -genv UCX_NET_DEVICES rmh0"
rmaib_env="RMAIB_TRANSPORT=auto RMAIB_OFI_PROVIDER=tcp;ofi_rxm FI_TCP_IFACE=rmh0
RMAIB_ASYNC_PROGRESS=1 RMAIB_VERBOSE=1"
ompi_args="--oversubscribe --bind-to none --mca mpi_yield_when_idle 1"

# launch SYSTEM NP COMMAND...: the job under the system's launcher in node 0, with
# SEC to finish.  In the background, so that Ctrl-C reaches the trap at once.
launch() {
    local sys=$1 np=$2 cmd=() kv
    shift 2
    # shellcheck disable=SC2206  # words meant
    case $sys in
        *mpich) cmd=("$scratch/mpiexec.mpich" -n "$np" $ucx_args)
                if [ "$sys" = rmaib-mpich ]; then
                    cmd+=(-genv LD_PRELOAD "$lib_mpich")
                    for kv in $rmaib_env; do cmd+=(-genv "${kv%%=*}" "${kv#*=}"); done
                fi ;;
        *ompi)  cmd=("$scratch/mpiexec.openmpi" -n "$np" $ompi_args)
                if [ "$sys" = rmaib-ompi ]; then
                    cmd+=(-x "LD_PRELOAD=$lib_ompi")
                    for kv in $rmaib_env; do cmd+=(-x "$kv"); done
                else
                    cmd+=(--mca osc pt2pt)
                fi ;;
    esac
    timeout -k 10 "$limit" "${cmd[@]}" "$@" &
    wait $!
}

# spread LAUNCHER NP: placed="ok" if the ranks fill every node with NP / NODES each.
# (These and the runs stay in this shell, not in $(...), for the Ctrl-C above.)
spread() {
    local sys=$1 np=$2
    placed=failed
    launch "$sys" "$np" hostname > "$scratch/hosts" 2>&1 || return
    placed=$(sort "$scratch/hosts" | uniq -c | awk -v nodes="$nodes" -v ppn=$((np / nodes)) '
        $1 == ppn { n++ } END { print (n == nodes && NR == nodes) ? "ok" : "wrong" }')
}

# verdict SYSTEM RC: why the run in $scratch/out does not count, or nothing.
verdict() {
    if [ "$2" -eq 124 ] || [ "$2" -eq 137 ]; then
        echo "timed out after ${limit}s"
    elif [ "${1#rmaib}" != "$1" ] && ! grep -q 'rmaib: window' "$scratch/out"; then
        echo "no RMAIB_VERBOSE line (the preload did not take)"
    elif grep -q 'DATA WRONG' "$scratch/out"; then
        echo "DATA WRONG"
    elif ! grep -q '^np ' "$scratch/out"; then
        echo "exit $2, no figures: $(grep -v 'rmaib: window' "$scratch/out" | head -n 1)"
    fi
}

# run SYSTEM NP: a row to $scratch/rows, the system and ring_scale's figures (np, rss
# max mean, total max mean, sockets max mean, first max mean, create, sockets_all max
# mean, pss max mean), or "fail WHY".
run() {
    local sys=$1 np=$2 bin=$scratch/ring_scale.mpich rc why='' waited=0 cut='' pid
    case $sys in *ompi) bin=$scratch/ring_scale.openmpi ;; esac
    launch "$sys" "$np" "$bin" "$nwin" > "$scratch/out" 2>&1 &
    pid=$!
    while kill -0 $pid 2>/dev/null; do
        if grep -q '^np ' "$scratch/out" && [ $((waited += 1)) -gt 20 ]; then
            cut=" (hung after its figures: ended)"
            netns_reap
            break
        fi
        # The machine is shared: a job that leaves it less than 2 GiB ends there.
        if [ "$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)" -lt 2097152 ]; then
            why="ended: it left the machine less than 2 GiB available"
            netns_reap
            break
        fi
        sleep 1
    done
    wait $pid
    rc=$?
    [ -z "$cut" ] || rc=0
    cat "$scratch/out" >> "$scratch/log"
    [ -n "$why" ] || why=$(verdict "$sys" "$rc")
    if [ -n "$why" ]; then
        echo "$sys fail $why" >> "$scratch/rows"
    else
        awk -v sys="$sys" '$1 == "np" { print sys, $2, $4, $5, $7, $8, $10, $11, $13, $14, $16, $18, $19, $21, $22 }' \
            "$scratch/out" >> "$scratch/rows"
        [ -z "$cut" ] || echo "$sys$cut" >> "$scratch/notes"
    fi
}

cores=$(nproc)
echo "# bench/scale.sh: bench/ring_scale ($nwin windows of 4 KiB, each a put to both ring"
echo "# neighbours) across $nodes network-namespace nodes, TCP over a veth bridge"
echo "# $(uname -r), $cores cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
    "$(awk '/MemAvailable/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) available"
echo "# rmaib: $rmaib_env" | tr '\n' ' '
echo
echo "# Open MPI: $ompi_args (stock: --mca osc pt2pt); MPICH: $ucx_args"
for np in $nps; do
    ppn=$((np / nodes))
    netns_mpiexec mpiexec.mpich "$ppn" "$scratch/mpiexec.mpich"
    netns_mpiexec mpiexec.openmpi "$ppn" "$scratch/mpiexec.openmpi"
    echo
    echo "## P = $np: $nodes nodes x $ppn ranks; $np ranks on $cores cores" \
        "(ranks outnumber cores $((np / cores)) to 1: the times are the machine's share)"
    t0=$(date +%s)
    spread mpich "$np"; place="mpich $placed"
    spread ompi "$np"; place="$place, ompi $placed"
    echo "placement (hostname under each launcher, $nodes hosts x $ppn): $place; load" \
        "$(cut -d' ' -f1-3 /proc/loadavg)," \
        "$(awk '/MemAvailable/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) available"
    : > "$scratch/log"
    for sys in $systems; do run "$sys" "$np"; done
    backend=$(grep -m 1 '^\[0\] rmaib: window' "$scratch/log" | sed -e 's/.* backend=\([^ ]*\).*/\1/')
    echo "rmaib's first window on rank 0: backend=${backend:-?}; wall time $(( $(date +%s) - t0 )) s"
    echo
    awk '
        function ratio(a, b) { return (b > 0) ? sprintf("%.2f", a / b) : "-" }
        BEGIN {
            printf "| system | rss KB/win max | mean | x stock | pss KB/win max | mean | x stock |"
            printf " rss KB total max | mean |"
            printf " sockets new max | mean | all max | all mean | x stock |"
            printf " first put us max | mean | create ms | x stock |\n"
            print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        }
        $2 == "fail" { why = $0; sub(/^[^ ]* fail /, "", why); printf "| %s | failed: %s |\n", $1, why; next }
        {
            s = $1; for (i = 3; i <= NF; i++) v[s, i] = $i
            base = (s ~ /^rmaib-/) ? substr(s, 7) : ""
            r1 = r2 = r3 = r4 = ""
            if (base != "" && ((base, 3) in v)) {
                r1 = ratio($4, v[base, 4]); r2 = ratio($13, v[base, 13]); r3 = ratio($11, v[base, 11])
                r4 = ratio($15, v[base, 15])
            }
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s |\n",
                s, $3, $4, r1, $14, $15, r4, $5, $6, $7, $8, $12, $13, r2, $9, $10, $11 / 1000, r3
        }' "$scratch/rows"
    [ -f "$scratch/notes" ] && sed -e 's/^/note: /' "$scratch/notes"
    rm -f "$scratch/rows" "$scratch/notes"
done
