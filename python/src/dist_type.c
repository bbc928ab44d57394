/* dist_type.c — the distributed matrix (hspmv_dist) as the type Dist:
   creation, vectors in the library's memory (NumPy views whose base keeps
   the matrix alive), products, scatter/gather, the solvers. Included by core.c. */
#include <mpi4py/mpi4py.h>

typedef struct {
    PyObject_HEAD hspmv_dist *D;
    npy_intp nrows_local, ncols_local, nrows, ncols;
    int rank;
} DistObject;

/* The owner of a vector from hspmv_dist_vec_alloc: frees it, then lets the
   matrix go (so the matrix outlives its vectors whatever the order). */
typedef struct {
    PyObject_HEAD void *p;
    PyObject *mat;
} VecOwner;

static PyTypeObject DistType, VecOwnerType;

static int mpi_finalized(void)
{
    int f = 0;
    MPI_Finalized(&f);
    return f;
}

static void VecOwner_dealloc(VecOwner *self)
{
    if (self->p && !mpi_finalized()) hspmv_free(self->p); /* after MPI_Finalize the window may be gone */
    Py_XDECREF(self->mat);
    PyObject_Free(self);
}

static PyTypeObject VecOwnerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hspmv." STR(HSPMV_PY_MODULE) ".VecOwner",
    .tp_basicsize = sizeof(VecOwner),
    .tp_dealloc = (destructor)VecOwner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "owns a vector of hspmv_dist_vec_alloc",
};

/* The MPI_Comm of an mpi4py communicator (mpi4py's C API, imported on first use). */
static MPI_Comm *get_comm(PyObject *c)
{
    static int ready;
    if (!ready) {
        if (import_mpi4py() < 0) return NULL;
        ready = 1;
    }
    return PyMPIComm_Get(c);
}

static PyObject *new_dist(hspmv_dist *D)
{
    DistObject *self = PyObject_New(DistObject, &DistType);
    if (!self) {
        hspmv_dist_destroy(&D); /* collective: every rank fails here alike (memory aside) */
        return NULL;
    }
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    self->D = D;
    self->nrows_local = (npy_intp)in.nrows_local;
    self->ncols_local = (npy_intp)in.ncols_local;
    self->nrows = (npy_intp)in.nrows;
    self->ncols = (npy_intp)in.ncols;
    self->rank = in.rank;
    return (PyObject *)self;
}

/* Not hspmv_dist_destroy: it is collective, and Python drops an object at
   moments that differ between ranks (the cycle collector runs when each
   rank's allocations say so), so destroying here can hang the ranks. A
   matrix dropped without free() keeps its memory until the program ends. */
static void Dist_dealloc(DistObject *self)
{
    if (self->D && !mpi_finalized()) {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        if (PyErr_WarnEx(PyExc_ResourceWarning,
                         "hspmv.DistMatrix dropped without free(): its memory stays until the program ends "
                         "(destroying is collective: call free() or use `with` on every rank)",
                         1) < 0)
            PyErr_WriteUnraisable((PyObject *)self);
        PyErr_Restore(et, ev, tb);
    }
    PyObject_Free(self);
}

/* dist_read(comm, path, opts) */
static PyObject *dist_read(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *c, *path, *ot;
    hspmv_opts o;
    if (!PyArg_ParseTuple(args, "OO&O!", &c, PyUnicode_FSConverter, &path, &PyTuple_Type, &ot)) return NULL;
    MPI_Comm *comm = get_comm(c);
    if (!comm || parse_opts(ot, &o)) {
        Py_DECREF(path);
        return NULL;
    }
    hspmv_dist *D = NULL;
    hspmv_error err;
    int rc;
    const char *p = PyBytes_AS_STRING(path);
    NOGIL(rc = hspmv_dist_read(p, *comm, &o, &D, &err));
    Py_DECREF(path);
    if (rc) return raise_error(rc, err.msg);
    return new_dist(D);
}

