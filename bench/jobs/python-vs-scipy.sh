#!/bin/bash
# python-vs-scipy.sh — the Python binding against SciPy on the 16-core
# machine (bench/python_vs_scipy.py): y = A @ x with hspmv.Matrix (16
# threads) against SciPy's csr_matrix @ x (one thread: SciPy's product is
# serial) on the real-valued 3D stencil lap3d 200 and random 4M rows x 8,
# the binding's cost over the bare C call on lap3d 10 (1000 rows), and
# scipy.sparse.linalg.cg on lap3d 100 with the SciPy matrix and with
# Matrix.aslinearoperator(). Target: A @ x at least 8x SciPy's.
#   bench/jobs/python-vs-scipy.sh [THREADS]      (default 16)
# Runs from the repository root; needs what bench/jobs/job-env.sh says for
# the build (Open MPI's mpicc, METIS), and a python3 with NumPy, SciPy,
# mpi4py, setuptools and Python's C headers (Python.h): the CUDA machines'
# image has the modules in its python3 (3.12, /opt/torch/.venv); whether
# its Python.h is there is checked first (without it the job stops and says
# so). Results under $OUT (default results/scaling): python.txt (key=value
# lines, also on stdout).
set -u
case ${1:-} in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" | grep -v '^SBATCH'; exit 0 ;; esac
T=${1:-16}
. bench/jobs/job-env.sh
PY=${PY:-python3}
inc=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
$PY -c 'import numpy, scipy, mpi4py, setuptools' || { echo "python-vs-scipy: $PY lacks numpy, scipy, mpi4py or setuptools"; exit 1; }
[ -f "$inc/Python.h" ] || { echo "python-vs-scipy: no $inc/Python.h (Python's C headers) for $PY: the extension cannot be built"; exit 1; }
make -j16 NO_ZLIB=1 HSPMV_SKIP_DEPS=1 shared > /tmp/build-so.log 2>&1 || { tail -30 /tmp/build-so.log; exit 1; }
(cd python && $PY setup.py -q build_ext --inplace) > /tmp/build-py.log 2>&1 || { tail -30 /tmp/build-py.log; exit 1; }
gen_mats l3r rnd
[ -s $D/l3_10.mtx ] || ./genmat lap3d 10 -o $D/l3_10.mtx > /dev/null
[ -s $D/l3_100.mtx ] || ./genmat lap3d 100 -o $D/l3_100.mtx > /dev/null
export OMP_PROC_BIND=close OMP_PLACES=cores PYTHONPATH=$PWD/python
# OpenBLAS variables slow NumPy's dense kernels, not SciPy's sparse product; unset for the run as users run
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $PY bench/python_vs_scipy.py --threads $T --reps 30 \
  --small $D/l3_10.mtx --cg $D/l3_100.mtx --cg-rounds 2 $D/l3r.mtx $D/rnd.mtx 2>&1 | tee $OUT/python.txt
echo "python-vs-scipy: done t=$((SECONDS-T0))"
