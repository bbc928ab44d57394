/* test_reorder.c — hspmv_opts.reorder on one rank's matrix: for rcm, nd
   (where METIS is built in) and auto, every format and 1 and 3 threads,
   y = A*x and y += A*x in the caller's order within the docs/design.md
   bound of the long-double reference; the reordered operator with vectors
   moved in and out; the block and transposed products; auto keeping an
   ordered matrix's order; square, rectangular, empty, one-row and
   zero-entry matrices; bad input (an unknown method, a permutation that is
   not one) refused with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "csr.h"
#include "local.h"
#include "local_calls.h"
#include "local_part.h"
#include "local_reorder.h"
#include "order.h"
#include "testlib.h"

static const int formats[] = {HSPMV_FORMAT_AUTO,  HSPMV_FORMAT_CSR,   HSPMV_FORMAT_CSRL,  HSPMV_FORMAT_BCOO,
                              HSPMV_FORMAT_CSR16, HSPMV_FORMAT_CSRVI, HSPMV_FORMAT_CSRP,  HSPMV_FORMAT_CSRDU,
                              HSPMV_FORMAT_PANELS};
#define NFMT (int)(sizeof(formats) / sizeof(formats[0]))
/* a window small enough that the test matrices count as poorly ordered */
#define TEST_WINDOW "reorder_window=8"

/* The 5-point Laplacian of an m x k grid, natural order. */
static int grid2d(hspmv_csr *A, int64_t m, int64_t k)
{
    int64_t n = m * k, e = 0;
    memset(A, 0, sizeof(*A));
    A->nrows = A->ncols = n;
    A->rowptr = hspmv_malloc(((size_t)n + 1) * sizeof(int64_t));
    A->colind = hspmv_malloc(((size_t)n * 5 + 1) * sizeof(int32_t));
    A->val = hspmv_malloc(((size_t)n * 5 + 1) * sizeof(hspmv_real));
    if (!A->rowptr || !A->colind || !A->val) return HSPMV_ERR_NOMEM;
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i / k, c = i % k;
        int64_t nb[5] = {r > 0 ? i - k : -1, c > 0 ? i - 1 : -1, i, c < k - 1 ? i + 1 : -1, r < m - 1 ? i + k : -1};
        for (int t = 0; t < 5; t++)
            if (nb[t] >= 0) {
                A->colind[e] = (int32_t)nb[t];
                A->val[e] = nb[t] == i ? 4 : -1 - 0.125 * (double)(e % 5);
                e++;
            }
        A->rowptr[i + 1] = e;
    }
    A->nnz = e;
    return HSPMV_OK;
}

static int shuffled(const hspmv_csr *A, hspmv_csr *S, uint64_t seed)
{
    int64_t *p = malloc(((size_t)A->nrows + 1) * sizeof(int64_t)), *q = malloc(((size_t)A->ncols + 1) * sizeof(int64_t));
    hspmv_order_random(p, A->nrows, seed);
    hspmv_order_random(q, A->ncols, A->nrows == A->ncols ? seed : seed + 1);
    int rc = hspmv_order_permute(A, p, q, S, NULL);
    free(p);
    free(q);
    return rc;
}

/* L (made from A) multiplies in the caller's order: y = A*x and y += A*x
   against the reference, the reordered operator through vec_in/out the
   same, the permutations bijections. Returns the failures. */
