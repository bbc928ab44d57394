#!/bin/sh
# run.sh — the solver tests: tests/solver/test_* under mpirun at each rank
# count (test_diag and test_fused at 5 too), ./solve's exit status, output, reasons and
# --out file, solve --method lsqr/cgls against SciPy (lsqr_scipy.py; skipped
# without NumPy and SciPy), and the out-of-tree build of
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

# 1. the test programs at each rank count; test_diag also at 5 ranks (its
#    paths split 1728 rows five ways, one rank's rows in two blocks' columns),
#    and test_fused (the methods against their unfused references, 1-5 ranks)
extra=5
case " $ranks " in *" 5 "*) extra="" ;; esac
for p in $ranks $extra; do
    for bin in "$build"/tests/solver/test_*; do
        [ -x "$bin" ] || continue
        case " $ranks " in *" $p "*) ;; *) case $(basename "$bin") in test_diag|test_fused) ;; *) continue ;; esac ;; esac
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
# pipecg: CG's iterations (within 5%) with Jacobi; the byte model and the
# standalone product beside the solver's in both lines
its_of() { sed -n 's/^bench=solve .* iterations=\([0-9]*\) .*/\1/p' "$1"; }
if timeout 120 $MPIRUN -n 3 "$solve" matrices/lap3d_12.mtx --jacobi --reps 2 > "$tmp/cg.txt" 2>&1 &&
   timeout 120 $MPIRUN -n 3 "$solve" matrices/lap3d_12.mtx --jacobi --reps 2 --method pipecg > "$out" 2>&1 &&
   grep -q '^  method pipecg + jacobi' "$out" && grep -q '^  status: converged' "$out" &&
   c=$(its_of "$tmp/cg.txt") && q=$(its_of "$out") && [ -n "$c" ] && [ -n "$q" ] &&
   [ $(( (q - c) * (q - c) * 400 )) -le $(( c * c + 1600 )) ] &&
   grep -q '^  byte model per iteration: 1 product(s) x .* 20+0 vector passes' "$out" &&
   grep -q '^  byte model per iteration: 1 product(s) x .* 13+0 vector passes' "$tmp/cg.txt" &&
   grep -q '^  product in the solver .* standalone on the same matrix and layout' "$out" &&
   grep -q '^bench=solve .*method=pipecg .* reps=2 .*spmv_alone_ms=[0-9.e+-]* .*frac_model=[0-9.]*' "$out"; then
    pass "solve_pipecg_jacobi_cg_iterations_and_byte_model"
else fail "solve_pipecg_jacobi_cg_iterations_and_byte_model"; cat "$tmp/cg.txt" "$out"; fi
timeout 120 $MPIRUN -n 2 "$solve" matrices/lap2d_64.mtx --maxit 3 > "$out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$(grep -c '^solve: error: .*no convergence in 3 iterations' "$out")" = 1 ]; then
    pass "solve_too_small_maxit_exits_nonzero_with_message"
else fail "solve_too_small_maxit_exits_nonzero_with_message (exit $rc)"; cat "$out"; fi
# the stopping reason by name in the line, the numeric status beside it
if grep -q '^bench=solve .* status=8 iterations=3 reason=DIVERGED_ITS ' "$out" &&
   grep -q '^  status: did not converge (DIVERGED_ITS)' "$out"; then pass "solve_maxit_3_reports_reason_DIVERGED_ITS"
else fail "solve_maxit_3_reports_reason_DIVERGED_ITS"; cat "$out"; fi
# --out: x in the file ordering as a Matrix Market array. A manufactured
# problem checked without SciPy: x*_i = 1 + (i mod 7)/8, b = A x* computed
# here by awk from the file, solved with METIS renumbering at 3 ranks; each
# x_i within 0.03 of x*_i (the CG error bound at tol 1e-5 is 0.02, a row out
# of place is off by 1/8 or more); then the project's reader takes x.mtx
# back (as --rhs)
rm -f "$tmp/x.mtx"
awk '/^%/ { next } !h { h = 1; n = $1; next } { b[$1] += $3 * (1 + (($2 - 1) % 7) / 8) }
     END { print "%%MatrixMarket matrix array real general"; print n, 1; for (i = 1; i <= n; i++) printf "%.17g\n", b[i] }' \
    matrices/lap2d_64.mtx > "$tmp/b.mtx"
