# gpu.mk — the GPU path (one GPU, and several with one rank each), included by the Makefile when CUDA=1:
#   make CUDA=1                   also builds libhspmv_gpu.a and ./benchmark-light
#   make CUDA=1 test-gpu          GPU tests, both precisions (skip cleanly without a GPU)
#   make CUDA=1 gpu-build-check   compiles and links all GPU code, both precisions, runs nothing (CI)
#   make CUDA=1 install           also installs libhspmv_gpu.a and hspmv_gpu.h
#   make CUDA=1 gpu-programs      also benchmark-mpi and solve with --gpu (several GPUs, one rank
#                                 each), built as $(BUILD)/bin/gpu/* and copied to the top level
# NCCL: used when nccl.h and libnccl are found under NCCL_HOME (default: the CUDA folder, then
# /usr); NCCL=0 builds without it. The build says which (make CUDA=1 gpu-nccl-status).
# Compiled for sm_90 (H100/H200) with compute_90 PTX for the driver to JIT on later chips;
# CUDA_GENCODE overrides, e.g. CUDA_GENCODE="-gencode=arch=compute_80,code=sm_80".

NVCC         ?= /usr/local/cuda/bin/nvcc
# No nvcc: one line now, before anything is compiled (clean, help and
# uninstall need none).
ifeq ($(shell command -v $(NVCC) 2>/dev/null),)
  ifneq ($(filter-out clean help uninstall,$(or $(MAKECMDGOALS),all)),)
    $(error CUDA=1: nvcc not found at '$(NVCC)'; install the CUDA toolkit, or point at it: make CUDA=1 NVCC=/path/to/bin/nvcc)
  endif
endif
CUDA_HOME    ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_GENCODE ?= -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90
NVCCFLAGS    ?= -O3 -lineinfo
NVCCFLAGS    += -std=c++17 $(CUDA_GENCODE) -Xcompiler -Wall,-Wextra,-fopenmp -MMD -MP
ifneq ($(CI),)
  NVCCFLAGS  += -Werror all-warnings
endif
CUDA_LDLIBS  := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcusparse -lcudart -lstdc++ -ldl -lpthread

