# Checks of the tree itself: the core's layering, the documentation of every
# variable, make install with a program built through pkg-config, and the MPI
# entry points of the drop-in against the host MPICH's.
tree_tests = test/tree/layering.sh test/tree/env_documented.sh test/tree/install.sh \
	test/tree/ptracer.sh test/tree/mpi_symbols.sh
TESTS += $(tree_tests)
EXTRA_DIST += $(tree_tests)
