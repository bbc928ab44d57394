#!/bin/sh
# programs.sh — hostile use of the programs' outputs and arguments: an output
# that is an input, a device, a full disk, a path that cannot be made, '-',
# gzip names, and the messages of the findings on solve, convert, genmat,
# benchmark-omp and benchmark-mpi. No output is ever lost or half-written,
# no device removed, no input overwritten.
#   programs.sh BUILD     (prints ok/FAIL/skip lines and "N passed, N failed, N skipped")
# Full disks: a 64 KiB tmpfs (root; skipped where mount fails) and ulimit -f;
# never /dev/full as root (a program that removes its failed output would
# remove the device): a character device made here with mknod stands in.
set -u
build=$(cd "${1:?usage: programs.sh BUILD}" && pwd) || exit 1
bin=$build/bin
root=$(cd "$(dirname "$0")/../.." && pwd)
M=$root/matrices/lap2d_64.mtx
tmo=${PROGRAMS_TEST_TIMEOUT:-60}
P=0; F=0; S=0
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_odls_base_sigkill_timeout=0
MPIRUN="mpirun --oversubscribe --bind-to none"
if [ "$(id -u)" = 0 ]; then
    MPIRUN="$MPIRUN --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
have_mpi=0
[ -x "$bin/solve" ] && [ -x "$bin/benchmark-mpi" ] && command -v mpirun > /dev/null 2>&1 && have_mpi=1

