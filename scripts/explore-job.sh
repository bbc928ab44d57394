#!/bin/bash
# explore-job.sh — diagnostics for issue 11 on scattered columns (16-core
# machine): what 4 KiB pages cost one process (benchmark-omp with and
# without its huge-page request), the node-aware product at 16 ranks with
# column panels of 1..16 (row blocks through all panels) against the
# automatic choice, and one rank of 16 threads; per-rank times (--verbose).
# Needs what scripts/job-env.sh says; results under $OUT.
set -u
. scripts/job-env.sh
{ grep -i huge /proc/meminfo; cat /sys/kernel/mm/transparent_hugepage/shmem_enabled
  grep -m1 -o 'tlb[^ ]*' /proc/cpuinfo; cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list; } >> $OUT/sys.txt 2>&1
gen_mats rnd pwl
PIN="OMP_PROC_BIND=true OMP_PLACES=cores"
MPI="mpirun --bind-to core --map-by core"
for m in rnd pwl; do M=$D/$m.mtx
  for thp in "" HSPMV_NO_THP=1; do
    env OMP_NUM_THREADS=16 $PIN $thp timeout 120 ./benchmark-omp $M 16 --format csr,panels,auto --no-bw --reps 30 2>&1 \
      | grep "^bench=omp" | sed "s/^/thp=${thp:-on} /" >> $OUT/omp.txt
  done
  env OMP_NUM_THREADS=16 $PIN timeout 60 /tmp/naive $M 16 40 2>&1 | grep "^peer" >> $OUT/naive.txt
  OMP_NUM_THREADS=1 timeout 200 $MPI -n 16 ./benchmark-mpi $M --read parallel --threads 1 --reps 20 --passes 2 --verbose \
    > $OUT/mpi-$m-auto.txt 2>&1
  OMP_NUM_THREADS=1 timeout 250 $MPI -n 16 ./benchmark-mpi $M --read parallel --format panels --threads 1 --reps 20 --passes 2 \
    --verbose --env HSPMV_PANELS=1 --env HSPMV_PANELS=4 --env HSPMV_PANELS=8 --env HSPMV_PANELS=16 \
    --env HSPMV_PANELS=8,HSPMV_PANELS_RB=2048 > $OUT/mpi-$m-panels.txt 2>&1
  env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores timeout 120 mpirun -n 1 --map-by slot:PE=16 --bind-to core \
    ./benchmark-mpi $M --threads 16 --reps 20 --passes 2 --env none --env HSPMV_PANELS=8 > $OUT/mpi-$m-1x16.txt 2>&1
  echo "$m t=$((SECONDS-T0))"
done
K="thp=[^ ]+|env=[^ ]+|format=[a-z0-9]+|ghost_format=[a-z0-9]+|ranks=[0-9]+|threads=[0-9]+|median_ms=[0-9.]+|pass_medians_ms=[^ ]+|ghost_ms=[0-9.]+|sync_ms=[0-9.]+|gather=[a-z-]+"
for f in $OUT/omp.txt $OUT/naive.txt $OUT/mpi-*.txt; do echo "== $f"; grep -E "^(thp|bench|peer)" $f | grep -oE "$K" | paste -s -d' ' | sed 's/ \(thp\|env\)=/\n\1=/g'; done
