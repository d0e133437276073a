#!/bin/bash
# test/netmod/forwarded.sh PREFIX [DIR...]: MPICH's pt2pt and coll suites on the netmod
# (make conformance-netmod-forwarded).
#
# ch4:rmaib forwards everything but RMA to MPICH's UCX netmod compiled into it; these
# lists check that the forwarded part is whole.  test/mpi of Debian's MPICH source
# (maint/mpich-source) is unpacked under ./conformance-netmod-forwarded, configured
# with PREFIX/bin/mpicc, and the plain testlist of each DIR (default: pt2pt coll)
# runs under MPICH's own runtests, minus the entries of
# test/netmod/forwarded-exclude.txt ("NAME NPROCS # reason", NPROCS * for any).
# Prints runtests' summary per directory and a closing totals line; exits 1 if an
# entry failed, 2 if the suite cannot be had or built.
# Run from the top of rmaib's build tree (RMAIB_TOP_SRCDIR for another source tree).
set -uo pipefail

[ $# -ge 1 ] || { echo "usage: $0 PREFIX [DIR...]" >&2; exit 2; }
prefix=$(cd "$1" 2>/dev/null && pwd) || { echo "forwarded: no prefix $1" >&2; exit 2; }
shift
dirs=${*:-pt2pt coll}
srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exclude=$srcdir/test/netmod/forwarded-exclude.txt
work=$(pwd)/conformance-netmod-forwarded
jobs=${JOBS:-2}
mpiexec=${MPIEXEC:-mpiexec.mpich}
die() { echo "forwarded: $*" >&2; exit 2; }
[ -x "$prefix/bin/mpicc" ] || die "no $prefix/bin/mpicc (maint/mpich-rmaib)"
cachetop=${RMAIB_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rmaib}
orig=$("$srcdir/maint/mpich-source" --cache "$cachetop/mpich") ||
    die "no mpich source package (maint/mpich-source)"
orig=${orig%%$'\n'*}
t0=$(date +%s)

# test/mpi, configured once for this prefix's mpicc (C only, as maint/conformance).
mkdir -p "$work" || die "cannot create $work"
tm=$(echo "$work"/mpich-*/test/mpi)
key="$orig $prefix"
if [ "$(cat "$work/.configured" 2>/dev/null)" != "$key" ] || [ ! -x "$tm/runtests" ]; then
    rm -rf "$work"/mpich-* "$work/.configured"
    tar -xf "$orig" -C "$work" --wildcards 'mpich-*/test/mpi' || die "cannot unpack $orig"
    tm=$(echo "$work"/mpich-*/test/mpi)
    (cd "$tm" && MPICC=$prefix/bin/mpicc MPIEXEC=$(command -v "$mpiexec") CFLAGS=-O2 \
        ./configure --disable-fortran --disable-cxx --disable-romio --disable-spawn \
        --disable-perftest --disable-ft-tests) >"$work/configure.log" 2>&1 ||
        die "configure failed ($work/configure.log)"
    echo "$key" >"$work/.configured"
fi

export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
make -C "$tm/util" -j"$jobs" libmtest_single.la >"$work/build.log" 2>&1 ||
    die "util does not build ($work/build.log)"
st=0 tot_ok=0 tot_bad=0 tot_excl=0
for d in $dirs; do
    # The list minus the exclusions; its programs are all that is built.
    awk -v d="$d" 'FNR == NR { if ($1 !~ /^#/ && NF >= 2) ex[$1 " " $2] = 1; next }
        { line = $0; sub(/#.*/, "", line); n = split(line, w) }
        n == 0 { next }
        { np = n > 1 ? w[2] : 2 }
        (d "/" w[1] " " np) in ex || (d "/" w[1] " *") in ex { print "excluded: " line > "/dev/stderr"; next }
        { print line }' "$exclude" "$tm/$d/testlist" >"$tm/$d/testlist.netmod" 2>"$work/$d.excluded"
    progs=$(awk '{ print $1 }' "$tm/$d/testlist.netmod" | sort -u)
    # shellcheck disable=SC2086
    make -C "$tm/$d" -j"$jobs" $progs >>"$work/build.log" 2>&1 ||
        die "$d does not build ($work/build.log)"
    (cd "$tm/$d" && ../runtests -srcdir=. -tests=testlist.netmod -tapfile="$work/$d.tap") \
        >"$work/$d.log" 2>&1
    ok=$(grep -c '^ok ' "$work/$d.tap") bad=$(grep -c '^not ok ' "$work/$d.tap")
    excl=$(wc -l <"$work/$d.excluded")
    echo "$d: $ok passed, $bad failed, $excl excluded ($work/$d.log)"
    grep '^not ok ' "$work/$d.tap" | sed 's/^/  /'
    tot_ok=$((tot_ok + ok)) tot_bad=$((tot_bad + bad)) tot_excl=$((tot_excl + excl))
    [ "$bad" -eq 0 ] && [ "$ok" -gt 0 ] || st=1
done
echo "forwarded suites ($dirs): $tot_ok passed, $tot_bad failed, $tot_excl excluded in $(( $(date +%s) - t0 )) s"
exit $st
