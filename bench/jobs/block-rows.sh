#!/bin/bash
# block-rows.sh — the block product Y = A X on one 16-thread process with
# the threads' row blocks dealt in turn (the library's rule) against each
# thread on one contiguous chunk (the test switch spmm_blocks=1), rounds
# interleaved: benchmark-omp --vectors 1,2,4,8 on a real-valued lap3d 200
# and random 4M x 8, and benchmark-mpi --vectors 8 at 1 rank x 16 threads
# on lap3d; a streaming-store triad (bench/jobs/triad_nt.c) in each round
# gives the memory's rate for the k = 8 product's kind of traffic.
#   bench/jobs/block-rows.sh [ROUNDS]    (default 8)
# Matrices made by genmat in /tmp/m (l3r, rnd; kept between runs).
# Needs gcc, Open MPI; builds with NO_METIS=1 where metis.h is missing.
# Logs in $OUT (default /tmp/br): runs.txt (the bench= and probe= lines,
# each prefixed r=ROUND m=MATRIX v=VARIANT), sys.txt. A round starts only
# before DEADLINE seconds (480).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
R=${1:-8}
OUT=${OUT:-/tmp/br}; mkdir -p $OUT; : > $OUT/runs.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$SECONDS
extra=""; echo '#include <metis.h>' | cc -E - >/dev/null 2>&1 || extra="NO_METIS=1"
echo '#include <zlib.h>' | cc -E - >/dev/null 2>&1 || extra="$extra NO_ZLIB=1"
make -j16 HSPMV_SKIP_DEPS=1 $extra programs > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
gcc -O3 -march=native -fopenmp -o /tmp/triad_nt bench/jobs/triad_nt.c || exit 1
B=build/x86_64-double/bin
{ nproc; lscpu | grep -E 'Model name|^L2|^L3'; git log --oneline -1 2>/dev/null; } > $OUT/sys.txt
D=/tmp/m; mkdir -p $D
declare -A GEN=([l3r]="lap3d 200" [rnd]="random 4000000 --k 8")
for m in l3r rnd; do
    { [ -s $D/$m.petsc ] || { $B/genmat ${GEN[$m]} --values random -o $D/$m.mtx > /dev/null &&
                              $B/convert $D/$m.mtx $D/$m.petsc > /dev/null; }; } &
done; wait
echo "matrices t=$((SECONDS - T0))"
OMP16="env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores"
tag() { sed "s/^/r=$1 m=$2 v=$3 /" >> $OUT/runs.txt; }
for r in $(seq 1 $R); do
    [ $((SECONDS - T0)) -lt ${DEADLINE:-480} ] || { echo "round $r skipped: past ${DEADLINE:-480} s"; break; }
    echo "round $r t=$((SECONDS - T0))"
    $OMP16 /tmp/triad_nt 512 | tag $r - probe
    for m in l3r rnd; do
        for v in spmm_blocks=1 rule; do
            t=$v; [ $v = rule ] && t=""
            env HSPMV_TEST=$t $OMP16 $B/benchmark-omp $D/$m.petsc 16 --format auto --vectors 1,2,4,8 --reps 20 --no-bw 2>&1 |
                grep '^bench=' | tag $r $m $v
        done
    done
    for v in spmm_blocks=1 rule; do
        t=$v; [ $v = rule ] && t=""
        HSPMV_TEST=$t mpirun -n 1 --bind-to none -x HSPMV_TEST $OMP16 $B/benchmark-mpi $D/l3r.petsc --threads 16 \
            --reps 20 --vectors 8 2>&1 | grep '^bench=' | tag $r l3r-1x16 $v
    done
done
echo "done t=$((SECONDS - T0)); logs in $OUT"
