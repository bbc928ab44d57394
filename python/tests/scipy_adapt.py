"""scipy_adapt.py — a pytest plugin (-p scipy_adapt) that runs SciPy's own
scipy.sparse.linalg test files, as installed, with their real-valued
scipy.sparse matrices replaced by hspmv.Matrix (--hspmv-adapt matrix), or
untouched (--hspmv-adapt none: the baseline). Nothing of SciPy is copied:
the files are SciPy's, the replacement is made here at run time, where a
SciPy test can hold a matrix:

- module level: every sparse matrix reachable from the test module's
  globals (variables, lists, tuples, dicts, attributes of objects of classes
  the module defines: params.cases[i].A in test_iterative.py) once the
  module is imported;
- a test class's instance after its setup_method (TestAsLinearOperator's
  cases);
- inside a test function: the solvers and aslinearoperator the module
  imported by name (cg, gmres, lsqr, ...) get a real sparse A, M, M1 or M2
  as hspmv.Matrix; each is replaced by its wrapper wherever the module
  holds it (lists of solvers, a parametrized test's argument), so that the
  tests' `solver is qmr` still hold.

A complex matrix is tried too (hspmv must refuse it with a TypeError naming
SciPy) and kept as SciPy's. --hspmv-report FILE writes what was replaced
and kept, as JSON."""
import functools
import json
import types

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

_SOLVERS = ("cg", "cgs", "bicg", "bicgstab", "gmres", "qmr", "minres", "lgmres", "gcrotmk", "tfqmr", "lsqr",
            "lsmr", "aslinearoperator")
_MATRIX_ARGS = ("A", "M", "M1", "M2")


class _Adapter:
    def __init__(self):
        import hspmv

        self.hspmv = hspmv
        self.converted = {}  # where -> description
        self.complex = {}  # where -> the TypeError's message
        self.failed = {}  # where -> an unexpected error making the Matrix
        self.wrappers = {}  # id(solver) -> its wrapper
        self.test = ""  # the test running now

    def convert(self, A, where):
        """hspmv.Matrix(A) for a real sparse A (SciPy's aslinearoperator must
        give it back as it is); A itself when complex."""
        try:
            M = self.hspmv.Matrix(A, threads=1)
        except TypeError as e:
            if np.dtype(A.dtype).kind == "c" and "SciPy" in str(e):
                self.complex[where] = str(e)
                return A
            self.failed[where] = f"{type(e).__name__}: {e}"
            raise
        assert spla.aslinearoperator(M) is M
        self.converted[where] = f"{A.format} {A.shape[0]}x{A.shape[1]} {A.dtype} -> {M.dtype}"
        return M

    def walk(self, value, where, module, seen):
        """value with its sparse matrices replaced (containers in place)."""
        if sp.issparse(value):
            return self.convert(value, where)
        if callable(value) and id(value) in self.wrappers:
            return self.wrappers[id(value)]
        if id(value) in seen:
            return value
        seen.add(id(value))
        if isinstance(value, list):
            for i, v in enumerate(value):
                value[i] = self.walk(v, f"{where}[{i}]", module, seen)
        elif isinstance(value, tuple) and not hasattr(value, "_fields"):
            new = tuple(self.walk(v, f"{where}[{i}]", module, seen) for i, v in enumerate(value))
            if any(a is not b for a, b in zip(new, value)):
                return new
        elif isinstance(value, dict):
            for k in list(value):
                value[k] = self.walk(value[k], f"{where}[{k!r}]", module, seen)
        elif type(value).__module__ == module and hasattr(value, "__dict__") and not isinstance(value, type):
            for k, v in list(vars(value).items()):
                new = self.walk(v, f"{where}.{k}", module, seen)
                if new is not v:
                    setattr(value, k, new)
        return value

    def adapt_module(self, mod):
        for name, value in list(vars(mod).items()):
            if name in _SOLVERS and callable(value) and getattr(value, "__module__", "").startswith("scipy"):
                if id(value) not in self.wrappers:
                    self.wrappers[id(value)] = self.solver(value, name)
                setattr(mod, name, self.wrappers[id(value)])
        seen = set()
        for name, value in list(vars(mod).items()):
            if isinstance(value, (types.ModuleType, types.FunctionType, type)) or name.startswith("__"):
                continue
            new = self.walk(value, f"{mod.__name__}.{name}", mod.__name__, seen)
            if new is not value:
                setattr(mod, name, new)

    def solver(self, fn, where):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if args and sp.issparse(args[0]):
                args = (self.convert(args[0], f"{self.test}: {where}(A)"),) + args[1:]
            for k in _MATRIX_ARGS:
                if sp.issparse(kwargs.get(k)):
                    kwargs[k] = self.convert(kwargs[k], f"{self.test}: {where}({k}=)")
            return fn(*args, **kwargs)

        return call


def pytest_addoption(parser):
    parser.addoption("--hspmv-adapt", choices=("none", "matrix"), default="none",
                     help="replace SciPy's test matrices by hspmv.Matrix (matrix) or not (none)")
    parser.addoption("--hspmv-report", default=None, help="write what was replaced, as JSON")


def pytest_configure(config):
    config._hspmv = _Adapter() if config.getoption("--hspmv-adapt") == "matrix" else None


def pytest_collection_modifyitems(session, config, items):
    ad = config._hspmv
    if ad is None:
        return
    for mod in {id(i.module): i.module for i in items if getattr(i, "module", None)}.values():
        ad.adapt_module(mod)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    ad = item.config._hspmv
    inst = getattr(item, "instance", None)
    if ad is not None:
        ad.test = item.nodeid
        if inst is not None:
            ad.walk(inst, f"{item.nodeid}:self", type(inst).__module__, set())
        args = getattr(item, "funcargs", {})
        for k, v in list(args.items()):
            if callable(v) and id(v) in ad.wrappers:
                args[k] = ad.wrappers[id(v)]
    yield


def pytest_unconfigure(config):
    path = config.getoption("--hspmv-report")
    ad = config._hspmv
    if path:
        with open(path, "w") as f:
            json.dump({"converted": ad.converted if ad else {}, "complex": ad.complex if ad else {},
                       "failed": ad.failed if ad else {}}, f, indent=1)
