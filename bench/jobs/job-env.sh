#!/bin/bash
# job-env.sh — the setup the 16-core measurement jobs of bench/jobs source
# (`. bench/jobs/job-env.sh`, from the repository root): Open MPI allowed to
# run as root, OpenMP's default wait policy, the build (make -j16 programs,
# without METIS or zlib where their headers are missing),
# the peers' naive OpenMP CSR loop built as /tmp/naive, a note of the machine
# in $OUT/sys.txt; sets T0 (start, seconds), R (.dev/root/usr), OUT (default
# results/scaling), D (/tmp/m) and gen_mats NAME... (makes the named
# matrices missing from $D, in parallel: l3r = genmat lap3d 200 --values
# random, l3 = lap3d 200 (two values), rnd = random 4000000 --k 8,
# pwl = powerlaw 4000000 --k 8, l27 = lap3d27 150 --values random, rndv =
# random 4000000 --k 8 --values random).
# Needs, all in .dev (which git ignores): the SpMV peer baselines (a naive
# OpenMP CSR driver naive_csr.c with its Matrix Market reader in common/,
# and librsb's driver rsb_spmv.c; not part of hspmv) copied into .dev/peers; METIS .debs unpacked into
# .dev/root where the machine has no -dev package; librsb's libraries and
# its driver rsb_spmv (built in the peers folder: make build/rsb_spmv) in
# .dev/rsb, for the jobs that time librsb.
case ${1:-} in -h|--help) [ "${BASH_SOURCE[0]}" = "$0" ] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0; } ;; esac
OUT=${OUT:-results/scaling}; mkdir -p $OUT
# OpenMP's default wait policy, as users run: OMP_WAIT_POLICY=passive made
# benchmark-omp on the real-valued lap3d 200 slower (6.00 and 6.16 ms against
# 4.51 and 5.51 unset, one job): each region woke sleeping threads.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset OMP_WAIT_POLICY
R=$PWD/.dev/root/usr
export CPATH=$R/include LIBRARY_PATH=$R/lib/x86_64-linux-gnu LD_LIBRARY_PATH=$R/lib/x86_64-linux-gnu:$PWD/.dev/rsb
T0=$SECONDS
{ nproc; lscpu | grep -E 'Model name|^L3|Socket|NUMA node\(s\)'; mpirun --version | head -1; } > $OUT/sys.txt 2>&1
# without METIS or zlib where neither the machine nor .dev/root has the header
without=""; echo '#include <metis.h>' | cc -E - >/dev/null 2>&1 || without="NO_METIS=1"
echo '#include <zlib.h>' | cc -E - >/dev/null 2>&1 || without="$without NO_ZLIB=1"
make -j16 HSPMV_SKIP_DEPS=1 $without programs > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
gcc -O3 -march=native -fopenmp -I.dev/peers -o /tmp/naive .dev/peers/naive_csr.c .dev/peers/common/mm_csr.c || echo "naive build failed"
# The jobs' generated matrices in /tmp/m, by short name (all real-valued
# but l3): gen_mats NAME... makes those missing, in parallel.
D=/tmp/m; mkdir -p $D
declare -A GEN=([l3r]="lap3d 200 --values random" [l3]="lap3d 200" [rnd]="random 4000000 --k 8" [pwl]="powerlaw 4000000 --k 8"
         [l27]="lap3d27 150 --values random" [rndv]="random 4000000 --k 8 --values random")
gen_mats() {
  for m in "$@"; do [ -s $D/$m.mtx ] || timeout 200 ./genmat ${GEN[$m]} -o $D/$m.mtx > /dev/null & done; wait
  echo "gen done t=$((SECONDS-T0))"
}
