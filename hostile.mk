# hostile.mk — the hostile suite (tests/hostile/run.sh: every tests/hostile/*.sh
# given the build folder) in each precision's `make test`, after the program
# tests; `make test-hostile` runs it alone. Records "P F S" in
# $(BUILD)/results-hostile.txt. Included by the Makefile unless NO_MPI is set.
HOSTILE_TEST_RUN = sh tests/hostile/run.sh --record $(BUILD)/results-hostile.txt $(BUILD)
EXTRA_TEST_DEPS += $(PROG_BIN)
EXTRA_TEST_CMD  += $(HOSTILE_TEST_RUN);

.PHONY: test-hostile
test-hostile: $(PROG_BIN)
	@$(HOSTILE_TEST_RUN)
