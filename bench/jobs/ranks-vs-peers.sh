#!/bin/bash
# mpi-target-job.sh — issue 4's 16-core tables in one job: strong scaling at 1..16 ranks
# on a 3D Laplacian and a random matrix beside the naive OpenMP loop and librsb at the
# same core counts, then the 200^3 Laplacian at 16 cores interleaved with the peers
# (3 passes), hybrid rank x thread splits, METIS, and the exchange's progress settings.
# Needs what scripts/job-env.sh says; run from the repository root; results under $OUT.
#   scripts/mpi-target-job.sh [PASSES]   (PASSES=5: only the interleaved 200^3 passes, five of them)
set -u
PASSES=${1:-3}
FULL=$([ $# -eq 0 ] && echo 1 || echo 0)  # 0: the passes alone
. scripts/job-env.sh
ompi_info --param btl vader --level 9 | grep -iE "single_copy|eager_limit" >> $OUT/sys.txt 2>&1
D=/tmp/m; mkdir -p $D
./genmat lap3d 160 -o $D/lap3d_160.mtx & ./genmat random 2000000 --k 8 -o $D/random_2M_k8.mtx &
./genmat lap3d 200 -o $D/lap3d_200.mtx & wait
echo "gen done t=$((SECONDS-T0))"
MPI="mpirun --bind-to core --map-by core"
PIN="OMP_PROC_BIND=true OMP_PLACES=cores"
# strong scaling, 1 thread per rank; the peers at the same number of threads
[ $FULL = 0 ] || for m in lap3d_160 random_2M_k8; do for p in 1 2 4 8 16; do
  OMP_NUM_THREADS=1 timeout 90 $MPI -n $p ./benchmark-mpi $D/$m.mtx --reps 30 --threads 1 --triad 256 2>&1 | grep "^bench=mpi" >> $OUT/scaling.txt
  env OMP_NUM_THREADS=$p $PIN timeout 60 /tmp/naive $D/$m.mtx $p 20 2>&1 | grep "^peer" >> $OUT/scaling-peers.txt
  env OMP_NUM_THREADS=$p $PIN timeout 90 .dev/rsb/rsb_spmv $D/$m.mtx $p 20 2>&1 | grep "^peer" >> $OUT/scaling-peers.txt
done; echo "scaling $m t=$((SECONDS-T0))"; done
# the 200^3 Laplacian, 16 cores, interleaved
M=$D/lap3d_200.mtx
for pass in $(seq $PASSES); do
  OMP_NUM_THREADS=1 timeout 90 $MPI -n 16 ./benchmark-mpi $M --reps 40 --threads 1 --triad 256 --verbose > /tmp/v.txt 2>&1
  grep "^bench=mpi" /tmp/v.txt >> $OUT/target.txt; grep -v "^bench=mpi" /tmp/v.txt | grep -v "    rank" >> $OUT/target-verbose.txt
  [ $FULL = 1 ] || OMP_NUM_THREADS=1 timeout 90 $MPI -n 16 ./benchmark-mpi $M --reps 40 --threads 1 --partition metis 2>&1 | grep "^bench=mpi" >> $OUT/target.txt
  env OMP_NUM_THREADS=16 $PIN timeout 60 /tmp/naive $M 16 20 2>&1 | grep "^peer" >> $OUT/target-peers.txt
  env OMP_NUM_THREADS=16 $PIN timeout 90 .dev/rsb/rsb_spmv $M 16 20 2>&1 | grep "^peer" >> $OUT/target-peers.txt
  echo "pass $pass t=$((SECONDS-T0))"
done
[ $FULL = 1 ] && for hy in "2 8" "4 4" "1 16"; do set -- $hy
  env OMP_NUM_THREADS=$2 OMP_PROC_BIND=close OMP_PLACES=cores timeout 90 mpirun -n $1 --map-by slot:PE=$2 --bind-to core ./benchmark-mpi $M --reps 40 --threads $2 2>&1 | grep "^bench=mpi" >> $OUT/target.txt
done
if [ $FULL = 1 ]; then
OMP_NUM_THREADS=1 timeout 90 $MPI -n 16 ./benchmark-mpi $M --reps 40 --threads 1 --partition metis --verbose > /tmp/v.txt 2>&1
grep "^bench=mpi" /tmp/v.txt >> $OUT/target.txt; grep -v "^bench=mpi" /tmp/v.txt | grep -v "    rank" >> $OUT/target-verbose.txt
for f in csr csr16; do  # the same 16 ranks with value indexing off, for comparison
  OMP_NUM_THREADS=1 timeout 90 $MPI -n 16 ./benchmark-mpi $M --reps 40 --threads 1 --format $f 2>&1 | grep "^bench=mpi" >> $OUT/target.txt
done
for np in 1 4; do  # owned-block pieces, with a progress call between pieces (default: 16 here)
  HSPMV_DIST_PIECES=$np OMP_NUM_THREADS=1 timeout 90 $MPI -n 16 ./benchmark-mpi $M --reps 40 --threads 1 2>&1 | grep "^bench=mpi" | sed "s/^/pieces=$np /" >> $OUT/target.txt
done
fi
echo "total t=$((SECONDS-T0))"
K="^pieces=[0-9]+|ranks=[0-9]+|threads=[0-9]+|partition=[a-z]+|csr=[0-9]+|csr16=[0-9]+|csrvi=[0-9]+|median_ms=[0-9.]+|owned_ms=[0-9.]+|wait_ms=[0-9.]+|ghost_ms=[0-9.]+|wait_share=[0-9.]+|frac_triad=[0-9.]+|pieces=[0-9]+"
for f in scaling target; do
  grep -oE "matrix=[^ ]+|$K" $OUT/$f.txt | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g; s/ pieces=/\npieces=/g'; echo
  grep -oE "^peer=[a-z_]+|matrix=[^ ]+|threads=[0-9]+|median_ms=[0-9.]+" $OUT/$f-peers.txt | paste -s -d' ' | sed 's/ peer=/\npeer=/g'; echo
done
