# mpi.mk — the distributed layer (src/mpi), benchmark-mpi and the MPI tests;
# included by the Makefile before its rules unless NO_MPI is set.
#   MPI_TEST_RANKS    rank counts the MPI tests run at with 1 thread (default
#                     1 2 3; more ranks than the 2 cores run with 2 threads
#                     at 5 (MPI_TEST_RANKS_THREADED); 4, 5 and 8 with 1 thread
#                     only in make test-all: beside the other suites 5 ranks
#                     of 1 thread took 511 of the MPI suite's 1171 s on 2
#                     cores, the whole of make test's tail, and 8 ran past the
#                     300 s timeout; the bad-file loop still runs at 8;
#                     in single precision 3: the rank arithmetic is the same
#                     in both, the values' type in the halo and the reads is
#                     what single adds, and 3 ranks, with 2 threads in
#                     pseudo-nodes too, carry it; test-all: double's counts)
#   MPI_TEST_THREADS  OpenMP threads per rank (default 1 2)
#   MPI_TEST_RANKS_THREADED  the rank counts run with 2 threads (pseudo-nodes
#                     of 2, the send in pieces; default 3 5: at 1 rank there
#                     is nothing to send or split; test-all 1 3 5)
#   MPI_BAD_RANKS     rank counts of the bad-file loop (default 1 3 8: 17 files at
#                     1, 2, 3, 4 and 8 ranks took 220 s of the suite on 2 cores;
#                     single 1: what single changes is the values' parsing,
#                     read by the root and in parallel at 1 rank; test-all 1 3 8)

# NO_METIS=1: built without METIS (--partition metis then refuses), for a
# machine that lacks it (the GPU machines' images)
MPI_LDLIBS := $(if $(NO_METIS),,-lmetis)
ifneq ($(NO_METIS),)
  CPPFLAGS += -DHSPMV_NO_METIS
endif
# include folders of the MPI layers
MPI_INC    := -Isrc/mpi -Isrc/mpi/node -Isrc/mpi/sym -Itests
MPI_SRC    := $(wildcard src/mpi/*.c src/mpi/node/*.c src/mpi/sym/*.c)
MPI_OBJ    := $(MPI_SRC:%.c=$(BUILD)/mpiobj/%.o)
LIB_OBJ    += $(MPI_OBJ)
PROGS      += benchmark-mpi
PROG_BIN   += $(BUILD)/bin/benchmark-mpi

$(BUILD)/mpiobj/%.o: %.c $(BUILD)/include/hspmv_config.h
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(MPI_CPPFLAGS) $(MPI_INC) $(CFLAGS) -c $< -o $@

MPI_PROG_OBJ := $(BUILD)/mpiobj/bench/mpi_prog.o $(BUILD)/mpiobj/bench/mpi_check.o \
                $(BUILD)/mpiobj/bench/mpi_gen.o $(BUILD)/mpiobj/bench/mpi_gpu.o

$(BUILD)/bin/benchmark-mpi: $(BUILD)/mpiobj/bench/benchmark_mpi.o $(MPI_PROG_OBJ) $(BENCH_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(CFLAGS) $(LDFLAGS) $^ $(MPI_LDLIBS) $(LDLIBS) -o $@

# MPI tests: each tests/mpi/test_*.c is one program run under mpirun at every
# rank count and thread count; tests/mpi/run.sh adds up and records the counts.
MPI_TEST_SRC := $(wildcard tests/mpi/test_*.c)
MPI_TEST_BIN := $(MPI_TEST_SRC:tests/mpi/%.c=$(BUILD)/tests/mpi/%) $(BUILD)/tests/mpi/mpi_badfile
ifeq ($(TEST_ALL),)
ifeq ($(PRECISION),single)
MPI_TEST_RANKS   ?= 3
MPI_BAD_RANKS    ?= 1
MPI_TEST_RANKS_THREADED ?= 3
endif
MPI_TEST_RANKS   ?= 1 2 3
MPI_TEST_RANKS_THREADED ?= 3 5
endif
MPI_TEST_RANKS   ?= 1 2 3 4 5 8
MPI_BAD_RANKS    ?= 1 3 8
MPI_TEST_RANKS_THREADED ?= 1 3 5
MPI_TEST_THREADS ?= 1 2

$(BUILD)/tests/mpi/%: $(BUILD)/mpiobj/tests/mpi/%.o $(TEST_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(CFLAGS) $(LDFLAGS) $^ $(MPI_LDLIBS) $(LDLIBS) -o $@

EXTRA_TEST_DEPS += $(MPI_TEST_BIN)
MPI_TEST_RUN     = MPI_TEST_RANKS="$(MPI_TEST_RANKS)" MPI_TEST_THREADS="$(MPI_TEST_THREADS)" \
                   MPI_TEST_RANKS_THREADED="$(MPI_TEST_RANKS_THREADED)" \
                   MPI_BAD_RANKS="$(MPI_BAD_RANKS)" sh tests/mpi/run.sh --record $(BUILD)/results-mpi.txt $(BUILD)/tests/mpi
TEST_SUITES_double += mpi
TEST_SUITES_single += mpi

.PHONY: test-mpi
test-mpi: $(MPI_TEST_BIN)
	@$(MPI_TEST_RUN)
