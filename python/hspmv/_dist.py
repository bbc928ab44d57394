"""_dist.py — hspmv.DistMatrix: a matrix whose rows are spread over the ranks
of an mpi4py communicator (hspmv_dist), its vectors as NumPy views of the
library's memory, and the agreement of argument errors across ranks."""
import numpy as np

from . import _backend
from ._error import Error
from ._matrix import _dtype_of, _sparse_or_raise, csr_arrays

_KINDS = {"x": 0, "cols": 0, "y": 1, "rows": 1}


def _mpi():
    from mpi4py import MPI  # imported only by the distributed part: it initializes MPI

    return MPI


def agreed(comm, fn):
    """fn() on every rank; when it raises on some rank, every rank raises the
    same exception type with the lowest failing rank's message (so that no
    rank goes on into a collective call the others left)."""
    try:
        res, exc = fn(), None
    except Exception as e:  # noqa: BLE001 (any failure must reach every rank)
        res, exc = None, e
    bad = comm.allreduce(comm.rank if exc is not None else comm.size, op=_mpi().MIN)
    if bad == comm.size:
        return res
    info = None
    if comm.rank == bad:
        info = (type(exc).__name__, f"rank {bad}: {exc}", getattr(exc, "code", 0))
    kind, msg, code = comm.bcast(info, root=bad)
    if kind == "Error":
        raise Error(msg, code)
    raise {"TypeError": TypeError, "ValueError": ValueError, "MemoryError": MemoryError,
           "ImportError": ImportError}.get(kind, RuntimeError)(msg)


def _kind(kind):
    try:
        return _KINDS[kind]
    except KeyError:
        raise ValueError(f"vector kind must be 'x' (like the columns) or 'y' (like the rows), not {kind!r}") from None