/* dist_create(comm, nrows_local, ncols, ncols_local, indptr int64, indices int64, data, opts) */
static PyObject *dist_create(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *c, *ip, *ix, *dv, *ot;
    long long nl, ncols, ncl;
    hspmv_opts o;
    if (!PyArg_ParseTuple(args, "OLLLOOOO!", &c, &nl, &ncols, &ncl, &ip, &ix, &dv, &PyTuple_Type, &ot)) return NULL;
    MPI_Comm *comm = get_comm(c);
    if (!comm || parse_opts(ot, &o) || exact_array(ip, NPY_INT64, (npy_intp)nl + 1, "indptr")) return NULL;
    int64_t nnz = ((int64_t *)PyArray_DATA((PyArrayObject *)ip))[nl];
    if (exact_array(ix, NPY_INT64, (npy_intp)nnz, "indices") || exact_array(dv, NPY_REAL, (npy_intp)nnz, "data"))
        return NULL;
    hspmv_dist *D = NULL;
    hspmv_error err;
    int rc;
    const int64_t *rp = PyArray_DATA((PyArrayObject *)ip), *ci = PyArray_DATA((PyArrayObject *)ix);
    const hspmv_real *va = PyArray_DATA((PyArrayObject *)dv);
    NOGIL(rc = hspmv_dist_create(*comm, nl, ncols, ncl, rp, ci, va, &o, &D, &err));
    if (rc) return raise_error(rc, err.msg);
    return new_dist(D);
}

/* A NumPy array over a vector of hspmv_dist_vec_alloc: (n,) or (n, k). */
static PyArrayObject *dist_vector(DistObject *self, int which, int nd, npy_intp k, int fortran)
{
    npy_intp dims[2] = {which == HSPMV_VEC_ROWS ? self->nrows_local : self->ncols_local, k};
    hspmv_real *p = hspmv_dist_vec_alloc(self->D, which, k > 1 ? (int)k : 1);
    if (!p) return (PyArrayObject *)PyErr_NoMemory();
    VecOwner *own = PyObject_New(VecOwner, &VecOwnerType);
    if (!own) {
        hspmv_free(p);
        return NULL;
    }
    own->p = p;
    own->mat = (PyObject *)self;
    Py_INCREF(self);
    PyObject *a = PyArray_New(&PyArray_Type, nd, dims, NPY_REAL, NULL, p, 0,
                              fortran ? NPY_ARRAY_FARRAY : NPY_ARRAY_CARRAY, NULL);
    if (!a || PyArray_SetBaseObject((PyArrayObject *)a, (PyObject *)own) < 0) { /* steals own */
        if (!a) Py_DECREF(own);
        Py_XDECREF(a);
        return NULL;
    }
    return (PyArrayObject *)a;
}

typedef struct {
    DistObject *self;
    int which;
} vec_ctx;

static PyArrayObject *alloc_dist(void *ctx, int nd, npy_intp m, npy_intp k, int fortran)
{
    (void)m;
    vec_ctx *v = ctx;
    return dist_vector(v->self, v->which, nd, k, fortran);
}

#define CHECK_D(self)                                                                                          \
    if (!(self)->D) return raise_error(HSPMV_ERR_ARG, "the distributed matrix was freed")

/* vector(which, k): k == 0 gives a 1-D vector */
static PyObject *Dist_vector(DistObject *self, PyObject *args)
{
    int which;
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "in", &which, &k)) return NULL;
    CHECK_D(self);
    if (k < 0 || k > INT32_MAX) return PyErr_Format(PyExc_ValueError, "k = %zd vectors", k);
    return (PyObject *)dist_vector(self, which, k == 0 ? 1 : 2, k == 0 ? 1 : k, 0);
}

/* mul(x, out=None, transpose=False, order=-1): collective; order 0 (C) or
   1 (Fortran) for a block, as the ranks agreed it (hspmv._dist), -1: the
   arrays' own (one vector) */