pass() { P=$((P + 1)); echo "ok   $1"; }
fail() { F=$((F + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && [ -f "$2" ] && head -20 "$2"; }
skip() { S=$((S + 1)); echo "skip $1"; }
check() { # NAME CMD...: pass when CMD succeeds
    _n=$1; shift
    if "$@"; then pass "$_n"; else fail "$_n" "$out"; fi
}
tmp=$(mktemp -d)
out=$tmp/out.txt
small=$tmp/small
mounted=0
cleanup() {
    [ "$mounted" = 1 ] && umount "$small" 2> /dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1

# expect_error NAME STATUS WANT CMD...: CMD exits with STATUS (any non-zero
# when STATUS is '*') on its own, not by a signal or the timeout, and prints
# exactly one "PROG: error:" line, which contains WANT.
expect_error() {
    _n=$1 _s=$2 _w=$3; shift 3
    timeout "$tmo" "$@" > "$out" 2>&1 < /dev/null
    _rc=$?
    _k=$(grep -c '^[a-z-]*: error: ' "$out")
    if [ "$_rc" -ne 0 ] && [ "$_rc" -lt 124 ] && { [ "$_s" = '*' ] || [ "$_rc" = "$_s" ]; } && [ "$_k" = 1 ] &&
       grep '^[a-z-]*: error: ' "$out" | grep -qF -- "$_w" &&
       ! grep -qE 'signal [0-9]|Segmentation fault|core dumped|Sanitizer|runtime error' "$out"; then pass "$_n"
    else fail "$_n (exit $_rc, want ${_s}; $_k error lines, want '$_w')" "$out"; fi
}
# no_strays DIR: nothing but what the test put there (no temporary file left)
no_strays() { [ -z "$(find "$1" -name '.*.??????' 2> /dev/null)" ]; }

cp "$M" A.mtx
cp A.mtx A.orig
"$bin/genmat" lap2d 5 -o small.mtx > /dev/null || echo "genmat lap2d 5 failed"
cp small.mtx small.orig

# ---- 1: a failed write never removes a device -------------------------------
# solve --out onto a device whose writes fail (a /dev/full made here):
# the error, and the device still there; convert and genmat the same.
# mkfull: a fresh full device (each test its own: an earlier one may have removed it)
mkfull() { rm -f full && mknod full c 1 7 2> /dev/null; }
if mkfull && ! (printf x > full) 2> /dev/null; then
    if [ -x "$bin/solve" ]; then
        expect_error "1 solve --out onto a full device fails" 1 "No space left on device" "$bin/solve" A.mtx --out full
        check "1 solve --out left the device in place" test -c full
    else skip "1 solve (not built)"; fi
    mkfull
    expect_error "1 convert onto a full device fails" '*' "No space left on device" "$bin/convert" A.mtx full --to mtx
    check "1 convert left the device in place" test -c full
    mkfull
    expect_error "1 genmat -o a full device fails" 1 "No space left on device" "$bin/genmat" lap2d 300 -o full
    check "1 genmat left the device in place" test -c full
    mkfull
    expect_error "1 benchmark-omp --csv onto a full device fails before measuring" 2 "No space left on device" \
        "$bin/benchmark-omp" A.mtx 1 --no-bw --reps 2 --format csr --csv full
    check "1 benchmark-omp left the device in place" test -c full
else skip "1 outputs onto a device (mknod of a full device failed: not root, or a nodev folder)"; fi
# a pipe is written in place, not replaced by a file
if mkfifo pipe 2> /dev/null && [ -x "$bin/solve" ]; then
    cat pipe > from_pipe &
    timeout "$tmo" "$bin/solve" A.mtx --out pipe > "$out" 2>&1
    rc=$?
    wait
    check "1 solve --out a fifo writes through it and leaves it a fifo" \
        test "$rc" = 0 -a -p pipe -a "$(head -n 1 from_pipe)" = "%%MatrixMarket matrix array real general"
else skip "1 solve --out a fifo (mkfifo failed or solve not built)"; fi

# ---- 2: convert IN IN, and a full disk under the target -----------------------
expect_error "2 convert refuses its input as output" 2 "the same file as the input" "$bin/convert" A.mtx A.mtx
check "2 convert A.mtx A.mtx left the input as it was" cmp -s A.mtx A.orig
ln A.mtx hard.mtx
expect_error "2 convert refuses a hard link of its input" 2 "the same file as the input" "$bin/convert" A.mtx ./hard.mtx
ln -s A.mtx soft.mtx
expect_error "2 convert refuses a symbolic link to its input" 2 "the same file as the input" "$bin/convert" soft.mtx A.mtx
check "2 the links left the input as it was" cmp -s A.mtx A.orig
expect_error "2 convert refuses the input as output in PETSc form too" 2 "the same file as the input" \
    "$bin/convert" A.mtx hard.mtx --to petsc
check "2 ... and the input is unchanged" cmp -s A.mtx A.orig
# a small tmpfs: the write fails, the file that was there stays whole, no stray file
mkdir -p "$small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$small" 2> /dev/null; then
    mounted=1
    cp small.orig "$small/t.mtx"
    expect_error "2 convert onto a full tmpfs fails" 1 "No space left on device" "$bin/convert" A.mtx "$small/t.mtx"
    check "2 convert on a full disk kept the old file whole" cmp -s "$small/t.mtx" small.orig
    check "2 convert on a full disk left no temporary file" no_strays "$small"
    expect_error "2 convert .mtx.gz onto a full tmpfs fails" 1 "No space left on device" \
        "$bin/convert" "$root/matrices/random_3000_k8.mtx" "$small/t.mtx.gz"
    check "2 ... no file and no temporary left" test -z "$(ls -A "$small" | grep -v '^t.mtx$')"
    expect_error "2 genmat -o onto a full tmpfs fails" 1 "No space left on device" "$bin/genmat" lap2d 300 -o "$small/t.mtx"
    check "2 genmat on a full disk kept the old file whole" cmp -s "$small/t.mtx" small.orig
    if [ -x "$bin/solve" ]; then
        cp small.orig "$small/x.mtx"
        head -c 40000 /dev/zero > "$small/filler" # x in single precision is 45 KB
        expect_error "2 solve --out onto a full tmpfs fails after printing its results" 1 "No space left on device" \
            "$bin/solve" A.mtx --out "$small/x.mtx"
        check "2 solve kept the old --out file whole and printed the results" \
            test -n "$(cmp -s "$small/x.mtx" small.orig && grep '^bench=solve .* status=0 ' "$out")"
        check "2 solve left no temporary file" no_strays "$small"
        rm -f "$small/filler"
    fi
    umount "$small" && mounted=0
else skip "2 full tmpfs (not root, or mount -t tmpfs failed)"; fi
# the same with a file-size limit (SIGXFSZ ignored, as a shell may leave it)
cp small.orig lim.mtx
expect_error "2 convert past ulimit -f fails" 1 "File too large" \
    sh -c 'trap "" XFSZ; ulimit -f 40; exec "$0" "$1" lim.mtx' "$bin/convert" A.mtx
check "2 convert past ulimit -f kept the old file whole" cmp -s lim.mtx small.orig
expect_error "2 genmat past ulimit -f fails (not killed by SIGXFSZ)" 1 "File too large" \
    sh -c 'ulimit -f 40; exec "$0" lap2d 300 -o lim.mtx' "$bin/genmat"
check "2 genmat past ulimit -f kept the old file whole" cmp -s lim.mtx small.orig
check "2 no temporary file left in the folder" no_strays "$tmp"
# a run stopped by a signal half-way: the old file whole, no temporary file
cp small.orig sig.mtx
timeout -s INT 0.3 "$bin/genmat" lap3d 100 -o sig.mtx > "$out" 2>&1
rc=$?
if [ "$rc" = 0 ]; then skip "2 genmat stopped by SIGINT (it finished first)"
else check "2 genmat stopped by SIGINT kept the old file and left no temporary file (exit $rc)" \
    sh -c 'cmp -s sig.mtx small.orig && [ -z "$(find . -name ".sig.mtx.*")" ]'; fi
# a successful overwrite keeps the target's mode
chmod 640 lim.mtx
"$bin/convert" A.mtx lim.mtx > /dev/null 2>&1
check "2 convert over a file keeps its mode (640)" test "$(stat -c %a lim.mtx)" = 640 -a -n "$(cmp -s lim.mtx small.orig || echo y)"

# ---- 3 and 4: solve --out: never an input, tried before the solve -----------------
if [ -x "$bin/solve" ]; then
    expect_error "3 solve refuses --out onto its matrix" 2 "the same file as the input" "$bin/solve" A.mtx --out A.mtx
    check "3 ... the matrix is unchanged" cmp -s A.mtx A.orig
    expect_error "3 solve refuses --out onto a link of its matrix" 2 "the same file as the input" "$bin/solve" A.mtx --out soft.mtx
    awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print "4096 1"; for (i = 0; i < 4096; i++) print 1 + i % 3 }' > b.mtx
    cp b.mtx b.orig
    expect_error "3 solve refuses --out onto its --rhs" 2 "the same file as the input" "$bin/solve" A.mtx --rhs b.mtx --out b.mtx
    check "3 ... the right-hand side is unchanged" cmp -s b.mtx b.orig
    if [ "$have_mpi" = 1 ]; then
        expect_error "3 solve refuses --out onto its matrix at 2 ranks (one message)" 2 "the same file as the input" \
            $MPIRUN -n 2 "$bin/solve" A.mtx --out A.mtx
    else skip "3 solve at 2 ranks (no mpirun)"; fi
    expect_error "4 solve --out into a missing folder fails before the solve" 2 "--out $tmp/none/x.mtx: cannot create" \
        "$bin/solve" A.mtx --verbose --out "$tmp/none/x.mtx"
    check "4 ... no iteration ran" test -z "$(grep '^  it ' "$out")"
    expect_error "4 solve --out a folder is refused before the solve" 2 "a folder" "$bin/solve" A.mtx --verbose --out "$tmp"
    expect_error "20 solve --out - is refused" 2 "'-' is not taken for standard output" "$bin/solve" A.mtx --out -
    expect_error "20 solve --rhs - is refused" 2 "'-' is not taken for standard input" "$bin/solve" A.mtx --rhs -
else skip "3 4 solve (not built)"; fi

# ---- 12: --transpose where it cannot be checked, and with --gpu ------------------
if [ "$have_mpi" = 1 ]; then
    expect_error "12 benchmark-mpi --gen --transpose says what to do" 2 "which --gen does not make: write it with genmat" \
        "$bin/benchmark-mpi" --gen lap2d 10 --transpose
    expect_error "12 ... and --read root does not change it" 2 "which --gen does not make" \
        "$bin/benchmark-mpi" --gen lap2d 10 --transpose --read root
    expect_error "12 benchmark-mpi --read parallel --transpose says use --read root" 2 "use --read root, not --read parallel" \
        "$bin/benchmark-mpi" A.mtx --transpose --read parallel
    expect_error "12 benchmark-mpi --transpose --gpu: not an option of --gpu" 2 "--transpose is not an option of --gpu" \
        "$bin/benchmark-mpi" A.mtx --transpose --gpu
    expect_error "12 solve --gpu --jacobi: not an option of --gpu" 2 "--jacobi is not an option of --gpu" \
        "$bin/solve" A.mtx --gpu --jacobi
else skip "12 benchmark-mpi (no MPI)"; fi

# ---- 15: genmat's --k, negative SIZE, --alpha ------------------------------------
expect_error "15 genmat random 10 --k 1000000000 is refused" 2 "--k 1000000000 is more than the 10 columns" \
    "$bin/genmat" random 10 --k 1000000000
expect_error "15 genmat random 10 --k 11 is refused" 2 "--k takes an integer from 1 to 10" "$bin/genmat" random 10 --k 11
check "15 genmat random 10 --k 10 still works" sh -c '"$0" random 10 --k 10 > /dev/null' "$bin/genmat"
check "15 genmat random 5 (default --k 8) still works" sh -c '"$0" random 5 > /dev/null' "$bin/genmat"
expect_error "15 genmat lap2d -5: a negative SIZE, not an unknown option" 2 "SIZE takes an integer from 1 to" \
    "$bin/genmat" lap2d -5
expect_error "15 genmat --alpha 2: one message" 2 "--alpha takes a number above 2 and at most 1000, not '2'" \
    "$bin/genmat" powerlaw 50 --alpha 2
expect_error "15 genmat --alpha 1001: the same message" 2 "--alpha takes a number above 2 and at most 1000, not '1001'" \
    "$bin/genmat" powerlaw 50 --alpha 1001
if [ "$have_mpi" = 1 ]; then
    expect_error "15 benchmark-mpi --gen random:20 10 is refused" 2 "K 20 is more than the 10 columns" \
        "$bin/benchmark-mpi" --gen random:20 10
fi

# ---- 16: solve --tol spelling, --rhs shape, the ending at --tol 0 -------------------
if [ -x "$bin/solve" ]; then
    expect_error "16 solve --tol 0x1p-20 is refused (no 0x)" 2 "--tol takes a number from 0 to 1, not '0x1p-20'" \
        "$bin/solve" A.mtx --tol 0x1p-20
    expect_error "16 benchmark-omp --threshold 0x1p-2 is refused" 2 "--threshold" "$bin/benchmark-omp" A.mtx --threshold 0x1p-2
    awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print "1 4096"; for (i = 0; i < 4096; i++) print 1 + i % 3 }' > brow.mtx
    it() { sed -n 's/^bench=solve .* status=0 iterations=\([0-9]*\) .*/\1/p' "$1"; }
    timeout "$tmo" "$bin/solve" A.mtx --rhs b.mtx --tol 1e-3 > col.txt 2>&1
    timeout "$tmo" "$bin/solve" A.mtx --rhs brow.mtx --tol 1e-3 > "$out" 2>&1
    check "16 --rhs takes 1 x m as m x 1, and --help says so" \
        test -n "$(it col.txt)" -a "$(it col.txt)" = "$(it "$out")" -a -n "$("$bin/solve" --help | grep 'm x 1 or 1 x m')"
    timeout "$tmo" "$bin/solve" A.mtx --tol 0 --maxit 400 > "$out" 2>&1
    tr=$(sed -n 's/^bench=solve .* relres_true=\([^ ]*\) .*/\1/p' "$out")
    q=$(sed -n 's/^solve: error: .*no convergence in 400 iterations: true relative residual ||b - A\*x||\/||b|| = \([^ ]*\) > tol.*/\1/p' "$out")
    check "16 solve --tol 0 ends quoting the true residual ($q, bench line $tr)" \
        awk -v a="$q" -v b="$tr" 'BEGIN { exit !(a != "" && b != "" && a > 0 && (a - b) / b < 1e-2 && (b - a) / b < 1e-2) }'
else skip "16 solve (not built)"; fi

# ---- 17: solve --out x.mtx.gz is gzip ------------------------------------------
if [ -x "$bin/solve" ]; then
    timeout "$tmo" "$bin/solve" A.mtx --out x.mtx.gz > "$out" 2>&1
    check "17 solve --out x.mtx.gz writes gzip holding the 4096 x 1 array" \
        test "$(od -An -tx1 -N2 x.mtx.gz | tr -d ' ')" = 1f8b -a "$(gzip -dc x.mtx.gz | sed -n 2p)" = "4096 1" \
        -a "$(gzip -dc x.mtx.gz | wc -l)" = 4098
    check "17 ... and convert still compresses by the name" \
        sh -c '"$0" "$1" c.mtx.gz > /dev/null && gzip -dc c.mtx.gz | head -c 14 | grep -q MatrixMarket' "$bin/convert" A.mtx
fi

# ---- 18: threads of a matrix without nonzeros ------------------------------------
if [ "$have_mpi" = 1 ]; then
    printf '%%%%MatrixMarket matrix coordinate real general\n5 5 0\n' > empty.mtx
    timeout "$tmo" "$bin/benchmark-mpi" empty.mtx --reps 2 --threads 1 > "$out" 2>&1
    check "18 benchmark-mpi on a matrix without nonzeros reports threads=1" \
        test -n "$(grep '^bench=mpi .* threads=1 ' "$out")" -a -z "$(grep 'threads=0' "$out")"
fi

# ---- 19: benchmark-omp --vectors' reps, --bw, --csv's exit status -----------------
for r in 50 2 7; do
    timeout "$tmo" "$bin/benchmark-omp" A.mtx 1 --vectors 2 --reps $r --format csr > "$out" 2>&1
    check "19 benchmark-omp --vectors --reps $r times $r calls" test -n "$(grep "^bench=omp-block .* reps=$r " "$out")"
done
timeout "$tmo" "$bin/benchmark-omp" A.mtx 1 --no-bw --reps 2 --format csr > "$out" 2>&1
check "19 benchmark-omp --reps 2 times 2 calls" test -n "$(grep '^bench=omp .* reps=2 ' "$out")"
expect_error "19 benchmark-omp --vectors --bw is refused" 2 "--bw and --bw-mib do not apply to --vectors" \
    "$bin/benchmark-omp" A.mtx 1 --vectors 2 --bw
expect_error "19 benchmark-omp --vectors --bw-mib is refused" 2 "do not apply to --vectors" \
    "$bin/benchmark-omp" A.mtx 1 --vectors 2 --bw-mib 16
expect_error "19 benchmark-omp --csv unwritable: exit 2 as the docs say" 2 "--csv $tmp/none/x.csv: cannot create" \
    "$bin/benchmark-omp" A.mtx 1 --no-bw --reps 2 --csv "$tmp/none/x.csv"
expect_error "19 benchmark-omp --csv onto its matrix is refused" 2 "the same file as the input" \
    "$bin/benchmark-omp" A.mtx 1 --no-bw --reps 2 --csv A.mtx
check "19 ... the matrix is unchanged" cmp -s A.mtx A.orig
timeout "$tmo" "$bin/benchmark-omp" A.mtx 1 --no-bw --reps 2 --format csr --csv ok.csv > /dev/null 2>&1
timeout "$tmo" "$bin/benchmark-omp" A.mtx 1 --no-bw --reps 2 --format csr,csrl --csv ok.csv > /dev/null 2>&1
check "19 benchmark-omp --csv still appends under one header" test "$(wc -l < ok.csv)" = 4 -a "$(grep -c '^bench,' ok.csv)" = 1

# ---- 20: '-' is refused (not taken for standard input or output) -------------------
mkdir dash && cd dash || exit 1
expect_error "20 convert - out.mtx is refused" 2 "'-' is not taken for standard input" "$bin/convert" - out.mtx
expect_error "20 convert IN - is refused" 2 "'-' is not taken for standard output" "$bin/convert" "$M" - --to mtx
expect_error "20 genmat -o - is refused" 2 "'-' is not taken for standard output" "$bin/genmat" lap2d 3 -o -
check "20 no file named '-' made" test ! -e ./- -a -z "$(ls -A)"
cd "$tmp" || exit 1
check "20 a file named '-' is still written as ./-" sh -c 'cd dash && "$0" "$1" ./- --to mtx > /dev/null && test -s ./-' "$bin/convert" "$M"
check "no temporary file left anywhere" no_strays "$tmp"

echo "$P passed, $F failed, $S skipped"
