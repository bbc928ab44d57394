#!/bin/bash
# procs-vs-threads-job.sh — issue 11's question "is a process of one thread
# slower per core than a thread?" without the distributed layer: the real-valued
# 3D stencil's rows as P processes x T threads (scripts/procs_vs_threads.c), each
# launch once per round, in rounds, and a table of per-round ratios to 1 x 16.
# Needs what scripts/job-env.sh says; run from the repository root; results under $OUT.
#   scripts/procs-vs-threads-job.sh [ROUNDS]      (default 3; N=200, the grid size)
set -u
ROUNDS=${1:-3}
N=${N:-200}
. scripts/job-env.sh
B=build/x86_64-double
mpicc -O2 -fopenmp -I$B/include -Iinclude -Isrc/util -Isrc/local -o /tmp/procs_vs_threads \
  scripts/procs_vs_threads.c $B/libhspmv.a -lm || exit 1
# P T CHUNKS [VAR=VALUE]: one launch; streaming stores of y on in every split (a
# rank of 16 decides them by its node's bytes in benchmark-mpi, alone it would not)
run() {
  env HSPMV_STREAM_Y=1 OMP_NUM_THREADS=$2 OMP_PROC_BIND=close OMP_PLACES=cores ${4:-} timeout 60 \
    mpirun -n $1 --map-by slot:PE=$2 --bind-to core /tmp/procs_vs_threads $N 40 avx2 $3 2>&1 |
    grep "^diag" | sed "s/^/round=$r env=${4:-none} /" >> $OUT/procs.txt
}
for r in $(seq $ROUNDS); do
  run 1 16 0; run 16 1 0; run 16 1 256; run 8 2 0; run 4 4 0; run 1 16 0 HSPMV_PIECES=1
  echo "round $r t=$((SECONDS-T0))"
done
python3 - "$OUT/procs.txt" <<'PY' | tee $OUT/procs-summary.txt
import re, sys, collections as C
rows = [dict(re.findall(r'(\w+)=(\S+)', l)) for l in open(sys.argv[1])]
key = lambda r: f'{r["ranks"]}x{r["threads"]} chunks={r["chunks"]} env={r["env"]}'
t = C.defaultdict(dict)
for r in rows: t[key(r)][r["round"]] = r
base = t["1x16 chunks=0 env=none"]
print("split | per round: mean rank ms / slowest rank ms | per-core speed of the mean rank over 1x16's")
for k, v in t.items():
    ks = sorted(v)
    print(k, "|", " ".join(f'{v[q]["avg_ms"]}/{v[q]["max_ms"]}' for q in ks), "|",
          " ".join(f'{float(v[q]["nnz_per_ns_core_avg"]) / float(base[q]["nnz_per_ns_core_avg"]):.3f}' for q in ks if q in base))
PY