if timeout 120 $MPIRUN -n 3 "$solve" matrices/lap2d_64.mtx --rhs "$tmp/b.mtx" --partition metis --out "$tmp/x.mtx" \
       > "$out" 2>&1 &&
   awk 'NR == 1 { ok = ($0 == "%%MatrixMarket matrix array real general") }
        NR == 2 { ok = ok && ($1 == 4096 && $2 == 1) }
        NR > 2  { d = $1 - (1 + (n % 7) / 8); n++; if (d < 0) d = -d; if (!(d <= 0.03)) ok = 0 }
        END     { exit !(ok && n == 4096) }' "$tmp/x.mtx" &&
   timeout 120 $MPIRUN -n 2 "$solve" matrices/lap2d_64.mtx --rhs "$tmp/x.mtx" --tol 1e-4 > "$out" 2>&1 &&
   grep -q '^  status: converged' "$out"; then pass "solve_out_writes_x_in_file_order_and_reads_back"
else fail "solve_out_writes_x_in_file_order_and_reads_back"; cat "$out"; head -3 "$tmp/x.mtx" 2> /dev/null; fi
# Jacobi CG on a matrix read in parallel: the diagonal comes from the matrix's
# own blocks (hspmv_dist_get_diagonal), no rank holds the file's matrix
if timeout 120 $MPIRUN -n 3 "$solve" matrices/lap3d_12.mtx --read parallel --jacobi > "$out" 2>&1 &&
   grep -q '^bench=solve .* jacobi=1 .* status=0 iterations=[0-9]* reason=CONVERGED_RTOL ' "$out"; then
    pass "solve_jacobi_cg_read_parallel_converges"
else fail "solve_jacobi_cg_read_parallel_converges"; cat "$out"; fi
# a rectangular matrix: cg refused naming the way out; --jacobi with lsqr refused
printf '%%%%MatrixMarket matrix coordinate real general\n4 3 5\n1 1 2\n2 2 3\n3 3 4\n4 1 1\n4 3 1\n' > "$tmp/rect.mtx"
timeout 60 $MPIRUN -n 2 "$solve" "$tmp/rect.mtx" > "$out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
   [ "$(grep -c '^solve: error: cg needs a square matrix, this one is 4 x 3: use --method cgls or lsqr' "$out")" = 1 ]; then
    pass "solve_cg_on_rectangular_matrix_says_use_cgls_or_lsqr"
else fail "solve_cg_on_rectangular_matrix_says_use_cgls_or_lsqr (exit $rc)"; cat "$out"; fi
timeout 60 $MPIRUN -n 2 "$solve" "$tmp/rect.mtx" --method lsqr --jacobi > "$out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q 'jacobi is for cg, pipecg and bicgstab' "$out"; then
    pass "solve_lsqr_jacobi_refused"
else fail "solve_lsqr_jacobi_refused (exit $rc)"; cat "$out"; fi
# LSQR and CGLS against SciPy's lsqr (skipped without numpy/scipy): the
# Debian python3 has them where a python3 earlier on PATH may not
py=""
for c in /usr/bin/python3 python3; do
    if command -v "$c" > /dev/null 2>&1 && "$c" -c 'import numpy, scipy.sparse.linalg' 2> /dev/null; then py=$c; break; fi
done
[ -n "$py" ] || py=$(command -v python3 || true)
if [ -z "$py" ]; then S=$((S + 1)); echo "skip lsqr_against_scipy (no python3)"
else
    prec_arg=""
    grep -q '^#define HSPMV_SINGLE' "$build/include/hspmv_config.h" 2> /dev/null && prec_arg=single
    start=$(date +%s)
    timeout 600 "$py" tests/solver/lsqr_scipy.py "$solve" "$tmp" "$MPIRUN" $prec_arg > "$out" 2>&1
    rc=$?
    tally "lsqr_scipy.py" "$rc" "$out"
    echo "   lsqr_scipy.py: $p1 passed, $f1 failed, $s1 skipped ($(( $(date +%s) - start ))s)"
    P=$((P + p1)); F=$((F + f1)); S=$((S + s1))
fi
sm=matrices/suitesparse
if [ "$(sed -n 's/^#define HSPMV_SINGLE.*/1/p' "$build/include/hspmv_config.h")" = 1 ]; then
        S=$((S + 1)); echo "skip solve_e05r0000_rhs_bicgstab (cond too large for single precision)"
    elif timeout 120 $MPIRUN -n 4 "$solve" "$sm/e05r0000.mtx" --rhs "$sm/e05r0000_rhs1.mtx" --method bicgstab \
         --maxit 5000 > "$out" 2>&1 && grep -q '^  status: converged' "$out"; then
        pass "solve_e05r0000_rhs_bicgstab_4_ranks"
    else fail "solve_e05r0000_rhs_bicgstab_4_ranks"; cat "$out"; fi

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
