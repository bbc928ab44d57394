/* test_sym.c — one-triangle storage of symmetric and skew-symmetric
   matrices (hspmv_opts.symmetric): every kernel set this CPU runs x 1-16
   threads x 16- and 32-bit indices against the long-double reference with
   the docs/design.md bound, y = A*x and y += A*x; private rows of y that
   reach across several threads' rows; empty rows, a diagonal-only matrix,
   1x1; what auto takes and leaves (a general file that is symmetric, a
   nearly symmetric one, a pattern that is not, formats asked for); files
   with a symmetric header (and one with an entry above the diagonal,
   refused); the block and transposed products. Names kernels only through
   the registry, so the same file runs under qemu-aarch64. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "csr.h"
#include "local.h"
#include "testlib.h"

static const hspmv_kernel_set *sets[8];
static int nsets;
static const int thread_counts[] = {1, 2, 3, 4, 7, 16};
#define NTHR (int)(sizeof(thread_counts) / sizeof(thread_counts[0]))

/* A symmetric (sign 1) or skew (sign -1) n x n matrix: row i's lower
   entries at distances 1..band drawn with probability p (every distance in
   `always` too, when > 0), a diagonal unless skew or nodiag; rows in
   [hole0, hole1) and their columns empty. Values in [-1, 1) from seed. */
static int make_sym(hspmv_csr *A, int64_t n, int64_t band, double p, int64_t always, int sign, int nodiag,
                    int64_t hole0, int64_t hole1, uint64_t seed)
{
    hspmv_coo C = {.nrows = n, .ncols = n, .symmetry = sign > 0 ? HSPMV_SYMMETRIC : HSPMV_SKEW_SYMMETRIC};
    int64_t cap = (int64_t)((double)n * ((double)band * p + 2)) + 64, m = 0;
    uint64_t s = seed;
    hspmv_error e;
    C.row = malloc((size_t)cap * sizeof(int32_t));
    C.col = malloc((size_t)cap * sizeof(int32_t));
    C.val = malloc((size_t)cap * sizeof(hspmv_real));
    if (!C.row || !C.col || !C.val) return HSPMV_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++) {
        if (i >= hole0 && i < hole1) continue;
        for (int64_t d = p > 0 ? band : always; d >= 1 && m + 2 < cap; d--) {
            int64_t j = i - d;
            double u = tl_uniform(&s, 0, 1);
            if (p == 0 && d != always) break; /* only the one distance */
            if (j < 0 || (j >= hole0 && j < hole1) || !(u < p || d == always)) continue;
            C.row[m] = (int32_t)i, C.col[m] = (int32_t)j, C.val[m++] = tl_uniform(&s, -1, 1);
        }
        if (sign > 0 && !nodiag) C.row[m] = C.col[m] = (int32_t)i, C.val[m++] = tl_uniform(&s, 2, 3);
    }
    C.nnz = m;
    int rc = hspmv_csr_from_coo(&C, A, &e);
    if (rc) fprintf(stderr, "make_sym: %s\n", e.msg);
    free(C.row), free(C.col), free(C.val);
    return rc;
}

static hspmv_opts opts(int format, int sym, const char *isa, int threads)
{
    hspmv_opts o;
    hspmv_opts_default(&o);
    o.format = format;
    o.symmetric = sym;
    o.kernel = isa;
    o.threads = threads;
    return o;
}

/* L (one triangle expected, `sign`) against A's reference, y = A*x from NaN
   and y += A*x; returns the failures (printed). */
