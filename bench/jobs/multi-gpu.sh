#!/bin/bash
# multi-gpu.sh — the several-GPU job in one call: builds with CUDA (both
# precisions), runs the several-GPU test at 1, 2, 4 ranks and 2 ranks on one
# GPU (every --gpu-comm path forced in each), then benchmark-mpi --gpu:
# strong scaling on lap3d 400 (real values) and random 32M x 16 at 1, 2 and
# 4 GPUs (the counts up to the GPUs present: G), weak scaling (lap3d
# 254/320/400 at 1/2/4 GPUs), the halo paths at G GPUs, the CPU library on
# the same matrix (--cpu-compare: a rank per core up to 64, and ranks of 4
# threads), CG iterations per second on 1 and G GPUs and on the CPU (lap3d
# 200 to 1e-6, which it reaches in under 400 iterations; once more on G GPUs
# without OMP_PROC_BIND), and auto against cusparseSpMV on banded matrices
# (benchmark-light); one summary at the end, its targets for G GPUs.
#   bench/jobs/multi-gpu.sh [all|build|test|strong|random|weak|paths|cpu|cg|banded]...
# Runs on a machine of 2 or 4 GPUs (nvidia-h100-x4 or -h200-x4, 64 cores;
# -x2 kinds) from the repository root in about 7 minutes. Needs nvcc (/usr/local/cuda), Open
# MPI; NCCL, METIS and zlib are used where found (NO_METIS=1 / NO_ZLIB=1
# otherwise; the build says whether NCCL is in). The generated matrices come
# from benchmark-mpi --gpu --gen (each rank makes its own rows: no files).
# Logs under $OUT (default /tmp/mgpu-out): build-*.log, test.log, runs.log
# (every run, "== LABEL" before each), summary.txt; a section that would
# start after BUDGET seconds (default 460) is skipped and named. Targets in the summary,
# for G GPUs: >= 0.8 G x one on lap3d 400 (3.2x at 4), >= 0.625 G x on random
# (2.5x at 4), weak per-GPU rate >= 0.9 of one GPU's, each GPU's copy-rate
# fraction at G GPUs >= 0.8 of the one-GPU run's. NCCL_NVLS_ENABLE=0 (no
# NVLink multicast).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-/tmp/mgpu-out}
mkdir -p "$OUT"
rm -f "$OUT/skipped.txt"
: > "$OUT/runs.log"
what=${*:-all}
T0=$(date +%s)
# a section starts only while the job is inside its budget (BUDGET seconds,
# default 460), so that the summary is always printed within 8 minutes
has() {
    case " $what " in *" all "*|*" $1 "*) ;; *) return 1;; esac
    [ $(( $(date +%s) - T0 )) -lt "${BUDGET:-460}" ] && return 0
    echo "skipped $1: past the job's budget of ${BUDGET:-460} s" | tee -a "$OUT/skipped.txt"
    return 1
}
stamp() { echo "[t=$(( $(date +%s) - T0 ))s] $*"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_odls_base_sigkill_timeout=0
NC=$(lscpu -p=core 2>/dev/null | grep -v '^#' | sort -u | wc -l)  # physical cores: mpirun's PE counts cores
[ "$NC" -gt 0 ] || NC=$(nproc)
NG=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
{ nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm --format=csv; nvidia-smi topo -m; } > "$OUT/gpu.txt" 2>&1
echo "$NG GPU(s), $NC cores"; head -6 "$OUT/gpu.txt"
GL=""  # the GPU counts measured: 1 2 4 up to the GPUs present; G the largest
for g in 1 2 4; do [ "$g" -le "${NG:-0}" ] && GL="$GL $g"; done
[ -n "$GL" ] || { echo "no GPU found (nvidia-smi -L)"; GL=" 1"; }
G=${GL##* }
echo "GPU counts:$GL (largest $G)"

# ---- build: both precisions at once, with what the machine has ----
extra=""
echo '#include <metis.h>' | ${CC:-cc} -E - > /dev/null 2>&1 || extra="$extra NO_METIS=1"
echo '#include <zlib.h>' | ${CC:-cc} -E - > /dev/null 2>&1 || extra="$extra NO_ZLIB=1"
M="make -j$((NC / 2)) --no-print-directory CUDA=1 HSPMV_SKIP_DEPS=1 BUILD_SUFFIX=-mgpu $extra"
ARCH=$(${CC:-cc} -dumpmachine | cut -d- -f1)
B=build/$ARCH-double-mgpu
BS=build/$ARCH-single-mgpu
if case " $what " in *" all "*|*" build "*) true;; *) false;; esac || [ ! -x "$B/bin/gpu/benchmark-mpi" ]; then
    stamp "build ($extra )"
    $M PRECISION=double gpu-build-one > "$OUT/build-double.log" 2>&1 & p1=$!
    $M PRECISION=single gpu-build-one > "$OUT/build-single.log" 2>&1 & p2=$!
    wait $p1 || { tail -30 "$OUT/build-double.log"; exit 1; }
    wait $p2 || { tail -30 "$OUT/build-single.log"; echo "single precision did not build: its tests are skipped"; }
