/* sym_from_csr.c — finding a CSR symmetric or skew-symmetric, and keeping
   its diagonal and strictly lower triangle (sym.h). */
#include <string.h>
#include "sym.h"
#include "util.h"
#ifdef _OPENMP
#include <omp.h>
#define MY_THREAD omp_get_thread_num()
#define TEAM omp_get_num_threads()
#else
#define MY_THREAD 0
#define TEAM 1
#endif

/* Position of column c in row r of A, or -1 (columns ascending). */
static int64_t find_col(const hspmv_csr *A, int64_t r, int32_t c)
{
    int64_t lo = A->rowptr[r], hi = A->rowptr[r + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->colind[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo < A->rowptr[r + 1] && A->colind[lo] == c ? lo : -1;
}

int hspmv_sym_check(const hspmv_csr *A, int threads, int *fits16)
{
    int64_t n = A->nrows, below = 0, above = 0;
    int plus = 1, skew = 1, near = 1; /* still possible; all lower i-j <= MAXDIST */
    if (fits16) *fits16 = 0;
    if (A->nrows != A->ncols) return HSPMV_SYM_NONE;
    if (threads < 1) threads = 1;
#pragma omp parallel for num_threads(threads) schedule(static, 4096) reduction(+ : below, above) \
    reduction(&& : plus, skew, near)
    for (int64_t i = 0; i < n; i++) {
        int p = 1, s = 1, f = 1;
        if (!plus && !skew) continue; /* this thread's copies: it has found both fail */
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && (p || s); k++) {
            int32_t j = A->colind[k];
            if (j > i) {
                above++;
                continue;
            }
            if (j == i) {
                s &= A->val[k] == 0;
                continue;
            }
            below++;
            f &= i - j <= HSPMV_SYM_MAXDIST;
            int64_t m = find_col(A, j, (int32_t)i);
            if (m < 0) p = s = 0;
            else {
                p &= A->val[m] == A->val[k];
                s &= A->val[m] == -A->val[k];
            }
        }
        plus = plus && p;
        skew = skew && s;
        near = near && f;
    }
    if (below != above) plus = skew = 0;
    if (fits16) *fits16 = near;
    return plus ? HSPMV_SYM_PLUS : skew ? HSPMV_SYM_SKEW : HSPMV_SYM_NONE;
}

void hspmv_sym_count(const hspmv_csr *A, int threads, int64_t *lrp)
{
    int64_t n = A->nrows;
    lrp[0] = 0;
#pragma omp parallel for num_threads(threads < 1 ? 1 : threads) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int64_t k = A->rowptr[i], e = A->rowptr[i + 1];
        while (k < e && A->colind[k] < i) k++;
        lrp[i + 1] = k - A->rowptr[i] + 1;
    }
    for (int64_t i = 0; i < n; i++) lrp[i + 1] += lrp[i];
}

/* Rows [r0, r1) of S from A (lrp: the counts of hspmv_sym_count). */
static void fill_rows(const hspmv_csr *A, const int64_t *lrp, hspmv_sym *S, int64_t r0, int64_t r1)
{
    for (int64_t i = r0; i < r1; i++) {
        int64_t o = lrp[i] - i, k = A->rowptr[i], e = A->rowptr[i + 1]; /* o: lower entries before row i */
        hspmv_real d = 0;
        for (; k < e && A->colind[k] < i; k++, o++) {
            if (S->index == HSPMV_SYM_IDX16) S->off[o] = (uint16_t)(65536 - (i - A->colind[k]));
            else if (S->index == HSPMV_SYM_IDX32) S->ci[o] = A->colind[k];
            S->val[o] = A->val[k];
        }
        if (k < e && A->colind[k] == i) d = A->val[k];
        S->diag[i] = d;
        if (S->index == HSPMV_SYM_PAT) {
            if (i % HSPMV_SYM_SLICE == 0) S->sp[i / HSPMV_SYM_SLICE] = lrp[i] - i;
        } else if (S->rp32) {
            S->rp32[i + 1] = (uint32_t)o;
        } else {
            S->rp[i + 1] = o;
        }
    }
}

