#!/bin/bash
# halo-modes.sh — the node-aware halo against point-to-point messages at 16
# ranks x 1 thread on the real-valued 3D stencil 200^3, the two-valued one,
# random 4M x 8 and power-law 4M x 8: benchmark-mpi with --halo node,p2p
# (both made from one read, timed in interleaved passes, per-rank times with
# --verbose), and simulated 2- and 4-node runs (pseudo-nodes of 8 and 4
# ranks, --node-ranks; skipped when this benchmark-mpi has no such option);
# benchmark-omp (auto) and the peers' naive OpenMP loop at 16 threads before
# and after; the hybrid splits 8x2, 4x4, 2x8 and 1x16 (default halo) on the
# real-valued stencil and the random matrix. A table at the end gives each
# run's median and its ratios to benchmark-omp and the naive loop.
#   bench/jobs/halo-modes.sh [PASSES]            (default 3)
# MATS="l3r l3 rnd pwl" and HYB_MATS="l3r rnd" choose the matrices
# (bench/jobs/job-env.sh names them); PEERS_AFTER=0 runs the peers only
# before the 16-rank runs; MPI_ARGS="--read parallel" adds arguments to
# every benchmark-mpi call.
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI, the peers' naive loop in .dev/peers).
# Results under $OUT (default results/scaling): mpi16.txt (and its
# -verbose and -ranks files), hybrid.txt, omp.txt, naive.txt, sys.txt.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
PASSES=${1:-3}
MATS=${MATS-l3r l3 rnd pwl}
HYB_MATS=${HYB_MATS-l3r rnd}
PEERS_AFTER=${PEERS_AFTER:-1}
MPI_ARGS=${MPI_ARGS:-}
. bench/jobs/job-env.sh
{ lscpu | grep -iE "thread|core|socket|MHz"; cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/shmem_enabled
  df -h /dev/shm | tail -1
  ompi_info --param btl vader --level 9 | grep -iE "single_copy"; } >> $OUT/sys.txt 2>&1
gen_mats $(echo $MATS $HYB_MATS | tr " " "\n" | sort -u)
MPI="mpirun --bind-to core --map-by core"
NODE_RANKS="8 4" # pseudo-nodes, where benchmark-mpi takes --node-ranks
grep -qa -- --node-ranks ./benchmark-mpi || { NODE_RANKS=""; echo "benchmark-mpi has no --node-ranks: no pseudo-node runs"; }
PIN="OMP_PROC_BIND=true OMP_PLACES=cores"
peers() { # benchmark-omp (auto) and the naive loop at 16 threads
  env OMP_NUM_THREADS=16 $PIN timeout 90 ./benchmark-omp $1 16 --format auto --no-bw --reps 40 2>&1 | grep "^bench=omp" >> $OUT/omp.txt
  env OMP_NUM_THREADS=16 $PIN timeout 60 /tmp/naive $1 16 40 2>&1 | grep "^peer" >> $OUT/naive.txt
}
run16() { # benchmark-mpi's extra arguments: one 16x1 launch on $M
  OMP_NUM_THREADS=1 timeout 150 $MPI -n 16 ./benchmark-mpi $M $MPI_ARGS "$@" --threads 1 --reps 20 --passes $PASSES \
    --verbose > /tmp/v.txt 2>&1
  grep "^bench=mpi" /tmp/v.txt >> $OUT/mpi16.txt; grep -v "^bench=mpi" /tmp/v.txt | grep -v "^    rank" >> $OUT/mpi16-verbose.txt
  grep "^    rank" /tmp/v.txt >> $OUT/mpi16-ranks.txt
}
for m in $MATS; do M=$D/$m.mtx
  peers $M
  run16 --halo node,p2p
  for nr in $NODE_RANKS; do run16 --halo node --node-ranks $nr; done
  [ "$PEERS_AFTER" = 0 ] || peers $M
  echo "$m 16x1 t=$((SECONDS-T0))"
done
for m in $HYB_MATS; do M=$D/$m.mtx
  case " $MATS " in *" $m "*) ;; *) peers $M ;; esac # peers before, where the 16x1 part did not run them
  for hy in "8 2" "4 4" "2 8" "1 16"; do set -- $hy
    env OMP_NUM_THREADS=$2 OMP_PROC_BIND=close OMP_PLACES=cores timeout 90 mpirun -n $1 --map-by slot:PE=$2 --bind-to core \
      ./benchmark-mpi $M $MPI_ARGS --threads $2 --reps 20 --passes $PASSES 2>&1 | grep "^bench=mpi" >> $OUT/hybrid.txt
  done
  [ "$PEERS_AFTER" = 0 ] || peers $M
  echo "$m hybrids t=$((SECONDS-T0))"
done
echo "total t=$((SECONDS-T0))"
# the table: medians in ms, and ratios to benchmark-omp and the naive loop (medians of their runs)
K="matrix=[^ ]+|ranks=[0-9]+|threads=[0-9]+|median_ms=[0-9.]+|pass_medians_ms=[^ ]+|owned_ms=[0-9.]+|ghost_ms=[0-9.]+|sync_ms=[0-9.]+|wait_ms=[0-9.]+|halo=[a-z0-9]+|node_ranks=[0-9]+|gather=[a-z-]+|internode_bytes=[0-9]+|internode_bytes_p2p=[0-9]+|thp_mb=[0-9.]+|rss_mb=[0-9.]+"
for f in mpi16 hybrid; do [ -s $OUT/$f.txt ] && grep -oE "$K" $OUT/$f.txt | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'; echo; done
grep -oE "matrix=[^ ]+|format=[a-z0-9]+|isa=[a-z0-9]+|median_ms=[0-9.]+" $OUT/omp.txt | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'; echo
grep -oE "matrix=[^ ]+|median_ms=[0-9.]+" $OUT/naive.txt | paste -s -d' ' | sed 's/ matrix=/\nmatrix=/g'; echo
echo "omp16 and naive16: medians of their runs in this job (before and after the hspmv runs of each matrix)"
python3 - "$OUT" <<'EOF' || true
import re, sys, statistics as st, collections as C
out = sys.argv[1]
def rows(f):
    try: return [dict(re.findall(r'(\w+)=(\S+)', l)) for l in open(f"{out}/{f}.txt")]
    except OSError: return []
base = lambda m: m.split("/")[-1]
omp = C.defaultdict(list); nv = C.defaultdict(list)
for r in rows("omp"): omp[base(r["matrix"])].append(float(r["median_ms"]))
for r in rows("naive"): nv[base(r["matrix"])].append(float(r["median_ms"]))
print("matrix | ranks x threads | variant | median ms | omp16 ms | naive16 ms | omp/hspmv | naive/hspmv | node bytes | p2p bytes")
for f in ("mpi16", "hybrid"):
    for r in rows(f):
        m = base(r["matrix"]); t = float(r["median_ms"])
        o = st.median(omp[m]) if omp[m] else float("nan"); n = st.median(nv[m]) if nv[m] else float("nan")
        print(f'{m} | {r["ranks"]}x{r["threads"]} | {r["halo"]} node_ranks={r.get("node_ranks","-")} gather={r.get("gather","-")} | '
              f'{t:.3f} | {o:.3f} | {n:.3f} | {o/t:.3f} | {n/t:.3f} | {r.get("internode_bytes","-")} | {r.get("internode_bytes_p2p","-")}')
EOF