GPU_SRC      := $(wildcard src/gpu/*.cu)
GPU_OBJ      := $(GPU_SRC:%.cu=$(BUILD)/obj/%.o)

# NCCL for the several-GPU halo: found beside CUDA or in /usr, unless NCCL=0.
NCCL         ?= 1
NCCL_HOME    ?= $(firstword $(foreach d,$(CUDA_HOME) /usr,$(if $(wildcard $(d)/include/nccl.h),$(d))))
NCCL_LIBDIR  := $(firstword $(foreach l,lib64 lib lib/x86_64-linux-gnu lib/aarch64-linux-gnu,$(if $(wildcard $(NCCL_HOME)/$(l)/libnccl.so*),$(NCCL_HOME)/$(l))))
HAVE_NCCL    := $(if $(filter 1,$(NCCL)),$(if $(and $(NCCL_HOME),$(NCCL_LIBDIR)),1))
NCCL_FLAGS   := $(if $(HAVE_NCCL),-DHSPMV_NCCL -isystem $(NCCL_HOME)/include)
NCCL_RPATH   := -Wl,-rpath,$(NCCL_LIBDIR)
NCCL_LDLIBS  := $(if $(HAVE_NCCL),-L$(NCCL_LIBDIR) $(NCCL_RPATH) -lnccl)

# The several-GPU path: plain C files in src/gpu that call MPI (and NCCL) and
# launch the .cu kernels; compiled with $(MPICC), not in NO_MPI builds.
ifeq ($(NO_MPI),)
GPU_C_SRC    := $(wildcard src/gpu/*.c)
GPU_C_OBJ    := $(GPU_C_SRC:%.c=$(BUILD)/gpuobj/%.o)
endif
GPU_C_FLAGS   = $(MPI_CPPFLAGS) $(MPI_INC) -Isrc/gpu -isystem $(CUDA_HOME)/include $(NCCL_FLAGS)
GPU_LIB      := $(BUILD)/libhspmv_gpu.a
GPU_CPPFLAGS := -Isrc/gpu -I$(CUDA_HOME)/include

GPU_TEST_SRC := $(wildcard tests/gpu/test_*.c)
GPU_TEST_BIN := $(GPU_TEST_SRC:tests/gpu/%.c=$(BUILD)/tests/gpu/%)
GPU_RESULTS  := $(BUILD)/test-gpu-results.txt

.PHONY: gpu-lib gpu-programs test-gpu test-gpu-one gpu-build-check gpu-build-one gpu-clean gpu-nccl-status gpu-nonccl-check
all: gpu-programs
clean: gpu-clean

$(BUILD)/obj/src/gpu/%.o: src/gpu/%.cu $(BUILD)/include/hspmv_config.h
	@mkdir -p $(dir $@)
	$(NVCC) $(CPPFLAGS) $(GPU_CPPFLAGS) $(NVCCFLAGS) -c $< -o $@

# C files that call the GPU API see its header (no CUDA headers needed).
$(BUILD)/obj/bench/benchmark_light.o: CPPFLAGS += $(GPU_CPPFLAGS)
$(BUILD)/obj/tests/gpu/%.o: CPPFLAGS += $(GPU_CPPFLAGS) -Itests

gpu-lib: $(GPU_LIB)
# make CUDA=1 install also installs the GPU library and hspmv_gpu.h (Makefile)
install: $(GPU_LIB)
$(GPU_LIB): $(GPU_OBJ) $(GPU_C_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bin/benchmark-light: $(BUILD)/obj/bench/benchmark_light.o $(BENCH_LIB) $(GPU_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) $(CUDA_LDLIBS) -o $@

# The MPI programs with --gpu: their own objects (-DHSPMV_CUDA), so that a
# build without CUDA=1 in the same folder keeps programs that refuse --gpu.
$(BUILD)/gpuobj/%.o: %.c $(BUILD)/include/hspmv_config.h
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(GPU_C_FLAGS) -DHSPMV_CUDA $(CFLAGS) -c $< -o $@

ifeq ($(NO_MPI),)
GPU_MPI_PROGS   := $(BUILD)/bin/gpu/benchmark-mpi $(BUILD)/bin/gpu/solve
GPU_MPI_PROGOBJ := $(BUILD)/gpuobj/bench/mpi_gpu.o $(BUILD)/mpiobj/bench/mpi_gen.o \
                   $(BUILD)/mpiobj/bench/mpi_prog.o $(BUILD)/mpiobj/bench/mpi_check.o
GPU_LINK         = $(MPICC) $(CFLAGS) $(LDFLAGS) $^ $(MPI_LDLIBS) $(LDLIBS) $(CUDA_LDLIBS) $(NCCL_LDLIBS) -o $@
$(BUILD)/bin/gpu/benchmark-mpi: $(BUILD)/gpuobj/bench/benchmark_mpi.o $(GPU_MPI_PROGOBJ) $(BENCH_LIB) $(GPU_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(GPU_LINK)
$(BUILD)/bin/gpu/solve: $(BUILD)/gpuobj/bench/solve.o $(BUILD)/mpiobj/bench/solve_model.o $(GPU_MPI_PROGOBJ) $(BENCH_LIB) $(GPU_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(GPU_LINK)

# The several-GPU test: one MPI program, run at 1, 2 and 4 ranks and 2 ranks
# on one GPU by tests/gpu/run_dist.sh (skips without a GPU).
GPU_DIST_TEST := $(BUILD)/tests/gpu/mpi_gpu_dist
$(GPU_DIST_TEST): $(BUILD)/gpuobj/tests/gpu/mpi_gpu_dist.o $(TEST_LIB) $(GPU_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(GPU_LINK)
$(BUILD)/gpuobj/tests/gpu/%.o: CPPFLAGS += -Itests/mpi
endif

# Top-level copies follow whichever precision was built last, like the others.
gpu-programs: $(BUILD)/bin/benchmark-light $(GPU_MPI_PROGS)
	@cmp -s $< benchmark-light || cp $< benchmark-light
	@for p in $(GPU_MPI_PROGS); do b=$$(basename $$p); cmp -s $$p $$b || { cp $$p $$b.tmp && mv -f $$b.tmp $$b; } || exit 1; done

gpu-nccl-status:
	@echo "NCCL: $(if $(HAVE_NCCL),found ($(NCCL_HOME)/include/nccl.h, $(NCCL_LIBDIR)): --gpu-comm nccl built,$(if $(filter 1,$(NCCL)),not found (no nccl.h and libnccl under $(CUDA_HOME) or /usr),off (NCCL=0)): built without it; --gpu-comm nccl refuses)"

$(BUILD)/tests/gpu/%: $(BUILD)/obj/tests/gpu/%.o $(TEST_LIB) $(GPU_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) $(CUDA_LDLIBS) -o $@

test-gpu-one: $(GPU_TEST_BIN) $(GPU_DIST_TEST)
	@sh tests/run.sh --record $(GPU_RESULTS) $(GPU_TEST_BIN)
	@$(if $(GPU_DIST_TEST),sh tests/gpu/run_dist.sh --record $(GPU_RESULTS) $(GPU_DIST_TEST))

test-gpu:
	@rm -f build/*/test-gpu-results.txt
	@$(MAKE) --no-print-directory CUDA=1 PRECISION=double test-gpu-one
	@$(MAKE) --no-print-directory CUDA=1 PRECISION=single test-gpu-one
	@$(MAKE) --no-print-directory CUDA=1 gpu-programs
	@sh tests/run.sh --summary build/*/test-gpu-results.txt

gpu-build-one: $(GPU_LIB) $(BUILD)/bin/benchmark-light $(GPU_TEST_BIN) $(GPU_MPI_PROGS) $(GPU_DIST_TEST)

# The several-GPU C files also compile without NCCL (syntax and warnings only).
gpu-nonccl-check: $(BUILD)/include/hspmv_config.h
	$(if $(GPU_C_SRC),@for f in $(GPU_C_SRC); do $(MPICC) $(filter-out -DHSPMV_NCCL,$(GPU_C_FLAGS)) $(CFLAGS) -fsyntax-only $$f || exit 1; done)

gpu-build-check:
	@$(MAKE) --no-print-directory CUDA=1 PRECISION=double gpu-nonccl-check
	@$(MAKE) --no-print-directory CUDA=1 PRECISION=double gpu-build-one
	@$(MAKE) --no-print-directory CUDA=1 PRECISION=single gpu-build-one
	@$(MAKE) --no-print-directory CUDA=1 gpu-nccl-status
	@echo "gpu-build-check: GPU library, benchmark-light, benchmark-mpi/solve --gpu and tests compile and link (both precisions; nothing run)"

gpu-clean:
	rm -f benchmark-light
