#!/bin/bash
# scaling-job.sh — the 16-core tables of issues 3-5 in one job: benchmark-omp at 1..16
# threads beside the peers' naive loop, benchmark-mpi strong scaling at 1..16 ranks with a
# summed STREAM triad, and CG per iteration at 1 and 16 ranks; results under $OUT.
# Needs what scripts/job-env.sh says; run from the repository root.
set -u
. scripts/job-env.sh
export OMP_PROC_BIND=true
D=/tmp/m; mkdir -p $D
./genmat lap2d 2000 -o $D/lap2d_2000.mtx & ./genmat lap3d 160 -o $D/lap3d_160.mtx &
./genmat banded 1000000 --width 16 -o $D/banded_1M_w16.mtx & ./genmat random 2000000 --k 8 -o $D/random_2M_k8.mtx & wait
echo "gen done t=$((SECONDS-T0))"
# issue 3: node level
for m in lap3d_160 lap2d_2000 banded_1M_w16 random_2M_k8; do
  timeout 120 ./benchmark-omp $D/$m.mtx 1,2,4,8,16 --reps 20 --format csr,csr16,csrvi,csrl,auto >> $OUT/omp.txt 2>&1
  echo "omp $m t=$((SECONDS-T0))"
done
for m in lap3d_160 random_2M_k8; do for t in 1 2 4 8 16; do
  OMP_NUM_THREADS=$t timeout 40 /tmp/naive $D/$m.mtx $t 10 >> $OUT/naive.txt 2>&1; done; done
for m in lap2d_2000 banded_1M_w16; do for t in 1 16; do
  OMP_NUM_THREADS=$t timeout 40 /tmp/naive $D/$m.mtx $t 10 >> $OUT/naive.txt 2>&1; done; done
echo "naive t=$((SECONDS-T0))"
# issue 4: strong scaling, 1 thread per rank
for m in lap3d_160 random_2M_k8; do for p in 1 2 4 8 16; do
  OMP_NUM_THREADS=1 timeout 60 mpirun -n $p --bind-to core --map-by core ./benchmark-mpi $D/$m.mtx --reps 30 --threads 1 --triad 256 >> $OUT/mpi.txt 2>&1
done; echo "mpi $m t=$((SECONDS-T0))"; done
OMP_NUM_THREADS=1 timeout 60 mpirun -n 16 --bind-to core ./benchmark-mpi $D/lap3d_160.mtx --reps 30 --threads 1 --partition metis >> $OUT/mpi.txt 2>&1
OMP_NUM_THREADS=8 timeout 60 mpirun -n 2 --map-by slot:PE=8 --bind-to core ./benchmark-mpi $D/lap3d_160.mtx --reps 30 --threads 8 >> $OUT/mpi.txt 2>&1
# issue 5: CG per iteration at 1 and 16 ranks
for p in 1 16; do
  OMP_NUM_THREADS=1 timeout 90 mpirun -n $p --bind-to core ./solve $D/lap3d_160.mtx --reps 1 >> $OUT/solve.txt 2>&1
done
echo "total t=$((SECONDS-T0))"
grep -h "^bench=omp-summary" $OUT/omp.txt | cut -c1-300
