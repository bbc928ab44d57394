/* csr_basic.c — the CSR type's own check (the invariants every kernel
   relies on) and free: in util, below every layer that makes, reads,
   writes or multiplies a CSR (io, csr, local, mpi) and so callable by all. */
#include <string.h>
#include "util.h"

int hspmv_csr_validate(const hspmv_csr *A, hspmv_error *err)
{
    if (!A) return hspmv_err(err, HSPMV_ERR_ARG, "CSR: the matrix is NULL");
    if (A->nrows < 0 || A->ncols < 0 || A->nrows > INT32_MAX || A->ncols > INT32_MAX || A->nnz < 0)
        return hspmv_err(err, HSPMV_ERR_ARG, "CSR: bad sizes (nrows = %lld, ncols = %lld, nnz = %lld; "
                         "rows and columns 0 to 2^31-1, nnz >= 0)",
                         (long long)A->nrows, (long long)A->ncols, (long long)A->nnz);
    if (A->nrows > 0 && !A->rowptr)
        return hspmv_err(err, HSPMV_ERR_ARG, "CSR: rowptr is NULL");
    if (A->nnz > 0 && !A->colind)
        return hspmv_err(err, HSPMV_ERR_ARG, "CSR: colind is NULL with nnz = %lld", (long long)A->nnz);
    if (A->nnz > 0 && !A->val)
        return hspmv_err(err, HSPMV_ERR_ARG, "CSR: val is NULL with nnz = %lld", (long long)A->nnz);
    if (A->nrows == 0 && A->nnz != 0)
        return hspmv_err(err, HSPMV_ERR_ARG, "CSR: 0 rows but nnz = %lld", (long long)A->nnz);
    if (A->rowptr && A->rowptr[0] != 0)
        return hspmv_err(err, HSPMV_ERR_FORMAT, "CSR: rowptr[0] = %lld, expected 0",
                         (long long)A->rowptr[0]);
    /* rowptr first, whole: colind is read only within [0, nnz) */
    for (int64_t i = 0; i < A->nrows; i++) {
        if (A->rowptr[i + 1] < A->rowptr[i])
            return hspmv_err(err, HSPMV_ERR_FORMAT, "CSR: rowptr decreases at row %lld", (long long)i);
        if (A->rowptr[i + 1] > A->nnz)
            return hspmv_err(err, HSPMV_ERR_FORMAT, "CSR: rowptr[%lld] = %lld exceeds nnz = %lld",
                             (long long)i + 1, (long long)A->rowptr[i + 1], (long long)A->nnz);
    }
    if (A->nrows > 0 && A->rowptr[A->nrows] != A->nnz)
        return hspmv_err(err, HSPMV_ERR_FORMAT, "CSR: rowptr[nrows] = %lld but nnz = %lld",
                         (long long)A->rowptr[A->nrows], (long long)A->nnz);
    for (int64_t i = 0; i < A->nrows; i++) {
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (A->colind[k] < 0 || A->colind[k] >= A->ncols)
                return hspmv_err(err, HSPMV_ERR_FORMAT, "CSR: row %lld has column %d outside 0..%lld",
                                 (long long)i, A->colind[k], (long long)A->ncols - 1);
            if (k > A->rowptr[i] && A->colind[k] <= A->colind[k - 1])
                return hspmv_err(err, HSPMV_ERR_FORMAT, "CSR: row %lld columns not strictly ascending at %d",
                                 (long long)i, A->colind[k]);
        }
    }
    return hspmv_ok(err);
}

void hspmv_csr_free(hspmv_csr *A)
{
    if (!A) return;
    hspmv_free(A->rowptr);
    hspmv_free(A->colind);
    hspmv_free(A->val);
    memset(A, 0, sizeof(*A));
}
