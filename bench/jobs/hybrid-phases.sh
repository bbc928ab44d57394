#!/bin/bash
# hybrid-phases.sh — per-rank phase times (--verbose: owned, ghost, sync,
# gathers) of the hybrid splits (ranks x threads) 16x1, 8x2, 4x4 and 2x8 on
# random 4M x 8 and the real-valued 200^3 stencil, each split timing the
# node-aware and the p2p halo from one parallel read in 2 interleaved passes;
# benchmark-omp (auto, 16 threads) before and after each matrix.
#   bench/jobs/hybrid-phases.sh
# MATS (default "rnd l3r", names from bench/jobs/job-env.sh), SPLITS
# (default "16x1 8x2 4x4 2x8"), MPI_ARGS (default "--halo node,p2p": the
# benchmark-mpi arguments of every split).
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI; the build it makes).
# Results under $OUT (default results/scaling): mpi-MATRIX-RxT.txt, omp.txt,
# sys.txt; a summary on stdout.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
. bench/jobs/job-env.sh
MATS=${MATS:-rnd l3r}
SPLITS=${SPLITS:-16x1 8x2 4x4 2x8}
MPI_ARGS=${MPI_ARGS:---halo node,p2p}
gen_mats $MATS
{ id -u; grep -i huge /proc/meminfo; mount | grep -E "shm|huge"; } >> $OUT/sys.txt 2>&1
omp() { env OMP_NUM_THREADS=16 OMP_PROC_BIND=true OMP_PLACES=cores timeout 90 ./benchmark-omp $D/$1.mtx 16 \
  --format auto --no-bw --reps 40 2>&1 | grep "^bench=omp" >> $OUT/omp.txt; }
run() { # matrix ranks threads
  local m=$1 r=$2 t=$3
  timeout 240 mpirun -n $r --map-by slot:PE=$t --bind-to core -x OMP_NUM_THREADS=$t -x OMP_PROC_BIND=close \
    -x OMP_PLACES=cores ./benchmark-mpi $D/$m.mtx --read parallel --threads $t --reps 20 --passes 2 \
    --verbose $MPI_ARGS > $OUT/mpi-$m-${r}x$t.txt 2>&1
  echo "$m ${r}x$t t=$((SECONDS-T0))"
}
for m in $MATS; do
  omp $m
  for s in $SPLITS; do run $m ${s%x*} ${s#*x}; done
  omp $m
done
K="matrix=[^ ]+|ranks=[0-9]+|threads=[0-9]+|median_ms=[0-9.]+|pass_medians_ms=[^ ]+|ghost_ms=[0-9.]+|sync_ms=[0-9.]+|halo=[a-z0-9]+|gather=[a-z+-]+|gather_[a-z]+_ms=[0-9.]+"
for f in $OUT/mpi-*.txt; do echo "== $f"; grep "^bench=mpi" $f | grep -oE "$K" | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'; done
grep -oE "matrix=[^ ]+|format=[a-z0-9]+|median_ms=[0-9.]+" $OUT/omp.txt | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'
