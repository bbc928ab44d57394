"""_check.py — what a scipy.sparse matrix's arrays must satisfy before any
of them reaches C or SciPy's own compiled routines (which trust them): the
compressed pointers start at 0, never decrease and stay within the stored
entries, every index lies inside the shape."""
import numpy as np


def check_structure(A):
    """Raises ValueError naming the first broken entry of A's arrays (CSR,
    CSC or COO; other formats are built by SciPy and converted by it)."""
    fmt = A.format
    m, n = A.shape
    if fmt in ("csr", "csc"):
        major, minor, what = (m, n, "row") if fmt == "csr" else (n, m, "column")
        _check_compressed(fmt, np.asarray(A.indptr), np.asarray(A.indices), np.asarray(A.data), major, minor, what)
    elif fmt == "coo":
        row, col, data = np.asarray(A.row), np.asarray(A.col), np.asarray(A.data)
        if not (row.shape == col.shape == data.shape) or row.ndim != 1:
            raise ValueError(f"coo matrix: row, col and data of lengths {row.size}, {col.size}, {data.size}")
        for name, idx, lim in (("row", row, m), ("col", col, n)):
            bad = np.flatnonzero((idx < 0) | (idx >= lim))
            if bad.size:
                raise ValueError(f"coo matrix: {name}[{bad[0]}] = {idx[bad[0]]} outside [0, {lim})")


def _check_compressed(fmt, indptr, indices, data, major, minor, what):
    if indptr.ndim != 1 or indptr.size != major + 1:
        raise ValueError(f"{fmt} matrix: indptr has {indptr.size} entries, expected {major + 1} ({what}s + 1)")
    if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu":
        raise ValueError(f"{fmt} matrix: indptr and indices must be integers, not {indptr.dtype}, {indices.dtype}")
    if indptr[0] != 0:
        raise ValueError(f"{fmt} matrix: indptr[0] = {indptr[0]}, expected 0")
    down = np.flatnonzero(indptr[1:] < indptr[:-1])
    if down.size:
        i = int(down[0])
        raise ValueError(f"{fmt} matrix: indptr decreases at {what} {i}: indptr[{i}] = {indptr[i]} > "
                         f"indptr[{i + 1}] = {indptr[i + 1]}")
    nnz = int(indptr[-1])
    if nnz > indices.size or nnz > data.size:
        raise ValueError(f"{fmt} matrix: indptr[{major}] = {nnz} entries, but only {indices.size} indices and "
                         f"{data.size} values are stored")
    if nnz:
        ix = indices[:nnz]
        bad = np.flatnonzero((ix < 0) | (ix >= minor))
        if bad.size:
            k = int(bad[0])
            i = int(np.searchsorted(indptr, k, side="right")) - 1
            other = "column" if what == "row" else "row"
            raise ValueError(f"{fmt} matrix: entry {k} ({what} {i}) has {other} index {ix[k]} outside [0, {minor})")
