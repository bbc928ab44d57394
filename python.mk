# python.mk — the Python package (python/): `make python` builds its two
# extension modules in place against this tree's libhspmv.so and
# libhspmv_single.so (both built first); `make test-python` runs its tests
# (tests/python/run.sh; test-cluster runs it once). Included by the Makefile
# unless NO_MPI is set. PYTHON: the interpreter with Debian's NumPy, SciPy and
# mpi4py (default /usr/bin/python3).
PYTHON ?= /usr/bin/python3
.PHONY: python test-python

python:
	@$(MAKE) --no-print-directory PRECISION=double shared
	@$(MAKE) --no-print-directory PRECISION=single shared
	@cd python && $(PYTHON) setup.py -q build_ext --inplace

test-python:
	@HSPMV_MAKE="$(MAKE)" HSPMV_PYTHON=$(PYTHON) sh tests/python/run.sh --record $(BUILD)/results-python.txt
