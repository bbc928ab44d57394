#!/bin/bash
# solver-iteration.sh — the whole solver iteration on the 16-core host:
# `solve` of this tree against the build of an older commit (its source
# unpacked in OLD_SRC, default .dev/old: `git archive COMMIT | tar -x -C
# .dev/old`), both built here, on the real-valued lap3d 200 (solve --gen
# lap3d 200 --values random, each rank making its own rows), at 1x16 and
# 16x1, 20 iterations (tol 1e-30), --reps 3, in interleaved rounds (the
# order of the builds alternates); then CG and pipelined CG of this tree
# with every solver reduction delayed by D microseconds (HSPMV_TEST
# solver_delay, test only), D = 0 and D = the standalone product's time.
#   bench/jobs/solver-iteration.sh [ROUNDS]   (default 3; DEADLINE seconds: no new round after it;
#   SIZE: the grid's side, default 200; SPLITS, default "1x16 16x1";
#   NEWB and OLDB: two solve binaries already built, then nothing is built)
# Results: $OUT/rounds.txt (the bench=solve lines, tagged), $OUT/delay.txt.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
ROUNDS=${1:-3} SIZE=${SIZE:-200}
OUT=${OUT:-results/solver-iteration}
export NCCL_NVLS_ENABLE=0
if [ -z "${NEWB:-}" ] || [ -z "${OLDB:-}" ]; then
  . bench/jobs/job-env.sh   # builds this tree's programs, sets T0, OUT
  OLD_SRC=${OLD_SRC:-.dev/old}
  (cd "$OLD_SRC" && make -j16 HSPMV_SKIP_DEPS=1 $without programs > /tmp/build-old.log 2>&1) ||
    { tail -20 /tmp/build-old.log; exit 1; }
  echo "builds done t=$((SECONDS-T0))"
  NEWB=$PWD/solve OLDB=$PWD/$OLD_SRC/solve
else
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; T0=$SECONDS; mkdir -p "$OUT"
fi
SPLITS=${SPLITS:-1x16 16x1}
one() { # tag, binary, split, extra args...
  local tag=$1 bin=$2 split=$3 r=${3%x*} t=${3#*x}; shift 3
  env OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores timeout 120 mpirun -n $r --map-by slot:PE=$t \
    --bind-to core "$bin" --gen lap3d $SIZE --values random --threads $t --maxit 20 --tol 1e-30 --reps 3 "$@" 2>&1 |
    grep "^bench=solve" | sed "s/^/$tag split=$split /" >> "$OUT/rounds.txt"
}
for k in $(seq 1 $ROUNDS); do
  for s in $SPLITS; do
    if [ $((k % 2)) = 1 ]; then one "round=$k build=old" $OLDB $s; one "round=$k build=new" $NEWB $s
    else one "round=$k build=new" $NEWB $s; one "round=$k build=old" $OLDB $s; fi
    one "round=$k build=new-pipecg" $NEWB $s --method pipecg
  done
  echo "round $k t=$((SECONDS-T0))"
  [ $((SECONDS - T0)) -lt ${DEADLINE:-999999} ] || break
done
# D = the standalone product's time at the first split (new build, round 1), in microseconds
DP=$(grep "round=1 build=new split=${SPLITS%% *}" "$OUT/rounds.txt" | sed -n 's/.* spmv_alone_ms=\([0-9.e+-]*\) .*/\1/p' | head -1)
DUS=$(python3 -c "print(int(float('${DP:-4}')*1000))")
echo "delay D = $DUS us"
for k in 1 2; do for s in $SPLITS; do for m in cg pipecg; do
  HSPMV_TEST=solver_delay=$DUS one "delay=$DUS round=$k method=$m" $NEWB $s --method $m
done; done; done
grep "^delay" "$OUT/rounds.txt" > "$OUT/delay.txt"
echo "done t=$((SECONDS-T0))"
