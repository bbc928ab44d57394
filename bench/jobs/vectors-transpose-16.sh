#!/bin/bash
# vectors-transpose-16.sh — the block and transposed products on a
# 16-core machine in one call: per-vector rates of Y = A X at k = 1, 2, 4, 8
# (benchmark-omp --vectors) against the naive block loop, A^T x against A x
# (benchmark-omp and benchmark-mpi at 16x1 and 1x16) and the naive
# transposed loop, the distributed block product at k = 8 against k = 1;
# rounds interleaved, medians of each round's ratios printed at the end.
#   bench/jobs/vectors-transpose-16.sh [ROUNDS]    (default 3)
# Matrices (real values, made by genmat in /tmp/m): l3r = lap3d 200, rnd =
# random 4000000 --k 8, pwl = powerlaw 4000000 --k 8 (transpose only).
# Needs gcc, Open MPI and ../shared/peers' naive_csr.c copied into
# .dev/peers; builds with NO_METIS=1 where metis.h is missing. Logs in
# $OUT (default /tmp/vt): runs.txt (every bench= line; the naive loop, which reads the text file, in the first round only, "## LABEL" before
# each), summary.txt. A round starts only before DEADLINE seconds (400).
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
{ nproc; lscpu | grep -E 'Model name|^L3'; } > $OUT/sys.txt
D=/tmp/m; mkdir -p $D
$B/genmat lap3d 200 --values random -o $D/l3r.mtx > /dev/null &
$B/genmat random 4000000 --k 8 --values random -o $D/rnd.mtx > /dev/null &
$B/genmat powerlaw 4000000 --k 8 --values random -o $D/pwl.mtx > /dev/null &
wait
for m in l3r rnd pwl; do $B/convert $D/$m.mtx $D/$m.petsc > /dev/null & done; wait
echo "matrices t=$((SECONDS - T0))"
run() { local l=$1; shift; echo "## $l" >> $OUT/runs.txt; timeout 150 "$@" 2>&1 | grep -E '^(bench=|peer=)' >> $OUT/runs.txt; }
OMP16="env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores"
for r in $(seq 1 $R); do
    [ $((SECONDS - T0)) -lt ${DEADLINE:-400} ] || { echo "round $r skipped: past ${DEADLINE:-400} s"; break; }
    for m in l3r rnd; do
        run "$m omp block" $OMP16 $B/benchmark-omp $D/$m.petsc 16 --format auto --vectors 1,2,4,8 --reps 20
        [ $r = 1 ] && run "$m naive k1" $OMP16 /tmp/naive $D/$m.mtx 16 20
        [ $r = 1 ] && run "$m naive k8" $OMP16 /tmp/naive $D/$m.mtx 16 20 --vectors 8
        run "$m mpi16x1 k1" mpirun -n 16 --bind-to core $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20
        run "$m mpi16x1 k8" mpirun -n 16 --bind-to core $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20 --vectors 8
    done
    for m in l3r rnd pwl; do
        run "$m omp Ax" $OMP16 $B/benchmark-omp $D/$m.petsc 16 --format auto --reps 20 --no-bw
        run "$m omp ATx" $OMP16 $B/benchmark-omp $D/$m.petsc 16 --format auto --reps 20 --no-bw --transpose
        [ $r = 1 ] && run "$m naive ATx" $OMP16 /tmp/naive $D/$m.mtx 16 20 --transpose
        run "$m mpi16x1 ATx" mpirun -n 16 --bind-to core $B/benchmark-mpi $D/$m.petsc --threads 1 --reps 20 --transpose
        run "$m mpi1x16 Ax" mpirun -n 1 --bind-to none $OMP16 $B/benchmark-mpi $D/$m.petsc --threads 16 --reps 20
        run "$m mpi1x16 ATx" mpirun -n 1 --bind-to none $OMP16 $B/benchmark-mpi $D/$m.petsc --threads 16 --reps 20 --transpose
    done
    echo "round $r t=$((SECONDS - T0))"
done
# medians over the rounds of each label's median_ms (peers: median_ms too), one line per label
awk '/^## /{l=substr($0,4); next} { for (i=1;i<=NF;i++) if ($i ~ /^median_ms=/) { split($i,a,"="); k=l; if ($0 ~ /bench=omp-block/) { for (j=1;j<=NF;j++) if ($j ~ /^vectors=/) { split($j,b,"="); k=l" k" b[2] } } t[k]=t[k]" "a[2] } }
     END { for (k in t) print k ":" t[k] }' $OUT/runs.txt | sort > $OUT/summary.txt
cat $OUT/sys.txt $OUT/summary.txt
echo "done t=$((SECONDS - T0))"
