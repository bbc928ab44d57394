#!/bin/sh
# test_csv_schema.sh — the one CSV schema: run_all-omp.sh, run_all-mpi.sh
# and run_all-light.sh write the same header (that of scripts/csv.sh and of
# benchmark-omp --csv, bench/bench_util.h), every row has its columns, the
# run's facts (version, commit, host, date, compiler) are filled in, the
# matrix column is the path the script ran, and an absent value (no triad,
# no cuSPARSE time, a column the program does not measure) is empty, never
# 0. benchmark-omp and benchmark-mpi run for real on one small matrix (few
# repetitions); benchmark-light, which needs a GPU, is a stand-in printing
# its key=value line, so run_all-light.sh's own CSV code runs. The checks
# first run on planted files (another header, a row short of a column, a 0
# where a value is absent), so each is seen to fail. Ends with "N passed,
# N failed, N skipped".
#   HSPMV_BUILD=build/x86_64-double sh tests/scripts/test_csv_schema.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${HSPMV_BUILD:-}
case $build in ''|/*) ;; *) build=$root/$build ;; esac
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -f "$t/out" ] && sed 's/^/    /' "$t/out" | head -20; }
skip() { S=$((S + 1)); echo "skip $1"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
unset SLURM_JOB_ID SLURM_STEP_ID SLURM_NTASKS SLURM_CPUS_PER_TASK SLURM_JOB_CPUS_PER_NODE SRUN MPIRUN
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
ver=$(awk '/^#define HSPMV_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $3; s = "."} END {print v}' "$root/include/hspmv.h")
header=$(. "$root/scripts/csv.sh" && echo "$csv_header")

# col FILE NAME: the values of column NAME, one per row (no quoted commas here)
col() { awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print (k ? $k : "?") }' "$1"; }
# same_header FILE: its first line is the schema
same_header() { [ "$(head -n 1 "$1")" = "$header" ]; }
# full_rows FILE: at least one row, every row as many fields as the header
full_rows() { awk -F, 'NR == 1 { n = NF; next } { r++; if (NF != n) short = 1 } END { exit short || !(r > 0) }' "$1"; }
# empty_in FILE COLUMN...: each named column empty in every row
empty_in() { _f=$1; shift; for _c in "$@"; do [ -z "$(col "$_f" "$_c" | tr -d '\n')" ] || return 1; done; }
# facts FILE: version is this tree's, date ISO 8601 UTC, commit/host/compiler set
facts() {
    [ "$(col "$1" version | sort -u)" = "$ver" ] &&
        [ -z "$(col "$1" date | grep -v '^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z$')" ] &&
        [ -z "$(col "$1" commit | grep -x '')" ] && [ -z "$(col "$1" host | grep -x '')" ] &&
        [ -z "$(col "$1" compiler | grep -x '')" ]
}

# 1. the checks, on planted files
printf 'matrix,rows\nx,1\n' > other.csv
{ echo "$header"; echo "omp,m.mtx"; } > short.csv
{ echo "$header"; echo "$header" | tr ',' '\n' | awk '{ printf "%s%s", (NR > 1 ? "," : ""), ($1 == "triad_gbs" ? "0" : "") } END { print "" }'; } > zero.csv
if same_header other.csv; then bad "planted: another header is caught"; else ok "planted: another header is caught"; fi
if full_rows short.csv; then bad "planted: a short row is caught"; else ok "planted: a short row is caught"; fi
if empty_in zero.csv triad_gbs; then bad "planted: a 0 for an absent triad is caught"; else ok "planted: a 0 for an absent triad is caught"; fi

# 2. the C schema is the scripts' (benchmark-omp --csv writes BU_CSV_HEADER)
mkdir m
cp "$root/matrices/lap2d_64.mtx" m/
bomp=${build:+$build/bin/}benchmark-omp
bmpi=${build:+$build/bin/}benchmark-mpi
[ -n "$build" ] || { bomp=$root/benchmark-omp; bmpi=$root/benchmark-mpi; }
if [ -x "$bomp" ]; then
    "$bomp" m/lap2d_64.mtx 1 --no-bw --reps 2 --format csr --csv prog.csv > out 2>&1
    check "benchmark-omp --csv: the schema of scripts/csv.sh, full rows" \
        test $? = 0 -a "$(head -n 1 prog.csv)" = "$header" -a -n "$(full_rows prog.csv && echo y)"
    check "benchmark-omp --csv without a triad: triad_gbs and frac_triad empty, facts filled" \
        test -n "$(empty_in prog.csv triad_gbs frac_triad partition imbalance halo_bytes wait_share vs_cusparse && facts prog.csv && echo y)"
    printf 'matrix,rows\n' > old.csv
    "$bomp" m/lap2d_64.mtx 1 --no-bw --reps 2 --format csr --csv old.csv > out 2>&1
    check "benchmark-omp --csv onto a file with other columns: refused (exit 1), the file kept" \
        test $? = 1 -a "$(cat old.csv)" = "matrix,rows" -a -n "$(grep 'other columns' out)"
else skip "benchmark-omp --csv ($bomp not built)"; fi

# 3. the three scripts on one small matrix
if [ -x "$bomp" ]; then
    sh "$root/run_all-omp.sh" "$bomp" 1 m --csv omp.csv --no-bw --reps 2 --format csr > out 2>&1
    check "run_all-omp.sh --csv: exit 0" test $? = 0
else skip "run_all-omp.sh ($bomp not built)"; fi
if [ -x "$bmpi" ] && command -v mpirun > /dev/null 2>&1; then
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
    [ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    timeout 120 sh "$root/run_all-mpi.sh" "$bmpi" 1 m --csv mpi.csv -- --reps 2 > out 2>&1
    check "run_all-mpi.sh --csv at 1 rank: exit 0" test $? = 0
else skip "run_all-mpi.sh ($bmpi not built or no mpirun)"; fi
# benchmark-light's line as the program prints it (bench/benchmark_light.c),
# no cuSPARSE timed (vs_cusparse=0.0000) and no cols key
cat > light <<'EOF'
#!/bin/sh
echo "bench=light matrix=$1 precision=double kernel=light hints=0 panel_cols=0 panel_kernel=- picked=light4 rows=4096 nnz=20224 mean_row=4.938 max_row=5 long_rows=0 reps=2 median_ms=0.010000 min_ms=0.010000 max_ms=0.010000 gflops=4.045 gbs=34.10 copy_gbs=1000.0 copy_frac=0.0341 vs_cusparse=0.0000 upload_s=0.0010 max_rel=1.000e-17 avg_rel=1.000e-17 violations=0 checked=1 version=$V commit=abc1234 host=gpu1 date=2026-01-31T12:00:00Z compiler=gcc-12.2.0 progress=auto ranks=1 threads=1"
EOF
chmod +x light
V=$ver sh "$root/run_all-light.sh" ./light m --csv light.csv --reps 2 > out 2>&1
check "run_all-light.sh --csv (benchmark-light stand-in): exit 0" test $? = 0

n=0
for f in omp mpi light; do
    [ -f $f.csv ] || continue
    n=$((n + 1))
    cp $f.csv out
    check "run_all-$f.sh: the schema's header, full rows" test -n "$(same_header $f.csv && full_rows $f.csv && echo y)"
    check "run_all-$f.sh: bench column '$f', matrix the path it ran (m/lap2d_64.mtx)" \
        test "$(col $f.csv bench | sort -u)" = "$f" -a "$(col $f.csv matrix | sort -u)" = "m/lap2d_64.mtx"
    check "run_all-$f.sh: version, commit, host, date (ISO 8601 UTC), compiler filled" facts $f.csv
done
rm -f out
if [ "$n" -ge 2 ]; then
    check "the $n scripts' headers are identical" test "$(for f in omp mpi light; do [ -f $f.csv ] && head -n 1 $f.csv; done | sort -u | wc -l)" = 1
else skip "the headers compared ($n scripts ran)"; fi
[ -f omp.csv ] && check "run_all-omp.sh without a triad: triad_gbs, frac_triad empty (not 0)" \
    test -n "$(empty_in omp.csv triad_gbs frac_triad vs_cusparse && echo y)"
[ -f mpi.csv ] && check "run_all-mpi.sh without --triad: triad_gbs empty; format, seg_ratio, vs_cusparse empty" \
    test -n "$(empty_in mpi.csv triad_gbs frac_triad format seg_ratio vs_cusparse && echo y)" -a "$(col mpi.csv ranks)" = 1
check "run_all-light.sh: vs_cusparse of 0 (no cuSPARSE) and the absent cols are empty" \
    test -n "$(empty_in light.csv vs_cusparse cols triad_gbs && echo y)" -a "$(col light.csv kernel)" = light

echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
