#!/bin/sh
# test_script_help.sh — every measurement job (bench/jobs/*.sh) and every
# runnable script of scripts/ (*.sh that is executable or starts with #!)
# parses (bash -n; sh -n too for #!/bin/sh) and answers --help with exit
# status 0 and a text whose first line starts with the file's name. The
# checks are first run on planted scripts (a syntax error, a job without
# --help, a help that names another file), so that each is seen to fail.
# --help runs in an empty folder with OUT pointing there, so a script that
# ignored it would find nothing to build or write. Ends with "N passed,
# N failed, N skipped".
#   sh tests/scripts/test_script_help.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -f "$t/out" ] && sed 's/^/    /' "$t/out" | head -20; }
skip() { S=$((S + 1)); echo "skip $1"; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/run"

# The interpreter of script $1: the program its #! line names (through
# /usr/bin/env too), bash when it has none.
shell_of() {
    _l=$(head -n 1 "$1")
    case $_l in
        '#!'*env\ *) echo "${_l##* }" ;;
        '#!'*) _l=${_l#'#!'}; _l=${_l%% *}; basename "$_l" ;;
        *) echo bash ;;
    esac
}

# parses FILE: true when bash -n (and sh -n for a #!/bin/sh script) accept it;
# the complaint in $t/out otherwise.
parses() {
    bash -n "$1" > "$t/out" 2>&1 || return 1
    [ "$(shell_of "$1")" != sh ] || sh -n "$1" > "$t/out" 2>&1
}

# helps FILE: true when `INTERPRETER FILE --help`, run in an empty folder,
# exits 0 and its first line starts with FILE's name; what it said in $t/out.
helps() {
    _name=$(basename "$1")
    _sh=$(shell_of "$1")
    command -v "$_sh" > /dev/null 2>&1 || { echo "no $_sh for $_name" > "$t/out"; return 1; }
    (cd "$t/run" && OUT=$t/run/out timeout 20 "$_sh" "$1" --help) > "$t/out" 2>&1 < /dev/null
    _rc=$?
    [ "$_rc" = 0 ] || { echo "(exit status $_rc)" >> "$t/out"; return 1; }
    case $(head -n 1 "$t/out") in
        "$_name "*|"$_name") return 0 ;;
    esac
    echo "(the first line does not start with $_name)" >> "$t/out"
    return 1
}

# 1. the checks, on planted scripts
help_line='case ${1:-} in -h|--help) sed -n '\''2,/^[^#]/s/^# \{0,1\}//p'\'' "$0" | grep -v '\''^SBATCH'\''; exit 0 ;; esac'
printf '#!/bin/bash\n# good.sh — a planted job.\n#   good.sh [N]\nset -u\n%s\necho ran\n' "$help_line" > "$t/good.sh"
printf '#!/bin/bash\n# broken.sh — a planted job.\nset -u\nif true; then echo x\n' > "$t/broken.sh"
printf '#!/bin/sh\n# arrays.sh — bash syntax in a sh script.\nset -u\nA=(1 2)\n' > "$t/arrays.sh"
printf '#!/bin/bash\n# nohelp.sh — a planted job that ignores --help.\nset -u\nexit 3\n' > "$t/nohelp.sh"
printf '#!/bin/bash\n# other.sh — a planted job.\nset -u\n%s\n' "$help_line" > "$t/misnamed.sh"
if parses "$t/good.sh" && helps "$t/good.sh"; then ok "a planted good job passes both checks"
else bad "a planted good job passes both checks"; fi
if parses "$t/broken.sh"; then rm -f "$t/out"; bad "the syntax check fails a planted unclosed if"
else ok "the syntax check fails a planted unclosed if"; fi
if [ "$(readlink -f "$(command -v sh)")" = "$(readlink -f "$(command -v bash)")" ]; then
    skip "the syntax check fails bash arrays in a #!/bin/sh script (sh is bash here)"
elif parses "$t/arrays.sh"; then rm -f "$t/out"; bad "the syntax check fails bash arrays in a #!/bin/sh script"
else ok "the syntax check fails bash arrays in a #!/bin/sh script"; fi
if helps "$t/nohelp.sh"; then rm -f "$t/out"; bad "the help check fails a planted job without --help"
else ok "the help check fails a planted job without --help"; fi
if helps "$t/misnamed.sh"; then rm -f "$t/out"; bad "the help check fails a help that names another file"
else ok "the help check fails a help that names another file"; fi

# 2. the repository's jobs and scripts
n=0
for f in "$root"/bench/jobs/*.sh "$root"/scripts/*.sh; do
    [ -f "$f" ] || continue
    case $f in
        "$root"/scripts/*) [ -x "$f" ] || [ "$(head -c 2 "$f")" = '#!' ] || continue ;;
    esac
    n=$((n + 1))
    rel=${f#"$root"/}
    if parses "$f"; then ok "$rel parses"; else bad "$rel parses"; fi
    if helps "$f"; then ok "$rel --help"; else bad "$rel --help"; fi
done
if [ "$n" -gt 0 ]; then ok "found $n scripts to check"; else rm -f "$t/out"; bad "found scripts to check"; fi
if [ -z "$(ls -A "$t/run")" ]; then ok "--help wrote nothing where it ran"
else ls -A "$t/run" > "$t/out"; bad "--help wrote nothing where it ran"; fi

echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
