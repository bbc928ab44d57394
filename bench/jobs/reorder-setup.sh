#!/bin/bash
# reorder-setup.sh — the setup of reorder=rcm (ordering, the permuted copy
# and the measures: benchmark-omp's reorder_s) of this tree against the
# build of an older commit (its source unpacked in OLD_SRC, default
# .dev/old: `git archive COMMIT | tar -x -C .dev/old`), at 16 threads on
# shuffled meshes (genmat --values random --shuffle 1): lap3d SIZE (default
# 200, 8M rows), lap3d27 SIZE27 (default 128) and fem3d SIZEF (default 64);
# ROUNDS interleaved rounds (the order of the builds alternates), one
# process per matrix and build, --reorder rcm --reps 20.
#   bench/jobs/reorder-setup.sh [ROUNDS]   (default 4; DEADLINE seconds: no new round after it, default 400;
#   NEWB and OLDB: two benchmark-omp binaries already built, then nothing is built; THREADS, default 16)
# Results in $OUT (default /tmp/rs): runs.txt (the bench=omp lines, each
# prefixed r=ROUND m=MATRIX b=BUILD), summary.txt (per matrix and build the
# median reorder_s, median_ms and setup in products; the per-round new/old
# ratios of reorder_s, their median and spread), sys.txt.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
ROUNDS=${1:-4} SIZE=${SIZE:-200} SIZE27=${SIZE27:-128} SIZEF=${SIZEF:-64} THREADS=${THREADS:-16}
OUT=${OUT:-/tmp/rs}
export NCCL_NVLS_ENABLE=0
if [ -z "${NEWB:-}" ] || [ -z "${OLDB:-}" ]; then
  . bench/jobs/job-env.sh   # builds this tree's programs, sets T0, OUT, D, $without
  OLD_SRC=${OLD_SRC:-.dev/old}
  (cd "$OLD_SRC" && make -j16 HSPMV_SKIP_DEPS=1 $without programs > /tmp/build-old.log 2>&1) ||
    { tail -20 /tmp/build-old.log; exit 1; }
  NEWB=$PWD/build/x86_64-double/bin/benchmark-omp OLDB=$PWD/$OLD_SRC/build/x86_64-double/bin/benchmark-omp
  echo "builds done t=$((SECONDS-T0))"
else
  T0=$SECONDS; mkdir -p "$OUT"; D=${D:-/tmp/m}; mkdir -p $D
fi
M="s7 s27 sf"
declare -A GEN=([s7]="lap3d $SIZE" [s27]="lap3d27 $SIZE27" [sf]="fem3d $SIZEF")
for m in $M; do f=$D/rs-$m-${GEN[$m]// /}.mtx
  [ -s $f ] || ./genmat ${GEN[$m]} --values random --shuffle 1 -o $f > /dev/null & done; wait
for m in $M; do f=$D/rs-$m-${GEN[$m]// /}; [ -s $f.petsc ] || ./convert $f.mtx $f.petsc > /dev/null & done; wait
echo "matrices ready t=$((SECONDS-T0))"
: > $OUT/runs.txt
one() { # ROUND MATRIX BUILD BINARY
  env OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES=cores timeout 150 "$4" \
    $D/rs-$2-${GEN[$2]// /}.petsc $THREADS --format auto --reorder rcm --reps 20 --no-bw 2>&1 |
    grep '^bench=omp ' | sed "s/^/r=$1 m=$2 b=$3 /" >> $OUT/runs.txt
}
for r in $(seq 1 $ROUNDS); do
  [ $((SECONDS - T0)) -lt ${DEADLINE:-400} ] || { echo "round $r skipped: past ${DEADLINE:-400} s"; break; }
  for m in $M; do
    if [ $((r % 2)) = 1 ]; then one $r $m old $OLDB; one $r $m new $NEWB
    else one $r $m new $NEWB; one $r $m old $OLDB; fi
  done
  echo "round $r t=$((SECONDS-T0))"
done
python3 - $OUT/runs.txt > $OUT/summary.txt <<'PY'
import re, sys, statistics as st
runs = {}
for line in open(sys.argv[1]):
    f = dict(re.findall(r'(\w+)=(\S+)', line))
    runs[(f['m'], f['b'], int(f['r']))] = (float(f['reorder_s']), float(f['median_ms']), f['bandwidth_after'])
for m in sorted({k[0] for k in runs}):
    for b in ('old', 'new'):
        v = [runs[k] for k in runs if k[0] == m and k[1] == b]
        if v:
            s, ms = st.median(x[0] for x in v), st.median(x[1] for x in v)
            print(f"m={m} b={b} runs={len(v)} reorder_s={s:.4f} median_ms={ms:.4f} products={1000 * s / ms:.0f} "
                  f"bandwidth_after={','.join(sorted({x[2] for x in v}))}")
    rs = sorted(runs[(m, 'new', r)][0] / runs[(m, 'old', r)][0]
                for r in {k[2] for k in runs} if (m, 'new', r) in runs and (m, 'old', r) in runs)
    if rs:
        print(f"m={m} new/old reorder_s: median {st.median(rs):.3f} spread {rs[0]:.3f}-{rs[-1]:.3f} rounds {len(rs)}")
PY
cat $OUT/summary.txt
echo "done t=$((SECONDS-T0))"
