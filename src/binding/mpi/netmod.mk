# librmaib-nm: the drop-in binding and the core again, for MPICH's ch4:rmaib netmod
# (src/mpid/ch4/netmod/rmaib, maint/mpich-rmaib).  Its MPI_* entry points are
# renamed (nm_names.h) and raise no error handler; it links no MPI: the libmpi that
# loads it provides PMPI_*.  MPICH links it by path, so rebuilding it rebuilds no MPICH.
lib_LTLIBRARIES += librmaib-nm.la
librmaib_nm_la_SOURCES = $(librmaib_mpi_la_SOURCES) \
	src/binding/mpi/nm_names.h \
	src/binding/mpi/netmod.c \
	src/mpid/ch4/netmod/rmaib/rmaib_nm.h
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
