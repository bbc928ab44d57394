#!/bin/bash
# transpose-methods-16.sh — the distributed transposed product's two
# methods side by side on a 16-core machine, rounds interleaved: at 16
# ranks x 1 thread, y = A x, then A^T x by the reverse halo (each rank
# multiplies its rows' transpose and sends the ghost columns' sums to
# their owners) and by the owners' rows (A^T held by its columns' owners,
# multiplied like A x), chosen through the library's test switch
# HSPMV_TEST=transpose=reverse|owner. The first round adds halo p2p, one
# rank x 16 threads and librsb's transposed product (16 threads).
#   bench/jobs/transpose-methods-16.sh [ROUNDS]    (default 6)
# Matrices (real values, made by genmat in /tmp/m): l3r = lap3d 200, rnd =
# random 4000000 --k 8, pwl = powerlaw 4000000 --k 8. Needs gcc, Open MPI,
# optionally .dev/peers/build/rsb_spmv (librsb); builds with NO_METIS=1
# where metis.h is missing. Logs in $OUT (default /tmp/tm): runs.txt
# (every bench= and peer= line, "## LABEL" before each), summary.txt (each
# label's medians over the rounds). A round starts only before DEADLINE
# seconds (default 470).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
R=${1:-6}
OUT=${OUT:-/tmp/tm}; mkdir -p $OUT; : > $OUT/runs.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$SECONDS
extra=""; echo '#include <metis.h>' | cc -E - >/dev/null 2>&1 || extra="NO_METIS=1"
echo '#include <zlib.h>' | cc -E - >/dev/null 2>&1 || extra="$extra NO_ZLIB=1"
make -j16 HSPMV_SKIP_DEPS=1 $extra programs > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
B=build/x86_64-double/bin
RSB=.dev/peers/build/rsb_spmv; { [ -x $RSB ] && $RSB 2>&1 | grep -q usage; } || RSB=""
{ nproc; lscpu | grep -E 'Model name|^L3'; git rev-parse --short HEAD 2>/dev/null; } > $OUT/sys.txt
D=/tmp/m; mkdir -p $D
[ -s $D/l3r.mtx ] || $B/genmat lap3d 200 --values random -o $D/l3r.mtx > /dev/null &
[ -s $D/rnd.mtx ] || $B/genmat random 4000000 --k 8 --values random -o $D/rnd.mtx > /dev/null &
[ -s $D/pwl.mtx ] || $B/genmat powerlaw 4000000 --k 8 --values random -o $D/pwl.mtx > /dev/null &
wait
for m in l3r rnd pwl; do [ -s $D/$m.petsc ] || $B/convert $D/$m.mtx $D/$m.petsc > /dev/null & done; wait
echo "matrices t=$((SECONDS - T0))"
run() { local l=$1; shift; echo "## $l" >> $OUT/runs.txt; timeout 150 "$@" 2>&1 | grep -E '^(bench=|peer=)' >> $OUT/runs.txt; }
OMP16="env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores"
M16="mpirun -n 16 --bind-to core"
M1="mpirun -n 1 --bind-to none $OMP16"
MPI="--threads 1 --reps 30 --verbose"
for r in $(seq 1 $R); do
    [ $((SECONDS - T0)) -lt ${DEADLINE:-470} ] || { echo "round $r skipped: past ${DEADLINE:-470} s"; break; }
    for m in l3r rnd pwl; do
        run "$m 16x1 Ax" $M16 $B/benchmark-mpi $D/$m.petsc $MPI
        for t in reverse owner; do
            run "$m 16x1 ATx $t" env HSPMV_TEST=transpose=$t $M16 $B/benchmark-mpi $D/$m.petsc $MPI --transpose
        done
        [ $r = 1 ] || continue
        run "$m 16x1 p2p Ax" $M16 $B/benchmark-mpi $D/$m.petsc $MPI --halo p2p
        for t in reverse owner; do
            run "$m 16x1 p2p ATx $t" env HSPMV_TEST=transpose=$t $M16 $B/benchmark-mpi $D/$m.petsc $MPI --halo p2p --transpose
        done
        run "$m 1x16 Ax" $M1 $B/benchmark-mpi $D/$m.petsc --threads 16 --reps 30
        run "$m 1x16 ATx owner" env HSPMV_TEST=transpose=owner $M1 $B/benchmark-mpi $D/$m.petsc --threads 16 --reps 30 --transpose
        [ -n "$RSB" ] && [ $m != l3r ] && run "$m rsb ATx" $OMP16 $RSB $D/$m.mtx 16 20 --transpose
    done
    echo "round $r t=$((SECONDS - T0))"
done
# medians over the rounds of each label's median_ms, and of the per-part times
awk '/^## /{l=substr($0,4); next}
     { for (i=1;i<=NF;i++) { split($i,a,"="); if (a[1] ~ /^(median_ms|owned_ms|ghost_ms|sync_ms|wait_ms)$/) t[l" "a[1]]=t[l" "a[1]]" "a[2] } }
     END { for (k in t) print k ":" t[k] }' $OUT/runs.txt | sort > $OUT/summary.txt
cat $OUT/sys.txt $OUT/summary.txt
echo "done t=$((SECONDS - T0))"
