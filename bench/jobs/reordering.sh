#!/bin/bash
# reordering.sh — locality reordering on one 16-thread process: a
# real-valued lap3d 200 in grid order (l3r) and the same mesh shuffled by
# genmat --shuffle 1 (l3s), and random 4M x 8 with real values (rndv);
# benchmark-omp --format auto with --reorder none and auto on each (rcm too
# on the shuffled mesh), in ROUNDS interleaved rounds (one process per
# matrix and variant, the order of the variants turned each round).
# median_ms: the product in the matrix's own order; user_ms: the call in the
# file's order (x gathered in, y scattered out); reorder_s: the setup.
#   bench/jobs/reordering.sh [ROUNDS]    (default 3)
# Setup by bench/jobs/job-env.sh (the build; matrices in /tmp/m, converted
# to PETSc binary once). Logs in $OUT (default /tmp/ro): runs.txt (the
# bench= lines, each prefixed r=ROUND m=MATRIX v=VARIANT), sys.txt. A round
# starts only before DEADLINE seconds (400).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
ROUNDS=${1:-3}
OUT=${OUT:-/tmp/ro}
export NCCL_NVLS_ENABLE=0
. bench/jobs/job-env.sh
: > $OUT/runs.txt
gen_mats l3r
[ -s $D/l3s.mtx ] || ./genmat lap3d 200 --values random --shuffle 1 -o $D/l3s.mtx > /dev/null &
[ -s $D/rndv.mtx ] || ./genmat random 4000000 --k 8 --values random -o $D/rndv.mtx > /dev/null &
wait
for m in l3r l3s rndv; do [ -s $D/$m.petsc ] || ./convert $D/$m.mtx $D/$m.petsc > /dev/null & done; wait
echo "matrices ready t=$((SECONDS - T0))"
OMP16="env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores"
B=build/x86_64-double/bin
tag() { sed "s/^/r=$1 m=$2 v=$3 /" >> $OUT/runs.txt; }
one() { # ROUND MATRIX VARIANT
    $OMP16 $B/benchmark-omp $D/$2.petsc 16 --format auto --reorder $3 --reps 50 --no-bw 2>&1 |
        grep -E '^bench=omp |reorder=' | tag $1 $2 $3
}
for r in $(seq 1 $ROUNDS); do
    [ $((SECONDS - T0)) -lt ${DEADLINE:-400} ] || { echo "round $r skipped: past ${DEADLINE:-400} s"; break; }
    echo "round $r t=$((SECONDS - T0))"
    if [ $((r % 2)) = 1 ]; then vs="none auto"; else vs="auto none"; fi
    for m in l3r rndv; do for v in $vs; do one $r $m $v; done; done
    for v in $vs rcm; do one $r l3s $v; done
done
echo "done t=$((SECONDS - T0))"
