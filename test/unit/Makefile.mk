# Unit tests: one program per component, checked against the host MPI without
# linking librmaib-mpi.  Rank counts for each run are in test/unit/testlist.

unit_tests = test/unit/layout_flatten

# The datatype flattener, checked byte for byte against MPI_Pack.
test_unit_layout_flatten_SOURCES = test/unit/layout_flatten.c \
	src/binding/mpi/datatype.c src/binding/mpi/datatype.h \
	src/binding/mpi/datatype_impl.h src/binding/mpi/datatype_named.c \
	src/binding/mpi/datatype_decode.c src/binding/mpi/datatype_flat.c
test_unit_layout_flatten_LDADD = $(MPI_LIBS)

unit_tests += test/unit/reduce_kernels

# The accumulate family's reduction and CPU-atomic kernels (plain C, no MPI).
test_unit_reduce_kernels_SOURCES = test/unit/reduce_kernels.c
test_unit_reduce_kernels_CPPFLAGS = $(CORE_CPPFLAGS)
test_unit_reduce_kernels_LDADD = librmaib-core.la -lpthread

if RMAIB_HAVE_OFI
unit_tests += test/unit/mailbox
endif

# The ofi backend's mailbox requests: application, refusals, slot choice (no provider).
test_unit_mailbox_SOURCES = test/unit/mailbox.c
test_unit_mailbox_CPPFLAGS = $(CORE_CPPFLAGS)
test_unit_mailbox_LDADD = librmaib-core.la -lpthread

if RMAIB_HAVE_OFI
unit_tests += test/unit/ofi_peers
endif

# The ofi backend's per-peer state at 10^6 ranks: columns, records made at the first
# access, from several threads at once (no provider).
test_unit_ofi_peers_SOURCES = test/unit/ofi_peers.c
test_unit_ofi_peers_CPPFLAGS = $(CORE_CPPFLAGS) $(OFI_CFLAGS)
test_unit_ofi_peers_LDADD = librmaib-core.la -lpthread

if RMAIB_HAVE_OFI
unit_tests += test/unit/fi_loader
endif

# The libfabric loader built as against libfabric 2.x's headers (a fabric.h of major
# version 2 in test/unit/fi2): it must still open libfabric.so.1.
test_unit_fi_loader_SOURCES = test/unit/fi_loader.c src/transport/ofi/loader.c \
	test/unit/fi2/rdma/fabric.h
test_unit_fi_loader_CPPFLAGS = -I$(srcdir)/test/unit/fi2 $(CORE_CPPFLAGS) $(OFI_CFLAGS)
test_unit_fi_loader_LDADD = $(RMAIB_DL_LIBS)

unit_tests += test/unit/sock_wait

# The progress thread's sleep on tcp's sockets: wake-ups, which sockets count, the
# naps on data nobody reads (real loopback sockets, no provider).
test_unit_sock_wait_SOURCES = test/unit/sock_wait.c \
	src/transport/ofi/sock_wait.c src/transport/ofi/ofi.h
test_unit_sock_wait_CPPFLAGS = $(CORE_CPPFLAGS)
test_unit_sock_wait_LDADD =

unit_tests += test/unit/ptracer

# Who may cross-memory-attach to a rank under Yama: scope file, ancestors, choice.
test_unit_ptracer_SOURCES = test/unit/ptracer.c
test_unit_ptracer_CPPFLAGS = $(CORE_CPPFLAGS)
test_unit_ptracer_LDADD = librmaib-core.la -lpthread

unit_tests += test/unit/peer_table

# The window's peer table: entries at first access, memory per peer touched, at up
# to a million ranks (no MPI, no transport).
test_unit_peer_table_SOURCES = test/unit/peer_table.c
test_unit_peer_table_CPPFLAGS = $(CORE_CPPFLAGS)
test_unit_peer_table_LDADD = librmaib-core.la -lpthread

if RMAIB_HAVE_OFI
unit_tests += test/unit/sim_scale
endif

# Per-process costs at 10^3..10^6 ranks on one machine: a simulated host and a
# counting transport in the network backend's place (it takes ofi's slot, so it
# needs a build with one).  The issue's targets are SKIPs until switched on.
test_unit_sim_scale_SOURCES = test/unit/sim_scale.c test/unit/sim_host.c \
	test/unit/sim_tp.c test/unit/sim_host.h
test_unit_sim_scale_CPPFLAGS = $(CORE_CPPFLAGS)
test_unit_sim_scale_LDADD = librmaib-core.la -lpthread

check_PROGRAMS += $(unit_tests)
TESTS += $(unit_tests)
EXTRA_DIST += test/unit/testlist test/unit/unit_tap.h test/unit/heap.h
