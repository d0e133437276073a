# Faults: a rank killed (or calling MPI_Abort) in the middle of an RMA protocol.
# test/fault/faults.sh runs test/fault/victim in each mode and judges the job from
# outside: it ends in bounded time, fails, and leaves no process or segment behind.
check_PROGRAMS += test/fault/victim
TESTS += test/fault/faults.sh
EXTRA_DIST += test/fault/faults.sh

# Allocation failure: test/fault/alloc_fail walks rmaib's allocations with the
# injector of failinj.c linked in (it defines malloc and friends over libc's).
check_PROGRAMS += test/fault/alloc_fail
TESTS += test/fault/alloc_fail
test_fault_alloc_fail_SOURCES = test/fault/alloc_fail.c test/fault/failinj.c test/fault/failinj.h
test_fault_alloc_fail_LDADD = librmaib-mpi.la $(MPI_LIBS) -ldl
