"""conftest.py — what the Python tests share: the test matrices (the bundled
ones in matrices/ and the SuiteSparse ones in matrices/suitesparse), and
the error bound of a product against SciPy's in double precision."""
import glob
import os

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUNDLED = sorted(glob.glob(os.path.join(ROOT, "matrices", "*.mtx")))
SHARED_DIR = os.path.join(ROOT, "matrices", "suitesparse")
SHARED = sorted(glob.glob(os.path.join(SHARED_DIR, "*.mtx")))
assert SHARED, "no matrices in " + SHARED_DIR
# complex values: the reader refuses them (ERR_UNSUPPORTED)
COMPLEX = [p for p in SHARED if os.path.basename(p) in ("young1c.mtx", "mhd1280b.mtx")]
SHARED_REAL = [p for p in SHARED if p not in COMPLEX]


def matrix_ids(paths):
    return [os.path.basename(p) for p in paths]


def within_bound(y, A, x, dtype):
    """|y - A x| <= 2 gamma_k (|A| |x|) row by row, k the longest row, u the
    unit roundoff of dtype; A and x (already rounded to dtype) are multiplied
    in double for the reference (its own error is the second gamma). Returns
    (ok, worst ratio of error to bound)."""
    A64 = A.astype(np.float64)
    x64 = np.asarray(x, dtype=np.float64)
    ref = A64 @ x64
    k = max(int(np.diff(A.tocsr().indptr).max(initial=0)), 1)
    u = np.finfo(dtype).eps / 2
    gamma = k * u / (1 - k * u)
    bound = 2 * gamma * (abs(A64) @ abs(x64)) + np.finfo(dtype).tiny
    err = np.abs(np.asarray(y, dtype=np.float64) - ref)
    ratio = float((err / bound).max(initial=0))
    return ratio <= 1, ratio


@pytest.fixture
def rng():
    return np.random.default_rng(2026)
