#!/bin/sh
# test/fuzz/run.sh: run each libFuzzer harness of test/fuzz for a bounded time from
# its seed corpus (test/fuzz/corpus/NAME), one TAP point per harness; a crash, a
# sanitizer report, a leak, a hang or an exit status other than 0 fails it, with
# the end of the fuzzer's output and the input that failed (base64) as comments.
# "1..0 # SKIP" when the harnesses are not built (configure found no clang that
# links -fsanitize=fuzzer).
#   RMAIB_FUZZ_SECONDS  seconds each harness runs (default 30)
#   RMAIB_FUZZ_OUT      keep each harness's grown corpus, log and crashes in
#                       $RMAIB_FUZZ_OUT/NAME (make fuzz); default a temporary folder
# make check sets RMAIB_TOP_SRCDIR and RMAIB_TOP_BUILDDIR; by hand, from the top of
# the build tree: sh test/fuzz/run.sh
set -u
top_srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${RMAIB_TOP_BUILDDIR:-$(pwd)}
seconds=${RMAIB_FUZZ_SECONDS:-30}
out=${RMAIB_FUZZ_OUT:-}
harnesses="mailbox config info layout"

built=0
for h in $harnesses; do
    [ -x "$top_builddir/test/fuzz/$h" ] && built=$((built + 1))
done
if [ "$built" -eq 0 ]; then
    echo "1..0 # SKIP no libFuzzer harness built (configure found no clang that links -fsanitize=fuzzer)"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rmaib-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
set -- $harnesses
echo "1..$#"
n=0
for h in $harnesses; do
    n=$((n + 1))
    prog=$top_builddir/test/fuzz/$h
    if [ ! -x "$prog" ]; then
        echo "not ok $n - $h: $prog is not built"
        continue
    fi
    work=${out:+$out/$h}
    work=${work:-$tmp/$h}
    mkdir -p "$work/corpus"
    rm -f "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*
    start=$(date +%s)
    # UCX (under MPICH) catches SIGSEGV and SIGFPE for itself unless told not to;
    # they are the fuzzer's to report.
    UCX_HANDLE_ERRORS=none UBSAN_OPTIONS=print_stacktrace=1 \
        timeout -k 10 $((seconds + 120)) "$prog" -max_total_time="$seconds" -timeout=20 \
        -rss_limit_mb=2048 -artifact_prefix="$work/" -print_final_stats=1 \
        "$work/corpus" "$top_srcdir/test/fuzz/corpus/$h" < /dev/null > "$work/log" 2>&1
    status=$?
    elapsed=$(($(date +%s) - start))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    found=$(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null)
    if [ "$status" -eq 0 ] && [ -z "$found" ]; then
        echo "ok $n - $h: ${runs:-?} inputs in ${elapsed}s, no failure"
        continue
    fi
    echo "not ok $n - $h: exit status $status after ${elapsed}s"
    grep -v -e '^#[0-9]' -e '^INFO:' "$work/log" | tail -n 60 | sed 's/^/#   /'
    for f in $found; do
        echo "# failing input $(basename "$f") (base64; test/fuzz/$h FILE replays it):"
        head -c 4096 "$f" | base64 | sed 's/^/#   /'
    done
done
