#!/bin/sh
# deps.sh — checks that what the build (or the tests) need is present, each
# Debian package by what it provides (a header that compiles, a tool, a
# Python module), and on Debian/Ubuntu as root installs the missing ones in
# one apt-get step and checks them again by the same names; otherwise it
# prints the apt-get command and stops (the checks are by headers, libraries
# and tools, so another distribution passes with its own packages).
#   deps.sh build   compiler, OpenMP, zlib, MPI, METIS, pkg-config
#   deps.sh test    + what make test's suites use: the aarch64 cross compiler
#                   and qemu-aarch64 (NEON tests), CMake, matplotlib, the
#                   Python package's NumPy, SciPy, mpi4py, pytest, pip, venv,
#                   PETSc, Slurm with munge, and git with mmdebstrap (test-fresh)
#   deps.sh fresh   git and mmdebstrap alone (make test-fresh)
#   deps.sh fuzz    + clang with libFuzzer
#   deps.sh plot    python3 with matplotlib (scripts/plot)
#   deps.sh --list LEVEL      the level's packages, one a line
#   deps.sh --missing LEVEL   those not found, one a line (exit 1 if any); installs nothing
# Without root the test level's extras (whose suites report themselves
# skipped without them) are only named; what build needs stops it.
# HSPMV_SKIP_DEPS=1 skips every check.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
mode=""
case ${1:-} in --list|--missing) mode=$1; shift ;; esac
level=${1:-build}
case $level in build|test|fresh|fuzz|plot) ;; *) echo "deps: unknown level '$level' (build, test, fresh, fuzz, plot)" >&2; exit 2 ;; esac
[ -z "$mode" ] && [ "${HSPMV_SKIP_DEPS:-0}" = 1 ] && exit 0
CC=${CC:-cc}
MPICC=${MPICC:-mpicc}
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

try_c() { # try_c "source" "link flags" [compiler]
    printf '%s\n' "$1" > "$tmp/t.c"
    ${3:-$CC} "$tmp/t.c" -o "$tmp/t" $2 > /dev/null 2>&1
}
py() { [ -x "$PY" ] && "$PY" -c "$1" > /dev/null 2>&1; }
have() { command -v "$1" > /dev/null 2>&1; }

# has PACKAGE: whether what PACKAGE provides is here. Each test stands
# alone (it needs nothing that another package of the list brings and it
# does not check), so the same test answers before and after the install.
has() {
    case $1 in
    build-essential) have make && try_c 'int main(void){return 0;}' '' ;;
    libgomp1) try_c '#include <omp.h>
int main(void){return omp_get_max_threads() < 1;}' '-fopenmp' ;;
    zlib1g-dev) try_c '#include <zlib.h>
int main(void){return zlibVersion() == 0;}' '-lz' ;;
    openmpi-bin) have mpirun ;;
    libopenmpi-dev) have "$MPICC" && try_c '#include <mpi.h>
int main(int c, char **v){MPI_Init(&c,&v);MPI_Finalize();return 0;}' '' "$MPICC" ;;
    libmetis-dev) try_c '#include <metis.h>
int main(void){idx_t o[METIS_NOPTIONS]; return METIS_SetDefaultOptions(o) != METIS_OK;}' '-lmetis' ;;
    pkg-config) have pkg-config ;;
    gcc-aarch64-linux-gnu) have aarch64-linux-gnu-gcc ;;
    libc6-dev-arm64-cross) [ -f /usr/aarch64-linux-gnu/include/stdio.h ] ;;
    qemu-user) have qemu-aarch64 ;;
    cmake) have cmake ;;
    python3-matplotlib) py 'import matplotlib' ;;
    python3-dev) py 'import sysconfig, os, sys; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ;;
    python3-numpy) py 'import numpy' ;;
    python3-scipy) py 'import scipy.sparse.linalg' ;;
    python3-mpi4py) py 'import mpi4py' ;;
    python3-pytest) py 'import pytest' ;;
    python3-pip) py 'import pip' ;;
    python3-setuptools) py 'import setuptools' ;;
    python3-venv) py 'import ensurepip' ;;   # Debian keeps ensurepip (python3 -m venv's pip) here
    petsc-dev) { [ -n "${PETSC_DIR:-}" ] && [ -f "$PETSC_DIR/${PETSC_ARCH:-}/include/petscconf.h" ]; } ||
               pkg-config --exists PETSc 2> /dev/null || pkg-config --exists petsc 2> /dev/null ;;
    slurmctld) have slurmctld ;;
    slurmd) have slurmd ;;
    slurm-client) have sbatch && have srun && have salloc ;;
    munge) have munged && have munge ;;
    git) have git ;;
    mmdebstrap) have mmdebstrap ;;
    clang) have clang ;;
    libclang-rt-dev) have clang && try_c '#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n){(void)d;(void)n;return 0;}' '-fsanitize=fuzzer' clang ;;
    *) echo "deps: no check for $1" >&2; return 1 ;;
    esac
}

