#!/bin/sh
# suite.sh — runs one suite of make test: its output goes to RESULTS.log and
# is printed whole when it ends (suites run side by side do not mix), its
# wall and CPU seconds (its processes and their children) go to
# RESULTS.time, and a suite that records no counts counts as one failure.
#   suite.sh RESULTS CMD...    (CMD writes "P F S" into RESULTS)
set -u
res=${1:?usage: suite.sh RESULTS CMD...}
shift
name=$(basename "$(dirname "$res")")/$(basename "$res" .txt | sed 's/^results-//')
mkdir -p "$(dirname "$res")"
rm -f "$res" "$res.time"
t0=$(date +%s.%N)
"$@" > "$res.log" 2>&1
rc=$?
t1=$(date +%s.%N)
times > "$res.times"
# the second line of `times`: the children's user and system time (XmY.Zs)
cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } printf "%.0f", s }' "$res.times")
rm -f "$res.times"
wall=$(echo "$t0 $t1" | awk '{ printf "%.0f", $2 - $1 }')
[ -s "$res" ] || { echo "   $name: no counts recorded (exit $rc)" >> "$res.log"; echo "0 1 0" > "$res"; }
echo "$wall $cpu" > "$res.time"
echo "== suite $name"
cat "$res.log"
read -r p f s < "$res"
echo "== suite $name: $p passed, $f failed, $s skipped in $wall s (CPU $cpu s)"