/* PAT: rows [r0, r1) (r0 a multiple of G) by groups, uniform ones interleaved. */
static void fill_pat_rows(const hspmv_csr *A, const int64_t *lrp, hspmv_sym *S, int64_t r0, int64_t r1)
{
    const int G = HSPMV_SYM_G;
    for (int64_t i0 = r0; i0 < r1; i0 += G) {
        int64_t e = i0 + G < r1 ? i0 + G : r1;
        if (e - i0 < G || !hspmv_sym_uniform(S, i0)) {
            fill_rows(A, lrp, S, i0, e);
            continue;
        }
        int64_t o = lrp[i0] - i0;
        for (int r = 0; r < G; r++) {
            int64_t i = i0 + r, k = A->rowptr[i], e2 = A->rowptr[i + 1];
            hspmv_real d = 0;
            for (int64_t l = 0; k < e2 && A->colind[k] < i; k++, l++) S->val[o + l * G + r] = A->val[k];
            if (k < e2 && A->colind[k] == i) d = A->val[k];
            S->diag[i] = d;
            if (i % HSPMV_SYM_SLICE == 0) S->sp[i / HSPMV_SYM_SLICE] = lrp[i] - i;
        }
    }
}

/* Row i's lower offsets (column - row) into ofs; returns how many. */
static int64_t row_offsets(const hspmv_csr *A, int64_t i, int32_t *ofs, int64_t max)
{
    int64_t n = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && A->colind[k] < i; k++, n++)
        if (n < max) ofs[n] = (int32_t)(A->colind[k] - i);
    return n;
}

#define PAT_SLOTS 1024 /* open addressing, at most HSPMV_SYM_MAXPAT used */

int hspmv_sym_patterns(const hspmv_csr *A, hspmv_sym *P)
{
    int64_t n = A->nrows;
    int slot[PAT_SLOTS], np = 0;
    uint64_t key[PAT_SLOTS];
    int32_t row[HSPMV_SYM_MAXOFS];
    memset(P, 0, sizeof(*P));
    P->pid = hspmv_alloc_pages((size_t)(n ? n : 1), 1);
    P->pptr = hspmv_alloc_array(HSPMV_SYM_MAXPAT + 1, sizeof(int32_t));
    P->pofs = hspmv_alloc_array(HSPMV_SYM_MAXOFS, sizeof(int32_t));
    if (!P->pid || !P->pptr || !P->pofs) {
        hspmv_sym_free(P);
        return -1;
    }
    for (int s = 0; s < PAT_SLOTS; s++) slot[s] = -1;
    P->pptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t len = row_offsets(A, i, row, HSPMV_SYM_MAXOFS);
        uint64_t h = (uint64_t)len * 0x9E3779B97F4A7C15ull;
        if (len > HSPMV_SYM_MAXOFS) goto none;
        for (int64_t l = 0; l < len; l++) h = (h ^ (uint32_t)row[l]) * 0x100000001B3ull;
        int s = (int)(h >> 54) & (PAT_SLOTS - 1), p = -1;
        for (; slot[s] >= 0; s = (s + 1) & (PAT_SLOTS - 1)) {
            int q = slot[s];
            if (key[s] == h && P->pptr[q + 1] - P->pptr[q] == len &&
                !memcmp(P->pofs + P->pptr[q], row, (size_t)len * sizeof(int32_t))) {
                p = q;
                break;
            }
        }
        if (p < 0) { /* a new pattern */
            if (np == HSPMV_SYM_MAXPAT || P->pptr[np] + len > HSPMV_SYM_MAXOFS) goto none;
            memcpy(P->pofs + P->pptr[np], row, (size_t)len * sizeof(int32_t));
            P->pptr[np + 1] = P->pptr[np] + (int32_t)len;
            slot[s] = p = np++;
            key[s] = h;
        }
        P->pid[i] = (uint8_t)p;
    }
    P->npat = np;
    P->index = HSPMV_SYM_PAT;
    return 1;
