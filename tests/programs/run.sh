#!/bin/sh
# run.sh — the programs as a user runs them: what benchmark-omp measures by
# default, and hostile input (absurd arguments, files, sizes, unwritable
# output) answered with one clear error and a non-zero exit, never a signal
# or a hang; records "P F S" like tests/run.sh.
#   run.sh [--record FILE] BUILD
# PROGRAMS_TEST_TIMEOUT (seconds per program run, default 60).
set -u
record=""
if [ "${1:-}" = "--record" ]; then record=$2; shift 2; fi
build=${1:?usage: run.sh [--record FILE] BUILD}
bin=$build/bin
tmo=${PROGRAMS_TEST_TIMEOUT:-60}
P=0; F=0; S=0

export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN="mpirun --oversubscribe --bind-to none"
if [ "$(id -u)" = 0 ]; then
    MPIRUN="$MPIRUN --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
have_mpi=0
[ -x "$bin/benchmark-mpi" ] && command -v mpirun >/dev/null 2>&1 && have_mpi=1

pass() { P=$((P + 1)); echo "ok   $1"; }
fail() { F=$((F + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && [ -f "$2" ] && head -30 "$2"; }
skip() { S=$((S + 1)); echo "skip $1"; }
out=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$out" "$tmp"' EXIT

# expect_error NAME WANT CMD...: CMD must exit non-zero on its own (not by a
# signal, not by the timeout), and its output (stdout and stderr, all ranks)
# must hold exactly one "PROG: error:" line, containing WANT.
expect_error() {
    _n=$1 _w=$2; shift 2
    timeout "$tmo" "$@" > "$out" 2>&1
    _rc=$?
    _k=$(grep -c '^[a-z-]*: error: ' "$out")
    if [ "$_rc" -ne 0 ] && [ "$_rc" -lt 124 ] && [ "$_k" = 1 ] && grep '^[a-z-]*: error: ' "$out" | grep -qF -- "$_w" &&
       ! grep -qE 'signal [0-9]|Segmentation fault|core dumped|Sanitizer|runtime error|double free|corrupted' "$out"; then
        pass "$_n"
    else fail "$_n (exit $_rc, $_k error lines, want '$_w')" "$out"; fi
}
# the same under mpirun at 1, 2 and 3 ranks
expect_error_mpi() {
    _mn=$1 _mw=$2; shift 2
    if [ "$have_mpi" = 0 ]; then skip "$_mn (no MPI)"; return; fi
    for _p in 1 2 3; do expect_error "$_mn at $_p ranks" "$_mw" $MPIRUN -n "$_p" "$@"; done
}

# ---- item: benchmark-omp's default runs every format its usage names --------
# Default format list (no --format): csr, csrl, bcoo, csr16, csrvi and auto,
# each key=value line labelled with what was asked and what ran; a fixed
# format must run as itself, and the summary names auto's and the best's time.
t=benchmark_omp_default_runs_every_format_and_auto_under_its_own_name
if timeout "$tmo" "$bin/benchmark-omp" matrices/lap2d_64.mtx --no-bw --reps 5 > "$out" 2>&1; then
    got=$(sed -n 's/^bench=omp .* format=\([a-z0-9]*\) asked=\([a-z0-9]*\) .*/\2:\1/p' "$out" | sort | tr '\n' ' ')
    asked=$(sed -n 's/^bench=omp .* asked=\([a-z0-9]*\) .*/\1/p' "$out" | sort | tr '\n' ' ')
    auto=$(sed -n 's/^bench=omp .* format=\([a-z0-9]*\) asked=auto .*/\1/p' "$out")
    sum=$(grep -c '^bench=omp-summary .* auto='"$auto"' auto_ms=[0-9.]* best=[a-z0-9]* best_ms=' "$out")
    mislabel=$(echo "$got" | tr ' ' '\n' | awk -F: '$1 != "auto" && $1 != $2' | wc -l)
    if [ "$asked" = "auto bcoo csr csr16 csrl csrvi " ] && [ -n "$auto" ] && [ "$mislabel" = 0 ] && [ "$sum" = 1 ]; then
        pass "$t"
    else fail "$t (asked: $asked; asked:ran: $got; summary lines: $sum)" "$out"; fi
else fail "$t (exit $?)" "$out"; fi

# ---- item: a file declaring more than the machine can give -----------------
# The size line's rows, columns and count say what reading, building CSR and
# multiplying take; above physical memory or the address-space limit the
# programs refuse at once, with the figure, instead of paging for minutes.
# (The ranks get the limit, not mpirun: Open MPI's launcher needs more.)
printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1\n' > "$tmp/huge.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n100000000 100000000 1\n1 1 1\n' > "$tmp/big.mtx"
lim="ulimit -v 2000000;"
for prog in benchmark-naive benchmark-omp; do
    expect_error "${prog}_refuses_2147483647_squared_with_its_figure" "2147483647 x 2147483647 matrix of 1 entries (triplets" \
        sh -c "$lim exec \"\$0\" \"\$1\"" "$bin/$prog" "$tmp/huge.mtx"
    expect_error "${prog}_refuses_a_matrix_above_ulimit_v_with_its_figure" \
        "needs 3.2 GB, more than the address-space limit (ulimit -v)" \
        sh -c "$lim exec \"\$0\" \"\$1\"" "$bin/$prog" "$tmp/big.mtx"
done
if [ "$have_mpi" = 1 ]; then
    for prog in benchmark-mpi solve; do
        expect_error_mpi "${prog}_refuses_2147483647_squared_with_its_figure" "2147483647 x 2147483647 matrix of 1 entries (triplets" \
            sh -c "$lim exec \"\$0\" \"\$1\"" "$bin/$prog" "$tmp/huge.mtx"
        expect_error_mpi "${prog}_refuses_a_matrix_above_ulimit_v_with_its_figure" \
            "needs 3.2 GB, more than the address-space limit (ulimit -v)" \
            sh -c "$lim exec \"\$0\" \"\$1\"" "$bin/$prog" "$tmp/big.mtx"
    done
else skip "mpi programs under ulimit -v (no MPI)"; fi
# ---- item: --read parallel in the MPI programs (issue 14) ------------------------
# benchmark-mpi reads with every rank and prints the setup phases; the
# product is the root read's (same ysum); gzip falls back to rank 0 and says
# so; solve with --jacobi converges in the root read's iterations.
if [ "$have_mpi" = 1 ]; then
    m=matrices/lap3d_12_sym.mtx
    t=benchmark_mpi_read_parallel_gives_the_root_product_and_setup_times
    ysum() { sed -n 's/^bench=mpi .* ysum=\([^ ]*\) .*/\1/p' "$1"; }
    if timeout "$tmo" $MPIRUN -n 3 "$bin/benchmark-mpi" $m --reps 3 > "$tmp/root.txt" 2>&1 &&
       timeout "$tmo" $MPIRUN -n 3 "$bin/benchmark-mpi" $m --reps 3 --read parallel > "$out" 2>&1 &&
       grep -q '^bench=mpi .* read=parallel read_s=[0-9.]* partition_s=[0-9.]* distribute_s=[0-9.]* prepare_s=[0-9.]* read_peak_mb_max=[0-9.]* read_peak_mb_root=[0-9.]* read_peak_share_max=[0-9.]* .*violations=0 ' "$out" &&
       [ -n "$(ysum "$out")" ] && [ "$(ysum "$out")" = "$(ysum "$tmp/root.txt")" ]; then pass "$t"
    else fail "$t" "$out"; fi
    t=benchmark_mpi_read_parallel_on_gzip_reads_on_rank_0_and_says_so
    if gzip -c $m > "$tmp/m.mtx.gz" 2>/dev/null &&
       timeout "$tmo" $MPIRUN -n 2 "$bin/benchmark-mpi" "$tmp/m.mtx.gz" --reps 3 --read parallel > "$out" 2>&1 &&
       grep -q '^bench=mpi .* read=root ' "$out" && grep -q 'gzip: a compressed stream cannot be split' "$out"; then pass "$t"
    else fail "$t" "$out"; fi
    t=solve_read_parallel_jacobi_converges_as_the_root_read
    it() { sed -n 's/^bench=solve .* status=0 iterations=\([0-9]*\) .*/\1/p' "$1"; }
    if timeout "$tmo" $MPIRUN -n 3 "$bin/solve" $m --jacobi > "$tmp/root.txt" 2>&1 &&
       timeout "$tmo" $MPIRUN -n 3 "$bin/solve" $m --jacobi --read parallel > "$out" 2>&1 &&
       [ -n "$(it "$out")" ] && [ "$(it "$out")" = "$(it "$tmp/root.txt")" ]; then pass "$t"
    else fail "$t" "$out"; fi
    t=benchmark_mpi_refuses_an_unknown_read_method
    timeout "$tmo" $MPIRUN -n 2 "$bin/benchmark-mpi" $m --read sideways > "$out" 2>&1; rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q -- '--read takes root or parallel' "$out"; then pass "$t"
    else fail "$t (exit $rc)" "$out"; fi
else
    skip "benchmark_mpi_read_parallel (no MPI)"
fi
t=benchmark_naive_read_only_reads_with_threads_the_same_matrix
if OMP_NUM_THREADS=2 timeout "$tmo" "$bin/benchmark-naive" matrices/banded_2000_w16.mtx --read-only > "$out" 2>&1 &&
   OMP_NUM_THREADS=1 timeout "$tmo" "$bin/benchmark-naive" matrices/banded_2000_w16.mtx --read-only > "$tmp/one.txt" 2>&1 &&
   grep -q '^bench=naive-read .* threads=2 .*nnz=' "$out" &&
   [ "$(sed -n 's/^bench=naive-read .*nnz=\([0-9]*\) .*/\1/p' "$out")" = "$(sed -n 's/^bench=naive-read .*nnz=\([0-9]*\) .*/\1/p' "$tmp/one.txt")" ]; then
    pass "$t"
else fail "$t" "$out"; fi

if [ -n "$record" ]; then mkdir -p "$(dirname "$record")"; echo "$P $F $S" > "$record"; fi
echo "programs: $P passed, $F failed, $S skipped"
[ -n "$record" ] || [ "$F" -eq 0 ]
