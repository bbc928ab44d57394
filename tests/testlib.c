/* testlib.c — shared test helpers: RNG, matrix folder, random CSR, oracle,
   and the checks every kernel format's test runs. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "kernel_select.h"
#include "testlib.h"
#include "csr.h"
#include "alloc.h"

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
    return "matrices/suitesparse";
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
    if (hspmv_ref_check(A, x, y, 2.0, &c) == 0 && c.overflows == 0) return 1;
    if (c.violations)
        fprintf(stderr, "    %s: %lld rows off the bound, first row %lld, worst %.3g x bound\n",
                what, (long long)c.violations, (long long)c.first_bad, c.worst);
    if (c.overflows) /* the tests' data must have a representable product */
        fprintf(stderr, "    %s: the product overflows in %lld rows, first row %lld\n", what,
                (long long)c.overflows, (long long)c.first_overflow);
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

int tl_kernel_sets(const hspmv_kernel_set **sets, int max)
{
    int n = hspmv_kernel_sets(sets, max);
    printf("  kernel sets on this CPU:");
    for (int s = 0; s < n; s++) printf(" %s", sets[s]->isa);
    printf("\n");
    return n;
}

int tl_kcheck_init(tl_kcheck *T, const hspmv_csr *A, uint64_t seed)
{
    int64_t n = A->nrows, m = A->ncols;
    size_t yb = (size_t)(n > 0 ? n : 1) * sizeof(hspmv_real);
    int rc;
    memset(T, 0, sizeof(*T));
    T->A = A;
    T->n = n;
    T->a = n / 3;
    T->b = n - n / 4;
    rc = hspmv_csr_validate(A, NULL);
    if (rc) return rc;
    rc = tl_csr_augment(A, &T->B);
    T->x = hspmv_malloc((size_t)(m + n + 1) * sizeof(hspmv_real)); /* [x; y0] */
    T->y = hspmv_malloc(yb);
    T->y1 = hspmv_malloc(yb);
    T->ys = hspmv_malloc(yb);
    if (rc || !T->x || !T->y || !T->y1 || !T->ys) return HSPMV_ERR_NOMEM;
    T->y0 = T->x + m;
    tl_fill(T->x, m, seed);
    tl_fill(T->y0, n, seed + 1);
    return HSPMV_OK;
}

void tl_kcheck_free(tl_kcheck *T)
{
    hspmv_csr_free(&T->B);
    hspmv_free(T->x);
    hspmv_free(T->y);
    hspmv_free(T->y1);
    hspmv_free(T->ys);
    memset(T, 0, sizeof(*T));
}

int tl_kcheck_run(tl_kcheck *T, const tl_kernel *k)
{
    int64_t n = T->n, a = T->a, b = T->b;
    size_t yb = (size_t)n * sizeof(hspmv_real);
    int bad = 0;
    char what[300];
    /* add = 0: y must not be read, so start from NaN */
    tl_fill_nan(T->y, n);
    k->run(k, 0, n, T->x, T->y, 0);
    snprintf(what, sizeof(what), "%s add=0", k->label);
    bad += !tl_matches_ref(T->A, T->x, T->y, what);
    /* add = 1 against the reference of [A | I] * [x; y0] */
    memcpy(T->y1, T->y0, yb);
    k->run(k, 0, n, T->x, T->y1, 1);
    snprintf(what, sizeof(what), "%s add=1", k->label);
    bad += !tl_matches_ref(&T->B, T->x, T->y1, what);
    /* threads: three sub-ranges give what one call gives */
    for (int add = 0; add <= 1; add++) {
        if (add)
            memcpy(T->ys, T->y0, yb);
        else
            tl_fill_nan(T->ys, n);
        k->run(k, b, n, T->x, T->ys, add);
        k->run(k, 0, a, T->x, T->ys, add);
        k->run(k, a, b, T->x, T->ys, add);
        if (!tl_same_bits(T->ys, add ? T->y1 : T->y, n)) {
            fprintf(stderr, "    %s add=%d: rows [0,%lld) [%lld,%lld) [%lld,%lld) differ from one call\n",
                    k->label, add, (long long)a, (long long)a, (long long)b, (long long)b, (long long)n);
            bad++;
        }
    }
    /* a call on [a,b) writes only rows a..b-1 */
    memcpy(T->ys, T->y0, yb);
    k->run(k, a, b, T->x, T->ys, 0);
    if (!tl_same_bits(T->ys, T->y0, a) || !tl_same_bits(T->ys + b, T->y0 + b, n - b) ||
        !tl_same_bits(T->ys + a, T->y + a, b - a)) {
        fprintf(stderr, "    %s: a call on rows [%lld,%lld) wrote outside them or differs\n", k->label,
                (long long)a, (long long)b);
        bad++;
    }
    return bad;
}

