#!/bin/sh
# test_docs.sh — the documentation's relative links lead somewhere: every
# [text](target) in README.md, docs/*.md and docs/results/*.md that is not a
# URL or an anchor of the same page names a file or folder that exists
# (relative to the page), a "page.md#anchor" names one of that page's
# headings, none leaves the repository, and README.md stays at most
# HSPMV_README_MAX (250) lines. The checks first run on planted pages (a
# broken link, a link out of the repository, a missing heading, an
# over-long README), so each is seen to fail. Ends with
# "N passed, N failed, N skipped".
#   sh tests/scripts/test_docs.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
max=${HSPMV_README_MAX:-250}
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -s "$t/out" ] && sed 's/^/    /' "$t/out" | head -20; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# slugs PAGE: the anchors of PAGE's headings as GitHub makes them (lower
# case, punctuation dropped, blanks to hyphens), one a line.
slugs() {
    sed -n 's/^#\{1,6\} \{1,\}//p' "$1" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

# links TOP PAGE: prints "PAGE: target" for each relative link of PAGE whose
# target is missing or resolves outside TOP; status 1 when it printed any.
links() {
    _top=$(cd "$1" && pwd -P); _page=$2; _dir=$(dirname "$_page"); _bad=0
    # every ](target) on a line, the target up to the closing parenthesis
    for _l in $(grep -o '](\([^)#][^) ]*\)' "$_page" | sed 's/^](//'); do
        case $_l in http://*|https://*|mailto:*) continue ;; esac
        _f=${_l%%#*}
        if [ ! -e "$_dir/$_f" ]; then echo "$_page: $_l (missing)"; _bad=1; continue; fi
        _abs=$(cd "$(dirname "$_dir/$_f")" && pwd -P)
        case $_abs/ in "$_top"/*) ;; *) echo "$_page: $_l (outside the repository)"; _bad=1; continue ;; esac
        case $_l in *.md\#*)
            slugs "$_dir/$_f" | grep -qx "${_l#*#}" || { echo "$_page: $_l (no such heading)"; _bad=1; } ;;
        esac
    done
    return $_bad
}

# short_enough FILE: status 0 when FILE has at most $max lines.
short_enough() { [ "$(wc -l < "$1")" -le "$max" ]; }

# The checks on planted pages: each must fail.
mkdir -p "$t/repo/docs" "$t/outside"
printf '# x\n\n## Top (part)\n' > "$t/repo/docs/ok.md"; echo "# y" > "$t/outside/y.md"
printf 'see [ok](docs/ok.md#top-part) and [web](https://example.org) and [gone](docs/gone.md)\n' > "$t/repo/README.md"
if links "$t/repo" "$t/repo/README.md" > "$t/out" 2>&1; then bad "planted broken link is caught"
elif grep -q 'docs/gone.md (missing)' "$t/out" && ! grep -q 'ok.md\|example' "$t/out"; then ok "planted broken link is caught"
else bad "planted broken link is caught (wrong report)"; fi
printf '[out](../outside/y.md)\n' > "$t/repo/docs/up.md"
if links "$t/repo" "$t/repo/docs/up.md" > "$t/out" 2>&1; then bad "planted link out of the repository is caught"
else ok "planted link out of the repository is caught"; fi
printf '[ok](ok.md) [self](#x)\n' > "$t/repo/docs/good.md"
printf '[bad anchor](ok.md#bottom)\n' > "$t/repo/docs/anchor.md"
if links "$t/repo" "$t/repo/docs/anchor.md" > "$t/out" 2>&1; then bad "planted link to a missing heading is caught"
else ok "planted link to a missing heading is caught"; fi
if links "$t/repo" "$t/repo/docs/good.md" > "$t/out" 2>&1; then ok "planted good page passes"
else bad "planted good page passes"; fi
seq 1 $((max + 1)) > "$t/long.md"
short_enough "$t/long.md" && bad "planted over-long README is caught" || ok "planted over-long README is caught"
seq 1 "$max" > "$t/long.md"
short_enough "$t/long.md" && ok "planted README of $max lines passes" || bad "planted README of $max lines passes"

# The repository's pages.
: > "$t/out"
for page in "$root/README.md" "$root"/docs/*.md "$root"/docs/results/*.md; do
    [ -f "$page" ] || continue
    links "$root" "$page" >> "$t/out" 2>&1
done
[ -s "$t/out" ] && bad "every relative link of README.md and docs/ leads to a file" \
                || ok "every relative link of README.md and docs/ leads to a file"
n=$(wc -l < "$root/README.md")
: > "$t/out"
short_enough "$root/README.md" && ok "README.md has $n lines (at most $max)" || bad "README.md has $n lines (more than $max)"

echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
