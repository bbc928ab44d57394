#!/bin/bash
# spmv-dot.sh — CG's p'q inside the product against a pass of its own, in
# one process pair by pair (bench/jobs/spmv_dot_ab.c), on the 16-core host:
# the real-valued 3D 7-point stencil of side 200 and 320 at 1 rank x 16
# threads (the sum rides in the product) and 16 x 1 (the default node halo:
# not fused, so A/B there is a second control).
#   bench/jobs/spmv-dot.sh [PAIRS]   (default 60)
# Results: $OUT/dot.txt (one bench=spmv_dot line a run).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
PAIRS=${1:-60}
export NCCL_NVLS_ENABLE=0
. bench/jobs/job-env.sh
B=build/$(uname -m)-double
mpicc -O3 -march=native -fopenmp -I$B/include -Iinclude -Isrc/mpi -o /tmp/spmv_dot_ab bench/jobs/spmv_dot_ab.c \
  $B/libhspmv.a $(case $without in *NO_METIS*) ;; *) echo -lmetis ;; esac) \
  $(case $without in *NO_ZLIB*) ;; *) echo -lz ;; esac) -lm 2>&1 || exit 1
: > $OUT/dot.txt
for N in 200 320; do
  for rt in "1 16" "16 1"; do
    set -- $rt
    OMP_NUM_THREADS=$2 OMP_PROC_BIND=close OMP_PLACES=cores timeout 200 mpirun -n $1 --map-by slot:PE=$2 \
      --bind-to core /tmp/spmv_dot_ab $N $PAIRS 2>&1 | grep "^bench=" | sed "s/^/split=${1}x$2 /" | tee -a $OUT/dot.txt
  done
done
echo "done t=$((SECONDS-T0))"
