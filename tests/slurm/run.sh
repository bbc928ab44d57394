#!/bin/sh
# run.sh — a real one-node Slurm: starts munged, slurmctld and slurmd for this
# machine (private config from `slurmd -C`, private ports, state and munge key
# in a temporary folder; /etc/slurm and any running Slurm are left alone), runs
# the programs and scripts as a cluster user would, stops what it started, and
# records "P F S" like tests/run.sh.
#   run.sh [--install] [--record FILE] BUILD
# --install: apt-get the Debian packages first (slurmctld slurmd slurm-client
# munge). Without root, or without the packages, it reports itself SKIPPED.
# HSPMV_SLURM_TEST=0 skips it too. Every wait is bounded (timeout), so it can
# neither hang nor leave jobs behind; run it under `timeout` all the same.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
record=""; install=""
while [ $# -gt 0 ]; do
    case $1 in
        --install) install=1; shift ;;
        --record) record=$2; shift 2 ;;
        *) break ;;
    esac
done
build=${1:?usage: run.sh [--install] [--record FILE] BUILD}
case $build in /*) ;; *) build=$root/$build ;; esac
P=0; F=0; S=0
record_and_exit() {
    if [ -n "$record" ]; then mkdir -p "$(dirname "$record")"; echo "$P $F $S" > "$record"; fi
    echo "slurm: $P passed, $F failed, $S skipped"
    [ -n "$record" ] || [ "$F" -eq 0 ]
    exit $?
}
skipped() { S=$((S + 1)); echo "slurm: SKIPPED: $*"; record_and_exit; }

[ "${HSPMV_SLURM_TEST:-1}" != 0 ] || skipped "HSPMV_SLURM_TEST=0"
[ "$(id -u)" = 0 ] || skipped "not root (starting munged, slurmctld and slurmd needs root)"
if [ -n "$install" ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        slurmctld slurmd slurm-client munge > /dev/null 2>&1 ||
        echo "slurm: apt-get install slurmctld slurmd slurm-client munge failed"
fi
missing=""
for c in munged munge unmunge slurmctld slurmd srun salloc sbatch scontrol sinfo scancel; do
    command -v $c > /dev/null 2>&1 || missing="$missing $c"
done
[ -z "$missing" ] || skipped "missing:$missing (Debian: apt-get install slurmctld slurmd slurm-client munge)"
for p in benchmark-mpi solve; do
    [ -x "$build/bin/$p" ] || { F=$((F + 1)); echo "FAIL $build/bin/$p not built"; record_and_exit; }
done

# --- start ------------------------------------------------------------------
d=$(mktemp -d /tmp/hspmv-slurm.XXXXXX) || exit 1
chmod 711 "$d"
mkdir -p "$d/state" "$d/spool" "$d/sub" "$d/mats" "$d/probe"
stop() {
    trap - EXIT INT TERM
    if [ -f "$d/slurm.conf" ]; then
        timeout 10 scancel --full "--user=$(id -un)" > /dev/null 2>&1
        timeout 10 scontrol shutdown > /dev/null 2>&1
    fi
    # the daemons this script started, by their pid files: slurmd and
    # slurmctld got the shutdown above, munged gets TERM; KILL after 5 s
    for f in slurmd slurmctld munged; do
        [ -f "$d/$f.pid" ] || continue
        pid=$(cat "$d/$f.pid")
        [ "$f" = munged ] && kill "$pid" 2> /dev/null
        i=0
        while kill -0 "$pid" 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -0 "$pid" 2> /dev/null && { echo "slurm: $f (pid $pid) still up after 5 s, killing it"; kill -9 "$pid"; }
    done
    rm -rf "$d"
}
trap 'stop' EXIT
trap 'echo "slurm: interrupted"; F=$((F + 1)); stop; record_and_exit' INT TERM

dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 2> /dev/null
chmod 600 "$d/munge.key"
munged -f -S "$d/munge.sock" --key-file="$d/munge.key" --log-file="$d/munged.log" \
    --pid-file="$d/munged.pid" --seed-file="$d/munged.seed" > "$d/munged.out" 2>&1
node=$(slurmd -C 2> /dev/null | head -1)
host=$(echo "$node" | sed -n 's/^NodeName=\([^ ]*\).*/\1/p')
base=$((20000 + ($$ % 4000) * 2))
cat > "$d/slurm.conf" <<EOF
ClusterName=hspmvtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge.sock
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$d/slurm.conf"
start=$(date +%s)
up=""
if [ -n "$host" ] && timeout 10 sh -c "munge -n -S '$d/munge.sock' | unmunge -S '$d/munge.sock'" > /dev/null 2>&1 &&
   slurmctld -i > "$d/slurmctld.out" 2>&1 && slurmd > "$d/slurmd.out" 2>&1; then
    i=0
    while [ $i -lt 150 ]; do
        [ "$(sinfo -h -o %t 2> /dev/null)" = idle ] && { up=1; break; }
        sleep 0.2; i=$((i + 1))
    done
