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
# A job that ends with a non-zero exit is torn down at once: mpirun otherwise
# waits 1 s per run between SIGTERM and SIGKILL of ranks that have already
# left (the programs finish MPI before exiting, so nothing is cut short).
export OMPI_MCA_odls_base_sigkill_timeout=0
MPIRUN="mpirun --oversubscribe --bind-to none"
if [ "$(id -u)" = 0 ]; then
    MPIRUN="$MPIRUN --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
single=$(sed -n 's/^#define HSPMV_SINGLE.*/1/p' "$build/include/hspmv_config.h" 2>/dev/null)
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
    timeout "$tmo" "$@" > "$out" 2>&1 < /dev/null # mpirun would eat the table read on stdin
    _rc=$?
    _k=$(grep -c '^[a-z-]*: error: ' "$out")
    if [ "$_rc" -ne 0 ] && [ "$_rc" -lt 124 ] && [ "$_k" = 1 ] && grep '^[a-z-]*: error: ' "$out" | grep -qF -- "$_w" &&
       ! grep -qE 'signal [0-9]|Segmentation fault|core dumped|Sanitizer|runtime error|double free|corrupted' "$out"; then
        pass "$_n"
    else fail "$_n (exit $_rc, $_k error lines, want '$_w')" "$out"; fi
}
# the same under mpirun at NP ranks
expect_error_np() {
    _np=$1; shift
    if [ "$have_mpi" = 0 ]; then skip "$1 (no MPI)"; return; fi
    _en=$1 _ew=$2; shift 2
    expect_error "$_en at $_np ranks" "$_ew" $MPIRUN -n "$_np" "$@"
}
# the same under mpirun at 1 and 3 ranks
expect_error_mpi() {
    _mn=$1 _mw=$2; shift 2
    if [ "$have_mpi" = 0 ]; then skip "$_mn (no MPI)"; return; fi
    for _p in 1 3; do expect_error "$_mn at $_p ranks" "$_mw" $MPIRUN -n "$_p" "$@"; done
}

# ---- item: benchmark-omp's default runs every format its usage names --------
# Default format list (no --format): csr, csrl, bcoo, csr16, csrvi, csrp, csrdu, panels and auto,
# each key=value line labelled with what was asked and what ran; a fixed
# format must run as itself, and the summary names auto's and the best's time.
t=benchmark_omp_default_runs_every_format_and_auto_under_its_own_name
if timeout "$tmo" "$bin/benchmark-omp" matrices/lap2d_64.mtx --no-bw --reps 5 > "$out" 2>&1; then
    got=$(sed -n 's/^bench=omp .* format=\([a-z0-9]*\) asked=\([a-z0-9]*\) .*/\2:\1/p' "$out" | sort | tr '\n' ' ')
    asked=$(sed -n 's/^bench=omp .* asked=\([a-z0-9]*\) .*/\1/p' "$out" | sort | tr '\n' ' ')
    auto=$(sed -n 's/^bench=omp .* format=\([a-z0-9]*\) asked=auto .*/\1/p' "$out")
    sum=$(grep -c '^bench=omp-summary .* auto='"$auto"' auto_ms=[0-9.]* best=[a-z0-9]* best_asked=[a-z0-9]* best_ms=' "$out")
    mislabel=$(echo "$got" | tr ' ' '\n' | awk -F: '$1 != "auto" && $1 != $2' | wc -l)
    if [ "$asked" = "auto bcoo csr csr16 csrdu csrl csrp csrvi panels " ] && [ -n "$auto" ] && [ "$mislabel" = 0 ] && [ "$sum" = 1 ]; then
        pass "$t"
    else fail "$t (asked: $asked; asked:ran: $got; summary lines: $sum)" "$out"; fi
else fail "$t (exit $?)" "$out"; fi

# ---- item: benchmark-omp's best is the fastest of all that ran, auto included;
# in_cache=1 (and in-cache in the table, no percentage) where the product's
# bytes fit in the last-level cache, 0 and a percentage where they do not
t=benchmark_omp_best_is_the_fastest_of_all_and_in_cache_is_marked
if timeout "$tmo" "$bin/benchmark-omp" matrices/lap2d_64.mtx 1 --format auto,csr,bcoo --reps 5 --bw-mib 16 > "$out" 2>&1; then
    min=$(awk '/^bench=omp / { for (i = 1; i <= NF; i++) if ($i ~ /^median_ms=/) { v = substr($i, 11) + 0
               if (m == "" || v < m) m = v } } END { printf "%.6f", m }' "$out")
    best=$(sed -n 's/^bench=omp-summary .* best_asked=[a-z0-9]* best_ms=\([0-9.]*\) .*/\1/p' "$out")
    cached=$(grep -c '^bench=omp .* in_cache=1 llc_bytes=[1-9]' "$out")
    marks=$(grep -c '^  [a-z>-]*  .* in-cache ' "$out")
    pct=$(grep '^  [a-z>-]*  .* ok$' "$out" | grep -c '%')
    if [ -n "$best" ] && [ "$best" = "$min" ] && [ "$cached" = 3 ] && [ "$marks" = 3 ] && [ "$pct" = 0 ]; then
        pass "$t"
    else fail "$t (best_ms '$best', fastest '$min', in_cache=1 lines $cached, in-cache marks $marks, % shown $pct)" "$out"; fi
else fail "$t (exit $?)" "$out"; fi
t=benchmark_omp_out_of_cache_is_a_fraction_of_the_triad
llc=$(sed -n 's/^bench=omp .* llc_bytes=\([0-9]*\) .*/\1/p' "$out" | head -1)
# a 2D Laplacian of about 2 x LLC bytes (about 60 bytes a row in CSR)
side=$(awk -v b="${llc:-0}" 'BEGIN { printf "%d", sqrt(2 * b / 60) + 1 }')
if [ "${llc:-0}" -gt 0 ] && [ "$side" -le 3000 ] && "$bin/genmat" lap2d "$side" -o "$tmp/big.mtx" > /dev/null 2>&1 &&
   timeout "$tmo" "$bin/benchmark-omp" "$tmp/big.mtx" 1 --format csr --reps 5 --bw-mib 16 > "$out" 2>&1; then
    if grep -q '^bench=omp .* in_cache=0 ' "$out" && grep -q '^  csr  .*%  .* ok$' "$out" && ! grep -q 'in-cache' "$out"; then
        pass "$t"
    else fail "$t (lap2d $side)" "$out"; fi
    rm -f "$tmp/big.mtx"
