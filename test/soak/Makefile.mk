# The soak (make soak, not part of make check): test/soak/soak with 8 ranks, as
# test/soak/testlist says, through test/run-test; RMAIB_SOAK_EPOCHS scales it.
# Its TAP goes to soak.log; the target fails if a point failed or none ran.
check_PROGRAMS += test/soak/soak
soak: test/soak/soak
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(top_srcdir)/test/run-test ./test/soak/soak | tee soak.log; \
	if grep -q '^not ok' soak.log || ! grep -q '^ok' soak.log; then \
		echo "make soak: FAILED (soak.log)"; exit 1; \
	fi; \
	echo "make soak: $$(grep -c '^ok' soak.log) passed, 0 failed"
.PHONY: soak
CLEANFILES += soak.log
