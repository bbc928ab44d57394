#!/bin/sh
# read-threads.sh — one process reading a Matrix Market file into CSR with 1
# and 2 threads (benchmark-naive --read-only), passes interleaved: median
# seconds and MB/s per thread count and their ratio; the load average before
# and after, since only a quiet machine gives figures.
#   bench/jobs/read-threads.sh [matrix] [passes] [threads...]
# Default: /tmp/l3r200.mtx (made with genmat lap3d 200 --values random, 1.56
# GB of text, when missing; delete it afterwards), 5 passes, threads 1 2.
# Any machine; run from the repository root after `make programs`. Results
# on stdout only.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
M=${1:-/tmp/l3r200.mtx}; N=${2:-5}
[ $# -gt 2 ] && shift 2 && TH="$*" || TH="1 2"
[ -s "$M" ] || ./genmat lap3d 200 --values random -o "$M" || exit 1
cat "$M" > /dev/null # in the page cache
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
out=$(mktemp)
for i in $(seq "$N"); do
    for t in $TH; do
        OMP_NUM_THREADS=$t ./benchmark-naive "$M" --read-only | grep '^bench=naive-read' >> "$out"
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
  function v(k,   i, a) { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return "" }
  { t = v("threads"); n[t]++; s[t, n[t]] = v("read_s"); mb = v("text_mb") }
  END {
    for (t in n) {
      for (i = 1; i <= n[t]; i++) for (j = i + 1; j <= n[t]; j++) if (s[t, j] < s[t, i]) { x = s[t, i]; s[t, i] = s[t, j]; s[t, j] = x }
      k = n[t]; med[t] = k % 2 ? s[t, (k + 1) / 2] : (s[t, k / 2] + s[t, k / 2 + 1]) / 2
      printf "threads %s: median read_s %.3f (%d passes, min %.3f, max %.3f), %.0f MB/s\n", t, med[t], k, s[t, 1], s[t, k], mb / med[t]
    }
    for (t in n) if (t != 1 && med[1] > 0) printf "threads %s vs 1: %.2fx\n", t, med[1] / med[t]
  }' "$out" | sort
rm -f "$out"
