#!/bin/bash
# read-halo-short.sh — reads and halos in one short 16-core call (about 4
# minutes): a real-valued 200^3 Laplacian (1.3 GB of text) read at 16 ranks
# with --read root and --read parallel and as a PETSc binary file with
# MPI-IO; random 4M x 8 with real values at 16 ranks x 1 thread with the
# node-aware and the p2p halo (--halo node,p2p: one parallel read, passes
# interleaved), beside benchmark-omp (auto) and the peers' naive OpenMP loop
# at 16 threads before and after.
#   bench/jobs/read-halo-short.sh [PASSES]   (default 2)
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI, the peers' naive loop in .dev/peers).
# Results under $OUT (default results/short): read-mpi.txt, petsc-read.txt,
# mpi16.txt, omp.txt, naive.txt, sys.txt; a summary on stdout.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
PASSES=${1:-2}
OUT=${OUT:-results/short}
. bench/jobs/job-env.sh
echo "build done t=$((SECONDS-T0))"
D=/tmp/m; mkdir -p $D
L=$D/l3r.mtx; B=$D/l3r.petsc; RN=$D/rnd.mtx
timeout 120 ./genmat lap3d 200 --values random -o $L > /dev/null &
timeout 120 ./genmat random 4000000 --k 8 --values random -o $RN > /dev/null &
wait
timeout 60 ./convert $L $B >> $OUT/sys.txt 2>&1
ls -l $L $B $RN >> $OUT/sys.txt
cat $L $B $RN > /dev/null # the page cache
echo "gen done t=$((SECONDS-T0))"
MPI="mpirun --bind-to core --map-by core"
PIN="OMP_PROC_BIND=true OMP_PLACES=cores"
peers() {
  env OMP_NUM_THREADS=16 $PIN timeout 40 ./benchmark-omp $RN 16 --format auto --no-bw --reps 40 2>&1 | grep "^bench=omp" >> $OUT/omp.txt
  env OMP_NUM_THREADS=16 $PIN timeout 30 /tmp/naive $RN 16 40 2>&1 | grep "^peer" >> $OUT/naive.txt
}
# the random matrix, both halos from one read, passes interleaved
peers
OMP_NUM_THREADS=1 timeout 90 $MPI -n 16 ./benchmark-mpi $RN --read parallel --threads 1 --reps 20 --passes $PASSES \
  --halo node,p2p 2>&1 | grep "^bench=mpi" >> $OUT/mpi16.txt
peers
echo "random done t=$((SECONDS-T0))"
# the read at 16 ranks, root against parallel, and the PETSc file
for pass in $(seq $PASSES); do
  for r in root parallel; do
    OMP_NUM_THREADS=1 timeout 60 $MPI -n 16 ./benchmark-mpi $L --read $r --reps 5 --threads 1 2>&1 |
      grep "^bench=mpi" | sed "s/^/pass=$pass /" >> $OUT/read-mpi.txt
  done
  OMP_NUM_THREADS=1 timeout 60 $MPI -n 16 ./benchmark-mpi $B --reps 5 --threads 1 2>&1 |
    grep "^bench=mpi" | sed "s/^/pass=$pass /" >> $OUT/petsc-read.txt
  echo "read pass $pass t=$((SECONDS-T0))"
done
K="read=[a-z-]+|read_s=[0-9.]+|partition_s=[0-9.]+|distribute_s=[0-9.]+|read_peak_share_max=[0-9.]+|read_gbs=[0-9.]+|median_ms=[0-9.]+|halo=[a-z0-9]+|gather=[a-z-]+|format[a-z_]*=[^ ]+"
for f in read-mpi petsc-read; do echo "== $f"; grep -oE "^pass=[0-9]+|$K" $OUT/$f.txt | paste -s -d' ' |
  sed 's/ pass=/\npass=/g; s/ read=root/\nread=root/g'; echo; done
echo "== mpi16"; grep -oE "$K" $OUT/mpi16.txt | paste -s -d' ' | sed 's/ read=/\nread=/g'; echo
echo "== omp16, naive16 (before, after)"
grep -oE "format=[a-z0-9]+|isa=[a-z0-9]+|median_ms=[0-9.]+" $OUT/omp.txt | paste -s -d' '
grep -oE "median_ms=[0-9.]+" $OUT/naive.txt | paste -s -d' '
echo "total t=$((SECONDS-T0))"