elif [ "$side" -gt 3000 ]; then skip "$t (a last-level cache of $llc bytes: too big a matrix for this test)"
else fail "$t (exit $?)" "$out"; fi
# ---- item: benchmark-omp --symmetric: one triangle for auto, both for the rest ----
# A symmetric file (lap2d_64): with --symmetric auto, auto runs one triangle
# (symmetric=yes, its private rows and check time on the line, checked
# against the reference) beside csr with both; with the default, neither;
# with --symmetric yes on a general matrix: an error naming it.
t=benchmark_omp_symmetric_auto_keeps_one_triangle_for_auto_only
if timeout "$tmo" "$bin/benchmark-omp" matrices/lap2d_64.mtx 2 --no-bw --reps 5 --format csr,auto --symmetric auto > "$out" 2>&1 &&
   grep -q '^bench=omp .*format=csrp asked=auto .*violations=0 .*symmetric=yes sym_halo=[0-9]* sym_check_s=' "$out" &&
   grep -q '^bench=omp .*format=csr asked=csr .*violations=0 .*symmetric=no ' "$out" &&
   grep -q '^  auto->csrp/sym ' "$out" &&
   timeout "$tmo" "$bin/benchmark-omp" matrices/lap2d_64.mtx 2 --no-bw --reps 5 --format auto > "$out" 2>&1 &&
   grep -q '^bench=omp .*asked=auto .*symmetric=no ' "$out"; then
    pass "$t"
else fail "$t" "$out"; fi
t=benchmark_omp_symmetric_yes_refuses_a_general_matrix
if timeout "$tmo" "$bin/benchmark-omp" matrices/random_3000_k8.mtx 1 --no-bw --reps 5 --format auto --symmetric yes > "$out" 2>&1; then
    fail "$t (exit 0)" "$out"
elif grep -q "neither symmetric nor skew-symmetric" "$out"; then pass "$t"
else fail "$t" "$out"; fi

# ---- item: benchmark-omp --vectors times the block product for each k -------
# One bench=omp-block line per format and k, every vector checked (violations=0),
# and k = 1's rate beside each (vs_k1).
t=benchmark_omp_vectors_times_every_k_and_checks_it
if timeout "$tmo" "$bin/benchmark-omp" matrices/lap2d_64.mtx 2 --vectors 1,3,8 --format auto,csr --reps 5 > "$out" 2>&1; then
    n=$(grep -c '^bench=omp-block .* vectors=[138] .*products_per_s=[0-9.]* .*vs_k1=[0-9.]* .*violations=0$' "$out")
    if [ "$n" = 6 ]; then pass "$t"; else fail "$t ($n of 6 checked lines)" "$out"; fi
else fail "$t (exit $?)" "$out"; fi

# ---- item: genmat --shuffle renumbers, benchmark-omp --reorder restores ------
# The shuffled lap3d 12 holds the same entries (values sorted alike, same
# count), the symmetric one a lower triangle under a symmetric header;
# --reorder rcm brings the bandwidth down (144 is the grid's) with every
# product checked in both orders (violations=0), and auto keeps a matrix
# whose entries all lie within its window (reorder=none).
t=genmat_shuffle_and_benchmark_omp_reorder
"$bin/genmat" lap3d 12 -o "$tmp/g.mtx" && "$bin/genmat" lap3d 12 --shuffle 5 -o "$tmp/s.mtx" &&
    "$bin/genmat" lap3d 12 --symmetric --shuffle 5 -o "$tmp/ss.mtx"
same=$( { tail -n +4 "$tmp/g.mtx" | awk '{ print $3 }' | sort | md5sum; tail -n +4 "$tmp/s.mtx" | awk '{ print $3 }' | sort | md5sum; } | uniq | wc -l)
moved=$(cmp -s "$tmp/g.mtx" "$tmp/s.mtx" && echo 0 || echo 1)
upper=$(tail -n +4 "$tmp/ss.mtx" | awk '$2 > $1' | wc -l)
symh=$(head -1 "$tmp/ss.mtx" | grep -c symmetric)
if [ "$same" = 1 ] && [ "$moved" = 1 ] && [ "$upper" = 0 ] && [ "$symh" = 1 ] &&
   timeout "$tmo" "$bin/benchmark-omp" "$tmp/s.mtx" 2 --format auto,csr --reorder rcm --reps 5 --no-bw > "$out" 2>&1; then
    n=$(grep -c '^bench=omp .*violations=0 .*reorder=rcm reorder_asked=rcm bandwidth_before=1[0-9][0-9][0-9] bandwidth_after=[0-9]* ' "$out")
    wide=$(grep '^bench=omp ' "$out" | sed 's/.*bandwidth_after=\([0-9]*\).*/\1/' | awk '$1 > 300' | wc -l)
    if [ "$n" = 2 ] && [ "$wide" = 0 ] &&
       timeout "$tmo" "$bin/benchmark-omp" "$tmp/g.mtx" 2 --format csr --reorder auto --reps 5 --no-bw > "$out" 2>&1 &&
       grep -q '^bench=omp .*violations=0 .*reorder=none reorder_asked=auto .*local_before=1.0000' "$out"; then
        pass "$t"
    else fail "$t ($n of 2 rcm lines, $wide too wide)" "$out"; fi
else fail "$t (same values: $same, moved: $moved, upper: $upper, symmetric header: $symh)" "$out"; fi

# ---- item: benchmark-mpi --reorder at 3 ranks ----------------------------------
# The shuffled lap3d 12 ordered on rank 0 before the split, in both halo
# modes: the order, a narrower band and the product checked (violations=0).
t=benchmark_mpi_reorder_rcm_at_3_ranks
ok=0
for h in node p2p; do
    if timeout "$tmo" $MPIRUN -n 3 "$bin/benchmark-mpi" "$tmp/s.mtx" --reorder rcm --halo $h --reps 3 > "$out" 2>&1 &&
       grep -q '^bench=mpi .*violations=0 .*reorder=rcm reorder_asked=rcm bandwidth_before=1[0-9][0-9][0-9] bandwidth_after=[1-2]\{0,1\}[0-9][0-9] ' "$out"; then
        ok=$((ok + 1))
    fi
done
if [ "$ok" = 2 ]; then pass "$t"; else fail "$t ($ok of 2 halo modes)" "$out"; fi

# ---- item: benchmark-mpi and solve --reorder with --read parallel ------------
# No rank holds the matrix: the pattern is gathered on rank 0 and ordered, the
# rows move to their new owners. benchmark-mpi in both halo modes (the order,
# the narrower band, violations=0); solve --reorder rcm on the symmetric
# shuffled mesh converges in the iterations of the unreordered solve;
# benchmark-mpi --gen (each rank's own rows) reorders too.
t=benchmark_mpi_and_solve_reorder_with_the_parallel_read
ok=0
[ "$have_mpi" = 1 ] && for h in node p2p; do
    if timeout "$tmo" $MPIRUN -n 3 "$bin/benchmark-mpi" "$tmp/s.mtx" --read parallel --reorder rcm --halo $h --reps 3 > "$out" 2>&1 &&
       grep -q '^bench=mpi .*read=parallel' "$out" &&
       grep -q '^bench=mpi .*violations=0 .*reorder=rcm reorder_asked=rcm bandwidth_before=1[0-9][0-9][0-9] bandwidth_after=[1-2]\{0,1\}[0-9][0-9] ' "$out"; then
        ok=$((ok + 1))
    fi
