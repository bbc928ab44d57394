/* csr_from_coo.c — COO triplets to the general CSR matrix in O(nnz + nrows):
   counting sort by row, columns sorted within rows, duplicates summed,
   symmetric and skew-symmetric triangles mirrored, explicit zeros kept. */
#include <math.h>
#include <string.h>
#include "util.h"

/* Insertion sort of one row's (col, val) pairs; rows are short and most
   arrive sorted, so this is O(k) in the common case. */
static void sort_row_small(int32_t *c, hspmv_real *v, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int32_t ck = c[i];
        hspmv_real vk = v[i];
        int64_t j = i - 1;
        while (j >= 0 && c[j] > ck) {
            c[j + 1] = c[j];
            v[j + 1] = v[j];
            j--;
        }
        c[j + 1] = ck;
        v[j + 1] = vk;
    }
}

/* Heapsort for long unsorted rows: O(k log k), no extra memory. */
static void sift(int32_t *c, hspmv_real *v, int64_t root, int64_t n)
{
    for (;;) {
        int64_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && c[child + 1] > c[child]) child++;
        if (c[root] >= c[child]) return;
        int32_t tc = c[root]; c[root] = c[child]; c[child] = tc;
        hspmv_real tv = v[root]; v[root] = v[child]; v[child] = tv;
        root = child;
    }
}

static void sort_row(int32_t *c, hspmv_real *v, int64_t n)
{
    int64_t i;
    for (i = 1; i < n && c[i - 1] <= c[i]; i++) {}
    if (i >= n) return; /* already sorted */
    if (n <= 32) {
        sort_row_small(c, v, n);
        return;
    }
    for (i = n / 2 - 1; i >= 0; i--) sift(c, v, i, n);
    for (i = n - 1; i > 0; i--) {
        int32_t tc = c[0]; c[0] = c[i]; c[i] = tc;
        hspmv_real tv = v[0]; v[0] = v[i]; v[i] = tv;
        sift(c, v, 0, i);
    }
}

/* Sorts each row and sums duplicates in place, compacting rowptr. Returns
   the first row whose duplicates summed to inf (their column in *col), or -1. */
static int64_t sort_and_sum(hspmv_csr *A, int32_t *col)
{
    int64_t *rp = A->rowptr, q = 0, bad = -1;
    int32_t *ci = A->colind;
    hspmv_real *v = A->val;
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t b = rp[i], e = rp[i + 1];
        sort_row(ci + b, v + b, e - b);
        rp[i] = q;
        for (int64_t k = b; k < e; k++) {
            if (q > rp[i] && ci[q - 1] == ci[k]) {
                v[q - 1] += v[k];
                if (bad < 0 && !isfinite(v[q - 1])) {
                    bad = i;
                    *col = ci[k];
                }
            } else {
                ci[q] = ci[k];
                v[q++] = v[k];
            }
        }
    }
    rp[A->nrows] = q;
    A->nnz = q;
    return bad;
}

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
    int64_t br = sort_and_sum(A, &bc);
    if (br >= 0) {
        /* every value was finite, their sum is not: as much a broken file as an inf in it */
        hspmv_csr_free(A);
        return hspmv_err(err, HSPMV_ERR_FORMAT,
                         "entry (%lld,%lld) is given more than once and its values sum beyond the %s range "
                         "(duplicates are summed)", (long long)br + 1, (long long)bc + 1,
                         sizeof(hspmv_real) == sizeof(float) ? "float" : "double");
    }
    return hspmv_ok(err);

nomem:
    hspmv_free(next);
    hspmv_csr_free(A);
    return hspmv_err(err, HSPMV_ERR_NOMEM, "CSR build: out of memory for %lld x %lld matrix with %lld entries",
                     (long long)n, (long long)coo->ncols, (long long)nz);
}

void hspmv_csr_free(hspmv_csr *A)
{
    if (!A) return;
    hspmv_free(A->rowptr);
    hspmv_free(A->colind);
    hspmv_free(A->val);
    memset(A, 0, sizeof(*A));
}
