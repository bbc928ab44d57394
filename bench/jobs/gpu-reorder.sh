#!/bin/bash
# gpu-reorder.sh — the GPU product (benchmark-light, kernel auto) on a badly
# numbered mesh: the real-valued lap3d 200 in grid order (l3r) and shuffled by
# genmat --shuffle 1 (l3s), with --reorder none, rcm and auto (auto on both),
# against the device-to-device copy rate (copy_frac). Rounds while fewer
# than DEADLINE seconds (default 150) have gone by, at most ROUNDS.
#   bench/jobs/gpu-reorder.sh [ROUNDS]   (default 2)
# Needs a CUDA GPU and nvcc. Results in $OUT (default results/gpu-reorder):
# runs.txt (the bench=light lines, each prefixed r=ROUND m=MATRIX v=REORDER).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
ROUNDS=${1:-2}
OUT=${OUT:-results/gpu-reorder}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
T0=$SECONDS
without=""; echo '#include <metis.h>' | cc -E - >/dev/null 2>&1 || without="NO_METIS=1"
echo '#include <zlib.h>' | cc -E - >/dev/null 2>&1 || without="$without NO_ZLIB=1"
make -j"$(nproc)" HSPMV_SKIP_DEPS=1 $without CUDA=1 NVCC="$NVCC" programs gpu-programs > "$OUT/build.txt" 2>&1 ||
  { tail -20 "$OUT/build.txt"; exit 1; }
D=/tmp/m; mkdir -p $D
[ -s $D/l3r.mtx ] || ./genmat lap3d 200 --values random -o $D/l3r.mtx > /dev/null &
[ -s $D/l3s.mtx ] || ./genmat lap3d 200 --values random --shuffle 1 -o $D/l3s.mtx > /dev/null &
wait
echo "ready t=$((SECONDS - T0))"
: > "$OUT/runs.txt"
for r in $(seq 1 "$ROUNDS"); do
  for mv in l3r:none l3s:none l3s:rcm l3s:auto l3r:auto; do
    m=${mv%:*} v=${mv#*:}
    ./benchmark-light $D/$m.mtx --kernel auto --reorder $v --reps 20 --warmup 5 2>&1 | grep "^bench=light" |
      sed "s/^/r=$r m=$m v=$v /" >> "$OUT/runs.txt"
  done
  echo "round $r t=$((SECONDS - T0))"
  [ $((SECONDS - T0)) -lt ${DEADLINE:-150} ] || break
done
grep -o "r=[0-9]* m=[a-z0-9]* v=[a-z]*\|median_ms=[0-9.]*\|copy_frac=[0-9.]*\|reorder_s=[0-9.]*" "$OUT/runs.txt" |
  paste -d' ' - - - - || true
