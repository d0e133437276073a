# libFuzzer harnesses (see test/README.md).  Built by clang, apart from the gcc
# build, when configure found a clang that links -fsanitize=fuzzer: each harness
# compiles the sources it checks itself, so the fuzzer's coverage and ASan+UBSan
# are in them.  make check runs test/fuzz/run.sh (each harness for
# RMAIB_FUZZ_SECONDS, default 30); make fuzz runs them longer (FUZZ_SECONDS,
# default 600), keeping the corpora it grows and any crash in fuzz-out/.

FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	$(RMAIB_WARN_CFLAGS) $(CORE_CPPFLAGS) -I$(top_builddir)/include
FUZZ_SECONDS = 600

fuzz_harnesses = test/fuzz/mailbox test/fuzz/config test/fuzz/info test/fuzz/layout
fuzz_mailbox_sources = $(top_srcdir)/test/fuzz/mailbox.c \
	$(top_srcdir)/src/transport/ofi/mailbox.c $(top_srcdir)/src/base/atomic_cpu.c \
	$(top_srcdir)/src/base/reduce.c
fuzz_config_sources = $(top_srcdir)/test/fuzz/config.c \
	$(top_srcdir)/src/base/config.c $(top_srcdir)/src/base/host.c
fuzz_info_sources = $(top_srcdir)/test/fuzz/info.c $(top_srcdir)/test/fuzz/mpi_init.c \
	$(top_srcdir)/src/binding/mpi/info.c
fuzz_layout_sources = $(top_srcdir)/test/fuzz/layout.c $(top_srcdir)/test/fuzz/mpi_init.c \
	$(top_srcdir)/src/binding/mpi/datatype.c $(top_srcdir)/src/binding/mpi/datatype_named.c \
	$(top_srcdir)/src/binding/mpi/datatype_decode.c $(top_srcdir)/src/binding/mpi/datatype_flat.c
fuzz_headers = $(top_srcdir)/src/transport/ofi/mailbox.h $(top_srcdir)/src/base/config.h \
	$(top_srcdir)/src/binding/mpi/info.h $(top_srcdir)/src/binding/mpi/datatype.h \
	$(top_srcdir)/src/binding/mpi/datatype_impl.h $(top_srcdir)/src/include/rmaib_layout.h \
	$(top_srcdir)/test/fuzz/input.h

test/fuzz/mailbox: $(fuzz_mailbox_sources) $(fuzz_headers)
	$(AM_V_CCLD)$(MKDIR_P) test/fuzz && $(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(fuzz_mailbox_sources) -lpthread
test/fuzz/config: $(fuzz_config_sources) $(fuzz_headers)
	$(AM_V_CCLD)$(MKDIR_P) test/fuzz && $(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(fuzz_config_sources)
test/fuzz/info: $(fuzz_info_sources) $(fuzz_headers)
	$(AM_V_CCLD)$(MKDIR_P) test/fuzz && $(FUZZ_CC) $(FUZZ_FLAGS) $(MPI_CFLAGS) -o $@ \
	$(fuzz_info_sources) $(MPI_LIBS)
test/fuzz/layout: $(fuzz_layout_sources) $(fuzz_headers)
	$(AM_V_CCLD)$(MKDIR_P) test/fuzz && $(FUZZ_CC) $(FUZZ_FLAGS) $(MPI_CFLAGS) -o $@ \
	$(fuzz_layout_sources) $(MPI_LIBS) -lpthread

if RMAIB_HAVE_FUZZ
check_SCRIPTS += $(fuzz_harnesses)
fuzz: $(fuzz_harnesses)
	RMAIB_FUZZ_SECONDS=$(FUZZ_SECONDS) RMAIB_FUZZ_OUT=$(abs_top_builddir)/fuzz-out \
	RMAIB_TOP_SRCDIR=$(abs_top_srcdir) RMAIB_TOP_BUILDDIR=$(abs_top_builddir) \
	$(SHELL) $(top_srcdir)/test/fuzz/run.sh
else
fuzz:
	@echo "make fuzz: configure found no clang that links -fsanitize=fuzzer (maint/install-deps)" >&2; exit 1
endif

TESTS += test/fuzz/run.sh
CLEANFILES += $(fuzz_harnesses)
EXTRA_DIST += test/fuzz/run.sh test/fuzz/mailbox.c test/fuzz/config.c test/fuzz/info.c \
	test/fuzz/layout.c test/fuzz/mpi_init.c test/fuzz/input.h test/fuzz/corpus
.PHONY: fuzz
