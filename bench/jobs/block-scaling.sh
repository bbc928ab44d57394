#!/bin/bash
# block-scaling.sh — where the block product's per-vector gain goes as the
# threads grow: benchmark-omp --vectors 1,2,4,8 per format at 1, 4 and 16
# threads on the real-valued lap3d 200 and random 4M x 8, beside the naive
# block loop and librsb's rsb_spmm (k = 1 and 8, and the transposed
# product), with a STREAM triad. One call on a 16-core machine.
#   bench/jobs/block-scaling.sh
# Needs .dev/peers (the peer drivers; build/rsb_spmv linked against an
# unpacked librsb in .dev/rsb, optional). Logs in $OUT (default /tmp/bs).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
OUT=${OUT:-/tmp/bs}; mkdir -p $OUT; : > $OUT/runs.txt
T0=$SECONDS
extra=""; echo '#include <metis.h>' | cc -E - >/dev/null 2>&1 || extra="NO_METIS=1"
make -j16 HSPMV_SKIP_DEPS=1 $extra programs > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
B=build/x86_64-double/bin
gcc -O3 -march=native -fopenmp -I.dev/peers -o /tmp/naive .dev/peers/naive_csr.c .dev/peers/common/mm_csr.c
RSB=.dev/peers/build/rsb_spmv; [ -x $RSB ] && $RSB 2>&1 | head -1 | grep -q "error while loading" && RSB=""
{ nproc; lscpu | grep -E 'Model name|^L[123]'; } > $OUT/sys.txt
D=/tmp/m; mkdir -p $D
[ -s $D/l3r.mtx ] || $B/genmat lap3d 200 --values random -o $D/l3r.mtx > /dev/null &
[ -s $D/rnd.mtx ] || $B/genmat random 4000000 --k 8 --values random -o $D/rnd.mtx > /dev/null &
wait
for m in l3r rnd; do [ -s $D/$m.petsc ] || $B/convert $D/$m.mtx $D/$m.petsc > /dev/null & done; wait
echo "matrices t=$((SECONDS - T0))"
run() { local l=$1; shift; echo "## $l" >> $OUT/runs.txt; timeout ${TMO:-120} "$@" 2>&1 | grep -E '^(bench=|peer=|triad|  )' >> $OUT/runs.txt; }
E="env OMP_PROC_BIND=close OMP_PLACES=cores"
for m in l3r rnd; do
    f=csr,csrp,panels; [ $m = rnd ] && f=csr,panels
    run "$m omp t16" $E OMP_NUM_THREADS=16 $B/benchmark-omp $D/$m.petsc 16 --format auto,$f --vectors 1,2,4,8 --reps 20
    run "$m omp t4" $E OMP_NUM_THREADS=4 $B/benchmark-omp $D/$m.petsc 4 --format auto,csr --vectors 1,2,4,8 --reps 10
    run "$m omp t1" $E OMP_NUM_THREADS=1 $B/benchmark-omp $D/$m.petsc 1 --format auto,csr --vectors 1,8 --reps 5
    for t in 1 16; do for k in 1 8; do
        run "$m naive t$t k$k" $E OMP_NUM_THREADS=$t /tmp/naive $D/$m.mtx $t 10 --vectors $k
        [ -n "$RSB" ] && [ $t = 16 ] && run "$m rsb t$t k$k" $E OMP_NUM_THREADS=$t $RSB $D/$m.mtx $t 10 --vectors $k
    done; done
    [ -n "$RSB" ] && run "$m rsb t16 AT" $E OMP_NUM_THREADS=16 $RSB $D/$m.mtx 16 10 --transpose
    echo "$m t=$((SECONDS - T0))"
done
run "triad" $E OMP_NUM_THREADS=16 $B/benchmark-omp $D/l3r.petsc 16 --format csr --reps 5
cat $OUT/sys.txt
echo "done t=$((SECONDS - T0))"
