#!/bin/sh
# test_plot.sh — scripts/plot on what the programs and scripts write: the
# CSV schema of the run_all scripts (taken from scripts/csv.sh, which they
# share) and the older per-script columns, benchmark-mpi --json lines and bench= key=value lines in a job
# output; the numbers behind each figure (--table) checked against the input,
# the PNGs checked for their signature and size, 16 triad series in 16
# colours with the legend clear of the bars, and bad input refused.
# Skipped without a python3 that has matplotlib. Ends with "N passed, N failed, N skipped".
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
plot=$root/scripts/plot
P=0; F=0; S=0
ok() { P=$((P + 1)); echo "ok $1"; }
bad() { F=$((F + 1)); echo "FAIL $1"; [ -f "$t/out" ] && sed 's/^/    /' "$t/out" | head -20; }
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
py=""
for p in python3 /usr/bin/python3; do
    command -v "$p" > /dev/null 2>&1 && "$p" -c 'import matplotlib' > /dev/null 2>&1 && { py=$p; break; }
done
if [ -z "$py" ]; then
    echo "skip scripts/plot tests: no python3 with matplotlib (Debian: apt-get install python3-matplotlib)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
png_ok() { # a PNG signature, and small
    [ -f "$1" ] && [ "$(head -c 8 "$1" | od -An -c | tr -d ' \n')" = '211PNG\r\n032\n' ] &&
        [ "$(wc -c < "$1")" -lt 200000 ]
}

# the run_all scripts' CSV header (scripts/csv.sh); lap at 1, 2 (twice: the median counts) and 4 cores
mpih=$(. "$root/scripts/csv.sh" && echo "$csv_header")
row() { # matrix ranks threads median_ms
    echo "$mpih" | tr ',' '\n' | awk -v m="$1" -v r="$2" -v th="$3" -v ms="$4" '
        { v = "1" } $1 == "bench" { v = "mpi" } $1 == "matrix" { v = m } $1 == "ranks" { v = r } $1 == "threads" { v = th }
        $1 == "median_ms" { v = ms } $1 == "partition" { v = "nnz" } $1 == "precision" { v = "double" }
        { printf "%s%s", (NR > 1 ? "," : ""), v } END { print "" }'
}
{ echo "$mpih"
  row /x/lap.mtx 1 1 8.0; row /x/lap.mtx 2 1 5.0; row /x/lap.mtx 2 1 4.0; row /x/lap.mtx 2 1 4.2
  row /x/lap.mtx 1 2 4.4; row /x/lap.mtx 4 1 2.5; row /y/rand.mtx.gz 1 1 10; row /y/rand.mtx.gz 2 1 8; } > mpi.csv
"$plot" --out . --kind scaling --table mpi.csv > out 2>&1
rc=$?
check "scaling from run_all-mpi.sh's CSV: a PNG, exit 0" test $rc = 0 -a -n "$(grep '^./hspmv-scaling.png$' out)"
check "scaling PNG has the PNG signature and is small" png_ok hspmv-scaling.png
check "scaling: speedup = t(1 core) / t, repeated runs by their median (2 cores: 8/4.2)" \
    test -n "$(grep '^scaling matrix=lap cores=2 ranks=2 threads=1 median_ms=4.2 speedup=1.905 ideal=2$' out)" \
    -a -n "$(grep '^scaling matrix=lap cores=2 ranks=1 threads=2 median_ms=4.4 speedup=1.818 ideal=2$' out)" \
    -a -n "$(grep '^scaling matrix=lap cores=4 ranks=4 threads=1 median_ms=2.5 speedup=3.2 ideal=4$' out)" \
    -a -n "$(grep '^scaling matrix=rand cores=2 .*speedup=1.25 ' out)"

