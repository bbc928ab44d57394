#!/bin/bash
# petsc-read-job.sh — issue 14's PETSc target on the 16-core machine: a real-valued
# matrix of more than 1 GB of text (genmat lap3d 200 --values random: 8M rows, 55.8M
# entries), converted once to PETSc binary (about 0.7 GB), the file warmed into the
# page cache, then benchmark-mpi at 16 ranks x 1 thread reading it with MPI-IO, each
# rank its own rows: collective (MPI_File_read_at_all, the default) and independent
# (HSPMV_MPIIO=independent) reads, PASSES passes each; in the first pass also other
# piece sizes and, for comparison, the root read of the .mtx text. Target: read_gbs
# (file bytes / the slowest rank's read time) of at least 2. Needs what
# scripts/job-env.sh says; run from the repository root; results under $OUT.
#   scripts/petsc-read-job.sh [PASSES=5] [N=200]
set -u
PASSES=${1:-5}
N=${2:-200}
. scripts/job-env.sh
D=/tmp/m; mkdir -p $D
M=$D/lap3d_${N}_rand.mtx
B=$D/lap3d_${N}_rand.petsc
R=$OUT/petsc-read.txt
[ -s $M ] || ./genmat lap3d $N --values random -o $M
./convert $M $B | tee -a $R
ls -l $M $B >> $R
echo "gen+convert done t=$((SECONDS-T0))"
MPI="mpirun --bind-to core --map-by core"
run() { # label, then the environment and benchmark arguments
  local label=$1; shift
  cat $B > /dev/null  # the page cache, as the target says
  env OMP_NUM_THREADS=1 "$@" 2>&1 | grep "^bench=mpi" | sed "s/^/$label /" >> $R
}
for pass in $(seq $PASSES); do
  for mode in collective independent; do
    run "mpiio=$mode" HSPMV_MPIIO=$mode timeout 300 $MPI -n 16 ./benchmark-mpi $B --reps 10 --threads 1
  done
  if [ $pass = 1 ]; then
    for piece in 1048576 67108864; do  # the staging piece (default 8 MiB)
      run "mpiio=collective piece=$piece" HSPMV_IO_PIECE=$piece timeout 300 $MPI -n 16 ./benchmark-mpi $B --reps 10 --threads 1
    done
    run "mtx-root" timeout 900 $MPI -n 16 ./benchmark-mpi $M --reps 10 --threads 1
  fi
  echo "pass $pass t=$((SECONDS-T0))"
done
echo "total t=$((SECONDS-T0))"
# one line per run, then the median read_gbs of each kind
grep " bench=mpi" $R | grep -oE "^[a-z=-]+( piece=[0-9]+)?|read=[a-z-]+|read_s=[0-9.]+|read_gbs=[0-9.]+|distribute_s=[0-9.]+|peak_mb_root=[0-9.]+|peak_mb_others=[0-9.]+|violations=[0-9]+" \
  | paste -s -d' ' | sed 's/ \(mpiio=\|mtx-root\)/\n\1/g'; echo
for k in "mpiio=collective" "mpiio=independent"; do
  grep "^$k bench" $R | grep -oE "read_gbs=[0-9.]+" | cut -d= -f2 | sort -g \
    | awk -v k="$k" '{v[NR]=$1} END {if (NR) printf "%s: median read_gbs %.3f over %d runs (min %.3f, max %.3f)\n", k, (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2), NR, v[1], v[NR]}'
done
