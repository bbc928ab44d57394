#!/bin/bash
# hybrid-diag-job.sh — issue 11 diagnostics for the hybrid splits (ranks x
# threads) on the 16-core machine: per-rank phase times (--verbose) of 8x2,
# 4x4 and 2x8 on random columns with each gather forced and with shared rows
# static (tail 0), one 4x4 run with OpenMP's active wait, and the real-valued
# stencil's hybrids with node and p2p halos; benchmark-omp before and after.
# Needs what scripts/job-env.sh says; results under $OUT.
set -u
. scripts/job-env.sh
gen_mats rnd l3r
{ id -u; grep -i huge /proc/meminfo; mount | grep -E "shm|huge"; } >> $OUT/sys.txt 2>&1
omp() { env OMP_NUM_THREADS=16 OMP_PROC_BIND=true OMP_PLACES=cores timeout 90 ./benchmark-omp $D/$1.mtx 16 \
  --format auto --no-bw --reps 40 2>&1 | grep "^bench=omp" >> $OUT/omp.txt; }
run() { # matrix ranks threads tag benchmark-mpi-arguments...
  local m=$1 r=$2 t=$3 tag=$4; shift 4
  timeout 200 mpirun -n $r --map-by slot:PE=$t --bind-to core -x OMP_NUM_THREADS=$t -x OMP_PROC_BIND=close \
    -x OMP_PLACES=cores -x OMP_WAIT_POLICY ./benchmark-mpi $D/$m.mtx --read parallel --threads $t --reps 20 --passes 2 --verbose "$@" \
    > $OUT/mpi-$m-${r}x$t$tag.txt 2>&1
  echo "$m ${r}x$t$tag t=$((SECONDS-T0))"
}
V="--env none --env HSPMV_NODE_GATHER=direct --env HSPMV_NODE_GATHER=copy --env HSPMV_NODE_SHARE_TAIL=0"
omp rnd
run rnd 16 1 "" --env none --env HSPMV_NODE_SHARE_TAIL=64
for h in "8 2" "4 4" "2 8"; do run rnd $h "" $V; done
OMP_WAIT_POLICY=active run rnd 4 4 -active --env none
omp rnd
omp l3r
run l3r 16 1 "" --env none
for h in "8 2" "4 4" "2 8"; do run l3r $h "" --env none --env HSPMV_HALO=p2p; done
omp l3r
K="matrix=[^ ]+|ranks=[0-9]+|threads=[0-9]+|median_ms=[0-9.]+|owned_ms=[0-9.]+|ghost_ms=[0-9.]+|sync_ms=[0-9.]+|wait_ms=[0-9.]+|halo=[a-z0-9]+|env=[^ ]+|gather=[a-z-]+"
for f in $OUT/mpi-*.txt; do echo "== $f"; grep "^bench=mpi" $f | grep -oE "$K" | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'
  grep "^    rank" $f | grep -oE "rank [0-9]+|(owned|ghost|sync|all) [0-9.]+" | paste -s -d' ' | sed 's/ rank/\nrank/g' | head -40; done
grep -oE "matrix=[^ ]+|format=[a-z0-9]+|median_ms=[0-9.]+" $OUT/omp.txt | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'
