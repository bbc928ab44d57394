#!/bin/bash
# petsc-two-ranks.sh — y = A*x at 2 ranks x 1 thread: hspmv (one or two
# builds of benchmark-mpi) against PETSc's MatMult (MPIAIJ), launched in turn
# over several rounds in a rotated order; the summary gives each one's median
# over rounds and the median of the per-round ratios PETSc/hspmv (> 1 =
# hspmv faster).
#   bench/jobs/petsc-two-ranks.sh PETSC_DRIVER MATRIX.mtx ROUNDS BIN_DIR...
# PETSC_DRIVER: a program run as `mpirun -n 2 PETSC_DRIVER MATRIX.mtx 20` that
# prints a line with median_ms= (e.g. a MatMult timing loop over MatLoad or a
# Matrix Market reader). hspmv reads a PETSc binary copy of the matrix (made
# once beside it with BIN_DIR's convert, else the first BIN_DIR that has one).
# ARGS (e.g. ARGS=--transpose or "--vectors 8"): passed to both programs.
set -u
# --help: the comment above, as usage
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
PEER=$1 M=$2 ROUNDS=$3; shift 3
BINS=("$@")
OUT=${OUT:-results/petsc-two-ranks}; mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
P=${M%.mtx}.petsc
[ -s "$P" ] || for b in "${BINS[@]}"; do [ -x "$b/convert" ] && "$b/convert" "$M" "$P" > /dev/null && break; done
one() { # who, round
  if [ "$1" = petsc ]; then
    mpirun -n 2 --bind-to core "$PEER" "$M" 20 ${ARGS:-} 2>&1 | grep -m1 "median_ms=" | sed "s/^/round=$2 who=petsc /"
  else
    mpirun -n 2 --bind-to core "$1/benchmark-mpi" "$P" --threads 1 --reps 50 ${ARGS:-} 2>&1 | grep "^bench=mpi" |
      sed "s/^/round=$2 who=$(basename "$1") /"
  fi >> "$OUT/rounds.txt"
}
WHO=(petsc "${BINS[@]}")
for k in $(seq 1 "$ROUNDS"); do
  n=${#WHO[@]}; off=$(( (k - 1) % n ))
  for ((i = 0; i < n; i++)); do one "${WHO[$(( (off + i) % n ))]}" $k; done
  echo "round $k"
done
python3 - "$OUT/rounds.txt" <<'PY'
import re, sys, statistics as st, collections as C
t = C.defaultdict(dict)
for l in open(sys.argv[1]):
    r = dict(re.findall(r'(\w+)=(\S+)', l))
    t[r["who"]][int(r["round"])] = float(r["median_ms"])
p = t.pop("petsc", {})
print("who | rounds | median ms | PETSc median ms | median of per-round PETSc/who | min-max")
for w, v in t.items():
    ks = sorted(set(v) & set(p)); rat = [p[k] / v[k] for k in ks]
    if ks: print(f"{w} | {len(ks)} | {st.median(v[k] for k in ks):.3f} | {st.median(p[k] for k in ks):.3f} | "
                 f"{st.median(rat):.3f} | {min(rat):.3f}-{max(rat):.3f}")
PY
