#!/bin/sh
# test/fault/faults.sh: one rank of a job dies at a chosen point of an RMA protocol
# (test/fault/victim.c says where); the job must still end, within
# RMAIB_FAULT_BOUND seconds (default 60) and with a non-zero status, leave none of
# its processes running, and leave nothing of rmaib's in /dev/shm: no
# /dev/shm/rmaib.PID.* of any of the job's pids (rmaib's only names on the file
# system).  One TAP point per run.  make check runs it with the environment of
# AM_TESTS_ENVIRONMENT; by hand, from the top of the build tree:
#     sh test/fault/faults.sh

set -u
top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
mpiexec=${MPIEXEC:-mpiexec.mpich}
bound=${RMAIB_FAULT_BOUND:-60}
victim=$top_builddir/test/fault/victim
. "$top_srcdir/test/sanitizers/env.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-fault.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
ofi="RMAIB_TRANSPORT=ofi RMAIB_OFI_PROVIDER=tcp;ofi_rxm FI_TCP_IFACE=lo RMAIB_ASYNC_PROGRESS=1"

# Is any of the job's processes still there?  They may take a moment to go once
# mpiexec has returned: look again, backing off, for up to 5 s.
survivors() {
    for nap in 0.05 0.1 0.2 0.4 0.8 1.6 2; do
        left=
        for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
        [ -z "$left" ] && return 1
        sleep $nap
    done
    return 0
}

# fault MODE NP ENV...: one run, one TAP point.
fault() {
    mode=$1 np=$2
    shift 2
    n=$((n + 1))
    label="$mode np=$np${*:+ $*}"
    if [ ! -x "$victim" ]; then
        echo "not ok $n - $label: $victim is not built"
        return
    fi
    if echo "$*" | grep -q RMAIB_OFI_PROVIDER && [ "${RMAIB_HAVE_OFI:-yes}" != yes ]; then
        echo "ok $n - $label # SKIP rmaib was configured without libfabric"
        return
    fi
    rm -rf "$tmp/run"
    mkdir "$tmp/run"
    start=$(date +%s)
    # shellcheck disable=SC2086  # word lists
    env "$@" RMAIB_FAULT_DIR="$tmp/run" timeout -k 10 "$bound" \
        "$mpiexec" -n "$np" "$victim" "$mode" < /dev/null > "$tmp/out" 2>&1
    status=$?
    elapsed=$(($(date +%s) - start))
    pids=$(cat "$tmp/run"/pid.* 2>/dev/null)
    why=
    npids=$(echo $pids | wc -w)
    [ "$npids" -eq "$np" ] || why="$why; only $npids of $np ranks started"
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ] && [ "$elapsed" -ge "$bound" ]; then
        why="$why; the job did not end within ${bound}s"
    elif [ "$status" -eq 0 ]; then
        why="$why; the job exited with status 0"
    fi
    survivors && why="$why; still running after the job:$left"
    for p in $pids; do
        for f in /dev/shm/rmaib."$p".*; do
            [ -e "$f" ] && why="$why; left $f" && rm -f "$f"
        done
    done
    if [ -n "$why" ]; then
        echo "not ok $n - $label: ${why#; }"
        sed -e 's/^/#   /' "$tmp/out" | tail -n 20
        for p in $left; do kill -KILL "$p" 2>/dev/null; done
    else
        echo "ok $n - $label: ended in ${elapsed}s with status $status, nothing left"
    fi
}

fault lock 3 RMAIB_TRANSPORT=shm
fault fence 3 RMAIB_TRANSPORT=shm
fault pscw 3 RMAIB_TRANSPORT=shm
# The timer hits the leader between making and unlinking a named segment in about
# half the runs of the old scheme: three runs.
for i in 1 2 3; do fault create 3 RMAIB_TRANSPORT=shm; done
fault abort 3 RMAIB_TRANSPORT=shm
fault lock 3 $ofi
fault fence 3 $ofi
fault pscw 3 $ofi
fault progress 2 $ofi
fault abort 3 $ofi
fault create 4 RMAIB_TRANSPORT=auto RMAIB_NODE_SIZE=2 RMAIB_OFI_PROVIDER="tcp;ofi_rxm" FI_TCP_IFACE=lo
echo "1..$n"
