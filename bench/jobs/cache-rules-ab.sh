#!/bin/bash
# cache-rules-ab.sh — the library's cache rules (column panels and their
# count, streaming stores of y) from sysconf's cache sizes (OLD build) against
# sysfs's (NEW build): first each build's decisions on every matrix
# (benchmark-omp, formats auto, panels and csrp, one product each), then, on
# the matrices where a decision differs, both builds timed in interleaved
# rounds (order alternating from round to round), and per matrix and format
# the median over rounds of new/old (time ratio, < 1 = new faster).
#   bench/jobs/cache-rules-ab.sh OLD_BIN_DIR NEW_BIN_DIR [ROUNDS]   (default 8)
# Each BIN_DIR holds benchmark-omp; NEW_BIN_DIR also genmat, which makes the
# generated matrices once in $D (default /tmp/m). OLD: a build of the commit
# before the cache module (git worktree add /tmp/old <commit>; make -C
# /tmp/old -j16 programs; OLD_BIN_DIR=/tmp/old/build/x86_64-double/bin).
# MATS (default "l3-100 rnd-1m rnd-4m pwl-4m bundled"): l3-100 = genmat lap3d 100
# --values random (7M nonzeros, 80 MB in CSRP: past a 32 MiB L3, within a
# reported 384 MiB), rnd-1m / rnd-4m = random 1000000 / 4000000 --k 8 (x of
# 8 / 32 MB: one or two column panels), pwl-4m = powerlaw 4000000 --k 8,
# bundled = every matrices/*.mtx and matrices/suitesparse/*.mtx. THREADS
# (default: nproc), DECIDE_ONLY=1 stops after the decisions. Prints the cache
# sizes both sources give on the machine (getconf, /sys). Results: $OUT
# (default results/cache-rules): decisions.txt, rounds.txt; the tables on
# stdout. Needs: nothing but the two builds (no MPI).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
OLD=$1 NEW=$2 ROUNDS=${3:-8}
OUT=${OUT:-results/cache-rules}; mkdir -p "$OUT"
T=${THREADS:-$(nproc)}
MATS=${MATS-l3-100 rnd-1m rnd-4m pwl-4m bundled}
D=${D:-/tmp/m}; mkdir -p "$D"
declare -A GEN=([l3-100]="lap3d 100 --values random" [rnd-1m]="random 1000000 --k 8"
                [rnd-4m]="random 4000000 --k 8" [pwl-4m]="powerlaw 4000000 --k 8")
T0=$SECONDS
echo "== cache sizes: sysconf (getconf) and sysfs (cpu0)"
getconf -a 2>/dev/null | grep -E '^LEVEL(1_D|2_|3_)CACHE_SIZE'
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
  [ -r "$d/size" ] && echo "sysfs $(basename $d): level $(cat $d/level) $(cat $d/type) $(cat $d/size) shared by $(cat $d/shared_cpu_list)"
done
[ -d /sys/devices/system/cpu/cpu0/cache ] || echo "sysfs: no cpu0/cache on this machine (the NEW build falls back to sysconf)"

files=()
for m in $MATS; do
  if [ "$m" = bundled ]; then
    for f in matrices/*.mtx matrices/suitesparse/*.mtx; do [ -f "$f" ] && files+=("$f"); done
  elif [ -n "${GEN[$m]:-}" ]; then
    [ -s $D/$m.mtx ] || "$NEW"/genmat ${GEN[$m]} -o $D/$m.mtx > /dev/null || { echo "genmat $m failed"; continue; }
    files+=("$D/$m.mtx")
  else echo "unknown matrix $m"; fi
done
echo "matrices ready t=$((SECONDS-T0))"

# decide BIN FILE: one line per format, "format: chosen (notes)", from benchmark-omp's setup lines
decide() {
  OMP_NUM_THREADS=$T OMP_PROC_BIND=close OMP_PLACES=cores timeout 600 "$1/benchmark-omp" "$2" $T \
    --format auto,panels,csrp --no-bw --reps 1 --warmup 0 2>&1 |
    sed -n 's/^  \(auto -> [a-z0-9]*\|panels\|csrp\): .*bytes\/nonzero\(.*\)$/\1\2/p' | tr '\n' ';'
}
: > "$OUT/decisions.txt"
differ=()
echo "== decisions (old | new), $T threads"
for f in "${files[@]}"; do
  a=$(decide "$OLD" "$f") b=$(decide "$NEW" "$f")
  same=same; [ "$a" = "$b" ] || { same=DIFFERS; differ+=("$f"); }
  echo "$same $(basename "$f") | $a | $b" | tee -a "$OUT/decisions.txt"
done
echo "decisions done t=$((SECONDS-T0)); differing: ${#differ[@]}"
[ "${DECIDE_ONLY:-0}" = 1 ] || [ ${#differ[@]} = 0 ] && exit 0

: > "$OUT/rounds.txt"
one() { # build dir, file, round, label
  OMP_NUM_THREADS=$T OMP_PROC_BIND=close OMP_PLACES=cores timeout 600 "$1/benchmark-omp" "$2" $T \
    --format auto,panels,csrp --no-bw --reps 50 2>&1 | grep "^bench=omp " |
    sed "s|^|round=$3 build=$4 mat=$(basename $2) |" >> "$OUT/rounds.txt"
}
for k in $(seq 1 $ROUNDS); do
  for f in "${differ[@]}"; do
    if [ $((k % 2)) = 1 ]; then one "$OLD" "$f" $k old; one "$NEW" "$f" $k new; else one "$NEW" "$f" $k new; one "$OLD" "$f" $k old; fi
  done
  echo "round $k t=$((SECONDS-T0))"
done
python3 - "$OUT/rounds.txt" old new <<'PY'
import re, sys, statistics as st, collections as C
rows = [dict(re.findall(r'(\w+)=(\S+)', l)) for l in open(sys.argv[1])]
old, new = sys.argv[2], sys.argv[3]
t = C.defaultdict(dict)
for r in rows: t[(r["mat"], r["asked"], r["build"])][int(r["round"])] = (float(r["median_ms"]), r["format"])
print("matrix | asked (old -> new format) | rounds | old ms (median) | new ms (median) | new/old: median of per-round ratios | min-max")
for m in dict.fromkeys(r["mat"] for r in rows):
    for f in dict.fromkeys(r["asked"] for r in rows):
        a, b = t.get((m, f, old), {}), t.get((m, f, new), {})
        ks = sorted(set(a) & set(b))
        if not ks: continue
        rat = [b[k][0] / a[k][0] for k in ks]
        print(f"{m} | {f} ({a[ks[0]][1]} -> {b[ks[0]][1]}) | {len(ks)} | {st.median(a[k][0] for k in ks):.4f} | "
              f"{st.median(b[k][0] for k in ks):.4f} | {st.median(rat):.3f} | {min(rat):.3f}-{max(rat):.3f}")
PY
