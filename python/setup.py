# setup.py — builds hspmv's two extension modules (hspmv._core_double against
# libhspmv.so, hspmv._core_single against libhspmv_single.so) with setuptools;
# pyproject.toml holds the metadata. Where the libraries are:
#   HSPMV_PREFIX=/opt/hspmv   an installed prefix (make install [PRECISION=single])
#   otherwise                 this repository's build/<arch>-<precision>/ (make shared)
# The extensions get an rpath to that folder. MPI's flags come from mpicc
# (HSPMV_MPICC, default mpicc); NumPy's and mpi4py's headers from the modules.
import os
import platform
import shlex
import subprocess
import sys

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))


def mpi_flags():
    cc = os.environ.get("HSPMV_MPICC", "mpicc")
    for comp, link in (["--showme:compile"], ["--showme:link"]), (["-compile_info"], ["-link_info"]):
        try:
            c = subprocess.run([cc] + comp, capture_output=True, text=True, check=True).stdout
            l = subprocess.run([cc] + link, capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        c, l = shlex.split(c), shlex.split(l)
        if c and c[0] == os.path.basename(cc) or (c and not c[0].startswith("-")):
            c, l = c[1:], l[1:]  # MPICH's -compile_info starts with the compiler
        return [f for f in c if f.startswith(("-I", "-D", "-pthread"))], l
    sys.exit(f"setup.py: {cc} gives no compile and link flags (set HSPMV_MPICC to your MPI's mpicc)")


def library_places(precision):
    """(include dirs, library dir) of one precision, or None when not built."""
    name = "hspmv" if precision == "double" else "hspmv_single"
    prefix = os.environ.get("HSPMV_PREFIX")
    if prefix:
        inc = os.path.join(prefix, "include" if precision == "double" else "include/hspmv_single")
        lib = os.path.join(prefix, "lib")
        incs = [inc]
    else:
        root = os.path.dirname(here)
        lib = os.path.join(root, "build", f"{platform.machine()}-{precision}")
        incs = [os.path.join(root, "include"), os.path.join(lib, "include")]
    if not os.path.exists(os.path.join(lib, f"lib{name}.so")):
        return None
    return incs, lib, name


def extensions():
    import numpy
    import mpi4py

    cflags, ldflags = mpi_flags()
    exts = []
    for precision in ("double", "single"):
        places = library_places(precision)
        if places is None:
            if precision == "double":
                sys.exit("setup.py: libhspmv.so not found: run `make shared` (and `make PRECISION=single shared`) "
                         "in the repository, or set HSPMV_PREFIX to an installed prefix")
            print("setup.py: libhspmv_single.so not found: float32 matrices will not be available")
            continue
        incs, lib, name = places
        exts.append(Extension(
            f"hspmv._core_{precision}", [f"src/core_{precision}.c"],
            include_dirs=incs + [numpy.get_include(), mpi4py.get_include()],
            library_dirs=[lib], runtime_library_dirs=[lib], libraries=[name],
            extra_compile_args=cflags + ["-std=c11", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                                         "-Wno-cast-function-type", "-Wno-unused-parameter"],
            extra_link_args=ldflags, depends=[f"src/{f}" for f in ("core.c", "local_type.c", "dist_type.c")]))
    return exts


setup(packages=["hspmv"], ext_modules=extensions())
