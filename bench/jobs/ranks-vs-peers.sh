#!/bin/bash
# ranks-vs-peers.sh — benchmark-mpi against the peers at the same core
# counts: strong scaling at 1..16 ranks x 1 thread (with a summed STREAM
# triad) on a 3D Laplacian 160^3 and random 2M x 8, beside the peers' naive
# OpenMP loop and librsb at as many threads; then the 200^3 Laplacian at 16
# cores in interleaved passes with the peers, the hybrid splits 2x8, 4x4 and
# 1x16, METIS partitioning, and formats csr and csr16 at 16 ranks.
#   bench/jobs/ranks-vs-peers.sh [PASSES]
# No argument: everything, 3 passes of the 200^3 runs. PASSES given: those
# passes alone (each with METIS beside the default partition).
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI, the peers' naive loop in .dev/peers,
# librsb and its driver in .dev/rsb). Results under $OUT (default
# results/scaling): scaling.txt, scaling-peers.txt, target.txt,
# target-peers.txt, target-verbose.txt, sys.txt; a summary on stdout.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
PASSES=${1:-3}
FULL=$([ $# -eq 0 ] && echo 1 || echo 0)  # 0: the passes alone
. bench/jobs/job-env.sh
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
fi
echo "total t=$((SECONDS-T0))"
K="ranks=[0-9]+|threads=[0-9]+|partition=[a-z]+|csr=[0-9]+|csr16=[0-9]+|csrvi=[0-9]+|median_ms=[0-9.]+|owned_ms=[0-9.]+|wait_ms=[0-9.]+|ghost_ms=[0-9.]+|wait_share=[0-9.]+|frac_triad=[0-9.]+"
for f in scaling target; do
  grep -oE "matrix=[^ ]+|$K" $OUT/$f.txt | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'; echo
  grep -oE "^peer=[a-z_]+|matrix=[^ ]+|threads=[0-9]+|median_ms=[0-9.]+" $OUT/$f-peers.txt | paste -s -d' ' | sed 's/ peer=/\npeer=/g'; echo
done
