/* local_spmm.c — Y = op(A) X for a block of k vectors on a prepared matrix:
   the argument checks, the transposed copy's dispatch, and the layouts. */
#include <string.h>
#include "local.h"
#include "util.h"

/* Fallback for a format without a block kernel: each vector on its own,
   through the one-vector kernel (columns copied out of and back into the
   row-major block). */
static int spmm_by_columns(const hspmv_local *L, int k, const hspmv_real *X, hspmv_real *Y, int add, int colmajor,
                           hspmv_error *err)
{
    int64_t m = L->nrows, n = L->ncols;
    if (colmajor) {
        for (int j = 0; j < k; j++) hspmv_local_spmv(L, X + (size_t)j * (size_t)n, Y + (size_t)j * (size_t)m, add);
        return hspmv_ok(err);
    }
    hspmv_real *x = hspmv_alloc_pages((size_t)(n ? n : 1), sizeof(hspmv_real));
    hspmv_real *y = hspmv_alloc_pages((size_t)(m ? m : 1), sizeof(hspmv_real));
    if (!x || !y) {
        hspmv_free(x);
        hspmv_free(y);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_local_spmm: out of memory for %d vectors", k);
    }
    for (int j = 0; j < k; j++) {
        for (int64_t i = 0; i < n; i++) x[i] = X[i * k + j];
        hspmv_local_spmv(L, x, y, 0);
        if (add)
            for (int64_t i = 0; i < m; i++) Y[i * k + j] += y[i];
        else
            for (int64_t i = 0; i < m; i++) Y[i * k + j] = y[i];
    }
    hspmv_free(x);
    hspmv_free(y);
    return hspmv_ok(err);
}

int hspmv_local_spmm(hspmv_local *L, int flags, int k, const hspmv_real *X, hspmv_real *Y, int add,
                     hspmv_error *err)
{
    if (!L || k < 1 || (flags & ~(HSPMV_TRANSPOSE | HSPMV_COL_MAJOR)) || !X || !Y)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_local_spmm: bad arguments (k = %d, flags = %d)", k, flags);
    if (flags & HSPMV_TRANSPOSE) {
        int rc = hspmv_local_transposed(L, err);
        if (rc) return rc;
        L = L->T;
    }
    if (k == 1) {
        hspmv_local_spmv(L, X, Y, add);
        return hspmv_ok(err);
    }
    return spmm_by_columns(L, k, X, Y, add, (flags & HSPMV_COL_MAJOR) != 0, err);
}
