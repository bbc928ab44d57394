/* testlib.c — shared test helpers: RNG, matrix folder, random CSR, oracle. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

uint64_t tl_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double tl_uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(tl_next(s) >> 11) * 0x1.0p-53;
}

const char *tl_shared_dir(void)
{
    const char *d = getenv("HSPMV_SHARED_MATRICES");
    return d && *d ? d : "../shared/matrices";
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int tl_list_mtx(const char *dir, char ***paths)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0, cap = 64;
    char **p;
    *paths = NULL;
    if (!d) return -1;
    p = malloc(cap * sizeof(*p));
    while (p && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".mtx") != 0) continue;
        if (n == cap) p = realloc(p, (cap *= 2) * sizeof(*p));
        if (!p) break;
        p[n] = malloc(strlen(dir) + l + 2);
        sprintf(p[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (!p) return -1;
    qsort(p, n, sizeof(*p), cmp_str);
    *paths = p;
    return n;
}

void tl_free_list(char **paths, int n)
{
    for (int i = 0; i < n; i++) free(paths[i]);
    free(paths);
}

int tl_is_unsupported_shared(const char *path)
{
    return strstr(path, "young1c.mtx") || strstr(path, "mhd1280b.mtx");
}

int tl_csr_random(hspmv_csr *A, int64_t nrows, int64_t ncols, const int64_t *rowlen,
                  int64_t len, int runs, uint64_t seed)
{
    uint64_t s = seed;
    int64_t nnz = 0;
    char *mark = calloc(ncols > 0 ? ncols : 1, 1);
    memset(A, 0, sizeof(*A));
    A->nrows = nrows;
    A->ncols = ncols;
    A->rowptr = hspmv_calloc(nrows + 1, sizeof(int64_t));
    if (!mark || !A->rowptr) goto fail;
    for (int64_t i = 0; i < nrows; i++) {
        int64_t k = rowlen ? rowlen[i] : len;
        if (k > ncols) k = ncols;
        if (k < 0) k = 0;
        nnz += k;
        A->rowptr[i + 1] = nnz;
    }
    A->nnz = nnz;
    A->colind = hspmv_malloc((nnz ? nnz : 1) * sizeof(int32_t));
    A->val = hspmv_malloc((nnz ? nnz : 1) * sizeof(hspmv_real));
    if (!A->colind || !A->val) goto fail;
    for (int64_t i = 0; i < nrows; i++) {
        int64_t k = A->rowptr[i + 1] - A->rowptr[i], got = 0;
        while (got < k) { /* mark distinct columns, in runs when asked */
            int64_t c = (int64_t)(tl_next(&s) % (uint64_t)ncols);
            int64_t r = runs > 0 ? 1 + (int64_t)(tl_next(&s) % (uint64_t)runs) : 1;
            if (k == ncols) { c = got; r = k; }
            for (int64_t t = 0; t < r && got < k && c + t < ncols; t++)
                if (!mark[c + t]) { mark[c + t] = 1; got++; }
        }
        int64_t q = A->rowptr[i];
        for (int64_t c = 0; c < ncols && q < A->rowptr[i + 1]; c++)
            if (mark[c]) { mark[c] = 0; A->colind[q] = (int32_t)c; A->val[q++] = (hspmv_real)tl_uniform(&s, -1, 1); }
    }
    free(mark);
    return HSPMV_OK;
fail:
    free(mark);
    hspmv_csr_free(A);
    return HSPMV_ERR_NOMEM;
}

void tl_fill(hspmv_real *x, int64_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) x[i] = (hspmv_real)tl_uniform(&s, -1, 1);
}

int tl_matches_ref(const hspmv_csr *A, const hspmv_real *x, const hspmv_real *y, const char *what)
{
    hspmv_check c;
    if (hspmv_ref_check(A, x, y, 2.0, &c) == 0) return 1;
    fprintf(stderr, "    %s: %lld rows off the bound, first row %lld, worst %.3g x bound\n",
            what, (long long)c.violations, (long long)c.first_bad, c.worst);
    return 0;
}

int tl_read_csr(const char *path, hspmv_csr *A)
{
    hspmv_error e;
    int rc = hspmv_csr_read(path, A, NULL, NULL, &e);
    if (rc) fprintf(stderr, "    %s\n", e.msg);
    return rc;
}

int tl_csr_augment(const hspmv_csr *A, hspmv_csr *B)
{
    int64_t n = A->nrows;
    memset(B, 0, sizeof(*B));
    B->nrows = n;
    B->ncols = A->ncols + n;
    B->nnz = A->nnz + n;
    B->rowptr = hspmv_malloc((size_t)(n + 1) * sizeof(int64_t));
    B->colind = hspmv_malloc((size_t)(B->nnz ? B->nnz : 1) * sizeof(int32_t));
    B->val = hspmv_malloc((size_t)(B->nnz ? B->nnz : 1) * sizeof(hspmv_real));
    if (!B->rowptr || !B->colind || !B->val) return HSPMV_ERR_NOMEM;
    B->rowptr[0] = 0;
    for (int64_t i = 0, q = 0; i < n; i++) {
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++, q++) {
            B->colind[q] = A->colind[k];
            B->val[q] = A->val[k];
        }
        B->colind[q] = (int32_t)(A->ncols + i);
        B->val[q++] = 1;
        B->rowptr[i + 1] = q;
    }
    return HSPMV_OK;
}

void tl_fill_nan(hspmv_real *y, int64_t n)
{
    for (int64_t i = 0; i < n; i++) y[i] = (hspmv_real)NAN;
}

int tl_same_bits(const hspmv_real *a, const hspmv_real *b, int64_t n)
{
    return n == 0 || memcmp(a, b, (size_t)n * sizeof(*a)) == 0;
}