static int check_user_order(hspmv_local *L, const hspmv_csr *A, const char *what)
{
    int bad = 0;
    int64_t m = A->nrows, n = A->ncols;
    hspmv_real *x = malloc(((size_t)n + m + 1) * sizeof(hspmv_real)), *y = malloc(((size_t)m + 1) * sizeof(hspmv_real));
    hspmv_real *xi = malloc(((size_t)n + 1) * sizeof(hspmv_real)), *yi = malloc(((size_t)m + 1) * sizeof(hspmv_real));
    hspmv_real *y2 = malloc(((size_t)m + 1) * sizeof(hspmv_real));
    int64_t *rp = malloc(((size_t)m + 1) * sizeof(int64_t)), *cp = malloc(((size_t)n + 1) * sizeof(int64_t));
    hspmv_csr B;
    tl_fill(x, n + m, 31);
    tl_fill_nan(y, m);
    hspmv_local_spmv(L, x, y, 0);
    bad += !tl_matches_ref(A, x, y, what);
    /* y += A*x: against [A | I] [x; y0] */
    CHECK(tl_csr_augment(A, &B) == HSPMV_OK, "augment");
    memcpy(y, x + n, (size_t)m * sizeof(hspmv_real));
    hspmv_local_spmv(L, x, y, 1);
    bad += !tl_matches_ref(&B, x, y, what);
    hspmv_csr_free(&B);
    /* the reordered operator, vectors moved once */
    hspmv_local_info in;
    hspmv_local_get_info(L, &in);
    bad += hspmv_local_vec_order(L, 0, x, xi, NULL) != HSPMV_OK;
    tl_fill_nan(yi, m);
    bad += hspmv_local_spmm(L, HSPMV_REORDERED, 1, xi, yi, 0, NULL) != HSPMV_OK;
    tl_fill_nan(y2, m);
    bad += hspmv_local_vec_order(L, HSPMV_ORDER_ROWS | HSPMV_ORDER_OUT, yi, y2, NULL) != HSPMV_OK;
    bad += !tl_matches_ref(A, x, y2, what);
    bad += (in.row_perm == NULL) != !hspmv_local_is_reordered(L) || (in.col_perm == NULL) != (in.row_perm == NULL);
    for (int64_t k = 0; k < m; k++) rp[k] = in.row_perm ? in.row_perm[k] : k;
    for (int64_t k = 0; k < n; k++) cp[k] = in.col_perm ? in.col_perm[k] : k;
    bad += hspmv_order_check(rp, m, "rows", NULL) != HSPMV_OK;
    bad += hspmv_order_check(cp, n, "cols", NULL) != HSPMV_OK;
    for (int64_t k = 0; k < n; k++) bad += xi[k] != x[cp[k]]; /* vec_in is the permutation's gather */
    if (bad) fprintf(stderr, "    %s: %d checks failed\n", what, bad);
    free(x), free(y), free(xi), free(yi), free(y2), free(rp), free(cp);
    return bad;
}

/* A with reorder method, every format, 1 and 3 threads. */
static void check_all_formats(const hspmv_csr *A, int method, const char *name)
{
    int made = 0;
    for (int f = 0; f < NFMT; f++)
        for (int t = 1; t <= 3; t += 2) {
            hspmv_opts o;
            hspmv_local *L = NULL;
            hspmv_error e;
            char what[160];
            hspmv_opts_default(&o);
            o.format = formats[f];
            o.threads = t;
            o.reorder = method;
            snprintf(what, sizeof(what), "%s reorder=%s format %d, %d threads", name, hspmv_order_name(method),
                     formats[f], t);
            int rc = hspmv_local_create_test(A, &o, TEST_WINDOW, &L, &e);
            if (rc == HSPMV_ERR_UNSUPPORTED && formats[f] != HSPMV_FORMAT_AUTO && formats[f] != HSPMV_FORMAT_CSR)
                continue; /* CSR16, CSRVI, CSRP cannot hold every matrix */
            CHECK(rc == HSPMV_OK, "%s: %s", what, e.msg);
            if (rc) continue;
            made++;
            CHECK(check_user_order(L, A, what) == 0, "%s", what);
            hspmv_local_destroy(&L);
        }
    CHECK(made >= 4, "%s: only %d formats made", name, made);
}

static int methods[4], nmethods;
static void set_methods(void)
{
    nmethods = 0;
    methods[nmethods++] = HSPMV_REORDER_RCM;
#ifndef HSPMV_NO_METIS
    methods[nmethods++] = HSPMV_REORDER_ND;
#endif
    methods[nmethods++] = HSPMV_REORDER_AUTO;
}

static void reorder_shuffled_grid_every_format(void)
{
    hspmv_csr A, S;
    CHECK(grid2d(&A, 30, 41) == HSPMV_OK && shuffled(&A, &S, 4) == HSPMV_OK, "setup");
    for (int m = 0; m < nmethods; m++) check_all_formats(&S, methods[m], "shuffled grid 30x41");
    hspmv_csr_free(&A);
    hspmv_csr_free(&S);
}

