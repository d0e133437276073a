# make check-long (not part of make check): rmaib-bfs's traversals and validator
# (test/rma/bfs_validate.c, built again as test/long/bfs_long) at SCALE 14 and 16 on
# 1-8 ranks in every pass, as test/long/testlist says, through test/run-test; what
# make check keeps of them is in test/rma/testlist.  Its TAP goes to check-long.log.
EXTRA_PROGRAMS = test/long/bfs_long
test_long_bfs_long_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/examples/bfs -I$(top_srcdir)/test/rma
test_long_bfs_long_SOURCES = test/rma/bfs_validate.c examples/bfs/graph.c examples/bfs/bfs.c \
	examples/bfs/bfs_p2p.c examples/bfs/validate.c
check-long: test/long/bfs_long
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(top_srcdir)/test/run-test ./test/long/bfs_long \
		| tee check-long.log; \
	if grep -q '^not ok' check-long.log || ! grep -q '^ok' check-long.log; then \
		echo "make check-long: FAILED (check-long.log)"; exit 1; \
	fi; \
	echo "make check-long: $$(grep -c '^ok' check-long.log) passed, 0 failed"
.PHONY: check-long
CLEANFILES += check-long.log test/long/bfs_long
EXTRA_DIST += test/long/testlist
