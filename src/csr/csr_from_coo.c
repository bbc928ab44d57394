/* csr_from_coo.c — COO triplets to the general CSR matrix in O(nnz + nrows):
   counting sort by row, columns sorted within rows, duplicates summed,
   symmetric and skew-symmetric triangles mirrored, explicit zeros kept. */
#include <string.h>
#include "csr_build.h"
#include "csr.h"

int hspmv_csr_from_coo(const hspmv_coo *coo, hspmv_csr *A, hspmv_error *err)
{
    int64_t n = coo->nrows, nz = coo->nnz, total;
    int mirror = coo->symmetry != HSPMV_GENERAL;
    hspmv_real sign = coo->symmetry == HSPMV_SKEW_SYMMETRIC ? -1 : 1;
    int64_t *next = NULL;

    memset(A, 0, sizeof(*A));
    if (n < 0 || coo->ncols < 0 || nz < 0 || n > INT32_MAX || coo->ncols > INT32_MAX)
        return hspmv_err(err, HSPMV_ERR_ARG, "CSR build: bad COO sizes %lld x %lld, nnz %lld",
                         (long long)n, (long long)coo->ncols, (long long)nz);
    A->nrows = n;
    A->ncols = coo->ncols;
    A->rowptr = hspmv_calloc((size_t)n + 1, sizeof(int64_t));
    if (!A->rowptr) goto nomem;

    /* count entries per row, mirrored off-diagonal ones twice */
    for (int64_t k = 0; k < nz; k++) {
        A->rowptr[coo->row[k] + 1]++;
        if (mirror && coo->row[k] != coo->col[k]) A->rowptr[coo->col[k] + 1]++;
    }
    for (int64_t i = 0; i < n; i++) A->rowptr[i + 1] += A->rowptr[i];
    total = A->rowptr[n];

    A->colind = hspmv_alloc_array((size_t)total, sizeof(int32_t));
    A->val = hspmv_alloc_array((size_t)total, sizeof(hspmv_real));
    next = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    if (!A->colind || !A->val || !next) goto nomem;
    memcpy(next, A->rowptr, ((size_t)n + 1) * sizeof(int64_t));

    for (int64_t k = 0; k < nz; k++) {
        int32_t r = coo->row[k], c = coo->col[k];
        int64_t p = next[r]++;
        A->colind[p] = c;
        A->val[p] = coo->val[k];
        if (mirror && r != c) {
            p = next[c]++;
            A->colind[p] = r;
            A->val[p] = sign * coo->val[k];
        }
    }
    hspmv_free(next);
    A->nnz = total;
    int32_t bc = 0;
    int64_t br = hspmv_csr_sort_and_sum(A, &bc);
    if (br >= 0) {
        hspmv_csr_free(A);
        return hspmv_csr_fault_dup(err, NULL, br, bc);
    }
    return hspmv_ok(err);

nomem:
    hspmv_free(next);
    hspmv_csr_free(A);
    return hspmv_err(err, HSPMV_ERR_NOMEM, "CSR build: out of memory for %lld x %lld matrix with %lld entries",
                     (long long)n, (long long)coo->ncols, (long long)nz);
}