static void reorder_random_and_rectangular(void)
{
    static const int64_t shapes[][3] = {{400, 400, 7}, {250, 90, 5}, {60, 500, 12}, {1, 300, 40}, {300, 1, 1}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        hspmv_csr A;
        char name[64];
        CHECK(tl_csr_random(&A, shapes[s][0], shapes[s][1], NULL, shapes[s][2], 2, 40 + s) == HSPMV_OK, "random");
        snprintf(name, sizeof(name), "random %lldx%lld", (long long)shapes[s][0], (long long)shapes[s][1]);
        for (int m = 0; m < nmethods; m++) {
            if (methods[m] == HSPMV_REORDER_ND && A.nrows != A.ncols) {
                hspmv_opts o;
                hspmv_local *L = NULL;
                hspmv_error e;
                hspmv_opts_default(&o);
                o.reorder = HSPMV_REORDER_ND;
                CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_UNSUPPORTED && strstr(e.msg, "square") && !L,
                      "%s: nd on a rectangular matrix: %s", name, e.msg);
                continue;
            }
            check_all_formats(&A, methods[m], name);
        }
        hspmv_csr_free(&A);
    }
}

static int check_empty(const hspmv_csr *A, const char *name, uint64_t seed)
{
    (void)seed;
    for (int m = 0; m < nmethods; m++) {
        hspmv_opts o;
        hspmv_local *L = NULL;
        hspmv_error e;
        hspmv_opts_default(&o);
        o.reorder = methods[m];
        o.threads = 2;
        int rc = hspmv_local_create_test(A, &o, TEST_WINDOW, &L, &e);
        if (methods[m] == HSPMV_REORDER_ND && A->nrows != A->ncols) {
            CHECK(rc == HSPMV_ERR_UNSUPPORTED, "%s: nd: %s", name, e.msg);
            continue;
        }
        CHECK(rc == HSPMV_OK, "%s reorder %s: %s", name, hspmv_order_name(methods[m]), e.msg);
        if (!rc) CHECK(check_user_order(L, A, name) == 0, "%s reorder %s", name, hspmv_order_name(methods[m]));
        hspmv_local_destroy(&L);
    }
    return 0;
}

static void reorder_empty_matrices(void)
{
    CHECK(tl_on_empty_matrices(check_empty) == HSPMV_OK, "empty matrices");
    hspmv_csr A;
    CHECK(tl_csr_random(&A, 1, 1, NULL, 1, 0, 3) == HSPMV_OK, "1x1");
    check_empty(&A, "1x1", 0);
    hspmv_csr_free(&A);
}

/* The block product (k = 3, both layouts) and the transposed one (k = 1, 3)
   of a reordered matrix in the caller's order. */
static void reorder_block_and_transposed_products(void)
{
    hspmv_csr G, A, At;
    CHECK(grid2d(&G, 20, 23) == HSPMV_OK, "grid");
    hspmv_csr_free(&G);
    CHECK(tl_csr_random(&A, 310, 270, NULL, 6, 3, 77) == HSPMV_OK, "random");
    CHECK(hspmv_local_csr_transpose(&A, &At, 1) == 0, "transpose");
    hspmv_opts o;
    hspmv_local *L = NULL;
    hspmv_error e;
    hspmv_opts_default(&o);
    o.reorder = HSPMV_REORDER_RCM;
    o.threads = 3;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_OK, "%s", e.msg);
    for (int tr = 0; tr < 2 && L; tr++)
        for (int k = 1; k <= 3; k += 2)
            for (int cm = 0; cm < 2; cm++) {
                const hspmv_csr *M = tr ? &At : &A;
                int64_t nx = M->ncols, ny = M->nrows;
                hspmv_real *X = malloc((size_t)(nx * k) * sizeof(hspmv_real)), *Y = malloc((size_t)(ny * k) * sizeof(hspmv_real));
                hspmv_real *x = malloc((size_t)nx * sizeof(hspmv_real)), *y = malloc((size_t)ny * sizeof(hspmv_real));
                tl_fill(X, nx * k, 5 + k);
                tl_fill_nan(Y, ny * k);
                int flags = (tr ? HSPMV_TRANSPOSE : 0) | (cm ? HSPMV_COL_MAJOR : 0);
                CHECK(hspmv_local_spmm(L, flags, k, X, Y, 0, &e) == HSPMV_OK, "%s", e.msg);
                for (int j = 0; j < k; j++) {
                    for (int64_t i = 0; i < nx; i++) x[i] = cm ? X[j * nx + i] : X[i * k + j];
                    for (int64_t i = 0; i < ny; i++) y[i] = cm ? Y[j * ny + i] : Y[i * k + j];
                    char what[80];
                    snprintf(what, sizeof(what), "%s k=%d %s vector %d", tr ? "A^T X" : "A X", k,
                             cm ? "col-major" : "row-major", j);
                    CHECK(tl_matches_ref(M, x, y, what), "%s", what);
                }
                free(X), free(Y), free(x), free(y);
            }
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
    hspmv_csr_free(&At);
}

