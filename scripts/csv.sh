# csv.sh — sourced by run_all-*.sh: a CSV file checked before anything is
# measured and on every write, so that a lost result is an error, not a
# "csv: FILE" line over an empty file.
#   csv_open FILE HEADER   new or empty FILE: writes HEADER; a FILE that already
#                          starts with HEADER: rows are appended; returns 1 with
#                          the reason in $csv_why otherwise
#   csv_row LINE           appends LINE; returns 1 with the reason in $csv_why
#   csv_field TEXT         TEXT quoted as a CSV field when it holds a comma or a quote
#   csv_rows_kv FILE BENCH MATRIX
#                          one row of $csv_header per "bench=BENCH ..." line of
#                          FILE (a program's output), on stdout
#   csv_version DIR        the hspmv version of the tree a script in DIR belongs
#                          to (DIR/include/hspmv.h in the sources,
#                          DIR/../../include/... installed), or "unknown"
#   csv_header             the one schema of run_all-omp.sh, run_all-mpi.sh,
#                          run_all-light.sh and benchmark-omp --csv
#                          (bench/bench_util.h's BU_CSV_HEADER; docs/programs.md
#                          says what each column holds)
# tee reports why a write failed in the system's words (strerror):
# "No such file or directory", "Permission denied", "No space left on device".
csv_file=""
csv_why=""
csv_header="bench,matrix,precision,ranks,threads,partition,format,asked,kernel,rows,cols,nnz,seg_ratio,imbalance,\
halo_bytes,reps,median_ms,min_ms,max_ms,gflops,gbs,triad_gbs,frac_triad,wait_share,vs_cusparse,\
max_rel,avg_rel,violations,version,commit,host,date,compiler"

# csv_write_ LINE: appends LINE (may be empty: then it only opens the file).
csv_write_() {
    csv_why=$(printf '%s' "$1" | tee -a "$csv_file" 2>&1 >/dev/null) && return 0
    csv_why=$(printf '%s' "$csv_why" | head -n 1 | sed 's/.*: //')
    [ -n "$csv_why" ] || csv_why="write failed"
    return 1
}

csv_open() {
    csv_file=$1
    if [ -d "$1" ]; then csv_why="Is a directory"; return 1; fi
    if [ -f "$1" ] && [ -s "$1" ]; then
        csv_first=$(head -n 1 "$1" 2>&1) || { csv_why=$csv_first; return 1; }
        if [ "$csv_first" != "$2" ]; then
            csv_why="it holds other columns (first line: $(printf '%s' "$csv_first" | cut -c1-60)...); give a new file"
            return 1
        fi
        csv_write_ ""
        return
    fi
    csv_write_ "$2
"
}

csv_row() {
    csv_write_ "$1
"
}

csv_field() {
    case $1 in
        *[,\"]*) printf '"%s"' "$(printf '%s' "$1" | sed 's/"/""/g')" ;;
        *) printf '%s' "$1" ;;
    esac
}

# A column takes the line's value of the key of its name; bench is BENCH,
# matrix is MATRIX (the path the script gave the program), kernel the isa=
# of lines without a kernel= (the CPU programs). A key the line lacks is
# empty, and so are triad_gbs, frac_triad and vs_cusparse when 0 or "-": no
# triad ran, no cuSPARSE time (an absent value is empty, never 0).
csv_rows_kv() {
    awk -v cols="$csv_header" -v bench="$2" -v matrix="$3" '
        function q(f) { if (f ~ /[,"\r]/) { gsub(/"/, "\"\"", f); f = "\"" f "\"" } return f }
        $1 == "bench=" bench {
            n = split(cols, k, ","); split("", v)
            for (i = 2; i <= NF; i++) { e = index($i, "="); if (e > 1) v[substr($i, 1, e - 1)] = substr($i, e + 1) }
            if (!("kernel" in v) && ("isa" in v)) v["kernel"] = v["isa"]
            v["bench"] = bench; v["matrix"] = matrix
            split("triad_gbs frac_triad vs_cusparse", z, " ")
            for (i in z) if ((z[i] in v) && (v[z[i]] == "-" || v[z[i]] == "" || v[z[i]] + 0 == 0)) v[z[i]] = ""
            row = ""
            for (i = 1; i <= n; i++) row = row (i > 1 ? "," : "") q((k[i] in v) ? v[k[i]] : "")
            print row
        }' "$1"
}

csv_version() {
    for _h in "$1/include/hspmv.h" "$1/../../include/hspmv.h" "$1/../../include/hspmv_single/hspmv.h"; do
        if [ -f "$_h" ]; then
            awk '/^#define HSPMV_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $3; s = "."} END {print (v == "" ? "unknown" : v)}' "$_h"
            return
        fi
    done
    echo unknown
}
