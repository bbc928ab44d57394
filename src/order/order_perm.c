/* order_perm.c — permutations: checking one is a bijection, inverting it,
   a random one, and B = A(rp, cp) for a CSR (in parallel). */
#include <string.h>
#include "order.h"
#include "util.h"

int hspmv_order_check(const int64_t *p, int64_t n, const char *what, hspmv_error *err)
{
    uint8_t *seen;
    if (n > 0 && !p) return hspmv_err(err, HSPMV_ERR_ARG, "%s: NULL for a permutation of %lld entries", what, (long long)n);
    if (n <= 0) return hspmv_ok(err);
    if (!(seen = hspmv_calloc((size_t)n, 1)))
        return hspmv_err(err, HSPMV_ERR_NOMEM, "%s: out of memory checking a permutation of %lld", what, (long long)n);
    for (int64_t k = 0; k < n; k++) {
        int64_t v = p[k];
        if (v < 0 || v >= n) {
            hspmv_free(seen);
            return hspmv_err(err, HSPMV_ERR_ARG, "%s[%lld] = %lld is outside [0, %lld): not a permutation", what,
                             (long long)k, (long long)v, (long long)n);
        }
        if (seen[v]) {
            int64_t at = 0;
            while (p[at] != v) at++;
            hspmv_free(seen);
            return hspmv_err(err, HSPMV_ERR_ARG, "%s[%lld] = %lld repeats entry %lld: not a permutation", what,
                             (long long)k, (long long)v, (long long)at);
        }
        seen[v] = 1;
    }
    hspmv_free(seen);
    return hspmv_ok(err);
}

void hspmv_order_invert(const int64_t *p, int64_t n, int64_t *inv)
{
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < n; k++) inv[p[k]] = k;
}

int hspmv_order_is_identity(const int64_t *p, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (p[k] != k) return 0;
    return 1;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void hspmv_order_random(int64_t *p, int64_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (int64_t k = 0; k < n; k++) p[k] = k;
    for (int64_t k = n - 1; k > 0; k--) {
        int64_t j = (int64_t)(splitmix(&s) % (uint64_t)(k + 1));
        int64_t t = p[k];
        p[k] = p[j];
        p[j] = t;
    }
}

/* Sorts the n (column, value) pairs by column: insertion sort for short
   rows, heap sort (in place, n log n) for long ones. */
static void sort_pairs(int32_t *c, hspmv_real *v, int64_t n)
{
    if (n <= 32) {
        for (int64_t i = 1; i < n; i++) {
            int32_t ci = c[i];
            hspmv_real vi = v[i];
            int64_t j = i;
            while (j > 0 && c[j - 1] > ci) c[j] = c[j - 1], v[j] = v[j - 1], j--;
            c[j] = ci, v[j] = vi;
        }
        return;
    }
    for (int64_t end = n, start = n / 2; end > 1;) {
        int64_t root;
        if (start > 0) root = --start; /* heapify */
        else { /* move the largest to the end */
            end--;
            int32_t tc = c[0]; c[0] = c[end]; c[end] = tc;
            hspmv_real tv = v[0]; v[0] = v[end]; v[end] = tv;
            root = 0;
        }
        for (int64_t child; (child = 2 * root + 1) < end; root = child) {
            if (child + 1 < end && c[child + 1] > c[child]) child++;
            if (c[root] >= c[child]) break;
            int32_t tc = c[root]; c[root] = c[child]; c[child] = tc;
            hspmv_real tv = v[root]; v[root] = v[child]; v[child] = tv;
        }
    }
}

int hspmv_order_apply(const hspmv_csr *A, const int64_t *rp, const int64_t *cp, int threads, hspmv_csr *B,
                      hspmv_error *err)
{
    int64_t n = A->nrows;
    int64_t *cinv = NULL;
    int T = hspmv_order_threads(threads);
    memset(B, 0, sizeof(*B));
    B->nrows = n;
    B->ncols = A->ncols;
    B->nnz = A->nnz;
    B->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    B->colind = hspmv_alloc_array(A->nnz > 0 ? (size_t)A->nnz : 1, sizeof(int32_t));
    B->val = hspmv_alloc_array(A->nnz > 0 ? (size_t)A->nnz : 1, sizeof(hspmv_real));
    cinv = hspmv_alloc_array(A->ncols > 0 ? (size_t)A->ncols : 1, sizeof(int64_t));
    if (!B->rowptr || !B->colind || !B->val || !cinv) {
        hspmv_free(cinv);
        hspmv_csr_free(B);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "reordering: out of memory for the permuted copy (%lld rows, %lld entries)",
                         (long long)n, (long long)A->nnz);
    }
#pragma omp parallel num_threads(T)
    {
#pragma omp for schedule(static) nowait
        for (int64_t k = 0; k < A->ncols; k++) cinv[cp[k]] = k;
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++) B->rowptr[k + 1] = A->rowptr[rp[k] + 1] - A->rowptr[rp[k]];
    }
    B->rowptr[0] = 0;
    hspmv_order_scan(B->rowptr, n, T);
    /* static rows: each thread first touches the pages of the rows it fills */
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t k = 0; k < n; k++) {
        int64_t a = A->rowptr[rp[k]], len = A->rowptr[rp[k] + 1] - a, b = B->rowptr[k];
        for (int64_t t = 0; t < len; t++) {
            B->colind[b + t] = (int32_t)cinv[A->colind[a + t]];
            B->val[b + t] = A->val[a + t];
        }
        sort_pairs(B->colind + b, B->val + b, len);
    }
    hspmv_free(cinv);
    return hspmv_ok(err);
}
