#!/bin/sh
# run_all-mpi.sh — benchmark-mpi on every matrix of a folder at one rank count:
# a table, and optionally a CSV.
#   sh run_all-mpi.sh [PROGRAM] RANKS|auto [FOLDER] [--csv FILE] [-- benchmark options]
# PROGRAM: benchmark-mpi (default; found beside this script, else in the bin
# folder of an installed prefix, PREFIX/share/hspmv/../../bin, else on PATH)
# or a path. RANKS: a number, or auto: inside a Slurm allocation the allocation's
# tasks (SLURM_NTASKS, else its CPUs / SLURM_CPUS_PER_TASK), otherwise the
# cores. FOLDER: the bundled matrices/ beside this script by default.
# --csv FILE: one row per matrix (and halo mode), appended, in the CSV schema
# all run_all scripts share (docs/programs.md; the header is written when
# FILE is new or empty; an existing FILE must have the same columns). FILE is tried
# before anything runs: an unwritable FILE stops the run with the reason.
#
# Launcher. Inside Slurm (SLURM_JOB_ID set): srun -n RANKS --cpu-bind=cores,
# plus --cpus-per-task=C with C the allocation's SLURM_CPUS_PER_TASK, else
# OMP_NUM_THREADS when set (Slurm 22.05-23.02 do not hand the job's count on
# to srun; without it a hybrid rank's threads share one core): threads per
# rank are asked as OMP_NUM_THREADS=T sh run_all-mpi.sh R. OMP_NUM_THREADS
# defaults to C, OMP_PLACES to cores, OMP_PROC_BIND to close; -I$HSPMV_SRUN_WAIT
# (default 60 s): a step that cannot start fails with Slurm's reason instead
# of waiting silently. Inside a job step (SLURM_STEP_ID set: under srun, or an
# srun --pty shell) the steps are started with --overlap. Outside Slurm:
# mpirun -n RANKS, each rank bound to OMP_NUM_THREADS cores of its own
# (--map-by slot:PE=T --bind-to core) when RANKS x T fit the cores, else
# --oversubscribe --bind-to none; --allow-run-as-root as root. MPIRUN / SRUN
# replace the launcher command.
# Exit status: 0 all matrices ran and passed their check, 1 some did not (or
# the launcher failed: then it stops at once and says what to do), 2 bad usage.
set -u
# --help: the comment above, as usage
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
me=run_all-mpi.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/csv.sh
. "$here/scripts/csv.sh"
# --version: the hspmv version of the tree this script belongs to
[ "${1:-}" = --version ] && { echo "run_all-mpi.sh hspmv $(csv_version "$here")"; exit 0; }
usage() {
    echo "usage: sh $me [benchmark-mpi] RANKS|auto [folder] [--csv FILE] [-- benchmark options]" >&2
    exit 2
}
die() { echo "$me: $*" >&2; exit 2; }

# the program is optional: a first argument that is a count or auto is RANKS
prog=benchmark-mpi
case ${1:-} in '') usage ;; auto|[0-9]*|-[0-9]*) ;; *) prog=$1; shift ;; esac
[ $# -ge 1 ] || usage
ranks=$1; shift
folder=""; csv=""
while [ $# -gt 0 ]; do
    case $1 in
        --csv) [ $# -ge 2 ] || die "--csv needs a file name"; csv=$2; shift 2 ;;
        --) shift; break ;;
        -*) usage ;;
        *) [ -z "$folder" ] || die "one folder only ('$folder' and '$1')"; folder=$1; shift ;;
    esac
done
[ -n "$folder" ] || folder="$here/matrices"