static int check_product(const hspmv_csr *A, hspmv_local *L, const char *what)
{
    int64_t n = A->nrows, nc = A->ncols;
    int bad = 0;
    hspmv_csr B;
    hspmv_real *x = hspmv_malloc(sizeof(hspmv_real) * (size_t)(nc + n + 1));
    hspmv_real *y = hspmv_malloc(sizeof(hspmv_real) * (size_t)(n + 1));
    if (!x || !y || tl_csr_augment(A, &B)) {
        hspmv_free(x), hspmv_free(y);
        return 1;
    }
    tl_fill(x, nc + n, 7);
    tl_fill_nan(y, n);
    hspmv_local_spmv(L, x, y, 0);
    bad += !tl_matches_ref(A, x, y, what);
    memcpy(y, x + nc, sizeof(hspmv_real) * (size_t)n); /* y0: x's entries past A's columns */
    hspmv_local_spmv(L, x, y, 1);
    bad += !tl_matches_ref(&B, x, y, what);
    hspmv_csr_free(&B);
    hspmv_free(x), hspmv_free(y);
    return bad;
}

/* A through one triangle with every kernel set, thread count and index
   kind (row patterns, 16- and 32-bit); expects sign in info.symmetric, and
   row patterns to fit when pat (else they must be refused). */
static void check_all(const hspmv_csr *A, int sign, int pat, const char *name)
{
    static const int fmts[] = {HSPMV_FORMAT_CSRP, HSPMV_FORMAT_CSR16, HSPMV_FORMAT_CSR};
    static const char *fnames[] = {"patterns", "csr16", "csr"};
    for (int s = 0; s < nsets; s++)
        for (int t = 0; t < NTHR; t++)
            for (int f = 0; f < 3; f++) {
                hspmv_opts o = opts(fmts[f], HSPMV_SYMMETRIC_YES, sets[s]->isa, thread_counts[t]);
                hspmv_local *L = NULL;
                hspmv_error e;
                hspmv_local_info info;
                char what[160];
                snprintf(what, sizeof(what), "%s %s %s %d threads", name, sets[s]->isa, fnames[f], thread_counts[t]);
                int rc = hspmv_local_create(A, &o, &L, &e);
                if (f == 0 && !pat) {
                    CHECK(rc == HSPMV_ERR_UNSUPPORTED && !L, "%s: patterns taken (%d)", what, rc);
                    hspmv_local_destroy(&L);
                    continue;
                }
                CHECK(rc == HSPMV_OK, "%s: %s", what, e.msg);
                if (rc) continue;
                hspmv_local_get_info(L, &info);
                CHECK(info.symmetric == sign && info.format == fmts[f], "%s: symmetric %d format %s", what,
                      info.symmetric, info.format_name);
                CHECK(check_product(A, L, what) == 0, "%s: product", what);
                hspmv_local_destroy(&L);
            }
}

static void test_symmetric_kernels(void)
{
    hspmv_csr A;
    /* rows of 0..40 lower entries: every SIMD tail and the scalar short rows */
    CHECK(make_sym(&A, 600, 40, 0.5, 0, 1, 0, -1, -1, 1) == 0, "make");
    check_all(&A, 1, 0, "banded 600");
    hspmv_csr_free(&A);
    /* a full band: every row its 24 lower neighbours */
    CHECK(make_sym(&A, 500, 24, 1.0, 0, 1, 0, -1, -1, 2) == 0, "make");
    check_all(&A, 1, 1, "full band 500");
    hspmv_csr_free(&A);
}

static void test_skew_kernels(void)
{
    hspmv_csr A;
    CHECK(make_sym(&A, 400, 30, 0.6, 0, -1, 0, -1, -1, 3) == 0, "make");
    check_all(&A, -1, 0, "skew 400");
    hspmv_csr_free(&A);
    CHECK(make_sym(&A, 300, 17, 1.0, 0, -1, 0, 40, 60, 3) == 0, "make");
    check_all(&A, -1, 1, "skew full band 300, empty rows 40..59");
    hspmv_csr_free(&A);
}

/* Entries reaching far below their rows: 16 threads' private rows span
   several other threads' rows (each row its neighbour n/2 below). */
static void test_wide_private_rows(void)
{
    hspmv_csr A;
    CHECK(make_sym(&A, 320, 300, 0.05, 160, 1, 0, -1, -1, 4) == 0, "make");
    check_all(&A, 1, 0, "wide 320");
    hspmv_csr_free(&A);
}

