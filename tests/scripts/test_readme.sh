#!/bin/sh
# test_readme.sh — the README's command lines run as written, where the quick
# start leaves a user (root or not, few cores): the quick start's first line,
# every line of "The programs" (in one shell, in order; the GPU lines only
# where nvcc and a GPU are), the pkg-config and CMake lines of "Embedding in
# C" against a `make install` (into a temporary prefix for /opt/hspmv; after
# the Open MPI line of "The programs", as the README says), and
# the Python snippet, which must be examples/python/first_steps.py (run by
# tests/python/run.sh). Two changes to the lines, for time and for sharing
# the machine: lap3d 100 becomes lap3d 16, /tmp/l3 and /opt/hspmv a
# temporary folder. Ends with "N passed, N failed, N skipped".
#   sh tests/scripts/test_readme.sh     (HSPMV_MAKE: the make to use)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
MAKE=${HSPMV_MAKE:-make}
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -f "$t/out" ] && sed 's/^/    /' "$t/out" | tail -15; }
skip() { S=$((S + 1)); echo "skip $1"; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
readme=$root/README.md
# block HEADING LANG: the lines of the first ```LANG block after "## HEADING"
block() {
    awk -v h="## $1" -v l="$2" '$0 == h { s = 1; next } s && /^## / { exit }
        s == 1 && $0 == "```" l { s = 2; next } s == 2 && /^```/ { exit } s == 2 { print }' "$readme"
}
# the command of a line: its comment cut off (a # after two blanks), blanks trimmed
cmd_of() { sed 's/  *# .*$//; s/[[:space:]]*$//'; }
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive

# --- the quick start ----------------------------------------------------------
first=$(block "Quick start" "" | head -1)
if [ "$first" = "apt-get update && apt-get install -y make git" ]; then
    ok "quick start: the first line installs make and git ($first)"
else echo "$first" > "$t/out"; bad "quick start: the first line installs make and git"; fi

# --- The programs: every line, in one shell, in a copy of the tree's layout -----
mkdir -p "$t/tree/examples" "$t/tree/matrices"
for f in genmat convert benchmark-naive benchmark-omp benchmark-mpi solve benchmark-light; do
    [ -x "$root/$f" ] && cp "$root/$f" "$t/tree/"
done
cp "$root"/run_all-*.sh "$t/tree/" && cp -r "$root/scripts" "$t/tree/" && cp "$root"/matrices/*.mtx "$t/tree/matrices/"
cp -r "$root/examples/minimal" "$t/tree/examples/"
gpu=0
command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1 && [ -x "$t/tree/benchmark-light" ] && gpu=1
block "The programs" sh | cmd_of | sed "s|lap3d 100|lap3d 16|g; s|/tmp/l3|$t/l3|g" > "$t/lines"
n=$(grep -c . "$t/lines")
if [ "$n" -ge 10 ]; then ok "The programs: $n lines found"; else bad "The programs: only $n lines found"; fi
: > "$t/script"
i=0
while IFS= read -r line; do
    i=$((i + 1))
    case $line in *benchmark-light*|*--gpu*)
        if [ $gpu = 0 ]; then echo "echo 'skip line $i (no GPU): $line'" >> "$t/script"; continue; fi ;; esac
    printf '%s > out.%d 2>&1; echo "line %d rc=$?"\n' "$line" "$i" "$i" >> "$t/script"
done < "$t/lines"
(cd "$t/tree" && timeout 900 sh "$t/script") > "$t/rcs" 2>&1
i=0
while IFS= read -r line; do
    i=$((i + 1))
    if grep -q "^skip line $i " "$t/rcs"; then skip "README line $i (no GPU): $line"; continue; fi
    rc=$(sed -n "s/^line $i rc=//p" "$t/rcs")
    if [ "$rc" = 0 ]; then ok "README line $i runs as written: $line"
    else cp "$t/tree/out.$i" "$t/out" 2>/dev/null; bad "README line $i (exit ${rc:-none}): $line"; fi
done < "$t/lines"

# --- Embedding in C: pkg-config and CMake after make install ------------------
inst=$(block "Install" sh | cmd_of | head -1 | sed "s|/opt/hspmv|$t/opt|g")
case $inst in "make install PREFIX=$t/opt") ;; *) echo "$inst" > "$t/out"; bad "Install: the first line is make install PREFIX=/opt/hspmv" ;; esac
if (cd "$root" && $MAKE --no-print-directory -s install PREFIX="$t/opt") > "$t/out" 2>&1; then
    block "Embedding in C" sh | cmd_of | sed "s|/opt/hspmv|$t/opt|g; s|build-min|$t/build-min|g" > "$t/emb"
    i=0
    while IFS= read -r line; do
        i=$((i + 1))
        case $line in cmake*) command -v cmake > /dev/null 2>&1 || { skip "no cmake: $line"; continue; } ;; esac
        # in one shell with the lines before it (the export), after the Open MPI
        # line of The programs, as the README says
        if (cd "$t/tree" && { head -n 1 "$t/lines"; head -n "$i" "$t/emb"; } > emb.sh && timeout 300 sh emb.sh) > "$t/out" 2>&1; then
            ok "Embedding in C line $i runs as written from the repository root: $line"
        else bad "Embedding in C line $i: $line"; fi
    done < "$t/emb"
else bad "make install PREFIX=$t/opt"; fi

# --- the Python snippet is the example file -------------------------------------
block "Embedding in C" python > "$t/snippet"
sed -n '/^import numpy/,$p' "$root/examples/python/first_steps.py" > "$t/example"
if [ -s "$t/snippet" ] && cmp -s "$t/snippet" "$t/example"; then
    ok "README's Python snippet is examples/python/first_steps.py (which tests/python/run.sh runs)"
else diff "$t/snippet" "$t/example" > "$t/out"; bad "README's Python snippet is examples/python/first_steps.py"; fi

echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
