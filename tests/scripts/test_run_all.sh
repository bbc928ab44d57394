#!/bin/sh
# test_run_all.sh — run_all-mpi.sh and run_all-omp.sh as a hostile user drives
# them: bad rank and thread counts, CSV files that cannot be written (refused
# before anything runs, with the reason, non-zero exit), launcher failures
# (one clear message, not one per matrix), the Slurm launcher line (fake srun),
# and tables that never show one format's time under another's name; then the
# real programs once. Ends with "N passed, N failed, N skipped".
#   HSPMV_BUILD=build/x86_64-double sh tests/scripts/test_run_all.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${HSPMV_BUILD:-}
case $build in ''|/*) ;; *) build=$root/$build ;; esac
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -f "$t/out" ] && sed 's/^/    /' "$t/out" | head -20; }
skip() { S=$((S + 1)); echo "skip $1"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
# no Slurm around the tests unless a test sets it
unset SLURM_JOB_ID SLURM_STEP_ID SLURM_NTASKS SLURM_CPUS_PER_TASK SLURM_JOB_CPUS_PER_NODE SRUN MPIRUN

mkdir mats empty
cp "$root/matrices/lap2d_64.mtx" "$root/matrices/lap3d_12.mtx" mats/
nmats=2

# A fake launcher: records each call in calls, answers like benchmark-mpi
# (or with FAKE_OUT's text and FAKE_RC), prints its arguments.
cat > launcher <<'EOF'
#!/bin/sh
echo "$*" >> "$(dirname "$0")/calls"
echo "OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}" >> "$(dirname "$0")/calls"
if [ "${1:-}" = --help ]; then echo "  --overlap   share CPUs with other steps"; exit 0; fi
if [ -n "${FAKE_OUT:-}" ]; then echo "$FAKE_OUT"; exit "${FAKE_RC:-1}"; fi
for a in "$@"; do case $a in *lap3d*) [ -n "${FAKE_FAIL_LAP3D:-}" ] && { echo "benchmark-mpi: error: lap3d is bad"; exit 1; } ;; esac; done
echo "bench=mpi matrix=x precision=double ranks=2 threads=1 partition=nnz rows=10 cols=10 nnz=28 imbalance=1.0000 halo_bytes=16 reps=5 median_ms=0.5 min_ms=0.4 max_ms=0.6 gflops=1 gbs=2 triad_gbs=0.00 wait_share=0.1 max_rel=1e-17 violations=0"
EOF
chmod +x launcher
printf '#!/bin/sh\nexit 0\n' > prog
chmod +x prog
calls() { if [ -f calls ]; then grep -c . calls; else echo 0; fi; }
mpi() { rm -f calls; MPIRUN=./launcher sh "$root/run_all-mpi.sh" "$@" > out 2>&1; }

# --- run_all-mpi.sh: rank counts -------------------------------------------
for r in 0 00 abc -1 1e3 2x "" 99999999999 " 2"; do
    mpi ./prog "$r" mats
    rc=$?
    check "run_all-mpi refuses ranks '$r' (exit 2, a message, nothing launched)" \
        test "$rc" = 2 -a "$(calls)" = 0 -a -n "$(grep 'RANKS\|ranks' out)"
done
mpi benchmark-mpi 0
check "run_all-mpi benchmark-mpi 0 is refused before the program is looked up" \
    test $? = 2 -a "$(grep -c 'RANKS must be 1 or more, not 0' out)" = 1
cores=$(nproc)
rm -f calls
sh "$root/run_all-mpi.sh" ./prog $((64 * cores + 1)) mats > out 2>&1
check "run_all-mpi refuses more than 64 ranks per core with plain mpirun" test $? = 2 -a -n "$(grep 'per core' out)"
mpi ./prog auto mats
check "run_all-mpi auto outside Slurm is one rank per core" grep -q -- "-n $cores " calls
# plain mpirun (a fake one first on PATH): a hybrid rank gets T cores of its own
mkdir fakebin && cp launcher fakebin/mpirun
rm -f fakebin/calls
PATH="$t/fakebin:$PATH" OMP_NUM_THREADS=$cores sh "$root/run_all-mpi.sh" ./prog 1 mats > out 2>&1
check "run_all-mpi 1 rank x $cores threads outside Slurm: mpirun --map-by slot:PE=$cores --bind-to core" \
    grep -q -- "-n 1 --map-by slot:PE=$cores --bind-to core" fakebin/calls
rm -f fakebin/calls
PATH="$t/fakebin:$PATH" OMP_NUM_THREADS=2 sh "$root/run_all-mpi.sh" ./prog $cores mats > out 2>&1
check "run_all-mpi $cores ranks x 2 threads on $cores cores: --oversubscribe --bind-to none" \
    grep -q -- "-n $cores --oversubscribe --bind-to none" fakebin/calls

# --- run_all-mpi.sh: CSV files that cannot be written -----------------------
mkdir ro
mpi ./prog 2 mats --csv "$t/no/such/dir/r.csv"
check "run_all-mpi --csv in a missing folder: exit 2, strerror, nothing launched" \
    test $? = 2 -a "$(calls)" = 0 -a -n "$(grep "cannot write the CSV file .*No such file or directory" out)"
mpi ./prog 2 mats --csv /dev/full
check "run_all-mpi --csv /dev/full: exit 2, 'No space left on device', nothing launched" \
    test $? = 2 -a "$(calls)" = 0 -a -n "$(grep 'No space left on device' out)"
mpi ./prog 2 mats --csv ro
check "run_all-mpi --csv DIRECTORY: exit 2, 'Is a directory'" test $? = 2 -a "$(calls)" = 0 -a -n "$(grep 'Is a directory' out)"
echo "some,other,columns" > other.csv
mpi ./prog 2 mats --csv other.csv
check "run_all-mpi --csv onto a CSV with other columns is refused, the file kept" \
    test $? = 2 -a "$(calls)" = 0 -a "$(cat other.csv)" = "some,other,columns"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
    chmod 555 ro; chmod 755 "$t"; chmod 644 mats/*; chmod 755 mats launcher prog
    rm -f calls
    MPIRUN="$t/launcher" setpriv --reuid=65534 --regid=65534 --clear-groups \
        sh "$root/run_all-mpi.sh" "$t/prog" 2 "$t/mats" --csv "$t/ro/r.csv" > out 2>&1
    check "run_all-mpi --csv in a read-only folder (as nobody): exit 2, 'Permission denied'" \
        test $? = 2 -a "$(calls)" = 0 -a -n "$(grep 'Permission denied' out)"
elif [ "$(id -u)" != 0 ]; then
    chmod 555 ro
    mpi ./prog 2 mats --csv ro/r.csv
    check "run_all-mpi --csv in a read-only folder: exit 2, 'Permission denied'" \
        test $? = 2 -a "$(calls)" = 0 -a -n "$(grep 'Permission denied' out)"
else skip "run_all-mpi --csv in a read-only folder (root without setpriv)"; fi

# --- run_all-mpi.sh: a good run, a failing matrix, launcher failures ---------
mpi ./prog 2 mats --csv good.csv
rc=$?
check "run_all-mpi writes a header and one CSV row per matrix, says so, exit 0" \
    test $rc = 0 -a "$(grep -c . good.csv)" = $((nmats + 1)) -a -n "$(grep "csv: good.csv ($nmats rows" out)"
mpi ./prog 2 mats --csv good.csv
check "run_all-mpi appends to its own CSV (one header)" \
    test $? = 0 -a "$(grep -c . good.csv)" = $((2 * nmats + 1)) -a "$(grep -c '^bench,matrix,' good.csv)" = 1
rm -f calls
FAKE_FAIL_LAP3D=1 MPIRUN=./launcher sh "$root/run_all-mpi.sh" ./prog 2 mats > out 2>&1
check "run_all-mpi: a failing matrix is a failed row and exit 1, the others still run" \
    test $? = 1 -a -n "$(grep 'lap3d_12.mtx .*failed (exit 1): benchmark-mpi: error: lap3d is bad' out)" \
    -a -n "$(grep '^lap2d_64.mtx  *2 ' out)"
FAKE_OUT="mpirun was unable to launch the specified application" FAKE_RC=1 mpi ./prog 2 mats
check "run_all-mpi: a launcher failure stops at the first matrix with its reason (exit 1)" \
    test $? = 1 -a "$(grep -c 'benchmark\|prog' calls)" = 1 -a -n "$(grep 'mpirun could not start' out)"

# --- run_all-mpi.sh inside Slurm, with a fake srun ---------------------------
srun_() { rm -f calls; SLURM_JOB_ID=7 SRUN=./launcher "$@" sh "$root/run_all-mpi.sh" ./prog "$R" mats > out 2>&1; }
R=2; srun_ env -u OMP_NUM_THREADS SLURM_JOB_CPUS_PER_NODE=4 SLURM_NTASKS=2 SLURM_CPUS_PER_TASK=2
check "in Slurm: srun -n 2 --cpus-per-task=2 --cpu-bind=cores, OMP_NUM_THREADS=2, fails fast (-I)" \
    test -n "$(grep -- '^-n 2 --cpus-per-task=2 --cpu-bind=cores -I60 ' calls)" -a -n "$(grep '^OMP_NUM_THREADS=2$' calls)"
R=1; srun_ env -u SLURM_CPUS_PER_TASK OMP_NUM_THREADS=2 SLURM_JOB_CPUS_PER_NODE=4
check "in Slurm without a CPU count per task: OMP_NUM_THREADS=2 asks srun for 2 CPUs per rank" \
    test -n "$(grep -- '^-n 1 --cpus-per-task=2 --cpu-bind=cores ' calls)" -a -n "$(grep '^OMP_NUM_THREADS=2$' calls)"
R=3; srun_ env -u SLURM_CPUS_PER_TASK OMP_NUM_THREADS=2 SLURM_JOB_CPUS_PER_NODE=4
check "in Slurm: 3 ranks x OMP_NUM_THREADS=2 on 4 CPUs is refused before srun" \
    test "$(calls)" = 0 -a -n "$(grep 'hold 2 ranks of 2 CPUs' out)"
R=auto; srun_ env -u OMP_NUM_THREADS SLURM_JOB_CPUS_PER_NODE='8(x2)' SLURM_NTASKS=4 SLURM_CPUS_PER_TASK=4
check "in Slurm: auto is SLURM_NTASKS" grep -q -- '^-n 4 --cpus-per-task=4 ' calls
R=auto; srun_ env -u OMP_NUM_THREADS -u SLURM_NTASKS SLURM_JOB_CPUS_PER_NODE='8(x2),4'
check "in Slurm without a task count: auto is the allocation's CPUs (8(x2),4 = 20)" grep -q -- '^-n 20 --cpu-bind' calls
R=1; srun_ env -u OMP_NUM_THREADS SLURM_JOB_CPUS_PER_NODE=4 SLURM_STEP_ID=0 SLURM_NTASKS=1
check "in a job step: --overlap, and it says so" \
    test -n "$(grep -- '^-n 1 .*--overlap' calls)" -a -n "$(grep 'inside job step 7.0' out)"
R=auto; srun_ env -u OMP_NUM_THREADS SLURM_JOB_CPUS_PER_NODE=4 SLURM_STEP_ID=0 SLURM_NTASKS=1
check "in a job step: auto is the job's CPUs, not the step's task count" grep -q -- '^-n 4 ' calls
R=3; srun_ env SLURM_JOB_CPUS_PER_NODE=4 SLURM_NTASKS=2 SLURM_CPUS_PER_TASK=2
check "in Slurm: more ranks than the allocation holds is refused before srun" \
    test "$(calls)" = 0 -a -n "$(grep 'do not fit this Slurm allocation' out)"
R=2; srun_ env FAKE_OUT="The application appears to have been direct launched using \"srun\",
but OMPI was not built with SLURM's PMI support and therefore cannot" SLURM_JOB_CPUS_PER_NODE=2
check "in Slurm: Open MPI without PMI: one message naming SLURM_MPI_TYPE=pmix, exit 1, one launch" \
    test "$(grep -c 'prog' calls)" = 1 -a -n "$(grep 'export SLURM_MPI_TYPE=pmix' out)"
R=2; srun_ env FAKE_OUT="srun: error: Unable to create step for job 7: Requested nodes are busy" SLURM_JOB_CPUS_PER_NODE=2
check "in Slurm: a step that cannot start says why, exit 1, one launch" \
    test "$(grep -c 'prog' calls)" = 1 -a -n "$(grep 'could not start a job step' out)"

# --- every script answers --help: its usage on stdout, exit 0 ---------------
for f in run_all-omp.sh run_all-mpi.sh run_all-light.sh slurm/hspmv-flat.sbatch slurm/hspmv-hybrid.sbatch \
         slurm/hspmv-scaling.sbatch slurm/hspmv-gpu.sbatch; do
    sh "$root/$f" --help > out 2>&1
    check "sh $f --help: exit 0 and its usage" test $? = 0 -a -n "$(grep -m1 "^$(basename "$f") — " out)"
done
# and the run_all scripts --version: the tree's version from include/hspmv.h
ver=$(awk '/^#define HSPMV_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $3; s = "."} END {print v}' "$root/include/hspmv.h")
for f in run_all-omp.sh run_all-mpi.sh run_all-light.sh; do
    sh "$root/$f" --version > out 2>&1
    check "sh $f --version: exit 0, '$f hspmv $ver'" test $? = 0 -a "$(cat out)" = "$f hspmv $ver"
done

# --- run_all-omp.sh with a fake benchmark-omp -------------------------------
# FAKE_LINES is printed as the program's output; it records each call.
cat > fakeomp <<'EOF'
#!/bin/sh
echo "$*" >> "$(dirname "$0")/calls"
printf '%s\n' "$FAKE_LINES"
exit "${FAKE_RC:-0}"
EOF
chmod +x fakeomp
line() { # line THREADS ASKED FORMAT MEDIAN_MS [VIOLATIONS]
    echo "bench=omp matrix=m precision=double threads=$1 format=$3 asked=$2 isa=avx2 rows=10 cols=10 nnz=28 seg_ratio=0.5 reps=5 median_ms=$4 min_ms=$4 max_ms=$4 gflops=1.0 gbs=2.0 triad_gbs=4.0 frac_triad=0.5 max_rel=1e-17 avg_rel=1e-17 violations=${5:-0}"
}
omp() { rm -f calls; sh "$root/run_all-omp.sh" ./fakeomp "$@" > out 2>&1; }
row() { grep "^$1 " out; }   # the table row(s) of a matrix
# the seed's bug: no auto line; the old table put CSRL's time under "auto"
FAKE_LINES="$(line 1 csr csr 2.0)
$(line 1 csrl csrl 1.0)
$(line 1 bcoo bcoo 3.0)
$(line 1 csr16 csr16 1.5)" omp 1 mats
r=$(row lap2d_64.mtx)
# (a first argument of digits is THREADS, as run_all-mpi.sh takes RANKS)
if [ -x "$root/benchmark-omp" ]; then
    sh "$root/run_all-omp.sh" 2 mats --no-bw --reps 2 > out 2>&1
    check "run_all-omp 2: THREADS 2 with the default program" grep -q "^lap2d_64.mtx .* 2 auto" out
else skip "run_all-omp 2 (no benchmark-omp built)"; fi
check "run_all-omp without an auto line: no 'auto' label, the row is the fastest format's (csrl 1.0)" \
    test -n "$(echo "$r" | grep ' csrl  *1.0000 .* csrl  *1.0000 ')" -a -z "$(echo "$r" | grep auto)"
FAKE_LINES="$(line 2 csr csr 2.0)
$(line 2 csr16 csr16 1.5)
$(line 2 csrvi csrvi 2.5)
$(line 2 auto csrvi 3.0)" omp 2 mats
r=$(row lap2d_64.mtx)
check "run_all-omp: auto>csrvi shows the asked=auto line's 3.0, best csr16 1.5, ratio 0.500" \
    test -n "$(echo "$r" | grep ' auto>csrvi  *3.0000 .* csr16  *1.5000  *0.500  *ok')"
FAKE_LINES="$(line 1 auto csr 4.0)
$(line 1 csr csr 4.0)
$(line 2 auto csr16 1.0)
$(line 2 csr csr 2.0)
$(line 2 csr16 csr16 1.0)" omp 1,2 mats
check "run_all-omp: one row per thread count, each from its own lines" \
    test -n "$(grep '^lap2d_64.mtx .*  1 auto>csr  *4.0000 .* csr  *4.0000' out)" \
    -a -n "$(grep '^lap2d_64.mtx .*  2 auto>csr16  *1.0000 .* csr16  *1.0000' out)"
FAKE_LINES="$(line 1 csr csr 2.0 3)" omp 1 mats
check "run_all-omp: a line with violations is FAIL and exit 1" test $? = 1 -a -n "$(row lap2d_64.mtx | grep FAIL)"
for th in 0 abc 100000 1,,2 ,1; do
    FAKE_LINES="$(line 1 csr csr 2.0)" omp "$th" mats
    check "run_all-omp refuses threads '$th' (exit 2, nothing run)" test $? = 2 -a "$(calls)" = 0
done
FAKE_LINES="$(line 1 csr csr 2.0)" omp 1 mats --csv "$t/no/such/dir/o.csv"
check "run_all-omp --csv in a missing folder: exit 2, strerror, nothing measured, no 'csv:' line" \
    test $? = 2 -a "$(calls)" = 0 -a -n "$(grep 'No such file or directory' out)" -a -z "$(grep '^csv:' out)"
FAKE_LINES="$(line 1 csr csr 2.0)" omp 1 mats --csv /dev/full
check "run_all-omp --csv /dev/full: exit 2, 'No space left on device', nothing measured" \
    test $? = 2 -a "$(calls)" = 0 -a -n "$(grep 'No space left on device' out)" -a -z "$(grep '^csv:' out)"
FAKE_LINES="$(line 1 csr csr 2.0)
$(line 1 auto csr16 1.25)" omp 1 mats --csv o.csv
check "run_all-omp --csv: header + one row per line of the program, values from the lines" \
    test $? = 0 -a "$(grep -c . o.csv)" = $((2 * nmats + 1)) -a -n "$(grep "csv: o.csv ($((2 * nmats)) rows" out)" \
    -a "$(awk -F, '$8 == "auto" {print $7 "/" $17}' o.csv | sort -u)" = "csr16/1.25"

# best is the fastest of all that ran, auto included; in-cache instead of a
# fraction of the triad where the product's bytes fit in the last-level cache
FAKE_LINES="$(line 1 csr csr 2.0)
$(line 1 csr16 csr16 1.5)
$(line 1 auto csrvi 1.0)" omp 1 mats
check "run_all-omp: auto faster than every asked format is best (auto>csrvi 1.0, ratio 1.000)" \
    test -n "$(row lap2d_64.mtx | grep ' auto>csrvi  *1.0000 .* auto>csrvi  *1.0000  *1.000  *ok')"
FAKE_LINES="$(line 1 csr csr 2.0 | sed 's/ frac_triad=0.5 / frac_triad=3.08 in_cache=1 /')
$(line 1 csr16 csr16 4.0 | sed 's/ frac_triad=0.5 / frac_triad=0.5 in_cache=0 /')" omp 1 mats
check "run_all-omp: in_cache=1 shows in-cache and no percentage" \
    test -n "$(row lap2d_64.mtx | grep ' csr  *2.0000 .* in-cache ')" -a -z "$(row lap2d_64.mtx | grep '308')"
FAKE_LINES="$(line 1 csr16 csr16 4.0 | sed 's/ frac_triad=0.5 / frac_triad=0.5 in_cache=0 /')" omp 1 mats
check "run_all-omp: in_cache=0 shows the fraction of the triad (50.0%)" \
    test -n "$(row lap2d_64.mtx | grep ' 50.0% ')"
# an option neither run_all-omp.sh nor benchmark-omp knows: one usage error, exit 2, nothing run
for a in --bogus -x; do
    FAKE_LINES="$(line 1 csr csr 2.0)" omp 1 mats --reps 2 "$a"
    check "run_all-omp $a: exit 2, one 'unknown option' line and the usage, nothing run" \
        test $? = 2 -a "$(calls)" = 0 -a "$(grep -c "unknown option '$a'" out)" = 1 -a "$(grep -c '^usage: ' out)" = 1
done
sh "$root/run_all-omp.sh" --bogus > out 2>&1
check "run_all-omp --bogus (no program named): exit 2, one usage error" \
    test $? = 2 -a "$(grep -c "unknown option '--bogus'" out)" = 1 -a "$(grep -c . out)" = 2
FAKE_LINES="$(line 1 csr csr 2.0)" omp 1 mats --no-bw -- --custom 7
check "run_all-omp -- OPTIONS: passed to the program as they are" \
    test $? = 0 -a "$(grep -c -- '--no-bw --custom 7' calls)" = $nmats

# --- the real programs -------------------------------------------------------
bomp=${build:+$build/bin/}benchmark-omp
bmpi=${build:+$build/bin/}benchmark-mpi
[ -n "$build" ] || { bomp=$root/benchmark-omp; bmpi=$root/benchmark-mpi; }
if [ -x "$bomp" ]; then
    sh "$root/run_all-omp.sh" "$bomp" 1 mats --format all --reps 3 --no-bw --csv real.csv > out 2>&1
    rc=$?
    # the row's auto>F median must be the CSV's asked=auto row of that matrix
    ok_rows=0
    for m in lap2d_64 lap3d_12; do
        shown=$(grep "^$m.mtx " out | awk '{print $6 " " $7}')
        want=$(awk -F, -v m="$m" 'index($2, m ".mtx") && $8 == "auto" {printf "auto>%s %.4f", $7, $17}' real.csv)
        [ -n "$want" ] && [ "$shown" = "$want" ] && ok_rows=$((ok_rows + 1))
    done
    check "real benchmark-omp: each row's auto>F and median are the program's asked=auto line (exit 0)" \
        test $rc = 0 -a $ok_rows = 2
else skip "real benchmark-omp ($bomp not built)"; fi
if [ -x "$bomp" ]; then
    # every option benchmark-omp's usage names is one run_all-omp.sh passes on
    opts=$("$bomp" --help | sed -n '1,/^  Prepares/p' | grep -o -- '--[a-z][a-z-]*' | grep -v -- '--csv' | sort -u)
    missing=""
    for o in $opts; do grep -qE -- "(^|[|( ])$o([|)]| )" "$root/run_all-omp.sh" || missing="$missing $o"; done
    check "run_all-omp.sh passes on every option of benchmark-omp's usage (${missing:-none missing})" \
        test -n "$opts" -a -z "$missing"
fi
if [ -x "$bmpi" ] && command -v mpirun >/dev/null 2>&1; then
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
    OMP_NUM_THREADS=1 timeout 120 sh "$root/run_all-mpi.sh" "$bmpi" 2 mats --csv mpi.csv -- --reps 3 > out 2>&1
    check "real benchmark-mpi at 2 ranks: a row per matrix, CSV rows, exit 0" \
        test $? = 0 -a "$(grep -c '^lap.*  2    1 ' out)" = $nmats -a "$(grep -c ',2,1,nnz,' mpi.csv)" = $nmats
else skip "real benchmark-mpi ($bmpi not built or no mpirun)"; fi

echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
