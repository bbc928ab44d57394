"""_backend.py — the C core of each precision (libhspmv for float64,
libhspmv_single for float32) and the options every matrix takes."""
import importlib
import os
import warnings

import numpy as np

_FORMATS = ("auto", "csr", "csrl", "bcoo", "csr16", "csrvi", "csrp", "csrdu", "panels")
_PARTITIONS = ("nnz", "rows", "metis")
_HALOS = ("auto", "node", "p2p")
_READS = ("root", "parallel")
_SYMMETRIC = ("auto", "no", "yes")
_REORDERS = ("none", "rcm", "nd", "auto")  # HSPMV_REORDER_NONE, _RCM, _ND, _AUTO
_cores = {}


def core(dtype):
    """The extension module for dtype (float64 or float32)."""
    dt = np.dtype(dtype)
    if dt not in (np.float64, np.float32):
        raise TypeError(f"hspmv works in float64 or float32, not {dt}")
    name = "_core_double" if dt == np.float64 else "_core_single"
    mod = _cores.get(name)
    if mod is None:
        try:
            mod = importlib.import_module("hspmv." + name)
        except ImportError as e:
            lib = "libhspmv.so" if dt == np.float64 else "libhspmv_single.so"
            raise ImportError(f"hspmv: no {dt} core ({e}); was {lib} built when hspmv was installed? "
                              f"(make shared PRECISION={'double' if dt == np.float64 else 'single'}, "
                              f"then make python)") from e
        _cores[name] = mod
    return mod


def _choice(value, names, what):
    try:
        return names.index(value)
    except ValueError:
        raise ValueError(f"{what} must be one of {', '.join(names)}, not {value!r}") from None


_INT_MAX = 2**31 - 1


def count(value, what, default):
    """An integer option as the library takes it (a C int >= 0): None is
    default; bool, float or str is a TypeError, a negative or too large
    count a ValueError naming the option."""
    if value is None:
        return default
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be None or an integer, not {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{what} must be None, 0 (the library's default) or a positive integer, not {value}")
    if value > _INT_MAX:
        raise ValueError(f"{what}={value}: more than the library can hold (2^31-1)")
    return int(value)


def threshold(value):
    """csrl_threshold: None (the library's 0.3) or a finite number >= 0,
    refused as hspmv_local_create refuses it."""
    if value is None:
        return None
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"csrl_threshold must be None or a number, not {type(value).__name__} {value!r}") from None
    if not (t >= 0 and np.isfinite(t)):
        raise ValueError(f"csrl_threshold {value!r} is not a finite number >= 0")
    return t


def opts(format="auto", kernel="auto", threads=None, csrl_threshold=None, partition="nnz", halo="auto",
         read="root", node_ranks=0, symmetric="no", reorder="none"):
    """The tuple the C core turns into hspmv_opts, each option checked as
    the library checks it (threads 0 or None: OMP_NUM_THREADS or all cores,
    as hspmv_opts.threads = 0)."""
    if kernel not in ("auto", "avx512", "avx2", "neon", "scalar"):
        raise ValueError(f"kernel must be auto, avx512, avx2, neon or scalar, not {kernel!r}")
    return (_choice(format, _FORMATS, "format"), str(kernel), count(threads, "threads", 0), threshold(csrl_threshold),
            _choice(partition, _PARTITIONS, "partition"), _choice(halo, _HALOS, "halo"),
            _choice(read, _READS, "read"), count(node_ranks, "node_ranks", 0), _choice(symmetric, _SYMMETRIC, "symmetric"),
            _choice(reorder, _REORDERS, "reorder"))


def _mask_now():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# The mask before the extension (and OpenMP) is loaded: with OMP_PROC_BIND
# set, the OpenMP runtime pins the main thread to one core of the mask when
# it starts, and the mask read afterwards would be that one core.
_MASK_AT_IMPORT = _mask_now()


def cores_available():
    """Cores of this process's affinity mask (as it was before OpenMP pinned
    the main thread)."""
    return max(_MASK_AT_IMPORT, _mask_now())


def binding_warning(threads, cores):
    """The programs' warning when threads outnumber the cores they may run on
    (bench/mpi_prog.c), or None."""
    if threads <= cores:
        return None
    return (f"hspmv: a process runs {threads} OpenMP threads on {cores} core{'' if cores == 1 else 's'} of its "
            f"affinity mask, so they share cores; give each process {threads} cores "
            f"(mpirun --map-by slot:PE={threads} --bind-to core; Slurm: srun --cpus-per-task={threads}) "
            f"or ask for fewer threads")


def warn_binding(threads):
    msg = binding_warning(threads, cores_available())
    if msg:
        warnings.warn(msg, RuntimeWarning, stacklevel=3)
