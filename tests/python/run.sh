#!/bin/sh
# run.sh — the Python package's tests (python/tests): builds the extension
# (make python), runs pytest in one process, the examples (examples/python:
# first_steps.py, dist_cg.py at 2 ranks), the venv and --target installs of
# docs/python.md, then test_dist.py under mpirun at 3 ranks; records "P F S"
# like tests/run.sh. Without NumPy, SciPy,
# mpi4py or pytest for $HSPMV_PYTHON (default /usr/bin/python3: Debian's
# python3-numpy python3-scipy python3-mpi4py python3-pytest python3-dev) the
# suite reports itself skipped. python3-pip: the offline install check.
#   run.sh [--record FILE]      HSPMV_MAKE: the make that builds (default make)
set -u
record=""
if [ "${1:-}" = "--record" ]; then record=$2; shift 2; fi
cd "$(dirname "$0")/../.." || exit 1
PY=${HSPMV_PYTHON:-/usr/bin/python3}
MAKE=${HSPMV_MAKE:-make}
P=0; F=0; S=0
finish() {
    if [ -n "$record" ]; then mkdir -p "$(dirname "$record")"; echo "$P $F $S" > "$record"; fi
    echo "$P passed, $F failed, $S skipped"
    [ -n "$record" ] || [ "$F" -eq 0 ]
    exit $?
}
# adds the counts of a pytest summary line ("3 failed, 10 passed, 2 skipped in 1.2s")
add_counts() {
    line=$(grep -E '[0-9]+ (passed|failed|skipped|errors?)' "$1" | tail -1)
    if [ -z "$line" ]; then echo "   $2: no pytest summary"; F=$((F + 1)); return; fi
    for w in passed failed skipped error errors; do
        n=$(echo "$line" | grep -oE "[0-9]+ $w( |,|$)" | grep -oE '^[0-9]+' | head -1)
        case $w in passed) P=$((P + ${n:-0})) ;; skipped) S=$((S + ${n:-0})) ;; *) F=$((F + ${n:-0})) ;; esac
    done
}
echo "== python (pytest, $PY)"
if ! "$PY" -c 'import numpy, scipy, mpi4py, pytest' 2>/dev/null; then
    echo "   $PY lacks numpy, scipy, mpi4py or pytest: the Python tests are SKIPPED"
    echo "   (apt-get install python3-numpy python3-scipy python3-mpi4py python3-pytest python3-dev)"
    S=1; finish
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! $MAKE --no-print-directory -s python PYTHON="$PY" > "$tmp/build" 2>&1; then
    tail -20 "$tmp/build"; echo "   make python failed"; F=1; finish
fi
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"  # the package as make python built it
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
PYTEST="$PY -m pytest -q -p no:cacheprovider --color=no"
# one process: everything (test_dist.py at one rank)
timeout 300 $PYTEST python/tests > "$tmp/one" 2>&1
rc=$?
grep -E 'FAILED|ERROR|Error|^E ' "$tmp/one" | head -40
add_counts "$tmp/one" "pytest"
[ $rc -ne 0 ] && [ $rc -ne 1 ] && { echo "   pytest exited $rc"; F=$((F + 1)); }
tail -1 "$tmp/one" | sed 's/^/   one process: /'
# the examples as the README runs them: examples/python/first_steps.py, and
# dist_cg.py at 2 ranks (below)
if timeout 120 "$PY" examples/python/first_steps.py > "$tmp/ex" 2>&1 && grep -q '^first_steps: .*cg converged' "$tmp/ex"; then
    P=$((P + 1)); echo "   examples/python/first_steps.py: ok ($(cat "$tmp/ex"))"
else tail -15 "$tmp/ex"; F=$((F + 1)); echo "   examples/python/first_steps.py FAILED"; fi
# the documented virtual environment (docs/python.md; python3-venv is one of
# the packages make deps installs): venv, pip install into it, the example
if ! "$PY" -c 'import venv, ensurepip' 2>/dev/null; then
    F=$((F + 1)); echo "   $PY has no venv/ensurepip (python3-venv; make deps installs it): docs/python.md's venv line FAILS"