class DistMatrix:
    """A matrix distributed by rows over the ranks of comm (collective creation).

    DistMatrix(rows, comm=None, ncols_local=None, threads=None, dtype=None, format="auto",
               kernel="auto", halo="auto", node_ranks=0, csrl_threshold=None, reorder="none")
    rows: this rank's rows as a scipy.sparse matrix of shape (nrows_local, ncols)
    with GLOBAL column indices; rank r's rows follow rank r-1's (hspmv_dist_create).
    ncols_local: the x entries this rank owns (None: split like the rows).
    comm: an mpi4py communicator (default MPI.COMM_WORLD).
    reorder: "none" (default), "rcm", "nd" or "auto" (square matrices): a global
    renumbering for locality made on the gathered pattern; vectors of the matrix
    are then in its new order, scatter() and gather() take and give the caller's
    order (docs/python.md)."""

    def __init__(self, rows, comm=None, ncols_local=None, threads=None, dtype=None, format="auto", kernel="auto",
                 halo="auto", node_ranks=0, csrl_threshold=None, reorder="none"):
        comm = _mpi().COMM_WORLD if comm is None else comm

        def prepare():
            _sparse_or_raise(rows, "hspmv.DistMatrix")
            dt = _dtype_of(rows, dtype)
            o = _backend.opts(format, kernel, threads, csrl_threshold, "nnz", halo, "root", node_ranks, reorder=reorder)
            ip, ix, dv, copied, _ = csr_arrays(rows, dt, np.int64, canonical=False)
            return dt, o, ip, ix, dv, copied, _backend.core(dt)

        dt, o, ip, ix, dv, self.copied, core = agreed(comm, prepare)
        ncl = -1 if ncols_local is None else int(ncols_local)
        self._init(core.dist_create(comm, rows.shape[0], rows.shape[1], ncl, ip, ix, dv, o), comm, dt)

    def _init(self, c, comm, dtype):
        self._c = c
        self.comm = comm
        self.dtype = np.dtype(dtype)
        self.shape = c.shape
        self.local_shape = c.local_shape
        info = c.info()
        self.nnz = info["nnz"]
        # the programs' check: threads against the cores of each rank's affinity mask
        threads, cores = info["owned"]["threads"], _backend.cores_available()
        worst = comm.allreduce(threads if threads > cores else 0, op=_mpi().MAX)
        fewest = comm.allreduce(cores, op=_mpi().MIN)
        if worst and comm.rank == 0:
            _backend.warnings.warn(_backend.binding_warning(worst, fewest), RuntimeWarning, stacklevel=3)

    @classmethod
    def read(cls, path, comm=None, partition="nnz", read="root", threads=None, dtype=np.float64, format="auto",
             kernel="auto", halo="auto", node_ranks=0, csrl_threshold=None, reorder="none"):
        """Reads a Matrix Market or PETSc binary file collectively
        (hspmv_dist_read): partition "nnz", "rows" or "metis"; read "root"
        (rank 0 reads and sends) or "parallel" (every rank a byte range);
        reorder "none", "rcm", "nd" or "auto" (square Matrix Market files)."""
        comm = _mpi().COMM_WORLD if comm is None else comm
        o, core = agreed(comm, lambda: (_backend.opts(format, kernel, threads, csrl_threshold, partition, halo,
                                                      read, node_ranks, reorder=reorder), _backend.core(dtype)))
        self = cls.__new__(cls)
        self.copied = ()
        self._init(core.dist_read(comm, path, o), comm, dtype)
        return self

    ndim = 2

    @property
    def info(self):
        """hspmv_dist_get_info: rank, sizes, this rank's ranges, halo, the blocks' formats, ..."""
        return self._c.info()

    @property
    def reorder(self):
        """The order the matrix is distributed in: "none" (the caller's or the file's; also
        where reorder="auto" kept it), "rcm" or "nd" (info has the bandwidths before and after)."""
        return self._c.info()["reorder"]

    def ranges(self):
        """(row_start, col_start): nranks+1 entries each; rank r owns [start[r], start[r+1])."""
        return self._c.ranges()

    def file_index(self, kind="y"):
        """Each local entry's index in the file ordering (identity unless METIS or reorder renumbered)."""
        return self._c.file_index(_kind(kind))

    def vector(self, kind="x", k=None):
        """A zeroed vector of this rank's part from hspmv_dist_vec_alloc
        ("x": ncols_local entries, "y": nrows_local; k vectors: shape (n, k)).
        Products read x-like vectors in the node's shared window without a copy."""
        return self._c.vector(_kind(kind), 0 if k is None else int(k))

    def _mul(self, x, out=None, transpose=False):
        """A product (collective). A block's layout is agreed by the ranks
        (one reduction of 4 flags): a rank holding one row (or none) sees a
        block that is both C- and Fortran-contiguous, and every rank must
        pass the same layout to hspmv_dist_spmm."""
        if np.ndim(x) != 2:
            return self._c.mul(x, out, transpose)
        return self._c.mul(x, out, transpose, self._agreed_order(x, out))

    def _agreed_order(self, x, out):
        """0 (C) or 1 (Fortran) for every rank alike: out's order where some
        rank passed one (out is never converted), else Fortran when some
        rank's x is Fortran-only and none C-only, else C (x is converted).
        Outs of both orders on different ranks: a ValueError on every rank."""
        def only(a):
            f = a is not None and a.flags.f_contiguous
            c = a is not None and a.flags.c_contiguous
            return int(f and not c), int(c and not f)

        xa = x if isinstance(x, np.ndarray) else None
        oa = out if isinstance(out, np.ndarray) else None
        flags = np.array(only(xa) + only(oa), dtype=np.int32)
        both = np.empty_like(flags)
        self.comm.Allreduce(flags, both, op=_mpi().MAX)
        x_f, x_c, out_f, out_c = both.tolist()
        if out_f and out_c:
            raise ValueError("out= blocks in C order on some ranks and Fortran order on others: give every rank "
                             "the same order")
        if out_f or out_c:
            return out_f
        return int(x_f and not x_c)

    def __matmul__(self, x):
        return self._mul(x)

    def matvec(self, x, out=None):
        """y = A x on this rank's parts (collective)."""
        return self._mul(x, out)

    def matmat(self, X, out=None):
        """Y = A X for a block of k vectors (hspmv_dist_spmm; collective).
        The ranks agree the block's layout (see _agreed_order): Y is in it."""
        return self._mul(X, out)

    def rmatvec(self, x, out=None):
        """y = A^T x (hspmv_dist_spmm with HSPMV_TRANSPOSE; collective)."""
        return self._mul(x, out, True)

    def scatter(self, v, kind="x"):
        """This rank's part of a whole vector v given on rank 0 in the file
        ordering (other ranks pass None); collective."""
        n = self.shape[1] if _kind(kind) == 0 else self.shape[0]

        def check():
            if self.comm.rank != 0:
                return None
            a = np.ascontiguousarray(v, dtype=self.dtype)
            if a.shape != (n,):
                raise ValueError(f"scatter: vector of shape {a.shape} on rank 0, expected ({n},)")
            return a

        return self._c.scatter(_kind(kind), agreed(self.comm, check))

    def gather(self, v, kind="y"):
        """The whole vector in the file ordering on rank 0 (None elsewhere) from each rank's part; collective."""
        w = _kind(kind)
        n = self.local_shape[w == 0]

        def check():
            a = np.ascontiguousarray(v, dtype=self.dtype)
            if a.shape != (n,):
                raise ValueError(f"gather: local part of shape {a.shape}, expected ({n},)")
            return a

        return self._c.gather(w, agreed(self.comm, check))

    def free(self):
        """hspmv_dist_destroy now (collective: every rank at the same point).
        Only free() or leaving a `with` block destroys the matrix: a dropped
        DistMatrix keeps its memory until exit and warns (ResourceWarning);
        vectors keep the matrix alive."""
        self._c.free()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __repr__(self):
        try:
            i = self.info
            how = "" if i["reorder"] == "none" and i["bandwidth_before"] == 0 else (
                f", reorder {i['reorder']} (bandwidth {i['bandwidth_before']} -> {i['bandwidth_after']})")
        except Exception:
            how = ", freed"
        return (f"<hspmv.DistMatrix {self.shape[0]}x{self.shape[1]}, {self.nnz} entries, {self.dtype}{how}, "
                f"rank {self.comm.rank} of {self.comm.size}: {self.local_shape[0]} rows>")