static PyObject *Dist_mul(DistObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 4) {
        PyErr_SetString(PyExc_TypeError, "mul(x, out=None, transpose=False, order=-1)");
        return NULL;
    }
    CHECK_D(self);
    int T = nargs > 2 ? PyObject_IsTrue(args[2]) : 0;
    if (T < 0) return NULL;
    long order = nargs > 3 ? PyLong_AsLong(args[3]) : -1;
    if (order == -1 && PyErr_Occurred()) return NULL;
    PyArrayObject *X, *Y;
    npy_intp k;
    int fortran, rc = HSPMV_OK;
    npy_intp n = T ? self->nrows_local : self->ncols_local, m = T ? self->ncols_local : self->nrows_local;
    vec_ctx v = {self, T ? HSPMV_VEC_COLS : HSPMV_VEC_ROWS};
    if (prepare_product(args[0], nargs > 1 ? args[1] : NULL, (int)order, n, m, alloc_dist, &v, &X, &Y, &k, &fortran))
        return NULL;
    const hspmv_real *x = PyArray_DATA(X);
    hspmv_real *y = PyArray_DATA(Y);
    hspmv_error err;
    int flags = (T ? HSPMV_TRANSPOSE : 0) | (fortran ? HSPMV_COL_MAJOR : 0);
    if (k > 0) { /* k == 0: nothing to compute (on every rank alike) */
        if (!T && k == 1) NOGIL(rc = hspmv_dist_spmv(self->D, x, y, &err));
        else NOGIL(rc = hspmv_dist_spmm(self->D, flags, (int)k, x, y, &err));
    }
    Py_DECREF(X);
    if (rc) {
        Py_DECREF(Y);
        return raise_error(rc, err.msg);
    }
    return (PyObject *)Y;
}

/* scatter(which, global or None): collective; the Python layer checked global's size */
static PyObject *Dist_scatter(DistObject *self, PyObject *args)
{
    int which, rc;
    PyObject *g;
    if (!PyArg_ParseTuple(args, "iO", &which, &g)) return NULL;
    CHECK_D(self);
    npy_intp n = which == HSPMV_VEC_ROWS ? self->nrows : self->ncols;
    if (g != Py_None && exact_array(g, NPY_REAL, n, "global vector")) return NULL;
    PyArrayObject *loc = dist_vector(self, which, 1, 1, 0);
    if (!loc) return NULL;
    hspmv_error err;
    const hspmv_real *gp = g == Py_None ? NULL : PyArray_DATA((PyArrayObject *)g);
    hspmv_real *lp = PyArray_DATA(loc);
    NOGIL(rc = hspmv_dist_scatter(self->D, which, gp, lp, &err));
    if (rc) {
        Py_DECREF(loc);
        return raise_error(rc, err.msg);
    }
    return (PyObject *)loc;
}

/* gather(which, local): collective; the whole vector on rank 0, None elsewhere */
static PyObject *Dist_gather(DistObject *self, PyObject *args)
{
    int which, rc;
    PyObject *l;
    if (!PyArg_ParseTuple(args, "iO", &which, &l)) return NULL;
    CHECK_D(self);
    npy_intp n = which == HSPMV_VEC_ROWS ? self->nrows : self->ncols;
    if (exact_array(l, NPY_REAL, which == HSPMV_VEC_ROWS ? self->nrows_local : self->ncols_local, "local vector"))
        return NULL;
    PyArrayObject *g = NULL;
    if (self->rank == 0 && !(g = (PyArrayObject *)PyArray_EMPTY(1, &n, NPY_REAL, 0))) return NULL;
    hspmv_error err;
    const hspmv_real *lp = PyArray_DATA((PyArrayObject *)l);
    hspmv_real *gp = g ? PyArray_DATA(g) : NULL;
    NOGIL(rc = hspmv_dist_gather(self->D, which, lp, gp, &err));
    if (rc) {
        Py_XDECREF(g);
        return raise_error(rc, err.msg);
    }
    if (!g) Py_RETURN_NONE;
    return (PyObject *)g;
}