done
if [ "$have_mpi" = 1 ] && [ -x "$bin/solve" ] &&
   timeout "$tmo" $MPIRUN -n 3 "$bin/solve" "$tmp/ss.mtx" --read parallel > "$out.0" 2>&1 &&
   timeout "$tmo" $MPIRUN -n 3 "$bin/solve" "$tmp/ss.mtx" --read parallel --reorder rcm > "$out" 2>&1 &&
   grep -q '^bench=solve .*status=0 .*reorder=rcm bandwidth_before=1[0-9][0-9][0-9] bandwidth_after=[1-2]\{0,1\}[0-9][0-9] ' "$out"; then
    i0=$(grep -o '^bench=solve .* iterations=[0-9]*' "$out.0" | grep -o '[0-9]*$')
    i1=$(grep -o '^bench=solve .* iterations=[0-9]*' "$out" | grep -o '[0-9]*$')
    [ -n "$i0" ] && [ -n "$i1" ] && [ $((i1 - i0)) -le 2 ] && [ $((i0 - i1)) -le 2 ] && ok=$((ok + 1))
fi
rm -f "$out.0"
# --gen: every rank makes its own rows (hspmv_dist_create), ordered the same way
[ "$have_mpi" = 1 ] && timeout "$tmo" $MPIRUN -n 3 "$bin/benchmark-mpi" --gen lap3d 12 --reorder rcm --reps 3 > "$out" 2>&1 &&
    grep -q '^bench=mpi .*violations=0 .*reorder=rcm reorder_asked=rcm bandwidth_before=144 bandwidth_after=[0-9]* ' "$out" &&
    ok=$((ok + 1))
if [ "$have_mpi" = 0 ]; then skip "$t (no MPI)"
elif [ "$ok" = 4 ]; then pass "$t"; else fail "$t ($ok of 4: benchmark-mpi node, p2p, --gen; solve)" "$out"; fi

# ---- item: benchmark-mpi marks a product that fits in cache ------------------
# lap2d_64 (0.3 MB) at 2 ranks with a triad: in_cache=1 with the nodes'
# cache bytes on the line, "in cache" in the text and no triad percentage.
t=benchmark_mpi_in_cache_is_marked_instead_of_a_triad_fraction
if [ "$have_mpi" = 0 ]; then skip "$t (no MPI)"
elif timeout "$tmo" $MPIRUN -n 2 "$bin/benchmark-mpi" matrices/lap2d_64.mtx --triad 16 --reps 3 > "$out" 2>&1 &&
     grep -q '^bench=mpi .* triad_gbs=[0-9.]* in_cache=1 llc_bytes=[1-9]' "$out" &&
     grep -q 'in cache (.* of last-level cache: no triad fraction)' "$out" && ! grep -q '% of a .* triad' "$out"; then
    pass "$t"
else fail "$t" "$out"; fi

# ---- item: --vectors with --transpose times Y = A^T X, rectangular too ------
# A 90 x 61 matrix: the block's rows are A's columns (rows=61 cols=90 in
# benchmark-omp's lines, the product's matrix), every vector checked; in
# benchmark-mpi at 3 ranks in both halo modes, the last vector checked
# against rank 0's A^T, and the memory its first call added reported.
awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print "90 61 270";
             for (i = 1; i <= 90; i++) for (o = 0; o < 3; o++) {
                 j = (i * 7 + (o == 0 ? 0 : o == 1 ? 5 : 17)) % 61 + 1; print i, j, (i + 2 * j) / 7 } }' > "$tmp/rect.mtx"
t=benchmark_omp_vectors_transpose_times_AT_X_on_a_rectangular_matrix
if timeout "$tmo" "$bin/benchmark-omp" "$tmp/rect.mtx" 2 --vectors 1,3,8 --transpose --format auto,csr --reps 5 > "$out" 2>&1; then
    n=$(grep -c '^bench=omp-block .*transpose=1 .*rows=61 cols=90 nnz=270 vectors=[138] .*violations=0$' "$out")
    if [ "$n" = 6 ]; then pass "$t"; else fail "$t ($n of 6 checked lines)" "$out"; fi
else fail "$t (exit $?)" "$out"; fi
if [ "$have_mpi" = 1 ]; then
    for h in node p2p; do
        t=benchmark-mpi_vectors_transpose_times_AT_X_halo_$h
        if timeout "$tmo" $MPIRUN -n 3 "$bin/benchmark-mpi" "$tmp/rect.mtx" --vectors 3 --transpose --halo $h --reps 3 > "$out" 2>&1; then
            n=$(grep '^bench=mpi ' "$out" | grep ' violations=0 ' | grep ' transpose=1' | grep ' vectors=3 ' | grep -c ' first_mb=-\{0,1\}[0-9]')
            if [ "$n" = 1 ]; then pass "$t"; else fail "$t ($n checked lines)" "$out"; fi
        else fail "$t (exit $?)" "$out"; fi
    done
else
    skip "benchmark-mpi_vectors_transpose_times_AT_X (no mpirun or benchmark-mpi)"
fi

# ---- item: a file declaring more than the machine can give -----------------
# The size line's rows, columns and count say what reading, building CSR and
# multiplying take; above physical memory or the address-space limit the
# programs refuse at once, with the figure, instead of paging for minutes.
# (The ranks get the limit, not mpirun: Open MPI's launcher needs more.)
printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1\n' > "$tmp/huge.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n100000000 100000000 1\n1 1 1\n' > "$tmp/big.mtx"
lim="ulimit -v 2000000;"
# triplets + CSR 1.6 GB + x and y: 1.6 GB in double, 0.8 GB in single
[ -n "$single" ] && need=2.4 || need=3.2
for prog in benchmark-naive benchmark-omp; do
    expect_error "${prog}_refuses_2147483647_squared_with_its_figure" "2147483647 x 2147483647 matrix of 1 entries (triplets" \
        sh -c "$lim exec \"\$0\" \"\$1\"" "$bin/$prog" "$tmp/huge.mtx"
    expect_error "${prog}_refuses_a_matrix_above_ulimit_v_with_its_figure" \
        "needs $need GB, more than the address-space limit (ulimit -v)" \
        sh -c "$lim exec \"\$0\" \"\$1\"" "$bin/$prog" "$tmp/big.mtx"
done
if [ "$have_mpi" = 1 ]; then
    for prog in benchmark-mpi solve; do
        expect_error_mpi "${prog}_refuses_2147483647_squared_with_its_figure" "2147483647 x 2147483647 matrix of 1 entries (triplets" \
            sh -c "$lim exec \"\$0\" \"\$1\"" "$bin/$prog" "$tmp/huge.mtx"
        expect_error_mpi "${prog}_refuses_a_matrix_above_ulimit_v_with_its_figure" \
            "needs $need GB, more than the address-space limit (ulimit -v)" \
            sh -c "$lim exec \"\$0\" \"\$1\"" "$bin/$prog" "$tmp/big.mtx"
    done
