#!/usr/bin/env python3
"""python_spellings.py — what each SciPy spelling of hspmv.Matrix's product
costs beside A @ x (A.dot(x), A * x, A.matvec(x), and SciPy's
aslinearoperator(A).matvec(x), which is A itself, and the bare binding call
A._c.mul(x)), timed in interleaved
calls: each of rounds x calls slots times one call of every spelling (the
order rotating from slot to slot), and the report gives each spelling's
median call and the median over slots of its difference to A @ x in the
same slot (noise from other processes hits a slot's neighbours alike). Also: A.diagonal() against a copy of the matrix (time and the
bytes tracemalloc sees allocated), to show the diagonal copies nothing of
the matrix. One key=value line per figure.

  python_spellings.py [--rows N] [--per-row K] [--rounds R] [--calls C] [--threads T]

Run with PYTHONPATH=python after `make python`."""
import argparse
import statistics
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import hspmv


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--per-row", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    n = a.rows
    A = sp.random(n, n, density=a.per_row / n, random_state=1, format="csr") + sp.eye(n, format="csr")
    M = hspmv.Matrix(A.tocsr(), threads=a.threads)
    x = np.random.default_rng(2).uniform(-1, 1, n)
    op = spla.aslinearoperator(M)
    ways = {"matmul": lambda: M @ x, "dot": lambda: M.dot(x), "mul": lambda: M * x,
            "matvec": lambda: M.matvec(x), "aslinearoperator_matvec": lambda: op.matvec(x),
            # the binding's C call through one Python function: what A @ x was before the
            # SciPy interface (`def __matmul__(self, x): return self._c.mul(x)`)
            "binding_call": lambda: M._c.mul(x)}
    names = list(ways)
    per = {k: [] for k in names}
    diff = {k: [] for k in names}
    clock = time.perf_counter_ns
    for r in range(a.rounds + 1):
        for c in range(a.calls):
            t = {}
            s = (r + c) % len(names)
            for k in names[s:] + names[:s]:  # every spelling once, the order rotating
                f = ways[k]
                t0 = clock()
                f()
                t[k] = clock() - t0
            if r == 0:
                continue  # warm-up round
            for k in names:
                per[k].append(t[k] * 1e-9)
                diff[k].append((t[k] - t["matmul"]) * 1e-9)
    print(f"bench=python_spellings rows={n} nnz={A.nnz} threads={M.info['threads']} format={M.info['format']} "
          f"rounds={a.rounds} calls={a.calls}")
    for k in names:
        q = statistics.quantiles(diff[k], n=4)
        print(f"spelling={k} median_us={statistics.median(per[k]) * 1e6:.3f} "
              f"median_minus_matmul_us={statistics.median(diff[k]) * 1e6:.3f} "
              f"quartiles_minus_matmul_us={q[0] * 1e6:.3f},{q[2] * 1e6:.3f}")
    # the diagonal: SciPy's csr diagonal over the kept arrays, against copying the matrix
    tracemalloc.start()
    tracemalloc.reset_peak()
    d = M.diagonal()
    diag_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    C = M.tocsr(copy=True)
    copy_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    td, tc = [], []
    for _ in range(a.rounds):
        t0 = time.perf_counter()
        M.diagonal()
        t1 = time.perf_counter()
        M.tocsr(copy=True)
        t2 = time.perf_counter()
        td.append(t1 - t0)
        tc.append(t2 - t1)
    print(f"diagonal_bytes_allocated={diag_peak} diagonal_result_bytes={d.nbytes} matrix_copy_bytes={copy_peak} "
          f"matrix_bytes={C.data.nbytes + C.indices.nbytes + C.indptr.nbytes}")
    print(f"diagonal_median_us={statistics.median(td) * 1e6:.2f} matrix_copy_median_us={statistics.median(tc) * 1e6:.2f}")


if __name__ == "__main__":
    main()
