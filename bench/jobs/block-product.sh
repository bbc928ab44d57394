#!/bin/bash
# block-product.sh — the local block product Y = A·X (hspmv_local_spmm) on
# the 16-core machine: per matrix and round, benchmark-omp --vectors 1,2,4,8
# (AUTO's format and CSR, interleaved rounds inside the run), then the peers' naive OpenMP block CSR loop (--vectors 1 and 8) and, when
# .dev/rsb/rsb_spmv is there, librsb's rsb_spmm (--vectors 8), all at THREADS
# threads, in an order rotated from round to round. The summary gives per
# matrix the medians over rounds of: the per-vector rate of k = 2, 4, 8 over
# k = 1 (AUTO and CSR), hspmv k = 8 over the naive loop at k = 8 (time
# ratio naive/hspmv, > 1 = hspmv faster) and over librsb.
#   bench/jobs/block-product.sh [ROUNDS]      (default 5)
# MATS (default "l3r rnd"): job-env.sh's names (l3r = lap3d 200 --values
# random, rnd = random 4000000 --k 8). THREADS (default 16). Targets: k = 8
# per-vector rate >= 2.5x k = 1 on l3r, >= 1.8x on rnd; k = 8 >= 1.1x the
# naive loop and >= 1.5x librsb. Results: $OUT (default results/block) and
# the summary on stdout. Needs what job-env.sh needs (sourced).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
ROUNDS=${1:-5}
OUT=${OUT:-results/block}
. bench/jobs/job-env.sh
MATS=${MATS:-l3r rnd}
TH=${THREADS:-16}
PIN="OMP_PROC_BIND=close OMP_PLACES=cores"
gen_mats $MATS
: > $OUT/rounds.txt
hs() { # matrix, round, label, env...
  local m=$1 r=$2 l=$3; shift 3
  env OMP_NUM_THREADS=$TH $PIN "$@" timeout 400 ./benchmark-omp $D/$m.mtx $TH --vectors 1,2,4,8 \
    --format auto,csr --reps 20 2>&1 | grep "^bench=omp-block" | sed "s/^/round=$r mat=$m run=$l /" >> $OUT/rounds.txt
}
peer() { # matrix, round, program, k
  env OMP_NUM_THREADS=$TH $PIN timeout 200 $3 $D/$1.mtx $TH 20 --vectors $4 2>&1 | grep "^peer=" |
    sed "s/^/round=$2 mat=$1 /" >> $OUT/rounds.txt
}
for r in $(seq 1 $ROUNDS); do
  for m in $MATS; do
    steps=("hs $m $r rule" "peer $m $r /tmp/naive 1" "peer $m $r /tmp/naive 8")
    [ -x .dev/rsb/rsb_spmv ] && steps+=("peer $m $r .dev/rsb/rsb_spmv 8")
    n=${#steps[@]}; off=$(( (r - 1) % n ))
    for i in $(seq 0 $((n - 1))); do ${steps[$(( (i + off) % n ))]}; done
  done
  echo "round $r t=$((SECONDS-T0))"
done
python3 - $OUT/rounds.txt <<'PY'
import re, sys, statistics as st, collections as C
rows = [dict(re.findall(r'(\w+)=(\S+)', l)) for l in open(sys.argv[1])]
t = C.defaultdict(dict)  # (mat, who, k) -> round -> ms of one call
for r in rows:
    rd, m = int(r["round"]), r["mat"]
    if "bench" in r:
        t[(m, "%s/%s/%s" % (r["run"], r["asked"], r["format"]), int(r["vectors"]))][rd] = float(r["median_ms"])
    else:
        t[(m, r["peer"], int(r.get("vectors", 1)))][rd] = float(r["median_ms"])
def ratio(a, b, f):  # median over common rounds of f(a, b)
    ks = sorted(set(a) & set(b))
    return (st.median(f(a[k], b[k]) for k in ks), len(ks)) if ks else (float("nan"), 0)
mats = dict.fromkeys(r["mat"] for r in rows)
print("matrix | run | k | median ms | per-vector rate over k=1 (median of rounds)")
for m in mats:
    for (mm, who, k), v in sorted(t.items()):
        if mm != m or not who.startswith("rule"): continue
        one = t.get((m, who, 1), {})
        q, n = ratio(v, one, lambda a, b: b * k / a)
        print(f"{m} | {who} | {k} | {st.median(v.values()):.3f} | {q:.2f}x ({n} rounds)")
    for who in [w for (mm, w, k) in t if mm == m and w.startswith("rule/") and k == 8]:
        h = t[(m, who, 8)]
        for peer in ("naive_csr_omp", "librsb"):
            p = next((v for (mm, w, k), v in t.items() if mm == m and w.startswith(peer) and k == 8), None)
            if p: print(f"{m} | {who} k=8 vs {peer} k=8 | time ratio peer/hspmv {ratio(h, p, lambda a, b: b / a)[0]:.2f}x")
PY