else skip "mpi programs under ulimit -v (no MPI)"; fi
# The same for the parallel read (every rank counts rows of the size line
# before it allocates) and for a PETSc header declaring 1e9 rows (a sparse
# file long enough for their lengths): the serial reader and the MPI-IO one
# refuse with the figure, one message for all ranks.
python3 -c "
import struct, sys
f = open(sys.argv[1], 'wb'); f.write(struct.pack('>4i', 1211216, 1000000000, 1000000000, 0)); f.truncate(16 + 4 * 1000000000)
" "$tmp/absurd.petsc" 2>/dev/null || rm -f "$tmp/absurd.petsc"
if [ -f "$tmp/absurd.petsc" ]; then
    expect_error "benchmark-omp_refuses_a_petsc_header_above_ulimit_v_with_its_figure" \
        "1000000000 x 1000000000 matrix of 0 entries (CSR" sh -c "$lim exec \"\$0\" \"\$1\" 1" "$bin/benchmark-omp" "$tmp/absurd.petsc"
    expect_error "convert_refuses_a_petsc_header_above_ulimit_v_with_its_figure" \
        "1000000000 x 1000000000 matrix of 0 entries (CSR" sh -c "$lim exec \"\$0\" \"\$1\" \"\$2\"" "$bin/convert" "$tmp/absurd.petsc" "$tmp/absurd.mtx"
else skip "PETSc header sizes (no python3 to write the file)"; fi
if [ "$have_mpi" = 1 ]; then
    for prog in benchmark-mpi solve; do
        expect_error_mpi "${prog}_read_parallel_refuses_2147483647_squared_with_its_figure" "2147483647 x 2147483647 matrix of 1 entries" \
            sh -c "$lim exec \"\$0\" \"\$1\" --read parallel" "$bin/$prog" "$tmp/huge.mtx"
    done
    [ -f "$tmp/absurd.petsc" ] && expect_error_mpi "benchmark-mpi_mpiio_refuses_a_petsc_header_above_ulimit_v_with_its_figure" \
        "1000000000 x 1000000000 matrix of 0 entries" sh -c "$lim exec \"\$0\" \"\$1\"" "$bin/benchmark-mpi" "$tmp/absurd.petsc"
fi
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
       grep -q '^bench=mpi .* read=parallel read_s=[0-9.]* partition_s=[0-9.]* distribute_s=[0-9.]* prepare_s=[0-9.]* read_peak_mb_max=[0-9.]* read_peak_mb_root=[0-9.]* read_peak_share_max=[0-9.]* .*violations=0 .* overflows=0 .*version=' "$out" &&
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
# ---- item: --gen, matrices made in place by every rank -------------------------
# benchmark-mpi --gen lap3d 8 passes the per-rank long-double check at 1, 2
# and 3 ranks with the product (ysum, ychk) of the file genmat writes; a
# power law with real values (a seed per row) gives the file's product at 3
# ranks; solve --gen converges as on the file. genmat --rng stream still
# writes the bundled random matrix.
t=genmat_rng_stream_writes_the_bundled_random_matrix
if "$bin/genmat" random 3000 --k 8 --rng stream -o "$tmp/r.mtx" && cmp -s "$tmp/r.mtx" matrices/random_3000_k8.mtx; then pass "$t"
else fail "$t"; fi
if [ "$have_mpi" = 1 ]; then
    sums() { sed -n 's/^bench=mpi .* violations=0 ysum=\([^ ]*\) ychk=\([^ ]*\) .*/\1 \2/p' "$1"; }
    # same_sums A B: equal checksums; in single precision within 1e-6 (the split
    # of a rank's row into owned and ghost parts changes float sums' order)
    same_sums() {
        _a=$(sums "$1") _b=$(sums "$2")
        [ -n "$_a" ] && [ -n "$_b" ] && echo "$_a $_b" | awk -v tol="${single:+1e-6}" '{
            for (i = 1; i <= 2; i++) { d = $i - $(i + 2); if (d < 0) d = -d; m = $(i + 2); if (m < 0) m = -m
                if (d > (tol + 0) * m) exit 1 } }'
    }
    "$bin/genmat" lap3d 8 -o "$tmp/l8.mtx" > /dev/null && timeout "$tmo" $MPIRUN -n 2 "$bin/benchmark-mpi" "$tmp/l8.mtx" --reps 2 > "$tmp/file.txt" 2>&1
    for np in 1 2 3; do
        t="benchmark_mpi_gen_lap3d_8_checks_and_gives_the_file_product at $np ranks"
        if timeout "$tmo" $MPIRUN -n $np "$bin/benchmark-mpi" --gen lap3d 8 --reps 2 > "$out" 2>&1 &&
           grep -q '^bench=mpi matrix=gen:lap3d:8 .* read=gen read_s=[0-9.]* .*rows=512 cols=512 nnz=3200 .*violations=0 .* overflows=0 .*version=[0-9.]* ' "$out" &&
           same_sums "$out" "$tmp/file.txt"; then pass "$t"
        else fail "$t" "$out"; fi
    done
    t=benchmark_mpi_gen_powerlaw_real_values_gives_the_file_product_at_3_ranks
    if "$bin/genmat" powerlaw 1500 --k 6 --values random --seed 3 -o "$tmp/p.mtx" > /dev/null &&
       timeout "$tmo" $MPIRUN -n 1 "$bin/benchmark-mpi" "$tmp/p.mtx" --reps 2 > "$tmp/file.txt" 2>&1 &&
       timeout "$tmo" $MPIRUN -n 3 "$bin/benchmark-mpi" --gen pwl:6 1500 --values random --seed 3 --reps 2 > "$out" 2>&1 &&
       grep -q '^bench=mpi matrix=gen:powerlaw:1500:k6:values=random:seed=3 ' "$out" &&
       same_sums "$out" "$tmp/file.txt"; then pass "$t"
    else fail "$t" "$out"; fi
    t=solve_gen_converges_with_jacobi_as_on_the_file
    it() { sed -n 's/^bench=solve .* status=0 iterations=\([0-9]*\) .*/\1/p' "$1"; }
    if timeout "$tmo" $MPIRUN -n 1 "$bin/solve" "$tmp/l8.mtx" --jacobi > "$tmp/file.txt" 2>&1 &&
       timeout "$tmo" $MPIRUN -n 2 "$bin/solve" --gen lap3d 8 --jacobi > "$out" 2>&1 &&
       grep -q '^bench=solve matrix=gen:lap3d:8 ' "$out" && [ -n "$(it "$out")" ] && [ "$(it "$out")" = "$(it "$tmp/file.txt")" ]; then pass "$t"
    else fail "$t" "$out"; fi
else
    skip "benchmark_mpi_gen (no MPI)"
fi
t=benchmark_naive_read_only_reads_with_threads_the_same_matrix
if OMP_NUM_THREADS=2 timeout "$tmo" "$bin/benchmark-naive" matrices/banded_2000_w16.mtx --read-only > "$out" 2>&1 &&
   OMP_NUM_THREADS=1 timeout "$tmo" "$bin/benchmark-naive" matrices/banded_2000_w16.mtx --read-only > "$tmp/one.txt" 2>&1 &&
   grep -q '^bench=naive-read .* threads=2 .*nnz=' "$out" &&
   [ "$(sed -n 's/^bench=naive-read .*nnz=\([0-9]*\) .*/\1/p' "$out")" = "$(sed -n 's/^bench=naive-read .*nnz=\([0-9]*\) .*/\1/p' "$tmp/one.txt")" ]; then
    pass "$t"
else fail "$t" "$out"; fi