# one core count (2 ranks x 1 thread and 1 x 2): no scaling figure, and it says so
{ echo "$mpih"; row /x/lap.mtx 2 1 5.0; row /x/lap.mtx 1 2 4.0; row /y/rand.mtx.gz 2 1 8; } > one.csv
rm -f hspmv-scaling.png
"$plot" --out . --kind scaling one.csv > out 2>&1
check "one core count: no scaling figure, 'only one core count', exit 1" \
    test $? = 1 -a ! -e hspmv-scaling.png -a -n "$(grep '^plot: no scaling figure (only one core count: 2)$' out)"

# benchmark-mpi --json lines (as the program prints them, nested formats object included)
for r in 1 2 4; do
    printf '{"bench":"mpi","matrix":"m/lap3d.mtx","ranks":%d,"threads":1,"formats":{"csr":%d},"median_ms":%s,"gbs":3,"triad_gbs":6}\n' \
        "$r" "$r" "$(echo "$r" | awk '{print 12 / $1}')"
done > mpi.json
"$plot" --out . --table mpi.json > out 2>&1
check "JSON lines from benchmark-mpi --json: scaling and triad (gbs / triad_gbs = 0.5)" \
    test $? = 0 -a -n "$(grep '^scaling matrix=lap3d cores=4 ranks=4 threads=1 median_ms=3 speedup=4 ideal=4$' out)" \
    -a -n "$(grep '^triad panel=ranks_x_threads matrix=lap3d series=mpi_4x1 fraction=0.5$' out)"

# run_all-omp.sh's CSV columns, with a triad (the schema; then the columns
# before it, which files written earlier have)
omph=$mpih
ob=omp
orow() { # matrix threads format asked frac
    echo "$omph" | tr ',' '\n' | awk -v m="$1" -v th="$2" -v f="$3" -v a="$4" -v fr="$5" '
        { v = "1" } $1 == "bench" { v = "'"$ob"'" } $1 == "matrix" { v = m } $1 == "threads" { v = th } $1 == "format" { v = f }
        $1 == "asked" { v = a } $1 == "frac_triad" { v = fr } $1 == "precision" { v = "double" }
        { printf "%s%s", (NR > 1 ? "," : ""), v } END { print "" }'
}
{ echo "$omph"; orow a.mtx 1 csr csr 0.8; orow a.mtx 1 csr16 csr16 0.9; orow a.mtx 1 csr16 auto 0.88
  orow a.mtx 2 csr csr 0.7; orow b.mtx 1 csr csr 0.25; } > omp.csv
"$plot" --out . --kind triad --table omp.csv > out 2>&1
check "triad from run_all-omp.sh's CSV: per matrix, format and thread count; auto named by its choice" \
    test $? = 0 -a -n "$(grep '^triad panel=1_thread matrix=a series=auto>csr16 fraction=0.88$' out)" \
    -a -n "$(grep '^triad panel=2_threads matrix=a series=csr fraction=0.7$' out)" \
    -a -n "$(grep '^triad panel=1_thread matrix=b series=csr fraction=0.25$' out)"
check "triad PNG has the PNG signature and is small" png_ok hspmv-triad.png
omph="matrix,rows,cols,nnz,precision,threads,format,asked,isa,seg_ratio,reps,median_ms,min_ms,max_ms,gflops,gbs,triad_gbs,frac_triad,max_rel,avg_rel,violations"
{ echo "$omph"; orow o.mtx 1 csr csr 0.8; orow o.mtx 1 csr16 auto 0.88; } > old.csv
# the schema with an absent triad (empty) is no bar, not a bar at 0
omph=$mpih
{ echo "$omph"; orow g.mtx 1 csr csr 0.8; orow g.mtx 1 csrl csrl ""; } > gap.csv
"$plot" --out . --kind triad --table old.csv gap.csv > out 2>&1
check "triad from an older run_all-omp.sh CSV (no bench column)" \
    test $? = 0 -a -n "$(grep '^triad panel=1_thread matrix=o series=auto>csr16 fraction=0.88$' out)"
check "an empty frac_triad is no bar" \
    test -n "$(grep 'matrix=g series=csr fraction=0.8$' out)" -a -z "$(grep 'matrix=g series=csrl' out)"