/* The one place the solvers are called: method 0 CG, 1 BiCGStab. */
static int run_solver(int method, hspmv_dist *D, const hspmv_real *b, hspmv_real *x, const hspmv_solver_opts *o,
                      hspmv_solver_result *res, hspmv_error *err)
{
    hspmv_solver_opts so = *o;
    so.method = method == 0 ? HSPMV_SOLVER_CG : HSPMV_SOLVER_BICGSTAB;
    return hspmv_solve(D, b, x, &so, res, err);
}

/* solve(method, b, x, tol, maxit, diag or None) -> (code, message, result dict); collective */
static PyObject *Dist_solve(DistObject *self, PyObject *args)
{
    int method, rc;
    PyObject *b, *x, *dg;
    double tol;
    long long maxit;
    if (!PyArg_ParseTuple(args, "iOOdLO", &method, &b, &x, &tol, &maxit, &dg)) return NULL;
    CHECK_D(self);
    npy_intp n = self->nrows_local;
    if (exact_array(b, NPY_REAL, n, "b") || exact_array(x, NPY_REAL, n, "x") ||
        (dg != Py_None && exact_array(dg, NPY_REAL, n, "diag")))
        return NULL;
    hspmv_solver_opts o;
    hspmv_solver_opts_default(&o);
    o.tol = tol;
    o.maxit = maxit;
    o.diag = dg == Py_None ? NULL : PyArray_DATA((PyArrayObject *)dg);
    hspmv_solver_result res;
    memset(&res, 0, sizeof(res));
    hspmv_error err;
    const hspmv_real *bp = PyArray_DATA((PyArrayObject *)b);
    hspmv_real *xp = PyArray_DATA((PyArrayObject *)x);
    NOGIL(rc = run_solver(method, self->D, bp, xp, &o, &res, &err));
    return Py_BuildValue(
        "isN", rc, rc ? err.msg : "",
        Py_BuildValue("{s:L,s:d,s:d,s:L,s:d,s:d}", "iterations", (long long)res.iterations, "relres", res.relres,
                      "relres_true", res.relres_true, "spmv_calls", (long long)res.spmv_calls, "total_s",
                      res.total_s, "spmv_s", res.spmv_s));
}

static PyObject *Dist_info(DistObject *self, PyObject *unused)
{
    (void)unused;
    CHECK_D(self);
    hspmv_dist_info in;
    hspmv_dist_get_info(self->D, &in);
    return Py_BuildValue("{s:i,s:i,s:i,s:i,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:i,s:i,s:s,s:N,s:N,s:s,s:L,s:L,"
                         "s:d,s:d,s:d}",
                         "rank", in.rank, "nranks", in.nranks, "partition", in.partition, "permuted", in.permuted,
                         "nrows", (long long)in.nrows, "ncols", (long long)in.ncols, "nnz", (long long)in.nnz,
                         "row_begin", (long long)in.row_begin, "row_end", (long long)in.row_end, "col_begin",
                         (long long)in.col_begin, "col_end", (long long)in.col_end, "nnz_local",
                         (long long)in.nnz_local, "nghost", (long long)in.nghost, "halo_total",
                         (long long)in.halo_total, "halo_max", (long long)in.halo_max, "halo", in.halo, "nnodes",
                         in.nnodes, "read_note", in.read_note ? in.read_note : "", "owned",
                         local_info_dict(&in.owned), "ghost", local_info_dict(&in.ghost), "reorder",
                         reorder_name(in.reorder), "bandwidth_before", (long long)in.bandwidth_before,
                         "bandwidth_after", (long long)in.bandwidth_after, "local_before", in.local_before,
                         "local_after", in.local_after, "reorder_s", in.reorder_s);
}

