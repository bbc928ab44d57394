#!/bin/sh
# test_make.sh — the Makefile as a newcomer meets it: `make help` lists every
# target the README names, one line each, and only real targets; `make
# CUDA=1` without nvcc stops at once with one line that says how to point at
# it, before anything is compiled. Ends with "N passed, N failed, N skipped".
#   sh tests/scripts/test_make.sh     (HSPMV_MAKE: the make to use)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
MAKE=${HSPMV_MAKE:-make}
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -f "$t/out" ] && sed 's/^/    /' "$t/out" | head -20; }
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$root" || exit 1

# --- make help ----------------------------------------------------------------
$MAKE --no-print-directory -s help > "$t/help" 2>&1
rc=$?
cp "$t/help" "$t/out"
check "make help: exit 0, a usage line first" test $rc = 0 -a -n "$(head -1 "$t/help" | grep '^usage: make ')"
# the targets it lists: the first word of each "  name  what it does" line
sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p' "$t/help" | sort > "$t/listed"
sed -n 's/^  with CUDA=1[^:]*: //p' "$t/help" | tr ', ' '\n\n' | grep . | sort >> "$t/listed"
sort -u "$t/listed" -o "$t/listed"
# every .PHONY target of the Makefile and its parts
cat Makefile ./*.mk | sed -n 's/^\.PHONY: *//p' | tr ' ' '\n' | grep . | sort -u > "$t/phony"
# the targets the README names: `make X` and `X` in backticks, that are .PHONY
grep -o 'make [a-z][a-z0-9-]*\|`[a-z][a-z0-9-]*`' README.md | sed 's/^make //; s/`//g' | sort -u > "$t/words"
comm -12 "$t/words" "$t/phony" > "$t/readme"
missing=$(comm -23 "$t/readme" "$t/listed" | tr '\n' ' ')
check "make help lists every target the README names ($(wc -l < "$t/readme") targets; missing: ${missing:-none})" \
    test -s "$t/readme" -a -z "$missing"
unknown=$(comm -23 "$t/listed" "$t/phony" | tr '\n' ' ')
check "make help lists only real targets (unknown: ${unknown:-none})" test -s "$t/listed" -a -z "$unknown"
long=$(awk 'length > 110' "$t/help" | wc -l)
check "make help: one line per target, none over 110 characters" test "$long" = 0 -a "$(grep -c '^  [a-z]' "$t/help")" -ge 20

# --- make CUDA=1 without nvcc -------------------------------------------------
$MAKE --no-print-directory CUDA=1 NVCC="$t/no/such/nvcc" BUILD="$t/b" > "$t/out" 2>&1
rc=$?
check "make CUDA=1 without nvcc: non-zero exit, one line naming nvcc and NVCC=, nothing compiled" \
    test $rc != 0 -a "$(grep -c . "$t/out")" = 1 -a -n "$(grep 'nvcc not found' "$t/out" | grep 'NVCC=')" \
    -a ! -e "$t/b" -a -z "$(grep '^  CC ' "$t/out")"
$MAKE --no-print-directory -s CUDA=1 NVCC="$t/no/such/nvcc" help > "$t/out" 2>&1
check "make CUDA=1 help without nvcc still answers" test $? = 0

echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
