#!/bin/bash
# device_run.sh — one call on the GPU machine: build with CUDA, run test-gpu
# (both precisions), then the benchmark table on generated matrices and the
# vector-width sweeps behind the hybrid rule. Logs go to $OUT (or /tmp/gpu-out).
#   tests/gpu/device_run.sh [all|test|bench|sweep|tune|table|panels]...
# tune: the lean table of the cache-hint pass (every kernel in hint modes
# 0, 1, 2 and auto's parts timed alone on the power-law matrix); not in all.
# table: the short final table (auto with and without column panels, cuSPARSE); not in all.
# panels: auto with column panels of several widths on the scattered
# matrices (power law, random), both precisions; not in all.
set -u
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
what=${*:-all}
has() { case " $what " in *" all "*|*" $1 "*) return 0;; esac; return 1; }
M="make -j16 --no-print-directory CUDA=1 NO_ZLIB=1 NO_MPI=1 BUILD_SUFFIX=-dev"
T0=$(date +%s)
stamp() { echo "[t=$(( $(date +%s) - T0 ))s] $*"; }

nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
stamp build
$M PRECISION=single gpu-build-one > "$OUT/build.log" 2>&1 && $M PRECISION=double gpu-build-one >> "$OUT/build.log" 2>&1 \
    && $M PRECISION=double gpu-programs >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }

if has test; then
    stamp test-gpu
    $M test-gpu > "$OUT/test-gpu.log" 2>&1
    grep -E '^(FAIL|== |   test_gpu|GPU|[0-9]+ passed)|FAIL|off the|\(' "$OUT/test-gpu.log" | head -60
fi

B="timeout 300 ./benchmark-light"
if has bench; then
    stamp bench
    {
        $B --gen lap2d 4096 --kernel all --reps 30
        $B --gen lap3d 256 --kernel all --reps 30
        $B --gen lap2d 5000 --kernel naive,stream,light,auto,cusparse,cusparse-alg2 --reps 30
        $B --gen lap3d 300 --kernel naive,stream,light,auto,cusparse,cusparse-alg2 --reps 30
        $B --gen random 8000000 --k 16 --kernel all --reps 30
        $B --gen banded 2000000 --width 32 --kernel all --reps 30
        $B --gen powerlaw 8000000 --k 10 --kernel auto,cusparse,cusparse-alg2,light32 --reps 20
    } > "$OUT/bench.log" 2>&1
    stamp bench-single
    $M PRECISION=single gpu-programs >> "$OUT/build.log" 2>&1
    {
        $B --gen lap3d 256 --kernel naive,stream,light,auto,cusparse,cusparse-alg2 --reps 30
        $B --gen random 8000000 --k 16 --kernel naive,stream,light,auto,cusparse,cusparse-alg2 --reps 30
        $B --gen powerlaw 8000000 --k 10 --kernel auto,cusparse,cusparse-alg2 --reps 20
    } >> "$OUT/bench.log" 2>&1
    $M PRECISION=double gpu-programs >> "$OUT/build.log" 2>&1
fi

if case " $what " in *" tune "*) true;; *) false;; esac; then
    stamp tune
    H="--hints 0,1,2"
    {
        $B --gen powerlaw 8000000 --k 10 --kernel auto,cusparse,cusparse-alg2 --parts $H --reps 20
        $B --gen random 8000000 --k 16 --kernel stream,light8,auto,cusparse,cusparse-alg2 $H --reps 30
        $B --gen lap2d 4096 --kernel naive,stream,auto,cusparse $H --reps 30
        $B --gen lap3d 256 --kernel naive,stream,auto,cusparse $H --reps 30
        $B --gen banded 2000000 --width 32 --kernel stream,light16,auto,cusparse $H --reps 30
    } > "$OUT/bench.log" 2>&1
    stamp tune-single
    $M PRECISION=single gpu-programs >> "$OUT/build.log" 2>&1
    {
        $B --gen powerlaw 8000000 --k 10 --kernel auto,cusparse,cusparse-alg2 --parts $H --reps 20
        $B --gen random 8000000 --k 16 --kernel stream,auto,cusparse,cusparse-alg2 $H --reps 30
        $B --gen lap3d 256 --kernel naive,stream,auto,cusparse $H --reps 30
    } >> "$OUT/bench.log" 2>&1
    $M PRECISION=double gpu-programs >> "$OUT/build.log" 2>&1
fi