fi
$M gpu-nccl-status | tee "$OUT/nccl.txt"
PATHS=host
grep -q 'found' "$OUT/nccl.txt" && PATHS=nccl,host
BM=$B/bin/gpu/benchmark-mpi
SO=$B/bin/gpu/solve
BL=$B/bin/benchmark-light

# mr N CORES_PER_RANK PROG ARGS...: N ranks, each bound to its cores, OpenMP over them
mr() {
    local n=$1 pe=$2
    shift 2
    OMP_NUM_THREADS=$pe OMP_PLACES=cores OMP_PROC_BIND=close timeout 120 \
        mpirun --allow-run-as-root -n "$n" --map-by "slot:PE=$pe" --bind-to core "$@"
}
# run LABEL N PROG ARGS...: one run on N GPUs (or N CPU ranks), logged under LABEL
run() {
    local label=$1 n=$2
    shift 2
    local pe=$((NC / n))
    [ "$pe" -gt 16 ] && [ "$n" -le "$NG" ] && pe=16
    [ "$pe" -lt 1 ] && pe=1
    echo "== $label" >> "$OUT/runs.log"
    mr "$n" "$pe" "$@" >> "$OUT/runs.log" 2>&1 || echo "   $label: exit $? (see runs.log)" | tee -a "$OUT/runs.log"
    stamp "$label"
}

GC="" # the benchmarks' --gpu-comm: auto, or host where a test run timed out (an NCCL hang must not eat the job)
if has test; then
    stamp test
    export HSPMV_TEST_TIMEOUT=90
    {
        sh tests/gpu/run_dist.sh "$B/tests/gpu/mpi_gpu_dist"
        [ -x "$BS/tests/gpu/mpi_gpu_dist" ] && GPU_DIST_RUNS="4 2shared" sh tests/gpu/run_dist.sh "$BS/tests/gpu/mpi_gpu_dist"
    } > "$OUT/test.log" 2>&1
    grep -E '^(== |   -n|gpu-dist:|FAIL|  FAIL|  .*refused|  .*ran |.*timeout)' "$OUT/test.log" | head -60
    grep -q timeout "$OUT/test.log" && { GC="--gpu-comm host"; PATHS=host; echo "a test run timed out: the benchmarks use --gpu-comm host"; }
fi

L3="--gen lap3d 400 --values random"
RND="--gen random:16 32000000"
if has strong; then
    for g in $GL; do run "strong lap3d400 g$g" $g "$BM" --gpu $L3 --reps 30 $GC; done
fi
if has random; then
    for g in $GL; do run "strong random32M g$g" $g "$BM" --gpu $RND --reps 30 $GC; done
fi
if has weak; then # lap3d N with N^3 about 16.4M rows per GPU (at 4 GPUs the strong run's matrix)
    for g in $GL; do
        case $g in 1) wn=254 ;; 2) wn=320 ;; *) wn=400 ;; esac
        [ "$g" = 4 ] || run "weak lap3d$wn g$g" $g "$BM" --gpu --gen lap3d $wn --values random --reps 30 $GC
    done
fi
if has paths && [ "$G" -gt 1 ]; then
    run "paths lap3d400 g$G" $G "$BM" --gpu $L3 --reps 30 --gpu-comm $PATHS --check none
    run "paths random32M g$G" $G "$BM" --gpu $RND --reps 30 --gpu-comm host --check none
    run "paths mpi-refusal" 2 "$BM" --gpu --gen lap3d 40 --gpu-comm mpi
fi
CR=$((NC < 64 ? NC : 64)) # the CPU runs: a rank per core, and a quarter of that with 4 threads each
if has cpu; then
    run "cpu lap3d400 flat" $CR "$BM" --cpu-compare $L3 --reps 30 --threads 1
    run "cpu lap3d400 x4" $((CR / 4)) "$BM" --cpu-compare $L3 --reps 30 --threads 4