# ---- item: every argument checked for range and trailing garbage ------------
# 1. the table of hostile command lines (bad_args.txt)
M=matrices/lap2d_64.mtx
here=$(dirname "$0")
while IFS='|' read -r prog want args; do
    case "$prog" in ''|\#*) continue ;; esac
    prog=$(echo $prog); want=$(echo "$want" | sed 's/^ *//; s/ *$//')
    eval "set -- $(echo "$args" | sed "s|\bM\b|$M|g")"
    name="$prog $(echo "$args" | sed 's/^ *//')"
    case "$prog" in
    benchmark-mpi|solve) expect_error_np 2 "$name" "$want" "$bin/$prog" "$@" ;;
    *) expect_error "$name" "$want" "$bin/$prog" "$@" ;;
    esac
done < "$here/bad_args.txt"

# 2. the sweep: every numeric option of every program with every kind of
#    bad value (the MPI programs as singletons, without mpirun, and in the
#    double build only: the parser is the same in both precisions, the table
#    above checks their one message at 2 ranks, and each start costs a second)
ints="'' abc 10abc 1e3 1.5 0x10 ' 5' -1 2305843009213693952 99999999999999999999 -9223372036854775809 nan"
reals="'' abc 1.5x nan inf -inf 1e999 -1 2e308 ' 0.5' 0.5.5 0x"
mpi_ints="'' 10abc -1 99999999999999999999"
mpi_reals="'' nan 1e999 0.5.5"
sweep() { # PROG MPI? KIND PREFIX... -- OPTIONS: OPTION takes each value of KIND after PREFIX
    _prog=$1 _np=$2 _vals=$3; shift 3
    _pre=""
    while [ "$1" != "--" ]; do _pre="$_pre $1"; shift; done
    shift
    for _opt in "$@"; do
        eval "set -- $_vals"
        for _v in "$@"; do
            if [ "$_opt" = "@pos" ]; then # a positional value: one starting with '-' is an option
                case "$_v" in -*) continue ;; esac
                eval "set -- $_pre"; set -- "$@" "$_v"; _w=$_pw
            else eval "set -- $_pre"; set -- "$@" "$_opt" "$_v"; _w=$_opt; fi
            if [ "$_np" = 0 ]; then expect_error "sweep $_prog $([ "$_opt" = @pos ] && echo "$_pw" || echo "$_opt") '$_v'" "$_w" "$bin/$_prog" "$@"
            else expect_error_np "$_np" "sweep $_prog $_opt '$_v'" "$_w" "$bin/$_prog" "$@"; fi
            eval "set -- $_vals"
        done
    done
}
_pw=threads; sweep benchmark-omp 0 "$ints" "$M" -- --reps --warmup --bw-mib @pos
sweep benchmark-omp 0 "$reals" "$M" -- --threshold
sweep benchmark-naive 0 "$ints" "$M" -- --reps --warmup
_pw=SIZE; sweep genmat 0 "$ints" lap2d 8 -- --k --width
sweep genmat 0 "$ints" banded -- @pos
sweep genmat 0 "$reals" powerlaw 50 -- --alpha
if [ "$have_mpi" = 1 ] && [ -z "$single" ]; then
    sweep benchmark-mpi 0 "$mpi_ints" "$M" -- --reps --warmup --threads --triad --passes
    sweep benchmark-mpi 0 "$mpi_reals" "$M" -- --threshold
    sweep solve 0 "$mpi_ints" "$M" -- --reps --maxit --threads
    sweep solve 0 "$mpi_reals" "$M" -- --tol
else skip "sweep of the MPI programs' options (single precision or no MPI)"; fi

# 3. an environment that asks for absurd threads, and --help
OMP_NUM_THREADS=100000 expect_error "benchmark-omp with OMP_NUM_THREADS=100000" OMP_NUM_THREADS \
    "$bin/benchmark-omp" "$M" --no-bw
if [ "$have_mpi" = 1 ]; then
    OMP_NUM_THREADS=100000 expect_error_np 2 "benchmark-mpi with OMP_NUM_THREADS=100000" OMP_NUM_THREADS \
        "$bin/benchmark-mpi" "$M"
fi
# every program: --help (exit 0, a usage naming the program as started) and
# --version (exit 0, "NAME hspmv VERSION (PRECISION) commit C"; before MPI
# starts, so the MPI programs need no mpirun for either)
ver=$(awk '/^#define HSPMV_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $3; s = "."} END {print v}' include/hspmv.h)
prec=double; [ -n "$single" ] && prec=single
for prog in benchmark-naive benchmark-omp genmat convert benchmark-mpi solve; do
    [ -x "$bin/$prog" ] || { skip "$prog --help and --version (not built)"; continue; }
    if timeout "$tmo" "$bin/$prog" --help > "$out" 2>&1 && grep -q "^usage: .*$prog" "$out"; then pass "$prog --help"
    else fail "$prog --help" "$out"; fi
    if timeout "$tmo" "$bin/$prog" --version > "$out" 2>&1 && grep -qx "$prog hspmv $ver ($prec) commit [^ ]*" "$out" &&
       [ "$(wc -l < "$out")" = 1 ]; then pass "$prog --version: $(cat "$out")"
    else fail "$prog --version says '$prog hspmv $ver ($prec) commit C'" "$out"; fi
done

# ---- item: the run's facts in every result line -----------------------------
# version, commit, host, date (UTC, ISO 8601), compiler, ranks and threads
facts='version='"$ver"' commit=[^ ]* host=[^ ]* date=[0-9-]*T[0-9:]*Z compiler=[a-z]*-[0-9][^ ]* progress=[a-z]*'
t=every_result_line_carries_version_commit_host_date_compiler_ranks_threads
if timeout "$tmo" "$bin/benchmark-omp" "$M" 1 --no-bw --reps 5 --format csr,auto > "$out" 2>&1 &&
   [ "$(grep -c '^bench=omp' "$out")" = 3 ] && [ -z "$(grep '^bench=omp' "$out" | grep -v " $facts" )" ] &&
   [ -z "$(grep '^bench=omp' "$out" | grep -v ' ranks=1\b' | grep -v ' threads=1 ')" ] &&
   timeout "$tmo" "$bin/benchmark-naive" "$M" --reps 5 > "$tmp/naive.txt" 2>&1 &&
   grep -q "^bench=naive .* $facts ranks=1 threads=1$" "$tmp/naive.txt" &&
   timeout "$tmo" "$bin/convert" "$M" "$tmp/f.petsc" > "$tmp/conv.txt" 2>&1 &&
   grep -q "^bench=convert .* $facts ranks=1 threads=[0-9]*$" "$tmp/conv.txt"; then pass "$t"
else fail "$t" "$out"; cat "$tmp/naive.txt" "$tmp/conv.txt" 2>/dev/null | grep bench= | head -3; fi
if [ "$have_mpi" = 1 ]; then
    # (these runs also give the progress lines checked below: --progress on, and off for --json)
    t=benchmark_mpi_key_value_and_json_and_solve_carry_the_facts
    if timeout "$tmo" $MPIRUN -n 2 "$bin/benchmark-mpi" "$M" --reps 2 --progress on > "$out" 2> "$tmp/mpi_err" &&
       grep -q "^bench=mpi .* ranks=2 threads=1 .* $facts$" "$out" &&
       timeout "$tmo" $MPIRUN -n 2 "$bin/benchmark-mpi" "$M" --reps 2 --json --progress off > "$tmp/json.txt" 2> "$tmp/mpi_err0" &&
       python3 -c 'import json, sys
o = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])
assert o["ranks"] == 2 and o["version"] == sys.argv[2] and o["date"].endswith("Z") and o["commit"] and o["host"]
assert o["compiler"] and o["progress"] == "off"' "$tmp/json.txt" "$ver" &&
       timeout "$tmo" $MPIRUN -n 2 "$bin/solve" "$M" --progress on > "$tmp/solve.txt" 2> "$tmp/solve_err" &&
       grep -q "^bench=solve .* ranks=2 threads=1 .* $facts$" "$tmp/solve.txt"; then pass "$t"
    else fail "$t" "$out"; cat "$tmp/json.txt" "$tmp/solve.txt" 2>/dev/null | tail -3; fi
fi

# ---- item: progress when stderr is no terminal --------------------------------
# --progress on: a closing line for every step (reading, each format's
# preparation, partitioning/distribution, writing), each ended by a newline,
# no carriage return; under mpirun from rank 0 only. --progress off: none.
ended() { # FILE PROG: lines of PROG's progress, all ended, no \r, the file ends with a newline
    [ -s "$1" ] && ! grep -q "$(printf '\r')" "$1" && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] &&
        [ -z "$(grep -v "^$2: .*: done in [0-9.]* s" "$1")" ]
}
t=progress_on_prints_ended_lines_for_each_step_and_off_none
if timeout "$tmo" "$bin/benchmark-omp" "$M" 1 --no-bw --reps 5 --format csr,auto --progress on > "$out" 2> "$tmp/err" &&
   ended "$tmp/err" benchmark-omp && grep -q "^benchmark-omp: reading $M: done in .* MB/s$" "$tmp/err" &&
   [ "$(grep -c '^benchmark-omp: preparing ' "$tmp/err")" = 2 ] && grep -q '^bench=omp .* progress=on' "$out" &&
   timeout "$tmo" "$bin/benchmark-omp" "$M" 1 --no-bw --reps 5 --format csr --progress off > "$out" 2> "$tmp/err0" &&
   [ ! -s "$tmp/err0" ] &&
   timeout "$tmo" "$bin/convert" "$M" "$tmp/p.mtx.gz" --progress on > "$out" 2> "$tmp/err" &&
   ended "$tmp/err" convert && grep -q "^convert: writing $tmp/p.mtx.gz: done" "$tmp/err" &&
   timeout "$tmo" "$bin/convert" "$M" "$tmp/p.mtx.gz" --progress off > "$out" 2> "$tmp/err0" && [ ! -s "$tmp/err0" ]; then
    pass "$t"
else fail "$t" "$tmp/err"; fi
if [ "$have_mpi" = 1 ]; then
    t=progress_under_mpirun_comes_from_rank_0_in_ended_lines
    if ended "$tmp/mpi_err" benchmark-mpi && [ "$(grep -c '^benchmark-mpi: reading ' "$tmp/mpi_err")" = 1 ] &&
       [ "$(grep -c '^benchmark-mpi: partitioning, distributing to 2 ranks' "$tmp/mpi_err")" = 1 ] &&
       ended "$tmp/solve_err" solve && [ "$(grep -c '^solve: ' "$tmp/solve_err")" = 2 ] && [ ! -s "$tmp/mpi_err0" ]; then
        pass "$t"
    else fail "$t" "$tmp/mpi_err"; cat "$tmp/solve_err" "$tmp/mpi_err0" 2>/dev/null; fi
fi

# ---- item: convert writes the format its output's name says -----------------
# .mtx Matrix Market, .mtx.gz the same compressed, .petsc and .bin PETSc
# binary (class id 1211216; --to petsc64: 8-byte integers, the header's
# too); any other name is
# refused (bad_args.txt) unless --to names the format; PETSc back to .mtx
# gives the same file.
t=convert_takes_the_output_format_from_the_name
classid() { od -An -tx1 -N4 "$1" | tr -d ' \n'; }
if timeout "$tmo" "$bin/convert" "$M" "$tmp/c.mtx" > "$out" 2>&1 && [ "$(head -c 14 "$tmp/c.mtx")" = "%%MatrixMarket" ] &&
   timeout "$tmo" "$bin/convert" "$M" "$tmp/c.mtx.gz" >> "$out" 2>&1 && [ "$(od -An -tx1 -N2 "$tmp/c.mtx.gz" | tr -d ' ')" = 1f8b ] &&
   gzip -dc "$tmp/c.mtx.gz" | cmp -s - "$tmp/c.mtx" &&
   timeout "$tmo" "$bin/convert" "$M" "$tmp/c.petsc" >> "$out" 2>&1 && [ "$(classid "$tmp/c.petsc")" = 00127b50 ] &&
   timeout "$tmo" "$bin/convert" "$tmp/c.mtx.gz" "$tmp/c.bin" >> "$out" 2>&1 && cmp -s "$tmp/c.bin" "$tmp/c.petsc" &&
   timeout "$tmo" "$bin/convert" "$tmp/c.petsc" "$tmp/back.mtx" >> "$out" 2>&1 && cmp -s "$tmp/back.mtx" "$tmp/c.mtx" &&
   timeout "$tmo" "$bin/convert" "$M" "$tmp/c.data" --to petsc64 >> "$out" 2>&1 &&
   [ "$(od -An -tx1 -N8 "$tmp/c.data" | tr -d ' \n')" = 0000000000127b50 ] &&
   [ "$(wc -c < "$tmp/c.data")" -gt "$(wc -c < "$tmp/c.petsc")" ] &&
   timeout "$tmo" "$bin/convert" "$tmp/c.data" "$tmp/c.txt" --to mtx >> "$out" 2>&1 && cmp -s "$tmp/c.txt" "$tmp/c.mtx" &&
   grep -q '^bench=convert .* from=mtx to=mtx.gz ' "$out" && grep -q '^bench=convert .* from=petsc to=mtx ' "$out"; then
    pass "$t"
else fail "$t" "$out"; fi
expect_error "convert_refuses_an_output_name_without_a_format_and_writes_nothing" "give --to mtx, petsc or petsc64" \
    "$bin/convert" "$M" "$tmp/none.dat"
if [ -e "$tmp/none.dat" ]; then fail "convert_wrote_a_file_it_refused"; fi

# ---- item: lost output is an error -------------------------------------------
# A full disk (/dev/full) or an unwritable path: exit non-zero with the
# system's reason, never 0 with a truncated file; the CSV is opened before
# anything is measured.
expect_error "genmat_to_a_full_stdout_fails" "writing standard output: No space left on device" \
    sh -c 'exec "$0" lap2d 300 > /dev/full' "$bin/genmat"
expect_error "genmat_small_output_to_a_full_stdout_fails_at_the_close" "No space left on device" \
    sh -c 'exec "$0" lap2d 3 > /dev/full' "$bin/genmat"
expect_error "genmat_-o_dev_full_fails" "writing /dev/full: No space left on device" "$bin/genmat" lap2d 300 -o /dev/full
expect_error "genmat_-o_unwritable_path_fails" "cannot create $tmp/none/m.mtx: No such file or directory" \
    "$bin/genmat" lap2d 3 -o "$tmp/none/m.mtx"
