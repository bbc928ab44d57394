#!/bin/bash
# gpu-cg-phases.sh — CG on one GPU, where its time goes: builds this tree
# with CUDA (double), runs the several-GPU test at 1 rank and at 2 ranks
# sharing the GPU, then `solve --gpu` on the real-valued lap3d 200 (300 iterations)
# at 1 rank and 2 ranks on the one GPU in interleaved rounds against the
# build of an older tree (OLD_SRC, default .dev/old: `git archive COMMIT |
# tar -x -C .dev/old`; left out when absent), each line with its phases
# per iteration (product, vector kernels, waits, reductions) and its byte
# model; a summary table at the end.
#   bench/jobs/gpu-cg-phases.sh [ROUNDS]   (default 3; BUDGET seconds, default 400:
#   no new step after it)
# Results under $OUT (default /tmp/gpu-cg-out): build*.log, test.log,
# rounds.txt (the bench=solve-gpu lines, tagged), summary.txt.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
ROUNDS=${1:-3} OUT=${OUT:-/tmp/gpu-cg-out} BUDGET=${BUDGET:-400}
OLD_SRC=${OLD_SRC:-.dev/old}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"; : > "$OUT/rounds.txt"
T0=$SECONDS
left() { [ $((SECONDS - T0)) -lt "$BUDGET" ]; }
NC=$(nproc)
extra=""; echo '#include <metis.h>' | cc -E - >/dev/null 2>&1 || extra="NO_METIS=1"
echo '#include <zlib.h>' | cc -E - >/dev/null 2>&1 || extra="$extra NO_ZLIB=1"
M="make -j$NC --no-print-directory CUDA=1 HSPMV_SKIP_DEPS=1 $extra"
{ nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader; lscpu | grep 'Model name'; } > "$OUT/sys.txt" 2>&1
$M gpu-programs build/x86_64-double/tests/gpu/mpi_gpu_dist > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
echo "build t=$((SECONDS - T0))s"
GPU_DIST_RUNS="1 2shared" sh tests/gpu/run_dist.sh build/x86_64-double/tests/gpu/mpi_gpu_dist > "$OUT/test.log" 2>&1
grep -E "passed|FAIL|fail:" "$OUT/test.log" | tail -6
echo "test t=$((SECONDS - T0))s"
OLD=""
if [ -d "$OLD_SRC" ] && left; then
    if (cd "$OLD_SRC" && $M gpu-programs > "$OUT/build-old.log" 2>&1); then OLD=$OLD_SRC/solve
    else tail -5 "$OUT/build-old.log"; fi
    echo "old build t=$((SECONDS - T0))s"
fi
CG="--gen lap3d 200 --values random --tol 1e-30 --maxit 300" # 300 iterations timed (it converges to 1e-6 in 13)
one() { # tag, binary, ranks
    timeout 120 mpirun --allow-run-as-root -n "$3" --bind-to none "$2" --gpu $CG 2>&1 |
        grep "^bench=solve-gpu" | sed "s|^|$1 ranks_run=$3 |" >> "$OUT/rounds.txt"
}
for k in $(seq 1 "$ROUNDS"); do
    left || { echo "round $k skipped: past the budget"; break; }
    for n in 1 2; do
        if [ $((k % 2)) = 1 ]; then one "round=$k build=new" ./solve $n; [ -n "$OLD" ] && one "round=$k build=old" "$OLD" $n
        else [ -n "$OLD" ] && one "round=$k build=old" "$OLD" $n; one "round=$k build=new" ./solve $n; fi
    done
    echo "round $k t=$((SECONDS - T0))s"
done
# per build and rank count: medians of its/s, iter_ms and the phases; new/old of its/s per round
awk '
function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : "-" }
{ split("", v); for (i = 1; i <= NF; i++) { e = index($i, "="); if (e) v[substr($i, 1, e - 1)] = substr($i, e + 1) }
  key = v["build"] " " v["ranks_run"]; keys[key] = 1
  for (f in want) S[key, f] = S[key, f] " " v[f]
  R[v["round"], key] = v["its_per_s"] }
BEGIN { split("its_per_s iter_ms spmv_ms vector_ms wait_ms reduce_ms model_ms frac_model its_vs_products iterations", wl, " "); for (i in wl) want[wl[i]] = 1 }
END {
  printf "%-8s %5s %10s %9s %9s %10s %8s %10s %9s %10s %16s %5s\n", "build", "ranks", "its_per_s", "iter_ms", "spmv_ms", "vector_ms", "wait_ms", "reduce_ms", "model_ms", "frac_model", "its_vs_products", "its"
  for (key in keys) { split(key, kk, " ")
    printf "%-8s %5s %10s %9s %9s %10s %8s %10s %9s %10s %16s %5s\n", kk[1], kk[2], med(S[key, "its_per_s"]), med(S[key, "iter_ms"]), med(S[key, "spmv_ms"]), med(S[key, "vector_ms"]), med(S[key, "wait_ms"]), med(S[key, "reduce_ms"]), med(S[key, "model_ms"]), med(S[key, "frac_model"]), med(S[key, "its_vs_products"]), med(S[key, "iterations"]) }
  for (n = 1; n <= 2; n++) { s = ""; for (r = 1; r <= 20; r++) if (((r, "new " n) in R) && ((r, "old " n) in R) && R[r, "old " n] > 0) s = s " " R[r, "new " n] / R[r, "old " n]
    if (s != "") printf "new/old its_per_s at %d rank(s), per round:%s (median %s)\n", n, s, med(s) } }' "$OUT/rounds.txt" | tee "$OUT/summary.txt"
echo "done t=$((SECONDS - T0))s"
