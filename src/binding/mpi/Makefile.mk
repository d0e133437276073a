# The drop-in library's MPI_* entry points over PMPI: those of every host
# (binding_sources), then MPICH's Fortran ones.
binding_sources = \
	src/binding/mpi/host.h \
	src/binding/mpi/host.c \
	src/binding/mpi/serve.h \
	src/binding/mpi/serve.c \
	src/binding/mpi/handles.h \
	src/binding/mpi/handles.c \
	src/binding/mpi/errors.h \
	src/binding/mpi/errors.c \
	src/binding/mpi/datatype.h \
	src/binding/mpi/datatype.c \
	src/binding/mpi/datatype_impl.h \
	src/binding/mpi/datatype_named.c \
	src/binding/mpi/datatype_decode.c \
	src/binding/mpi/datatype_flat.c \
	src/binding/mpi/info.h \
	src/binding/mpi/info.c \
	src/binding/mpi/win.c \
	src/binding/mpi/win_hints.c \
	src/binding/mpi/rma.h \
	src/binding/mpi/rma.c \
	src/binding/mpi/sync.c \
	src/binding/mpi/acc.h \
	src/binding/mpi/acc.c \
	src/binding/mpi/request.h \
	src/binding/mpi/request.c \
	src/binding/mpi/notify.c \
	src/binding/mpi/coll.h \
	src/binding/mpi/coll.c \
	src/binding/mpi/coll_comm.c \
	src/binding/mpi/icoll.c \
	src/binding/mpi/host_large.h
librmaib_mpi_la_SOURCES += $(binding_sources) \
	src/binding/mpi/fortran.h \
	src/binding/mpi/fortran.c \
	src/binding/mpi/fortran_attr.c
noinst_HEADERS += \
	src/include/rmaib.h \
	src/include/rmaib_host.h \
	src/include/rmaib_layout.h \
	src/include/rmaib_win.h

# The entry points whose bodies are mechanical, int and MPI-4 _c forms, and the
# mpi_f08 entry points that would reach PMPI_, generated from api.txt by
# maint/gen-binding into the build tree (never committed).
gen_binding = src/binding/mpi/api_gen.c src/binding/mpi/api_fortran.c
nodist_librmaib_mpi_la_SOURCES = $(gen_binding)
BUILT_SOURCES = $(gen_binding)
CLEANFILES += $(gen_binding)
EXTRA_DIST += src/binding/mpi/api.txt maint/gen-binding
gen_binding_deps = $(top_srcdir)/src/binding/mpi/api.txt $(top_srcdir)/maint/gen-binding
src/binding/mpi/api_gen.c: $(gen_binding_deps)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(PYTHON3) $(top_srcdir)/maint/gen-binding c \
	    $(top_srcdir)/src/binding/mpi/api.txt $@
src/binding/mpi/api_fortran.c: $(gen_binding_deps)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(PYTHON3) $(top_srcdir)/maint/gen-binding fortran \
	    $(top_srcdir)/src/binding/mpi/api.txt $@