if [ -c /dev/full ]; then pass "genmat_left_dev_full_a_device"; else fail "genmat_left_dev_full_a_device"; fi
t=benchmark_omp_unwritable_csv_fails_before_measuring
expect_error "$t" "--csv $tmp/none/x.csv: cannot create: No such file or directory" \
    "$bin/benchmark-omp" "$M" 1 --no-bw --reps 5 --csv "$tmp/none/x.csv"
if grep -q '^threads=' "$out"; then fail "$t: it measured first" "$out"; fi
expect_error "benchmark_omp_csv_on_a_full_disk_fails" "--csv /dev/full: writing failed: No space left on device" \
    "$bin/benchmark-omp" "$M" 1 --no-bw --reps 5 --csv /dev/full
expect_error "benchmark-naive_to_a_full_stdout_fails" "writing standard output failed: No space left on device" \
    sh -c 'exec "$0" "$1" --reps 5 > /dev/full' "$bin/benchmark-naive" "$M"
expect_error "benchmark-omp_to_a_full_stdout_fails" "writing standard output failed: No space left on device" \
    sh -c 'exec "$0" "$1" --reps 5 --no-bw > /dev/full' "$bin/benchmark-omp" "$M"
if [ "$have_mpi" = 1 ]; then
    for prog in benchmark-mpi solve; do
        expect_error_np 2 "${prog}_to_a_full_stdout_fails" "writing standard output failed" \
            sh -c 'exec "$0" "$1" --reps 2 > /dev/full' "$bin/$prog" "$M"
    done
fi
rm -f "$tmp/ok.csv"
if timeout "$tmo" "$bin/benchmark-omp" "$M" 1,2 --no-bw --reps 5 --format csr,auto --csv "$tmp/ok.csv" > "$out" 2>&1 &&
   timeout "$tmo" "$bin/benchmark-omp" "$M" 1 --no-bw --reps 5 --format csr --csv "$tmp/ok.csv" >> "$out" 2>&1 &&
   [ "$(grep -c '^bench,matrix,' "$tmp/ok.csv")" = 1 ] && [ "$(wc -l < "$tmp/ok.csv")" = 6 ]; then
    pass "benchmark_omp_csv_appends_rows_under_one_header"
else fail "benchmark_omp_csv_appends_rows_under_one_header" "$tmp/ok.csv"; fi

# ---- item: overflow and underflow -------------------------------------------
# Duplicates summing past the range are refused at read time; a product that
# overflows is reported as such (its own field and message), never as a wrong
# kernel; subnormal products pass the bound's absolute term.
if [ -n "$single" ]; then big=3e38 t1=1e-40 t2=3e-45; else big=1e308 t1=1e-310 t2=3e-320; fi
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 %s\n1 2 %s\n2 2 1\n' $big $big > "$tmp/ovf.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 %s\n2 1 %s\n' $t1 $t2 > "$tmp/den.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 %s\n2 2 1\n1 1 %s\n' $big $big > "$tmp/dup.mtx"
for prog in benchmark-naive benchmark-omp; do
    nobw=""; [ "$prog" = benchmark-omp ] && nobw=--no-bw
    expect_error "${prog}_reports_an_overflowing_product_as_overflow" "the product overflows the" \
        "$bin/$prog" "$tmp/ovf.mtx" --reps 5 $nobw
    n=$(grep -c '^bench=\(naive\|omp\) .* violations=0 overflows=1 ' "$out")
    if [ "$n" -ge 1 ] && ! grep -q 'off the reference bound' "$out"; then pass "${prog}_overflow_has_its_own_field"
    else fail "${prog}_overflow_has_its_own_field ($n lines)" "$out"; fi
    expect_error "${prog}_refuses_duplicates_summing_to_inf" "entry (1,1) is given more than once" \
        "$bin/$prog" "$tmp/dup.mtx"
    if timeout "$tmo" "$bin/$prog" "$tmp/den.mtx" --reps 5 $nobw > "$out" 2>&1 && ! grep -q 'violations=[1-9]' "$out" &&
       grep -q 'violations=0' "$out"; then pass "${prog}_accepts_subnormal_products"
    else fail "${prog}_accepts_subnormal_products" "$out"; fi
done
if [ "$have_mpi" = 1 ]; then
    expect_error_np 2 "benchmark-mpi_reports_an_overflowing_product_as_overflow" "the product overflows the" \
        "$bin/benchmark-mpi" "$tmp/ovf.mtx" --reps 5
    if grep -q '^bench=mpi .* violations=0 .* overflows=1' "$out"; then pass "benchmark-mpi_overflow_has_its_own_field"
    else fail "benchmark-mpi_overflow_has_its_own_field" "$out"; fi
    # the check from every rank's rows read again (--read parallel) counts them too (it left them unset)
    expect_error_np 2 "benchmark-mpi_read_parallel_reports_an_overflowing_product_as_overflow" "range in 1 rows (first row 1)" \
        "$bin/benchmark-mpi" "$tmp/ovf.mtx" --reps 5 --read parallel
    if grep -q '^bench=mpi .* violations=0 .* overflows=1 .*version=' "$out"; then pass "benchmark-mpi_read_parallel_overflow_has_its_own_field"
    else fail "benchmark-mpi_read_parallel_overflow_has_its_own_field" "$out"; fi
    expect_error_np 2 "solve_reports_an_overflowing_product_as_overflow" "y = A*1 overflows the" \
        "$bin/solve" "$tmp/ovf.mtx"
    expect_error_np 2 "benchmark-mpi_refuses_duplicates_summing_to_inf" "entry (1,1) is given more than once" \
        "$bin/benchmark-mpi" "$tmp/dup.mtx"
    if timeout "$tmo" $MPIRUN -n 2 "$bin/benchmark-mpi" "$tmp/den.mtx" --reps 5 > "$out" 2>&1 &&
       grep -q '^bench=mpi .* violations=0 ' "$out"; then pass "benchmark-mpi_accepts_subnormal_products at 2 ranks"
    else fail "benchmark-mpi_accepts_subnormal_products at 2 ranks" "$out"; fi
fi

# solve --rhs with entries near 1e300: ||b||^2 overflowed ("||b|| is not
# finite"); the solvers scale b and x by a power of two
if [ "$have_mpi" = 1 ] && [ -z "$single" ]; then
    awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print "4096 1";
                 for (i = 0; i < 4096; i++) printf "%.17g\n", (1 + i % 7) * 1e300 }' > "$tmp/rhs_big.mtx"
    if timeout "$tmo" $MPIRUN -n 2 "$bin/solve" "$M" --rhs "$tmp/rhs_big.mtx" > "$out" 2>&1 &&
       grep -q '^  status: converged' "$out"; then pass "solve_with_a_rhs_near_1e300_converges at 2 ranks"
    else fail "solve_with_a_rhs_near_1e300_converges at 2 ranks" "$out"; fi
fi

