# The Fortran suite: the same RMA program in each of MPI's three Fortran bindings,
# compiled from rma_binding.F90 by $(MPIFORT) (configure's --with-mpifort) and
# linked with librmaib-mpi ahead of the MPI's own libraries, as test/rma's C
# programs are; run by test/run-test with test/fortran/testlist.  configure leaves
# the suite out when it finds no MPI Fortran compiler that builds an MPI program.
#   rma_f08   use mpi_f08        rma_mpi   use mpi        rma_mpif   mpif.h
fortran_tests =
if RMAIB_HAVE_MPIFORT
fortran_tests += test/fortran/rma_f08 test/fortran/rma_mpi test/fortran/rma_mpif
endif
check_SCRIPTS += $(fortran_tests)
TESTS += $(fortran_tests)
CLEANFILES += $(fortran_tests)
EXTRA_DIST += test/fortran/rma_binding.F90 test/fortran/testlist

# Warnings as for C, but: -Wno-compare-reals, as the program compares sums that are
# exact on purpose; use mpi and mpif.h give choice buffers no interface, so gfortran
# (under -fallow-argument-mismatch, which the wrapper adds) warns at the second
# buffer type of every MPI_Put-like call with no option to silence that warning
# alone: they keep their warnings but not -Werror; mpif.h's PARAMETERs are all unused.
fortran_link = -L$(abs_top_builddir)/.libs -Wl,-rpath,$(abs_top_builddir)/.libs \
	$(RMAIB_NO_AS_NEEDED) -lrmaib-mpi
# A sanitized build's librmaib-mpi needs the sanitizer's runtime loaded first:
# linking with -fsanitize puts it there, as for the C programs.  The Fortran itself
# is compiled without it: ASan's strndup interceptor reads past the unterminated
# string constants libgfortran copies (a false global-buffer-overflow at start-up).
fortran_fcflags = -O2 $(RMAIB_WARN_FCFLAGS) -Wno-compare-reals
fortran_src = $(top_srcdir)/test/fortran/rma_binding.F90
# fortran_build VARIANT-FLAGS: compile $@.o, then link it with the runtime.
fortran_build = $(MKDIR_P) test/fortran && \
	$(MPIFORT) $(fortran_fcflags) $(1) -c $(fortran_src) -o $@.o && \
	$(MPIFORT) $@.o -o $@ $(RMAIB_SAN_LDFLAGS) $(fortran_link)

test/fortran/rma_f08: $(fortran_src) librmaib-mpi.la
	$(AM_V_GEN)$(call fortran_build,-DRMA_F08)
test/fortran/rma_mpi: $(fortran_src) librmaib-mpi.la
	$(AM_V_GEN)$(call fortran_build,-Wno-error -DRMA_MPI)
test/fortran/rma_mpif: $(fortran_src) librmaib-mpi.la
	$(AM_V_GEN)$(call fortran_build,-Wno-error -Wno-unused-parameter -DRMA_MPIF)
CLEANFILES += test/fortran/rma_f08.o test/fortran/rma_mpi.o test/fortran/rma_mpif.o

# The mpi_f08 smoke test: a program whose fence went straight to PMPI (issue 35).
TESTS += test/fortran/f08_smoke.sh
EXTRA_DIST += test/fortran/f08_smoke.sh test/fortran/f08_fence_put.f90
