#!/bin/sh
# run_all-mpi.sh — runs benchmark-mpi on every matrix of a folder at one rank
# count and prints a table (and optionally a CSV).
#   sh run_all-mpi.sh benchmark-mpi 128 [folder] [--csv FILE] [-- extra benchmark options]
# Inside a Slurm allocation (SLURM_JOB_ID set) it launches with srun, otherwise
# with mpirun (adding --oversubscribe when the ranks exceed the cores and
# --allow-run-as-root when run as root). MPIRUN / SRUN override the launchers.
set -u
usage() { echo "usage: sh run_all-mpi.sh benchmark-mpi RANKS [folder] [--csv FILE] [-- benchmark options]" >&2; exit 2; }
[ $# -ge 2 ] || usage
prog=$1; ranks=$2; shift 2
folder=matrices; csv=""
while [ $# -gt 0 ]; do
    case $1 in
        --csv) [ $# -ge 2 ] || usage; csv=$2; shift 2 ;;
        --) shift; break ;;
        -*) usage ;;
        *) folder=$1; shift ;;
    esac
done
case $prog in */*) ;; *) prog=./$prog ;; esac
[ -x "$prog" ] || { echo "run_all-mpi.sh: $prog not found or not executable (make programs)" >&2; exit 2; }
[ -d "$folder" ] || { echo "run_all-mpi.sh: no folder $folder" >&2; exit 2; }
case $ranks in ''|*[!0-9]*) echo "run_all-mpi.sh: ranks must be a number, not '$ranks'" >&2; exit 2 ;; esac

if [ -n "${SLURM_JOB_ID:-}" ]; then
    launch="${SRUN:-srun} -n $ranks"
else
    launch="${MPIRUN:-mpirun} -n $ranks"
    cores=$(nproc 2>/dev/null || echo 1)
    [ "$ranks" -gt "$cores" ] && launch="$launch --oversubscribe"
    [ "$(id -u)" = 0 ] && launch="$launch --allow-run-as-root"
fi
echo "launcher: $launch"

kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
[ -n "$csv" ] && echo "matrix,ranks,threads,partition,rows,nnz,imbalance,halo_bytes,median_ms,min_ms,gflops,gbs,wait_share,max_rel,violations" > "$csv"
printf '%-34s %5s %4s %10s %9s %7s %10s %10s %8s %8s %6s %9s\n' matrix ranks thr nnz imbalance part \
    halo_B median_ms GFLOP/s GB/s wait% max_rel
status=0
found=0
for m in "$folder"/*.mtx "$folder"/*.mtx.gz; do
    [ -e "$m" ] || continue
    found=1
    out=$($launch "$prog" "$m" "$@" 2>&1)
    rc=$?
    line=$(echo "$out" | grep '^bench=mpi ' | tail -1)
    if [ -z "$line" ]; then
        printf '%-34s failed (exit %d): %s\n' "$(basename "$m")" "$rc" "$(echo "$out" | grep -i error | head -1)"
        status=1
        continue
    fi
    [ "$rc" -ne 0 ] && status=1
    ws=$(kv "$line" wait_share)
    printf '%-34s %5s %4s %10s %9s %7s %10s %10s %8s %8s %6.1f %9s\n' "$(basename "$m")" "$(kv "$line" ranks)" \
        "$(kv "$line" threads)" "$(kv "$line" nnz)" "$(kv "$line" imbalance)" "$(kv "$line" partition)" \
        "$(kv "$line" halo_bytes)" "$(kv "$line" median_ms)" "$(kv "$line" gflops)" "$(kv "$line" gbs)" \
        "$(echo "$ws" | awk '{print $1 * 100}')" "$(kv "$line" max_rel)"
    [ -n "$csv" ] && echo "$m,$(kv "$line" ranks),$(kv "$line" threads),$(kv "$line" partition),$(kv "$line" rows),$(kv "$line" nnz),$(kv "$line" imbalance),$(kv "$line" halo_bytes),$(kv "$line" median_ms),$(kv "$line" min_ms),$(kv "$line" gflops),$(kv "$line" gbs),$ws,$(kv "$line" max_rel),$(kv "$line" violations)" >> "$csv"
done
[ "$found" = 1 ] || { echo "run_all-mpi.sh: no .mtx files in $folder" >&2; exit 2; }
exit $status
