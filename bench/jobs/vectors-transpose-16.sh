#!/bin/bash
# vectors-transpose-16.sh — the block and transposed products on a
# 16-core machine in one call, rounds interleaved: per-vector rates of
# Y = A X at k = 1, 2, 4, 8 (benchmark-omp --vectors) with streaming stores
# of Y forced off and on (the library's test switch), against the naive
# block loop and librsb; A^T x against A x (benchmark-omp, and
# benchmark-mpi at 16x1 and 1x16) against the naive transposed loop and
# librsb; the distributed block product at 16x1, k = 8 in both halo modes
# against k = 1. Medians of each label's round medians at the end.
#   bench/jobs/vectors-transpose-16.sh [ROUNDS]    (default 3)
# Matrices (real values, made by genmat in /tmp/m): l3r = lap3d 200, rnd =
# random 4000000 --k 8, pwl = powerlaw 4000000 --k 8 (transpose only).
# Needs gcc, Open MPI, the peer drivers in .dev/peers (naive_csr.c; and
# build/rsb_spmv linked against librsb, optional); builds with NO_METIS=1
# where metis.h is missing. Logs in $OUT (default /tmp/vt): runs.txt (every
# bench= and peer= line, "## LABEL" before each; the peers in the first
# round only), summary.txt. A round starts only before DEADLINE seconds (400).
# OLD=DIR: also time DIR/benchmark-omp's block product (an earlier build)
# in each round, beside this one's.
# PART=block or PART=transpose runs only that half (default both: one
# round of both takes about 5 minutes). TMATS: the transposed part's
# matrices (default "l3r rnd pwl"); ONLY16=1: of the transposed part only
# A x and A^T x at 16x1.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
R=${1:-3}
OUT=${OUT:-/tmp/vt}; mkdir -p $OUT; : > $OUT/runs.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$SECONDS
extra=""; echo '#include <metis.h>' | cc -E - >/dev/null 2>&1 || extra="NO_METIS=1"
echo '#include <zlib.h>' | cc -E - >/dev/null 2>&1 || extra="$extra NO_ZLIB=1"
make -j16 HSPMV_SKIP_DEPS=1 $extra programs > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
B=build/x86_64-double/bin
gcc -O3 -march=native -fopenmp -I.dev/peers -o /tmp/naive .dev/peers/naive_csr.c .dev/peers/common/mm_csr.c || echo "naive build failed"
RSB=.dev/peers/build/rsb_spmv; { [ -x $RSB ] && $RSB 2>&1 | grep -q usage; } || RSB=""
{ nproc; lscpu | grep -E 'Model name|^L3'; } > $OUT/sys.txt
D=/tmp/m; mkdir -p $D
NEED="${TMATS:-l3r rnd pwl}"; [ "${PART:-all}" = transpose ] || NEED="$NEED l3r rnd"
declare -A GEN=([l3r]="lap3d 200" [rnd]="random 4000000 --k 8" [pwl]="powerlaw 4000000 --k 8")
for m in $(echo $NEED | tr ' ' '\n' | sort -u); do
    { [ -s $D/$m.mtx ] || $B/genmat ${GEN[$m]} --values random -o $D/$m.mtx > /dev/null
      [ -s $D/$m.petsc ] || $B/convert $D/$m.mtx $D/$m.petsc > /dev/null; } &
done; wait
echo "matrices t=$((SECONDS - T0))"
run() { local l=$1; shift; echo "## $l" >> $OUT/runs.txt; timeout 150 "$@" 2>&1 | grep -E '^(bench=|peer=)' >> $OUT/runs.txt; }
OMP16="env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores"
M16="mpirun -n 16 --bind-to core"
KS=${KS:-1,2,4,8}   # the block sizes of benchmark-omp --vectors
M1="mpirun -n 1 --bind-to none $OMP16"
for r in $(seq 1 $R); do
    [ $((SECONDS - T0)) -lt ${DEADLINE:-400} ] || { echo "round $r skipped: past ${DEADLINE:-400} s"; break; }
    [ "${PART:-all}" = transpose ] || for m in l3r rnd; do
        for s in 0 1; do
            run "$m omp block stream=$s" env HSPMV_TEST=spmm_stream=$s $OMP16 $B/benchmark-omp $D/$m.petsc 16 --format auto --vectors $KS --reps 20
        done
        [ -n "${OLD:-}" ] && run "$m omp block old" $OMP16 $OLD/benchmark-omp $D/$m.petsc 16 --format auto --vectors $KS --reps 20
        if [ $r = 1 ]; then
            run "$m naive k8" $OMP16 /tmp/naive $D/$m.mtx 16 20 --vectors 8
            [ -n "$RSB" ] && run "$m rsb k8" $OMP16 $RSB $D/$m.mtx 16 20 --vectors 8
        fi
        run "$m mpi16x1 k1" $M16 $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20
        run "$m mpi16x1 k8 node" $M16 $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20 --vectors 8
        run "$m mpi16x1 k8 p2p" $M16 $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20 --vectors 8 --halo p2p
    done
    [ "${PART:-all}" = block ] || for m in ${TMATS:-l3r rnd pwl}; do
        if [ -n "${ONLY16:-}" ]; then  # the 16x1 pair alone
            run "$m mpi16x1 Ax" $M16 $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20
            run "$m mpi16x1 ATx" $M16 $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20 --transpose
            continue
        fi
        run "$m omp Ax" $OMP16 $B/benchmark-omp $D/$m.petsc 16 --format auto --reps 20 --no-bw
        run "$m omp ATx" $OMP16 $B/benchmark-omp $D/$m.petsc 16 --format auto --reps 20 --no-bw --transpose
        if [ $r = 1 ]; then
            run "$m naive ATx" $OMP16 /tmp/naive $D/$m.mtx 16 20 --transpose
            [ -n "$RSB" ] && run "$m rsb ATx" $OMP16 $RSB $D/$m.mtx 16 20 --transpose
        fi
        run "$m mpi16x1 Ax" $M16 $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20
        run "$m mpi16x1 ATx" $M16 $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20 --transpose
        run "$m mpi1x16 Ax" $M1 $B/benchmark-mpi $D/$m.petsc --threads 16 --reps 20
        run "$m mpi1x16 ATx" $M1 $B/benchmark-mpi $D/$m.petsc --threads 16 --reps 20 --transpose
    done
    echo "round $r t=$((SECONDS - T0))"
done
# medians over the rounds of each label's median_ms, one line per label (block runs per k)
awk '/^## /{l=substr($0,4); next} { for (i=1;i<=NF;i++) if ($i ~ /^median_ms=/) { split($i,a,"="); k=l; if ($0 ~ /bench=omp-block/) { for (j=1;j<=NF;j++) if ($j ~ /^vectors=/) { split($j,b,"="); k=l" k" b[2] } } t[k]=t[k]" "a[2] } }
     END { for (k in t) print k ":" t[k] }' $OUT/runs.txt | sort > $OUT/summary.txt
cat $OUT/sys.txt $OUT/summary.txt
echo "done t=$((SECONDS - T0))"