fi
if has cg; then
    # a tolerance lap3d 200 reaches (relres 5.7e-7 at 400 iterations), so every run converges
    CG="--gen lap3d 200 --tol 1e-6 --maxit 2000"
    run "cg gpu g1" 1 "$SO" --gpu $CG $GC
    if [ "$G" -gt 1 ]; then
        run "cg gpu g$G" $G "$SO" --gpu $CG $GC
        # the same without OpenMP binding: the host threads CUDA and NCCL make keep the rank's cores
        echo "== cg gpu g$G nobind" >> "$OUT/runs.log"
        env -u OMP_PROC_BIND -u OMP_PLACES OMP_NUM_THREADS=16 timeout 120 mpirun --allow-run-as-root -n "$G" \
            --map-by "slot:PE=$((NC / G > 16 ? 16 : NC / G))" --bind-to core "$SO" --gpu $CG $GC >> "$OUT/runs.log" 2>&1 ||
            echo "   cg gpu g$G nobind: exit $?" | tee -a "$OUT/runs.log"
        stamp "cg gpu g$G nobind"
    fi
    run "cg cpu flat" $CR "$SO" --cpu-compare $CG --threads 1
fi
if has banded; then
    # one GPU: auto against cuSPARSE per band width (64M entries each) and a stencil, with the copy rate
    for w in 4 16 32 64; do
        echo "== banded w$w" >> "$OUT/runs.log"
        OMP_NUM_THREADS=16 timeout 120 "$BL" --gen banded $((64000000 / (2 * w + 1))) --width $w \
            --kernel auto,stream,light8,light16,light32,cusparse,cusparse-alg2 --reps 20 --check none >> "$OUT/runs.log" 2>&1
    done
    echo "== banded lap3d256" >> "$OUT/runs.log"
    OMP_NUM_THREADS=16 timeout 120 "$BL" --gen lap3d 256 --kernel auto,stream,cusparse --reps 20 --check none >> "$OUT/runs.log" 2>&1
    stamp banded
fi

