#!/bin/sh
# probe.sh — stands in for benchmark-mpi under run_all-mpi.sh in the Slurm
# tests: every rank writes the CPUs it may run on and its OpenMP settings to
# $PROBE_DIR/rank.N, and rank 0 prints a bench=mpi line as the real program
# would, with the ranks and threads it was given.
dir=${PROBE_DIR:?PROBE_DIR not set}
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
echo "cpus=$cpus threads=${OMP_NUM_THREADS:-unset} bind=${OMP_PROC_BIND:-unset} places=${OMP_PLACES:-unset}" \
    > "$dir/rank.${SLURM_PROCID:-x}"
if [ "${SLURM_PROCID:-0}" = 0 ]; then
    echo "bench=mpi matrix=$1 precision=double ranks=${SLURM_NTASKS:-0} threads=${OMP_NUM_THREADS:-0} partition=nnz rows=1 cols=1 nnz=1 imbalance=1.0 halo_bytes=0 median_ms=1 min_ms=1 max_ms=1 gflops=1 gbs=1 triad_gbs=0 wait_share=0 max_rel=0 violations=0"
fi
