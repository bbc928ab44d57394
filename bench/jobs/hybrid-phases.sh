#!/bin/bash
# hybrid-diag-job.sh — issue 11 diagnostics for the hybrid splits (ranks x
# threads) on the 16-core machine: per-rank phase times (--verbose) of
# 16x1, 8x2, 4x4 and 2x8 with the variants asked for, benchmark-omp before
# and after each matrix. Needs what scripts/job-env.sh says; results under
# $OUT. The first job (default variants) timed each gather forced and
# shared rows static (tail 0) on random columns, and the real-valued
# stencil's hybrids with node and p2p halos.
#   MATS="rnd l3r" SPLITS="16x1 8x2 4x4 2x8" V_rnd="--env none ..." V_l3r=...
set -u
. scripts/job-env.sh
MATS=${MATS:-rnd l3r}
SPLITS=${SPLITS:-16x1 8x2 4x4 2x8}
gen_mats $MATS
{ id -u; grep -i huge /proc/meminfo; mount | grep -E "shm|huge"; } >> $OUT/sys.txt 2>&1
omp() { env OMP_NUM_THREADS=16 OMP_PROC_BIND=true OMP_PLACES=cores timeout 90 ./benchmark-omp $D/$1.mtx 16 \
  --format auto --no-bw --reps 40 2>&1 | grep "^bench=omp" >> $OUT/omp.txt; }
run() { # matrix ranks threads benchmark-mpi-arguments...
  local m=$1 r=$2 t=$3; shift 3
  timeout 240 mpirun -n $r --map-by slot:PE=$t --bind-to core -x OMP_NUM_THREADS=$t -x OMP_PROC_BIND=close \
    -x OMP_PLACES=cores ./benchmark-mpi $D/$m.mtx --read parallel --threads $t --reps 20 --passes 2 \
    --verbose "$@" > $OUT/mpi-$m-${r}x$t.txt 2>&1
  echo "$m ${r}x$t t=$((SECONDS-T0))"
}
DEF_rnd="--env none --env HSPMV_NODE_GATHER=direct --env HSPMV_NODE_GATHER=copy --env HSPMV_NODE_SHARE_TAIL=0"
for m in $MATS; do
  v=V_$m; d=DEF_$m; V=${!v:-${!d:---env none --env HSPMV_HALO=p2p}}
  omp $m
  for s in $SPLITS; do run $m ${s%x*} ${s#*x} $V; done
  omp $m
done
K="matrix=[^ ]+|ranks=[0-9]+|threads=[0-9]+|median_ms=[0-9.]+|pass_medians_ms=[^ ]+|ghost_ms=[0-9.]+|sync_ms=[0-9.]+|env=[^ ]+|gather=[a-z+-]+|gather_[a-z]+_ms=[0-9.]+"
for f in $OUT/mpi-*.txt; do echo "== $f"; grep "^bench=mpi" $f | grep -oE "$K" | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'; done
grep -oE "matrix=[^ ]+|format=[a-z0-9]+|median_ms=[0-9.]+" $OUT/omp.txt | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'