case $prog in
    */*) ;;
    *) if [ -x "$here/$prog" ]; then prog="$here/$prog"
       elif [ -x "$here/../../bin/$prog" ]; then prog=$(cd "$here/../../bin" && pwd)/$prog
       elif command -v "$prog" >/dev/null 2>&1; then prog=$(command -v "$prog")
       else die "program '$prog' not found beside this script ($here) or on PATH (run 'make' there)"; fi ;;
esac
{ [ -f "$prog" ] && [ -x "$prog" ]; } || die "'$prog' is not an executable file"
[ -d "$folder" ] || die "no folder '$folder'"
nmat=0
for m in "$folder"/*.mtx "$folder"/*.mtx.gz; do [ -f "$m" ] && nmat=$((nmat + 1)); done
[ "$nmat" -gt 0 ] || die "no .mtx or .mtx.gz files in '$folder'"

# A Slurm CPU list such as "16(x2),8" to its total.
cpus_of() { echo "$1" | awk -F, '{ s = 0
    for (i = 1; i <= NF; i++) { n = 1; c = $i
        if (match($i, /\(x[0-9]+\)/)) { n = substr($i, RSTART + 2, RLENGTH - 3); c = substr($i, 1, RSTART - 1) }
        s += c * n }
    print s }'; }

srun=${SRUN:-srun}
in_slurm=""
[ -n "${SLURM_JOB_ID:-}" ] && command -v "${srun%% *}" >/dev/null 2>&1 && in_slurm=1
cores=$(nproc 2>/dev/null || echo 1)
cpt=${SLURM_CPUS_PER_TASK:-}
[ -z "$cpt" ] && [ -n "$in_slurm" ] && cpt=${OMP_NUM_THREADS:-}
case $cpt in ''|*[!0-9]*|0) cpt="" ;; esac
room=""   # ranks the allocation can hold
if [ -n "$in_slurm" ] && [ -n "${SLURM_JOB_CPUS_PER_NODE:-}" ]; then
    room=$(( $(cpus_of "$SLURM_JOB_CPUS_PER_NODE") / ${cpt:-1} ))
fi

# RANKS: a positive whole number, not absurd, that fits the allocation
if [ "$ranks" = auto ]; then
    if [ -n "$in_slurm" ]; then
        if [ -z "${SLURM_STEP_ID:-}" ] && [ -n "${SLURM_NTASKS:-}" ]; then ranks=$SLURM_NTASKS
        elif [ -n "$room" ]; then ranks=$room
        else ranks=1; fi
    else ranks=$cores; fi
fi
case $ranks in
    ''|*[!0-9]*) die "RANKS must be a whole number of MPI ranks (1 or more) or auto, not '$ranks'" ;;
esac
ranks=$(echo "$ranks" | sed 's/^0*//')
[ -n "$ranks" ] || die "RANKS must be 1 or more, not 0"
{ [ ${#ranks} -le 8 ] && [ "$ranks" -le 16777216 ]; } || die "$ranks ranks is more than any machine runs (at most 16777216)"
if [ -n "$room" ] && [ "$ranks" -gt "$room" ]; then
    die "$ranks ranks do not fit this Slurm allocation: its CPUs ($SLURM_JOB_CPUS_PER_NODE) hold $room ranks of ${cpt:-1} CPUs; ask for at most $room, or auto"
fi
if [ -z "$in_slurm" ] && [ -z "${MPIRUN:-}" ] && [ "$ranks" -gt $((64 * cores)) ]; then
    die "$ranks ranks on $cores cores is more than 64 per core; to run across machines set MPIRUN (e.g. MPIRUN='mpirun --hostfile hosts')"
fi

# the CSV is tried before anything is measured
if [ -n "$csv" ] && ! csv_open "$csv" "$csv_header"; then
    echo "$me: cannot write the CSV file '$csv': $csv_why" >&2
    exit 2
fi

if [ -n "$in_slurm" ]; then
    launch="$srun -n $ranks"
    [ -n "$cpt" ] && launch="$launch --cpus-per-task=$cpt"
    launch="$launch --cpu-bind=${HSPMV_CPU_BIND:-cores} -I${HSPMV_SRUN_WAIT:-60}"
    if [ -n "${SLURM_STEP_ID:-}" ]; then
        if ${srun%% *} --help 2>&1 | grep -q -- '--overlap'; then
            launch="$launch --overlap"
            echo "inside job step $SLURM_JOB_ID.$SLURM_STEP_ID: the benchmark steps share its CPUs (--overlap)"
        else
            die "inside job step $SLURM_JOB_ID.$SLURM_STEP_ID, and this srun has no --overlap: a step started from here would wait forever; run this script from the batch script or the salloc shell, not under srun"
        fi
    fi
    export OMP_NUM_THREADS="${OMP_NUM_THREADS:-${cpt:-1}}"
    export OMP_PLACES="${OMP_PLACES:-cores}" OMP_PROC_BIND="${OMP_PROC_BIND:-close}"
else
    launch="${MPIRUN:-mpirun} -n $ranks"
    if [ -z "${MPIRUN:-}" ]; then
        # each rank gets OMP_NUM_THREADS cores of its own (mpirun binds a
        # rank to one core by default: its threads would share it)
        thr=${OMP_NUM_THREADS:-1}
        case $thr in ''|*[!0-9]*|0) thr=1 ;; esac
        if [ $((ranks * thr)) -gt "$cores" ]; then
            launch="$launch --oversubscribe --bind-to none"
        elif [ "$thr" -gt 1 ]; then
            launch="$launch --map-by slot:PE=$thr --bind-to core"
            export OMP_PLACES="${OMP_PLACES:-cores}" OMP_PROC_BIND="${OMP_PROC_BIND:-close}"
        fi
        [ "$(id -u)" = 0 ] && launch="$launch --allow-run-as-root"
    fi
fi
echo "launcher: $launch${OMP_NUM_THREADS:+ (OMP_NUM_THREADS=$OMP_NUM_THREADS)}"

# Failures of the launcher itself are the same for every matrix: stop at the
# first one and say what to do.
launcher_failed() {
    case $1 in
    *"not built with SLURM"*"PMI support"*|*PMIx_Init*|*PMI2_Init*|*"OPAL ERROR: Unreachable"*)
        echo "$me: srun started the ranks without the PMI interface their MPI needs (Slurm MPI plugin: ${SLURM_MPI_TYPE:-MpiDefault of slurm.conf})." >&2
        echo "$me: Debian/Ubuntu's Open MPI needs PMIx: export SLURM_MPI_TYPE=pmix (or srun --mpi=pmix); 'srun --mpi=list' shows what this Slurm offers." >&2 ;;
    *"More processors requested than permitted"*|*"Requested node configuration is not available"*)
        echo "$me: the allocation is too small for $ranks ranks x ${cpt:-1} CPUs: $(echo "$1" | grep -m1 'srun: error')" >&2 ;;
    *"Unable to create step"*|*"Requested nodes are busy"*|*"step creation temporarily disabled"*)
        echo "$me: srun could not start a job step within ${HSPMV_SRUN_WAIT:-60} s: $(echo "$1" | grep -m1 'srun: error')" >&2
        echo "$me: the allocation's CPUs are held by another step (an srun still running, or this script run under srun without --overlap)." >&2 ;;
    *"There are not enough slots available"*|*"mpirun was unable to launch"*|*"mpirun: command not found"*|*"mpirun: not found"*)
        echo "$me: mpirun could not start $ranks ranks: $(echo "$1" | grep -v '^-*$' | head -3 | tr '\n' ' ')" >&2 ;;
    *) return 1 ;;
    esac
    return 0
}

kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
tmp=$(mktemp "${TMPDIR:-/tmp}/run_all-mpi.XXXXXX") || exit 2
trap 'rm -f "$tmp" "$tmp.rows"' EXIT INT TERM
printf '%-34s %5s %4s %10s %9s %7s %10s %10s %8s %8s %6s %9s\n' matrix ranks thr nnz imbalance part \
    halo_B median_ms GFLOP/s GB/s wait% max_rel
status=0
rows=0
for m in "$folder"/*.mtx "$folder"/*.mtx.gz; do
    [ -f "$m" ] || continue
    out=$($launch "$prog" "$m" "$@" 2>&1)
    rc=$?
    line=$(echo "$out" | grep '^bench=mpi ' | tail -1)
    if [ -z "$line" ]; then
        if launcher_failed "$out"; then exit 1; fi
        printf '%-34s failed (exit %d): %s\n' "$(basename "$m")" "$rc" \
            "$(echo "$out" | grep -i -m1 -E 'error|abort|killed|signal' || echo "$out" | tail -1)"
        status=1
        continue
    fi
    [ "$rc" -ne 0 ] && status=1
    ws=$(kv "$line" wait_share)
    printf '%-34s %5s %4s %10s %9s %7s %10s %10s %8s %8s %6.1f %9s\n' "$(basename "$m")" "$(kv "$line" ranks)" \
        "$(kv "$line" threads)" "$(kv "$line" nnz)" "$(kv "$line" imbalance)" "$(kv "$line" partition)" \
        "$(kv "$line" halo_bytes)" "$(kv "$line" median_ms)" "$(kv "$line" gflops)" "$(kv "$line" gbs)" \
        "$(echo "${ws:-0}" | awk '{print $1 * 100}')" "$(kv "$line" max_rel)"
    if [ -n "$csv" ]; then
        echo "$out" > "$tmp"
        csv_rows_kv "$tmp" mpi "$m" > "$tmp.rows"
        while IFS= read -r row; do
            if ! csv_row "$row"; then
                echo "$me: writing to the CSV file '$csv' failed: $csv_why" >&2
                exit 1
            fi
            rows=$((rows + 1))
        done < "$tmp.rows"
    fi
done
[ -z "$csv" ] || echo "csv: $csv ($rows rows appended)"
exit $status
