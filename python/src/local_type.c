/* local_type.c — the one-process matrix (hspmv_local) as the type Local:
   creation from CSR arrays or a file, products, info. Included by core.c. */

typedef struct {
    PyObject_HEAD hspmv_local *L;
    npy_intp nrows, ncols, nnz;
    int busy;   /* products in flight with the GIL released (counted under the GIL) */
    int doomed; /* free() was called: destroyed when the last product in flight ends */
    int reordered; /* hspmv_opts.reorder renumbered it: its one-vector product uses vectors kept
                      with the matrix, so it runs with the GIL held (one at a time) */
} LocalObject;

static PyTypeObject LocalType;

static PyObject *new_local(hspmv_local *L)
{
    LocalObject *self = PyObject_New(LocalObject, &LocalType);
    if (!self) {
        hspmv_local_destroy(&L);
        return NULL;
    }
    hspmv_local_info in;
    hspmv_local_get_info(L, &in);
    self->L = L;
    self->busy = self->doomed = 0;
    self->nrows = (npy_intp)in.nrows;
    self->ncols = (npy_intp)in.ncols;
    self->nnz = (npy_intp)in.nnz;
    self->reordered = in.row_perm != NULL;
    return (PyObject *)self;
}

static void Local_dealloc(LocalObject *self)
{
    hspmv_local_destroy(&self->L);
    PyObject_Free(self);
}

/* local_create(nrows, ncols, indptr int64, indices int32, data real, opts):
   the arrays are read in place (the library keeps its own prepared copy). */
static PyObject *local_create(PyObject *mod, PyObject *args)
{
    (void)mod;
    long long nrows, ncols;
    PyObject *ip, *ix, *dv, *ot;
    hspmv_opts o;
    if (!PyArg_ParseTuple(args, "LLOOOO!", &nrows, &ncols, &ip, &ix, &dv, &PyTuple_Type, &ot)) return NULL;
    if (parse_opts(ot, &o) || exact_array(ip, NPY_INT64, (npy_intp)nrows + 1, "indptr")) return NULL;
    int64_t nnz = ((int64_t *)PyArray_DATA((PyArrayObject *)ip))[nrows];
    if (exact_array(ix, NPY_INT32, (npy_intp)nnz, "indices") || exact_array(dv, NPY_REAL, (npy_intp)nnz, "data"))
        return NULL;
    hspmv_csr A = {nrows, ncols, nnz, PyArray_DATA((PyArrayObject *)ip), PyArray_DATA((PyArrayObject *)ix),
                   PyArray_DATA((PyArrayObject *)dv)};
    hspmv_local *L = NULL;
    hspmv_error err;
    int rc;
    NOGIL(rc = hspmv_local_create(&A, &o, &L, &err));
    if (rc) return raise_error(rc, err.msg);
    return new_local(L);
}

/* read_csr(path, read_threads) -> (nrows, ncols, indptr, indices, data): the
   library's arrays, owned by the ndarrays (no copy). */
static PyObject *read_csr(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *path;
    int rthreads, rc;
    if (!PyArg_ParseTuple(args, "O&i", PyUnicode_FSConverter, &path, &rthreads)) return NULL;
    hspmv_read_opts ro = {NULL, NULL, rthreads};
    hspmv_csr A;
    hspmv_error err;
    const char *p = PyBytes_AS_STRING(path);
    NOGIL(rc = hspmv_csr_read(p, &A, &ro, NULL, &err));
    Py_DECREF(path);
    if (rc) return raise_error(rc, err.msg);
    /* each wrap takes its array (freed on failure too) */
    PyObject *ip = wrap_library_array(A.rowptr, NPY_INT64, (npy_intp)A.nrows + 1);
    PyObject *ix = wrap_library_array(A.colind, NPY_INT32, (npy_intp)A.nnz);
    PyObject *dv = wrap_library_array(A.val, NPY_REAL, (npy_intp)A.nnz);
    if (!ip || !ix || !dv) {
        Py_XDECREF(ip);
        Py_XDECREF(ix);
        Py_XDECREF(dv);
        return NULL;
    }
    return Py_BuildValue("LLNNN", (long long)A.nrows, (long long)A.ncols, ip, ix, dv);
}

/* 1 when NumPy's promotion of this precision with x's dtype is wider than
   the precision (float32 matrix, float64 or int32/int64 x): the Python
   layer then computes in float64 (hspmv._matrix). */