static void test_edges(void)
{
    hspmv_csr A;
    CHECK(make_sym(&A, 300, 8, 0.7, 0, 1, 0, 100, 180, 5) == 0, "make");
    check_all(&A, 1, 1, "empty rows 100..179");
    hspmv_csr_free(&A);
    CHECK(make_sym(&A, 257, 0, 0, 0, 1, 0, -1, -1, 6) == 0, "make");
    check_all(&A, 1, 1, "diagonal only");
    hspmv_csr_free(&A);
    CHECK(make_sym(&A, 1, 0, 0, 0, 1, 0, -1, -1, 7) == 0, "make");
    check_all(&A, 1, 1, "1x1");
    hspmv_csr_free(&A);
    CHECK(make_sym(&A, 50, 5, 0.8, 0, 1, 1, -1, -1, 8) == 0, "make");
    check_all(&A, 1, 1, "no diagonal");
    hspmv_csr_free(&A);
}

/* 16-bit offsets hold i - j up to 65535 and no further. */
static void test_offset_limit(void)
{
    for (int64_t d = 65535; d <= 65536; d++) {
        hspmv_csr A;
        hspmv_local *L = NULL;
        hspmv_local_info info;
        hspmv_error e;
        CHECK(make_sym(&A, 70000, d, 0, d, 1, 0, -1, -1, 9) == 0, "make");
        hspmv_opts o = opts(HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_YES, "auto", 3);
        for (int f = 0; f < 2; f++) { /* auto: row patterns (two here), then 16-bit offsets where they fit */
            CHECK(hspmv_local_create(&A, &o, &L, &e) == 0, "%s", e.msg);
            if (!L) continue;
            hspmv_local_get_info(L, &info);
            CHECK(f ? info.format == (d == 65535 ? HSPMV_FORMAT_CSR16 : HSPMV_FORMAT_CSR)
                    : info.format == HSPMV_FORMAT_CSRP, "distance %lld: %s", (long long)d, info.format_name);
            CHECK(check_product(&A, L, "offset limit") == 0, "distance %lld", (long long)d);
            hspmv_local_destroy(&L);
            if (d == 65536) break;
            o.format = HSPMV_FORMAT_CSR16;
        }
        o.format = HSPMV_FORMAT_CSR16;
        int rc = hspmv_local_create(&A, &o, &L, &e);
        CHECK(d == 65535 ? rc == HSPMV_OK : rc == HSPMV_ERR_UNSUPPORTED, "distance %lld csr16: %d %s",
              (long long)d, rc, e.msg);
        hspmv_local_destroy(&L);
        hspmv_csr_free(&A);
    }
}

/* What auto gives A: info.symmetric, or 99 when create failed. */
static int auto_takes(const hspmv_csr *A, int format, int sym)
{
    hspmv_opts o = opts(format, sym, "auto", 2);
    hspmv_local *L = NULL;
    hspmv_local_info info;
    hspmv_error e;
    if (hspmv_local_create(A, &o, &L, &e)) return 99;
    hspmv_local_get_info(L, &info);
    int r = info.symmetric;
    if (check_product(A, L, "auto")) r = 98;
    hspmv_local_destroy(&L);
    return r;
}