# ---- item: genmat's blocks are symmetric as documented ------------------------
symmetric() { # FILE: 1 when every (i,j,v) has its (j,i,v)
    awk 'BEGIN { h = 0 } /^%/ { next } !h { h = 1; next } { a[$1 " " $2] = $3 }
         END { for (k in a) { split(k, ij, " "); if (a[ij[2] " " ij[1]] != a[k]) { print "asymmetric at " k; exit 1 } } }' "$1"
}
ok=1
for spec in "1200 --width 12" "50 --width 7" "10 --width 3 --values random" "9 --width 9" "17 --width 1"; do
    # shellcheck disable=SC2086
    "$bin/genmat" blocks $spec -o "$tmp/b.mtx" && symmetric "$tmp/b.mtx" > "$out" || { ok=0; echo "  blocks $spec"; cat "$out"; }
done
symmetric matrices/blocks_1200_b12.mtx > "$out" || { ok=0; echo "  matrices/blocks_1200_b12.mtx"; cat "$out"; }
if [ "$ok" = 1 ]; then pass "genmat_blocks_is_symmetric_and_the_bundled_one_too"
else fail "genmat_blocks_is_symmetric_and_the_bundled_one_too"; fi
# fem3d: symmetric in both value kinds, its --symmetric form the lower triangle,
# and its rows not one offset pattern (the shuffled numbering)
ok=1
for spec in "4" "5 --dof 2 --values random" "3 --dof 1 --values random"; do
    # shellcheck disable=SC2086
    "$bin/genmat" fem3d $spec -o "$tmp/f.mtx" && symmetric "$tmp/f.mtx" > "$out" || { ok=0; echo "  fem3d $spec"; cat "$out"; }
done
"$bin/genmat" fem3d 5 --values random -o "$tmp/g.mtx" && "$bin/genmat" fem3d 5 --values random --symmetric -o "$tmp/s.mtx" &&
awk '/^%/ { next } FNR == NR { if (!h1) { h1 = 1; next } if ($1 >= $2) g[$1 " " $2] = $3; next }
     !h2 { h2 = 1; next } { if (g[$1 " " $2] != $3) exit 1; n++ } END { m = 0; for (k in g) m++; exit n != m }'     "$tmp/g.mtx" "$tmp/s.mtx" || { ok=0; echo "  fem3d 5 --symmetric is not the lower triangle"; }
# offsets col - row of each row's first entry: a shuffled mesh has many distinct ones
npat=$(awk '/^%/ { next } !h { h = 1; next } $1 != last { last = $1; print $2 - $1 }' "$tmp/g.mtx" | sort -u | wc -l)
[ "$npat" -gt 50 ] || { ok=0; echo "  fem3d 5: only $npat distinct first offsets"; }
if [ "$ok" = 1 ]; then pass "genmat_fem3d_is_symmetric_lower_triangle_and_shuffled"
else fail "genmat_fem3d_is_symmetric_lower_triangle_and_shuffled"; fi
# a row buffer the machine cannot give is refused, not written through
expect_error "genmat_refuses_a_row_buffer_beyond_ulimit_v" "out of memory for a row of 2147483647 columns" \
    sh -c 'ulimit -v 200000; exec "$0" powerlaw 2147483647' "$bin/genmat"
# its --symmetric form is the lower triangle of the general one
"$bin/genmat" blocks 50 --width 7 -o "$tmp/g.mtx" && "$bin/genmat" blocks 50 --width 7 --symmetric -o "$tmp/s.mtx"
if awk '/^%/ { next } FNR == NR { if (!h1) { h1 = 1; next } if ($1 >= $2) g[$1 " " $2] = $3; next }
        !h2 { h2 = 1; next } { if (g[$1 " " $2] != $3) exit 1; n++ } END { m = 0; for (k in g) m++; exit n != m }' \
       "$tmp/g.mtx" "$tmp/s.mtx"; then pass "genmat_blocks_symmetric_form_is_the_lower_triangle"
else fail "genmat_blocks_symmetric_form_is_the_lower_triangle"; fi
if [ "$have_mpi" = 1 ] && timeout "$tmo" $MPIRUN -n 2 "$bin/solve" matrices/blocks_1200_b12.mtx > "$out" 2>&1 &&
   grep -q '^  status: converged' "$out"; then pass "cg_converges_on_the_bundled_blocks_matrix"
elif [ "$have_mpi" = 1 ]; then fail "cg_converges_on_the_bundled_blocks_matrix" "$out"; fi

# a rank whose threads outnumber the cores of its affinity mask: one warning
# from rank 0 saying what to pass; none where each thread has a core
if [ "$have_mpi" = 1 ]; then
    for p in benchmark-mpi solve; do
        for bind in core none; do
            timeout "$tmo" mpirun --allow-run-as-root --oversubscribe --bind-to $bind -n 2 "$bin/$p" \
                matrices/lap2d_64.mtx --threads 2 > "$out" 2>&1
            n=$(grep -c "warning: a rank runs 2 OpenMP threads on 1 core .*--map-by slot:PE=2 --bind-to core" "$out")
            want=1; [ $bind = none ] && want=0
            [ $bind = none ] && [ "$(nproc)" -lt 2 ] && want=$n # one core: sharing is real, the warning right
            if [ "$n" = "$want" ]; then pass "${p}_binding_warning_bind_to_${bind}_is_${want}_line"
            else fail "${p}_binding_warning_bind_to_${bind}_is_${want}_line (got $n)" "$out"; fi
        done
    done
fi

# more threads on a machine than its processors (ranks x threads, unbound):
# one warning line from rank 0 with the cure; none where they fit
np=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) # nproc alone follows OMP_NUM_THREADS
if [ "$have_mpi" = 1 ]; then
    for p in benchmark-mpi solve; do
        for ranks in 1 $((np + 1)); do
            timeout "$tmo" $MPIRUN -n $ranks "$bin/$p" matrices/lap2d_64.mtx --threads 1 > "$out" 2>&1
            n=$(grep -c "warning: the ranks of one machine run $ranks threads on its $np processors.*OMP_WAIT_POLICY=passive" "$out")
            want=0; [ $ranks -gt "$np" ] && want=1
            if [ "$n" = "$want" ]; then pass "${p}_oversubscription_warning_at_${ranks}_ranks_is_${want}_line"
            else fail "${p}_oversubscription_warning_at_${ranks}_ranks_is_${want}_line (got $n)" "$out"; fi
        done
    done
fi
for t in 1 $((np + 1)); do
    timeout "$tmo" "$bin/benchmark-omp" matrices/lap2d_64.mtx $t --no-bw --reps 3 --format csr > "$out" 2>&1
    n=$(grep -c "^benchmark-omp: warning: $t threads on the $np processors this process may run on" "$out")
    want=0; [ $t -gt "$np" ] && want=1
    if [ "$n" = "$want" ]; then pass "benchmark-omp_oversubscription_warning_at_${t}_threads_is_${want}_line"
    else fail "benchmark-omp_oversubscription_warning_at_${t}_threads_is_${want}_line (got $n)" "$out"; fi
done

if [ -n "$record" ]; then mkdir -p "$(dirname "$record")"; echo "$P $F $S" > "$record"; fi
echo "programs: $P passed, $F failed, $S skipped"
[ -n "$record" ] || [ "$F" -eq 0 ]
