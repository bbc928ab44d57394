/* panels_from_csr.c — CSR to column panels: each panel a CSR over all rows, entries panel by panel. */
#include <string.h>
#include "panels.h"
#include "rowptr.h"
#include "util.h"

int hspmv_panels_alloc(const hspmv_csr *A, int npanels, int xpf, hspmv_panels *P, hspmv_error *err)
{
    memset(P, 0, sizeof(*P));
    if (npanels < 1 || npanels > HSPMV_PANELS_MAX)
        return hspmv_err(err, HSPMV_ERR_ARG, "column panels: %d panels (1 to %d)", npanels, HSPMV_PANELS_MAX);
    P->nrows = A->nrows;
    P->ncols = A->ncols;
    P->nnz = A->nnz;
    P->npanels = npanels;
    P->width = A->ncols > 0 ? (A->ncols + npanels - 1) / npanels : 1;
    P->xpf = xpf < 0 ? 0 : xpf > HSPMV_PANELS_PAD - 64 ? HSPMV_PANELS_PAD - 64 : xpf;
    P->rblock = npanels > 1 ? HSPMV_PANELS_RBLOCK : 0;
    size_t np = (size_t)npanels * ((size_t)A->nrows + 1);
    if (hspmv_rowptr_bits(A->nnz) == 32)
        P->rowptr32 = hspmv_alloc_array(np, sizeof(uint32_t));
    else
        P->rowptr = hspmv_alloc_array(np, sizeof(int64_t));
    P->colind = hspmv_alloc_array((size_t)A->nnz + HSPMV_PANELS_PAD, sizeof(int32_t));
    P->val = hspmv_alloc_array((size_t)(A->nnz > 0 ? A->nnz : 1), sizeof(hspmv_real));
    if ((!P->rowptr32 && !P->rowptr) || !P->colind || !P->val) {
        hspmv_panels_free(P);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "column panels: out of memory for %lld nonzeros",
                         (long long)A->nnz);
    }
    memset(P->colind + A->nnz, 0, HSPMV_PANELS_PAD * sizeof(int32_t));
    return hspmv_ok(err);
}

void hspmv_panels_count(const hspmv_csr *A, const hspmv_panels *P, int64_t r0, int64_t r1, int64_t *cnt)
{
    if (P->npanels == 1) {
        cnt[0] += A->rowptr[r1] - A->rowptr[r0];
        return;
    }
    for (int64_t k = A->rowptr[r0]; k < A->rowptr[r1]; k++) cnt[A->colind[k] / P->width]++;
}

void hspmv_panels_fill_rows(const hspmv_csr *A, hspmv_panels *P, int64_t r0, int64_t r1, const int64_t *at)
{
    int64_t pos[HSPMV_PANELS_MAX], n1 = P->nrows + 1;
    memcpy(pos, at, (size_t)P->npanels * sizeof(int64_t));
    for (int64_t i = r0; i < r1; i++) {
        for (int p = 0; p < P->npanels; p++) hspmv_rowptr_set(P->rowptr32, P->rowptr, p * n1 + i, pos[p]);
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int p = P->npanels == 1 ? 0 : (int)(A->colind[k] / P->width);
            P->colind[pos[p]] = A->colind[k];
            P->val[pos[p]++] = A->val[k];
        }
    }
    if (r1 == P->nrows)
        for (int p = 0; p < P->npanels; p++) hspmv_rowptr_set(P->rowptr32, P->rowptr, p * n1 + P->nrows, pos[p]);
}

int hspmv_panels_from_csr(const hspmv_csr *A, int npanels, int xpf, hspmv_panels *P, hspmv_error *err)
{
    int64_t cnt[HSPMV_PANELS_MAX] = {0}, at[HSPMV_PANELS_MAX];
    int rc = hspmv_panels_alloc(A, npanels, xpf, P, err);
    if (rc != HSPMV_OK) return rc;
    hspmv_panels_count(A, P, 0, A->nrows, cnt);
    at[0] = 0;
    for (int p = 1; p < npanels; p++) at[p] = at[p - 1] + cnt[p - 1];
    hspmv_panels_fill_rows(A, P, 0, A->nrows, at);
    return hspmv_ok(err);
}

int hspmv_panels_scattered(const hspmv_csr *A)
{
    int64_t far = 0, n = A->nnz < 65536 ? A->nnz : 65536, row = 0;
    for (int64_t t = 0; t < n; t++) {
        int64_t k = (int64_t)((double)t * (double)A->nnz / (double)n), d;
        while (A->rowptr[row + 1] <= k) row++; /* k only grows */
        d = (int64_t)A->colind[k] - row;
        far += d > 65536 || d < -65536;
    }
    return n > 0 && far * 2 > n;
}

double hspmv_panels_bytes(const hspmv_panels *P)
{
    double r = sizeof(hspmv_real), pw = P->rowptr32 ? 4 : 8;
    return (double)P->nnz * (r + 4) + (double)P->npanels * (double)(P->nrows + 1) * pw + (double)P->ncols * r +
           (double)P->nrows * r * (2.0 * P->npanels - 1);
}

void hspmv_panels_free(hspmv_panels *P)
{
    if (!P) return;
    hspmv_free(P->rowptr32);
    hspmv_free(P->rowptr);
    hspmv_free(P->colind);
    hspmv_free(P->val);
    memset(P, 0, sizeof(*P));
}