static void test_auto(void)
{
    hspmv_csr A, G;
    hspmv_error e;
    CHECK(make_sym(&A, 2000, 12, 0.6, 0, 1, 0, -1, -1, 10) == 0, "make");
    CHECK(auto_takes(&A, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO) == 1, "a symmetric general CSR: found");
    CHECK(auto_takes(&A, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_NO) == 0, "symmetric no");
    CHECK(auto_takes(&A, HSPMV_FORMAT_CSR, HSPMV_SYMMETRIC_AUTO) == 0, "a format asked for keeps both");
    CHECK(auto_takes(&A, HSPMV_FORMAT_CSRP, HSPMV_SYMMETRIC_YES) == 99, "yes with csrp: refused");
    /* one value a little off: nearly symmetric, not taken */
    G = A;
    G.val = malloc(sizeof(hspmv_real) * (size_t)A.nnz);
    memcpy(G.val, A.val, sizeof(hspmv_real) * (size_t)A.nnz);
    for (int64_t k = A.rowptr[1000]; k < A.rowptr[1001]; k++)
        if (A.colind[k] < 1000) {
            G.val[k] *= 1 + 8 * (sizeof(hspmv_real) == 4 ? FLT_EPSILON : DBL_EPSILON); /* a few ulps */
            break;
        }
    CHECK(auto_takes(&G, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO) == 0, "nearly symmetric: left");
    hspmv_opts o = opts(HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_YES, "auto", 2);
    hspmv_local *L = NULL;
    CHECK(hspmv_local_create(&G, &o, &L, &e) == HSPMV_ERR_UNSUPPORTED && !L, "nearly symmetric, yes: refused");
    CHECK(strstr(e.msg, "neither symmetric") != NULL, "message: %s", e.msg);
    /* the same values, one entry's mirror dropped (pattern not symmetric): set it to 0 and compare */
    memcpy(G.val, A.val, sizeof(hspmv_real) * (size_t)A.nnz);
    int64_t k = A.rowptr[500];
    G.val[k] = -G.val[k]; /* a_ij = -a_ji for one pair, the rest symmetric: neither kind */
    CHECK(auto_takes(&G, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO) == 0, "one pair skew: left");
    free(G.val);
    hspmv_csr_free(&A);
    /* rectangular and random (not symmetric) */
    CHECK(tl_csr_random(&A, 300, 200, NULL, 5, 0, 11) == 0, "make");
    CHECK(auto_takes(&A, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO) == 0, "rectangular: left");
    CHECK(auto_takes(&A, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_YES) == 99, "rectangular, yes: refused");
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 300, 300, NULL, 5, 0, 12) == 0, "make");
    CHECK(auto_takes(&A, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO) == 0, "random square: left");
    hspmv_csr_free(&A);
    /* skew found by auto */
    CHECK(make_sym(&A, 1000, 10, 0.7, 0, -1, 0, -1, -1, 13) == 0, "make");
    CHECK(auto_takes(&A, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO) == -1, "skew: found");
    hspmv_csr_free(&A);
    /* every row reaching the first: the private rows of y would cost more than they save */
    CHECK(make_sym(&A, 3000, 2999, 0.002, 0, 1, 0, -1, -1, 14) == 0, "make");
    CHECK(auto_takes(&A, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO) >= 0, "scattered: a valid product");
    hspmv_csr_free(&A);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

static void test_files(void)
{
    char p1[64], p2[64];
    hspmv_csr A = {0};
    hspmv_error e;
    snprintf(p1, sizeof(p1), "/tmp/test_sym_%d_a.mtx", (int)getpid());
    snprintf(p2, sizeof(p2), "/tmp/test_sym_%d_b.mtx", (int)getpid());
    FILE *f = fopen(p1, "w"); /* a symmetric file of 400 rows, 4 lower neighbours each */
    CHECK(f != NULL, "open %s", p1);
    if (!f) return;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n400 400 %d\n", 400 + 4 * 400 - 10);
    for (int i = 1; i <= 400; i++) {
        fprintf(f, "%d %d %d.5\n", i, i, 9);
        for (int d = 1; d <= 4; d++)
            if (i - d >= 1) fprintf(f, "%d %d -%d.25\n", i, i - d, d);
    }
    CHECK(fclose(f) == 0, "write");
    CHECK(write_file(p2, "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n1 2 -1\n2 2 4\n"), "write");
    CHECK(hspmv_csr_read(p1, &A, NULL, NULL, &e) == 0, "%s", e.msg);
    CHECK(auto_takes(&A, HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO) == 1, "symmetric file: one triangle");
    hspmv_csr_free(&A);
    CHECK(hspmv_csr_read(p2, &A, NULL, NULL, &e) == HSPMV_ERR_FORMAT, "above the diagonal: refused");
    CHECK(strstr(e.msg, "above the diagonal") && strstr(e.msg, ":4:"), "message names it: %s", e.msg);
    unlink(p1);
    unlink(p2);
}

