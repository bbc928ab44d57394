# Makefile — builds libhspmv.a (and .so), the programs and the tests. See README.md.
#   make                    library + programs (double precision)
#   make PRECISION=single   the float variant
#   make test               every test, both precisions, NEON under qemu
#   make sanitize           the tests under AddressSanitizer + UBSan
#   make fuzz               the Matrix Market reader under libFuzzer
#   make lib                libhspmv.a and the shared libhspmv.so (make shared: the .so alone)
#   make python             the Python package's extension modules, in place in python/ (python.mk)
#   make install PREFIX=/usr/local     (make uninstall PREFIX=... removes it again)
#
# Install layout: both precisions side by side in one prefix. Each `make
# install [PRECISION=...]` installs its own files and touches none of the
# other's (the share/hspmv tree is common: uninstall removes it with the last
# precision):
#   double: include/hspmv.h + hspmv_config.h, lib/libhspmv.{a,so}, hspmv.pc,
#           lib/cmake/hspmv (target hspmv::hspmv), bin/benchmark-{naive,omp,mpi}
#           and bin/hspmv-{convert,genmat,solve}
#   single: include/hspmv_single/hspmv.h + hspmv_config.h, libhspmv_single.{a,so},
#           hspmv_single.pc, lib/cmake/hspmv_single (hspmv_single::hspmv_single),
#           the same programs named *-single (bin/benchmark-omp-single, ...)
# The single header has its own folder: hspmv.h includes "hspmv_config.h"
# (the precision) from beside itself, so -IPREFIX/include gives the double
# pair and -IPREFIX/include/hspmv_single (pkg-config hspmv_single, the CMake
# target) the single pair, never a mix. The shared library's soname carries major.minor
# while the major is 0 (libhspmv.so.0.2: no minor is compatible with another
# before 1.0, as in the CMake version check); the .so and the .a are made
# from the same -fPIC objects, each source compiled once per precision.

PRECISION ?= double
CC        ?= cc
MPICC     ?= mpicc
PREFIX    ?= /usr/local

# Every core by default (make -jN or -j1 on the command line wins; the
# makes that make starts share its job slots). make test runs TEST_JOBS
# (cores + 1) at once: its suites wait on mpirun's ranks, qemu and files as
# much as they compute.
NPROC := $(shell nproc 2>/dev/null || echo 1)
TEST_JOBS ?= $(shell echo $$(($(NPROC) + 1)))
ifeq ($(MAKELEVEL),0)
  MAKEFLAGS += -j$(if $(filter test test-all,$(MAKECMDGOALS)),$(TEST_JOBS),$(NPROC))
endif

# The dependency step comes before anything is computed from the toolchain:
# build/.deps-LEVEL is an included makefile (empty) made by scripts/deps.sh,
# so make runs deps.sh (installing what is missing) and then reads this
# Makefile again from the top, with the compiler, PETSc (petsc.mk) and the
# rest now there. The level follows the goals: test for make test and its
# suites, fresh for test-fresh alone, fuzz, else build (clean, uninstall and
# help need nothing).
DEPS_FREE_GOALS := clean uninstall help
ifneq ($(filter-out $(DEPS_FREE_GOALS),$(or $(MAKECMDGOALS),all)),)
  DEPS_LEVEL := $(if $(filter test test-%,$(filter-out test-fresh,$(MAKECMDGOALS))),test,$(if \
                  $(filter test-fresh,$(MAKECMDGOALS)),fresh,$(if $(filter fuzz,$(MAKECMDGOALS)),fuzz,build)))
  include build/.deps-$(DEPS_LEVEL)
endif
# The target's architecture, from the compiler (a cross CC gives its own).
ARCH      := $(shell { $(CC) -dumpmachine 2>/dev/null || uname -m; } | cut -d- -f1)
BUILD     ?= build/$(ARCH)-$(PRECISION)$(BUILD_SUFFIX)$(if $(NO_MPI),-nompi)
FUZZ_SECONDS ?= 60
# V=1 prints every command; otherwise one short line per step.
ifeq ($(V),1)
  Q :=
else
  Q = @echo "  $(if $(filter %.a,$@),AR,$(if $(filter %.o,$@),CC,LD)) $@";
endif

ifeq ($(PRECISION),single)
  PREC_DEF := 1
else ifeq ($(PRECISION),double)
  PREC_DEF := 0
else
  $(error PRECISION must be double or single, not '$(PRECISION)')
endif

WARN    := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Werror=implicit-function-declaration
OPT     ?= -O3
CFLAGS  ?=
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN) -fopenmp -MMD -MP $(SAN_FLAGS)
LDFLAGS += $(SAN_FLAGS)
ifneq ($(CI),)
  CFLAGS += -Werror
