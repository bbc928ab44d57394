#!/bin/bash
# strong-scaling.sh — node-level and strong-scaling tables in one job:
# benchmark-omp at 1..16 threads (csr, csr16, csrvi, csrl, auto) beside the
# peers' naive loop on a 2D and a 3D Laplacian, a banded and a random
# matrix; benchmark-mpi strong scaling at 1..16 ranks x 1 thread with a
# summed STREAM triad, then 16 ranks with METIS and 2 ranks x 8 threads;
# CG per iteration (solve) at 1 and 16 ranks.
#   bench/jobs/strong-scaling.sh
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI, METIS, the peers' naive loop in
# .dev/peers). Results under $OUT (default results/scaling): omp.txt,
# naive.txt, mpi.txt, solve.txt, sys.txt; benchmark-omp's summaries on stdout.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
. bench/jobs/job-env.sh
export OMP_PROC_BIND=true
D=/tmp/m; mkdir -p $D
./genmat lap2d 2000 -o $D/lap2d_2000.mtx & ./genmat lap3d 160 -o $D/lap3d_160.mtx &
./genmat banded 1000000 --width 16 -o $D/banded_1M_w16.mtx & ./genmat random 2000000 --k 8 -o $D/random_2M_k8.mtx & wait
echo "gen done t=$((SECONDS-T0))"
# node level: threads
for m in lap3d_160 lap2d_2000 banded_1M_w16 random_2M_k8; do
  timeout 120 ./benchmark-omp $D/$m.mtx 1,2,4,8,16 --reps 20 --format csr,csr16,csrvi,csrl,auto >> $OUT/omp.txt 2>&1
  echo "omp $m t=$((SECONDS-T0))"
done
for m in lap3d_160 random_2M_k8; do for t in 1 2 4 8 16; do
  OMP_NUM_THREADS=$t timeout 40 /tmp/naive $D/$m.mtx $t 10 >> $OUT/naive.txt 2>&1; done; done
for m in lap2d_2000 banded_1M_w16; do for t in 1 16; do
  OMP_NUM_THREADS=$t timeout 40 /tmp/naive $D/$m.mtx $t 10 >> $OUT/naive.txt 2>&1; done; done
echo "naive t=$((SECONDS-T0))"
# strong scaling, 1 thread per rank
for m in lap3d_160 random_2M_k8; do for p in 1 2 4 8 16; do
  OMP_NUM_THREADS=1 timeout 60 mpirun -n $p --bind-to core --map-by core ./benchmark-mpi $D/$m.mtx --reps 30 --threads 1 --triad 256 >> $OUT/mpi.txt 2>&1
done; echo "mpi $m t=$((SECONDS-T0))"; done
OMP_NUM_THREADS=1 timeout 60 mpirun -n 16 --bind-to core ./benchmark-mpi $D/lap3d_160.mtx --reps 30 --threads 1 --partition metis >> $OUT/mpi.txt 2>&1
OMP_NUM_THREADS=8 timeout 60 mpirun -n 2 --map-by slot:PE=8 --bind-to core ./benchmark-mpi $D/lap3d_160.mtx --reps 30 --threads 8 >> $OUT/mpi.txt 2>&1
# CG per iteration at 1 and 16 ranks
for p in 1 16; do
  OMP_NUM_THREADS=1 timeout 90 mpirun -n $p --bind-to core ./solve $D/lap3d_160.mtx --reps 1 >> $OUT/solve.txt 2>&1
done
echo "total t=$((SECONDS-T0))"
grep -h "^bench=omp-summary" $OUT/omp.txt | cut -c1-300
