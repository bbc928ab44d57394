# hostile.mk — the hostile suite (tests/hostile/run.sh: every tests/hostile/*.sh
# given the build folder), a suite of make test (double precision; single
# too in make test-all: outputs and messages do not depend on the values'
# precision); `make test-hostile` runs it alone. Records "P F S" in
# $(BUILD)/results-hostile.txt. Included by the Makefile unless NO_MPI is set.
HOSTILE_TEST_RUN = sh tests/hostile/run.sh --record $(BUILD)/results-hostile.txt $(BUILD)
EXTRA_TEST_DEPS += $(PROG_BIN)
TEST_SUITES_double += hostile
TEST_SUITES_single += $(if $(TEST_ALL),hostile)

.PHONY: test-hostile
test-hostile: $(PROG_BIN)
	@$(HOSTILE_TEST_RUN)