endif
CPPFLAGS += -Iinclude -I$(BUILD)/include -Isrc/util -Isrc/io -Isrc/csr -Isrc/kernels -Isrc/format -Isrc/local -Isrc/order
# Code outside the MPI layers never sees MPI; mpi.mk compiles those layers
# with $(MPICC) and $(MPI_CPPFLAGS), which drops this define.
CPPFLAGS += -DHSPMV_NO_MPI
MPI_CPPFLAGS = $(filter-out -DHSPMV_NO_MPI,$(CPPFLAGS))
LDLIBS  += -lz -lm
ifneq ($(NO_ZLIB),)
  CPPFLAGS += -DHSPMV_NO_ZLIB
  LDLIBS   := $(filter-out -lz,$(LDLIBS))
endif
# src/order's nested dissection (reorder nd) calls METIS: linked into every
# program unless NO_METIS=1 (or NO_MPI=1: the cross builds have no METIS)
ifneq ($(NO_METIS)$(NO_MPI),)
  CPPFLAGS += -DHSPMV_NO_METIS
else
  LDLIBS   += -lmetis
endif

# Library sources by layer. Each format's SIMD kernel is written once
# (src/kernels/spmv_<fmt>_simd.c, over the wrappers of simd.h) and compiled
# once per instruction set this architecture has, with that set's flags
# only: spmv_<fmt>_simd_<isa>.o (not spmv_<fmt>_<isa>.o: build folders from
# before hold dependency files naming the old per-set sources under that
# name). The sets are chosen at run time (one binary runs on any x86-64).
LIB_DIRS := src/util src/io src/csr src/format src/kernels src/local src/order
LIB_SRC  := $(filter-out %_simd.c,$(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
SIMD_SRC := $(wildcard src/kernels/*_simd.c)
SIMD_ISAS := $(if $(filter x86_64,$(ARCH)),avx2 avx512,$(if $(filter aarch64,$(ARCH)),neon))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) \
            $(foreach i,$(SIMD_ISAS),$(SIMD_SRC:src/kernels/%_simd.c=$(BUILD)/obj/src/kernels/%_simd_$(i).o))
LIB      := $(BUILD)/libhspmv.a

# The version, from include/hspmv.h's HSPMV_VERSION_MAJOR/MINOR/PATCH.
HSPMV_VERSION := $(shell awk '/^\#define HSPMV_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $$3; s = "."} END {print v}' include/hspmv.h)
HSPMV_MAJOR   := $(word 1,$(subst ., ,$(HSPMV_VERSION)))
HSPMV_SOVER   := $(if $(filter 0,$(HSPMV_MAJOR)),$(basename $(HSPMV_VERSION)),$(HSPMV_MAJOR))
# What this precision's library, headers and programs are called when installed.
LIBNAME    := hspmv$(if $(filter single,$(PRECISION)),_single)
PROG_SFX   := $(if $(filter single,$(PRECISION)),-single)
INC_SUB    := include$(if $(filter single,$(PRECISION)),/hspmv_single)
SONAME     := lib$(LIBNAME).so.$(HSPMV_SOVER)
SHLIB      := $(BUILD)/lib$(LIBNAME).so
SHLIB_FILE := $(BUILD)/lib$(LIBNAME).so.$(HSPMV_VERSION)
# Every object is position-independent, so that one set of objects makes
# both libhspmv.a (and the programs) and libhspmv.so; calls inside the
# library stay direct (no semantic interposition), and the linker turns the
# GOT loads into direct addresses where a program links the .a.
PIC_FLAGS  := -fPIC -fno-semantic-interposition
CFLAGS     += $(PIC_FLAGS)

ISA_FLAGS_avx2   := -DHSPMV_ISA_AVX2 -mavx2 -mfma
ISA_FLAGS_avx512 := -DHSPMV_ISA_AVX512 -mavx512f -mavx512vl -mavx512dq -mavx512bw -mavx512cd -mfma
ISA_FLAGS_neon   := -DHSPMV_ISA_NEON
# simd_rule ISA: the rule of that instruction set's kernel objects
define simd_rule
$$(BUILD)/obj/src/kernels/%_simd_$(1).o: src/kernels/%_simd.c $$(BUILD)/include/hspmv_config.h
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(CPPFLAGS) $$(CFLAGS) $$(ISA_FLAGS_$(1)) -c $$< -o $$@
endef
$(foreach i,$(SIMD_ISAS),$(eval $(call simd_rule,$(i))))

# Programs at the top level, built from bench/<name with _>.c
PROGS     := benchmark-naive genmat convert $(if $(wildcard bench/benchmark_omp.c),benchmark-omp)
BENCH_LIB := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard bench/bench_*.c) bench/gen_rows.c)
PROG_BIN  := $(PROGS:%=$(BUILD)/bin/%)

# Tests: every tests/test_*.c is one program ending with "N passed, N failed".
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_LIB := $(BUILD)/obj/tests/testlib.o

.DEFAULT_GOAL := all
# Keep objects that pattern chains would delete (tests, programs): rebuilds stay incremental.
.SECONDARY:

# The MPI layers, programs and tests (not in cross builds: NO_MPI=1); they
# add what make test builds (EXTRA_TEST_DEPS) and their suites (TEST_SUITES_*).
ifeq ($(NO_MPI),)
-include mpi.mk
-include solver.mk
-include petsc.mk
endif
# The programs as a user runs them, hostile arguments and files included
# (tests/programs/run.sh; needs the MPI programs, so not in cross builds).
ifeq ($(NO_MPI),)
PROGRAMS_TEST_RUN = sh tests/programs/run.sh --record $(BUILD)/results-programs.txt $(BUILD)
EXTRA_TEST_DEPS += $(PROG_BIN)
TEST_SUITES_double += programs
TEST_SUITES_single += programs
.PHONY: test-programs
test-programs: $(PROG_BIN)
	@$(PROGRAMS_TEST_RUN)
-include cluster.mk
-include python.mk
-include hostile.mk
endif
# The CUDA path (make CUDA=1).
ifneq ($(CUDA),)
include gpu.mk
endif

.PHONY: all lib shared programs test test-one test-prereqs test-build-one test-aarch64 test-cuda sanitize fuzz install uninstall clean run deps matrices
all: programs

# deps.sh's levels: test holds build and fresh, fuzz holds build; a level's
# stamp stands for those it holds.
deps: build/.deps-build
build/.deps-%: scripts/deps.sh
	@sh scripts/deps.sh $*
	@mkdir -p build && touch $@ $(DEPS_ALSO_$*)
DEPS_ALSO_test := build/.deps-build build/.deps-fresh
DEPS_ALSO_fuzz := build/.deps-build

# Rewritten only when its text changes (editing the Makefile rebuilds nothing).
# Its text names the objects' kind too: a build folder whose objects were
# compiled without -fPIC (before one set served all) sees it change once
# and compiles everything again, instead of linking those into the .so.
$(BUILD)/include/hspmv_config.h: FORCE
	@mkdir -p $(dir $@) && t=$@.$$$$ && \
	  printf '/* hspmv_config.h — generated by make: the precision this build uses. */\n/* objects: -fPIC, one set for the .a, the .so and the programs */\n#ifndef HSPMV_CONFIG_H\n#define HSPMV_CONFIG_H\n' > $$t && \
	  if [ $(PREC_DEF) = 1 ]; then printf '#define HSPMV_SINGLE 1\n' >> $$t; fi && \
	  if [ -n "$(NO_MPI)" ]; then printf '#ifndef HSPMV_NO_MPI\n#define HSPMV_NO_MPI 1 /* built without MPI */\n#endif\n' >> $$t; fi && \
	  printf '#endif\n' >> $$t && if cmp -s $$t $@; then rm -f $$t; else mv $$t $@; fi

# The build's git commit for the programs' --version and result lines
# (bench_util.c); rewritten only when it changes, so that a rebuild stays
# incremental; "unknown" in a tree without git (a release tarball). The
# temporary file is this shell's own: make test's suites run makes side by side.
$(BUILD)/include/hspmv_commit.h: FORCE
	@mkdir -p $(dir $@)
	@c=$$( { [ -e .git ] && git describe --always --dirty 2>/dev/null; } || echo unknown); \
	  printf '/* hspmv_commit.h — generated by make: the git commit of this build. */\n#define HSPMV_GIT_COMMIT "%s"\n' "$$c" > $@.$$$$; \
	  if cmp -s $@.$$$$ $@; then rm -f $@.$$$$; else mv $@.$$$$ $@; fi
$(BUILD)/obj/bench/bench_util.o: $(BUILD)/include/hspmv_commit.h
.PHONY: FORCE
FORCE:

$(BUILD)/obj/%.o: %.c $(BUILD)/include/hspmv_config.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

lib: $(LIB) $(SHLIB)
shared: $(SHLIB)
$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

# The shared library: the objects of $(LIB), linked against everything
# they use (--no-undefined), so that a bare dlopen works.
$(SHLIB_FILE): $(LIB_OBJ)
	$(Q)$(if $(NO_MPI),$(CC),$(MPICC)) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined $(CFLAGS) $(LDFLAGS) \
	  $^ $(MPI_LDLIBS) $(LDLIBS) -o $@
$(SHLIB): $(SHLIB_FILE)
	@ln -sf $(notdir $<) $(BUILD)/$(SONAME) && ln -sf $(notdir $<) $@

$(BUILD)/bin/%: $(BUILD)/obj/bench/%.o $(BENCH_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/bin/benchmark-%: $(BUILD)/obj/bench/benchmark_%.o $(BENCH_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Top-level copies follow whichever precision was built last.
programs: build/.deps-build $(PROG_BIN)
	@for p in $(PROGS); do cmp -s $(BUILD)/bin/$$p $$p || { cp $(BUILD)/bin/$$p $$p.tmp && mv -f $$p.tmp $$p; } || exit 1; done

# test_order_rcm compares orders on genmat's meshes (bench/gen_rows.c).
$(BUILD)/tests/test_order_rcm: $(BUILD)/obj/bench/gen_rows.o
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TEST_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# One precision's tests (used by sanitize); test-unit records their counts.
test-one: $(TEST_BIN)
	@HSPMV_RUNNER="$(HSPMV_RUNNER)" sh tests/run.sh $(TEST_BIN)
test-unit: $(TEST_BIN)
	@HSPMV_RUNNER="$(HSPMV_RUNNER)" sh tests/run.sh --record $(BUILD)/results-unit.txt $(TEST_BIN)

# make test: what its suites use is installed first (deps.sh test, above),
# then everything is built once (test-build: both precisions' libraries,
# programs and tests, the aarch64 NEON tests, the Python extension), then
# the suites run side by side, TEST_JOBS at a time (default cores + 1, at
# the top), longest first, each one's output printed whole when it ends; the fresh
# system test runs among them. The summary gives each suite's counts, wall
# and CPU seconds, and ends with "N passed, N failed, N skipped".
#   TEST_STOP_AFTER_BUILD=1  stop after the dependency and build steps
#   TEST_FRESH=0             leave the fresh-system test out
# make test-all runs the same suites with what make test leaves out as
# repetition (TEST_ALL=1: single precision's MPI and solver suites at the
# double suites' rank counts, the MPI bad-file loop at every rank count).
#
# A suite is a target test-NAME that writes "P F S" to
# $(BUILD)/results-NAME.txt; TEST_SUITES_double and TEST_SUITES_single
# name a precision's (mpi.mk, solver.mk and petsc.mk add theirs; so may
# another .mk), TEST_SUITES_once those run once, on the double build.
# EXTRA_TEST_CMD (commands that record their own counts) still runs, as a
# precision's suite "extra".
TEST_SUITES_double += unit
TEST_SUITES_single += unit
TEST_ALL    ?=
TEST_FRESH  ?= 1
# Every suite as suite.WHERE.NAME (suite.NAME for the once-suites), started
# in SUITE_ORDER's order (longest first, from their measured times on the
# 2-core machine), then any not named there.
SUITE_ORDER := fresh.fresh double.mpi aarch64-double.unit aarch64-single.unit cuda single.unit double.unit slurm \
               single.mpi double.solver petsc scripts double.programs single.programs python single.solver \
               double.petsc-io
SUITES_HERE  = $(foreach p,double single,$(TEST_SUITES_$(p):%=$(p).%) $(if $(EXTRA_TEST_CMD),$(p).extra)) \
               $(TEST_SUITES_once) aarch64-double.unit aarch64-single.unit cuda $(if $(filter 1,$(TEST_FRESH)),fresh.fresh)
SUITES       = $(addprefix suite.,$(filter $(SUITES_HERE),$(SUITE_ORDER)) $(filter-out $(SUITE_ORDER),$(SUITES_HERE)))
A64_VARS     = CC=$(AARCH64_CC) NO_ZLIB=1 NO_MPI=1 TEST_SRC="$(QEMU_TESTS_$(1))" HSPMV_RUNNER="$(QEMU)"
A64_OK       = command -v $(AARCH64_CC) >/dev/null 2>&1 && command -v $(firstword $(QEMU)) >/dev/null 2>&1

test: build/.deps-test
	@rm -f build/*/results-*.txt build/*/results-*.txt.*
	@date +%s > build/.test-start
	@$(MAKE) --no-print-directory test-build
ifneq ($(TEST_STOP_AFTER_BUILD),)
	@echo "make test: dependencies installed and everything built in $$(( $$(date +%s) - $$(cat build/.test-start) )) s; stopping after the build (TEST_STOP_AFTER_BUILD)"
else
	@$(MAKE) --no-print-directory $(SUITES)
	@sh tests/run.sh --summary --since build/.test-start build/*/results-*.txt
endif
test-all: build/.deps-test
	@$(MAKE) --no-print-directory TEST_ALL=1 test

# Everything the suites run, built on every core: both precisions, the
# aarch64 tests, the top-level programs (the scripts' tests use them) and
# the Python extension where its packages are.
test-build:
	@$(MAKE) --no-print-directory PRECISION=single test-prereqs
	@$(MAKE) --no-print-directory PRECISION=double test-prereqs
	@if $(A64_OK); then \
	  $(MAKE) --no-print-directory $(call A64_VARS,double) PRECISION=double test-bins && \
	  $(MAKE) --no-print-directory $(call A64_VARS,single) PRECISION=single test-bins; fi
	@$(MAKE) --no-print-directory programs
	@if $(PYTHON) -c 'import numpy, setuptools' 2>/dev/null && [ -f "$$($(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ]; then \
	  $(MAKE) --no-print-directory -s python; fi

# What one precision's suites build (its tests, programs, both libraries:
# the install tests need the shared one).
test-prereqs: $(TEST_BIN) $(EXTRA_TEST_DEPS) $(LIB) $(SHLIB)
test-bins: $(TEST_BIN)

# Builds and runs one precision's suites one after another.
test-build-one: $(TEST_BIN) $(EXTRA_TEST_DEPS)
	@set -e; for s in $(TEST_SUITES_$(PRECISION)); do $(MAKE) --no-print-directory test-$$s; done
	@$(EXTRA_TEST_CMD)
test-extra:
	@$(EXTRA_TEST_CMD)
	@echo "0 0 0" > $(BUILD)/results-extra.txt

# The suites, each through tests/suite.sh: suite.PRECISION.NAME runs
# test-NAME in that precision, suite.NAME a once-suite, suite.aarch64-P.unit
# the aarch64 tests under qemu (a failure when the cross compiler or qemu is
# missing), suite.fresh.fresh the fresh-system test, suite.cuda test-cuda.
SUITE_MAKE = $(MAKE) --no-print-directory
define suite_rule
suite.$(1).%:
	@sh tests/suite.sh build/$$(ARCH)-$(1)/results-$$*.txt $$(SUITE_MAKE) PRECISION=$(1) test-$$*
endef
$(foreach p,double single,$(eval $(call suite_rule,$(p))))
suite.aarch64-%.unit:
	@if $(A64_OK); then \
	  sh tests/suite.sh build/aarch64-$*-nompi/results-unit.txt $(SUITE_MAKE) $(call A64_VARS,$*) PRECISION=$* test-unit; \
	else echo "test-aarch64: $(AARCH64_CC) or qemu-aarch64 missing: NEON kernels NOT tested"; \
	  mkdir -p build/aarch64-$*-nompi && echo "0 1 0" > build/aarch64-$*-nompi/results-unit.txt; fi
suite.fresh.fresh:
	@sh tests/suite.sh build/test-fresh/results-fresh.txt sh tests/fresh/run.sh --record build/test-fresh/results-fresh.txt
# test-cuda records its counts in each precision's results-gpu.txt; this
# line gives its time (the GPU code's compile, mostly)
suite.cuda:
	@sh tests/suite.sh build/cuda/results-cuda.txt sh -c '$(MAKE) --no-print-directory test-cuda && echo "0 0 0" > build/cuda/results-cuda.txt'
$(addprefix suite.,$(TEST_SUITES_once)):
	@sh tests/suite.sh build/$(ARCH)-double/results-$(@:suite.%=%).txt $(SUITE_MAKE) PRECISION=double test-$(@:suite.%=%)
.PHONY: test-all test-build test-bins test-unit test-extra test-fresh suite.fresh.fresh suite.cuda

# The fresh-system test alone (tests/fresh/run.sh: mmdebstrap, a clean clone,
# make run and make test's build steps once each, as root).
test-fresh: build/.deps-fresh
	@sh tests/fresh/run.sh --record build/test-fresh/results-fresh.txt

# The CUDA code is always compiled when nvcc is there (so it cannot rot);
# its tests run on a GPU and report themselves skipped without one.
NVCC_PATH ?= /usr/local/cuda/bin/nvcc
test-cuda:
	@if [ -x "$(NVCC_PATH)" ]; then \
	  $(MAKE) --no-print-directory CUDA=1 NVCC=$(NVCC_PATH) gpu-build-check || exit 1; \
	  for p in double single; do \
	    $(MAKE) --no-print-directory CUDA=1 NVCC=$(NVCC_PATH) PRECISION=$$p \
	      GPU_RESULTS=build/$(ARCH)-$$p/results-gpu.txt test-gpu-one || exit 1; \
	  done; \
	else echo "test-cuda: $(NVCC_PATH) not found: GPU code NOT compiled"; fi

# Tests that need neither zlib nor MPI, built for aarch64 (NEON kernels) and
# run under qemu-aarch64 (suite.aarch64-double.unit, suite.aarch64-single.unit).
# Single precision runs the kernels' tests (its NEON code is its own); the
# reader's, the reference's and the local matrix's tests on aarch64 are the
# same code in both and run in double (in single too in make test-all).
QEMU_TESTS := $(wildcard tests/test_csr.c tests/test_ref.c tests/test_kernels.c tests/test_bcoo.c tests/test_local.c tests/test_csr16.c tests/test_csrvi.c \
                          tests/test_csrp.c tests/test_csrdu.c tests/test_panels.c tests/test_spmm.c tests/test_sym.c)
QEMU_TESTS_double := $(QEMU_TESTS)
QEMU_TESTS_single := $(if $(TEST_ALL),$(QEMU_TESTS),$(filter-out tests/test_csr.c tests/test_ref.c tests/test_local.c,$(QEMU_TESTS)))
AARCH64_CC ?= aarch64-linux-gnu-gcc
QEMU       ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
test-aarch64: suite.aarch64-double.unit suite.aarch64-single.unit

sanitize: build/.deps-build
	@$(MAKE) --no-print-directory BUILD_SUFFIX=-san OPT="-O1" \
	  SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" test-one

FUZZ_BIN := build/fuzz/fuzz_mtx
# the reader and writer with what they stand on (src/util)
FUZZ_SRC := $(wildcard src/io/*.c src/util/*.c)
$(FUZZ_BIN): tests/fuzz/fuzz_mtx.c $(FUZZ_SRC) $(wildcard src/io/*.h src/util/*.h) include/hspmv.h
	@mkdir -p build/fuzz/include && printf '#ifndef HSPMV_CONFIG_H\n#define HSPMV_CONFIG_H\n#endif\n' > build/fuzz/include/hspmv_config.h
	clang -std=c11 -D_GNU_SOURCE -DHSPMV_NO_MPI -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Ibuild/fuzz/include \
	  -Isrc/util -Isrc/io -Isrc/csr tests/fuzz/fuzz_mtx.c $(FUZZ_SRC) -lz -lm -o $@
fuzz: build/.deps-fuzz $(FUZZ_BIN)
	@mkdir -p build/fuzz/corpus
	@$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
	  build/fuzz/corpus tests/fuzz/corpus > build/fuzz/log 2>&1; rc=$$?; \
	  grep -E 'number_of_executed_units|peak_rss|ERROR|SUMMARY|Done' build/fuzz/log; \
	  echo "fuzz: exit $$rc (log in build/fuzz/log)"; exit $$rc

# The main job: benchmark-mpi on every bundled matrix, one rank per core (inside
# a Slurm allocation: its tasks; run_all-mpi.sh RANKS=auto).
run: programs
	@sh run_all-mpi.sh benchmark-mpi auto

# The bundled matrices (see matrices/README.md).
matrices: programs
	./genmat lap2d 64 -o matrices/lap2d_64.mtx
	./genmat lap3d 12 -o matrices/lap3d_12.mtx
	./genmat lap3d 12 --symmetric -o matrices/lap3d_12_sym.mtx
	./genmat lap3d27 10 -o matrices/lap3d27_10.mtx
	./genmat fem3d 6 --values random -o matrices/fem3d_6.mtx
	./genmat banded 2000 --width 16 -o matrices/banded_2000_w16.mtx
	./genmat blocks 1200 --width 12 -o matrices/blocks_1200_b12.mtx
	./genmat random 3000 --k 8 --rng stream -o matrices/random_3000_k8.mtx
	./genmat powerlaw 2000 --k 6 --rng stream -o matrices/powerlaw_2000_k6.mtx

# make install: the library (static and shared), headers, the pkg-config
# file, the CMake package (lib/cmake/LIBNAME: find_package(LIBNAME), target
# LIBNAME::LIBNAME, the shared library, and LIBNAME::LIBNAME_static), the
# programs (bin, named as in the layout above) and, in share/hspmv, the
# examples (minimal, and the PETSc MATSHELL adaptor in examples/petsc), the
# scripts with the bundled matrices (laid out as here, so they find
# PREFIX/bin). With CUDA=1 also the GPU library (libhspmv_gpu.a; single:
# libhspmv_single_gpu.a), its header and benchmark-light; make uninstall
# removes the same list (with CUDA=1 too for those).
LIB_DIR   = $(DESTDIR)$(PREFIX)/lib
INC_DIR   = $(DESTDIR)$(PREFIX)/$(INC_SUB)
BIN_DIR   = $(DESTDIR)$(PREFIX)/bin
CMAKE_DIR = $(LIB_DIR)/cmake/$(LIBNAME)
SHARE_DIR = $(DESTDIR)$(PREFIX)/share/hspmv
# programs as built -> as installed (the generic ones get the hspmv- prefix)
INST_PROGS  = $(PROGS) $(if $(CUDA),benchmark-light)
inst_name   = $(if $(filter benchmark-%,$(1)),$(1),hspmv-$(1))$(PROG_SFX)
# the common tree (relative to the source tree and to SHARE_DIR)
SHARE_FILES = run_all-omp.sh run_all-mpi.sh run_all-light.sh scripts/csv.sh scripts/plot \
              $(wildcard slurm/*.sbatch) slurm/job.sh $(wildcard matrices/*.mtx) matrices/README.md
EXAMPLE_FILES = examples/minimal/minimal.c examples/minimal/CMakeLists.txt \
                $(addprefix examples/petsc-shell/,hspmv_petsc.c hspmv_petsc.h petsc_shell.c CMakeLists.txt)
# examples/petsc-shell installs as examples/petsc
inst_example = $(subst examples/petsc-shell/,examples/petsc/,$(1))
SIZEOF_VOID_P = $(shell printf '\043include <stdint.h>\nSIZE=__SIZEOF_POINTER__\n' | $(CC) -E -P - | sed -n 's/^SIZE=//p')
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@NAME@|$(LIBNAME)|g' -e 's|@INCLUDE@|$(INC_SUB)|g' \
  -e 's|@PRECISION@|$(PRECISION)|g' -e 's|@VERSION@|$(HSPMV_VERSION)|g' -e 's|@SOVER@|$(HSPMV_SOVER)|g' \
  -e 's|@LIBS@|$(strip $(MPI_LDLIBS) $(LDLIBS))|g' -e 's|@MPI@|$(if $(NO_MPI),0,1)|g' -e 's|@ZLIB@|$(if $(NO_ZLIB),0,1)|g'

# The prefix's folders that install makes (those missing before it) are
# listed in share/hspmv/.made-dirs, for uninstall to remove when empty.
MADE_DIRS = $(DESTDIR)$(PREFIX) $(BIN_DIR) $(DESTDIR)$(PREFIX)/include $(LIB_DIR) $(LIB_DIR)/pkgconfig \
            $(LIB_DIR)/cmake $(DESTDIR)$(PREFIX)/share
install: build/.deps-build $(LIB) $(SHLIB) $(PROG_BIN) $(if $(CUDA),$(BUILD)/bin/benchmark-light)
	@mkdir -p $(BUILD) && for d in $(MADE_DIRS); do [ -d $$d ] || echo $$d; done > $(BUILD)/.made-dirs
	mkdir -p $(LIB_DIR)/pkgconfig $(CMAKE_DIR) $(INC_DIR) $(BIN_DIR)
	install -m 644 $(LIB) $(LIB_DIR)/lib$(LIBNAME).a
	install -m 755 $(SHLIB_FILE) $(LIB_DIR)/
	ln -sf $(notdir $(SHLIB_FILE)) $(LIB_DIR)/$(SONAME)
	ln -sf $(notdir $(SHLIB_FILE)) $(LIB_DIR)/lib$(LIBNAME).so
	install -m 644 include/hspmv.h $(BUILD)/include/hspmv_config.h $(INC_DIR)/
	$(if $(CUDA),install -m 644 src/gpu/hspmv_gpu.h $(INC_DIR)/ && install -m 644 $(GPU_LIB) $(LIB_DIR)/lib$(LIBNAME)_gpu.a)
	$(SUBST) scripts/hspmv.pc.in > $(LIB_DIR)/pkgconfig/$(LIBNAME).pc
	$(SUBST) scripts/hspmv-config.cmake.in > $(CMAKE_DIR)/$(LIBNAME)-config.cmake
	$(SUBST) -e 's|@SIZEOF_VOID_P@|$(SIZEOF_VOID_P)|g' scripts/hspmv-config-version.cmake.in > $(CMAKE_DIR)/$(LIBNAME)-config-version.cmake
	@set -e; $(foreach p,$(INST_PROGS),echo install $(BUILD)/bin/$(p) $(BIN_DIR)/$(call inst_name,$(p)); \
	  install -m 755 $(BUILD)/bin/$(p) $(BIN_DIR)/$(call inst_name,$(p));)
	@set -e; for f in $(SHARE_FILES); do mkdir -p $(SHARE_DIR)/$$(dirname $$f); \
	  if [ -x $$f ]; then m=755; else m=644; fi; install -m $$m $$f $(SHARE_DIR)/$$f; done
	@set -e; $(foreach f,$(EXAMPLE_FILES),mkdir -p $(dir $(SHARE_DIR)/$(call inst_example,$(f))); \
	  install -m 644 $(f) $(SHARE_DIR)/$(call inst_example,$(f));)
	@cat $(BUILD)/.made-dirs $(SHARE_DIR)/.made-dirs 2>/dev/null | sort -u > $(BUILD)/.made-dirs.all; \
	  mv $(BUILD)/.made-dirs.all $(SHARE_DIR)/.made-dirs && rm -f $(BUILD)/.made-dirs
	@echo "installed hspmv $(HSPMV_VERSION) ($(PRECISION)) into $(DESTDIR)$(PREFIX)"

# What install put there, and the folders it made that are then empty; the
# common share/hspmv tree, and the prefix's folders install made
# (share/hspmv/.made-dirs), only when the other precision is not installed.
OTHER_PC = $(LIB_DIR)/pkgconfig/hspmv$(if $(filter single,$(PRECISION)),,_single).pc
uninstall:
	rm -f $(LIB_DIR)/lib$(LIBNAME).a $(LIB_DIR)/$(notdir $(SHLIB_FILE)) $(LIB_DIR)/$(SONAME) $(LIB_DIR)/lib$(LIBNAME).so
	rm -f $(INC_DIR)/hspmv.h $(INC_DIR)/hspmv_config.h $(if $(CUDA),$(INC_DIR)/hspmv_gpu.h $(LIB_DIR)/lib$(LIBNAME)_gpu.a)
	rm -f $(LIB_DIR)/pkgconfig/$(LIBNAME).pc $(CMAKE_DIR)/$(LIBNAME)-config.cmake $(CMAKE_DIR)/$(LIBNAME)-config-version.cmake
	rm -f $(foreach p,$(INST_PROGS),$(BIN_DIR)/$(call inst_name,$(p)))
	rmdir $(CMAKE_DIR) $(if $(filter single,$(PRECISION)),$(INC_DIR)) 2>/dev/null || true
	@if [ -f $(OTHER_PC) ]; then echo "uninstall: $(SHARE_DIR) kept (the other precision is installed)"; \
	elif [ -d $(SHARE_DIR) ]; then echo "uninstall: removing $(SHARE_DIR) (scripts, examples, matrices)"; \
	  made=$$(cat $(SHARE_DIR)/.made-dirs 2>/dev/null); \
	  (cd $(SHARE_DIR) && rm -f .made-dirs $(SHARE_FILES) $(foreach f,$(EXAMPLE_FILES),$(call inst_example,$(f))) && \
	   for d in slurm scripts matrices examples/minimal examples/petsc examples; do \
	     if [ -d $$d ]; then rmdir $$d 2>/dev/null || true; fi; done) && \
	  { rmdir $(SHARE_DIR) 2>/dev/null || true; }; \
	  for d in $$(printf '%s\n' $$made | sort -r); do if [ -d $$d ]; then rmdir $$d 2>/dev/null || true; fi; done; fi
	@echo "uninstalled hspmv ($(PRECISION)) from $(DESTDIR)$(PREFIX)"

clean:
	rm -rf build $(PROGS) benchmark-light

# make help: every target a user runs, one line each (tests/scripts/test_make.sh
# checks that it names every target the README names).
.PHONY: help
help:
	@echo "usage: make [TARGET] [PRECISION=single] [PREFIX=DIR] [CUDA=1 [NVCC=PATH]] [V=1]"
	@echo "  all             (the default) the library and the programs, double precision"
	@echo "  programs        the programs, copied to the top level (benchmark-*, genmat, convert, solve)"
	@echo "  lib             libhspmv.a and libhspmv.so in build/<arch>-<precision>/"
	@echo "  shared          libhspmv.so alone"
	@echo "  run             the main job: run_all-mpi.sh on the bundled matrices, one rank per core"
	@echo "  deps            the Debian packages the build needs (installed as root, else the apt-get line)"
	@echo "  matrices        regenerate the bundled matrices (matrices/README.md)"
	@echo "  python          the Python package's extension modules, in place in python/"
	@echo "  install         the libraries, headers, pkg-config and CMake files, programs into PREFIX (/usr/local)"
	@echo "  uninstall       remove what install put into PREFIX, and the folders it made"
	@echo "  clean           remove build/ and the programs at the top level"
	@echo "  test            every test, both precisions; ends with \"N passed, N failed\""
	@echo "  test-all        make test with the repetitions it leaves out (more ranks, single precision)"
	@echo "  test-fresh      the quick start on a new minimal Debian 12 (mmdebstrap, as root)"
	@echo "  test-hostile    the hostile inputs: files, arguments and API calls"
	@echo "  test-one        one precision's unit tests (tests/test_*.c)"
	@echo "  test-mpi        the MPI tests at 1-8 ranks"
	@echo "  test-solver     the solvers' tests and ./solve"
	@echo "  test-programs   the programs with hostile arguments, files and outputs"
	@echo "  test-scripts    the run_all scripts, CSVs, scripts/plot, install and uninstall, the docs"
	@echo "  test-python     the Python package (pytest, and at 3 ranks)"
	@echo "  test-petsc      the PETSc MATSHELL example (needs petsc-dev)"
	@echo "  test-petsc-io   hspmv's PETSc binary files read by PETSc itself (needs petsc-dev)"
	@echo "  test-slurm      a real one-node Slurm job (root only)"
	@echo "  test-cluster    test-scripts, test-python, test-petsc and test-slurm, one after another"
	@echo "  test-aarch64    the NEON kernels, cross-compiled and run under qemu-aarch64"
	@echo "  test-cuda       the CUDA code compiled, and its tests, where nvcc is found"
	@echo "  sanitize        the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer"
	@echo "  fuzz            the Matrix Market reader under libFuzzer (clang; FUZZ_SECONDS=60)"
	@echo "  help            this list"
	@echo "  with CUDA=1 (gpu.mk): test-gpu, gpu-build-check, gpu-programs, gpu-nccl-status"

-include $(shell find $(BUILD) -name "*.d" 2>/dev/null)