fi
if [ -z "$up" ]; then
    F=$((F + 1)); echo "FAIL slurm daemons did not come up (node: ${node:-slurmd -C failed})"
    for f in munged.out munged.log slurmctld.out slurmctld.log slurmd.out slurmd.log; do
        [ -s "$d/$f" ] && { echo "--- $f"; tail -15 "$d/$f"; }
    done
    stop; record_and_exit
fi
P=$((P + 1))
echo "ok one-node Slurm up in $(( $(date +%s) - start )) s: $(sinfo -h -o '%P %D %t %c CPUs') ($(srun --version))"

# --- the tests -----------------------------------------------------------------
out=$d/out
pass() { P=$((P + 1)); echo "ok $1"; }
fail() { F=$((F + 1)); echo "FAIL $1"; sed 's/^/    /' "$out" | tail -25; }
check() { name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
count() { grep -c -E -- "$1" "$out"; }
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMP_WAIT_POLICY=passive
unset OMP_NUM_THREADS OMP_PROC_BIND OMP_PLACES SLURM_MPI_TYPE
cores=$(nproc)
bmpi=$build/bin/benchmark-mpi
for m in lap2d_64 lap3d_12 random_3000_k8; do cp "$root/matrices/$m.mtx" "$d/mats/"; done
nm=3
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n' > "$d/bad.mtx"
cd "$d/sub" || exit 1

timeout 120 srun -n 2 "$bmpi" "$d/mats/lap2d_64.mtx" --reps 5 > "$out" 2>&1
check "srun -n 2 benchmark-mpi: 2 ranks x 1 thread, checked, exit 0" \
    test $? = 0 -a "$(count '^bench=mpi .* ranks=2 threads=1 .*violations=0 ')" = 1

timeout 120 srun -n 2 "$build/bin/solve" "$d/mats/lap3d_12.mtx" > "$out" 2>&1
check "srun -n 2 solve: converged, exit 0" test $? = 0 -a "$(count '^  status: converged')" = 1

timeout 120 srun -n 2 "$bmpi" "$d/bad.mtx" > "$out" 2>&1
rc=$?
check "srun -n 2 benchmark-mpi on a bad matrix: one message with file and line, exit non-zero" \
    test "$rc" != 0 -a "$rc" != 124 -a "$(count 'error')" -ge 1 -a "$(count 'bad.mtx:4: ')" = 1

timeout 180 salloc -n 2 sh "$root/run_all-mpi.sh" "$bmpi" auto "$d/mats" --csv "$d/flat.csv" -- --reps 5 > "$out" 2>&1
check "salloc -n 2 run_all-mpi.sh auto: srun --cpu-bind=cores, every matrix at 2 ranks x 1 thread, CSV, exit 0" \
    test $? = 0 -a -n "$(grep 'launcher: srun -n 2 --cpu-bind=cores' "$out")" \
    -a "$(count '^[a-z0-9_]+\.mtx +2 +1 ')" = $nm -a "$(grep -c ',2,1,nnz,' "$d/flat.csv")" = $nm

if [ "$cores" -ge 2 ]; then
    timeout 180 salloc -n 1 -c 2 sh "$root/run_all-mpi.sh" "$bmpi" auto "$d/mats" --csv "$d/hybrid.csv" -- --reps 5 > "$out" 2>&1
    check "salloc -n 1 -c 2 run_all-mpi.sh auto: --cpus-per-task=2, every matrix at 1 rank x 2 threads, exit 0" \
        test $? = 0 -a -n "$(grep 'launcher: srun -n 1 --cpus-per-task=2 --cpu-bind=cores' "$out")" \
        -a "$(count '^[a-z0-9_]+\.mtx +1 +2 ')" = $nm -a "$(grep -c ',1,2,nnz,' "$d/hybrid.csv")" = $nm

    # the CPUs each rank may use, seen from inside the ranks
    rm -f "$d/probe/"*
    PROBE_DIR=$d/probe timeout 120 salloc -n 2 sh "$root/run_all-mpi.sh" "$here/probe.sh" 2 "$d/mats" > "$out" 2>&1
    c0=$(sed -n 's/^cpus=\([^ ]*\) .*/\1/p' "$d/probe/rank.0" 2> /dev/null)
    c1=$(sed -n 's/^cpus=\([^ ]*\) .*/\1/p' "$d/probe/rank.1" 2> /dev/null)
    { echo "rank 0: $c0, rank 1: $c1"; cat "$d/probe/"* 2>/dev/null; } >> "$out"
    check "salloc -n 2: each rank bound to one core of its own, 1 thread" \
        test -n "$c0" -a -n "$c1" -a "$c0" != "$c1" -a -n "$(echo "$c0$c1" | grep -v '[-,]')" \
        -a "$(grep -c 'threads=1 bind=close places=cores' "$d/probe/rank.0" "$d/probe/rank.1" | grep -c ':1')" = 2
    rm -f "$d/probe/"*
    PROBE_DIR=$d/probe timeout 120 salloc -n 1 -c 2 sh "$root/run_all-mpi.sh" "$here/probe.sh" auto "$d/mats" > "$out" 2>&1
    c0=$(sed -n 's/^cpus=\([^ ]*\) .*/\1/p' "$d/probe/rank.0" 2> /dev/null)
    n0=$(echo "$c0" | awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }')
    { echo "rank 0: $c0 ($n0 CPUs)"; cat "$d/probe/"* 2>/dev/null; } >> "$out"
    check "salloc -n 1 -c 2: the rank may use 2 CPUs and runs 2 threads (not piled onto one core)" \
        test "$n0" = 2 -a -n "$(grep 'threads=2 bind=close places=cores' "$d/probe/rank.0")" -a ! -f "$d/probe/rank.1"
else
    S=$((S + 3)); echo "skip hybrid and binding checks (one core)"
fi

timeout 120 salloc -n 1 sh "$root/run_all-mpi.sh" "$bmpi" 2 "$d/mats" > "$out" 2>&1
check "salloc -n 1, run_all-mpi.sh with 2 ranks: refused before srun with the allocation's size (exit 2)" \
    test $? = 2 -a -n "$(grep 'do not fit this Slurm allocation' "$out")"
timeout 180 salloc -n 1 make -s -C "$root" run HSPMV_SKIP_DEPS=1 > "$out" 2>&1
check "salloc -n 1 make run: the allocation's 1 rank, every bundled matrix, exit 0" \
    test $? = 0 -a -n "$(grep 'launcher: srun -n 1 ' "$out")" \
    -a "$(count '^[a-z0-9_]+\.mtx +1 +[0-9]+ ')" = "$(ls "$root"/matrices/*.mtx | wc -l)"

SLURM_MPI_TYPE=none timeout 120 salloc -n 2 sh "$root/run_all-mpi.sh" "$bmpi" 2 "$d/mats" > "$out" 2>&1
check "srun without PMIx (SLURM_MPI_TYPE=none): stops at once, says SLURM_MPI_TYPE=pmix, exit 1" \
    test $? = 1 -a -n "$(grep 'export SLURM_MPI_TYPE=pmix' "$out")" -a "$(count '\.mtx ')" = 0

# inside a job step: the benchmark steps overlap it instead of waiting forever
timeout 150 salloc -n 2 srun -n 1 sh "$root/run_all-mpi.sh" "$bmpi" auto "$d/mats" -- --reps 5 > "$out" 2>&1
rc=$?
check "salloc -n 2 srun -n 1 run_all-mpi.sh (inside a step): --overlap, 2 ranks, no hang, exit 0" \
    test $rc = 0 -a -n "$(grep 'inside job step .*--overlap' "$out")" -a "$(count '^[a-z0-9_]+\.mtx +2 +1 ')" = $nm

# both batch scripts, submitted from another folder, with the user's overrides
# sub NAME SBATCH-OPTIONS... SCRIPT ARGS...: submits, waits (at most 180 s,
# polling: sbatch --wait sleeps up to 10 s between looks), returns the job's
# exit code; the job's output is in $out
sub() {
    n=$1; shift
    rm -f "$d/sub/"*.out
    jid=$(timeout 30 sbatch --parsable -o "$d/sub/$n-%j.out" "$@" 2> "$out") || return 99
    jid=${jid%%;*}
    i=0; state=""
    while [ $i -lt 900 ]; do
        state=$(scontrol show job "$jid" 2> /dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
        case $state in PENDING|RUNNING|CONFIGURING|COMPLETING|"") sleep 0.2; i=$((i + 1)) ;; *) break ;; esac
    done
    code=$(scontrol show job "$jid" 2> /dev/null | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p')
    [ $i -lt 900 ] || { scancel "$jid"; echo "job $jid still $state after 180 s: cancelled" >> "$out"; code=124; }
    cat "$d/sub/$n-"*.out >> "$out" 2> /dev/null
    echo "job $jid: $state, exit ${code:-?}" >> "$out"
    return "${code:-99}"
}
sub flat --ntasks-per-node=2 "$root/slurm/hspmv-flat.sbatch" "$d/mats/lap2d_64.mtx" --reps 5
check "sbatch --ntasks-per-node=2 hspmv-flat.sbatch MATRIX (from another folder): 2 ranks x 1 thread, exit 0" \
    test $? = 0 -a "$(count '^bench=mpi .* ranks=2 threads=1 .*violations=0 ')" = 1
sub flatdefault "$root/slurm/hspmv-flat.sbatch" "$d/mats/lap3d_12.mtx" --reps 5
check "sbatch hspmv-flat.sbatch as shipped: one rank per core of the node ($cores), exit 0" \
    test $? = 0 -a "$(count "^bench=mpi .* ranks=$cores threads=1 .*violations=0 ")" = 1
if [ "$cores" -ge 2 ]; then
    sub hybrid --ntasks-per-node=1 --cpus-per-task=2 "$root/slurm/hspmv-hybrid.sbatch" ../mats --reps 5
    csvf=$(ls "$d/sub/"hspmv-hybrid-*.csv 2> /dev/null | head -1)
    check "sbatch --ntasks-per-node=1 --cpus-per-task=2 hspmv-hybrid.sbatch FOLDER: 1 rank x 2 threads per matrix, CSV, exit 0" \
        test $? = 0 -a "$(count '^[a-z0-9_]+\.mtx +1 +2 ')" = $nm -a -n "$csvf" -a "$(grep -c ',1,2,nnz,' "${csvf:-/dev/null}")" = $nm
else S=$((S + 1)); echo "skip hybrid sbatch (one core)"; fi
sub hybriddefault "$root/slurm/hspmv-hybrid.sbatch" "$d/mats/lap2d_64.mtx" --reps 5
check "sbatch hspmv-hybrid.sbatch as shipped: ranks x threads fill the node's $cores cores, exit 0" \
    test $? = 0 -a -n "$(grep -E '^bench=mpi .* ranks=[0-9]+ threads=[0-9]+ .*violations=0 ' "$out" |
        awk -v c="$cores" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } if (v["ranks"] * v["threads"] == c) print }')"
