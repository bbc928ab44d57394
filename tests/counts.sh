# counts.sh — sourced by the test runners: one program's output and exit status to counts.
# tally NAME RC OUTFILE prints what is not an "ok" line, then sets p1 f1 s1 from the
# last "N passed, N failed[, N skipped]" line. No such line, or a non-zero exit after
# a clean summary, counts as a failure: a crash never passes.
tally() {
    _name=$1 _rc=$2 _out=$3
    grep -v '^ok ' "$_out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed' | head -200
    _line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$_out" | tail -1)
    if [ -n "$_line" ]; then
        p1=$(echo "$_line" | awk '{print $1}'); f1=$(echo "$_line" | awk '{print $3}')
        s1=$(echo "$_line" | awk '{print ($5 == "" ? 0 : $5)}')
        [ "$_rc" -ne 0 ] && [ "$f1" -eq 0 ] && { echo "   $_name exited $_rc after its summary"; f1=1; }
    else
        echo "   $_name died (exit $_rc$( [ "$_rc" = 124 ] && echo ', timeout')) before its summary line"
        p1=$(grep -c '^ok ' "$_out"); f1=1; s1=0
    fi
}
