#!/bin/bash
# huge-pages.sh — what 4 KiB pages cost on scattered columns (random and
# power-law 4M x 8): benchmark-omp at 16 threads (csr, panels, auto) with the
# library's huge-page request and without it (HSPMV_NO_THP=1), beside the
# peers' naive OpenMP loop; then, for reference, benchmark-mpi at 16 ranks x
# 1 thread and 1 rank x 16 threads with the default plan and per-rank times
# (--verbose), each from one parallel read in 2 interleaved passes.
#   bench/jobs/huge-pages.sh
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI, the peers' naive loop in .dev/peers).
# Results under $OUT (default results/scaling): omp.txt, naive.txt,
# mpi-MATRIX-16x1.txt, mpi-MATRIX-1x16.txt, the machine's huge-page settings
# in sys.txt; a summary on stdout.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
. bench/jobs/job-env.sh
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
    > $OUT/mpi-$m-16x1.txt 2>&1
  env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores timeout 120 mpirun -n 1 --map-by slot:PE=16 --bind-to core \
    ./benchmark-mpi $M --threads 16 --reps 20 --passes 2 --verbose > $OUT/mpi-$m-1x16.txt 2>&1
  echo "$m t=$((SECONDS-T0))"
done
K="thp=[^ ]+|format=[a-z0-9]+|ghost_format=[a-z0-9]+|ranks=[0-9]+|threads=[0-9]+|median_ms=[0-9.]+|pass_medians_ms=[^ ]+|ghost_ms=[0-9.]+|sync_ms=[0-9.]+|gather=[a-z-]+"
for f in $OUT/omp.txt $OUT/naive.txt $OUT/mpi-*.txt; do echo "== $f"; grep -E "^(thp|bench|peer)" $f | grep -oE "$K" | paste -s -d' ' | sed 's/ thp=/\nthp=/g'; done
