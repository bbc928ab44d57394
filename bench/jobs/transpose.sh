#!/bin/bash
# transpose.sh — y = A^T x against y = A x on the 16-core machine: the
# real-valued 3D stencil 200^3 (target: A^T x within 1.3x of A x), random
# 4M x 8 and power-law 4M x 8 (target: within 1.6x), each at 16 ranks x 1
# thread and 1 rank x 16 threads (benchmark-mpi, default halo; at 16x1 also
# --halo p2p), and benchmark-omp at 16 threads; the plain and transposed
# products alternate, PASSES times (default 3), so that drift hits both;
# the peers' naive OpenMP loop with --transpose (per-thread partial y) once
# per matrix. A table at the end gives each configuration's medians and the
# ratio A^T x / A x (median of the passes' ratios).
#   bench/jobs/transpose.sh [PASSES]
# MATS="l3r rnd pwl" chooses the matrices (bench/jobs/job-env.sh names them).
# Runs from the repository root; needs what bench/jobs/job-env.sh says
# (Open MPI, the peers' naive loop in .dev/peers). About 15 minutes.
# Results under $OUT (default results/transpose): mpi.txt, omp.txt,
# naive.txt, sys.txt.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
PASSES=${1:-3}
MATS=${MATS-l3r rnd pwl}
OUT=${OUT:-results/transpose}
. bench/jobs/job-env.sh
gen_mats $MATS
MPI="mpirun --bind-to core --map-by core"
for m in $MATS; do M=$D/$m.mtx
  for pass in $(seq $PASSES); do
    for t in "" --transpose; do
      OMP_NUM_THREADS=1 timeout 200 $MPI -n 16 ./benchmark-mpi $M --threads 1 --reps 40 $t 2>&1 | grep "^bench=mpi" >> $OUT/mpi.txt
      OMP_NUM_THREADS=1 timeout 200 $MPI -n 16 ./benchmark-mpi $M --threads 1 --reps 40 --halo p2p $t 2>&1 | grep "^bench=mpi" >> $OUT/mpi.txt
      env OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores timeout 200 mpirun -n 1 --map-by slot:PE=16 --bind-to core \
        ./benchmark-mpi $M --threads 16 --reps 40 $t 2>&1 | grep "^bench=mpi" >> $OUT/mpi.txt
      env OMP_NUM_THREADS=16 OMP_PROC_BIND=true OMP_PLACES=cores timeout 200 ./benchmark-omp $M 16 --format auto --no-bw \
        --reps 40 $t 2>&1 | grep "^bench=omp " >> $OUT/omp.txt
    done
    echo "$m pass $pass t=$((SECONDS-T0))"
  done
  for t in "" --transpose; do
    env OMP_NUM_THREADS=16 OMP_PROC_BIND=true OMP_PLACES=cores timeout 120 /tmp/naive $M 16 40 $t 2>&1 | grep "^peer" >> $OUT/naive.txt
  done
done
echo "total t=$((SECONDS-T0))"
# the table: per matrix, program and split, the medians (ms) of A x and A^T x in each pass and the ratio
python3 - "$OUT" <<'EOF'
import re, sys, statistics as st
out = sys.argv[1]
rows = {}
for f in ("mpi.txt", "omp.txt", "naive.txt"):
    try: lines = open(f"{out}/{f}").read().splitlines()
    except OSError: continue
    for l in lines:
        kv = dict(re.findall(r"(\w+)=(\S+)", l))
        key = (kv.get("matrix", "?").split("/")[-1], f[:-4], kv.get("ranks", "1") + "x" + kv.get("threads", "?"),
               kv.get("halo", "-"))
        rows.setdefault(key, {"0": [], "1": []})[kv.get("transpose", "0")].append(float(kv["median_ms"]))
print("matrix program ranks x threads halo | A x ms (passes) | A^T x ms (passes) | ratio")
for k, v in sorted(rows.items()):
    r = [b / a for a, b in zip(v["0"], v["1"])]
    print(*k, "|", " ".join(f"{x:.3f}" for x in v["0"]), "|", " ".join(f"{x:.3f}" for x in v["1"]), "|",
          f"{st.median(r):.3f}" if r else "-")
EOF
