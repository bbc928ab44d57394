# petsc.mk — the check of hspmv's PETSc binary files against PETSc itself
# (tests/petsc_io), built when pkg-config finds PETSc and the precision is
# double (PETSc's scalars); included by the Makefile after mpi.mk.
PETSC_LIBS   := $(shell pkg-config --libs petsc 2>/dev/null)
# PETSc's headers as system headers: our warnings are not theirs
PETSC_CFLAGS := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags petsc 2>/dev/null))
PETSC_CHECK  := $(BUILD)/tests/petsc_io/petsc_check

ifneq ($(PETSC_LIBS),)
ifeq ($(PRECISION),double)
$(PETSC_CHECK): tests/petsc_io/petsc_check.c $(BUILD)/include/hspmv_config.h $(TEST_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(MPI_CPPFLAGS) -Itests $(PETSC_CFLAGS) $(CFLAGS) $< $(TEST_LIB) $(LIB) $(PETSC_LIBS) $(MPI_LDLIBS) $(LDLIBS) -o $@
EXTRA_TEST_DEPS += $(PETSC_CHECK)
endif
endif
TEST_SUITES_double += petsc-io

.PHONY: test-petsc-io
test-petsc-io: $(if $(and $(PETSC_LIBS),$(filter double,$(PRECISION))),$(PETSC_CHECK))
	@sh tests/petsc_io/run.sh --record $(BUILD)/results-petsc-io.txt $(BUILD)
