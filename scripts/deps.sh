#!/bin/sh
# deps.sh — checks that what the build needs is present by its headers, libraries
# and tools (not by package names, so it works on any distribution), and on
# Debian/Ubuntu as root installs what is missing; otherwise prints the command.
#   deps.sh build   compiler, OpenMP, zlib, MPI, METIS
#   deps.sh test    + aarch64 cross compiler and qemu-aarch64 (NEON tests)
#   deps.sh fuzz    + clang with libFuzzer
#   deps.sh plot    python3 with matplotlib (scripts/plot)
# At the test level CMake, matplotlib and the Python package's Debian
# packages are optional (their tests report themselves skipped): installed
# as root, named otherwise; PETSc (the petsc-shell example's tests) and
# Slurm (tests/slurm) are only named.
# HSPMV_SKIP_DEPS=1 skips every check.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
level=${1:-build}
[ "${HSPMV_SKIP_DEPS:-0}" = 1 ] && exit 0
CC=${CC:-cc}
MPICC=${MPICC:-mpicc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
missing=""
optional=""
need() { missing="$missing $*"; }
want() { optional="$optional $*"; }   # packages whose tests are skipped without them

try_c() { # try_c "includes/main body" "link flags" [compiler]
    printf '%s\n' "$1" > "$tmp/t.c"
    ${3:-$CC} "$tmp/t.c" -o "$tmp/t" $2 >/dev/null 2>&1
}

# python3 that imports matplotlib: the first python3 on PATH or the system's
have_matplotlib() {
    for py in python3 /usr/bin/python3; do
        command -v "$py" >/dev/null 2>&1 && "$py" -c 'import matplotlib' >/dev/null 2>&1 && return 0
    done
    return 1
}
have_scipy() {
    for py in /usr/bin/python3 python3; do
        command -v "$py" >/dev/null 2>&1 && "$py" -c 'import numpy, scipy.sparse.linalg' >/dev/null 2>&1 && return 0
    done
    return 1
}
have_petsc() {
    [ -n "${PETSC_DIR:-}" ] && [ -f "$PETSC_DIR/${PETSC_ARCH:-}/include/petscconf.h" ] && return 0
    pkg-config --exists PETSc 2>/dev/null || pkg-config --exists petsc 2>/dev/null
}

check() {
    if [ "$level" = plot ]; then
        have_matplotlib || need python3-matplotlib
        return
    fi
    command -v make >/dev/null 2>&1 && try_c 'int main(void){return 0;}' '' || need build-essential
    try_c '#include <omp.h>
int main(void){return omp_get_max_threads() < 1;}' '-fopenmp' || need libgomp1
    try_c '#include <zlib.h>
int main(void){return zlibVersion() == 0;}' '-lz' || need zlib1g-dev
    { command -v "$MPICC" >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 &&
      try_c '#include <mpi.h>
int main(int c, char **v){MPI_Init(&c,&v);MPI_Finalize();return 0;}' '' "$MPICC"; } ||
        need libopenmpi-dev openmpi-bin
    try_c '#include <metis.h>
int main(void){idx_t o[METIS_NOPTIONS]; return METIS_SetDefaultOptions(o) != METIS_OK;}' '-lmetis' ||
        need libmetis-dev
    command -v pkg-config >/dev/null 2>&1 || need pkg-config
    if [ "$level" = test ] || [ "$level" = fuzz ]; then
        command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need gcc-aarch64-linux-gnu libc6-dev-arm64-cross
        command -v qemu-aarch64 >/dev/null 2>&1 || need qemu-user
    fi
    if [ "$level" = test ]; then
        command -v cmake >/dev/null 2>&1 || want cmake
        have_matplotlib || want python3-matplotlib
        # the Python package's tests (tests/python), with Debian's python3
        if [ -x /usr/bin/python3 ]; then
            /usr/bin/python3 -c 'import numpy, scipy, mpi4py, pytest, pip' >/dev/null 2>&1 &&
                [ -f "$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ] ||
                want python3-dev python3-numpy python3-scipy python3-mpi4py python3-pytest python3-pip
        fi
    fi
    if [ "$level" = fuzz ]; then
        { command -v clang >/dev/null 2>&1 &&
          try_c '#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n){(void)d;(void)n;return 0;}' '-fsanitize=fuzzer' clang; } ||
            need clang libclang-rt-dev
    fi
}

check
notes() { # what the tests will skip, and how to get it
    if [ "$level" = test ]; then
        have_petsc || echo "deps: note: PETSc not found (pkg-config PETSc, PETSC_DIR): the petsc-shell example is not tested (Debian: apt-get install petsc-dev)" >&2
        command -v slurmd >/dev/null 2>&1 || echo "deps: note: Slurm not found: tests/slurm is skipped (Debian: apt-get install slurmctld slurmd slurm-client munge; it runs as root)" >&2
    fi
    return 0
}
if [ -n "$optional" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    missing="$missing $optional"
    optional=""
elif [ -n "$optional" ]; then
    echo "deps: optional, not found:$optional (their tests are skipped; sudo apt-get install -y --no-install-recommends$optional)" >&2
fi
[ -z "$missing" ] && { notes; exit 0; }
pkgs=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends $pkgs >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends $pkgs >/dev/null; } ||
        { echo "deps: apt-get install $pkgs failed" >&2; exit 1; }
    missing=""
    optional=""
    check
    missing="$missing$optional"
    [ -z "$missing" ] && { notes; exit 0; }
    echo "deps: still missing after install:$missing" >&2
    exit 1
fi
echo "deps: missing:$missing" >&2
echo "deps: install them with:  sudo apt-get install -y --no-install-recommends $pkgs" >&2
echo "deps: (or point CPATH/LIBRARY_PATH at your own copies; HSPMV_SKIP_DEPS=1 skips this check)" >&2
exit 1
