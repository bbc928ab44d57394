/* dist_diag.c — the diagonal of a distributed matrix: kept from each rank's
   rows when the matrix is built (whatever made them), handed out on request. */
#include <string.h>
#include "dist.h"
#include "util.h"

int hspmv_dist_keep_diagonal(hspmv_dist *D, const hspmv_csr *S)
{
    int64_t r0 = D->row_start[D->rank];
    D->diag = hspmv_alloc_array((size_t)(S->nrows ? S->nrows : 1), sizeof(hspmv_real));
    if (!D->diag) return HSPMV_ERR_NOMEM;
    for (int64_t i = 0; i < S->nrows; i++) {
        hspmv_real d = 0;
        for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
            if (S->colind[k] == r0 + i) d += S->val[k];
        D->diag[i] = d;
    }
    return HSPMV_OK;
}

int hspmv_dist_get_diagonal(const hspmv_dist *D, hspmv_real *diag, hspmv_error *err)
{
    if (!D) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_get_diagonal: distributed matrix is NULL");
    if (D->nrows_local > 0 && !diag)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_get_diagonal: rank %d: diag is NULL", D->rank);
    if (D->nrows_local > 0) memcpy(diag, D->diag, sizeof(hspmv_real) * (size_t)D->nrows_local);
    return hspmv_ok(err);
}
