# job.sh — sourced by slurm/hspmv-*.sbatch: the job's shape from its allocation,
# then benchmark-mpi on one matrix or run_all-mpi.sh over a folder, or a
# strong-scaling sweep into one CSV and a figure.
#   hspmv_job flat|hybrid MATRIX|FOLDER [benchmark-mpi options]
#   hspmv_job scaling MATRIX|FOLDER [benchmark-mpi options]
# Needs HSPMV_HOME (the hspmv checkout, or PREFIX/share/hspmv of an
# installed one); programs come from $HSPMV_BIN when set, else from
# HSPMV_HOME, else from HSPMV_HOME/../../bin (PREFIX/bin), else from PATH.
#
# Shape (nothing is assumed about the machine; all of it comes from the
# allocation, and whatever the user gave sbatch wins):
#   flat    ranks: SLURM_NTASKS when the job was given a task count (--ntasks,
#           --ntasks-per-node), else one per core of the allocated CPUs
#           (hyperthreads of a core go to the same rank); 1 thread each
#   hybrid  ranks per node: SLURM_NTASKS_PER_NODE, else one per NUMA domain
#           (socket) of the node; CPUs per rank: SLURM_CPUS_PER_TASK, else the
#           node's CPUs / ranks per node; one OpenMP thread per core of a rank
# Every rank is bound to its cores (srun --cpu-bind=cores), its threads with
# OMP_PLACES=cores OMP_PROC_BIND=close, so first touch keeps its arrays in its
# own memory.
# shellcheck shell=bash

hspmv_die() { echo "hspmv job: $*" >&2; exit 2; }

# A Slurm CPU list such as "16(x2),8" to its total.
hspmv_cpus_of() {
    echo "$1" | awk -F, '{ s = 0
        for (i = 1; i <= NF; i++) { n = 1; c = $i
            if (match($i, /\(x[0-9]+\)/)) { n = substr($i, RSTART + 2, RLENGTH - 3); c = substr($i, 1, RSTART - 1) }
            s += c * n }
        print s }'
}

# lscpu's count for a field ("Thread(s) per core", "NUMA node(s)", ...), or 1.
hspmv_lscpu() {
    local v
    v=$(LC_ALL=C lscpu 2>/dev/null | awk -F: -v k="$1" '$1 == k { gsub(/ /, "", $2); print $2 + 0; exit }')
    [ -n "$v" ] && [ "$v" -gt 0 ] 2>/dev/null && echo "$v" || echo 1
}

hspmv_job() {
    local kind=$1 target
    shift
    target=${1:-}
    [ -n "$target" ] || hspmv_die "usage: sbatch slurm/hspmv-$kind.sbatch MATRIX|FOLDER [benchmark-mpi options]"
    shift
    [ -n "${SLURM_JOB_ID:-}" ] || hspmv_die "not inside a Slurm job (submit with sbatch, or run it under salloc)"
    [ -e "$target" ] || hspmv_die "no matrix or folder '$target' (relative paths start in $(pwd))"

    local bin prog
    for bin in "${HSPMV_BIN:-}" "$HSPMV_HOME" "$HSPMV_HOME/../../bin" ""; do
        if [ -z "$bin" ]; then prog=$(command -v benchmark-mpi) || prog=""
        else prog=$bin/benchmark-mpi; fi
        [ -n "$prog" ] && [ -x "$prog" ] && break
        prog=""
    done
    [ -n "$prog" ] || hspmv_die "benchmark-mpi not found in \$HSPMV_BIN, $HSPMV_HOME, its ../../bin or PATH (run make in the hspmv folder)"
    prog=$(cd "$(dirname "$prog")" && pwd)/benchmark-mpi

    local nodes cpus tpc ranks rpn cpt threads
    nodes=${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-1}}
    cpus=$(hspmv_cpus_of "${SLURM_JOB_CPUS_PER_NODE:-$(nproc)}")
    tpc=$(hspmv_lscpu "Thread(s) per core")
    if [ "$kind" = scaling ]; then
        hspmv_scaling "$prog" "$target" "$nodes" "$cpus" "$tpc" "$@"
        return
    fi
    rpn=""
    if [ "$kind" = flat ]; then
        if [ -n "${SLURM_NTASKS:-}" ]; then
            ranks=$SLURM_NTASKS; cpt=${SLURM_CPUS_PER_TASK:-1}
        else
            cpt=$tpc; ranks=$((cpus / cpt))
        fi
        threads=1
    else
        rpn=${SLURM_NTASKS_PER_NODE:-}
        if [ -z "$rpn" ] && [ -n "${SLURM_NTASKS:-}" ]; then
            ranks=$SLURM_NTASKS
        else
            if [ -z "$rpn" ]; then
                rpn=$(hspmv_lscpu "NUMA node(s)")
                [ "$rpn" -gt 1 ] || rpn=$(hspmv_lscpu "Socket(s)")
            fi
            ranks=$((nodes * rpn))
        fi
        cpt=${SLURM_CPUS_PER_TASK:-$((cpus / ranks))}
        threads=$((cpt / tpc))
        [ "$threads" -ge 1 ] || threads=1
    fi
    { [ "$ranks" -ge 1 ] && [ "$cpt" -ge 1 ]; } ||
        hspmv_die "no room for a rank: $cpus CPUs on $nodes nodes (SLURM_JOB_CPUS_PER_NODE=${SLURM_JOB_CPUS_PER_NODE:-})"
    [ $((ranks * cpt)) -le "$cpus" ] ||
        hspmv_die "$ranks ranks x $cpt CPUs do not fit the $cpus CPUs of this allocation; give sbatch --ntasks-per-node and --cpus-per-task that fit a node"

    export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$threads}
    export OMP_PLACES=${OMP_PLACES:-cores} OMP_PROC_BIND=${OMP_PROC_BIND:-close}
    local srun_opts=(--cpu-bind=cores)
    [ -n "$rpn" ] && srun_opts=(--ntasks-per-node="$rpn" --cpu-bind=cores)
    echo "job $SLURM_JOB_ID ($kind): $nodes nodes, $cpus CPUs, $ranks ranks x $OMP_NUM_THREADS threads ($cpt CPUs per rank${rpn:+, $rpn per node})"
    echo "programs: $(dirname "$prog")"

    if [ -d "$target" ]; then
        local csv=${HSPMV_CSV:-hspmv-$kind-$SLURM_JOB_ID.csv}
        SLURM_CPUS_PER_TASK=$cpt SRUN="srun${rpn:+ --ntasks-per-node=$rpn}" sh "$HSPMV_HOME/run_all-mpi.sh" "$prog" "$ranks" "$target" \
            --csv "$csv" -- "$@"
        return
    fi
    local log rc
    log=$(mktemp) || hspmv_die "mktemp failed"
    echo "launcher: srun -n $ranks --cpus-per-task=$cpt ${srun_opts[*]}"
    srun -n "$ranks" --cpus-per-task="$cpt" "${srun_opts[@]}" "$prog" "$target" "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ] && grep -q -E "not built with SLURM.s PMI support|PMIx_Init|PMI2_Init" "$log"; then
        echo "hspmv job: the ranks started without the PMI interface their MPI needs (Slurm MPI plugin: ${SLURM_MPI_TYPE:-MpiDefault of slurm.conf})." >&2
        echo "hspmv job: Debian/Ubuntu's Open MPI needs PMIx: sbatch --export=ALL,SLURM_MPI_TYPE=pmix ... ('srun --mpi=list' shows the choices)." >&2
    fi
    rm -f "$log"
    return "$rc"
}

