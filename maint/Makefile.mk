# make conformance: MPICH's own RMA and collective test suites (test/mpi/rma and
# test/mpi/coll of Debian's mpich source package) built against librmaib-mpi and
# run with their own test lists (coll: the subset of --coll-subset);
# see maint/conformance --help.  Entries that are not run are listed, each with
# its reason, in maint/conformance-exclude.  The suite is unpacked, built and run
# under conformance/ in the build tree; the source package is cached in
# $RMAIB_CACHE_DIR (default ~/.cache/rmaib).  CONFORMANCE_FLAGS passes options,
# e.g. make conformance CONFORMANCE_FLAGS="--tests '^win'".

EXTRA_DIST += maint/conformance maint/conformance-exclude maint/mpich-source maint/mpich-ofi

CONFORMANCE_FLAGS =

# The Fortran suites with configure's MPIFORT, as make check; none without it.
conformance_fortran = $(if $(MPIFORT),--mpifort '$(MPIFORT)',--no-fortran)

conformance: $(lib_LTLIBRARIES)
	$(SHELL) $(top_srcdir)/maint/conformance --mpicc '$(RMAIB_MPICC_PATH)' \
	    --mpiexec '$(MPIEXEC)' $(conformance_fortran) --coll-subset $(CONFORMANCE_FLAGS) \
	    $(abs_top_builddir)

# make conformance-coll: the whole of MPICH's coll/testlist (make conformance runs
# the entries of the calls rmaib takes over, to keep CI in its budget).
conformance-coll: $(lib_LTLIBRARIES)
	$(SHELL) $(top_srcdir)/maint/conformance --mpicc '$(RMAIB_MPICC_PATH)' \
	    --mpiexec '$(MPIEXEC)' --suites coll $(CONFORMANCE_FLAGS) $(abs_top_builddir)

# The suite takes minutes to build: make clean keeps it, distclean removes it.
distclean-local: conformance-clean
conformance-clean:
	rm -rf $(abs_top_builddir)/conformance $(abs_top_builddir)/conformance-stock \
	    $(abs_top_builddir)/conformance-ompi

.PHONY: conformance conformance-coll conformance-clean
