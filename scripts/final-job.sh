#!/bin/bash
# final-job.sh — one 16-core call for the closing figures of issues 11 and 14:
# scripts/node-aware-job.sh on the real-valued 200^3 stencil and the power law
# (16 ranks x 1 thread: node-aware, p2p, pseudo-nodes of 8 and 4), hybrids
# on random 4M x 8, every benchmark-mpi run reading with --read parallel,
# then scripts/read-job.sh on the same stencil file. Everything lands in
# $OUT/final.tgz (the job scripts' files) and the two summaries on stdout.
#   scripts/final-job.sh [PASSES]   (default 2)
set -u
PASSES=${1:-2}
F=${OUT:-results/final}; mkdir -p $F
export OUT=/tmp/res; mkdir -p $OUT /tmp/m
MATS="l3r pwl" HYB_MATS="rnd" MPI_ARGS="--read parallel" bash scripts/node-aware-job.sh $PASSES > $OUT/node-aware-out.txt 2>&1
tar czf $F/final.tgz -C $OUT .; tail -40 $OUT/node-aware-out.txt
ln -sf /tmp/m/l3r.mtx /tmp/m/lap3d_200_random.mtx
bash scripts/read-job.sh $PASSES > $OUT/read-out.txt 2>&1
tar czf $F/final.tgz -C $OUT .; tail -20 $OUT/read-out.txt
