/* dist_sort.c — a rank's rows in place: columns sorted and duplicates
   summed; the empty rows dropped from a block added into y. */
#include <stdlib.h>
#include "dist.h"
#include "util.h"

typedef struct { int32_t c; hspmv_real v; } entry;

static int cmp_entry(const void *a, const void *b)
{
    int32_t x = ((const entry *)a)->c, y = ((const entry *)b)->c;
    return (x > y) - (x < y);
}

/* Rows are short in practice: insertion sort below 32 entries, qsort above. */
static void sort_row(int32_t *c, hspmv_real *v, int64_t n, entry *tmp)
{
    if (n < 32) {
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
        return;
    }
    for (int64_t i = 0; i < n; i++) tmp[i] = (entry){c[i], v[i]};
    qsort(tmp, (size_t)n, sizeof(entry), cmp_entry);
    for (int64_t i = 0; i < n; i++) {
        c[i] = tmp[i].c;
        v[i] = tmp[i].v;
    }
}

void hspmv_dist_sort_rows(hspmv_csr *S)
{
    int64_t *rp = S->rowptr, out = 0, maxlen = 0;
    int32_t *ci = S->colind;
    hspmv_real *v = S->val;
    for (int64_t i = 0; i < S->nrows; i++)
        if (rp[i + 1] - rp[i] > maxlen) maxlen = rp[i + 1] - rp[i];
    entry *tmp = maxlen >= 32 ? malloc((size_t)maxlen * sizeof(entry)) : NULL;
    int64_t b = 0;
    for (int64_t i = 0; i < S->nrows; i++) {
        int64_t e = rp[i + 1], n = e - b;
        int sorted = 1;
        for (int64_t k = b + 1; k < e && sorted; k++) sorted = ci[k - 1] < ci[k];
        if (!sorted) {
            if (n >= 32 && !tmp) { /* out of memory: fall back to insertion sort */
                for (int64_t k = b + 1; k < e; k++)
                    for (int64_t j = k; j > b && ci[j - 1] > ci[j]; j--) {
                        int32_t tc = ci[j]; ci[j] = ci[j - 1]; ci[j - 1] = tc;
                        hspmv_real tv = v[j]; v[j] = v[j - 1]; v[j - 1] = tv;
                    }
            } else {
                sort_row(ci + b, v + b, n, tmp);
            }
        }
        rp[i] = out;
        for (int64_t k = b; k < e; k++) {
            if (out > rp[i] && ci[out - 1] == ci[k]) v[out - 1] += v[k];
            else {
                ci[out] = ci[k];
                v[out] = v[k];
                out++;
            }
        }
        b = e;
    }
    rp[S->nrows] = out;
    S->nnz = out;
    free(tmp);
}

int hspmv_dist_compress_rows(hspmv_csr *A, int64_t **row, hspmv_real **gy, int64_t *nrows)
{
    int64_t nl = A->nrows, nr = 0;
    for (int64_t i = 0; i < nl; i++) nr += A->rowptr[i + 1] > A->rowptr[i];
    *nrows = nl;
    if (nr == 0 || 2 * nr > nl) return HSPMV_OK;
    int64_t *rp = hspmv_alloc_array((size_t)nr + 1, sizeof(int64_t));
    *row = hspmv_alloc_array((size_t)nr, sizeof(int64_t));
    *gy = hspmv_alloc_pages((size_t)nr, sizeof(hspmv_real));
    if (!rp || !*row || !*gy) {
        hspmv_free(rp);
        return HSPMV_ERR_NOMEM;
    }
    int64_t n = 0;
    rp[0] = 0;
    for (int64_t i = 0; i < nl; i++)
        if (A->rowptr[i + 1] > A->rowptr[i]) {
            (*row)[n] = i;
            rp[++n] = A->rowptr[i + 1];
        }
    hspmv_free(A->rowptr);
    A->rowptr = rp;
    A->nrows = nr;
    *nrows = nr;
    return HSPMV_OK;
}
