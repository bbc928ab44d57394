# cluster.mk — the suites `make test` runs once, on the double-precision
# build, beside every precision's unit, MPI and solver tests: the run_all
# scripts, scripts/plot, the installed header's size, the sources' rules, the
# job scripts' --help, and make install and uninstall of both precisions side
# by side (tests/scripts), the Python package (tests/python, python.mk), the
# PETSc example (tests/petsc) and a real one-node Slurm (tests/slurm: root
# only, SKIPPED otherwise).
# Each records "P F S" in $(BUILD)/results-*.txt for the closing summary.
# Included by the Makefile unless NO_MPI is set.
#   SLURM_TEST_TIMEOUT  seconds for the whole Slurm suite (default 900)

SLURM_TEST_TIMEOUT ?= 900
TEST_SUITES_once += scripts python petsc slurm
.PHONY: test-cluster test-scripts test-petsc test-slurm

# the four one after another (make test runs them side by side with the rest)
test-cluster:
	@$(MAKE) --no-print-directory test-scripts
	@$(MAKE) --no-print-directory test-python
	@$(MAKE) --no-print-directory test-petsc
	@$(MAKE) --no-print-directory test-slurm

test-scripts: programs
	@HSPMV_BUILD=$(BUILD) sh tests/run.sh --record $(BUILD)/results-scripts.txt \
	  tests/scripts/test_run_all.sh tests/scripts/test_csv_schema.sh tests/scripts/test_plot.sh tests/scripts/test_header.sh \
	  tests/scripts/test_script_help.sh tests/scripts/test_make.sh tests/scripts/test_readme.sh \
	  tests/scripts/test_sources.sh tests/scripts/test_install.sh tests/scripts/test_docs.sh

test-petsc: programs
	@HSPMV_MAKE="$(MAKE)" sh tests/petsc/run.sh --record $(BUILD)/results-petsc.txt $(BUILD)

test-slurm: programs
	@timeout -k 200 $(SLURM_TEST_TIMEOUT) sh tests/slurm/run.sh --record $(BUILD)/results-slurm.txt $(BUILD); \
	  rc=$$?; if [ $$rc = 124 ] || [ $$rc = 137 ]; then \
	    echo "slurm: the suite ran past $(SLURM_TEST_TIMEOUT) s"; echo "0 1 0" > $(BUILD)/results-slurm.txt; fi
