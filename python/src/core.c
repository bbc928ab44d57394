/* core.c — the hspmv extension module, built once per precision (core_double.c,
   core_single.c name it): the error type, array checks and conversions shared by
   the one-process matrix (local_type.c) and the distributed one (dist_type.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <string.h>
#include <time.h>
#include "hspmv.h"

#ifdef HSPMV_SINGLE
#define NPY_REAL NPY_FLOAT
#else
#define NPY_REAL NPY_DOUBLE
#endif

#define STR2(x) #x
#define STR(x) STR2(x)
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

static PyObject *ErrorClass; /* hspmv._error.Error */

/* Runs stmt with the GIL released (other Python threads go on meanwhile). */
#define NOGIL(stmt)                                                                                            \
    do {                                                                                                       \
        PyThreadState *nogil_ts_ = PyEval_SaveThread();                                                        \
        stmt;                                                                                                  \
        PyEval_RestoreThread(nogil_ts_);                                                                       \
    } while (0)

/* Raises hspmv.Error(message, code). Returns NULL. */
static PyObject *raise_error(int code, const char *msg)
{
    PyObject *e = PyObject_CallFunction(ErrorClass, "si", msg && *msg ? msg : hspmv_strerror(code), code);
    if (e) {
        PyErr_SetObject(ErrorClass, e);
        Py_DECREF(e);
    }
    return NULL;
}

/* An ndarray of obj without a copy when it is one; real numbers only
   (bool, integers, floats): complex and object arrays are a TypeError. */
