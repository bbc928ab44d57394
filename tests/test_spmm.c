/* test_spmm.c — the local block product Y = A X (hspmv_local_spmm): every
   format the matrix fits x every kernel set this CPU runs x 1 and 3
   threads x k in {1, 2, 3, 4, 8, 16, 17} x row- and column-major x add
   0/1, each of the k vectors against the long-double reference with the
   docs/design.md bound; square and rectangular matrices, rows of every
   tail length, several column panels, Y's rows by streaming stores
   (HSPMV_TEST spmm_stream=1: k = 8, 16 in double, 16 in single); many row
   blocks per thread (spmm_blocks) and their split; the parts of the block product
   (local_part.h) against the whole; a wrong entry is caught. Names
   kernels only through the registry, so it runs under qemu-aarch64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "local.h"
#include "local_part.h"
#include "testlib.h"
#include "alloc.h"

static const hspmv_kernel_set *sets[8];
static int nsets;

static const int formats[] = {HSPMV_FORMAT_CSR,   HSPMV_FORMAT_CSRL, HSPMV_FORMAT_BCOO,  HSPMV_FORMAT_CSR16,
                              HSPMV_FORMAT_CSRVI, HSPMV_FORMAT_CSRP, HSPMV_FORMAT_CSRDU, HSPMV_FORMAT_PANELS};
#define NFMT (int)(sizeof(formats) / sizeof(formats[0]))
static const int ks[] = {1, 2, 3, 4, 8, 16, 17};
#define NK (int)(sizeof(ks) / sizeof(ks[0]))
static const int thread_counts[] = {1, 3};

/* Rounds the values to multiples of 1/8: CSRVI holds every matrix here. */
static void quantize(hspmv_csr *A)
{
    for (int64_t q = 0; q < A->nnz; q++) A->val[q] = (hspmv_real)(floor((double)A->val[q] * 8 + 0.5) / 8);
}

/* Vector j of a block of n rows: X[i*k + j] (row-major) or X[j*n + i]. */
static int64_t at(int colmajor, int64_t n, int k, int64_t i, int j)
{
    return colmajor ? (int64_t)j * n + i : i * k + j;
}

/* Y (add: Y0 + A X) vector by vector against the reference; x, xy: scratch
   of ncols and ncols + nrows. Returns the vectors off the bound. */
static int check_block(const hspmv_csr *A, const hspmv_csr *B, int k, int colmajor, int add, const hspmv_real *X,
                       const hspmv_real *Y0, const hspmv_real *Y, hspmv_real *xy, hspmv_real *y, const char *what)
{
    int64_t m = A->nrows, n = A->ncols;
    int bad = 0;
    char w[400];
    for (int j = 0; j < k; j++) {
        for (int64_t c = 0; c < n; c++) xy[c] = X[at(colmajor, n, k, c, j)];
        for (int64_t i = 0; i < m; i++) {
            xy[n + i] = Y0[at(colmajor, m, k, i, j)];
            y[i] = Y[at(colmajor, m, k, i, j)];
        }
        snprintf(w, sizeof(w), "%s vector %d", what, j);
        bad += add ? !tl_matches_ref(B, xy, y, w) : !tl_matches_ref(A, xy, y, w);
    }
    return bad;
}

/* 1 when L can be made in format f for A (CSR16, CSRVI, CSRP have limits). */
static hspmv_local *make(const hspmv_csr *A, int f, const char *isa, int threads, const char *test)
{
    hspmv_opts o;
    hspmv_local *L = NULL;
    hspmv_opts_default(&o);
    o.format = f;
    o.kernel = isa;
    o.threads = threads;
    if (hspmv_local_create_test(A, &o, test, &L, NULL) != HSPMV_OK) return NULL;
    return L;
}

/* Every format A fits (only: that one format, -1 all) x set x threads x k x
   layout x add. Returns failed checks. */