if case " $what " in *" table "*) true;; *) false;; esac; then
    stamp table
    {
        $B --gen powerlaw 8000000 --k 10 --kernel auto,cusparse,cusparse-alg2 --panels -1,0 --reps 20
        $B --gen random 8000000 --k 16 --kernel stream,auto,cusparse,cusparse-alg2 --panels -1,0 --reps 30
        $B --gen lap2d 4096 --kernel naive,auto,cusparse --reps 30
        $B --gen lap3d 256 --kernel stream,auto,cusparse --reps 30
        $B --gen banded 2000000 --width 32 --kernel auto,cusparse --reps 30
    } > "$OUT/bench.log" 2>&1
    stamp table-single
    $M PRECISION=single gpu-programs >> "$OUT/build.log" 2>&1
    {
        $B --gen powerlaw 8000000 --k 10 --kernel auto,cusparse,cusparse-alg2 --panels -1,0 --reps 20
        $B --gen random 8000000 --k 16 --kernel stream,auto,cusparse,cusparse-alg2 --panels -1,0 --reps 30
        $B --gen lap3d 256 --kernel naive,auto,cusparse --reps 30
    } >> "$OUT/bench.log" 2>&1
    $M PRECISION=double gpu-programs >> "$OUT/build.log" 2>&1
fi

if case " $what " in *" panels "*) true;; *) false;; esac; then
    # auto without panels, with the library's rule, and with 2, 3, 4 and 5 panels on 8M columns
    for prec in double single; do
        stamp "panels $prec"
        $M PRECISION=$prec gpu-programs >> "$OUT/build.log" 2>&1
        for m in "powerlaw 8000000 --k 10" "random 8000000 --k 16"; do
            $B --gen $m --kernel auto,cusparse --panels 0,-1,4000000,2666667,2000000,1600000 --reps 20
        done >> "$OUT/bench.log" 2>&1
    done
    $M PRECISION=double gpu-programs >> "$OUT/build.log" 2>&1
fi

if has sweep; then
    stamp sweep
    K=naive,stream,light2,light4,light8,light16,light32,cusparse
    {
        for k in 2 4 6 8 10 12 16 24 32 48 64 96 128 192 256; do
            $B --gen random $((64000000 / k)) --k $k --kernel $K --reps 20 --check none | grep '^bench='
        done
        for w in 1 2 3 4 6 8 12 16 24 32 48 64 128; do
            $B --gen banded $((64000000 / (2 * w + 1))) --width $w --kernel $K --reps 20 --check none | grep '^bench='
        done
    } > "$OUT/sweep.log" 2>&1
fi
stamp done

# The table: one line per (matrix, precision, kernel).
summ() {
    awk '/^bench=light/ {
        for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
        k = f["kernel"]; if (("hints" in f) && f["hints"] >= 0) k = k "/h" f["hints"]
        if (("panel_cols" in f) && f["panel_cols"] > 0) k = k "/p" f["panel_cols"] ":" f["panel_kernel"]
        printf "%-28s %-6s %-30s %-8s %9.4f %8.1f %6.3f %7.3f %s\n", f["matrix"], f["precision"], k, f["picked"],
               f["median_ms"], f["gbs"], f["copy_frac"], f["vs_cusparse"], (f["checked"] == 1 ? (f["violations"] == 0 ? "ok" : "FAIL") : "-")
    }' "$@"
}
if [ -f "$OUT/bench.log" ]; then
    echo "matrix                       prec   kernel         picked   median_ms     GB/s  %copy  x_cusp check"
    summ "$OUT/bench.log" | tee "$OUT/table.txt"
    grep -E '^  (hybrid rule|copy yardstick)|^matrix=' "$OUT/bench.log"
    grep -E 'error|FAILED|Timeout|timed out' "$OUT/bench.log" | head
fi
if [ -f "$OUT/sweep.log" ]; then
    # sweep: fastest kernel per matrix, and each kernel's time over the fastest
    awk '/^bench=light/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
         m = f["matrix"]; if (!(m in best) || f["median_ms"] < best[m]) { best[m] = f["median_ms"]; bk[m] = f["kernel"] }
         t[m, f["kernel"]] = f["median_ms"]; mean[m] = f["mean_row"]; if (!(m in seen)) { seen[m] = 1; order[n++] = m } }
         END { printf "%-26s %7s %-8s", "sweep matrix", "mean", "best"; split("naive stream light2 light4 light8 light16 light32 cusparse", K, " ");
               for (j = 1; j <= 8; j++) printf " %7s", K[j]; printf "\n";
               for (q = 0; q < n; q++) { m = order[q]; printf "%-26s %7.2f %-8s", m, mean[m], bk[m];
                 for (j = 1; j <= 8; j++) printf " %7.3f", t[m, K[j]] / best[m]; printf "\n" } }' "$OUT/sweep.log" | tee "$OUT/sweep_table.txt"
fi
