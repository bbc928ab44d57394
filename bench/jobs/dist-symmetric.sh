#!/bin/bash
# dist-symmetric.sh — one triangle across ranks against both triangles, on
# the 16-core host: benchmark-mpi at 16 ranks x 1 thread (halo p2p with
# --symmetric no, --symmetric auto, no again as the control, and the default
# node halo with both triangles), then solve --method cg at 16x1 and 1x16
# with --symmetric no and auto on lap3d27 and fem3d, in interleaved rounds; a summary with the
# byte model's ratio beside each measured one.
#   bench/jobs/dist-symmetric.sh [ROUNDS]   (default 9; the first round warms
#   the machine while fem3d is made, and the summary leaves it out; BUDGET
#   seconds, default 470: no round starts after it)
# Matrices, real values: --gen lap3d N3 (200) and lap3d27 N27 (150) (each rank makes
# its rows), and genmat fem3d NF (default 70, 3 unknowns a node) --values
# random --symmetric converted to PETSc binary (both triangles, so the
# library's check across the ranks finds the symmetry; read by MPI-IO).
# Results under $OUT (default results/scaling): bm.txt, cg.txt (tagged
# key=value lines), summary.txt.
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
ROUNDS=${1:-9} BUDGET=${BUDGET:-470} NF=${NF:-70} N3=${N3:-200} N27=${N27:-150}
NP=${NP:-16} BINDP=${BINDP:-core} # a trial elsewhere: NP=4 BINDP=none and small sizes
export NCCL_NVLS_ENABLE=0
. bench/jobs/job-env.sh
echo "build done t=$((SECONDS-T0))"
: > $OUT/bm.txt; : > $OUT/cg.txt
F=$D/fem$NF.petsc
[ -s $F ] || { ./genmat fem3d $NF --values random --symmetric -o $D/fem.mtx > /dev/null &&
               ./convert $D/fem.mtx $F > /dev/null && rm -f $D/fem.mtx; } &
FEMJOB=$!
declare -A SRC=([l3]="--gen lap3d $N3 --values random" [l27]="--gen lap3d27 $N27 --values random" [fem]="$F")
MPI="mpirun -n $NP --bind-to $BINDP"
bm() { # tag matrix options...: one benchmark-mpi run at 16x1
  timeout 120 $MPI ./benchmark-mpi ${SRC[$2]} --threads 1 --reps 40 "${@:3}" 2>&1 |
    grep "^bench=mpi" | sed "s|^|round=$R tag=$1 mat=$2 |" >> $OUT/bm.txt
}
cg() { # tag matrix ranks threads options...
  OMP_NUM_THREADS=$4 timeout 120 mpirun -n $3 --bind-to ${BIND:-core} ./solve ${SRC[$2]} --threads $4 \
    --tol 1e-30 --maxit 40 --reps 3 "${@:5}" 2>&1 |
    grep "^bench=solve" | sed "s|^|round=$R tag=$1 mat=$2 ranks_run=$3 |" >> $OUT/cg.txt
}
for R in $(seq $ROUNDS); do
  [ $((SECONDS-T0)) -lt $BUDGET ] || { echo "round $R skipped: past BUDGET=$BUDGET s"; break; }
  [ $R = 1 ] || wait $FEMJOB 2>/dev/null
  mats="l3 l27"; [ -s $F ] && mats="$mats fem"
  for m in $mats; do
    if [ $((R % 2)) = 1 ]; then bm no $m --halo p2p --symmetric no; bm sym $m --halo p2p --symmetric auto
    else bm sym $m --halo p2p --symmetric auto; bm no $m --halo p2p --symmetric no; fi
    bm ctl $m --halo p2p --symmetric no
    bm node $m --symmetric no
  done
  for m in l27 $( [ -s $F ] && echo fem ); do
    for rt in "$NP 1" "1 $NP"; do
      set -- $rt; B=$BINDP; [ $1 = 1 ] && B=none
      BIND=$B cg sym $m $1 $2 --symmetric auto; BIND=$B cg no $m $1 $2 --symmetric no
    done
  done
  echo "round $R t=$((SECONDS-T0))"
