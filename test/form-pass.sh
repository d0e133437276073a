#!/bin/sh
# test/form-pass.sh FORM [PREFIX] [NAME...]: rmaib's test/rma and test/coll programs
# through one of rmaib's other forms, built with that form's own MPI compiler:
#   netmod PREFIX  the netmod pass (make check-netmod): built with PREFIX/bin/mpicc,
#                  and test/fortran's with PREFIX/bin/mpif90, the MPICH on ch4:rmaib
#                  (maint/mpich-rmaib), with no librmaib-mpi and no preload: every
#                  one-sided call, MPI_Allreduce, MPI_Allgather and MPI_Alltoall are
#                  the netmod's;
#   ompi           the Open MPI pass (make check-ompi): built with Open MPI's mpicc
#                  (RMAIB_OMPI_MPICC, from configure), linked with librmaib-ompi of
#                  this build tree (a preload=1 line preloads it instead), run with
#                  OMPI_MPIEXEC; no Fortran (the Open MPI form has none); and
#                  test/multihost/netns_rma.sh over them, two hosts under ORTE.
# The programs are compiled with -DRMAIB_TEST_NETMOD or -DRMAIB_TEST_OMPI.
# Each runs through test/run-test with its testlist's lines and passes
# (RMAIB_TEST_PASSES picks them, default shm,ofi,mixed); the collective programs
# run with RMAIB_VERBOSE=1 and fail unless rmaib says it served each of these
# calls and their non-blocking forms they make (unserved below); the
# programs named in test/FORM/exclude.txt are left out, each with its reason.
# NAME... runs those programs only.  Prints the TAP of each program into
# FORM-check/NAME.log under the current directory and one summary line per
# program and a closing totals line; exits 1 if any point failed or a program did
# not build.
# Run from the top of rmaib's build tree (RMAIB_TOP_SRCDIR for another source tree).
set -u

usage() { echo "usage: $0 netmod PREFIX [NAME...] | $0 ompi [NAME...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
form=$1
shift
srcdir=${RMAIB_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=$(pwd)
case $form in
    netmod)
        [ $# -ge 1 ] || usage
        prefix=$1
        shift
        mpicc=$prefix/bin/mpicc
        [ -x "$mpicc" ] || { echo "check-netmod: no $mpicc (maint/mpich-rmaib)" >&2; exit 2; }
        mpif90=$prefix/bin/mpif90
        incl=$prefix/include
        link=
        MPIEXEC=${MPIEXEC:-mpiexec.mpich}
        RMAIB_PRELOAD_LIB=/nonexistent/librmaib-mpi.so   # nothing is preloaded here
        # the netmod MPICH comes first for the launcher and every rank
        LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
        fortran="rma_f08 rma_mpi rma_mpif" ;;
    ompi)
        mpicc=${RMAIB_OMPI_MPICC:-mpicc.openmpi}
        command -v "$mpicc" >/dev/null || { echo "check-ompi: no $mpicc (configure --with-ompi-mpicc)" >&2; exit 2; }
        mpif90=/nonexistent
        lib=$builddir/.libs
        [ -f "$lib/librmaib-ompi.so" ] || { echo "check-ompi: no $lib/librmaib-ompi.so (make)" >&2; exit 2; }
        incl=$builddir/include
        link="-L$lib -Wl,--no-as-needed -lrmaib-ompi -Wl,-rpath,$lib"
        MPIEXEC=${OMPI_MPIEXEC:-mpiexec.openmpi}
        RMAIB_PRELOAD_LIB=$lib/librmaib-ompi.so
        fortran= ;;
    *) usage ;;
esac
label=$(echo "$form" | tr a-z A-Z)
out=$builddir/$form-check
mkdir -p "$out/test/rma" "$out/test/coll" "$out/test/fortran" || exit 2