# hspmv_scaling PROG TARGET NODES CPUS TPC [options]: run_all-mpi.sh at 1, 2,
# 4, ... cores up to all of the allocation's, one thread per rank, then one
# rank per node with 2, 4, ... threads up to a node's cores; every row in
# hspmv-scaling-JOBID.csv ($HSPMV_CSV overrides), then scripts/plot draws
# hspmv-JOBID-scaling.png when matplotlib is there.
hspmv_scaling() {
    local prog=$1 target=$2 nodes=$3 cpus=$4 tpc=$5
    shift 5
    local cores=$((cpus / tpc)) per_node csv folder c list="" bad=0
    per_node=$((cores / nodes))
    csv=${HSPMV_CSV:-hspmv-scaling-$SLURM_JOB_ID.csv}
    folder=$target
    if [ -f "$target" ]; then   # one matrix: a folder holding just it
        folder=$(mktemp -d) || hspmv_die "mktemp failed"
        ln -s "$(cd "$(dirname "$target")" && pwd)/$(basename "$target")" "$folder/"
    fi
    c=1
    while [ "$c" -lt "$cores" ]; do list="$list $c"; c=$((c * 2)); done
    list="$list $cores"
    echo "job $SLURM_JOB_ID (scaling): $nodes nodes, $cores cores; 1 thread per rank at${list} cores, then 1 rank per node x 2.. threads"
    for c in $list; do
        echo "== $c ranks x 1 thread"
        SLURM_CPUS_PER_TASK=$tpc OMP_NUM_THREADS=1 sh "$HSPMV_HOME/run_all-mpi.sh" "$prog" "$c" "$folder" \
            --csv "$csv" -- "$@" || bad=1
    done
    for c in $list; do
        { [ "$c" -ge 2 ] && [ "$c" -le "$per_node" ]; } || continue
        echo "== $nodes ranks (1 per node) x $c threads"
        SLURM_CPUS_PER_TASK=$((c * tpc)) OMP_NUM_THREADS=$c SRUN="srun --ntasks-per-node=1" \
            sh "$HSPMV_HOME/run_all-mpi.sh" "$prog" "$nodes" "$folder" --csv "$csv" -- "$@" || bad=1
    done
    [ "$folder" = "$target" ] || rm -rf "$folder"
    if "$HSPMV_HOME/scripts/plot" --kind scaling --name "hspmv-$SLURM_JOB_ID" "$csv"; then :
    else echo "hspmv job: no figure (scripts/plot needs python3 with matplotlib); the CSV is $csv" >&2; fi
    return $bad
}
