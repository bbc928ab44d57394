#!/bin/bash
# procs-vs-threads.sh — is a process of one thread slower per core than a
# thread, without the distributed layer? The real-valued 3D stencil's rows
# as P processes x T threads (bench/jobs/procs_vs_threads.c: each rank
# prepares its rows in CSRP and times the local product, no halo): 1x16,
# 16x1 (whole and in 256 chunks), 8x2 and 4x4, each launch once per round,
# in rounds, and a table of per-round per-core speeds over 1x16's.
# Streaming stores of y are forced on in every split (HSPMV_TEST=stream_y=1,
# the library's test switch): a rank of 16 would decide them by its node's
# bytes in benchmark-mpi, a lone rank here would not.
#   bench/jobs/procs-vs-threads.sh [ROUNDS]      (default 3; N=200, the grid size)
# Runs on the 16-core machine (AVX2), from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI, mpicc; the build it makes, whose
# libhspmv.a the program links). Results under $OUT (default
# results/scaling): procs.txt, procs-summary.txt (also on stdout).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
ROUNDS=${1:-3}
N=${N:-200}
. bench/jobs/job-env.sh
B=build/x86_64-double
mpicc -O2 -fopenmp -I$B/include -Iinclude -Isrc/util -Isrc/local -o /tmp/procs_vs_threads \
  bench/jobs/procs_vs_threads.c $B/libhspmv.a -lm || exit 1
# P T CHUNKS: one launch
run() {
  env HSPMV_TEST=stream_y=1 OMP_NUM_THREADS=$2 OMP_PROC_BIND=close OMP_PLACES=cores timeout 60 \
    mpirun -n $1 --map-by slot:PE=$2 --bind-to core /tmp/procs_vs_threads $N 40 avx2 $3 2>&1 |
    grep "^diag" | sed "s/^/round=$r /" >> $OUT/procs.txt
}
for r in $(seq $ROUNDS); do
  run 1 16 0; run 16 1 0; run 16 1 256; run 8 2 0; run 4 4 0
  echo "round $r t=$((SECONDS-T0))"
done
python3 - "$OUT/procs.txt" <<'PY' | tee $OUT/procs-summary.txt
import re, sys, collections as C
rows = [dict(re.findall(r'(\w+)=(\S+)', l)) for l in open(sys.argv[1])]
key = lambda r: f'{r["ranks"]}x{r["threads"]} chunks={r["chunks"]}'
t = C.defaultdict(dict)
for r in rows: t[key(r)][r["round"]] = r
base = t["1x16 chunks=0"]
print("split | per round: mean rank ms / slowest rank ms | per-core speed of the mean rank over 1x16's")
for k, v in t.items():
    ks = sorted(v)
    print(k, "|", " ".join(f'{v[q]["avg_ms"]}/{v[q]["max_ms"]}' for q in ks), "|",
          " ".join(f'{float(v[q]["nnz_per_ns_core_avg"]) / float(base[q]["nnz_per_ns_core_avg"]):.3f}' for q in ks if q in base))
PY