int tl_kcheck_same(const tl_kcheck *T, const hspmv_real *y, const char *what)
{
    if (tl_same_bits(T->y, y, T->n)) return 0;
    fprintf(stderr, "    %s\n", what);
    return 1;
}

int tl_check_splits(const tl_kernel *k, int64_t n, const hspmv_real *x)
{
    hspmv_real *y = hspmv_malloc((size_t)(n > 0 ? n : 1) * sizeof(hspmv_real));
    hspmv_real *ys = hspmv_malloc((size_t)(n > 0 ? n : 1) * sizeof(hspmv_real));
    int bad = 0;
    if (!y || !ys) {
        fprintf(stderr, "    %s: out of memory\n", k->label);
        bad++;
        goto out;
    }
    tl_fill_nan(y, n);
    k->run(k, 0, n, x, y, 0);
    for (int64_t a = 0; a <= n; a += 8)
        for (int64_t b = a; b <= n; b += 13) {
            tl_fill_nan(ys, n);
            k->run(k, b, n, x, ys, 0);
            k->run(k, a, a, x, ys, 0); /* empty: a no-op */
            k->run(k, a, b, x, ys, 0);
            k->run(k, 0, a, x, ys, 0);
            if (!tl_same_bits(y, ys, n)) {
                fprintf(stderr, "    %s: [0,%lld) [%lld,%lld) [%lld,%lld) differ from one call\n", k->label,
                        (long long)a, (long long)a, (long long)b, (long long)b, (long long)n);
                bad++;
            }
        }
out:
    hspmv_free(y);
    hspmv_free(ys);
    return bad;
}

void *tl_guard_copy(tl_guard *G, const void *src, size_t bytes)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), data = (bytes + pg - 1) / pg * pg;
    if (G->n == (int)(sizeof(G->base) / sizeof(G->base[0]))) return NULL;
    char *p = mmap(NULL, data + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    if (mprotect(p + data, pg, PROT_NONE) != 0) {
        munmap(p, data + pg);
        return NULL;
    }
    G->base[G->n] = p;
    G->len[G->n++] = data + pg;
    memcpy(p + data - bytes, src, bytes);
    return p + data - bytes;
}

void tl_guard_free(tl_guard *G)
{
    for (int k = 0; k < G->n; k++) munmap(G->base[k], G->len[k]);
    G->n = 0;
}

int tl_check_guarded(const hspmv_csr *A, const tl_kernel *g, const hspmv_real *gx,
                     const tl_kernel *k, const hspmv_real *x)
{
    int64_t n = A->nrows;
    hspmv_real *y = hspmv_malloc((size_t)(n > 0 ? n : 1) * sizeof(hspmv_real));
    hspmv_real *yref = hspmv_malloc((size_t)(n > 0 ? n : 1) * sizeof(hspmv_real));
    int bad = 0;
    if (!y || !yref) {
        fprintf(stderr, "    %s: out of memory\n", g->label);
        bad++;
    } else {
        g->run(g, 0, n, gx, y, 0); /* faults if it overreads */
        k->run(k, 0, n, x, yref, 0);
        bad += !tl_matches_ref(A, x, y, g->label);
        if (!tl_same_bits(y, yref, n)) {
            fprintf(stderr, "    %s differs from the unguarded call\n", g->label);
            bad++;
        }
    }
    hspmv_free(y);
    hspmv_free(yref);
    return bad;
}

long double tl_row_bound(const hspmv_csr *A, const hspmv_real *x, int64_t i)
{
    long double absax = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        absax += fabsl((long double)A->val[k] * x[A->colind[k]]);
    long double k = (long double)(A->rowptr[i + 1] - A->rowptr[i]);
    return 2.0L * k * hspmv_eps() * absax + k * hspmv_eta();
}

