#!/bin/sh
# test_sources.sh — rules the sources and the built library must keep:
# src/util/settings.c is the only file of src/ that reads the environment
# (no other file names getenv), and every global symbol that libhspmv.a
# defines starts with hspmv_ (OpenMP's named critical sections,
# .gomp_critical_user_hspmv_*, too). Each check is first run on a planted
# fault, so that it is seen to fail. Ends with "N passed, N failed, N skipped".
#   HSPMV_BUILD=build/x86_64-double sh tests/scripts/test_sources.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${HSPMV_BUILD:-}
case $build in ''|/*) ;; *) build=$root/$build ;; esac
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -f "$t/out" ] && sed 's/^/    /' "$t/out" | head -20; }
skip() { S=$((S + 1)); echo "skip $1"; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# The files under $1 other than $1/util/settings.c that name getenv (into $t/out);
# true when there are none.
no_getenv() {
    grep -rl 'getenv' "$1" | grep -v "^$1/util/settings\.c$" > "$t/out"
    [ ! -s "$t/out" ]
}

# The global symbols that archive $1 defines without the hspmv_ prefix (into
# $t/out); true when there are none.
all_prefixed() {
    nm -g --defined-only "$1" 2> "$t/nm.err" | awk 'NF == 3 { print $3 }' |
        grep -v -e '^hspmv_' -e '^\.gomp_critical_user_hspmv_' > "$t/out"
    [ -s "$t/nm.err" ] && { cat "$t/nm.err" >> "$t/out"; return 1; }
    [ ! -s "$t/out" ]
}

# 1. the environment is read in settings.c alone
mkdir -p "$t/src/util" "$t/src/local"
printf 'const char *s(void) { return getenv("X"); }\n' > "$t/src/util/settings.c"
printf 'static int f(void) { return 0; }\n' > "$t/src/local/clean.c"
if no_getenv "$t/src"; then
    printf 'static int g(void) { return getenv("HSPMV_PLANTED") != 0; }\n' > "$t/src/local/planted.c"
    if no_getenv "$t/src"; then bad "getenv_check_fails_on_a_planted_getenv"
    else ok "getenv_check_fails_on_a_planted_getenv"; fi
else
    bad "getenv_check_passes_a_clean_tree"
fi
if no_getenv "$root/src"; then ok "only_settings_c_reads_the_environment"
else bad "only_settings_c_reads_the_environment"; fi

# 2. every global symbol of the library starts with hspmv_
lib=$build/libhspmv.a
if ! command -v nm > /dev/null 2>&1; then
    skip "library_symbols_start_with_hspmv (no nm)"
elif [ -z "$build" ] || [ ! -f "$lib" ]; then
    skip "library_symbols_start_with_hspmv (no libhspmv.a: set HSPMV_BUILD to a build folder)"
else
    cc=${CC:-cc}
    printf 'int hspmv_fine(void) { return 1; }\nint planted_helper(void) { return 2; }\n' > "$t/p.c"
    if "$cc" -c "$t/p.c" -o "$t/p.o" 2> /dev/null && ar rcs "$t/p.a" "$t/p.o" 2> /dev/null; then
        if all_prefixed "$t/p.a" || ! grep -qx planted_helper "$t/out"; then
            bad "symbol_check_fails_on_a_planted_symbol"
        else
            ok "symbol_check_fails_on_a_planted_symbol"
        fi
    else
        skip "symbol_check_fails_on_a_planted_symbol (no C compiler)"
    fi
    if all_prefixed "$lib"; then ok "library_symbols_start_with_hspmv"
    else bad "library_symbols_start_with_hspmv"; fi
fi

echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
