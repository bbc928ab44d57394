#!/bin/bash
# node-formats-2cores.sh — one process at 2 threads on a 2-core machine: the
# real-valued 3D 7-point stencil 200^3 and 2D 5-point 3000^2, benchmark-omp's
# formats csr, csr16, csrp, csrdu and auto (the STREAM triad measured in the
# same run) beside the peers' naive loop and librsb at 2 threads, in
# interleaved passes, each run after the machine has been quiet (other jobs
# wreck 2-thread timings); a summary table per matrix
# (bench/jobs/node-formats-summary.sh).
#   bench/jobs/node-formats-2cores.sh [PASSES]   (default 3)
# QUIET_PCT (default 10) / QUIET_MAX (default 600 s): how idle, and how long
# to wait for it. MATRICES (default /tmp/nk): where the matrices are made.
# Run from the repository root after `make programs`; needs PEERS_SRC, the
# folder of the SpMV peer baselines (not part of hspmv: a Makefile building
# naive_csr, a naive OpenMP CSR loop, and rsb_spmv, librsb's driver), built
# from it into PEERS_BUILD (default build/peers; librsb needed). Results under $OUT (default results/node-formats-2cores):
# omp-MATRIX.txt, peers-MATRIX.txt, quiet.txt, summary.txt (also on stdout).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
PASSES=${1:-3}
OUT=${OUT:-results/node-formats-2cores}; mkdir -p $OUT
PEERS=${PEERS_BUILD:-build/peers}
D=${MATRICES:-/tmp/nk}; mkdir -p $D
QUIET_PCT=${QUIET_PCT:-10}; QUIET_MAX=${QUIET_MAX:-600}
T0=$SECONDS
export OMP_PROC_BIND=true OMP_PLACES=cores OMP_NUM_THREADS=2
[ -x ./benchmark-omp ] && [ -x ./genmat ] || { echo "build first: make" >&2; exit 1; }
[ -d "${PEERS_SRC:-}" ] || { echo "set PEERS_SRC to the peer baselines' folder" >&2; exit 1; }
make -s -C "$PEERS_SRC" B=$PWD/$PEERS $PWD/$PEERS/naive_csr $PWD/$PEERS/rsb_spmv || { echo "peers build failed" >&2; exit 1; }
{ nproc; lscpu | grep -E 'Model name|^L3|Socket'; uptime; } > $OUT/sys.txt 2>&1
[ -s $D/l3r.mtx ] || ./genmat lap3d 200 --values random -o $D/l3r.mtx
[ -s $D/l2r.mtx ] || ./genmat lap2d 3000 --values random -o $D/l2r.mtx
echo "gen done t=$((SECONDS-T0))"

# percent of all CPUs busy over 1 s (/proc/stat)
busy() {
  read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ < /proc/stat; sleep 1
  read -r _ u2 n2 s2 i2 w2 q2 sq2 st2 _ < /proc/stat
  b=$(( (u2+n2+s2+q2+sq2+st2) - (u1+n1+s1+q1+sq1+st1) )); i=$(( (i2+w2) - (i1+w1) ))
  echo $(( 100 * b / (b + i + 1) ))
}
quiet() { local t=0 p; while p=$(busy); [ $p -ge $QUIET_PCT ] && [ $t -lt $QUIET_MAX ]; do sleep 4; t=$((t + 5)); done; echo "busy=$p% waited=${t}s" >> $OUT/quiet.txt; }

for p in $(seq $PASSES); do
  for m in l3r l2r; do
    quiet; ./benchmark-omp $D/$m.mtx 2 --reps 50 --format csr,csr16,csrp,csrdu,auto --bw 2>&1 | grep -E "^bench=omp|prepared|triad \(" >> $OUT/omp-$m.txt
    quiet; $PEERS/naive_csr $D/$m.mtx 2 50 2>&1 | grep "^peer" >> $OUT/peers-$m.txt
    quiet; $PEERS/rsb_spmv $D/$m.mtx 2 50 2>&1 | grep "^peer" >> $OUT/peers-$m.txt
    echo "pass $p $m t=$((SECONDS-T0))"
  done
done
sh bench/jobs/node-formats-summary.sh $OUT l3r l2r | tee $OUT/summary.txt
