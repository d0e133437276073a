# Checks of the tree itself: the core's layering, the documentation of every
# variable, and make install with a program built through pkg-config.
tree_tests = test/tree/layering.sh test/tree/env_documented.sh test/tree/install.sh \
	test/tree/ptracer.sh
TESTS += $(tree_tests)
EXTRA_DIST += $(tree_tests)
