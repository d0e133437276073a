# make check-scale (not part of make check): test programs of test/rma and test/coll,
# and test/scale's own, at 64 and 256 ranks on one host, as test/scale/testlist
# says (test/scale/run.sh runs each through test/run-test with that testlist).  Its
# TAP goes to check-scale.log, its last line counts the points; it fails if one
# failed or none passed.  .ci/run runs it as its scale stage.
check_PROGRAMS += test/scale/ring_neighbour
EXTRA_DIST += test/scale/testlist test/scale/run.sh test/tap-renumber.awk
check-scale: $(rma_tests) $(coll_tests) test/scale/ring_neighbour
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(top_srcdir)/test/scale/run.sh | tee check-scale.log; \
	pass=$$(grep -c '^ok [0-9]* - ' check-scale.log); \
	skip=$$(grep -c '^ok [0-9]* - .*# SKIP' check-scale.log); \
	fail=$$(grep -c '^not ok' check-scale.log); \
	echo "scale pass: $$((pass - skip)) passed, $$fail failed, $$skip skipped"; \
	test "$$fail" -eq 0 && test "$$pass" -gt "$$skip"
.PHONY: check-scale
CLEANFILES += check-scale.log
