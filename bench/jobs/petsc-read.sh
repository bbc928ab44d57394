#!/bin/bash
# petsc-read.sh — the PETSc binary read at 16 ranks: a real-valued matrix of
# more than 1 GB of text (genmat lap3d N --values random; N=200: 8M rows,
# 55.8M entries), converted once to PETSc binary (about 0.7 GB), the file
# warmed into the page cache before each run, then benchmark-mpi at 16 ranks
# x 1 thread reading it with MPI-IO, each rank its own rows (collective
# reads), PASSES passes; in the first pass also, for comparison, rank 0's
# read of the .mtx text. The figure to watch: read_gbs (file bytes / the
# slowest rank's read time), 2 GB/s or more from the page cache.
#   bench/jobs/petsc-read.sh [PASSES=5] [N=200]
# Runs on the 16-core machine, from the repository root; needs what
# bench/jobs/job-env.sh says (Open MPI; the build it makes). Results under
# $OUT (default results/scaling): petsc-read.txt; one line per run and the
# median read_gbs on stdout. The matrices stay in /tmp/m.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
PASSES=${1:-5}
N=${2:-200}
. bench/jobs/job-env.sh
D=/tmp/m; mkdir -p $D
M=$D/lap3d_${N}_rand.mtx
B=$D/lap3d_${N}_rand.petsc
R=$OUT/petsc-read.txt
[ -s $M ] || ./genmat lap3d $N --values random -o $M
./convert $M $B | tee -a $R
ls -l $M $B >> $R
echo "gen+convert done t=$((SECONDS-T0))"
MPI="mpirun --bind-to core --map-by core"
run() { # label, then the benchmark command
  local label=$1; shift
  cat $B > /dev/null  # the page cache
  env OMP_NUM_THREADS=1 "$@" 2>&1 | grep "^bench=mpi" | sed "s/^/$label /" >> $R
}
for pass in $(seq $PASSES); do
  run "petsc" timeout 300 $MPI -n 16 ./benchmark-mpi $B --reps 10 --threads 1
  [ $pass = 1 ] && run "mtx-root" timeout 900 $MPI -n 16 ./benchmark-mpi $M --reps 10 --threads 1
  echo "pass $pass t=$((SECONDS-T0))"
done
echo "total t=$((SECONDS-T0))"
# one line per run, then the median read_gbs of the PETSc reads
grep " bench=mpi" $R | grep -oE "^[a-z-]+|read=[a-z-]+|read_s=[0-9.]+|read_gbs=[0-9.]+|distribute_s=[0-9.]+|peak_mb_root=[0-9.]+|peak_mb_others=[0-9.]+|violations=[0-9]+" \
  | paste -s -d' ' | sed 's/ \(petsc\|mtx-root\)/\n\1/g'; echo
grep "^petsc bench" $R | grep -oE "read_gbs=[0-9.]+" | cut -d= -f2 | sort -g \
  | awk '{v[NR]=$1} END {if (NR) printf "petsc: median read_gbs %.3f over %d runs (min %.3f, max %.3f)\n", (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2), NR, v[1], v[NR]}'
