#!/bin/bash
# halo-then-read.sh — two jobs in one 16-core call: bench/jobs/halo-modes.sh
# on the real-valued 200^3 stencil and the power law (16 ranks x 1 thread:
# node-aware and p2p halos, pseudo-nodes of 8 and 4), hybrids on random 4M
# x 8, every benchmark-mpi run reading with --read parallel; then
# bench/jobs/read-modes.sh on the same stencil file. Each job's files go to
# /tmp/res and are packed into $OUT/halo-then-read.tgz (default OUT
# results/halo-then-read) after each job; the two summaries on stdout.
#   bench/jobs/halo-then-read.sh [PASSES]   (default 2)
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI, the peers' naive loop in .dev/peers).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
PASSES=${1:-2}
F=${OUT:-results/halo-then-read}; mkdir -p $F
export OUT=/tmp/res; mkdir -p $OUT /tmp/m
MATS="l3r pwl" HYB_MATS="rnd" MPI_ARGS="--read parallel" bash bench/jobs/halo-modes.sh $PASSES > $OUT/halo-modes-out.txt 2>&1
tar czf $F/halo-then-read.tgz -C $OUT .; tail -40 $OUT/halo-modes-out.txt
ln -sf /tmp/m/l3r.mtx /tmp/m/lap3d_200_random.mtx
bash bench/jobs/read-modes.sh $PASSES > $OUT/read-out.txt 2>&1
tar czf $F/halo-then-read.tgz -C $OUT .; tail -20 $OUT/read-out.txt