elif "$PY" -m venv --system-site-packages "$tmp/env" > "$tmp/venv" 2>&1 &&
     "$tmp/env/bin/python" -m pip install -q --no-index --no-build-isolation ./python >> "$tmp/venv" 2>&1 &&
     (cd "$tmp" && env -u PYTHONPATH "$tmp/env/bin/python" "$OLDPWD/examples/python/first_steps.py") >> "$tmp/venv" 2>&1 &&
     (cd "$tmp" && env -u PYTHONPATH "$tmp/env/bin/python" -c 'import hspmv; print(hspmv.__file__)') > "$tmp/where" 2>&1 &&
     grep -q "^$tmp/env/" "$tmp/where"; then
    P=$((P + 1)); echo "   python3 -m venv --system-site-packages, pip install ./python, first_steps.py in it: ok"
else tail -15 "$tmp/venv"; F=$((F + 1)); echo "   the venv install of docs/python.md FAILED"; fi
# the documented offline install (docs/python.md), into a folder: pip builds the
# package from ./python with the installed setuptools and asks no registry
if ! "$PY" -c 'import pip' 2>/dev/null; then
    S=$((S + 1)); echo "   no pip for $PY (python3-pip): the install check is SKIPPED"
elif "$PY" -m pip install -q --no-index --no-build-isolation --no-deps --target "$tmp/site" ./python > "$tmp/pip" 2>&1 &&
   (cd "$tmp" && PYTHONPATH="$tmp/site" "$PY" -c 'import hspmv, numpy, scipy.sparse as s
assert hspmv.__file__.startswith("'"$tmp"'/site"), hspmv.__file__
assert (hspmv.Matrix(s.eye(3, format="csr")) @ numpy.arange(3.0) == numpy.arange(3.0)).all()') >> "$tmp/pip" 2>&1
then P=$((P + 1)); echo "   pip install --no-index --no-build-isolation --no-deps --target DIR ./python: ok"
else tail -15 "$tmp/pip"; F=$((F + 1)); echo "   pip install of ./python FAILED"; fi
# three ranks: the distributed tests, each rank's output on its own
if command -v mpirun > /dev/null 2>&1; then
    MPIRUN="mpirun --oversubscribe --bind-to none"
    if [ "$(id -u)" = 0 ]; then
        MPIRUN="$MPIRUN --allow-run-as-root"
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    timeout -k 10 300 $MPIRUN -n 3 sh -c "$PYTEST python/tests/test_dist.py > $tmp/rank.\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}} 2>&1"
    rc=$?
    for r in 0 1 2; do
        if [ ! -f "$tmp/rank.$r" ]; then echo "   rank $r: no output"; F=$((F + 1)); continue; fi
        grep -E 'FAILED|^E ' "$tmp/rank.$r" | head -20
        if [ $r = 0 ]; then add_counts "$tmp/rank.$r" "3 ranks"; tail -1 "$tmp/rank.$r" | sed 's/^/   3 ranks: /'
        elif grep -qE '[0-9]+ (failed|errors?)' "$tmp/rank.$r"; then echo "   rank $r failed"; F=$((F + 1)); fi
    done
    [ $rc -ne 0 ] && { echo "   mpirun exited $rc"; F=$((F + 1)); }
    if timeout -k 10 120 $MPIRUN -n 2 "$PY" examples/python/dist_cg.py > "$tmp/dcg" 2>&1 &&
       grep -q '^dist_cg: 2 ranks, [0-9]* iterations' "$tmp/dcg"; then
        P=$((P + 1)); echo "   examples/python/dist_cg.py at 2 ranks: ok ($(grep '^dist_cg' "$tmp/dcg"))"
    else tail -15 "$tmp/dcg"; F=$((F + 1)); echo "   examples/python/dist_cg.py at 2 ranks FAILED"; fi
else
    echo "   no mpirun: the 3-rank run is SKIPPED"; S=$((S + 1))
fi
finish
