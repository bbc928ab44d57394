#!/bin/bash
# share-diag-job.sh — issue 11 diagnostics on scattered columns (16-core
# machine): what the plan's timings of the gathers (direct, copy, shared
# rows; timed in blocks, or interleaved with HSPMV_PLAN_INTERLEAVE=1) say
# beside real products with each gather forced, at 16x1 and in hybrids.
# Needs what scripts/job-env.sh says; results under $OUT.
set -u
. scripts/job-env.sh
gen_mats rnd pwl
PIN="OMP_PROC_BIND=true OMP_PLACES=cores"
V="--env none --env HSPMV_PLAN_INTERLEAVE=1 --env HSPMV_NODE_GATHER=direct --env HSPMV_NODE_GATHER=copy --env HSPMV_NODE_GATHER=share"
run() { # ranks threads matrix
  env OMP_NUM_THREADS=$2 OMP_PROC_BIND=close OMP_PLACES=cores timeout 250 mpirun -n $1 --map-by slot:PE=$2 --bind-to core \
    ./benchmark-mpi $D/$3.mtx --read parallel --threads $2 --reps 20 --passes 2 $V --verbose > $OUT/mpi-$3-$1x$2.txt 2>&1
  echo "$3 $1x$2 t=$((SECONDS-T0))"
}
for m in rnd pwl; do
  env OMP_NUM_THREADS=16 $PIN timeout 90 ./benchmark-omp $D/$m.mtx 16 --format auto --no-bw --reps 30 2>&1 | grep "^bench=omp" >> $OUT/omp.txt
done
run 16 1 rnd; run 2 8 rnd; run 16 1 pwl; run 8 2 pwl
K="env=[^ ]+|gather=[a-z]+|gather_[a-z]+_ms=[0-9.]+|median_ms=[0-9.]+|ghost_ms=[0-9.]+|sync_ms=[0-9.]+|owned_ms=[0-9.]+"
for f in $OUT/mpi-*.txt; do echo "== $f"; grep "^bench" $f | grep -oE "$K" | paste -s -d' ' | sed 's/ median_ms/\nmedian_ms/g'; done
grep -oE "matrix=[^ ]+|format=[a-z]+|median_ms=[0-9.]+" $OUT/omp.txt | paste -s -d' '
