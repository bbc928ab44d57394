#!/bin/sh
# test_header.sh — the installed public header holds what users call: at most
# HSPMV_MAX_FUNCS (35) function declarations, counted in the preprocessed
# header (compiled with mpicc, so the MPI section is counted too); the
# counter itself is checked on headers of 35 and 36 functions first, so the
# test can fail. Ends with "N passed, N failed, N skipped".
#   HSPMV_BUILD=build/x86_64-double sh tests/scripts/test_header.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
max=${HSPMV_MAX_FUNCS:-35}
mpicc=${MPICC:-mpicc}
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -f "$t/out" ] && sed 's/^/    /' "$t/out" | head -20; }
skip() { S=$((S + 1)); echo "skip $1"; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# functions HEADER CC [FLAGS...]: the names of the functions HEADER itself
# declares (not those of the headers it includes), one a line: the
# preprocessed text of HEADER's own lines, brace bodies (structs, enums)
# removed, split into declarations at ';'; a declaration that is not a
# typedef and has a name followed by '(' declares that function.
functions() {
    _h=$1; shift
    printf '#include "%s"\n' "$_h" > "$t/use.c"
    "$@" -E "$t/use.c" > "$t/pp.txt" 2> "$t/out" || return 1
    python3 - "$_h" "$t/pp.txt" <<'PY'
import os, re, sys
want = os.path.realpath(sys.argv[1])
keep, cur = [], None
for line in open(sys.argv[2]):
    m = re.match(r'# (\d+) "([^"]*)"', line)
    if m:
        cur = os.path.realpath(m.group(2)) if not m.group(2).startswith('<') else m.group(2)
        continue
    if cur == want:
        keep.append(line)
text = ' '.join(keep)
flat, depth = [], 0
for c in text:  # drop what lies inside braces
    if c == '{': depth += 1
    elif c == '}': depth -= 1
    elif depth == 0: flat.append(c)
for decl in ''.join(flat).split(';'):
    decl = re.sub(r'__attribute__\s*\(\(.*?\)\)', ' ', decl).strip()
    if not decl or decl.startswith('typedef'):
        continue
    m = re.search(r'\b([A-Za-z_]\w*)\s*\(', decl)
    if m and m.group(1) not in ('if', 'while', 'sizeof'):
        print(m.group(1))
PY
}

if ! command -v python3 > /dev/null 2>&1; then skip "header count (no python3)"; echo "$P passed, $F failed, $S skipped"; exit 0; fi
if ! command -v "$mpicc" > /dev/null 2>&1; then skip "header count (no $mpicc)"; echo "$P passed, $F failed, $S skipped"; exit 0; fi

# 1. the counter: a header of 35 functions passes, one of 36 does not; types,
#    a function pointer typedef and an included header's functions are not counted
{
    echo '#include <stdio.h>'
    echo 'typedef struct s { int (*f)(int); int a; } s;'
    echo 'typedef void (*cb)(int);'
    echo 'enum { A = 0, B };'
    for i in $(seq 1 35); do echo "int f$i(const s *x, cb c) __attribute__((nonnull(1)));"; done
} > "$t/h35.h"
{ cat "$t/h35.h"; echo 'void f36(void);'; } > "$t/h36.h"
n35=$(functions "$t/h35.h" "$mpicc" | wc -l)
n36=$(functions "$t/h36.h" "$mpicc" | wc -l)
if [ "$n35" = 35 ] && [ "$n36" = 36 ]; then ok "the counter counts 35 and 36 declarations (36 is over the limit)"
else bad "the counter counts 35 and 36 declarations (counted $n35 and $n36)"; fi

# 2. the installed header
build=${HSPMV_BUILD:-build/x86_64-double}
prec=double
case $build in *-single*) prec=single ;; esac
if ${HSPMV_MAKE:-make} -C "$root" --no-print-directory -s install PRECISION=$prec PREFIX="$t/prefix" > "$t/out" 2>&1; then
    h=$t/prefix/include/hspmv.h
    if functions "$h" "$mpicc" -I"$t/prefix/include" > "$t/names"; then
        n=$(wc -l < "$t/names")
        # the MPI section and the rest were both seen (a count of nothing passes nothing)
        if grep -qx hspmv_dist_spmv "$t/names" && grep -qx hspmv_csr_read "$t/names"; then
            ok "the count sees the MPI section and the rest ($n functions)"
        else cp "$t/names" "$t/out"; bad "the count sees the MPI section and the rest"; fi
        if [ "$n" -le "$max" ]; then ok "installed hspmv.h declares $n functions, at most $max"
        else cp "$t/names" "$t/out"; bad "installed hspmv.h declares $n functions, more than $max"; fi
    else bad "$mpicc -E of the installed hspmv.h"; fi
else bad "make install PREFIX=$t/prefix"; fi

echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