# run-test finds test/rma/testlist from where the programs sit under its build
# tree ($out).
RMAIB_TOP_SRCDIR=$srcdir
RMAIB_TOP_BUILDDIR=$out
RMAIB_HAVE_OFI=$(grep -q '^have_ofi = yes' "$builddir/Makefile" 2>/dev/null && echo yes || echo no)
RMAIB_SANITIZERS=
RMAIB_TEST_PASSES=${RMAIB_TEST_PASSES:-shm,ofi,mixed}
export MPIEXEC RMAIB_TOP_SRCDIR RMAIB_TOP_BUILDDIR RMAIB_PRELOAD_LIB RMAIB_HAVE_OFI \
    RMAIB_SANITIZERS RMAIB_TEST_PASSES LD_LIBRARY_PATH

if [ $# -gt 0 ]; then
    names=$*
else
    names=$(sed -n 's|^rma_tests += test/rma/||p' "$srcdir/test/rma/Makefile.mk")
    names="$names $(sed -n 's|^coll_tests += test/coll/||p' "$srcdir/test/coll/Makefile.mk")"
    names="$names $fortran"
    # Two hosts emulated with network namespaces, under Open MPI's launcher (its
    # programs are those built above).
    [ "$form" = ompi ] && names="$names netns_rma"
fi
# The suite of program $1: test/coll for the collective programs, test/fortran for
# the Fortran ones, else test/rma.
suite() {
    case $1 in
        rma_f08|rma_mpi|rma_mpif) echo fortran ;;
        netns_rma) echo multihost ;;
        *) [ -f "$srcdir/test/coll/$1.c" ] && echo coll || echo rma ;;
    esac
}
# Build program $1 of suite $2 into $out/test/$2 (its output to the log $3).
build() {
    [ "$2" = multihost ] && return 0      # a script over the programs of test/rma
    if [ "$2" = fortran ]; then
        # One source for the three bindings (test/fortran/Makefile.mk).
        def=$(echo "$1" | sed 's/^rma_//' | tr a-z A-Z)
        "$mpif90" -O2 -DRMA_"$def" -DRMAIB_TEST_$label "$srcdir/test/fortran/rma_binding.F90" -o "$out/test/$2/$1" >"$3" 2>&1
        return
    fi
    # shellcheck disable=SC2046
    "$mpicc" -O2 -DRMAIB_TEST_$label -I"$srcdir/test/$2" -I"$incl" \
        $(mkvar "$1" CPPFLAGS) $(sources "$1") -o "$out/test/$2/$1" $link -lm >"$3" 2>&1
}
excluded() { grep -q "^$1[[:space:]]" "$srcdir/test/$form/exclude.txt"; }
# A variable its Makefile.mk gives program $1 (test_SUITE_$1_$2), on one line.
mkvar() {
    awk -v v="test_$(suite "$1")_$1_$2" '$1 == v && $2 == "=" { on = 1; sub(/^[^=]*= */, "") }
        on { more = sub(/\\$/, ""); printf "%s ", $0; if (!more) exit }' \
        "$srcdir/test/$(suite "$1")/Makefile.mk" |
        sed -e 's/\$(AM_CPPFLAGS)//' -e "s|\$(top_srcdir)|$srcdir|g"
}
# The C sources of program $1 (its Makefile.mk SOURCES, else NAME.c), from srcdir.
sources() {
    srcs=$(mkvar "$1" SOURCES)
    [ -n "$srcs" ] || srcs=test/$(suite "$1")/$1.c
    for f in $srcs; do
        case $f in *.c) printf '%s ' "$srcdir/$f" ;; esac
    done
}

# RMAIB_VERBOSE's line for each collective rmaib takes over that program $1 calls,
# in its log $2: "CALL on N ranks served by rmaib"; prints the calls without one.
# Only where a run had several ranks: MPICH's binding serves a 1-rank call itself,
# before any netmod hook.  coll_errors's calls but its allreduce are bad on purpose
# (MPICH's binding refuses most) or left to MPICH; coll_served_by_rmaib,
# coll_single_copy and coll_bad_config catch their own stderr and check it themselves.
unserved() {
    case $1 in
        coll_served_by_rmaib|coll_single_copy|coll_bad_config) return 0 ;;
        coll_errors) calls=MPI_Allreduce ;;
        *) calls="MPI_Allreduce MPI_Allgather MPI_Alltoall MPI_Iallreduce MPI_Iallgather
                  MPI_Ialltoall MPI_Ibarrier" ;;
    esac
    grep -Eq '^ok .*np=([2-9]|[1-9][0-9])' "$2" || return 0
    for c in $calls; do
        grep -q "$c(" "$srcdir/test/coll/$1.c" || continue
        grep -q "rmaib: $c on [0-9]* ranks served by rmaib" "$2" || printf '%s ' "$c"
    done
}

