# librmaib-ompi: the drop-in binding and the core again, compiled with Open MPI
# 4.x's mpi.h (configure --with-ompi-mpicc), for programs of Debian's default MPI.
# Handles, error classes and constants come from that mpi.h; what differs at run
# time is under #ifdef OPEN_MPI / MPICH_VERSION in the binding.  No _c forms (an
# MPI-3 host) and no Fortran entry points.
if RMAIB_HAVE_OMPI
lib_LTLIBRARIES += librmaib-ompi.la
librmaib_ompi_la_SOURCES = $(binding_sources)
nodist_librmaib_ompi_la_SOURCES = src/binding/mpi/api_gen.c
librmaib_ompi_la_CPPFLAGS = $(CORE_CPPFLAGS) -I$(top_builddir)/include $(OMPI_CFLAGS)
librmaib_ompi_la_CFLAGS = $(AM_CFLAGS) -fno-semantic-interposition
librmaib_ompi_la_LDFLAGS = -version-info $(RMAIB_LT_VERSION) -no-undefined $(RMAIB_NO_UNDEFINED) \
	-Wl,-z,now -Wl,-Bsymbolic-functions $(RMAIB_SAN_LDFLAGS)
librmaib_ompi_la_LIBADD = librmaib-core.la $(OMPI_LIBS) $(RMAIB_LIBS)
nodist_pkgconfig_DATA += rmaib-ompi.pc
endif

# The Open MPI pass: test/rma and test/coll built with Open MPI's mpicc, linked
# with librmaib-ompi, run with its launcher (test/form-pass.sh).
check-ompi: $(lib_LTLIBRARIES)
if RMAIB_HAVE_OMPI
	@RMAIB_TOP_SRCDIR='$(abs_top_srcdir)' RMAIB_OMPI_MPICC='$(RMAIB_OMPI_MPICC_PATH)' \
	OMPI_MPIEXEC='$(OMPI_MPIEXEC)' $(top_srcdir)/test/form-pass.sh ompi
else
	@echo "check-ompi: no Open MPI 4.x was found at configure (--with-ompi-mpicc)"; exit 1
endif

# MPICH's rma suite and the coll subset, built with Open MPI's mpicc, on
# librmaib-ompi (maint/conformance --ompi).
conformance-ompi: $(lib_LTLIBRARIES)
	$(SHELL) $(top_srcdir)/maint/conformance --ompi --mpicc '$(RMAIB_OMPI_MPICC_PATH)' \
	    --mpiexec '$(OMPI_MPIEXEC)' --coll-subset $(CONFORMANCE_FLAGS) $(abs_top_builddir)
.PHONY: check-ompi conformance-ompi
EXTRA_DIST += rmaib-ompi.pc.in src/binding/mpi/ompi.mk test/ompi/exclude.txt \
	maint/conformance-exclude-ompi