static PyArrayObject *numeric_array(PyObject *obj, const char *what)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROM_O(obj);
    if (!a) return NULL;
    int t = PyArray_TYPE(a);
    if (!(PyTypeNum_ISBOOL(t) || PyTypeNum_ISINTEGER(t) || PyTypeNum_ISFLOAT(t))) {
        PyErr_Format(PyExc_TypeError, "%s: real numbers only, not dtype %R", what, (PyObject *)PyArray_DESCR(a));
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* 1 when a is usable in place: the working precision, native byte order,
   aligned, contiguous in the order asked for (fortran: column-major). */
static int usable(PyArrayObject *a, int fortran)
{
    return PyArray_TYPE(a) == NPY_REAL && PyArray_ISNOTSWAPPED(a) && PyArray_ISALIGNED(a) &&
           (fortran ? PyArray_IS_F_CONTIGUOUS(a) : PyArray_IS_C_CONTIGUOUS(a));
}

/* a itself (a new reference) when usable, else a converted copy (steals a). */
static PyArrayObject *in_place_or_copy(PyArrayObject *a, int fortran)
{
    if (usable(a, fortran)) return a;
    PyArrayObject *c = (PyArrayObject *)PyArray_FromArray(
        a, PyArray_DescrFromType(NPY_REAL),
        NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST | NPY_ARRAY_ENSURECOPY |
            (fortran ? NPY_ARRAY_F_CONTIGUOUS : NPY_ARRAY_C_CONTIGUOUS));
    Py_DECREF(a);
    return c;
}

/* 1 when the bytes of a and b overlap. */
static int overlap(PyArrayObject *a, PyArrayObject *b)
{
    const char *a0 = PyArray_BYTES(a), *b0 = PyArray_BYTES(b);
    const char *a1 = a0 + PyArray_NBYTES(a), *b1 = b0 + PyArray_NBYTES(b);
    return a0 < b1 && b0 < a1 && PyArray_NBYTES(a) > 0 && PyArray_NBYTES(b) > 0;
}

/* The operand of a product, as given: a real array of 1 or 2 dimensions
   whose first has n entries. */
static PyArrayObject *operand(PyObject *x, npy_intp n)
{
    PyArrayObject *a = numeric_array(x, "operand");
    if (!a) return NULL;
    if (PyArray_NDIM(a) < 1 || PyArray_NDIM(a) > 2 || PyArray_DIM(a, 0) != n) {
        PyErr_Format(PyExc_ValueError, "operand of %d dimension(s), %zd rows: expected shape (%zd,) or (%zd, k)",
                     PyArray_NDIM(a), PyArray_NDIM(a) ? (Py_ssize_t)PyArray_DIM(a, 0) : (Py_ssize_t)0,
                     (Py_ssize_t)n, (Py_ssize_t)n);
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* Checks an out= array: an ndarray of the working precision, writeable,
   aligned, native order, shape (m,) or (m, k) like the operand (nd), C or
   Fortran contiguous (never copied: the result must land in it). order -1:
   sets *fortran to out's order (C when both hold); 0 (C) or 1 (Fortran):
   out must be contiguous in that order. 0 or -1 with an exception. */
static int check_out(PyObject *o, int nd, npy_intp m, npy_intp k, int order, int *fortran)
{
    if (!PyArray_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "out must be a numpy.ndarray");
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)o;
    if (PyArray_TYPE(a) != NPY_REAL || !PyArray_ISNOTSWAPPED(a)) {
        PyErr_Format(PyExc_TypeError, "out has dtype %R, the matrix %s", (PyObject *)PyArray_DESCR(a),
                     NPY_REAL == NPY_DOUBLE ? "float64" : "float32");
        return -1;
    }
    if (PyArray_NDIM(a) != nd || PyArray_DIM(a, 0) != m || (nd == 2 && PyArray_DIM(a, 1) != k)) {
        PyErr_Format(PyExc_ValueError, "out of %d dimension(s), %zd rows: expected shape (%zd%s)", PyArray_NDIM(a),
                     PyArray_NDIM(a) ? (Py_ssize_t)PyArray_DIM(a, 0) : (Py_ssize_t)0, (Py_ssize_t)m,
                     nd == 2 ? ", k" : ",");
        return -1;
    }
    if (!PyArray_ISWRITEABLE(a) || !PyArray_ISALIGNED(a)) {
        PyErr_SetString(PyExc_ValueError, "out must be writeable and aligned");
        return -1;
    }
    if (order == 1 && nd == 2 && k > 1) {
        if (!PyArray_IS_F_CONTIGUOUS(a)) {
            PyErr_SetString(PyExc_ValueError, "out must be Fortran-contiguous: the block's agreed order");
            return -1;
        }
        *fortran = 1;
    } else if (PyArray_IS_C_CONTIGUOUS(a)) *fortran = 0;
    else if (nd == 2 && PyArray_IS_F_CONTIGUOUS(a) && order != 0) *fortran = 1;
    else {
        PyErr_SetString(PyExc_ValueError, order == 0 ? "out must be C-contiguous: the block's agreed order"
                                                     : "out must be contiguous (C, or Fortran for a 2-D block)");
        return -1;
    }
    return 0;
}

/* The operand converted for a product into m-entry results, and the result
   array: out (checked) or a new one from alloc (NULL: numpy's). order -1:
   the layout of out, else of x (Fortran only when x is Fortran-contiguous
   and not C-contiguous); 0 or 1: C or Fortran, whatever the arrays (a
   distributed block's order, agreed by the ranks: a rank's block of one
   row is both). On success *X and *Y are new references, *k the vectors
   and *fortran the layout. */
typedef PyArrayObject *(*alloc_fn)(void *ctx, int nd, npy_intp m, npy_intp k, int fortran);

static int prepare_product(PyObject *x, PyObject *out, int order, npy_intp n, npy_intp m, alloc_fn alloc,
                           void *ctx, PyArrayObject **X, PyArrayObject **Y, npy_intp *k, int *fortran)
{
    PyArrayObject *a = operand(x, n);
    if (!a) return -1;
    int nd = PyArray_NDIM(a);
    *k = nd == 2 ? PyArray_DIM(a, 1) : 1;
    if (*k > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "more than 2^31-1 vectors in one block");
        Py_DECREF(a);
        return -1;
    }
    *fortran = order >= 0 ? order : nd == 2 && *k > 1 && PyArray_IS_F_CONTIGUOUS(a) && !PyArray_IS_C_CONTIGUOUS(a);
    if (out && out != Py_None && check_out(out, nd, m, *k, order, fortran)) {
        Py_DECREF(a);
        return -1;
    }
    if (*k <= 1) *fortran = 0; /* one vector: both layouts are the same bytes */
    if (!(*X = in_place_or_copy(a, *fortran))) return -1;
    if (out && out != Py_None) {
        *Y = (PyArrayObject *)out;
        Py_INCREF(out);
        if (overlap(*X, *Y)) {
            PyErr_SetString(PyExc_ValueError, "out overlaps the operand");
            Py_DECREF(*X);
            Py_DECREF(*Y);
            return -1;
        }
    } else {
        npy_intp dims[2] = {m, *k};
        *Y = alloc ? alloc(ctx, nd, m, *k, *fortran) : (PyArrayObject *)PyArray_EMPTY(nd, dims, NPY_REAL, *fortran);
        if (!*Y) {
            Py_DECREF(*X);
            return -1;
        }
    }
    return 0;
}

/* Memory the library allocated, owned by an ndarray through a capsule. */
static void free_capsule(PyObject *cap) { hspmv_free(PyCapsule_GetPointer(cap, "hspmv.memory")); }

static PyObject *wrap_library_array(void *p, int type, npy_intp n)
{
    if (!p) return PyArray_ZEROS(1, &n, type, 0);
    PyObject *arr = PyArray_SimpleNewFromData(1, &n, type, p);
    PyObject *cap = arr ? PyCapsule_New(p, "hspmv.memory", free_capsule) : NULL;
    if (!cap) {
        Py_XDECREF(arr);
        hspmv_free(p);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, cap) < 0) { /* steals cap, which then frees p */
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

/* An array argument that must already be exactly as the library takes it
   (the Python layer converts): C-contiguous, aligned, native, of type t. */
static int exact_array(PyObject *o, int t, npy_intp n, const char *what)
{
    if (!PyArray_Check(o) || PyArray_TYPE((PyArrayObject *)o) != t || !PyArray_ISCARRAY_RO((PyArrayObject *)o) ||
        !PyArray_ISNOTSWAPPED((PyArrayObject *)o) || PyArray_NDIM((PyArrayObject *)o) != 1 ||
        PyArray_DIM((PyArrayObject *)o, 0) != n) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous 1-D array of %zd entries of type %d", what,
                     (Py_ssize_t)n, t);
        return -1;
    }
    return 0;
}

