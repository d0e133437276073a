# librmaib-nm: the drop-in binding and the core again, for MPICH's ch4:rmaib netmod
# (src/mpid/ch4/netmod/rmaib, maint/mpich-rmaib).  Its MPI_* entry points are
# renamed (nm_names.h) and raise no error handler; it links no MPI: the libmpi that
# loads it provides PMPI_*.  MPICH links it by path, so rebuilding it rebuilds no MPICH.
lib_LTLIBRARIES += librmaib-nm.la
librmaib_nm_la_SOURCES = $(librmaib_mpi_la_SOURCES) \
	src/binding/mpi/nm_names.h \
	src/binding/mpi/netmod.c \
	src/mpid/ch4/netmod/rmaib/rmaib_nm.h
nodist_librmaib_nm_la_SOURCES = $(nodist_librmaib_mpi_la_SOURCES)
librmaib_nm_la_CPPFLAGS = $(AM_CPPFLAGS) -DRMAIB_NETMOD \
	-include $(top_srcdir)/src/binding/mpi/nm_names.h \
	-I$(top_srcdir)/src/mpid/ch4/netmod/rmaib
librmaib_nm_la_CFLAGS = $(AM_CFLAGS) -fno-semantic-interposition
librmaib_nm_la_LDFLAGS = -version-info $(RMAIB_LT_VERSION) -Wl,-Bsymbolic-functions \
	$(RMAIB_SAN_LDFLAGS)
librmaib_nm_la_LIBADD = librmaib-core.la $(RMAIB_LIBS)

# MPICH on ch4:rmaib, built once and cached (maint/mpich-rmaib); after that it
# only installs this build's librmaib-nm into it.
mpich: librmaib-nm.la
	$(top_srcdir)/maint/mpich-rmaib --rmaib-build $(abs_top_builddir)
.PHONY: mpich

# The netmod pass: test/rma built with that MPICH's mpicc, no preload (it builds
# the MPICH first if need be, as make mpich).
check-netmod: mpich
	@prefix=$$($(top_srcdir)/maint/mpich-rmaib --no-build) && \
	RMAIB_TOP_SRCDIR='$(abs_top_srcdir)' $(top_srcdir)/test/form-pass.sh netmod "$$prefix"
.PHONY: check-netmod

# MPICH's RMA suite on that MPICH (maint/conformance --netmod).
conformance-netmod: mpich
	@prefix=$$($(top_srcdir)/maint/mpich-rmaib --no-build) && \
	$(SHELL) $(top_srcdir)/maint/conformance --netmod "$$prefix" \
	    --mpiexec '$(MPIEXEC)' $(CONFORMANCE_FLAGS) $(abs_top_builddir)
.PHONY: conformance-netmod

# MPICH's pt2pt and coll testlists on it: the part it forwards to UCX is whole.
conformance-netmod-forwarded: mpich
	@prefix=$$($(top_srcdir)/maint/mpich-rmaib --no-build) && \
	RMAIB_TOP_SRCDIR='$(abs_top_srcdir)' MPIEXEC='$(MPIEXEC)' \
	    $(top_srcdir)/test/netmod/forwarded.sh "$$prefix"
.PHONY: conformance-netmod-forwarded

EXTRA_DIST += maint/mpich-rmaib maint/conformance-exclude-netmod \
	test/form-pass.sh test/netmod/exclude.txt \
	test/netmod/forwarded.sh test/netmod/forwarded-exclude.txt \
	src/mpid/ch4/netmod/rmaib/subconfigure.m4 src/mpid/ch4/netmod/rmaib/Makefile.mk \
	src/mpid/ch4/netmod/rmaib/rmaib_pre.h src/mpid/ch4/netmod/rmaib/netmod_inline.h \
	src/mpid/ch4/netmod/rmaib/rmaib_noinline.h src/mpid/ch4/netmod/rmaib/rmaib_rma.h \
	src/mpid/ch4/netmod/rmaib/rmaib_win.c src/mpid/ch4/netmod/rmaib/rmaib_rma.c \
	src/mpid/ch4/netmod/rmaib/rmaib_coll.h src/mpid/ch4/netmod/rmaib/rmaib_coll.c