int tl_check_rejects(const hspmv_csr *A, const tl_kernel *k, const hspmv_real *x, int64_t i)
{
    hspmv_real *y = hspmv_malloc((size_t)(A->nrows > 0 ? A->nrows : 1) * sizeof(hspmv_real));
    char what[300];
    int bad = 0;
    if (!y) {
        fprintf(stderr, "    %s: out of memory\n", k->label);
        return 1;
    }
    k->run(k, 0, A->nrows, x, y, 0);
    if (!tl_matches_ref(A, x, y, "unperturbed")) {
        fprintf(stderr, "    %s: unperturbed y rejected\n", k->label);
        bad++;
    }
    y[i] = (hspmv_real)((long double)y[i] + 3 * tl_row_bound(A, x, i));
    fprintf(stderr, "    (the next line is the expected rejection)\n");
    snprintf(what, sizeof(what), "%s row moved by 3 bounds", k->label);
    if (tl_matches_ref(A, x, y, what)) {
        fprintf(stderr, "    %s: a y off by 3 bounds in row %lld passed\n", k->label, (long long)i);
        bad++;
    }
    hspmv_free(y);
    return bad;
}

int tl_each_mtx(const char *dir, int skip_unsupported,
                int (*fn)(const hspmv_csr *A, const char *name, int i), int *unread)
{
    char **paths;
    int n = tl_list_mtx(dir, &paths), done = 0, checked = 0;
    *unread = 0;
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) {
        hspmv_csr A;
        const char *base = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
        if (skip_unsupported && tl_is_unsupported_shared(paths[i])) continue;
        int rc = tl_read_csr(paths[i], &A);
        if (rc != HSPMV_OK) {
            fprintf(stderr, "    %s: read failed (%d)\n", base, rc);
            ++*unread;
            continue;
        }
        checked += fn(&A, base, i);
        hspmv_csr_free(&A);
        done++;
    }
    printf("  %s: %d matrices, %d checked, %d refused\n", dir, done, checked, done - checked);
    tl_free_list(paths, n);
    return done;
}

const char *tl_missing_hint(int shared)
{
    (void)shared; /* both folders are in the repository */
    return "run from the repository root";
}

int tl_on_empty_matrices(int (*check)(const hspmv_csr *A, const char *name, uint64_t seed))
{
    static const int64_t shapes[3][2] = {{0, 0}, {0, 10}, {10, 10}};
    for (int t = 0; t < 3; t++) {
        hspmv_csr A;
        char name[64];
        int rc = tl_csr_random(&A, shapes[t][0], shapes[t][1], NULL, 0, 0, 61);
        if (rc) return rc;
        snprintf(name, sizeof(name), "empty %lldx%lld", (long long)shapes[t][0], (long long)shapes[t][1]);
        check(&A, name, 12);
        hspmv_csr_free(&A);
    }
    return HSPMV_OK;
}

int tl_csr_wide_random(hspmv_csr *A, int64_t nrows, int64_t ncols, int64_t len, uint64_t seed)
{
    uint64_t s = seed;
    memset(A, 0, sizeof(*A));
    if (len > ncols / 2) len = ncols / 2;
    A->nrows = nrows;
    A->ncols = ncols;
    A->nnz = nrows * len;
    A->rowptr = hspmv_calloc(nrows + 1, sizeof(int64_t));
    A->colind = hspmv_malloc((A->nnz ? A->nnz : 1) * sizeof(int32_t));
    A->val = hspmv_malloc((A->nnz ? A->nnz : 1) * sizeof(hspmv_real));
    if (!A->rowptr || !A->colind || !A->val) {
        hspmv_csr_free(A);
        return HSPMV_ERR_NOMEM;
    }
    for (int64_t i = 0; i < nrows; i++) {
        int32_t *c = A->colind + i * len;
        for (int64_t k = 0; k < len; k++) { /* a new column, sorted into place */
            int32_t v;
            int64_t t, fresh;
            do {
                v = (int32_t)(tl_next(&s) % (uint64_t)ncols);
                fresh = 1;
                for (t = 0; t < k && fresh; t++) fresh = c[t] != v;
            } while (!fresh);
            for (t = k; t > 0 && c[t - 1] > v; t--) c[t] = c[t - 1];
            c[t] = v;
        }
        A->rowptr[i + 1] = (i + 1) * len;
    }
    tl_fill(A->val, A->nnz, seed + 1);
    return HSPMV_OK;
}

int tl_kcheck_sets(tl_kcheck *T, tl_kernel k, const hspmv_kernel_set *const *sets, int nsets, const char *name,
                   const char *fmt)
{
    char label[300];
    int bad = 0;
    k.label = label;
    for (int s = 0; s < nsets; s++) {
        k.ks = sets[s];
        snprintf(label, sizeof(label), "%s %s/%s", name, sets[s]->isa, fmt);
        bad += tl_kcheck_run(T, &k);
    }
    return bad;
}
