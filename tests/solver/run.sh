#!/bin/sh
# run.sh — the solver tests: tests/solver/test_* under mpirun at each rank
# count, ./solve's exit status and output, and the out-of-tree build of
# examples/minimal against `make install` + pkg-config (C and C++) and the
# installed CMake package (find_package(hspmv)); records
# "P F S" like tests/run.sh.
#   run.sh [--record FILE] BUILD
# SOLVER_TEST_RANKS (default "1 2 3 4"), SOLVER_TEST_TIMEOUT (seconds per
# mpirun, default 300), HSPMV_MAKE (the make to install with, default make).
set -u
. "$(dirname "$0")/../counts.sh"
record=""
if [ "${1:-}" = "--record" ]; then record=$2; shift 2; fi
build=${1:?usage: run.sh [--record FILE] BUILD}
ranks=${SOLVER_TEST_RANKS:-1 2 3 4}
tmo=${SOLVER_TEST_TIMEOUT:-300}
P=0; F=0; S=0

# More ranks than cores: one thread per rank, and ranks that wait yield the
# core instead of spinning (otherwise 4 ranks on 2 cores crawl).
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN="mpirun --oversubscribe --bind-to none"
if [ "$(id -u)" = 0 ]; then
    MPIRUN="$MPIRUN --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
pass() { P=$((P + 1)); echo "ok   $1"; }
fail() { F=$((F + 1)); echo "FAIL $1"; }
record_and_exit() {
    if [ -n "$record" ]; then mkdir -p "$(dirname "$record")"; echo "$P $F $S" > "$record"; fi
    echo "solver: $P passed, $F failed, $S skipped"
    [ -n "$record" ] || [ "$F" -eq 0 ]
    exit $?
}
if ! command -v mpirun >/dev/null 2>&1; then
    echo "solver: mpirun not found: solver tests NOT run"; F=1; record_and_exit
fi
out=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$out" "$tmp"' EXIT

# 1. the test programs at each rank count
for p in $ranks; do
    for bin in "$build"/tests/solver/test_*; do
        [ -x "$bin" ] || continue
        name=$(basename "$bin")
        start=$(date +%s)
        timeout "$tmo" $MPIRUN -n "$p" "$bin" > "$out" 2>&1
        rc=$?
        secs=$(( $(date +%s) - start ))
        tally "$name at $p ranks" "$rc" "$out"
        echo "   $name ranks=$p: $p1 passed, $f1 failed, $s1 skipped (${secs}s)"
        P=$((P + p1)); F=$((F + f1)); S=$((S + s1))
    done
done

# 2. ./solve: converges with exit 0 and reports what it should; a too-small
#    --maxit exits non-zero with the status on rank 0's stderr
solve=$build/bin/solve
if timeout 120 $MPIRUN -n 3 "$solve" matrices/lap3d_12.mtx --partition metis > "$out" 2>&1 &&
   grep -q '^  status: converged' "$out" && grep -q 'error vs x\* = 1' "$out" && grep -q 'spmv share' "$out" &&
   grep -q '^bench=solve .*status=0' "$out"; then pass "solve_lap3d_metis_3_ranks_converges"
else fail "solve_lap3d_metis_3_ranks_converges"; cat "$out"; fi
timeout 120 $MPIRUN -n 2 "$solve" matrices/lap2d_64.mtx --maxit 3 > "$out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$(grep -c '^solve: error: .*no convergence in 3 iterations' "$out")" = 1 ]; then
    pass "solve_too_small_maxit_exits_nonzero_with_message"
else fail "solve_too_small_maxit_exits_nonzero_with_message (exit $rc)"; cat "$out"; fi
sm=${HSPMV_SHARED_MATRICES:-../shared/matrices}
if [ -f "$sm/e05r0000_rhs1.mtx" ]; then
    if [ "$(sed -n 's/^#define HSPMV_SINGLE.*/1/p' "$build/include/hspmv_config.h")" = 1 ]; then
        S=$((S + 1)); echo "skip solve_e05r0000_rhs_bicgstab (cond too large for single precision)"
    elif timeout 120 $MPIRUN -n 4 "$solve" "$sm/e05r0000.mtx" --rhs "$sm/e05r0000_rhs1.mtx" --method bicgstab \
         --maxit 5000 > "$out" 2>&1 && grep -q '^  status: converged' "$out"; then
        pass "solve_e05r0000_rhs_bicgstab_4_ranks"
    else fail "solve_e05r0000_rhs_bicgstab_4_ranks"; cat "$out"; fi
else S=$((S + 1)); echo "skip solve_e05r0000_rhs_bicgstab ($sm missing)"; fi

