/* local_build.c — CSR, CSRL, CSR16 and CSRVI arrays of a prepared matrix, each
   thread writing (and so first-touching) the rows it will multiply. */
#include <string.h>
#include "local.h"
#include "rowptr.h"
#include "util.h"

int64_t hspmv_local_count_segments(const hspmv_csr *A, int nchunks, const int64_t *start)
{
    const int64_t *rp = A->rowptr;
    const int32_t *ci = A->colind;
    int64_t nseg = 0;
#pragma omp parallel num_threads(nchunks) reduction(+ : nseg)
    HSPMV_FOR_MY_CHUNKS(c, nchunks)
    {
        for (int64_t i = start[c]; i < start[c + 1]; i++)
            for (int64_t k = rp[i]; k < rp[i + 1]; k++)
                nseg += (k == rp[i] || ci[k] != ci[k - 1] + 1);
    }
    return nseg;
}

int hspmv_local_build_csr(hspmv_local *L, const hspmv_csr *A, hspmv_error *err)
{
    hspmv_csr *C = &L->csr;
    const int64_t *st = L->rows, *rp = A->rowptr;
    int64_t n = A->nrows;
    int T = L->threads;

    C->nrows = n;
    C->ncols = A->ncols;
    C->nnz = A->nnz;
    C->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    C->colind = hspmv_alloc_array((size_t)A->nnz, sizeof(int32_t));
    C->val = hspmv_alloc_array((size_t)A->nnz, sizeof(hspmv_real));
    if (!C->rowptr || !C->colind || !C->val) {
        hspmv_csr_free(C);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "local CSR: out of memory for %lld nonzeros",
                         (long long)A->nnz);
    }
    hspmv_local_advise(C->rowptr, ((size_t)n + 1) * sizeof(int64_t));
    hspmv_local_advise(C->colind, (size_t)A->nnz * sizeof(int32_t));
    hspmv_local_advise(C->val, (size_t)A->nnz * sizeof(hspmv_real));
    C->rowptr[0] = 0;
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T)
    {
        int64_t r0 = st[c], r1 = st[c + 1], k0 = rp[r0], k1 = rp[r1];
        if (r1 > r0) memcpy(C->rowptr + r0 + 1, rp + r0 + 1, (size_t)(r1 - r0) * sizeof(int64_t));
        if (k1 > k0) {
            memcpy(C->colind + k0, A->colind + k0, (size_t)(k1 - k0) * sizeof(int32_t));
            memcpy(C->val + k0, A->val + k0, (size_t)(k1 - k0) * sizeof(hspmv_real));
        }
    }
    return hspmv_ok(err);
}

/* Segments of row i of A. */
static int64_t row_segments(const int64_t *rp, const int32_t *ci, int64_t i)
{
    int64_t s = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) s += (k == rp[i] || ci[k] != ci[k - 1] + 1);
    return s;
}

int hspmv_local_build_csrl(hspmv_local *L, const hspmv_csr *A, hspmv_error *err)
{
    hspmv_csrl *S = &L->csrl;
    const int64_t *st = L->rows, *rp = A->rowptr;
    const int32_t *ci = A->colind;
    int64_t n = A->nrows, *first = NULL; /* first segment of each chunk */
    int T = L->threads;

    memset(S, 0, sizeof(*S));
    S->nrows = n;
    S->ncols = A->ncols;
    S->nnz = A->nnz;
    S->nseg = L->nseg;
    S->segptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    S->valptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    S->jas = hspmv_alloc_array((size_t)L->nseg, sizeof(int32_t));
    S->jan = hspmv_alloc_array((size_t)L->nseg, sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)A->nnz, sizeof(hspmv_real));
    first = hspmv_alloc_array((size_t)T + 1, sizeof(int64_t));
    if (!S->segptr || !S->valptr || !S->jas || !S->jan || !S->val || !first) {
        hspmv_csrl_free(S);
        hspmv_free(first);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "local CSRL: out of memory for %lld segments",
                         (long long)L->nseg);
    }
    hspmv_local_advise(S->segptr, ((size_t)n + 1) * sizeof(int64_t));
    hspmv_local_advise(S->valptr, ((size_t)n + 1) * sizeof(int64_t));
    hspmv_local_advise(S->jas, (size_t)L->nseg * sizeof(int32_t));
    hspmv_local_advise(S->jan, (size_t)L->nseg * sizeof(int32_t));
    hspmv_local_advise(S->val, (size_t)A->nnz * sizeof(hspmv_real));
    S->segptr[0] = 0;
    S->valptr[0] = 0;