/* The block and transposed products on one triangle, vector by vector. */
static void test_block_products(void)
{
    hspmv_csr A;
    CHECK(make_sym(&A, 700, 20, 0.5, 0, -1, 0, -1, -1, 15) == 0, "make");
    int64_t n = A.nrows, k = 3;
    hspmv_opts o = opts(HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO, "auto", 3);
    hspmv_local *L = NULL;
    hspmv_error e;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == 0, "%s", e.msg);
    hspmv_real *X = malloc(sizeof(hspmv_real) * (size_t)(n * k)), *Y = malloc(sizeof(hspmv_real) * (size_t)(n * k));
    hspmv_real *x = malloc(sizeof(hspmv_real) * (size_t)n), *y = malloc(sizeof(hspmv_real) * (size_t)n);
    hspmv_csr T;
    CHECK(hspmv_local_csr_transpose(&A, &T, 1) == 0, "transpose");
    tl_fill(X, n * k, 16);
    for (int flags = 0; flags < 4; flags++) {
        tl_fill_nan(Y, n * k);
        CHECK(hspmv_local_spmm(L, flags, (int)k, X, Y, 0, &e) == 0, "%s", e.msg);
        for (int64_t v = 0; v < k; v++) {
            for (int64_t i = 0; i < n; i++) {
                x[i] = flags & HSPMV_COL_MAJOR ? X[v * n + i] : X[i * k + v];
                y[i] = flags & HSPMV_COL_MAJOR ? Y[v * n + i] : Y[i * k + v];
            }
            CHECK(tl_matches_ref(flags & HSPMV_TRANSPOSE ? &T : &A, x, y, "block"), "flags %d vector %lld", flags,
                  (long long)v);
        }
    }
    hspmv_csr_free(&T);
    hspmv_local_destroy(&L);
    free(X), free(Y), free(x), free(y);
    hspmv_csr_free(&A);
}

/* The model's bytes: about half of full storage's values and indices. */
static void test_bytes(void)
{
    hspmv_csr A;
    CHECK(make_sym(&A, 5000, 30, 1.0, 0, 1, 0, -1, -1, 17) == 0, "make");
    hspmv_opts o = opts(HSPMV_FORMAT_AUTO, HSPMV_SYMMETRIC_AUTO, "auto", 4), o2 = o;
    o2.symmetric = HSPMV_SYMMETRIC_NO;
    hspmv_local *L = NULL, *F = NULL;
    hspmv_local_info a, b;
    hspmv_error e;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == 0 && hspmv_local_create(&A, &o2, &F, &e) == 0, "%s", e.msg);
    if (L && F) {
        hspmv_local_get_info(L, &a);
        hspmv_local_get_info(F, &b);
        CHECK(a.symmetric == 1 && b.symmetric == 0, "%d %d", a.symmetric, b.symmetric);
        double r = sizeof(hspmv_real), n = (double)A.nrows; /* the matrix's bytes: the models less the vectors */
        double ma = a.bytes - 3 * n * r - 3 * (double)a.sym_halo * r, mb = b.bytes - 2 * n * r;
        CHECK(ma < 0.6 * mb, "one triangle %.0f bytes, full (%s) %.0f", ma, b.format_name, mb);
        CHECK(a.sym_check_s >= 0 && a.sym_halo > 0 && a.sym_halo <= 3 * 30, "private rows %lld",
              (long long)a.sym_halo);
    }
    hspmv_local_destroy(&L);
    hspmv_local_destroy(&F);
    hspmv_csr_free(&A);
}

int main(void)
{
    nsets = tl_kernel_sets(sets, 8);
    RUN(test_symmetric_kernels);
    RUN(test_skew_kernels);
    RUN(test_wide_private_rows);
    RUN(test_edges);
    RUN(test_offset_limit);
    RUN(test_auto);
    RUN(test_files);
    RUN(test_block_products);
    RUN(test_bytes);
    CHECK_DONE();
}