/* auto: an ordered grid keeps its order (no permutation, nothing in the
   call); the same grid shuffled is reordered, its bandwidth brought back. */
static void reorder_auto_decides(void)
{
    hspmv_csr A, S;
    hspmv_opts o;
    hspmv_local *L = NULL;
    hspmv_local_info in;
    hspmv_error e;
    CHECK(grid2d(&A, 40, 40) == HSPMV_OK && shuffled(&A, &S, 8) == HSPMV_OK, "setup");
    hspmv_opts_default(&o);
    o.reorder = HSPMV_REORDER_AUTO;
    o.threads = 2;
    /* window 40: the grid's every entry is within it */
    CHECK(hspmv_local_create_test(&A, &o, "reorder_window=40", &L, &e) == HSPMV_OK, "%s", e.msg);
    hspmv_local_get_info(L, &in);
    CHECK(in.reorder == HSPMV_REORDER_NONE && in.reorder_asked == HSPMV_REORDER_AUTO && !strcmp(in.reorder_name, "none"),
          "ordered grid: auto chose %s", in.reorder_name);
    CHECK(in.local_before == 1 && in.bandwidth_before == 40 && in.reorder_window == 40, "measured %g %lld",
          in.local_before, (long long)in.bandwidth_before);
    CHECK(!hspmv_local_is_reordered(L), "no permutation kept");
    hspmv_local_destroy(&L);
    /* random columns (an expander graph) at window 8: RCM is tried and gains
       too little, the caller's order stays */
    hspmv_csr R;
    CHECK(tl_csr_random(&R, 2000, 2000, NULL, 8, 0, 5) == HSPMV_OK, "random");
    CHECK(hspmv_local_create_test(&R, &o, "reorder_window=8", &L, &e) == HSPMV_OK, "%s", e.msg);
    hspmv_local_get_info(L, &in);
    CHECK(in.reorder == HSPMV_REORDER_NONE && in.local_before < 0.9 && in.local_after == in.local_before &&
              !hspmv_local_is_reordered(L), "random at window 8: %s, %g", in.reorder_name, in.local_before);
    CHECK(check_user_order(L, &R, "auto on random columns") == 0, "product");
    hspmv_local_destroy(&L);
    hspmv_csr_free(&R);
    /* the 40 x 40 grid at window 20: RCM's anti-diagonal levels bring more entries near */
    CHECK(hspmv_local_create_test(&A, &o, "reorder_window=20", &L, &e) == HSPMV_OK, "%s", e.msg);
    hspmv_local_get_info(L, &in);
    CHECK(in.local_before < 0.9 && (in.reorder == HSPMV_REORDER_RCM) == (in.local_after >= in.local_before + 0.25),
          "grid at window 20: %s, %g -> %g", in.reorder_name, in.local_before, in.local_after);
    hspmv_local_destroy(&L);
    CHECK(hspmv_local_create_test(&S, &o, "reorder_window=40", &L, &e) == HSPMV_OK, "%s", e.msg);
    hspmv_local_get_info(L, &in);
    CHECK(in.reorder == HSPMV_REORDER_RCM && !strcmp(in.reorder_name, "rcm"), "shuffled grid: auto chose %s",
          in.reorder_name);
    CHECK(in.bandwidth_before > 400 && in.bandwidth_after <= 81 && in.local_after == 1 && in.reorder_s > 0,
          "bandwidth %lld -> %lld, local %g -> %g", (long long)in.bandwidth_before, (long long)in.bandwidth_after,
          in.local_before, in.local_after);
    CHECK(check_user_order(L, &S, "auto on the shuffled grid") == 0, "product");
    hspmv_local_destroy(&L);
    /* none measures nothing */
    o.reorder = HSPMV_REORDER_NONE;
    CHECK(hspmv_local_create(&S, &o, &L, &e) == HSPMV_OK, "%s", e.msg);
    hspmv_local_get_info(L, &in);
    CHECK(in.reorder_asked == 0 && in.reorder == 0 && !strcmp(in.reorder_name, "none") && in.reorder_s == 0, "none");
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
    hspmv_csr_free(&S);
}