st=0
tot_ok=0 tot_bad=0 tot_skip=0
# An unmodified MPI program, with rmaib in charge: RMAIB_VERBOSE names each window.
if [ $# -eq 0 ]; then
    demo=$out/rma_demo
    # (Open MPI's launcher wants to hear of oversubscription and root, as run-test says.)
    flags=
    [ "$form" = ompi ] && flags="--oversubscribe --allow-run-as-root"
    # shellcheck disable=SC2086
    if "$mpicc" -O2 "$srcdir/examples/rma_demo.c" -o "$demo" $link >"$demo.log" 2>&1 &&
        RMAIB_VERBOSE=1 timeout 120 "$MPIEXEC" $flags -n 2 "$demo" >>"$demo.log" 2>&1 &&
        grep -q '^rma_demo: verified=yes' "$demo.log" &&
        grep -q 'rmaib: window flavor=' "$demo.log"; then
        echo "PASS rma_demo: verified, rmaib in charge ($(grep -c 'rmaib: window' "$demo.log") windows)"
        tot_ok=$((tot_ok + 1))
    else
        echo "FAIL rma_demo: not verified or no rmaib window ($demo.log)"
        st=1 tot_bad=$((tot_bad + 1))
    fi
fi
for n in $names; do
    if excluded "$n"; then
        echo "SKIP $n: $(sed -n "s/^$n[[:space:]]*//p" "$srcdir/test/$form/exclude.txt")"
        continue
    fi
    log=$out/$n.log
    d=$(suite "$n")
    if [ "$d" = fortran ] && [ ! -x "$mpif90" ]; then
        echo "SKIP $n: no $mpif90 (an MPICH built without Fortran: make mpich again)"
        tot_skip=$((tot_skip + 1))
        continue
    fi
    if ! build "$n" "$d" "$log"; then
        echo "FAIL $n: does not build with $([ "$d" = fortran ] && echo "$mpif90" || echo "$mpicc") ($log)"
        st=1 tot_bad=$((tot_bad + 1))
        continue
    fi
    if [ "$d" = coll ]; then
        RMAIB_VERBOSE=1 sh "$srcdir/test/run-test" "$out/test/$d/$n" >"$log" 2>&1
    elif [ "$d" = multihost ]; then
        sh "$srcdir/test/multihost/$n.sh" >"$log" 2>&1
    else
        sh "$srcdir/test/run-test" "$out/test/$d/$n" >"$log" 2>&1
    fi
    ok=$(grep -c '^ok ' "$log")
    bad=$(grep -c '^not ok ' "$log")
    skipped=$(grep -c '^ok .*# *SKIP' "$log")
    tot_ok=$((tot_ok + ok - skipped)) tot_bad=$((tot_bad + bad)) tot_skip=$((tot_skip + skipped))
    if [ "$bad" -eq 0 ] && [ "$ok" -eq 0 ] && grep -q '^1\.\.0' "$log"; then
        echo "SKIP $n: $(sed -n 's/^1\.\.0 *# *//p' "$log" | head -n 1)"
        tot_skip=$((tot_skip + 1))
    elif [ "$bad" -gt 0 ] || [ "$ok" -eq 0 ]; then
        echo "FAIL $n: $ok passed, $bad failed ($log)"
        st=1
        [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ] && tot_bad=$((tot_bad + 1))
    elif [ "$d" = coll ] && [ -n "$(unserved "$n" "$log")" ]; then
        echo "FAIL $n: $ok passed, but rmaib served no $(unserved "$n" "$log")($log)"
        st=1 tot_bad=$((tot_bad + 1))
    else
        echo "PASS $n: $ok passed"
    fi
done
# The closing line .ci/run reads (TAP points; a program that did not build or ran
# no point counts as one failure).
echo "$form pass: $tot_ok passed, $tot_bad failed, $tot_skip skipped"
exit $st
