#!/bin/bash
# block-rows.sh — the block product Y = A X on one 16-thread process with
# the threads' row blocks dealt in turn (the library's rule) against each
# thread on one contiguous chunk (the test switch spmm_blocks=1), rounds
# interleaved: benchmark-omp --vectors 1,2,4,8 on a real-valued lap3d 200
# and random 4M x 8, and benchmark-mpi --vectors 8 at 1 rank x 16 threads
# on lap3d; a streaming-store triad (bench/jobs/triad_nt.c) in each round
# gives the memory's rate for the k = 8 product's kind of traffic.
#   bench/jobs/block-rows.sh [ROUNDS]    (default 8)
# Setup by bench/jobs/job-env.sh (the build; matrices in /tmp/m, converted
# to PETSc binary once). Logs in $OUT (default /tmp/br):
# runs.txt (the bench= and probe= lines, each prefixed r=ROUND m=MATRIX
# v=VARIANT), sys.txt. A round starts only before DEADLINE seconds (480).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
ROUNDS=${1:-8}   # (job-env.sh sets R)
OUT=${OUT:-/tmp/br}
. bench/jobs/job-env.sh
: > $OUT/runs.txt
gcc -O3 -march=native -fopenmp -o /tmp/triad_nt bench/jobs/triad_nt.c || exit 1
gen_mats l3r   # lap3d 200, real values; random 4M x 8 with real values of 9 digits as rndv:
[ -s $D/rndv.mtx ] || ./genmat random 4000000 --k 8 --values random -o $D/rndv.mtx > /dev/null
for m in l3r rndv; do [ -s $D/$m.petsc ] || ./convert $D/$m.mtx $D/$m.petsc > /dev/null & done; wait
OMP16="env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores"
B=build/x86_64-double/bin
tag() { sed "s/^/r=$1 m=$2 v=$3 /" >> $OUT/runs.txt; }
for r in $(seq 1 $ROUNDS); do
    [ $((SECONDS - T0)) -lt ${DEADLINE:-480} ] || { echo "round $r skipped: past ${DEADLINE:-480} s"; break; }
    echo "round $r t=$((SECONDS - T0))"
    $OMP16 /tmp/triad_nt 512 | tag $r - probe
    for m in l3r rndv; do
        for v in spmm_blocks=1 rule; do
            t=$v; [ $v = rule ] && t=""
            env HSPMV_TEST=$t $OMP16 $B/benchmark-omp $D/$m.petsc 16 --format auto --vectors 1,2,4,8 --reps 20 --no-bw 2>&1 |
                grep '^bench=' | tag $r ${m%v} $v
        done
    done
    for v in spmm_blocks=1 rule; do
        t=$v; [ $v = rule ] && t=""
        HSPMV_TEST=$t mpirun -n 1 --bind-to none -x HSPMV_TEST $OMP16 $B/benchmark-mpi $D/l3r.petsc --threads 16 \
            --reps 20 --vectors 8 2>&1 | grep '^bench=' | tag $r l3r-1x16 $v
    done
done
echo "done t=$((SECONDS - T0)); logs in $OUT"
