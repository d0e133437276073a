# The collectives suite (MPI_Allreduce, MPI_Allgather, MPI_Alltoall on rmaib's
# collective windows).  Rank counts, passes and forced algorithms are in
# test/coll/testlist, which test/run-test reads.
coll_tests =
coll_tests += test/coll/allreduce_algorithms
coll_tests += test/coll/allgather_alltoall
coll_tests += test/coll/coll_subcomm_mixed
coll_tests += test/coll/coll_errors
coll_tests += test/coll/coll_served_by_rmaib
coll_tests += test/coll/allreduce_types
check_PROGRAMS += $(coll_tests)
TESTS += $(coll_tests)
EXTRA_DIST += test/coll/testlist test/coll/coll_check.h
coll_tests += test/coll/icoll_results
coll_tests += test/coll/icoll_many
coll_tests += test/coll/coll_single_copy
coll_tests += test/coll/coll_fresh_windows
coll_tests += test/coll/coll_bad_config
coll_tests += test/coll/icoll_async
coll_tests += test/coll/icoll_host_waits
# The memory a communicator's collective state keeps (the core's own counts).
coll_tests += test/coll/coll_memory
test_coll_coll_memory_LDADD = librmaib-mpi.la $(MPI_LIBS) -lm
