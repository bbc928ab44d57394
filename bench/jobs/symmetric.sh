#!/bin/bash
# symmetric.sh — one process of 16 threads: the one-triangle product of
# symmetric matrices (hspmv_opts.symmetric auto, format auto) against the
# full-storage formats AUTO chooses among, in interleaved rounds of one
# benchmark-omp run per matrix and pass; and a non-symmetric matrix with
# --symmetric auto and no (auto leaves it alone: the check's cost only).
#   bench/jobs/symmetric.sh [PASSES]   (default 2; report the last: the first
#   pass on a fresh machine warms it)
# Matrices (genmat --values random --symmetric): lap3d N3 (200), lap3d27 N27
# (150), fem3d NF (80, 3 unknowns a node); random NR (4000000) --k 8 --values
# random for the non-symmetric control. BUDGET=seconds (default 400): no run
# starts after that. Results under $OUT (default results/scaling):
# sym-MATRIX.txt, control.txt; a summary on stdout.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
PASSES=${1:-2}
BUDGET=${BUDGET:-400}
N3=${N3:-200} N27=${N27:-150} NF=${NF:-80} NR=${NR:-4000000}
export NCCL_NVLS_ENABLE=0
. bench/jobs/job-env.sh
echo "build done t=$((SECONDS-T0))"
export OMP_PROC_BIND=true OMP_PLACES=cores OMP_NUM_THREADS=16
D=/tmp/msym; mkdir -p $D
G() { [ -s $D/$1.mtx ] || ./genmat "${@:2}" -o $D/$1.mtx > /dev/null; }
G l3s lap3d $N3 --values random --symmetric & G l27s lap3d27 $N27 --values random --symmetric &
G fems fem3d $NF --values random --symmetric & G r4r random $NR --k 8 --values random &
wait
echo "gen done t=$((SECONDS-T0))"
run() { # matrix, formats, extra options; appends the key=value lines
  [ $((SECONDS-T0)) -lt $BUDGET ] || { echo "$1 $2: skipped (past BUDGET=$BUDGET s)"; return; }
  timeout 100 ./benchmark-omp $D/$1.mtx 16 --reps 40 --format $2 --no-bw "${@:3}" 2>&1 |
    grep -E "^bench=omp|prepared|^  (auto|csr|format)" >> $OUT/sym-$1.txt
  echo "$1 $2 $* t=$((SECONDS-T0))"
}
for p in $(seq $PASSES); do
  echo "pass $p" | tee -a $OUT/sym-l27s.txt $OUT/sym-fems.txt $OUT/sym-l3s.txt $OUT/sym-r4r.txt > /dev/null
  run l27s csrp,csr16,auto --symmetric auto
  run fems csr16,csrdu,auto --symmetric auto
  run l3s csrp,csr16,auto --symmetric auto
done
run r4r auto --symmetric no
run r4r auto --symmetric auto
echo "total t=$((SECONDS-T0))"
for m in l27s fems l3s r4r; do
  echo "== $m"; grep -E "^pass|^bench=omp-summary|^bench=omp " $OUT/sym-$m.txt |
    sed -E 's/^bench=omp .*format=([a-z0-9]+) asked=([a-z0-9]+).* median_ms=([0-9.]+).* bytes=([0-9]+).*symmetric=([a-z]+) sym_halo=([0-9]+) sym_check_s=([0-9.]+).*/  \2->\1 sym=\5 median_ms=\3 bytes=\4 halo=\6 check_s=\7/;
            s/^bench=omp-summary .* auto=([a-z0-9]+) auto_ms=([0-9.]+) best=([a-z0-9]+) best_ms=([0-9.]+) auto_vs_best=([0-9.]+).*/  summary auto=\1 \2 ms, best full \3 \4 ms, ratio \5/'
done
