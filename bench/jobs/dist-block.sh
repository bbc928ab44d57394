#!/bin/bash
# dist-block.sh — the distributed block product Y = A·X (benchmark-mpi
# --vectors K, hspmv_dist_spmm) against the one-vector product at 16 cores:
# splits 16x1, 4x4 and 1x16, K = 1 and 8, halo node and p2p (both timed in
# each launch, interleaved passes), on the real-valued 2D stencil 3000^2
# (l2r, made here) and 3D stencil 200^3 (l3r, bench/jobs/job-env.sh), over
# rounds in an order rotated from round to round. The table gives, per
# matrix, split and halo: the median over rounds of the one-vector and the
# 8-vector product, and 8·t(K=1)/t(K=8), the block product's speed-up over
# eight one-vector products (above 1: the block reads the matrix once).
# With PETSC_DRIVER (a program run as `mpirun -n R PETSC_DRIVER M.mtx REPS
# [--vectors 8]` that prints median_ms=, e.g. the peers' petsc_spmv) each
# round also times PETSc's MatMult and MatMatMult at R = 16 ranks, and the
# table gives PETSc's time over hspmv's for 16x1.
#   bench/jobs/dist-block.sh [ROUNDS]      (default 3)
# MATS (default "l2r l3r"), SPLITS (default "16x1 4x4 1x16"), KS (default
# "1 8"); DEADLINE (seconds from the start) starts no round after it.
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI; the build it makes). Results under
# $OUT (default results/dist-block): rounds.txt, full.txt (every launch's
# whole output: the per-phase times, max and mean over ranks); the table on stdout.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
ROUNDS=${1:-3}
OUT=${OUT:-results/dist-block}
MATS=${MATS:-l2r l3r}
KS=${KS:-1 8}
. bench/jobs/job-env.sh
gen_mats $(echo $MATS | tr ' ' '\n' | grep -v '^l2r$')
case " $MATS " in *" l2r "*) [ -s $D/l2r.mtx ] || ./genmat lap2d 3000 --values random -o $D/l2r.mtx > /dev/null ;; esac
for m in $MATS; do [ -s $D/$m.petsc ] || ./convert $D/$m.mtx $D/$m.petsc > /dev/null & done; wait
echo "matrices ready t=$((SECONDS-T0))"
SPLITS=(${SPLITS:-16x1 4x4 1x16})
[ -n "${PETSC_DRIVER:-}" ] && SPLITS+=(petsc)
one() { # matrix, split, K, round: one launch, its lines tagged
  local r=${2%x*} t=${2#*x} reps=20 v=()
  [ $3 -gt 1 ] && { reps=10; v=(--vectors $3); }
  if [ $2 = petsc ]; then
    env OMP_NUM_THREADS=1 timeout 300 mpirun -n 16 --bind-to core "$PETSC_DRIVER" $D/$1.mtx $reps "${v[@]}" 2>&1 |
      grep -m1 "median_ms=" | sed "s/^/halo=- /"
  else
    env OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores timeout 300 mpirun -n $r --map-by slot:PE=$t \
      --bind-to core ./benchmark-mpi $D/$1.petsc --threads $t --reps $reps --warmup 3 --passes 2 --halo node,p2p \
      "${v[@]}" 2>&1 | tee -a $OUT/full.txt | grep "^bench=mpi"
  fi | sed "s/^/round=$4 split=$2 mat=$1 k=$3 /" >> $OUT/rounds.txt
}
for rd in $(seq 1 "$ROUNDS"); do
  off=$(( (rd - 1) % ${#SPLITS[@]} )); order="${SPLITS[*]:off} ${SPLITS[*]:0:off}"
  for m in $MATS; do for s in $order; do for k in $KS; do one $m $s $k $rd; done; done; done
  echo "round $rd ($order) t=$((SECONDS-T0))"
  [ $((SECONDS - T0)) -lt ${DEADLINE:-999999} ] || break
done
python3 - "$OUT/rounds.txt" <<'EOF' || true
import re, sys, statistics as st, collections as C
t = C.defaultdict(lambda: C.defaultdict(dict))  # (mat, split, halo) -> k -> round -> ms
for l in open(sys.argv[1]):
    r = dict(re.findall(r'(\w+)=(\S+)', l))
    t[(r["mat"], r["split"], r.get("halo", "-"))][int(r["k"])][int(r["round"])] = float(r["median_ms"])
med = lambda d: st.median(d.values()) if d else float("nan")
print("matrix | split | halo | K=1 ms | K=8 ms | 8*t1/t8 | PETSc/hspmv K=1 | PETSc/hspmv K=8")
for (m, s, h), v in sorted(t.items()):
    if s == "petsc": continue
    p = t.get((m, "petsc", "-"), {})
    rel = lambda k: med(p.get(k, {})) / med(v.get(k, {})) if s == "16x1" and p.get(k) else float("nan")
    t1, t8 = med(v.get(1, {})), med(v.get(8, {}))
    print(f"{m} | {s} | {h} | {t1:.3f} | {t8:.3f} | {8 * t1 / t8:.3f} | {rel(1):.3f} | {rel(8):.3f}")
for (m, s, h), v in sorted(t.items()):
    if s == "petsc": print(f"{m} | PETSc 16 ranks | - | {med(v.get(1, {})):.3f} | {med(v.get(8, {})):.3f} | - | - | -")
EOF