static int check_matrix(const hspmv_csr *A, const char *name, const char *test, int only)
{
    int64_t m = A->nrows, n = A->ncols, kmax = 17;
    size_t xn = (size_t)(n ? n : 1) * kmax, yn = (size_t)(m ? m : 1) * kmax;
    hspmv_real *X = hspmv_malloc(xn * sizeof(hspmv_real)), *Y0 = hspmv_malloc(yn * sizeof(hspmv_real));
    hspmv_real *Y = hspmv_malloc(yn * sizeof(hspmv_real)), *Yp = hspmv_malloc(yn * sizeof(hspmv_real));
    hspmv_real *xy = hspmv_malloc((size_t)(n + m + 1) * sizeof(hspmv_real));
    hspmv_real *y = hspmv_malloc((size_t)(m + 1) * sizeof(hspmv_real));
    hspmv_csr B;
    int bad = 0, made = 0;
    char what[300];
    if (!X || !Y0 || !Y || !Yp || !xy || !y || tl_csr_augment(A, &B) != HSPMV_OK) {
        CHECK(0, "%s: out of memory in setup", name);
        return 1;
    }
    CHECK((uintptr_t)Y % 64 == 0 && (uintptr_t)Yp % 64 == 0, "%s: Y not aligned to 64 bytes: no streaming stores", name);
    tl_fill(X, (int64_t)xn, 11);
    tl_fill(Y0, (int64_t)yn, 12);
    for (int f = 0; f < NFMT; f++)
        for (int s = 0; s < nsets && (only < 0 || formats[f] == only); s++)
            for (int t = 0; t < 2; t++) {
                hspmv_local *L = make(A, formats[f], sets[s]->isa, thread_counts[t], test);
                if (!L) continue; /* A does not fit the format: test_local checks the refusals */
                made++;
                for (int ki = 0; ki < NK; ki++)
                    for (int cm = 0; cm <= 1; cm++)
                        for (int add = 0; add <= 1; add++) {
                            int k = ks[ki], rc;
                            hspmv_error e;
                            snprintf(what, sizeof(what), "%s format %d %s threads=%d k=%d %s add=%d", name,
                                     formats[f], sets[s]->isa, thread_counts[t], k, cm ? "col" : "row", add);
                            if (add)
                                memcpy(Y, Y0, yn * sizeof(hspmv_real));
                            else
                                tl_fill_nan(Y, (int64_t)yn);
                            rc = hspmv_local_spmm(L, cm ? HSPMV_COL_MAJOR : 0, k, X, Y, add, &e);
                            if (rc != HSPMV_OK) {
                                CHECK(rc == HSPMV_OK, "%s: %s", what, e.msg);
                                bad++;
                                continue;
                            }
                            int b = check_block(A, &B, k, cm, add, X, Y0, Y, xy, y, what);
                            CHECK(b == 0, "%s: %d vectors off the bound", what, b);
                            bad += b;
                            /* row-major in 3 parts (the MPI layer's overlap) gives the same bits */
                            if (!cm && k > 1) {
                                if (add)
                                    memcpy(Yp, Y0, yn * sizeof(hspmv_real));
                                else
                                    tl_fill_nan(Yp, (int64_t)yn);
                                for (int p = 2; p >= 0; p--) hspmv_local_spmm_part(L, p, 3, k, X, Yp, add);
                                int same = tl_same_bits(Y, Yp, m * k);
                                CHECK(same, "%s: 3 parts differ from the whole", what);
                                bad += !same;
                            }
                        }
                hspmv_local_destroy(&L);
            }
    CHECK(made >= 2 * nsets * (only < 0 ? 5 : 1), "%s: only %d matrices made", name, made);
    hspmv_csr_free(&B);
    hspmv_free(X);
    hspmv_free(Y0);
    hspmv_free(Y);
    hspmv_free(Yp);
    hspmv_free(xy);
    hspmv_free(y);
    return bad;
}

/* Square, rows of every tail length (0 .. 33 entries), some in runs. */
static void test_square_tails(void)
{
    static const int64_t lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33};
    int64_t n = 140, len[140];
    hspmv_csr A;
    for (int64_t i = 0; i < n; i++) len[i] = lens[i % 14];
    CHECK(tl_csr_random(&A, n, n, len, 0, 4, 3) == HSPMV_OK, "generate");
    quantize(&A);
    check_matrix(&A, "square 140", "", -1);
    check_matrix(&A, "square 140 spmm_stream=1", "spmm_stream=1", -1);
    check_matrix(&A, "square 140 spmm_blocks=5", "spmm_blocks=5", -1);
    hspmv_csr_free(&A);
}

/* Rectangular both ways, and a wide one whose column steps escape CSRDU's byte. */
static void test_rectangular(void)
{
    hspmv_csr A;
    CHECK(tl_csr_random(&A, 90, 61, NULL, 6, 0, 5) == HSPMV_OK, "generate tall");
    quantize(&A);
    check_matrix(&A, "tall 90x61", "", -1);
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 50, 3000, NULL, 9, 2, 6) == HSPMV_OK, "generate wide");
    quantize(&A);
    check_matrix(&A, "wide 50x3000", "", -1);
    hspmv_csr_free(&A);
}

/* A 2D 5-point stencil (CSRP's uniform slices, CSRL's runs), and three
   column panels. */
