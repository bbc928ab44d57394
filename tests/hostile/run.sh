#!/bin/sh
# run.sh — the hostile suite: every tests/hostile/*.sh but this one, each
# given the build folder, tries what a user bent on breaking things would
# (outputs over inputs, full disks, devices, absurd arguments) and ends with
# "N passed, N failed, N skipped"; adds them up like tests/run.sh.
#   run.sh [--record FILE] BUILD
# HOSTILE_TEST_TIMEOUT: seconds per script (default 900).
set -u
here=$(dirname "$0")
. "$here/../counts.sh"
record=""
if [ "${1:-}" = "--record" ]; then record=$2; shift 2; fi
build=${1:?usage: run.sh [--record FILE] BUILD}
P=0; F=0; S=0
for t in "$here"/*.sh; do
    name=$(basename "$t" .sh)
    [ "$name" = run ] && continue
    out=$(mktemp)
    echo "== hostile/$name"
    timeout "${HOSTILE_TEST_TIMEOUT:-900}" sh "$t" "$build" > "$out" 2>&1
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
echo "hostile: $P passed, $F failed, $S skipped"
[ -n "$record" ] || [ "$F" -eq 0 ]
