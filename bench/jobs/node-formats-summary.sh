#!/bin/sh
# node-formats-summary.sh — the table node-formats.sh and node-formats-2cores.sh
# print: per matrix, hspmv's median per format (from OUT/omp-M.txt,
# benchmark-omp's bench=omp lines over the passes), the peers' medians
# (OUT/peers-M.txt), bytes per nonzero by the format's model, the median
# fraction of the triad, and the ratios of the medians.
#   bench/jobs/node-formats-summary.sh OUT M...
# Needs awk; reads only those files (a matrix without both is left out) and
# prints on stdout.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
[ $# -ge 1 ] || { echo "usage: $0 OUT M..." >&2; exit 2; }
OUT=$1; shift
for m in "$@"; do
  [ -s "$OUT/omp-$m.txt" ] && [ -s "$OUT/peers-$m.txt" ] || continue
  awk -v m="$m" '
    FNR == 1 { file++ }
    file == 1 && /^bench=omp / { f = ""; a = ""; t = 0; b = 0; n = 1; by = 0
      for (i = 1; i <= NF; i++) { split($i, kv, "=")
        if (kv[1] == "format") f = kv[2]; if (kv[1] == "asked") a = kv[2]; if (kv[1] == "median_ms") t = kv[2]
        if (kv[1] == "frac_triad") b = kv[2]; if (kv[1] == "bytes") by = kv[2]; if (kv[1] == "nnz") n = kv[2] }
      k = (a == "auto" ? "auto->" f : f); ms[k] = ms[k] " " t; fr[k] = fr[k] " " b; bpn[k] = by / n }
    file == 2 && /^peer=/ { split($1, kv, "="); p = kv[2]
      for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "median_ms") pm[p] = pm[p] " " kv[2] } }
    function med(s,   a, n, i, j, t) { n = split(s, a, " "); if (n == 0) return 0
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { nv = med(pm["naive_csr_omp"]); rs = med(pm["librsb"])
      printf "== %s: peers naive %s ms (median of%s), librsb %s ms (median of%s)\n", m, nv, pm["naive_csr_omp"], rs, pm["librsb"]
      for (k in ms) { t = med(ms[k]); printf "  %-14s median %7.3f ms (passes%s)  %5.2f B/nnz  triad %.2f  naive/hspmv %.2f  librsb/hspmv %.2f\n", k, t, ms[k], bpn[k], med(fr[k]), (t > 0 ? nv / t : 0), (t > 0 ? rs / t : 0) } }
  ' "$OUT/omp-$m.txt" "$OUT/peers-$m.txt"
done
