/* csrl_from_csr.c — CSR to CSRL: maximal runs of consecutive columns become segments. */
#include <string.h>
#include "csrl.h"
#include "util.h"

int64_t hspmv_csr_count_segments(const hspmv_csr *A)
{
    int64_t nseg = 0;
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            nseg += (k == A->rowptr[i] || A->colind[k] != A->colind[k - 1] + 1);
    return nseg;
}

int hspmv_csrl_from_csr(const hspmv_csr *A, hspmv_csrl *L, hspmv_error *err)
{
    int64_t n = A->nrows, nseg = hspmv_csr_count_segments(A), s = 0;
    memset(L, 0, sizeof(*L));
    L->nrows = n;
    L->ncols = A->ncols;
    L->nnz = A->nnz;
    L->nseg = nseg;
    L->segptr = hspmv_alloc_array(n + 1, sizeof(int64_t));
    L->valptr = hspmv_alloc_array(n + 1, sizeof(int64_t));
    L->jas = hspmv_alloc_array(nseg, sizeof(int32_t));
    L->jan = hspmv_alloc_array(nseg, sizeof(int32_t));
    L->val = hspmv_alloc_array(A->nnz, sizeof(hspmv_real));
    if (!L->segptr || !L->valptr || !L->jas || !L->jan || !L->val) {
        hspmv_csrl_free(L);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "CSRL conversion: out of memory for %lld segments",
                         (long long)nseg);
    }
    memcpy(L->valptr, A->rowptr, (size_t)(n + 1) * sizeof(int64_t));
    memcpy(L->val, A->val, (size_t)A->nnz * sizeof(hspmv_real));
    L->segptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (k == A->rowptr[i] || A->colind[k] != A->colind[k - 1] + 1) {
                L->jas[s] = A->colind[k];
                L->jan[s++] = 1;
            } else {
                L->jan[s - 1]++;
            }
        }
        L->segptr[i + 1] = s;
    }
    return hspmv_ok(err);
}

void hspmv_csrl_free(hspmv_csrl *L)
{
    if (!L) return;
    hspmv_free(L->segptr);
    hspmv_free(L->valptr);
    hspmv_free(L->jas);
    hspmv_free(L->jan);
    hspmv_free(L->val);
    memset(L, 0, sizeof(*L));
}
