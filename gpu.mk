# gpu.mk — the single-GPU path, included by the Makefile when CUDA=1:
#   make CUDA=1                   also builds libhspmv_gpu.a and ./benchmark-light
#   make CUDA=1 test-gpu          GPU tests, both precisions (skip cleanly without a GPU)
#   make CUDA=1 gpu-build-check   compiles and links all GPU code, both precisions, runs nothing (CI)
#   make CUDA=1 install           also installs libhspmv_gpu.a and hspmv_gpu.h
# Compiled for sm_90 (H100/H200) with compute_90 PTX for the driver to JIT on later chips;
# CUDA_GENCODE overrides, e.g. CUDA_GENCODE="-gencode=arch=compute_80,code=sm_80".

NVCC         ?= /usr/local/cuda/bin/nvcc
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
GPU_LIB      := $(BUILD)/libhspmv_gpu.a
GPU_CPPFLAGS := -Isrc/gpu -I$(CUDA_HOME)/include

GPU_TEST_SRC := $(wildcard tests/gpu/test_*.c)
GPU_TEST_BIN := $(GPU_TEST_SRC:tests/gpu/%.c=$(BUILD)/tests/gpu/%)
GPU_RESULTS  := $(BUILD)/test-gpu-results.txt

.PHONY: gpu-lib gpu-programs test-gpu test-gpu-one gpu-build-check gpu-build-one gpu-clean
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
$(GPU_LIB): $(GPU_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bin/benchmark-light: $(BUILD)/obj/bench/benchmark_light.o $(BENCH_LIB) $(GPU_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) $(CUDA_LDLIBS) -o $@

# Top-level copy follows whichever precision was built last, like the others.
gpu-programs: $(BUILD)/bin/benchmark-light
	@cmp -s $< benchmark-light || cp $< benchmark-light

$(BUILD)/tests/gpu/%: $(BUILD)/obj/tests/gpu/%.o $(TEST_LIB) $(GPU_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) $(CUDA_LDLIBS) -o $@

test-gpu-one: $(GPU_TEST_BIN)
	@sh tests/run.sh --record $(GPU_RESULTS) $(GPU_TEST_BIN)

test-gpu:
	@rm -f build/*/test-gpu-results.txt
	@$(MAKE) --no-print-directory CUDA=1 PRECISION=double test-gpu-one
	@$(MAKE) --no-print-directory CUDA=1 PRECISION=single test-gpu-one
	@$(MAKE) --no-print-directory CUDA=1 gpu-programs
	@sh tests/run.sh --summary build/*/test-gpu-results.txt

gpu-build-one: $(GPU_LIB) $(BUILD)/bin/benchmark-light $(GPU_TEST_BIN)

gpu-build-check:
	@$(MAKE) --no-print-directory CUDA=1 PRECISION=double gpu-build-one
	@$(MAKE) --no-print-directory CUDA=1 PRECISION=single gpu-build-one
	@echo "gpu-build-check: GPU library, benchmark-light and tests compile and link (both precisions; nothing run)"

gpu-clean:
	rm -f benchmark-light
