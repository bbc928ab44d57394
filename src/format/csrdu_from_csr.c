/* csrdu_from_csr.c — CSR to CSRDU: 1-byte column deltas and row lengths, escaped numbers for the rest. */
#include <string.h>
#include "csrdu.h"
#include "util.h"

/* The first column of the last non-empty row of A before row r, or 0. */
static int32_t first_before(const hspmv_csr *A, int64_t r)
{
    while (r > 0 && A->rowptr[r - 1] == A->rowptr[r]) r--;
    return r > 0 ? A->colind[A->rowptr[r - 1]] : 0;
}

/* Escapes of row i whose previous first column is *c (updated). */
static int64_t row_escapes(const hspmv_csr *A, int64_t i, int32_t *c)
{
    int64_t k0 = A->rowptr[i], k1 = A->rowptr[i + 1], n = (k1 - k0 >= HSPMV_CSRDU_LENESC);
    if (k1 == k0) return n;
    int64_t d = (int64_t)A->colind[k0] - *c;
    n += d < -127 || d > 127;
    *c = A->colind[k0];
    for (int64_t k = k0 + 1; k < k1; k++) n += A->colind[k] - A->colind[k - 1] > 255;
    return n;
}

int64_t hspmv_csrdu_count_escapes(const hspmv_csr *A, int64_t r0, int64_t r1)
{
    int32_t c = first_before(A, r0);
    int64_t n = 0;
    for (int64_t i = r0; i < r1; i++) n += row_escapes(A, i, &c);
    return n;
}

int hspmv_csrdu_alloc(const hspmv_csr *A, int64_t nesc, hspmv_csrdu *D, hspmv_error *err)
{
    memset(D, 0, sizeof(*D));
    D->nrows = A->nrows;
    D->ncols = A->ncols;
    D->nnz = A->nnz;
    D->nesc = nesc;
    D->ncp = (A->nrows + HSPMV_CSRDU_CP - 1) / HSPMV_CSRDU_CP;
    D->len = hspmv_alloc_array((size_t)(A->nrows > 0 ? A->nrows : 1), 1);
    D->d = hspmv_alloc_array((size_t)(A->nnz > 0 ? A->nnz : 1), 1);
    D->esc = hspmv_alloc_array((size_t)nesc + HSPMV_CSRDU_ESC_SPARE, sizeof(int32_t));
    D->cp = hspmv_alloc_array((size_t)(D->ncp > 0 ? D->ncp : 1), sizeof(hspmv_csrdu_cp));
    D->val = hspmv_alloc_array((size_t)(A->nnz > 0 ? A->nnz : 1), sizeof(hspmv_real));
    if (!D->len || !D->d || !D->esc || !D->cp || !D->val) {
        hspmv_csrdu_free(D);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "CSRDU conversion: out of memory for %lld nonzeros",
                         (long long)A->nnz);
    }
    memset(D->esc + nesc, 0, HSPMV_CSRDU_ESC_SPARE * sizeof(int32_t));
    return hspmv_ok(err);
}

void hspmv_csrdu_fill_rows(const hspmv_csr *A, hspmv_csrdu *D, int64_t r0, int64_t r1, int64_t e0)
{
    const int64_t *rp = A->rowptr;
    const int32_t *ci = A->colind;
    int32_t c = first_before(A, r0);
    int64_t e = e0;
    if (r1 > r0 && rp[r1] > rp[r0])
        memcpy(D->val + rp[r0], A->val + rp[r0], (size_t)(rp[r1] - rp[r0]) * sizeof(hspmv_real));
    for (int64_t i = r0; i < r1; i++) {
        int64_t k0 = rp[i], n = rp[i + 1] - k0;
        if (i % HSPMV_CSRDU_CP == 0) {
            hspmv_csrdu_cp *p = &D->cp[i / HSPMV_CSRDU_CP];
            p->k = k0;
            p->e = e;
            p->c = c;
        }
        if (n >= HSPMV_CSRDU_LENESC) {
            D->len[i] = HSPMV_CSRDU_LENESC;
            D->esc[e++] = (int32_t)n;
        } else {
            D->len[i] = (uint8_t)n;
        }
        if (n == 0) continue;
        int64_t d = (int64_t)ci[k0] - c;
        if (d < -127 || d > 127) {
            D->d[k0] = HSPMV_CSRDU_ESC1;
            D->esc[e++] = (int32_t)d;
        } else {
            D->d[k0] = (uint8_t)(int8_t)d;
        }
        c = ci[k0];
        for (int64_t k = k0 + 1; k < k0 + n; k++) {
            int32_t s = ci[k] - ci[k - 1];
            if (s > 255) {
                D->d[k] = 0;
                D->esc[e++] = s;
            } else {
                D->d[k] = (uint8_t)s;
            }
        }
    }
}

int hspmv_csrdu_from_csr(const hspmv_csr *A, hspmv_csrdu *D, hspmv_error *err)
{
    int rc = hspmv_csrdu_alloc(A, hspmv_csrdu_count_escapes(A, 0, A->nrows), D, err);
    if (rc == HSPMV_OK) hspmv_csrdu_fill_rows(A, D, 0, A->nrows, 0);
    return rc;
}

double hspmv_csrdu_bytes(const hspmv_csrdu *D)
{
    double r = sizeof(hspmv_real);
    return (double)D->nnz * (r + 1) + (double)D->nrows + (double)D->nesc * 4 +
           (double)D->ncp * sizeof(hspmv_csrdu_cp) + (double)D->ncols * r + (double)D->nrows * r;
}

void hspmv_csrdu_free(hspmv_csrdu *D)
{
    if (!D) return;
    hspmv_free(D->len);
    hspmv_free(D->d);
    hspmv_free(D->esc);
    hspmv_free(D->cp);
    hspmv_free(D->val);
    memset(D, 0, sizeof(*D));
}