# 16 series: 16 colours, and the legend right of every panel's bars
"$py" - "$plot" > out 2>&1 <<'PY'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("plotmod", sys.argv[1])
spec = importlib.util.spec_from_loader("plotmod", loader)
m = importlib.util.module_from_spec(spec); loader.exec_module(m)
plt = m.need_matplotlib()
styles = m.series_styles(plt, 16)
assert len(set((tuple(c), h) for c, h in styles)) == 16, "16 series, fewer styles"
assert len(set(tuple(c) for c, _ in styles)) == 16, "16 series, fewer colours"
recs = [{"bench": "omp", "matrix": "m%d.mtx" % i, "threads": "1", "format": "f%02d" % j, "asked": "f%02d" % j,
         "frac_triad": str(0.5 + 0.01 * j)} for i in range(3) for j in range(16)]
fig, why = m.plot_triad(plt, recs, "", [])
fig.canvas.draw()
r = fig.canvas.get_renderer()
for ax in fig.axes:
    leg, box = ax.get_legend(), ax.get_window_extent(r)
    assert leg is not None and len(leg.get_texts()) == 16, "a legend of 16 entries"
    lb = leg.get_window_extent(r)
    assert lb.x0 >= box.x1 - 1, "the legend overlaps the axes (%s vs %s)" % (lb, box)
print("ok")
PY
check "16 triad series get 16 colours, the legend outside the axes" test "$(tail -n 1 out)" = ok

# bench=light key=value lines inside a job's output
{ echo "some job output"
  echo "bench=light matrix=/d/pl.mtx precision=double kernel=auto hints=1 panel_cols=100 panel_kernel=stream picked=stream median_ms=1 vs_cusparse=2.21"
  echo "bench=light matrix=/d/pl.mtx precision=double kernel=cusparse hints=1 panel_cols=0 picked=cusparse median_ms=2.2 vs_cusparse=1"
  echo "bench=light matrix=/d/pl.mtx precision=single kernel=naive hints=1 panel_cols=0 picked=naive median_ms=3 vs_cusparse=0.5"
  echo "done"; } > light.out
"$plot" --out . --kind gpu --table light.out > out 2>&1
check "gpu from bench=light lines in a job output: against cuSPARSE, cuSPARSE itself left out" \
    test $? = 0 -a -n "$(grep '^gpu precision=double matrix=pl kernel=auto(stream)/panels vs_cusparse=2.21$' out)" \
    -a -n "$(grep '^gpu precision=single matrix=pl kernel=naive vs_cusparse=0.5$' out)" -a -z "$(grep 'kernel=cusparse' out)"
check "gpu PNG has the PNG signature and is small" png_ok hspmv-gpu.png

# refusals
echo "nothing to see" > empty.txt
"$plot" --out . empty.txt > out 2>&1
check "a file without results: exit 1, says so" test $? = 1 -a -n "$(grep 'empty.txt: no benchmark results' out)"
"$plot" --out . --kind gpu mpi.csv > out 2>&1
check "--kind gpu on MPI results: exit 1, says what is missing" test $? = 1 -a -n "$(grep 'no gpu figure' out)"
"$plot" --out . no-such-file.csv > out 2>&1
check "a missing file: exit 2, with the reason" test $? = 2 -a -n "$(grep 'cannot read no-such-file.csv: No such file' out)"
"$plot" --out no/such/dir mpi.csv > out 2>&1
check "--out to a missing folder: exit 2" test $? = 2 -a -n "$(grep 'no folder no/such/dir' out)"
"$plot" --kind bogus mpi.csv > out 2>&1
check "--kind bogus: usage error, exit 2" test $? = 2
"$plot" --help > out 2>&1
check "--help: exit 0, the usage" test $? = 0 -a -n "$(grep '^usage: plot ' out)"
ver=$(awk '/^#define HSPMV_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $3; s = "."} END {print v}' "$root/include/hspmv.h")
"$plot" --version > out 2>&1
check "--version: exit 0, 'plot hspmv $ver'" test $? = 0 -a "$(cat out)" = "plot hspmv $ver"

echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