# 3. out of tree: install this build's precision (hspmv, or hspmv_single),
#    then build the example and a C++ file with nothing but pkg-config (the
#    shared library: found through LD_LIBRARY_PATH), and run the example at 2 ranks
prec=double; pkg=hspmv
if grep -q '^#define HSPMV_SINGLE' "$build/include/hspmv_config.h" 2> /dev/null; then prec=single; pkg=hspmv_single; fi
if ${HSPMV_MAKE:-make} --no-print-directory -s install PRECISION=$prec PREFIX="$tmp/prefix" > "$out" 2>&1; then
    export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
    export LD_LIBRARY_PATH="$tmp/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    flags=$(pkg-config --cflags --libs $pkg)
    cp examples/minimal/minimal.c "$tmp/minimal.c"
    if (cd "$tmp" && mpicc -std=c11 minimal.c $flags -o minimal) > "$out" 2>&1 &&
       timeout 60 $MPIRUN -n 2 "$tmp/minimal" 64 > "$out" 2>&1 && grep -q ': ok$' "$out"; then
        pass "out_of_tree_pkg_config_build_of_minimal_runs_at_2_ranks"
    else fail "out_of_tree_pkg_config_build_of_minimal_runs_at_2_ranks (flags: $flags)"; cat "$out"; fi
    if command -v mpicxx >/dev/null 2>&1; then
        cat > "$tmp/use.cpp" <<'CPP'
// C++ use of the installed header: extern "C" linkage and the MPI section.
#include <hspmv.h>
#include <cstdio>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    hspmv_solver_opts o;
    hspmv_solver_opts_default(&o);
    hspmv_dist *D = nullptr;
    hspmv_dist_destroy(&D);
    std::printf("c++: tol %g, %s\n", o.tol, hspmv_strerror(HSPMV_ERR_NOCONV));
    MPI_Finalize();
    return 0;
}
CPP
        # hspmv.h alone, then <mpi.h> first (a C++ caller's workaround while
        # hspmv.h includes <mpi.h> inside its extern "C" block, which breaks
        # Open MPI's C++ bindings)
        for pre in "" "mpi_first"; do
            if [ -n "$pre" ]; then printf '#include <mpi.h>\n' > "$tmp/use2.cpp"; else : > "$tmp/use2.cpp"; fi
            cat "$tmp/use.cpp" >> "$tmp/use2.cpp"
            t="cxx_program_including_hspmv_h${pre:+_after_mpi_h}_builds_and_runs"
            if (cd "$tmp" && mpicxx use2.cpp $flags -o use) > "$out" 2>&1 &&
               timeout 60 $MPIRUN -n 1 "$tmp/use" > "$out" 2>&1 && grep -q 'did not converge' "$out"; then
                pass "$t"
            else fail "$t"; grep -m3 -E 'error|undefined' "$out"; fi
        done
    else S=$((S + 1)); echo "skip cxx_program_builds (no mpicxx)"; fi
    # the same example through the installed CMake package (find_package,
    # hspmv::hspmv) with the plain C compiler: MPI, OpenMP, METIS and zlib
    # must all come from the package; a version it is not must be refused
    if command -v cmake >/dev/null 2>&1; then
        if (cmake -S examples/minimal -B "$tmp/cmake-minimal" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DHSPMV_PACKAGE=$pkg &&
            cmake --build "$tmp/cmake-minimal") > "$out" 2>&1 &&
           timeout 60 $MPIRUN -n 2 "$tmp/cmake-minimal/minimal" 64 > "$out" 2>&1 && grep -q ': ok$' "$out"; then
            pass "out_of_tree_cmake_find_package_${pkg}_build_of_minimal_runs_at_2_ranks"
        else fail "out_of_tree_cmake_find_package_build_of_minimal_runs_at_2_ranks"; tail -30 "$out"; fi
        mkdir -p "$tmp/cmake-v99"
        printf 'cmake_minimum_required(VERSION 3.13)\nproject(v LANGUAGES C)\nfind_package(%s 99 REQUIRED)\n' $pkg \
            > "$tmp/cmake-v99/CMakeLists.txt"
        if ! cmake -S "$tmp/cmake-v99" -B "$tmp/cmake-v99/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$out" 2>&1 &&
           grep -q 'version: 0\.' "$out"; then
            pass "cmake_find_package_${pkg}_99_is_refused_naming_the_installed_version"
        else fail "cmake_find_package_${pkg}_99_is_refused_naming_the_installed_version"; tail -20 "$out"; fi
    else S=$((S + 2)); echo "skip out-of-tree CMake build (no cmake)"; fi
else fail "make install PREFIX=$tmp/prefix"; cat "$out"; fi
record_and_exit