/* hspmv_opts from the Python layer's tuple (format, kernel, threads,
   csrl_threshold or None, partition, halo, read, node_ranks, symmetric, reorder), checked there;
   the library checks the values again (a threshold < 0 or NaN is its error,
   never replaced by the default). */
static int parse_opts(PyObject *t, hspmv_opts *o)
{
    hspmv_opts_default(o);
    PyObject *csrl;
    const char *kernel;
    if (!PyArg_ParseTuple(t, "isiOiiiiii", &o->format, &kernel, &o->threads, &csrl, &o->partition, &o->halo,
                          &o->read, &o->node_ranks, &o->symmetric, &o->reorder))
        return -1;
    o->kernel = kernel; /* lives as long as the tuple, which outlives the call */
    if (csrl != Py_None) {
        o->csrl_threshold = PyFloat_AsDouble(csrl);
        if (o->csrl_threshold == -1.0 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *module_version(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyUnicode_FromString(hspmv_version());
}

#include "local_type.c"
#include "dist_type.c"

static PyMethodDef module_methods[] = {
    {"local_create", local_create, METH_VARARGS, "local_create(nrows, ncols, indptr, indices, data, opts) -> Local"},
    {"read_csr", read_csr, METH_VARARGS, "read_csr(path, read_threads) -> (nrows, ncols, indptr, indices, data)"},
    {"dist_read", dist_read, METH_VARARGS, "dist_read(comm, path, opts) -> Dist"},
    {"dist_create", dist_create, METH_VARARGS,
     "dist_create(comm, nrows_local, ncols, ncols_local, indptr, indices, data, opts) -> Dist"},
    {"version", (PyCFunction)(void (*)(void))module_version, METH_NOARGS, "the library's version"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, STR(HSPMV_PY_MODULE),
                                        "hspmv's C core in one precision (use the hspmv package)", -1,
                                        module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC CAT(PyInit_, HSPMV_PY_MODULE)(void)
{
    import_array();
    PyObject *errmod = PyImport_ImportModule("hspmv._error");
    if (!errmod) return NULL;
    ErrorClass = PyObject_GetAttrString(errmod, "Error");
    Py_DECREF(errmod);
    if (!ErrorClass) return NULL;
    if (PyType_Ready(&LocalType) < 0 || PyType_Ready(&DistType) < 0 || PyType_Ready(&VecOwnerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(&LocalType);
    Py_INCREF(&DistType);
    if (PyModule_AddObject(m, "Local", (PyObject *)&LocalType) < 0 ||
        PyModule_AddObject(m, "Dist", (PyObject *)&DistType) < 0 ||
        PyModule_AddIntConstant(m, "itemsize", (long)sizeof(hspmv_real)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