sub scaling "$root/slurm/hspmv-scaling.sbatch" "$d/mats/lap2d_64.mtx" --reps 5
rc=$?
csvf=$(ls "$d/sub/"hspmv-scaling-*.csv 2> /dev/null | head -1)
want=1; [ "$cores" -ge 2 ] && want=3   # 1 and 2 cores x 1 thread, 1 rank x 2 threads
png=ok
if { command -v python3 && python3 -c 'import matplotlib'; } > /dev/null 2>&1 ||
   /usr/bin/python3 -c 'import matplotlib' > /dev/null 2>&1; then
    [ -s "$(ls "$d/sub/"hspmv-*-scaling.png 2> /dev/null | head -1)" ] || png=""
fi
check "sbatch hspmv-scaling.sbatch MATRIX: $want points in one CSV, a figure when matplotlib is there, exit 0" \
    test $rc = 0 -a -n "$csvf" -a "$(grep -c 'lap2d_64' "${csvf:-/dev/null}")" = $want -a -n "$png"
# an installed hspmv: the batch script from PREFIX/share/hspmv finds PREFIX/bin
if make -s -C "$root" install PREFIX="$d/prefix" HSPMV_SKIP_DEPS=1 > "$out" 2>&1; then
    sub installed --ntasks-per-node=2 "$d/prefix/share/hspmv/slurm/hspmv-flat.sbatch" "$d/mats/lap2d_64.mtx" --reps 5
    check "sbatch PREFIX/share/hspmv/slurm/hspmv-flat.sbatch (make install, PREFIX/bin not on PATH): runs PREFIX/bin/benchmark-mpi" \
        test $? = 0 -a -n "$(grep "^programs: $d/prefix/bin\$" "$out")" -a "$(count '^bench=mpi .* ranks=2 threads=1 .*violations=0 ')" = 1
else fail "make install PREFIX=$d/prefix"; fi
cat > "$d/sub/step.sbatch" <<EOF
#!/bin/sh
#SBATCH -n 2
srun -n 1 sh "$root/run_all-mpi.sh" "$bmpi" auto "$d/mats" -- --reps 5
EOF
sub step "$d/sub/step.sbatch"
check "a batch script running srun sh run_all-mpi.sh (a step inside the job): --overlap, no hang, exit 0" \
    test $? = 0 -a -n "$(grep 'inside job step' "$out")" -a "$(count '^[a-z0-9_]+\.mtx +2 +1 ')" = $nm
sub flatbad "$root/slurm/hspmv-flat.sbatch" "$d/bad.mtx"
check "sbatch hspmv-flat.sbatch on a bad matrix: one message, the job fails" \
    test $? != 0 -a "$(count 'bad.mtx:4: ')" = 1

cd "$root" || exit 1
stop
record_and_exit
