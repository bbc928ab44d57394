#!/bin/bash
# two-builds-rounds.sh — times two builds of benchmark-mpi side by side: each
# round launches both builds at every split on every matrix, in an order
# rotated from round to round, and the summary gives per matrix and split the
# median over rounds of new/old (time ratio, < 1 = new faster) with its
# spread, beside the 1x16 split's spread (the control: one process, no halo).
#   bench/jobs/two-builds-rounds.sh OLD_BIN_DIR NEW_BIN_DIR [ROUNDS]
# Each BIN_DIR holds benchmark-mpi; NEW_BIN_DIR also genmat and convert, which
# make the matrices once in $D (default /tmp/m) as PETSc binary files.
# MATS (default "l3r rnd pwl"): l3r = genmat lap3d 200 --values random,
# rnd = random 4000000 --k 8, pwl = powerlaw 4000000 --k 8 (their values are real already).
# SPLITS (default "16x1 4x4 1x16"), MPI_ARGS (default --read parallel),
# ROUND0 (number rounds after an earlier call's), DEADLINE (seconds: no new
# round after it). Results: $OUT/rounds.txt and the summary on stdout.
# Needs Open MPI (mpirun) and METIS's shared library where the binaries look.
set -u
# --help: the comment above, as usage
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
OLD=$1 NEW=$2 ROUNDS=${3:-8}
OUT=${OUT:-results/two-builds}; mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MATS=${MATS-l3r rnd pwl}
MPI_ARGS=${MPI_ARGS---read parallel}
SPLITS=(${SPLITS:-16x1 4x4 1x16})
D=${D:-/tmp/m}; mkdir -p "$D"
declare -A GEN=([l3r]="lap3d 200 --values random" [rnd]="random 4000000 --k 8"
                [pwl]="powerlaw 4000000 --k 8")
T0=$SECONDS
for m in $MATS; do
  [ -s $D/$m.petsc ] || { "$NEW"/genmat ${GEN[$m]} -o $D/$m.mtx > /dev/null &&
                          "$NEW"/convert $D/$m.mtx $D/$m.petsc > /dev/null && rm -f $D/$m.mtx; } &
done; wait
echo "matrices ready t=$((SECONDS-T0))"
one() { # build, matrix, split, round
  local r=${3%x*} t=${3#*x}
  env OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores timeout 150 mpirun -n $r --map-by slot:PE=$t \
    --bind-to core "$1/benchmark-mpi" $D/$2.petsc $MPI_ARGS --threads $t --reps 20 2>&1 | grep "^bench=mpi" |
    sed "s/^/round=$4 build=$(basename $1) split=$3 mat=$2 /" >> "$OUT/rounds.txt"
}
R0=${ROUND0:-0}
for k in $(seq $((R0 + 1)) $((R0 + ROUNDS))); do
  off=$(( (k - 1) % ${#SPLITS[@]} )); order="${SPLITS[*]:off} ${SPLITS[*]:0:off}"
  for m in $MATS; do for s in $order; do
    if [ $((k % 2)) = 1 ]; then one "$OLD" $m $s $k; one "$NEW" $m $s $k; else one "$NEW" $m $s $k; one "$OLD" $m $s $k; fi
  done; done
  echo "round $k ($order) t=$((SECONDS-T0))"
  [ $((SECONDS - T0)) -lt ${DEADLINE:-999999} ] || break
done
python3 - "$OUT/rounds.txt" "$(basename "$OLD")" "$(basename "$NEW")" <<'PY'
import re, sys, statistics as st, collections as C
rows = [dict(re.findall(r'(\w+)=(\S+)', l)) for l in open(sys.argv[1])]
old, new = sys.argv[2], sys.argv[3]
t = C.defaultdict(dict)
for r in rows: t[(r["mat"], r["split"], r["build"])][int(r["round"])] = float(r["median_ms"])
print("matrix | split | rounds | old ms (median) | new ms (median) | new/old: median of per-round ratios | min-max")
for m in dict.fromkeys(r["mat"] for r in rows):
    for s in dict.fromkeys(r["split"] for r in rows):
        a, b = t.get((m, s, old), {}), t.get((m, s, new), {})
        ks = sorted(set(a) & set(b))
        if not ks: continue
        rat = [b[k] / a[k] for k in ks]
        print(f"{m} | {s} | {len(ks)} | {st.median(a[k] for k in ks):.3f} | {st.median(b[k] for k in ks):.3f} | "
              f"{st.median(rat):.3f} | {min(rat):.3f}-{max(rat):.3f}")
PY
