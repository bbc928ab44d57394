#!/bin/sh
# run_all-omp.sh — benchmark-omp on every matrix of a folder, one table row per
# matrix and thread count.
#   sh run_all-omp.sh [PROGRAM] [THREADS] [FOLDER] [--csv FILE] [benchmark-omp options...] [-- options]
#   sh run_all-omp.sh 1,2 (a first argument of digits and commas is THREADS)
# PROGRAM defaults to benchmark-omp (found beside this script, else in an
# installed prefix's bin, PREFIX/share/hspmv/../../bin, else on PATH),
# THREADS (a count or a list such as 1,2,4) to the program's default, FOLDER
# to the bundled matrices/. More threads than cores is allowed (OpenMP
# oversubscribes). --csv appends every measurement (one row per format and
# thread count) to FILE in the CSV schema all run_all scripts share
# (docs/programs.md); the header is written when FILE is new or empty (a
# FILE with other columns is refused), and FILE is tried before anything is
# measured. benchmark-omp's options (--reps, --warmup, --format,
# --threshold, --kernel, --bw, --no-bw, --bw-mib, --progress, --transpose,
# --vectors, --reorder, --symmetric) go to the program; any other option is refused with the usage
# (exit 2) before anything runs; what follows -- goes to the program as it
# is (another PROGRAM's options).
# Table: "format" is the line the row's numbers come from, named by its own
# asked=/format= keys: auto>F when the automatic choice ran (it chose F), else
# the fastest format that ran; "best" is the fastest of all that ran, auto
# included (auto>F when it is the automatic choice), and best/shown its
# median over the shown one's. "triad" is GB/s as a fraction of the STREAM
# triad, or in-cache where the product's bytes fit in the last-level cache
# (no fraction of the memory's limit is claimed there). No number is ever
# shown under another format's name.
# Exit status: 0 all ran and passed, 1 a matrix failed its check or the CSV
# could not be written, 2 bad usage.
set -u
# --help: the comment above, as usage
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
me=run_all-omp.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/csv.sh
. "$here/scripts/csv.sh"
# --version: the hspmv version of the tree this script belongs to
[ "${1:-}" = --version ] && { echo "run_all-omp.sh hspmv $(csv_version "$here")"; exit 0; }
die() { echo "$me: $*" >&2; exit 2; }
usage() {
    echo "$me: $1" >&2
    echo "usage: sh $me [PROGRAM] [THREADS] [FOLDER] [--csv FILE] [benchmark-omp options...] [-- options] (see --help)" >&2
    exit 2
}
# the program is optional: a first argument that is a count or a list of
# counts is THREADS (as run_all-mpi.sh takes RANKS)
prog=benchmark-omp
case ${1:-} in ''|-*|[0-9]*) ;; *) prog=$1; shift ;; esac
threads=""
# THREADS: digits and commas; a word that is not a folder is a bad THREADS
case "${1:-}" in ''|-*) ;; *[!0-9,]*) [ -d "$1" ] || { threads=$1; shift; } ;; *) threads=$1; shift ;; esac
folder=""
case "${1:-}" in ''|-*) ;; *) folder=$1; shift ;; esac
[ -n "$folder" ] || folder="$here/matrices"
csv=""
extra=""
while [ $# -gt 0 ]; do
    case "$1" in
    --csv) [ $# -ge 2 ] || die "--csv needs a file name"
           csv=$2; shift 2 ;;
    # benchmark-omp's options with a value, and without
    --reps|--warmup|--format|--threshold|--kernel|--bw-mib|--progress|--vectors|--reorder|--symmetric)
           [ $# -ge 2 ] || die "$1 needs a value"
           extra="$extra $1 $2"; shift 2 ;;
    --bw|--no-bw|--transpose) extra="$extra $1"; shift ;;
    --) shift; extra="$extra $*"; break ;;
    *) usage "unknown option '$1'" ;;
    esac
done