static void reorder_bad_input(void)
{
    hspmv_csr A, B;
    hspmv_opts o;
    hspmv_local *L = NULL;
    hspmv_error e;
    int64_t rp[50], cp[50];
    CHECK(tl_csr_random(&A, 50, 50, NULL, 4, 0, 9) == HSPMV_OK, "random");
    hspmv_opts_default(&o);
    o.reorder = 9;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_ARG && strstr(e.msg, "reorder 9") && !L, "%s", e.msg);
    o.reorder = -1;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_ERR_ARG && !L, "%s", e.msg);
    {
        hspmv_order_choice C;
        CHECK(hspmv_order_choose(&A, 9, "", 1, &C, &B, &e) == HSPMV_ERR_ARG && strstr(e.msg, "unknown method"), "%s",
              e.msg);
    }
    CHECK(hspmv_order_rcm(&A, rp, cp, &e) == HSPMV_OK, "%s", e.msg);
    CHECK(hspmv_order_check(rp, 50, "rp", &e) == HSPMV_OK && hspmv_order_check(cp, 50, "cp", &e) == HSPMV_OK, "%s", e.msg);
    CHECK(hspmv_order_permute(&A, rp, cp, &B, &e) == HSPMV_OK, "%s", e.msg);
    hspmv_csr_free(&B);
    for (int64_t k = 0; k < 50; k++) rp[k] = k;
    rp[7] = 3; /* not a bijection */
    CHECK(hspmv_order_permute(&A, rp, cp, &B, &e) == HSPMV_ERR_ARG && strstr(e.msg, "row_perm[7] = 3 repeats entry 3") &&
              !B.rowptr, "%s", e.msg);
    rp[7] = 7;
    cp[49] = 50; /* out of range */
    CHECK(hspmv_order_permute(&A, rp, cp, &B, &e) == HSPMV_ERR_ARG && strstr(e.msg, "col_perm[49] = 50 is outside [0, 50)"),
          "%s", e.msg);
    CHECK(hspmv_order_permute(&A, NULL, cp, &B, &e) == HSPMV_ERR_ARG, "%s", e.msg);
    /* the vector calls refuse unknown flags and NULL vectors */
    hspmv_real v[50] = {0}, w[50] = {0};
    hspmv_opts_default(&o);
    o.reorder = HSPMV_REORDER_RCM;
    CHECK(hspmv_local_create(&A, &o, &L, &e) == HSPMV_OK, "%s", e.msg);
    CHECK(hspmv_local_vec_order(L, 8, v, w, &e) == HSPMV_ERR_ARG && strstr(e.msg, "unknown flags 8"), "%s", e.msg);
    CHECK(hspmv_local_vec_order(L, 0, NULL, w, &e) == HSPMV_ERR_ARG && strstr(e.msg, "NULL"), "%s", e.msg);
    CHECK(hspmv_local_vec_order(NULL, 0, v, w, &e) == HSPMV_ERR_ARG, "%s", e.msg);
    CHECK(hspmv_local_spmm(L, 16, 1, v, w, 0, &e) == HSPMV_ERR_ARG, "%s", e.msg);
    hspmv_local_destroy(&L);
    hspmv_csr_free(&A);
}

int main(void)
{
    set_methods();
    RUN(reorder_shuffled_grid_every_format);
    RUN(reorder_random_and_rectangular);
    RUN(reorder_empty_matrices);
    RUN(reorder_block_and_transposed_products);
    RUN(reorder_auto_decides);
    RUN(reorder_bad_input);
    CHECK_DONE();
}
