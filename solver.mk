# solver.mk — the Krylov solvers (src/solver), ./solve, examples/minimal and
# the solver tests; included by the Makefile after mpi.mk unless NO_MPI is set.
#   SOLVER_TEST_RANKS  rank counts the solver tests run at (default 1 2 3,
#                      test_diag at 5 too; single precision 1 3: the solvers'
#                      rank arithmetic is the same in both; make test-all
#                      1 2 3 4 in both)

SOLVER_LDLIBS := $(if $(NO_METIS),,-lmetis)
SOLVER_SRC    := $(wildcard src/solver/*.c)
SOLVER_OBJ    := $(SOLVER_SRC:%.c=$(BUILD)/mpiobj/%.o)
LIB_OBJ       += $(SOLVER_OBJ)
PROGS         += solve
PROG_BIN      += $(BUILD)/bin/solve $(BUILD)/examples/minimal

$(BUILD)/mpiobj/src/solver/%.o: src/solver/%.c $(BUILD)/include/hspmv_config.h
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(MPI_CPPFLAGS) -Isrc/solver -Isrc/mpi $(CFLAGS) -c $< -o $@

$(BUILD)/mpiobj/bench/solve.o: bench/solve.c $(BUILD)/include/hspmv_config.h
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(MPI_CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/bin/solve: $(BUILD)/mpiobj/bench/solve.o $(BUILD)/mpiobj/bench/solve_model.o $(MPI_PROG_OBJ) $(BENCH_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(CFLAGS) $(LDFLAGS) $^ $(SOLVER_LDLIBS) $(LDLIBS) -o $@

# The example sees only the public header, as an installed program would.
$(BUILD)/examples/minimal: examples/minimal/minimal.c $(BUILD)/include/hspmv_config.h $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) -Iinclude -I$(BUILD)/include $(CFLAGS) $(LDFLAGS) $< $(LIB) $(SOLVER_LDLIBS) $(LDLIBS) -o $@

# Tests: tests/solver/test_*.c under mpirun at each rank count, ./solve's
# exit codes, and the out-of-tree build against `make install` + pkg-config
# (tests/solver/run.sh records "P F S" in results-solver.txt).
SOLVER_TEST_SRC   := $(wildcard tests/solver/test_*.c)
SOLVER_TEST_BIN   := $(SOLVER_TEST_SRC:tests/solver/%.c=$(BUILD)/tests/solver/%)
ifeq ($(TEST_ALL),)
SOLVER_TEST_RANKS ?= $(if $(filter single,$(PRECISION)),1 3,1 2 3)
endif
SOLVER_TEST_RANKS ?= 1 2 3 4

$(BUILD)/mpiobj/tests/solver/%.o: tests/solver/%.c $(BUILD)/include/hspmv_config.h
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(MPI_CPPFLAGS) -Itests -Itests/mpi $(CFLAGS) -c $< -o $@

$(BUILD)/tests/solver/%: $(BUILD)/mpiobj/tests/solver/%.o $(TEST_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(CFLAGS) $(LDFLAGS) $^ $(SOLVER_LDLIBS) $(LDLIBS) -o $@

SOLVER_TEST_RUN = SOLVER_TEST_RANKS="$(SOLVER_TEST_RANKS)" HSPMV_MAKE="$(MAKE)" \
                  sh tests/solver/run.sh --record $(BUILD)/results-solver.txt $(BUILD)
EXTRA_TEST_DEPS += $(SOLVER_TEST_BIN) $(BUILD)/bin/solve $(BUILD)/examples/minimal
TEST_SUITES_double += solver
TEST_SUITES_single += solver

.PHONY: test-solver
test-solver: $(SOLVER_TEST_BIN) $(BUILD)/bin/solve $(BUILD)/examples/minimal
	@$(SOLVER_TEST_RUN)
