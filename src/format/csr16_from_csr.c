/* csr16_from_csr.c — CSR to CSR16: column indices become 16-bit offsets from the row. */
#include <string.h>
#include "csr16.h"
#include "rowptr.h"
#include "util.h"

int hspmv_csr16_fits(const hspmv_csr *A)
{
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t d = (int64_t)A->colind[k] - i;
            if (d > HSPMV_CSR16_MAXOFF || d < -HSPMV_CSR16_MAXOFF) return 0;
        }
    return 1;
}

int hspmv_csr16_alloc(const hspmv_csr *A, int rp_bits, hspmv_csr16 *C, hspmv_error *err)
{
    int rc, rp_ok;
    memset(C, 0, sizeof(*C));
    rc = hspmv_rowptr_check("CSR16", rp_bits, A->nnz, err);
    if (rc != HSPMV_OK) return rc;
    C->nrows = A->nrows;
    C->ncols = A->ncols;
    C->nnz = A->nnz;
    rp_ok = hspmv_rowptr_alloc(rp_bits, A->nrows, &C->rowptr32, &C->rowptr);
    C->off = hspmv_alloc_array((size_t)A->nnz, sizeof(int16_t));
    C->val = hspmv_alloc_array((size_t)A->nnz, sizeof(hspmv_real));
    if (!rp_ok || !C->off || !C->val) {
        hspmv_csr16_free(C);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "CSR16 conversion: out of memory for %lld nonzeros",
                         (long long)A->nnz);
    }
    return hspmv_ok(err);
}

void hspmv_csr16_fill_rows(const hspmv_csr *A, hspmv_csr16 *C, int64_t r0, int64_t r1)
{
    const int64_t *rp = A->rowptr;
    int64_t k0 = rp[r0], k1 = rp[r1];
    for (int64_t i = r0; i < r1; i++) {
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) C->off[k] = (int16_t)(A->colind[k] - i);
        hspmv_rowptr_set(C->rowptr32, C->rowptr, i + 1, rp[i + 1]);
    }
    if (k1 > k0) memcpy(C->val + k0, A->val + k0, (size_t)(k1 - k0) * sizeof(hspmv_real));
}

int hspmv_csr16_from_csr(const hspmv_csr *A, hspmv_csr16 *C, hspmv_error *err)
{
    int rc;
    memset(C, 0, sizeof(*C));
    if (!hspmv_csr16_fits(A))
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED,
                         "CSR16: a column lies more than %d from its row", HSPMV_CSR16_MAXOFF);
    rc = hspmv_csr16_alloc(A, hspmv_rowptr_bits(A->nnz), C, err);
    if (rc != HSPMV_OK) return rc;
    hspmv_csr16_fill_rows(A, C, 0, A->nrows);
    return hspmv_ok(err);
}

double hspmv_csr16_bytes(const hspmv_csr16 *C)
{
    double r = sizeof(hspmv_real), p = C->rowptr32 ? 4 : 8;
    return (double)C->nnz * (r + 2) + (double)(C->nrows + 1) * p + (double)C->ncols * r +
           (double)C->nrows * r;
}

void hspmv_csr16_free(hspmv_csr16 *C)
{
    if (!C) return;
    hspmv_free(C->rowptr32);
    hspmv_free(C->rowptr);
    hspmv_free(C->off);
    hspmv_free(C->val);
    memset(C, 0, sizeof(*C));
}