#pragma omp parallel num_threads(T)
    {
        /* 1: segments per chunk; 2: their offsets; 3: each chunk fills its rows */
        HSPMV_FOR_MY_CHUNKS(c, T)
        {
            int64_t s = 0;
            for (int64_t i = st[c]; i < st[c + 1]; i++) s += row_segments(rp, ci, i);
            first[c + 1] = s;
        }
#pragma omp barrier
#pragma omp single
        {
            first[0] = 0;
            for (int c = 0; c < T; c++) first[c + 1] += first[c];
        }
        HSPMV_FOR_MY_CHUNKS(c, T)
        {
            int64_t s = first[c], k0 = rp[st[c]], k1 = rp[st[c + 1]];
            if (k1 > k0) memcpy(S->val + k0, A->val + k0, (size_t)(k1 - k0) * sizeof(hspmv_real));
            for (int64_t i = st[c]; i < st[c + 1]; i++) {
                for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
                    if (k == rp[i] || ci[k] != ci[k - 1] + 1) {
                        S->jas[s] = ci[k];
                        S->jan[s++] = 1;
                    } else {
                        S->jan[s - 1]++;
                    }
                }
                S->segptr[i + 1] = s;
                S->valptr[i + 1] = rp[i + 1];
            }
        }
    }
    hspmv_free(first);
    return hspmv_ok(err);
}

int hspmv_local_fits_csr16(const hspmv_csr *A, int nchunks, const int64_t *start)
{
    const int64_t *rp = A->rowptr;
    const int32_t *ci = A->colind;
    int far = 0;
#pragma omp parallel num_threads(nchunks) reduction(| : far)
    HSPMV_FOR_MY_CHUNKS(c, nchunks)
    {
        for (int64_t i = start[c]; i < start[c + 1]; i++)
            for (int64_t k = rp[i]; k < rp[i + 1]; k++)
                far |= ci[k] - i > HSPMV_CSR16_MAXOFF || i - ci[k] > HSPMV_CSR16_MAXOFF;
    }
    return !far;
}

int hspmv_local_build_csr16(hspmv_local *L, const hspmv_csr *A, hspmv_error *err)
{
    hspmv_csr16 *C = &L->csr16;
    const int64_t *st = L->rows;
    int T = L->threads, rc;

    rc = hspmv_csr16_alloc(A, hspmv_rowptr_bits(A->nnz), C, err);
    if (rc != HSPMV_OK) return rc;
    if (C->rowptr32) hspmv_local_advise(C->rowptr32, ((size_t)A->nrows + 1) * sizeof(uint32_t));
    hspmv_local_advise(C->off, (size_t)A->nnz * sizeof(int16_t));
    hspmv_local_advise(C->val, (size_t)A->nnz * sizeof(hspmv_real));
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) hspmv_csr16_fill_rows(A, C, st[c], st[c + 1]);
    return hspmv_ok(err);
}

/* Entries counted between two looks at the shared "too many" flag. */
enum { VALUES_BLOCK = 8192 };

int hspmv_local_csrvi_values(const hspmv_csr *A, int nchunks, const int64_t *start, hspmv_csrvi_set *S)
{
    const int64_t *rp = A->rowptr;
    int over = 0; /* read and written with __atomic: threads stop at their next block */
    hspmv_csrvi_set_clear(S);
#pragma omp parallel num_threads(nchunks)
    {
        hspmv_csrvi_set mine; /* about 7 KiB of this thread's stack */
        int ok = 1;
        hspmv_csrvi_set_clear(&mine);
        HSPMV_FOR_MY_CHUNKS(c, nchunks)
        {
            int64_t k = rp[start[c]], k1 = rp[start[c + 1]];
            for (; ok && k < k1; k += VALUES_BLOCK) {
                int64_t n = k1 - k < VALUES_BLOCK ? k1 - k : VALUES_BLOCK;
                if (__atomic_load_n(&over, __ATOMIC_RELAXED) || !hspmv_csrvi_set_add(&mine, A->val + k, n))
                    ok = 0;
            }
            if (!ok) break;
        }
        if (!ok) __atomic_store_n(&over, 1, __ATOMIC_RELAXED);
#pragma omp critical(hspmv_csrvi_merge)
        {
            if (ok && !__atomic_load_n(&over, __ATOMIC_RELAXED) && !hspmv_csrvi_set_merge(S, &mine))
                __atomic_store_n(&over, 1, __ATOMIC_RELAXED);
        }
    }
    if (over) return 0;
    hspmv_csrvi_set_sort(S); /* codes in value order, whatever the merge order was */
    return 1;
}

int hspmv_local_build_csrvi(hspmv_local *L, const hspmv_csr *A, hspmv_error *err)
{
    hspmv_csrvi *C = &L->csrvi;
    const int64_t *st = L->rows;
    int T = L->threads, rc;

    rc = hspmv_csrvi_alloc(A, L->vals, hspmv_rowptr_bits(A->nnz), C, err);
    if (rc != HSPMV_OK) return rc;
    if (C->rowptr32) hspmv_local_advise(C->rowptr32, ((size_t)A->nrows + 1) * sizeof(uint32_t));
    hspmv_local_advise(C->colind, (size_t)A->nnz * sizeof(int32_t));
    hspmv_local_advise(C->code, (size_t)A->nnz);
#pragma omp parallel num_threads(T)
    HSPMV_FOR_MY_CHUNKS(c, T) hspmv_csrvi_fill_rows(A, L->vals, C, st[c], st[c + 1]);
    return hspmv_ok(err);
}
