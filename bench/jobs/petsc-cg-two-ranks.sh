#!/bin/bash
# petsc-cg-two-ranks.sh — a whole CG solve at 2 ranks x 1 thread: hspmv's
# solve (one or two builds) against PETSc's KSPCG (the peers' petsc_cg
# driver: b = A*1, x0 = 0, unpreconditioned residual norm, the same problem),
# and pipelined CG against KSPPIPECG, launched in turn over several rounds
# (the order rotated); the summary gives each one's median ms per iteration
# and the median of the per-round ratios PETSc/hspmv (> 1 = hspmv faster).
#   bench/jobs/petsc-cg-two-ranks.sh PETSC_CG MATRIX.mtx ROUNDS SOLVE...
# PETSC_CG: the petsc_cg program (run as mpirun -n 2 PETSC_CG MATRIX.mtx 3
# 1e-8 -ksp_type cg|pipecg). hspmv reads a PETSc binary copy of the matrix
# (made beside it by `convert` from the first SOLVE's folder). RTOL (1e-8).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
PEER=$1 M=$2 ROUNDS=$3; shift 3
BINS=("$@")
OUT=${OUT:-results/petsc-cg-two-ranks}; mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
RTOL=${RTOL:-1e-8}
P=${M%.mtx}.petsc
[ -s "$P" ] || "$(dirname "${BINS[0]}")/convert" "$M" "$P" > /dev/null
one() { # who, method, round
  if [ "$1" = petsc ]; then
    mpirun -n 2 --bind-to core "$PEER" "$M" 3 $RTOL -ksp_type $2 2>&1 | grep -m1 "ms_per_iter=" |
      sed "s/^/round=$3 who=petsc meth=$2 /"
  else
    local m=$2; [ "$m" = pipecg ] || m=cg
    mpirun -n 2 --bind-to core "$1" "$P" --threads 1 --tol $RTOL --reps 4 --method $m 2>&1 | grep "^bench=solve" |
      sed "s|^|round=$3 who=$1 meth=$2 |"
  fi >> "$OUT/rounds.txt"
}
WHO=(petsc "${BINS[@]}")
for k in $(seq 1 $ROUNDS); do
  off=$(( (k - 1) % ${#WHO[@]} ))
  for meth in cg pipecg; do for w in "${WHO[@]:off}" "${WHO[@]:0:off}"; do one "$w" $meth $k; done; done
  echo "round $k"
done
python3 - "$OUT/rounds.txt" <<'PY'
import re, sys, statistics as st, collections as C
rows = [dict(re.findall(r'(\w+)=(\S+)', l)) for l in open(sys.argv[1])]
t = C.defaultdict(dict)
for r in rows: t[(r["meth"], r["who"])][int(r["round"])] = r
for meth in ("cg", "pipecg"):
    pe = t.get((meth, "petsc"), {})
    for (m, who), d in t.items():
        if m != meth or who == "petsc": continue
        ks = sorted(set(d) & set(pe))
        if not ks: continue
        rat = [float(pe[k]["ms_per_iter"]) / float(d[k]["ms_per_iter"]) for k in ks]
        print(f"{meth}: {who}: {len(ks)} rounds, hspmv {st.median(float(d[k]['ms_per_iter']) for k in ks):.3f} ms/iter "
              f"({d[ks[0]]['iterations']} its, relres_true {d[ks[0]]['relres_true']}), petsc "
              f"{st.median(float(pe[k]['ms_per_iter']) for k in ks):.3f} ({pe[ks[0]].get('iterations')} its); "
              f"petsc/hspmv median {st.median(rat):.2f} (min {min(rat):.2f}, max {max(rat):.2f})")
PY