static int wider_operand(PyObject *x)
{
#ifdef HSPMV_SINGLE
    PyArray_Descr *d = PyArray_Check(x) ? PyArray_DESCR((PyArrayObject *)x) : NULL;
    if (d && d->type_num == NPY_FLOAT) return 0;
    PyArrayObject *a = d ? NULL : (PyArrayObject *)PyArray_FROM_O(x);
    if (!d && !a) {
        PyErr_Clear(); /* the product reports what is wrong with x */
        return 0;
    }
    if (PyArray_NDIM(d ? (PyArrayObject *)x : a) == 0) { /* a scalar: the product refuses it */
        Py_XDECREF(a);
        return 0;
    }
    PyArray_Descr *f = PyArray_DescrFromType(NPY_FLOAT);
    PyArray_Descr *p = PyArray_PromoteTypes(f, d ? d : PyArray_DESCR(a));
    int wide = p && PyTypeNum_ISFLOAT(p->type_num) && p->elsize > (int)sizeof(float);
    Py_XDECREF(p);
    Py_DECREF(f);
    Py_XDECREF(a);
    PyErr_Clear();
    return wide;
#else
    (void)x;
    return 0;
#endif
}

/* Destroys the matrix once free() was asked and no product is in flight. */
static void local_release(LocalObject *self)
{
    if (self->doomed && !self->busy) hspmv_local_destroy(&self->L);
}

/* mul(x, out=None, transpose=False): y = A x or A^T x for one vector (1-D)
   or a block (2-D: C order row by row, Fortran order HSPMV_COL_MAJOR).
   NotImplemented when x's dtype promotes past this precision. The matrix
   stays alive while the GIL is released (busy): free() meanwhile only
   marks it, and the last product in flight destroys it. */
static PyObject *Local_mul(LocalObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 3) {
        PyErr_SetString(PyExc_TypeError, "mul(x, out=None, transpose=False)");
        return NULL;
    }
    if (!self->L || self->doomed) return raise_error(HSPMV_ERR_ARG, "the matrix was freed");
    int T = nargs > 2 ? PyObject_IsTrue(args[2]) : 0;
    if (T < 0) return NULL;
    if (wider_operand(args[0])) Py_RETURN_NOTIMPLEMENTED;
    PyArrayObject *X, *Y;
    npy_intp k;
    int fortran, rc = HSPMV_OK;
    npy_intp n = T ? self->nrows : self->ncols, m = T ? self->ncols : self->nrows;
    if (prepare_product(args[0], nargs > 1 ? args[1] : NULL, -1, n, m, NULL, NULL, &X, &Y, &k, &fortran)) return NULL;
    const hspmv_real *x = PyArray_DATA(X);
    hspmv_real *y = PyArray_DATA(Y);
    hspmv_error err;
    if (k == 0) {
    } else if (T) /* the first builds the transposed copy: no other call beside it, so the GIL stays */
        rc = hspmv_local_spmm(self->L, HSPMV_TRANSPOSE | (fortran ? HSPMV_COL_MAJOR : 0), (int)k, x, y, 0, &err);
    else {
        hspmv_local *L = self->L;
        self->busy++;
        if (k == 1 && self->reordered) hspmv_local_spmv(L, x, y, 0); /* L's own vectors: one call at a time */
        else if (k == 1) NOGIL(hspmv_local_spmv(L, x, y, 0));
        else NOGIL(rc = hspmv_local_spmm(L, fortran ? HSPMV_COL_MAJOR : 0, (int)k, x, y, 0, &err));
        self->busy--;
        local_release(self);
    }
    Py_DECREF(X);
    if (rc) {
        Py_DECREF(Y);
        return raise_error(rc, err.msg);
    }
    return (PyObject *)Y;
}

/* time_c(x, y, reps) -> list of the seconds of each of reps plain C calls
   hspmv_local_spmv(x, y) (bench/python_vs_scipy.py: the binding's overhead) */