none:
    hspmv_sym_free(P);
    return 0;
}

int hspmv_sym_from_csr(const hspmv_csr *A, int sign, int index, const int64_t *lrp, int nchunks,
                       const int64_t *start, hspmv_sym *S, hspmv_error *err)
{
    int64_t n = A->nrows, nnz = lrp[n] - n, nsl = (n + HSPMV_SYM_SLICE - 1) / HSPMV_SYM_SLICE;
    hspmv_sym P = *S; /* PAT: the patterns S holds */
    memset(S, 0, sizeof(*S));
    if (index == HSPMV_SYM_PAT) {
        S->pid = P.pid, S->pptr = P.pptr, S->pofs = P.pofs, S->npat = P.npat;
        S->sp = hspmv_alloc_array((size_t)nsl + 1, sizeof(int64_t));
    } else if ((uint64_t)nnz <= UINT32_MAX) {
        S->rp32 = hspmv_alloc_pages((size_t)n + 1, sizeof(uint32_t));
    } else {
        S->rp = hspmv_alloc_pages((size_t)n + 1, sizeof(int64_t));
    }
    S->nrows = n;
    S->nnz = nnz;
    S->sign = sign;
    S->index = index;
    if (index == HSPMV_SYM_IDX16) S->off = hspmv_alloc_pages((size_t)(nnz ? nnz : 1), sizeof(uint16_t));
    if (index == HSPMV_SYM_IDX32) S->ci = hspmv_alloc_pages((size_t)(nnz ? nnz : 1), sizeof(int32_t));
    S->val = hspmv_alloc_pages((size_t)(nnz ? nnz : 1), sizeof(hspmv_real));
    S->diag = hspmv_alloc_pages((size_t)(n ? n : 1), sizeof(hspmv_real));
    if (!(S->rp32 || S->rp || S->sp) || (index == HSPMV_SYM_IDX16 && !S->off) ||
        (index == HSPMV_SYM_IDX32 && !S->ci) || !S->val || !S->diag) {
        hspmv_sym_free(S);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "one-triangle storage: out of memory for %lld entries",
                         (long long)nnz);
    }
    if (S->sp) S->sp[nsl] = nnz;
    else if (S->rp32) S->rp32[0] = 0;
    else S->rp[0] = 0;
#pragma omp parallel num_threads(nchunks)
    for (int c = MY_THREAD; c < nchunks; c += TEAM) {
        if (index == HSPMV_SYM_PAT) fill_pat_rows(A, lrp, S, start[c], start[c + 1]);
        else fill_rows(A, lrp, S, start[c], start[c + 1]);
    }
    return hspmv_ok(err);
}

double hspmv_sym_model(int64_t nrows, int64_t nnz, int index, int64_t halo)
{
    double r = sizeof(hspmv_real), n = (double)nrows, ptr;
    static const double ib[3] = {4, 2, 0};
    if (index == HSPMV_SYM_PAT) ptr = n + (double)((nrows + HSPMV_SYM_SLICE - 1) / HSPMV_SYM_SLICE + 1) * 8;
    else ptr = (n + 1) * ((uint64_t)nnz <= UINT32_MAX ? 4 : 8);
    return (double)nnz * (r + ib[index]) + n * r + ptr + 3 * n * r + 3 * (double)halo * r;
}

double hspmv_sym_bytes(const hspmv_sym *S, int64_t halo)
{
    return hspmv_sym_model(S->nrows, S->nnz, S->index, halo);
}

void hspmv_sym_free(hspmv_sym *S)
{
    hspmv_free(S->rp32);
    hspmv_free(S->rp);
    hspmv_free(S->off);
    hspmv_free(S->ci);
    hspmv_free(S->pid);
    hspmv_free(S->pptr);
    hspmv_free(S->pofs);
    hspmv_free(S->sp);
    hspmv_free(S->val);
    hspmv_free(S->diag);
    memset(S, 0, sizeof(*S));
}
