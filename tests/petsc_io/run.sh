#!/bin/sh
# run.sh — hspmv's PETSc binary files against PETSc itself: petsc_check
# under mpirun at 1 and 2 ranks on the shared and the bundled matrices;
# records "P F S" like tests/run.sh. Without PETSc (pkg-config) or in a
# single-precision build it records one skip and says why.
#   run.sh [--record FILE] BUILD
# PETSC_TEST_RANKS (default "1 2"), PETSC_TEST_TIMEOUT (seconds, default 300).
set -u
. "$(dirname "$0")/../counts.sh"
record=""
if [ "${1:-}" = "--record" ]; then record=$2; shift 2; fi
build=${1:?usage: run.sh [--record FILE] BUILD}
bin=$build/tests/petsc_io/petsc_check
P=0; F=0; S=0
record_and_exit() {
    if [ -n "$record" ]; then mkdir -p "$(dirname "$record")"; echo "$P $F $S" > "$record"; fi
    echo "petsc_io: $P passed, $F failed, $S skipped"
    [ -n "$record" ] || [ "$F" -eq 0 ]
    exit $?
}
if [ ! -x "$bin" ]; then
    if ! pkg-config --exists petsc 2>/dev/null; then why="PETSc not found by pkg-config (Debian: petsc-dev)"
    else why="this build is not double precision (PETSc's scalars are)"; fi
    echo "skip petsc_check: $why"
    S=1; record_and_exit
fi
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN="mpirun --oversubscribe --bind-to none"
if [ "$(id -u)" = 0 ]; then
    MPIRUN="$MPIRUN --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mats=$(ls matrices/suitesparse/*.mtx matrices/*.mtx)
out=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$out" "$tmp"' EXIT
for p in ${PETSC_TEST_RANKS:-1 2}; do
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${PETSC_TEST_TIMEOUT:-300}" $MPIRUN -n "$p" "$bin" "$tmp" $mats > "$out" 2>&1
    rc=$?
    tally "petsc_check at $p ranks" "$rc" "$out"
    echo "   petsc_check ranks=$p: $p1 passed, $f1 failed, $s1 skipped ($(( $(date +%s) - start ))s)"
    P=$((P + p1)); F=$((F + f1)); S=$((S + s1))
done
record_and_exit
