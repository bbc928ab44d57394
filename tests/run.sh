#!/bin/sh
# run.sh — runs test programs and adds up their "N passed, N failed, N skipped" lines.
#   run.sh [--record FILE] BIN...   run each BIN (through $HSPMV_RUNNER if set)
#   run.sh --summary [--since STAMP] FILE...   add up recorded counts, print the closing
#                                   line; before it each suite's counts with its wall and
#                                   CPU seconds (FILE.time, from tests/suite.sh), the
#                                   fresh-system test's steps (FILE.steps), and the
#                                   seconds since STAMP's (a date +%s) time
# A program that dies or prints no summary counts as one failure.
set -u
. "$(dirname "$0")/counts.sh"
record=""
if [ "${1:-}" = "--summary" ]; then
    shift
    since=""
    if [ "${1:-}" = "--since" ]; then since=$2; shift 2; fi
    echo "== summary: suite, counts, wall and CPU seconds (the suites ran side by side)"
    for f in "$@"; do
        [ -f "$f" ] || continue
        name=$(basename "$(dirname "$f")")/$(basename "$f" .txt | sed 's/^results-//')
        t="-"; [ -f "$f.time" ] && t=$(awk '{ printf "%5d s wall %5d s CPU", $1, $2 }' "$f.time")
        awk -v n="$name" -v t="$t" '{ printf "   %-28s %5d passed %3d failed %3d skipped  %s\n", n, $1, $2, $3, t }' "$f"
        [ -s "$f.steps" ] && awk '{ printf "      %-25s %5d s wall %5d s CPU\n", $1, $2, $3 }' "$f.steps"
    done
    cpu=$(cat /dev/null $(for f in "$@"; do [ -f "$f.time" ] && echo "$f.time"; done) | awk '{ c += $2 } END { print c + 0 }')
    [ -n "$since" ] && [ -f "$since" ] &&
        echo "   make test: $(( $(date +%s) - $(cat "$since") )) s wall from the start (suites' CPU $cpu s)"
    cat "$@" | awk '{p+=$1; f+=$2; s+=$3} END {printf "%d passed, %d failed, %d skipped\n", p, f, s; exit (f > 0)}'
    exit $?
fi
if [ "${1:-}" = "--record" ]; then record=$2; shift 2; fi
P=0; F=0; S=0
for bin in "$@"; do
    name=$(basename "$bin")
    out=$(mktemp)
    echo "== $name ${HSPMV_RUNNER:+(via ${HSPMV_RUNNER%% *})}"
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${HSPMV_TEST_TIMEOUT:-900}" ${HSPMV_RUNNER:-} "$bin" > "$out" 2>&1
    rc=$?
    tally "$name" "$rc" "$out"
    echo "   $name: $p1 passed, $f1 failed, $s1 skipped ($(( $(date +%s) - start )) s)"
    P=$((P + p1)); F=$((F + f1)); S=$((S + s1))
    rm -f "$out"
done
if [ -n "$record" ]; then
    mkdir -p "$(dirname "$record")"
    echo "$P $F $S" > "$record"
fi
echo "$P passed, $F failed, $S skipped"
[ -n "$record" ] || [ "$F" -eq 0 ]