case "$prog" in
*/*) ;;
*) if [ -x "$here/$prog" ]; then prog="$here/$prog"
   elif [ -x "$here/../../bin/$prog" ]; then prog=$(cd "$here/../../bin" && pwd)/$prog
   elif command -v "$prog" >/dev/null 2>&1; then prog=$(command -v "$prog")
   else die "program '$prog' not found (run 'make' in $here first)"; fi ;;
esac
{ [ -f "$prog" ] && [ -x "$prog" ]; } || die "'$prog' is not an executable file"
[ -d "$folder" ] || die "matrix folder '$folder' not found"
if [ -n "$threads" ]; then
    case "$threads" in *[!0-9,]*|,*|*,|*,,*)
        die "THREADS must be a count or a comma-separated list of counts (1 or more), not '$threads'" ;; esac
    for t in $(echo "$threads" | tr ',' ' '); do
        t=$(echo "$t" | sed 's/^0*//')
        [ -n "$t" ] || die "THREADS must be 1 or more, not 0"
        { [ ${#t} -le 5 ] && [ "$t" -le 4096 ]; } || die "$t threads is more than any node runs (at most 4096)"
    done
fi
n=0
for m in "$folder"/*.mtx "$folder"/*.mtx.gz; do [ -f "$m" ] && n=$((n + 1)); done
[ "$n" -gt 0 ] || die "no .mtx or .mtx.gz files in '$folder'"

# The CSV is written here from the program's key=value lines, so it is tried
# before anything is measured and every row's write is checked.
if [ -n "$csv" ] && ! csv_open "$csv" "$csv_header"; then
    echo "$me: cannot write the CSV file '$csv': $csv_why" >&2
    exit 2
fi

log=$(mktemp "${TMPDIR:-/tmp}/run_all-omp.XXXXXX") || exit 2
trap 'rm -f "$log" "$log.rows"' EXIT INT TERM
status=0
rows=0
printf '%-28s %9s %10s %6s %4s %-12s %10s %8s %8s %8s %-12s %10s %10s %5s\n' matrix rows nnz seg thr format \
    median_ms GFLOP/s GB/s triad best best_ms best/shown check
for m in "$folder"/*.mtx "$folder"/*.mtx.gz; do
    [ -f "$m" ] || continue
    # shellcheck disable=SC2086
    "$prog" "$m" $threads $extra > "$log" 2>&1
    rc=$?
    awk -v mat="$(basename "$m")" -v rc="$rc" '
        function kv(line, key,   i, f, n) {
            n = split(line, f, " ")
            for (i = 1; i <= n; i++) if (index(f[i], key "=") == 1) return substr(f[i], length(key) + 2)
            return ""
        }
        /^bench=omp / {
            t = kv($0, "threads")
            if (!(t in seen)) { seen[t] = 1; order[++nt] = t }
            asked = kv($0, "asked"); ms = kv($0, "median_ms") + 0
            if (kv($0, "violations") != "0") bad[t] = 1
            if (asked == "auto") auto[t] = $0
            else if (!(t in fixed) || ms < kv(fixed[t], "median_ms") + 0) fixed[t] = $0
        }
        function name(line,   n) {
            n = kv(line, "format")
            return kv(line, "asked") != n ? kv(line, "asked") ">" n : n
        }
        END {
            if (nt == 0) { printf "%-28s (failed, exit %s)\n", mat, rc; exit 3 }
            for (i = 1; i <= nt; i++) {
                t = order[i]
                s = (t in auto) ? auto[t] : fixed[t]
                tr = kv(s, "frac_triad")
                tr = kv(s, "in_cache") == "1" ? "in-cache" : (tr == "" || tr + 0 == 0) ? "-" : sprintf("%.1f%%", 100 * tr)
                # best: the fastest of all that ran, auto when strictly faster than every asked format
                b = (t in fixed) ? fixed[t] : s
                if ((t in auto) && kv(auto[t], "median_ms") + 0 < kv(b, "median_ms") + 0) b = auto[t]
                printf "%-28s %9s %10s %6.3f %4s %-12s %10.4f %8.2f %8.2f %8s %-12s %10s %10s %5s\n", mat,
                    kv(s, "rows"), kv(s, "nnz"), kv(s, "seg_ratio"), t, name(s), kv(s, "median_ms"),
                    kv(s, "gflops"), kv(s, "gbs"), tr, name(b), sprintf("%.4f", kv(b, "median_ms")),
                    sprintf("%.3f", kv(b, "median_ms") / kv(s, "median_ms")),
                    (bad[t] || rc != 0) ? "FAIL" : "ok"
                if (bad[t]) anybad = 1
            }
            exit anybad ? 3 : 0
        }' "$log" || status=1
    if [ "$rc" -ne 0 ]; then
        status=1
        grep -E 'error|bound' "$log" | head -3 >&2
    fi
    if [ -n "$csv" ]; then
        csv_rows_kv "$log" omp "$m" > "$log.rows"
        while IFS= read -r row; do
            if ! csv_row "$row"; then
                echo "$me: writing to the CSV file '$csv' failed: $csv_why" >&2
                exit 1
            fi
            rows=$((rows + 1))
        done < "$log.rows"
    fi
done
[ -z "$csv" ] || echo "csv: $csv ($rows rows appended)"
exit $status
