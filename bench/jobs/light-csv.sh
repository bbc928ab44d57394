#!/bin/bash
# light-csv.sh — the GPU side of the one CSV schema: builds benchmark-light
# (make CUDA=1), runs run_all-light.sh --csv on the bundled matrices with few
# repetitions, and checks the real CSV as tests/scripts/test_csv_schema.sh
# checks the stand-in's: the header of scripts/csv.sh, full rows, bench
# "light", the run's facts filled, cuSPARSE's own vs_cusparse 1, and the
# benchmark's bench=light lines ending with the facts. Needs a CUDA GPU and
# nvcc; writes OUT (default results/light-csv): light.csv, run.txt, check.txt.
#   bench/jobs/light-csv.sh
set -u
# --help: the comment above, as usage
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
OUT=${OUT:-results/light-csv}; mkdir -p "$OUT"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
make -j"$(nproc)" CUDA=1 NVCC="$NVCC" programs gpu-programs > "$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
rm -f "$OUT/light.csv"
sh run_all-light.sh ./benchmark-light matrices --csv "$OUT/light.csv" --reps 5 --warmup 2 > "$OUT/run.txt" 2>&1
rc=$?
header=$(. scripts/csv.sh && echo "$csv_header")
{
  echo "run_all-light.sh exit $rc"
  [ "$(head -n 1 "$OUT/light.csv")" = "$header" ] && echo "ok header" || echo "FAIL header"
  awk -F, 'NR == 1 { n = NF; next } { r++; if (NF != n) bad = 1 } END { print (bad || !r ? "FAIL" : "ok") " full rows (" r ")" }' "$OUT/light.csv"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
           $c["bench"] != "light" || $c["version"] == "" || $c["commit"] == "" || $c["date"] !~ /Z$/ { bad++ }
           $c["kernel"] == "cusparse" && $c["vs_cusparse"] + 0 != 1 { badc++ }
           END { print (bad ? "FAIL" : "ok") " bench and facts; " (badc ? "FAIL" : "ok") " cusparse vs_cusparse 1" }' "$OUT/light.csv"
  n=$(grep -c '^bench=light ' "$OUT/run.txt")
  f=$(grep '^bench=light ' "$OUT/run.txt" | grep -c ' version=[^ ]* commit=[^ ]* host=[^ ]* date=[^ ]*Z compiler=[^ ]* progress=auto ranks=1 threads=1$')
  [ "$n" -gt 0 ] && [ "$n" = "$f" ] && echo "ok $n bench=light lines end with the facts" || echo "FAIL bench=light facts ($f of $n)"
} | tee "$OUT/check.txt"
! grep -q FAIL "$OUT/check.txt" && [ $rc = 0 ]