# The one list: what each level needs (required: the build stops without
# it) and, at the test level, the extras whose suites skip without them.
BUILD_PKGS="build-essential libgomp1 zlib1g-dev openmpi-bin libopenmpi-dev libmetis-dev pkg-config"
FRESH_PKGS="git mmdebstrap"
TEST_PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"
TEST_EXTRA="cmake python3-matplotlib python3-dev python3-numpy python3-scipy python3-mpi4py python3-pytest
  python3-pip python3-setuptools python3-venv petsc-dev slurmctld slurmd slurm-client munge $FRESH_PKGS"
FUZZ_PKGS="clang libclang-rt-dev"
case $level in
    build) required=$BUILD_PKGS extra="" ;;
    test)  required="$BUILD_PKGS $TEST_PKGS" extra=$TEST_EXTRA ;;
    fresh) required=$FRESH_PKGS extra="" ;;
    fuzz)  required="$BUILD_PKGS $FUZZ_PKGS" extra="" ;;
    plot)  required=python3-matplotlib extra="" ;;
esac
[ "$mode" = --list ] && { echo $required $extra | tr ' ' '\n'; exit 0; }

missing() { for p in "$@"; do has "$p" || printf ' %s' "$p"; done; }
miss_req=$(missing $required)
miss_extra=$(missing $extra)
if [ "$mode" = --missing ]; then
    [ -z "$miss_req$miss_extra" ] && exit 0
    echo $miss_req $miss_extra | tr ' ' '\n'; exit 1
fi
[ -z "$miss_req$miss_extra" ] && exit 0

root=""; [ "$(id -u)" = 0 ] && have apt-get && root=1
if [ -z "$root" ]; then
    if [ -n "$miss_extra" ]; then
        echo "deps: not found:$miss_extra (the suites that use them report themselves skipped)" >&2
        echo "deps: install them with:  sudo apt-get install -y --no-install-recommends$miss_extra" >&2
    fi
    [ -z "$miss_req" ] && exit 0
    echo "deps: missing:$miss_req" >&2
    echo "deps: install them with:  sudo apt-get install -y --no-install-recommends$miss_req" >&2
    echo "deps: (or point CPATH/LIBRARY_PATH at your own copies; HSPMV_SKIP_DEPS=1 skips this check)" >&2
    exit 1
fi

# Root on Debian/Ubuntu: one apt-get install of everything missing.
pkgs="$miss_req$miss_extra"
export DEBIAN_FRONTEND=noninteractive
apt="apt-get install -y -q --no-install-recommends$pkgs"
# how many packages that makes (with what they pull in); a system whose
# package lists are empty (a fresh image) gets them first
if ! apt-get install -s -q --no-install-recommends $pkgs > "$tmp/plan" 2>&1; then
    echo "deps: apt-get update (the package lists)" >&2
    apt-get update -q > "$tmp/update" 2>&1 || { tail -5 "$tmp/update" >&2; echo "deps: apt-get update failed" >&2; exit 1; }
    apt-get install -s -q --no-install-recommends $pkgs > "$tmp/plan" 2>&1 ||
        { grep -E '^E:' "$tmp/plan" >&2; echo "deps: $apt cannot be done" >&2; exit 1; }
fi
n=$(grep -c '^Inst ' "$tmp/plan")
echo "deps: installing$pkgs" >&2
echo "deps: $apt: $n packages with what they need; a minute or a few (progress every 10 s)" >&2
apt-get install -y -q --no-install-recommends -o Dpkg::Use-Pty=0 $pkgs > "$tmp/apt" 2>&1 &
pid=$!
# progress: packages fetched and set up, every 10 s while apt-get runs
last=""
while kill -0 $pid 2> /dev/null; do
    i=0
    while [ $i -lt 20 ] && kill -0 $pid 2> /dev/null; do sleep 0.5; i=$((i + 1)); done
    kill -0 $pid 2> /dev/null || break
    now="$(grep -c '^Get:' "$tmp/apt") fetched, $(grep -c '^Unpacking ' "$tmp/apt") unpacked, $(grep -c '^Setting up ' "$tmp/apt") set up of $n"
    [ "$now" != "$last" ] && echo "deps: $now" >&2
    last=$now
done
wait $pid
rc=$?
if [ $rc != 0 ]; then
    tail -20 "$tmp/apt" >&2
    echo "deps: $apt failed (exit $rc)" >&2
    exit 1
fi
echo "deps: $(grep -c '^Setting up ' "$tmp/apt") packages set up" >&2
# the same names, checked again by what they provide
still=$(missing $pkgs)
[ -z "$still" ] && exit 0
echo "deps: installed, but still not working:$still" >&2
exit 1