static PyObject *Local_time_c(LocalObject *self, PyObject *args)
{
    PyObject *xo, *yo;
    int reps;
    if (!PyArg_ParseTuple(args, "OOi", &xo, &yo, &reps)) return NULL;
    if (!self->L || self->doomed) return raise_error(HSPMV_ERR_ARG, "the matrix was freed");
    if (exact_array(xo, NPY_REAL, self->ncols, "x") || exact_array(yo, NPY_REAL, self->nrows, "y")) return NULL;
    PyObject *list = PyList_New(reps > 0 ? reps : 0);
    if (!list) return NULL;
    const hspmv_real *x = PyArray_DATA((PyArrayObject *)xo);
    hspmv_real *y = PyArray_DATA((PyArrayObject *)yo);
    for (int r = 0; r < reps; r++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        hspmv_local_spmv(self->L, x, y, 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        PyList_SET_ITEM(list, r, PyFloat_FromDouble((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)));
    }
    return list;
}

/* The Python name of an HSPMV_REORDER_* value (hspmv._backend._REORDERS). */
static const char *reorder_name(int r)
{
    return r == HSPMV_REORDER_RCM ? "rcm" : r == HSPMV_REORDER_ND ? "nd" : r == HSPMV_REORDER_AUTO ? "auto" : "none";
}

static PyObject *local_info_dict(const hspmv_local_info *in)
{
    return Py_BuildValue("{s:s,s:s,s:i,s:L,s:L,s:L,s:L,s:d,s:d,s:s,s:i,s:i,s:i,s:i,s:L,s:s,s:s,s:L,s:L,s:d,s:d,s:L,s:d}",
                         "format", in->format_name, "isa", in->isa, "threads", in->threads, "nrows",
                         (long long)in->nrows, "ncols", (long long)in->ncols, "nnz", (long long)in->nnz, "nseg",
                         (long long)in->nseg, "seg_ratio", in->seg_ratio, "bytes", in->bytes, "bytes_formula",
                         in->bytes_formula, "npanels", in->npanels, "xpf", in->xpf, "stream_y", in->stream_y,
                         "symmetric", in->symmetric, "sym_halo", (long long)in->sym_halo, "reorder_asked",
                         reorder_name(in->reorder_asked), "reorder", reorder_name(in->reorder), "bandwidth_before",
                         (long long)in->bandwidth_before, "bandwidth_after", (long long)in->bandwidth_after,
                         "local_before", in->local_before, "local_after", in->local_after, "reorder_window",
                         (long long)in->reorder_window, "reorder_s", in->reorder_s);
}

static PyObject *Local_info(LocalObject *self, PyObject *unused)
{
    (void)unused;
    if (!self->L || self->doomed) return raise_error(HSPMV_ERR_ARG, "the matrix was freed");
    hspmv_local_info in;
    hspmv_local_get_info(self->L, &in);
    return local_info_dict(&in);
}

/* free(): now, or when the products in flight in other threads end */
static PyObject *Local_free(LocalObject *self, PyObject *unused)
{
    (void)unused;
    self->doomed = 1;
    local_release(self);
    Py_RETURN_NONE;
}

static PyObject *Local_shape(LocalObject *self, void *c)
{
    (void)c;
    return Py_BuildValue("(nn)", (Py_ssize_t)self->nrows, (Py_ssize_t)self->ncols);
}

static PyObject *Local_nnz(LocalObject *self, void *c)
{
    (void)c;
    return PyLong_FromSsize_t((Py_ssize_t)self->nnz);
}

static PyMethodDef Local_methods[] = {
    {"mul", (PyCFunction)(void (*)(void))Local_mul, METH_FASTCALL, "mul(x, out=None, transpose=False)"},
    {"info", (PyCFunction)(void (*)(void))Local_info, METH_NOARGS, "hspmv_local_get_info as a dict"},
    {"free", (PyCFunction)(void (*)(void))Local_free, METH_NOARGS, "hspmv_local_destroy now"},
    {"time_c", (PyCFunction)(void (*)(void))Local_time_c, METH_VARARGS, "time_c(x, y, reps): seconds of each C call"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Local_getset[] = {{"shape", (getter)Local_shape, NULL, "(nrows, ncols)", NULL},
                                     {"nnz", (getter)Local_nnz, NULL, "stored entries", NULL},
                                     {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject LocalType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hspmv." STR(HSPMV_PY_MODULE) ".Local",
    .tp_basicsize = sizeof(LocalObject),
    .tp_dealloc = (destructor)Local_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "a prepared one-process matrix (hspmv_local)",
    .tp_methods = Local_methods,
    .tp_getset = Local_getset,
};