static void test_stencil_panels(void)
{
    int64_t g = 13, n = g * g, q = 0;
    hspmv_csr A = {0};
    A.nrows = A.ncols = n;
    A.rowptr = hspmv_malloc((size_t)(n + 1) * sizeof(int64_t));
    A.colind = hspmv_malloc((size_t)(5 * n) * sizeof(int32_t));
    A.val = hspmv_malloc((size_t)(5 * n) * sizeof(hspmv_real));
    if (!A.rowptr || !A.colind || !A.val) {
        CHECK(0, "out of memory");
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i / g, c = i % g;
        A.rowptr[i] = q;
        int64_t cols[5] = {r > 0 ? i - g : -1, c > 0 ? i - 1 : -1, i, c < g - 1 ? i + 1 : -1, r < g - 1 ? i + g : -1};
        for (int j = 0; j < 5; j++)
            if (cols[j] >= 0) {
                A.colind[q] = (int32_t)cols[j];
                A.val[q++] = cols[j] == i ? 4 : -1;
            }
    }
    A.rowptr[n] = A.nnz = q;
    check_matrix(&A, "stencil 13x13", "", -1);
    check_matrix(&A, "stencil 13x13 panels=3", "panels=3", HSPMV_FORMAT_PANELS);
    check_matrix(&A, "stencil 13x13 spmm_stream=1", "spmm_stream=1", -1);
    check_matrix(&A, "stencil 13x13 panels=3 spmm_stream=1", "panels=3,spmm_stream=1", HSPMV_FORMAT_PANELS);
    check_matrix(&A, "stencil 13x13 spmm_blocks=4 spmm_stream=1", "spmm_blocks=4,spmm_stream=1", -1);
    hspmv_csr_free(&A);
}

/* The row blocks: spmm_blocks per thread, increasing, covering the rows and
   balanced by nonzeros (none holds more than its share plus a row); the
   rule's count on a small matrix is one per thread. */
static void test_row_blocks(void)
{
    int64_t n = 1000, len[1000];
    hspmv_csr A;
    for (int64_t i = 0; i < n; i++) len[i] = 1 + (i * 7) % 23;
    CHECK(tl_csr_random(&A, n, n, len, 0, 0, 13) == HSPMV_OK, "generate");
    hspmv_local *L = make(&A, HSPMV_FORMAT_CSR, NULL, 3, "spmm_blocks=7");
    hspmv_local *L1 = make(&A, HSPMV_FORMAT_CSR, NULL, 3, "");
    CHECK(L && L1, "create");
    if (L && L1) {
        int ok = L->nblocks == 21 && L->blocks[0] == 0 && L->blocks[21] == n;
        for (int b = 0; ok && b < 21; b++) {
            int64_t nz = A.rowptr[L->blocks[b + 1]] - A.rowptr[L->blocks[b]];
            ok = L->blocks[b] <= L->blocks[b + 1] && nz <= A.nnz / 21 + 24;
        }
        CHECK(ok, "21 row blocks cover the rows, each at most nnz/21 + the longest row");
        CHECK(L1->nblocks == 3 && L1->blocks[3] == n, "a small matrix: one block per thread (%d)", L1->nblocks);
    }
    hspmv_local_destroy(&L);
    hspmv_local_destroy(&L1);
    hspmv_csr_free(&A);
}

/* The check can fail: a block product with one entry of one vector moved
   by a little more than its bound is rejected. */
static void test_rejects(void)
{
    hspmv_csr A, B;
    int k = 3;
    CHECK(tl_csr_random(&A, 40, 40, NULL, 5, 0, 9) == HSPMV_OK, "generate");
    hspmv_local *L = make(&A, HSPMV_FORMAT_CSR, NULL, 1, "");
    hspmv_real X[120], Y[120], Y0[120] = {0}, xy[80], y[40];
    CHECK(L != NULL, "create");
    if (!L || tl_csr_augment(&A, &B) != HSPMV_OK) return;
    tl_fill(X, 120, 4);
    CHECK(hspmv_local_spmm(L, 0, k, X, Y, 0, NULL) == HSPMV_OK, "product");
    CHECK(check_block(&A, &B, k, 0, 0, X, Y0, Y, xy, y, "exact") == 0, "the product passes");
    for (int j = 0; j < k; j++) xy[j] = X[7 * k + j];
    Y[7 * k + 1] += (hspmv_real)(1e-3 + 3 * (double)fabsl(tl_row_bound(&A, X, 7)));
    fprintf(stderr, "    (a rejection is expected next)\n");
    CHECK(check_block(&A, &B, k, 0, 0, X, Y0, Y, xy, y, "moved") == 1, "the moved entry is caught");
    CHECK(hspmv_local_spmm(L, 0, 0, X, Y, 0, NULL) == HSPMV_ERR_ARG, "k = 0 refused");
    CHECK(hspmv_local_spmm(L, 8, 2, X, Y, 0, NULL) == HSPMV_ERR_ARG, "unknown flag refused");
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
    hspmv_csr_free(&B);
}

int main(void)
{
    nsets = tl_kernel_sets(sets, 8);
    RUN(test_square_tails);
    RUN(test_rectangular);
    RUN(test_row_blocks);
    RUN(test_stencil_panels);
    RUN(test_rejects);
    CHECK_DONE();
}