static PyObject *Dist_ranges(DistObject *self, PyObject *unused)
{
    (void)unused;
    CHECK_D(self);
    hspmv_dist_info in;
    hspmv_dist_get_info(self->D, &in);
    npy_intp n = in.nranks + 1;
    PyObject *r = PyArray_EMPTY(1, &n, NPY_INT64, 0), *c = PyArray_EMPTY(1, &n, NPY_INT64, 0);
    if (!r || !c) {
        Py_XDECREF(r);
        Py_XDECREF(c);
        return NULL;
    }
    hspmv_dist_get_ranges(self->D, PyArray_DATA((PyArrayObject *)r), PyArray_DATA((PyArrayObject *)c));
    return Py_BuildValue("NN", r, c);
}

static PyObject *Dist_file_index(DistObject *self, PyObject *args)
{
    int which;
    if (!PyArg_ParseTuple(args, "i", &which)) return NULL;
    CHECK_D(self);
    npy_intp n = which == HSPMV_VEC_ROWS ? self->nrows_local : self->ncols_local;
    PyObject *ix = PyArray_EMPTY(1, &n, NPY_INT64, 0);
    if (ix) hspmv_dist_get_file_index(self->D, which, PyArray_DATA((PyArrayObject *)ix));
    return ix;
}

/* free(): collective hspmv_dist_destroy now (vectors still alive stay valid) */
static PyObject *Dist_free(DistObject *self, PyObject *unused)
{
    (void)unused;
    if (self->D && !mpi_finalized()) hspmv_dist_destroy(&self->D);
    self->D = NULL;
    Py_RETURN_NONE;
}

static PyObject *Dist_local_shape(DistObject *self, void *c)
{
    (void)c;
    return Py_BuildValue("(nn)", (Py_ssize_t)self->nrows_local, (Py_ssize_t)self->ncols_local);
}

static PyObject *Dist_shape(DistObject *self, void *c)
{
    (void)c;
    return Py_BuildValue("(nn)", (Py_ssize_t)self->nrows, (Py_ssize_t)self->ncols);
}

static PyMethodDef Dist_methods[] = {
    {"mul", (PyCFunction)(void (*)(void))Dist_mul, METH_FASTCALL, "mul(x, out=None, transpose=False, order=-1), collective"},
    {"vector", (PyCFunction)(void (*)(void))Dist_vector, METH_VARARGS, "vector(which, k)"},
    {"scatter", (PyCFunction)(void (*)(void))Dist_scatter, METH_VARARGS, "scatter(which, global or None)"},
    {"gather", (PyCFunction)(void (*)(void))Dist_gather, METH_VARARGS, "gather(which, local)"},
    {"solve", (PyCFunction)(void (*)(void))Dist_solve, METH_VARARGS, "solve(method, b, x, tol, maxit, diag)"},
    {"info", (PyCFunction)(void (*)(void))Dist_info, METH_NOARGS, "hspmv_dist_get_info as a dict"},
    {"ranges", (PyCFunction)(void (*)(void))Dist_ranges, METH_NOARGS, "(row_start, col_start)"},
    {"file_index", (PyCFunction)(void (*)(void))Dist_file_index, METH_VARARGS, "file_index(which)"},
    {"free", (PyCFunction)(void (*)(void))Dist_free, METH_NOARGS, "hspmv_dist_destroy now (collective)"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Dist_getset[] = {{"shape", (getter)Dist_shape, NULL, "global (nrows, ncols)", NULL},
                                    {"local_shape", (getter)Dist_local_shape, NULL, "(nrows_local, ncols_local)",
                                     NULL},
                                    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject DistType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hspmv." STR(HSPMV_PY_MODULE) ".Dist",
    .tp_basicsize = sizeof(DistObject),
    .tp_dealloc = (destructor)Dist_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "a distributed matrix (hspmv_dist)",
    .tp_methods = Dist_methods,
    .tp_getset = Dist_getset,
};
