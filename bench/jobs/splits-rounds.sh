#!/bin/bash
# splits-rounds.sh — ranks x threads splits of 16 cores against
# benchmark-omp over several launches: a core's speed on a shared virtual
# machine holds within a launch and changes between launches, so one launch
# per split compares the machine's moods as much as code. Each round
# launches benchmark-omp (auto, 16 threads) and benchmark-mpi at 16x1, 8x2,
# 4x4, 2x8 and 1x16 once, in an order rotated from round to round; the table
# gives each split's median over rounds and the median of its per-round
# ratios to that round's benchmark-omp.
#   bench/jobs/splits-rounds.sh [ROUNDS]      (default 3)
# PASSES (default 1) interleaved passes per launch; SPLITS (default "omp 16x1
# 8x2 4x4 2x8 1x16") the launches of a round; RxT:K launches RxT with
# --kernel K (e.g. SPLITS="omp 16x1 16x1:avx2 16x1:avx512"). MATS="l3r rnd"
# chooses the matrices (bench/jobs/job-env.sh names them); MPI_ARGS adds
# arguments to every benchmark-mpi call (default --read parallel); with
# --halo node,p2p (and --passes P to interleave them) each halo gets its own
# line, split/halo, timed in the same launches. FILE=mtx reads the Matrix
# Market files; by default each is converted once to a PETSc binary file,
# which both programs read (10-20x faster than parsing text: more rounds in
# a job). DEADLINE (seconds from the start) starts no round after it.
# ROUND0 numbers this call's rounds from ROUND0+1 on (and goes on with the
# rotation), so that a second call on the same machine adds rounds to the
# first's rounds.txt.
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI; the build it makes). Results under
# $OUT (default results/scaling): rounds.txt; the table on stdout.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
ROUNDS=${1:-3}
MATS=${MATS-l3r rnd}
MPI_ARGS=${MPI_ARGS---read parallel}
. bench/jobs/job-env.sh
gen_mats $MATS
EXT=${FILE:-petsc}
if [ $EXT = petsc ]; then
  for m in $MATS; do [ -s $D/$m.petsc ] || ./convert $D/$m.mtx $D/$m.petsc > /dev/null & done; wait
  echo "converted t=$((SECONDS-T0))"
fi
SPLITS=(${SPLITS:-omp 16x1 8x2 4x4 2x8 1x16})
one() { # matrix, split, round: one launch, its bench line tagged
  local M=$D/$1.$EXT r t k=() s=${2%%:*}
  [ $s = $2 ] || k=(--kernel ${2#*:})
  if [ $2 = omp ]; then
    env OMP_NUM_THREADS=16 OMP_PROC_BIND=true OMP_PLACES=cores timeout 90 ./benchmark-omp $M 16 --format auto --no-bw --reps 40 2>&1 |
      grep "^bench=omp"
  else
    r=${s%x*}; t=${s#*x}
    env OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores timeout 120 mpirun -n $r --map-by slot:PE=$t --bind-to core \
      ./benchmark-mpi $M $MPI_ARGS "${k[@]}" --threads $t --reps 20 --passes ${PASSES:-1} 2>&1 | grep "^bench=mpi"
  fi | sed "s/^/round=$3 split=$2 mat=$1 /" >> $OUT/rounds.txt
}
R0=${ROUND0:-0}
for k in $(seq $((R0 + 1)) $((R0 + ROUNDS))); do
  off=$(( (k - 1) % ${#SPLITS[@]} )); order="${SPLITS[*]:off} ${SPLITS[*]:0:off}"
  for m in $MATS; do for s in $order; do one $m $s $k; done; done
  echo "round $k ($order) t=$((SECONDS-T0))"
  [ $((SECONDS - T0)) -lt ${DEADLINE:-999999} ] || break
done
python3 - "$OUT" <<'EOF' || true
import re, sys, statistics as st, collections as C
rows = [dict(re.findall(r'(\w+)=(\S+)', l)) for l in open(f"{sys.argv[1]}/rounds.txt")]
t = C.defaultdict(dict)
halos = C.defaultdict(set)  # (matrix, split): the halo modes its launches timed
for r in rows: halos[(r["mat"], r["split"])].add(r.get("halo", "-"))
for r in rows: # where a split timed several halos (--halo node,p2p), each is its own line: split/halo
    k = (r["mat"], r["split"])
    t[(k[0], k[1] + ("/" + r["halo"] if len(halos[k]) > 1 else ""))][int(r["round"])] = float(r["median_ms"])
order = "omp 16x1 8x2 4x4 2x8 1x16".split()
base = lambda s: s.split("/")[0].split(":")[0]  # split/halo, split:kernel
print("matrix | split | median ms over rounds | per-round ms | omp ms (same rounds) | omp/hspmv of medians | median of per-round omp/hspmv")
for m in dict.fromkeys(r["mat"] for r in rows):
    o = t.get((m, "omp"), {})
    for s in sorted((k[1] for k in t if k[0] == m), key=lambda s: (order.index(base(s)) if base(s) in order else len(order), s)):
        v = t[(m, s)]
        ks = sorted(v); om = st.median(o.values()) if o else float("nan")
        per = [o[k] / v[k] for k in ks if k in o]
        print(f'{m} | {s} | {st.median(v.values()):.3f} | {" ".join(f"{v[k]:.2f}" for k in ks)} | {om:.3f} | '
              f'{om / st.median(v.values()):.3f} | {st.median(per) if per else float("nan"):.3f}')
EOF