done
# medians; ratios per round (no/sym: above 1, one triangle faster; no/ctl: the control)
awk '
function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : "-" }
function lo(s,   a, n, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]; return n ? m : "-" }
function hi(s,   a, n, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 > m + 0) m = a[i]; return n ? m : "-" }
{ split("", v); for (i = 1; i <= NF; i++) { e = index($i, "="); if (e) v[substr($i, 1, e - 1)] = substr($i, e + 1) }
  if (v["round"] == 1) next }
FILENAME ~ /bm.txt$/ { k = v["mat"]; mats[k] = 1; T[v["round"], k, v["tag"]] = v["median_ms"]; rounds[v["round"]] = 1
  MS[k, v["tag"]] = MS[k, v["tag"]] " " v["median_ms"]; RSS[k, v["tag"]] = v["rss_mb"]; SY[k, v["tag"]] = v["symmetric"]
  N[k] = v["nnz"]; ROWS[k] = v["rows"]; CHK[k] = v["sym_check_s"] > CHK[k] ? v["sym_check_s"] : CHK[k] }
FILENAME ~ /cg.txt$/ { k = v["mat"] " " v["ranks_run"]; cgk[k] = 1; C[v["round"], k, v["tag"]] = v["ms_per_iter"]
  CM[k, v["tag"]] = CM[k, v["tag"]] " " v["ms_per_iter"]; CS[k, v["tag"]] = v["symmetric"] }
END {
  print "benchmark-mpi, " np " ranks x 1 thread: median ms (median of 40 products, per round); ratio = no/sym per round"
  print "model = issue model: full 8.2 B/entry + x + y; one triangle (nnz+rows)/2 entries + x + y read and written"
  printf "%-4s %9s %9s %9s %9s %18s %18s %7s %8s %8s %6s\n", "mat", "no", "sym", "ctl", "node", "no/sym med (lo-hi)", "no/ctl med (lo-hi)", "model", "rss_no", "rss_sym", "check"
  for (k in mats) { r1 = r2 = ""; for (R in rounds) { if (T[R, k, "sym"] > 0 && T[R, k, "no"] > 0) r1 = r1 " " T[R, k, "no"] / T[R, k, "sym"]
      if (T[R, k, "ctl"] > 0 && T[R, k, "no"] > 0) r2 = r2 " " T[R, k, "no"] / T[R, k, "ctl"] }
    z = N[k] / ROWS[k]; model = (8.2 * z + 16) / (8.2 * (z + 1) / 2 + 24)
    printf "%-4s %9.3f %9.3f %9.3f %9.3f %6.3f (%.3f-%.3f) %6.3f (%.3f-%.3f) %7.2f %8s %8s %6s  [%s]\n", k, med(MS[k, "no"]), med(MS[k, "sym"]),
      med(MS[k, "ctl"]), med(MS[k, "node"]), med(r1), lo(r1), hi(r1), med(r2), lo(r2), hi(r2), model, RSS[k, "no"], RSS[k, "sym"], CHK[k], SY[k, "sym"] }
  print ""; print "solve --method cg (40 iterations, median of the solves after the first): ms per iteration; ratio = no/sym per round"
  printf "%-10s %9s %9s %18s %6s\n", "mat ranks", "no", "sym", "no/sym med (lo-hi)", "kept"
  for (k in cgk) { r1 = ""; for (R in rounds) if (C[R, k, "sym"] > 0 && C[R, k, "no"] > 0) r1 = r1 " " C[R, k, "no"] / C[R, k, "sym"]
    printf "%-10s %9.3f %9.3f %6.3f (%.3f-%.3f) %6s\n", k, med(CM[k, "no"]), med(CM[k, "sym"]), med(r1), lo(r1), hi(r1), CS[k, "sym"] }
}' np=$NP $OUT/bm.txt $OUT/cg.txt | tee $OUT/summary.txt
