#!/bin/sh
# run.sh — runs test programs and adds up their "N passed, N failed, N skipped" lines.
#   run.sh [--record FILE] BIN...   run each BIN (through $HSPMV_RUNNER if set)
#   run.sh --summary FILE...        add up recorded counts, print the closing line
# A program that dies or prints no summary counts as one failure.
set -u
. "$(dirname "$0")/counts.sh"
record=""
if [ "${1:-}" = "--summary" ]; then
    shift
    cat "$@" | awk '{p+=$1; f+=$2; s+=$3} END {printf "%d passed, %d failed, %d skipped\n", p, f, s; exit (f > 0)}'
    exit $?
fi
if [ "${1:-}" = "--record" ]; then record=$2; shift 2; fi
P=0; F=0; S=0
for bin in "$@"; do
    name=$(basename "$bin")
    out=$(mktemp)
    echo "== $name ${HSPMV_RUNNER:+(via ${HSPMV_RUNNER%% *})}"
    # shellcheck disable=SC2086
    timeout "${HSPMV_TEST_TIMEOUT:-900}" ${HSPMV_RUNNER:-} "$bin" > "$out" 2>&1
    rc=$?
    tally "$name" "$rc" "$out"
    echo "   $name: $p1 passed, $f1 failed, $s1 skipped"
    P=$((P + p1)); F=$((F + f1)); S=$((S + s1))
    rm -f "$out"
done
if [ -n "$record" ]; then
    mkdir -p "$(dirname "$record")"
    echo "$P $F $S" > "$record"
fi
echo "$P passed, $F failed, $S skipped"
[ -n "$record" ] || [ "$F" -eq 0 ]
