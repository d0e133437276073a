# Checks of the tree itself: the core's layering, the documentation of every
# variable, make install with a program built through pkg-config, and the MPI
# entry points of the drop-in against the host MPICH's.
# The refusal of a library preloaded into the other host MPI's program.
tree_tests = test/tree/layering.sh test/tree/env_documented.sh test/tree/install.sh \
	test/tree/ptracer.sh test/tree/mpi_symbols.sh test/tree/host_refusal.sh
TESTS += $(tree_tests)
EXTRA_DIST += $(tree_tests)