# ---- the summary -------------------------------------------------------------
awk '
function f(k) { return (k in F) ? F[k] : "-" }
/^== / { label = substr($0, 4); next }
/^bench=(mpi-gpu|solve-gpu|light) / {
    delete F
    for (i = 1; i <= NF; i++) { p = index($i, "="); if (p) F[substr($i, 1, p - 1)] = substr($i, p + 1) }
    if ($1 == "bench=mpi-gpu") {
        chk = f("checked") == 1 ? (f("violations") == 0 ? "ok" : "FAIL") : "-"
        printf "%-22s %-4s %3s %4s %-5s %9.3f %8.1f %7.0f %6.3f %6.3f %7.3f %7.3f %7.3f %7.3f %8.2f %-12s %s\n", label,
               f("device"), f("ranks"), f("gpus"), f("gpu_comm"), f("median_ms"), f("gbs"), f("copy_gbs"), f("copy_frac"),
               f("gpu_frac_min"), f("pack_ms"), f("exchange_ms"), f("local_ms"), f("ghost_ms"), f("halo_bytes") / 1e6,
               f("owned_kernel"), chk > "/dev/stderr"
        key = label; med[key] = f("median_ms"); gfr[key] = f("gpu_frac_min"); nnz[key] = f("nnz"); ng[key] = f("gpus")
    } else if ($1 == "bench=solve-gpu") {
        cg[++ncg] = sprintf("%-22s %-4s ranks %-3s comm %-5s iterations %-5s its/s %9s  relres %s  max|x-1| %s  spmv_ms %s exchange_ms %s host_mask %s", label,
                            f("device"), f("ranks"), f("gpu_comm"), f("iterations"), f("its_per_s"), f("relres"), f("err_max"),
                            f("spmv_ms"), f("exchange_ms"), f("host_mask"))
        its[label] = f("its_per_s")
    } else {
        bl[++nbl] = sprintf("%-18s %-14s %-8s %9s ms %8s GB/s copy %6s  vs_cusparse %s", label, f("kernel"), f("picked"),
                            f("median_ms"), f("gbs"), f("copy_frac"), f("vs_cusparse"))
    }
}
END {
    print ""
    for (i = 1; i <= ncg; i++) print cg[i]
    for (i = 1; i <= nbl; i++) print bl[i]
    print ""
    print "targets (" G " GPUs):"
    gG = "g" G
    r = "strong lap3d400 g"; t = 0.8 * G
    if (G > 1 && (r "1") in med && (r G) in med) { x = med[r "1"] / med[r G]; printf "  lap3d 400: %d GPUs %.2fx one (target >= %.2f) %s\n", G, x, t, (x >= t ? "MET" : "MISSED") }
    if (G > 2 && (r "1") in med && (r "2") in med) printf "  lap3d 400: 2 GPUs %.2fx one\n", med[r "1"] / med[r "2"]
    r = "strong random32M g"; t = 0.625 * G
    if (G > 1 && (r "1") in med && (r G) in med) { x = med[r "1"] / med[r G]; printf "  random 32M x 16: %d GPUs %.2fx one (target >= %.2f) %s\n", G, x, t, (x >= t ? "MET" : "MISSED") }
    if (G > 2 && (r "1") in med && (r "2") in med) printf "  random 32M x 16: 2 GPUs %.2fx one\n", med[r "1"] / med[r "2"]
    w["1"] = "weak lap3d254 g1"; w["2"] = "weak lap3d320 g2"; w["4"] = "strong lap3d400 g4"
    if (w["1"] in med) {
        base = nnz[w["1"]] / med[w["1"]]
        for (k = 2; k <= G; k *= 2) if (w[k] in med) { e = nnz[w[k]] / med[w[k]] / k / base; printf "  weak, %d GPUs: per-GPU rate %.3f of one GPU (target >= 0.9) %s\n", k, e, (e >= 0.9 ? "MET" : "MISSED") }
    }
    split("strong lap3d400 ,strong random32M ", ks, ",")
    for (j = 1; G > 1 && j <= 2; j++) {
        a = ks[j] "g1"; b = ks[j] gG
        if (a in gfr && b in gfr && gfr[a] > 0) { e = gfr[b] / gfr[a]; printf "  %s: slowest GPU at %d GPUs reaches %.3f of its copy rate, one GPU %.3f: ratio %.3f (target >= 0.8) %s\n", ks[j], G, gfr[b], gfr[a], e, (e >= 0.8 ? "MET" : "MISSED") }
    }
    c1 = "cpu lap3d400 flat"; c2 = "cpu lap3d400 x4"; gl = "strong lap3d400 " gG
    if (gl in med && c1 in med) printf "  lap3d 400: %d GPUs %.1fx the CPU, a rank per core\n", G, med[c1] / med[gl]
    if (gl in med && c2 in med) printf "  lap3d 400: %d GPUs %.1fx the CPU, ranks of 4 threads\n", G, med[c2] / med[gl]
    cc = "cg cpu flat"; cgl = "cg gpu " gG
    if (cc in its && its[cc] > 0 && ("cg gpu g1") in its) printf "  CG lap3d 200: 1 GPU %.1fx the CPU (a rank per core) in iterations/s\n", its["cg gpu g1"] / its[cc]
    if (G > 1 && cc in its && its[cc] > 0 && cgl in its) printf "  CG lap3d 200: %d GPUs %.1fx the CPU, %.2fx one GPU\n", G, its[cgl] / its[cc], ("cg gpu g1" in its && its["cg gpu g1"] > 0) ? its[cgl] / its["cg gpu g1"] : 0
    if (G > 1 && (cgl " nobind") in its && ("cg gpu g1") in its && its["cg gpu g1"] > 0) printf "  CG lap3d 200: %d GPUs without OMP_PROC_BIND %.2fx one GPU\n", G, its[cgl " nobind"] / its["cg gpu g1"]
}' G="$G" "$OUT/runs.log" > "$OUT/summary.tail" 2> "$OUT/summary.head"
{
    echo "label                  dev  rks gpus comm   median_ms     GB/s copyGB/s  %copy gpufrac pack_ms exch_ms local_ms ghost_ms halo_MB owned_kernel check"
    cat "$OUT/summary.head" "$OUT/summary.tail"
    grep -h -E 'error|refused|FAIL' "$OUT/runs.log" | sort | uniq -c | head -12
    [ -f "$OUT/skipped.txt" ] && cat "$OUT/skipped.txt"
    [ -f "$OUT/test.log" ] && grep -E '^gpu-dist:' "$OUT/test.log"
} | tee "$OUT/summary.txt"
stamp done
