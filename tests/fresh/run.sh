#!/bin/sh
# run.sh — the quick start on a fresh system: mmdebstrap makes a minimal
# Debian root file system (variant minbase), a person's first line puts make
# and git in it, a clean git clone of this commit goes into /root/hspmv with
# nothing beside it (no sibling folders), and there, as root in a chroot, `make run`
# is run once and then `make test TEST_STOP_AFTER_BUILD=1` once (make test's
# dependency and build steps, stopping before the suites). Either needing a
# second try is a failure; so is a package that deps.sh still finds missing
# afterwards. Records "P F S" like tests/run.sh and each step's seconds in
# RESULTS.steps (make test's summary shows them).
#   run.sh [--record FILE] [--keep]     (root only; else SKIPPED)
# FRESH_SUITE (default bookworm), FRESH_MIRROR (default
# http://deb.debian.org/debian), FRESH_COMPONENTS (default main; Ubuntu 24.04:
# FRESH_SUITE=noble FRESH_MIRROR=http://archive.ubuntu.com/ubuntu
# FRESH_COMPONENTS=main,universe, with ubuntu-keyring installed), FRESH_DIR (a new or empty folder; default
# one made under /var/tmp),
# --keep leaves the root file system there. The host's downloaded packages
# (/var/cache/apt/archives/*.deb) are hard-linked into the new system's apt
# cache (same file system) or copied, so apt fetches only what the host has
# not; every mount this script makes is unmounted on every way out, before
# anything is removed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
record=""; keep=""
while [ $# -gt 0 ]; do
    case $1 in
        --record) record=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "usage: run.sh [--record FILE] [--keep]" >&2; exit 2 ;;
    esac
done
P=0; F=0; S=0
steps=""
finish() {
    if [ -n "$record" ]; then
        mkdir -p "$(dirname "$record")"; echo "$P $F $S" > "$record"; printf '%s\n' "$steps" | sed '/^$/d' > "$record.steps"
    fi
    echo "fresh: $P passed, $F failed, $S skipped"
    [ -n "$record" ] || [ "$F" -eq 0 ]
    exit $?
}
pass() { P=$((P + 1)); echo "ok   $1"; }
fail() { F=$((F + 1)); echo "FAIL $1"; }
# mark; ...; step NAME: the seconds since the mark, wall and CPU (this
# script's children: the chroot's processes), for the summary
# (`times` runs in this shell: in a $(...) it would see no children)
cpu_sum() { awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } printf "%.0f", s }' "$base/times"; }
mark() { t=$(date +%s); times > "$base/times"; c=$(cpu_sum); }
step() { secs=$(($(date +%s) - t)); times > "$base/times"; cpu=$(($(cpu_sum) - c)); steps="$steps
$1 $secs $cpu"; }

suite=${FRESH_SUITE:-bookworm}
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
components=${FRESH_COMPONENTS:-main}
[ "$(id -u)" = 0 ] || { S=1; echo "fresh: SKIPPED: not root (mmdebstrap and chroot need root)"; finish; }
for c in mmdebstrap git chroot mount umount; do
    command -v $c > /dev/null 2>&1 || { F=1; echo "FAIL fresh: $c not found (Debian: apt-get install mmdebstrap git)"; finish; }
done
commit=$(git -C "$root" rev-parse HEAD 2> /dev/null) || { S=1; echo "fresh: SKIPPED: $root is not a git checkout"; finish; }
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2> /dev/null)" ]; then
    echo "fresh: note: the tree has uncommitted changes; the fresh system gets commit $(git -C "$root" rev-parse --short HEAD) without them"
fi

base=${FRESH_DIR:-$(mktemp -d /var/tmp/hspmv-fresh.XXXXXX)} || { F=1; echo "FAIL fresh: mktemp"; finish; }
mkdir -p "$base/root"
base=$(cd "$base" && pwd -P)   # as /proc/mounts names it
fs=$base/root
# the mounts under $fs, deepest first, and whether any is left
mounts_under() { awk -v d="$fs" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r; }
unmount_all() {
    for m in $(mounts_under); do umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null; done
    [ -z "$(mounts_under)" ]
}
# processes this test left running in the chroot (a daemon a package started)
stop_inside() {
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2> /dev/null)" = "$fs" ] && kill -9 "${p#/proc/}" 2> /dev/null
    done
    return 0
}
cleanup() {
    trap - EXIT INT TERM
    stop_inside
    if ! unmount_all; then
        echo "fresh: still mounted, $base NOT removed:"; mounts_under
    elif [ -n "$keep" ]; then echo "fresh: kept $fs"
    else rm -rf --one-file-system "$base"; fi
}
trap cleanup EXIT
trap 'echo "fresh: interrupted"; F=$((F + 1)); cleanup; finish' INT TERM
mark; t_all=$t c_all=$c

