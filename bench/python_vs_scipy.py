#!/usr/bin/env python3
"""python_vs_scipy.py — hspmv's Python binding against SciPy on one process:
the product y = A @ x (SciPy's csr_matrix @ x against hspmv.Matrix @ x, the
median of --reps calls each, both allocating y), the binding's own cost on
small matrices (--small, 20000 calls by default: Matrix @ x and matvec(x, out=y) against the bare C call
hspmv_local_spmv timed in C on the same matrix), and CG through
scipy.sparse.linalg.cg on the SciPy matrix and on Matrix.aslinearoperator()
(iterations and end-to-end seconds). One key=value line per figure.

  python_vs_scipy.py [--threads T] [--reps R] [--small M.mtx ... [--small-reps N]] [--cg M.mtx ...] MATRIX...

Run with PYTHONPATH=python after `make python` (or the installed package)."""
import argparse
import os
import inspect
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import hspmv

# SciPy 1.12 renamed cg's tol to rtol (and later removed tol): the name this SciPy takes.
_CG_TOL = "rtol" if "rtol" in inspect.signature(spla.cg).parameters else "tol"


def RTOL(t):
    return {_CG_TOL: t}


def interleaved(fns, reps):
    """Median seconds of each of fns, called in turn reps times (one round
    calls each once, so a load that comes and goes hits all alike)."""
    for f in fns:
        f()
    ts = [[] for _ in fns]
    for _ in range(reps):
        for f, t in zip(fns, ts):
            t0 = time.perf_counter()
            f()
            t.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in ts]


def product(path, threads, reps):
    A = sp.csr_matrix(hspmv.read_csr(path))  # SciPy's own index types
    M = hspmv.Matrix(A, threads=threads)
    x = np.random.default_rng(1).uniform(-1, 1, A.shape[1])
    y = np.empty(A.shape[0])
    c_call = []  # the C loop's own clock, one call a round
    t_s, t_h, t_o, _ = interleaved([lambda: A @ x, lambda: M @ x, lambda: M.matvec(x, out=y),
                                    lambda: c_call.extend(M._c.time_c(x, y, 1))], reps)
    t_c = statistics.median(c_call[1:])
    err = float(np.abs(M @ x - A @ x).max() / max(np.abs(A @ x).max(), 1e-300))
    print(f"bench=python-spmv matrix={os.path.basename(path)} rows={A.shape[0]} nnz={A.nnz} threads={threads} "
          f"format={M.info['format']} isa={M.info['isa']} scipy_us={t_s * 1e6:.1f} hspmv_us={t_h * 1e6:.1f} "
          f"hspmv_out_us={t_o * 1e6:.1f} c_us={t_c * 1e6:.1f} overhead_us={(t_h - t_c) * 1e6:.2f} "
          f"overhead_out_us={(t_o - t_c) * 1e6:.2f} speedup={t_s / t_h:.2f} relerr={err:.1e}", flush=True)


def cg(path, threads, rounds):
    A = sp.csr_matrix(hspmv.read_csr(path))
    op = hspmv.Matrix(A, threads=threads).aslinearoperator()
    b = A @ np.ones(A.shape[0])
    res = {}
    for name, B in (("scipy", A), ("hspmv", op)):
        its, ts = [], []
        for _ in range(rounds):
            n = [0]

            def count(xk):
                n[0] += 1

            t0 = time.perf_counter()
            x, info = spla.cg(B, b, atol=0, maxiter=5000, callback=count, **RTOL(1e-8))
            ts.append(time.perf_counter() - t0)
            its.append((n[0], info))
        res[name] = (its[0], statistics.median(ts), float(np.linalg.norm(b - A @ x) / np.linalg.norm(b)))
    (i_s, f_s), t_s, r_s = res["scipy"]
    (i_h, f_h), t_h, r_h = res["hspmv"]
    print(f"bench=python-cg matrix={os.path.basename(path)} rows={A.shape[0]} threads={threads} "
          f"scipy_iters={i_s} hspmv_iters={i_h} scipy_info={f_s} hspmv_info={f_h} scipy_s={t_s:.3f} "
          f"hspmv_s={t_h:.3f} speedup={t_s / t_h:.2f} scipy_relres={r_s:.1e} hspmv_relres={r_h:.1e}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("matrices", nargs="*")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--small", nargs="*", default=[], help="matrices for the overhead (--small-reps calls)")
    ap.add_argument("--small-reps", type=int, default=20000)
    ap.add_argument("--cg", nargs="*", default=[], help="SPD matrices for scipy's CG")
    ap.add_argument("--cg-rounds", type=int, default=3)
    a = ap.parse_args()
    print(f"python={sys.version.split()[0]} numpy={np.__version__} scipy={sp.__name__ and __import__('scipy').__version__} "
          f"hspmv={hspmv.library_version()} cores={len(os.sched_getaffinity(0))}", flush=True)
    for p in a.small:
        product(p, a.threads, a.small_reps)
    for p in a.matrices:
        product(p, a.threads, a.reps)
    for p in a.cg:
        cg(p, a.threads, a.cg_rounds)


if __name__ == "__main__":
    main()
