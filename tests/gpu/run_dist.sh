#!/bin/sh
# run_dist.sh — the several-GPU test under mpirun: 4, 2 and 1 ranks (one GPU
# each where there are enough, else ranks share them), and 2 ranks on one
# GPU (CUDA_VISIBLE_DEVICES=0), each run forcing every --gpu-comm path in turn.
#   run_dist.sh [--record FILE] BIN
# Without a GPU only the first run (4 ranks) is made: its plan check needs
# none, its GPU tests report themselves skipped. Appends "P F S" to FILE
# (tests/run.sh --summary adds it up). GPU_DIST_RUNS picks the runs (default
# "4 2 1 2shared"; 2shared: 2 ranks, one GPU).
set -u
. "$(dirname "$0")/../counts.sh"
record=""
if [ "${1:-}" = "--record" ]; then record=$2; shift 2; fi
bin=$1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_odls_base_sigkill_timeout=0
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} NCCL_NVLS_ENABLE=0
MPIRUN="mpirun --oversubscribe --bind-to none"
if [ "$(id -u)" = 0 ]; then
    MPIRUN="$MPIRUN --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
P=0; F=0; S=0
if ! command -v mpirun >/dev/null 2>&1; then
    echo "gpu-dist: mpirun not found: NOT run"; F=1
else
    for run in ${GPU_DIST_RUNS:-4 2 1 2shared}; do
        n=${run%shared}
        out=$(mktemp)
        echo "== $(basename "$bin") -n $n${run#$n}"
        if [ "$run" != "$n" ]; then
            CUDA_VISIBLE_DEVICES=0 timeout "${HSPMV_TEST_TIMEOUT:-300}" $MPIRUN -n "$n" "$bin" > "$out" 2>&1
        else
            timeout "${HSPMV_TEST_TIMEOUT:-300}" $MPIRUN -n "$n" "$bin" > "$out" 2>&1
        fi
        rc=$?
        tally "$(basename "$bin") -n $n" "$rc" "$out"
        echo "   -n $run: $p1 passed, $f1 failed, $s1 skipped"
        P=$((P + p1)); F=$((F + f1)); S=$((S + s1))
        no_gpu=$(grep -l 'no usable GPU' "$out")
        rm -f "$out"
        [ -n "$no_gpu" ] && { echo "   no GPU: the other runs not made"; break; }
    done
fi
if [ -n "$record" ]; then mkdir -p "$(dirname "$record")"; echo "$P $F $S" >> "$record"; fi
echo "gpu-dist: $P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
