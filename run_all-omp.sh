#!/bin/sh
# run_all-omp.sh — benchmark-omp on every matrix of a folder, one table row each.
#   sh run_all-omp.sh [PROGRAM] [THREADS] [FOLDER] [--csv FILE] [benchmark-omp options...]
# PROGRAM defaults to benchmark-omp (found beside this script, else on PATH),
# THREADS to all cores, FOLDER to the bundled matrices/. More threads than
# cores is allowed (OpenMP oversubscribes). --csv appends every measurement
# (one row per format) to FILE; other options (--reps, --no-bw, --format, ...)
# go to the program. Exit status 1 if any matrix failed its check.
set -u
here=$(cd "$(dirname "$0")" && pwd)
prog=${1:-benchmark-omp}
[ $# -gt 0 ] && shift
threads=""
case "${1:-}" in ''|-*) ;; *) threads=$1; shift ;; esac
folder=""
case "${1:-}" in ''|-*) ;; *) folder=$1; shift ;; esac
[ -n "$folder" ] || folder="$here/matrices"
csv=""
extra=""
while [ $# -gt 0 ]; do
    case "$1" in
    --csv) [ $# -ge 2 ] || { echo "run_all-omp.sh: --csv needs a file" >&2; exit 2; }
           csv=$2; shift 2 ;;
    *) extra="$extra $1"; shift ;;
    esac
done

case "$prog" in
*/*) ;;
*) if [ -x "$here/$prog" ]; then prog="$here/$prog"
   elif command -v "$prog" >/dev/null 2>&1; then prog=$(command -v "$prog")
   else echo "run_all-omp.sh: program '$prog' not found (run 'make' in $here first)" >&2; exit 2; fi ;;
esac
[ -x "$prog" ] || { echo "run_all-omp.sh: '$prog' is not executable" >&2; exit 2; }
[ -d "$folder" ] || { echo "run_all-omp.sh: matrix folder '$folder' not found" >&2; exit 2; }
case "$threads" in ''|*[!0-9]*) [ -z "$threads" ] || { echo "run_all-omp.sh: threads must be a positive number, not '$threads'" >&2; exit 2; } ;; esac

log=$(mktemp "${TMPDIR:-/tmp}/run_all-omp.XXXXXX") || exit 2
trap 'rm -f "$log"' EXIT INT TERM
status=0
n=0
printf '%-28s %9s %10s %6s %-6s %-6s %10s %8s %8s %7s %9s %5s\n' matrix rows nnz seg auto best \
    median_ms GFLOP/s GB/s triad auto/best check
for m in "$folder"/*.mtx "$folder"/*.mtx.gz; do
    [ -f "$m" ] || continue
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$prog" "$m" $threads ${csv:+--csv "$csv"} $extra > "$log" 2>&1
    rc=$?
    awk -v name="$(basename "$m")" -v rc="$rc" '
        function kv(line, key,   i, f, n) {
            n = split(line, f, " ")
            for (i = 1; i <= n; i++) if (index(f[i], key "=") == 1) return substr(f[i], length(key) + 2)
            return ""
        }
        /^bench=omp / { line[kv($0, "asked")] = $0; if (kv($0, "violations") != "0") bad = 1 }
        /^bench=omp-summary / { sum = $0 }
        END {
            a = ("auto" in line) ? line["auto"] : ""
            if (a == "") { for (k in line) a = line[k] }
            if (a == "") { printf "%-28s (failed, exit %s)\n", name, rc; exit }
            tr = kv(a, "frac_triad") + 0
            printf "%-28s %9s %10s %6.3f %-6s %-6s %10.4f %8.2f %8.2f %6.1f%% %9s %5s\n", name,
                kv(a, "rows"), kv(a, "nnz"), kv(a, "seg_ratio"), kv(a, "format"),
                (sum != "" ? kv(sum, "best") : "-"), kv(a, "median_ms"), kv(a, "gflops"), kv(a, "gbs"),
                100 * tr, (sum != "" ? sprintf("%.3f", kv(sum, "auto_vs_best")) : "-"),
                (bad || rc != 0) ? "FAIL" : "ok"
        }' "$log"
    if [ "$rc" -ne 0 ]; then
        status=1
        grep -E 'error|bound' "$log" | head -3 >&2
    fi
done
[ "$n" -gt 0 ] || { echo "run_all-omp.sh: no .mtx files in '$folder'" >&2; exit 2; }
[ -z "$csv" ] || echo "csv: $csv"
exit $status
