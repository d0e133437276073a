# Faults: a rank killed (or calling MPI_Abort) in the middle of an RMA protocol.
# test/fault/faults.sh runs test/fault/victim in each mode and judges the job from
# outside: it ends in bounded time, fails, and leaves no process or segment behind.
check_PROGRAMS += test/fault/victim
TESTS += test/fault/faults.sh
EXTRA_DIST += test/fault/faults.sh
