# Unit tests: one program per component, checked against the host MPI without
# linking librmaib-mpi.  Rank counts for each run are in test/unit/testlist.

unit_tests = test/unit/layout_flatten

# The datatype flattener, checked byte for byte against MPI_Pack.
test_unit_layout_flatten_SOURCES = test/unit/layout_flatten.c \
	src/binding/mpi/datatype.c src/binding/mpi/datatype.h
test_unit_layout_flatten_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/include
test_unit_layout_flatten_LDADD =

unit_tests += test/unit/reduce_kernels

# The accumulate family's reduction and CPU-atomic kernels (plain C, no MPI).
test_unit_reduce_kernels_SOURCES = test/unit/reduce_kernels.c \
	src/rma/reduce.c src/rma/reduce.h src/rma/atomic_cpu.c src/rma/atomic_cpu.h
test_unit_reduce_kernels_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/include
test_unit_reduce_kernels_LDADD = -lpthread

unit_tests += test/unit/mailbox

# The ofi backend's mailbox requests: application, refusals, slot choice (no provider).
test_unit_mailbox_SOURCES = test/unit/mailbox.c \
	src/mpid/ch4/netmod/rmaib/mailbox.c src/mpid/ch4/netmod/rmaib/mailbox.h \
	src/rma/reduce.c src/rma/reduce.h src/rma/atomic_cpu.c src/rma/atomic_cpu.h
test_unit_mailbox_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/include
test_unit_mailbox_LDADD = -lpthread

unit_tests += test/unit/sock_wait

# The progress thread's sleep on tcp's sockets: wake-ups, which sockets count, the
# naps on data nobody reads (real loopback sockets, no provider).
test_unit_sock_wait_SOURCES = test/unit/sock_wait.c \
	src/mpid/ch4/netmod/rmaib/sock_wait.c src/mpid/ch4/netmod/rmaib/ofi.h
test_unit_sock_wait_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/include
test_unit_sock_wait_LDADD =

check_PROGRAMS += $(unit_tests)
TESTS += $(unit_tests)
EXTRA_DIST += test/unit/testlist test/unit/unit_tap.h
