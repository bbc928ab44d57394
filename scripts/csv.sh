# csv.sh — sourced by run_all-*.sh: a CSV file checked before anything is
# measured and on every write, so that a lost result is an error, not a
# "csv: FILE" line over an empty file.
#   csv_open FILE HEADER   new or empty FILE: writes HEADER; a FILE that already
#                          starts with HEADER: rows are appended; returns 1 with
#                          the reason in $csv_why otherwise
#   csv_row LINE           appends LINE; returns 1 with the reason in $csv_why
#   csv_field TEXT         TEXT quoted as a CSV field when it holds a comma or a quote
# tee reports why a write failed in the system's words (strerror):
# "No such file or directory", "Permission denied", "No space left on device".
csv_file=""
csv_why=""

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
