#!/bin/bash
# read-modes.sh — how fast a large Matrix Market file gets into a distributed
# matrix: a real-valued 200^3 Laplacian (--values random, 55.8M entries,
# 1.3 GB of text) in the page cache; 16 ranks x 1 thread reading it with
# --read parallel against --read root (passes interleaved; read + partition
# + distribution seconds, max over ranks, and each rank's peak memory once
# its rows are in place against its own CSR bytes), 2 ranks x 8 threads and
# 1 rank x 16 threads, and one process reading it into CSR with 1..16
# threads (benchmark-naive --read-only).
#   bench/jobs/read-modes.sh [PASSES]    (default 3)
# MATRIX_DIR (default /tmp/m): where the matrix is made (or found, as
# lap3d_200_random.mtx); it is deleted at the end.
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI; the build it makes). Results under
# $OUT (default results/read): read-mpi.txt (and -verbose, -hybrid),
# read-threads.txt, read-summary.txt (also on stdout).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
PASSES=${1:-3}
OUT=${OUT:-results/read}
. bench/jobs/job-env.sh
D=${MATRIX_DIR:-/tmp/m}; mkdir -p $D
M=$D/lap3d_200_random.mtx
[ -s $M ] || ./genmat lap3d 200 --values random -o $M || exit 1
ls -l $M >> $OUT/sys.txt
cat $M > /dev/null # into the page cache
echo "gen done t=$((SECONDS-T0))"
MPI="mpirun --bind-to core --map-by core"
for pass in $(seq $PASSES); do
  for r in root parallel; do
    OMP_NUM_THREADS=1 timeout 300 $MPI -n 16 ./benchmark-mpi $M --read $r --reps 10 --threads 1 > /tmp/r.txt 2>&1
    grep "^bench=mpi" /tmp/r.txt | sed "s/^/pass=$pass /" >> $OUT/read-mpi.txt
    grep -E "^  (setup|peak memory)" /tmp/r.txt | sed "s/^/pass=$pass $r /" >> $OUT/read-mpi-verbose.txt
  done
  for hy in "2 8" "1 16"; do set -- $hy
    env OMP_NUM_THREADS=$2 OMP_PROC_BIND=close OMP_PLACES=cores timeout 300 mpirun -n $1 --map-by slot:PE=$2 \
      --bind-to core ./benchmark-mpi $M --read parallel --reps 10 --threads $2 2>&1 | grep "^bench=mpi" |
      sed "s/^/pass=$pass /" >> $OUT/read-mpi-hybrid.txt
  done
  for t in 1 2 4 8 16; do
    env OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores timeout 300 ./benchmark-naive $M --read-only 2>&1 |
      grep "^bench=naive-read" | sed "s/^/pass=$pass /" >> $OUT/read-threads.txt
  done
  echo "pass $pass t=$((SECONDS-T0))"
done
rm -f $M

# per pass: setup seconds (read + partition + distribute) of each read and
# their ratio, the parallel read's worst peak / own rows; then medians
awk '
  function v(k,   i, a) { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return "" }
  /^pass=/ { p = v("pass"); r = v("read"); s = v("read_s") + v("partition_s") + v("distribute_s")
             t[p, r] = s; sh[p, r] = v("read_peak_share_max"); rs[p, r] = v("read_s"); ps[p, r] = v("partition_s")
             ds[p, r] = v("distribute_s"); if (p > np) np = p }
  END {
    printf "%-5s %-34s %-34s %-7s %s\n", "pass", "root: read+part+dist = s", "parallel: read+part+dist = s", "ratio", "parallel peak/own rows"
    for (p = 1; p <= np; p++) {
      q = t[p, "parallel"] > 0 ? t[p, "root"] / t[p, "parallel"] : 0; ratio[p] = q
      printf "%-5d %.3f+%.3f+%.3f = %-12.3f %.3f+%.3f+%.3f = %-12.3f %-7.2f %.2fx\n", p, rs[p, "root"], ps[p, "root"],
             ds[p, "root"], t[p, "root"], rs[p, "parallel"], ps[p, "parallel"], ds[p, "parallel"], t[p, "parallel"], q,
             sh[p, "parallel"]
    }
    n = np; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (ratio[j] < ratio[i]) { x = ratio[i]; ratio[i] = ratio[j]; ratio[j] = x }
    if (n > 0) printf "median ratio root / parallel: %.2f (target >= 8)\n", n % 2 ? ratio[(n + 1) / 2] : (ratio[n / 2] + ratio[n / 2 + 1]) / 2
  }' $OUT/read-mpi.txt | tee $OUT/read-summary.txt
awk '
  function v(k,   i, a) { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return "" }
  { th = v("threads"); m[th] = m[th] " " v("read_mbs") }
  END { for (th in m) printf "one process, %2d threads: read_mbs%s\n", th, m[th] }' $OUT/read-threads.txt |
  sort -k3 -n | tee -a $OUT/read-summary.txt
echo "total t=$((SECONDS-T0))"
