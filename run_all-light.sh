#!/bin/sh
# run_all-light.sh — benchmark-light (the GPU path) on every matrix of a folder.
#   sh run_all-light.sh [PROGRAM] [FOLDER] [benchmark-light options...]
# PROGRAM defaults to benchmark-light beside this script (build: make CUDA=1;
# else an installed prefix's bin, PREFIX/share/hspmv/../../bin),
# FOLDER to the bundled matrices/. Other options (--kernel all, --reps, ...)
# go to the program. Each run's output is shown, the key=value lines are
# repeated at the end, and the exit status is 1 if any matrix failed its check.
set -u
# --help: the comment above, as usage
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
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
keys=$(mktemp)
trap 'rm -f "$keys"' EXIT
n=0; bad=0
for m in "$folder"/*.mtx "$folder"/*.mtx.gz; do
    [ -f "$m" ] || continue
    n=$((n + 1))
    echo "== $m"
    out=$("$prog" "$m" "$@" 2>&1)
    rc=$?
    echo "$out"
    echo "$out" | grep '^bench=light ' >> "$keys"
    [ $rc -eq 0 ] || { bad=$((bad + 1)); echo "   $m: exit $rc"; }
done
echo "== key=value lines"
cat "$keys"
echo "run_all-light: $n matrices, $bad failed"
[ $bad -eq 0 ]
