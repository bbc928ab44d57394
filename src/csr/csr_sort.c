/* csr_sort.c — a row's entries sorted by (column, value) and duplicates
   summed: the one definition of the order in which duplicates are summed. */
#include <math.h>
#include <string.h>
#include "csr_build.h"

/* The value's bits as an unsigned key in IEEE total order. */
#ifdef HSPMV_SINGLE
typedef uint32_t vkey;
#define VKEY_SIGN ((uint32_t)1 << 31)
#else
typedef uint64_t vkey;
#define VKEY_SIGN ((uint64_t)1 << 63)
#endif
static inline vkey key_of(hspmv_real v)
{
    vkey b;
    memcpy(&b, &v, sizeof(b));
    return (b & VKEY_SIGN) ? ~b : b | VKEY_SIGN;
}

/* (c1, v1) before (c2, v2) */
static inline int before(int32_t c1, hspmv_real v1, int32_t c2, hspmv_real v2)
{
    return c1 < c2 || (c1 == c2 && key_of(v1) < key_of(v2));
}

/* Insertion sort: rows are short and most arrive sorted, so O(k) then. */
static void sort_row_small(int32_t *c, hspmv_real *v, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int32_t ck = c[i];
        hspmv_real vk = v[i];
        int64_t j = i - 1;
        while (j >= 0 && before(ck, vk, c[j], v[j])) {
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
        if (child + 1 < n && before(c[child], v[child], c[child + 1], v[child + 1])) child++;
        if (!before(c[root], v[root], c[child], v[child])) return;
        int32_t tc = c[root]; c[root] = c[child]; c[child] = tc;
        hspmv_real tv = v[root]; v[root] = v[child]; v[child] = tv;
        root = child;
    }
}

void hspmv_csr_sort_row(int32_t *c, hspmv_real *v, int64_t n)
{
    int64_t i;
    for (i = 1; i < n && (c[i - 1] < c[i] || (c[i - 1] == c[i] && key_of(v[i - 1]) <= key_of(v[i]))); i++) {}
    if (i >= n) return; /* already in order */
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

int64_t hspmv_csr_sum_row(int32_t *c, hspmv_real *v, int64_t n, int *bad, int32_t *badcol)
{
    int64_t q = 0;
    for (int64_t k = 0; k < n; k++) {
        if (q > 0 && c[q - 1] == c[k]) {
            v[q - 1] += v[k];
            if (!*bad && !isfinite(v[q - 1])) {
                *bad = 1;
                *badcol = c[k];
            }
        } else {
            c[q] = c[k];
            v[q++] = v[k];
        }
    }
    return q;
}

int64_t hspmv_csr_sort_and_sum(hspmv_csr *A, int32_t *col)
{
    int64_t *rp = A->rowptr, q = 0, badrow = -1;
    int bad = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t b = rp[i], e = rp[i + 1];
        hspmv_csr_sort_row(A->colind + b, A->val + b, e - b);
        int64_t len = hspmv_csr_sum_row(A->colind + b, A->val + b, e - b, &bad, col);
        if (bad && badrow < 0) badrow = i;
        if (q != b) {
            memmove(A->colind + q, A->colind + b, (size_t)len * sizeof(int32_t));
            memmove(A->val + q, A->val + b, (size_t)len * sizeof(hspmv_real));
        }
        rp[i] = q;
        q += len;
    }
    rp[A->nrows] = q;
    A->nnz = q;
    return badrow;
}

int hspmv_csr_fault_dup(hspmv_error *err, const char *path, int64_t row, int32_t col)
{
    const char *prec = sizeof(hspmv_real) == sizeof(float) ? "float" : "double";
    /* every value was finite, their sum is not: as much a broken file as an inf in it */
    if (path)
        return hspmv_err_file(err, HSPMV_ERR_FORMAT, path, 0,
                              "entry (%lld,%lld) is given more than once and its values sum beyond the %s range "
                              "(duplicates are summed)", (long long)row + 1, (long long)col + 1, prec);
    return hspmv_err(err, HSPMV_ERR_FORMAT,
                     "entry (%lld,%lld) is given more than once and its values sum beyond the %s range "
                     "(duplicates are summed)", (long long)row + 1, (long long)col + 1, prec);
}
