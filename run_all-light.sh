#!/bin/sh
# run_all-light.sh — benchmark-light (the GPU path) on every matrix of a folder.
#   sh run_all-light.sh [PROGRAM] [FOLDER] [--csv FILE] [benchmark-light options...]
# PROGRAM defaults to benchmark-light beside this script (build: make CUDA=1;
# else an installed prefix's bin, PREFIX/share/hspmv/../../bin),
# FOLDER to the bundled matrices/. --csv appends one row per kernel and
# matrix to FILE in the CSV schema all run_all scripts share
# (docs/programs.md; the header is written when FILE is new or empty, a FILE
# with other columns is refused, and FILE is tried before anything runs).
# Other options (--kernel all, --reps, ...) go to the program. Each run's
# output is shown, the key=value lines are repeated at the end, and the exit
# status is 1 if any matrix failed its check (or the CSV could not be
# written), 2 on bad usage.
set -u
# --help: the comment above, as usage
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/csv.sh
. "$here/scripts/csv.sh"
# --version: the hspmv version of the tree this script belongs to
[ "${1:-}" = --version ] && { echo "run_all-light.sh hspmv $(csv_version "$here")"; exit 0; }
prog=${1:-$here/benchmark-light}
[ $# -eq 0 ] && [ ! -x "$prog" ] && [ -x "$here/../../bin/benchmark-light" ] && prog=$here/../../bin/benchmark-light
[ $# -gt 0 ] && shift
folder=""
case "${1:-}" in ''|-*) ;; *) folder=$1; shift ;; esac
[ -n "$folder" ] || folder="$here/matrices"
if [ ! -x "$prog" ] && ! command -v "$prog" >/dev/null 2>&1; then
    echo "run_all-light.sh: no program '$prog' (build it with: make CUDA=1)" >&2
    exit 2
fi
[ -d "$folder" ] || { echo "run_all-light.sh: no folder '$folder'" >&2; exit 2; }
# --csv FILE out of the options; the others stay for the program, in order
csv=""
n=$#
while [ "$n" -gt 0 ]; do
    a=$1; shift; n=$((n - 1))
    if [ "$a" = --csv ]; then
        [ "$n" -gt 0 ] || { echo "run_all-light.sh: --csv needs a file name" >&2; exit 2; }
        csv=$1; shift; n=$((n - 1))
    else set -- "$@" "$a"; fi
done
if [ -n "$csv" ] && ! csv_open "$csv" "$csv_header"; then
    echo "run_all-light.sh: cannot write the CSV file '$csv': $csv_why" >&2
    exit 2
fi
keys=$(mktemp)
trap 'rm -f "$keys" "$keys.out" "$keys.rows"' EXIT
n=0; bad=0; rows=0
for m in "$folder"/*.mtx "$folder"/*.mtx.gz; do
    [ -f "$m" ] || continue
    n=$((n + 1))
    echo "== $m"
    out=$("$prog" "$m" "$@" 2>&1)
    rc=$?
    echo "$out"
    echo "$out" | grep '^bench=light ' >> "$keys"
    [ $rc -eq 0 ] || { bad=$((bad + 1)); echo "   $m: exit $rc"; }
    if [ -n "$csv" ]; then
        echo "$out" > "$keys.out"
        csv_rows_kv "$keys.out" light "$m" > "$keys.rows"
        while IFS= read -r row; do
            if ! csv_row "$row"; then
                echo "run_all-light.sh: writing to the CSV file '$csv' failed: $csv_why" >&2
                exit 1
            fi
            rows=$((rows + 1))
        done < "$keys.rows"
    fi
done
echo "== key=value lines"
cat "$keys"
[ -z "$csv" ] || echo "csv: $csv ($rows rows appended)"
echo "run_all-light: $n matrices, $bad failed"
[ $bad -eq 0 ]
