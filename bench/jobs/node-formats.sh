#!/bin/bash
# node-formats.sh — one process at 16 threads: benchmark-omp's formats and
# its automatic choice (kernel auto, with its own STREAM triad probe) beside
# the peers' naive OpenMP loop and librsb at 16 threads, in interleaved
# passes; a summary table per matrix (bench/jobs/node-formats-summary.sh).
#   bench/jobs/node-formats.sh [targets|defaults|all|fem] [PASSES]
#   targets (default): real values (genmat --values random): 3D 7-point 200^3, random and
#     power-law 4M rows, 8 per row; PASSES (default 2) passes, power law once (~340 s).
#   defaults: the same matrices with genmat's default values (two-valued stencil), one
#     pass (~280 s). all: both (more than one 480 s call).
#   fem: FEM-like real-valued matrices for column-index compression (CSRDU against CSR and
#     CSR16): genmat fem3d NF (3 unknowns per node, shuffled node numbers) and the 27-point
#     stencil lap3d27 N27. NF, N27: sizes (default 80 and 150).
# BUDGET=seconds (default 420): no pass starts after that, so the summary is always written.
# N3, NR: sizes (default 200 and 4000000; smaller ones for a trial run).
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (the peers' naive loop in .dev/peers, librsb and
# its driver in .dev/rsb). Results under $OUT (default results/scaling):
# omp-MATRIX.txt, peers-MATRIX.txt, summary.txt (also on stdout).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
SET=${1:-targets}
PASSES=${2:-2}
BUDGET=${BUDGET:-420}
N3=${N3:-200} NR=${NR:-4000000}
case $SET in targets|defaults|all|fem) ;; *) echo "usage: $0 [targets|defaults|all|fem] [PASSES]" >&2; exit 2;; esac
NF=${NF:-80} N27=${N27:-150}
. bench/jobs/job-env.sh
export OMP_PROC_BIND=true OMP_PLACES=cores OMP_NUM_THREADS=16
D=/tmp/m$N3-$NR; mkdir -p $D
G() { [ -s $D/$1.mtx ] || ./genmat "${@:2}" -o $D/$1.mtx; }
T=0; case $SET in targets|all) T=1;; esac
F=0; case $SET in defaults|all) F=1;; esac
E=0; [ $SET = fem ] && E=1
[ $T = 1 ] && { G l3r lap3d $N3 --values random & G r4r random $NR --k 8 --values random &
                G p4r powerlaw $NR --k 8 --values random & }
[ $F = 1 ] && { G l3 lap3d $N3 & G r4 random $NR --k 8 & G p4 powerlaw $NR --k 8 & }
[ $E = 1 ] && { G fem fem3d $NF --values random & G l27r lap3d27 $N27 --values random & }
wait
echo "gen done t=$((SECONDS-T0))"
# one pass on matrix $1: hspmv (formats $2, with the STREAM probe), the naive loop, librsb
pass() {
  [ $((SECONDS-T0)) -lt $BUDGET ] || { echo "$1: skipped (past BUDGET=$BUDGET s)" | tee -a $OUT/skipped.txt; return; }
  timeout 120 ./benchmark-omp $D/$1.mtx 16 --reps 40 --format $2 --bw 2>&1 | grep -E "^bench=omp|prepared|huge pages|triad \(" >> $OUT/omp-$1.txt
  timeout 90 /tmp/naive $D/$1.mtx 16 20 2>&1 | grep "^peer" >> $OUT/peers-$1.txt
  timeout 120 .dev/rsb/rsb_spmv $D/$1.mtx 16 20 2>&1 | grep "^peer" >> $OUT/peers-$1.txt
  echo "$1 t=$((SECONDS-T0))"
}
if [ $T = 1 ]; then for p in $(seq $PASSES); do
  pass l3r csr,csrp,csrdu,auto
  pass r4r csr,panels,auto
  [ $p = 1 ] && pass p4r csr,panels,auto
done; fi
if [ $E = 1 ]; then for p in $(seq $PASSES); do
  pass fem csr,csr16,csrdu,auto
  pass l27r csr,csr16,csrdu,csrp,auto
done; fi
if [ $F = 1 ]; then
  pass l3 csrvi,csrp,auto
  pass r4 csr,panels,auto
  pass p4 csr,panels,auto
fi
echo "total t=$((SECONDS-T0))"
sh bench/jobs/node-formats-summary.sh $OUT l3r r4r p4r l3 r4 p4 fem l27r | tee $OUT/summary.txt