# 1. the minimal system, with the host's packages in its apt cache
debs=/var/cache/apt/archives
link_debs() { # link_debs DIR: the host's .deb files into DIR (hard links, else copies)
    mkdir -p "$1"
    ls "$debs"/*.deb > /dev/null 2>&1 || return 0
    cp -l "$debs"/*.deb "$1"/ 2> /dev/null || cp "$debs"/*.deb "$1"/ 2> /dev/null || true
}
echo "fresh: mmdebstrap --variant=minbase $suite into $fs (mirror $mirror)"
mark
if mmdebstrap --variant=minbase --mode=root --components="$components" \
       --setup-hook="mkdir -p \"\$1$debs\" && { cp -l $debs/*.deb \"\$1$debs/\" 2> /dev/null || cp $debs/*.deb \"\$1$debs/\" 2> /dev/null || true; }" \
       "$suite" "$fs" "$mirror" > "$base/mmdebstrap.log" 2>&1; then
    step mmdebstrap
    pass "mmdebstrap --variant=minbase $suite ($secs s, CPU $cpu s)"
else
    tail -20 "$base/mmdebstrap.log"; fail "mmdebstrap --variant=minbase $suite"; finish
fi
link_debs "$fs$debs"
# the services that packages start (munge, slurmd) are not started in the chroot
printf '#!/bin/sh\nexit 101\n' > "$fs/usr/sbin/policy-rc.d" && chmod 755 "$fs/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$fs/etc/resolv.conf" 2> /dev/null || true
mount -t proc proc "$fs/proc" && mount -t sysfs sys "$fs/sys" && mount --bind /dev "$fs/dev" &&
    mount --bind /dev/pts "$fs/dev/pts" && mount -t tmpfs tmp "$fs/dev/shm" ||
    { fail "mounting /proc, /sys, /dev in $fs"; finish; }
# in_fresh CMD: runs CMD in the chroot as root with a login's bare environment
in_fresh() {
    env -i HOME=/root TERM=dumb LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        chroot "$fs" sh -c "$1"
}

# 2. what a person types first: make and git (the README's line before the quick start)
mark
if in_fresh 'export DEBIAN_FRONTEND=noninteractive; apt-get update -q && apt-get install -y -q --no-install-recommends make git ca-certificates' \
       > "$base/make-git.log" 2>&1; then
    step apt-get-make-git
    pass "apt-get install make git ($secs s, CPU $cpu s)"
else tail -20 "$base/make-git.log"; fail "apt-get install make git in the fresh system"; finish; fi

# 3. a clean clone of this commit, nothing beside it
if git clone -q --no-hardlinks "$root" "$fs/root/hspmv" > "$base/clone.log" 2>&1 &&
   git -C "$fs/root/hspmv" checkout -q "$commit" >> "$base/clone.log" 2>&1 &&
   [ "$(ls "$fs/root")" = hspmv ]; then
    pass "git clone of $(git -C "$root" rev-parse --short HEAD) into /root/hspmv, alone in /root"
else cat "$base/clone.log"; fail "git clone into the fresh system"; finish; fi

# 4. the quick start, each command once
mark
in_fresh 'cd /root/hspmv && make run' > "$base/make-run.log" 2>&1
rc=$?
step make-run
if [ $rc = 0 ] && grep -q 'deps: installing' "$base/make-run.log"; then
    pass "make run, first try, installing its packages itself: exit 0 in $secs s (CPU $cpu s)"
else
    tail -30 "$base/make-run.log"
    fail "make run on the first try (exit $rc after $secs s)"
fi
grep -E '^deps: ' "$base/make-run.log" | sed 's/^/   /'
mark
in_fresh 'cd /root/hspmv && make test TEST_STOP_AFTER_BUILD=1' > "$base/make-test.log" 2>&1
rc=$?
step make-test-build
if [ $rc = 0 ] && grep -q 'stopping after the build' "$base/make-test.log"; then
    pass "make test TEST_STOP_AFTER_BUILD=1 (dependencies and build), first try: exit 0 in $secs s (CPU $cpu s)"
else
    tail -30 "$base/make-test.log"
    fail "make test's dependency and build steps on the first try (exit $rc after $secs s)"
fi
grep -E '^deps: ' "$base/make-test.log" | sed 's/^/   /'
# nothing that make test uses is missing now (no suite would skip for a package)
if in_fresh 'cd /root/hspmv && sh scripts/deps.sh --missing test' > "$base/deps.log" 2>&1 && [ ! -s "$base/deps.log" ]; then
    pass "deps.sh test finds every package of make test's suites in place"
else cat "$base/deps.log"; fail "deps.sh test still finds packages missing"; fi
t=$t_all c=$c_all; step total
echo "fresh: logs in $base (removed unless --keep)"
finish
