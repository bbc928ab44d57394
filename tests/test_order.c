/* test_order.c — src/order: permutation checks, reverse Cuthill-McKee and
   METIS nested dissection orders (bijections; bandwidth of shuffled grids
   restored), the locality measure, and B = A(rp, cp) multiplying like A
   (against the long-double reference with the docs/design.md bound) on
   square, non-symmetric, rectangular, disconnected, empty-row, one-row and
   zero-entry matrices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "csr.h"
#include "order.h"
#include "order_graph.h"
#include "testlib.h"

/* The 5-point Laplacian of an m x k grid (k = 1: a path), natural order. */
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
                A->val[e] = nb[t] == i ? 4 : -1 - 0.01 * (double)(e % 7);
                e++;
            }
        A->rowptr[i + 1] = e;
    }
    A->nnz = e;
    return HSPMV_OK;
}

/* A shuffled by one random permutation of rows and columns. */
static int shuffle(const hspmv_csr *A, hspmv_csr *B, uint64_t seed)
{
    int64_t *p = malloc(((size_t)A->nrows + 1) * sizeof(int64_t));
    int64_t *q = malloc(((size_t)A->ncols + 1) * sizeof(int64_t));
    int rc;
    hspmv_order_random(p, A->nrows, seed);
    hspmv_order_random(q, A->ncols, A->nrows == A->ncols ? seed : seed + 1);
    rc = hspmv_order_apply(A, p, q, 0, B, NULL);
    free(p);
    free(q);
    return rc;
}

/* B = A(rp, cp) multiplies like A: y_A[rp[k]] = (B x_B)[k] with x_B[k] =
   x[cp[k]], within the bound of A's reference; B is a valid CSR. */
static int permuted_matches(const hspmv_csr *A, const int64_t *rp, const int64_t *cp, const char *what)
{
    hspmv_csr B;
    int ok = 1;
    if (hspmv_order_apply(A, rp, cp, 0, &B, NULL)) return 0;
    hspmv_real *x = malloc(((size_t)A->ncols + 1) * sizeof(hspmv_real));
    hspmv_real *xb = malloc(((size_t)A->ncols + 1) * sizeof(hspmv_real));
    hspmv_real *yb = malloc(((size_t)A->nrows + 1) * sizeof(hspmv_real));
    hspmv_real *y = malloc(((size_t)A->nrows + 1) * sizeof(hspmv_real));
    tl_fill(x, A->ncols, 7);
    for (int64_t k = 0; k < A->ncols; k++) xb[k] = x[cp[k]];
    hspmv_csr_spmv_naive(&B, xb, yb);
    for (int64_t k = 0; k < A->nrows; k++) y[rp[k]] = yb[k];
    if (hspmv_csr_validate(&B, NULL)) ok = 0, fprintf(stderr, "    %s: the permuted CSR is not valid\n", what);
    if (B.nnz != A->nnz) ok = 0;
    if (!tl_matches_ref(A, x, y, what)) ok = 0;
    free(x), free(xb), free(yb), free(y);
    hspmv_csr_free(&B);
    return ok;
}

/* RCM (and ND where it applies) of A: bijections, and the permuted matrix multiplies like A. */
static void check_orders(const hspmv_csr *A, const char *name)
{
    int64_t *rp = malloc(((size_t)A->nrows + 1) * sizeof(int64_t));
    int64_t *cp = malloc(((size_t)A->ncols + 1) * sizeof(int64_t));
    hspmv_error e;
    int rc = hspmv_order_rcm(A, rp, cp, &e);
    CHECK(rc == HSPMV_OK, "%s: rcm: %s", name, e.msg);
    if (!rc) {
        CHECK(hspmv_order_check(rp, A->nrows, "rp", &e) == HSPMV_OK, "%s: rcm rows: %s", name, e.msg);
        CHECK(hspmv_order_check(cp, A->ncols, "cp", &e) == HSPMV_OK, "%s: rcm cols: %s", name, e.msg);
        CHECK(permuted_matches(A, rp, cp, name), "%s: rcm order", name);
    }
    rc = hspmv_order_nd(A, rp, cp, &e);
    if (A->nrows != A->ncols) CHECK(rc == HSPMV_ERR_UNSUPPORTED && strstr(e.msg, "square"), "%s: nd: %d %s", name, rc, e.msg);
#ifdef HSPMV_NO_METIS
    else CHECK(rc == HSPMV_ERR_UNSUPPORTED && strstr(e.msg, "METIS"), "%s: nd without METIS: %d %s", name, rc, e.msg);
#else
    else {
        CHECK(rc == HSPMV_OK, "%s: nd: %s", name, e.msg);
        if (!rc) {
            CHECK(hspmv_order_check(rp, A->nrows, "rp", &e) == HSPMV_OK, "%s: nd: %s", name, e.msg);
            CHECK(permuted_matches(A, rp, cp, name), "%s: nd order", name);
        }
    }
#endif
    free(rp);
    free(cp);
}

static void test_check_permutations(void)
{
    int64_t good[5] = {3, 0, 4, 1, 2}, out[5] = {3, 0, 5, 1, 2}, rep[5] = {3, 0, 3, 1, 2}, neg[3] = {0, -1, 2};
    int64_t inv[5], p[1000];
    hspmv_error e;
    CHECK(hspmv_order_check(good, 5, "row_perm", &e) == HSPMV_OK, "%s", e.msg);
    CHECK(hspmv_order_check(out, 5, "row_perm", &e) == HSPMV_ERR_ARG && strstr(e.msg, "row_perm[2] = 5") &&
              strstr(e.msg, "not a permutation"), "%s", e.msg);
    CHECK(hspmv_order_check(rep, 5, "col_perm", &e) == HSPMV_ERR_ARG && strstr(e.msg, "col_perm[2] = 3 repeats entry 0"),
          "%s", e.msg);
    CHECK(hspmv_order_check(neg, 3, "p", &e) == HSPMV_ERR_ARG && strstr(e.msg, "p[1] = -1"), "%s", e.msg);
    CHECK(hspmv_order_check(NULL, 3, "p", &e) == HSPMV_ERR_ARG && strstr(e.msg, "NULL"), "%s", e.msg);
    CHECK(hspmv_order_check(NULL, 0, "p", &e) == HSPMV_OK, "an empty permutation: %s", e.msg);
    hspmv_order_invert(good, 5, inv);
    for (int k = 0; k < 5; k++) CHECK(inv[good[k]] == k, "inverse at %d", k);
    for (uint64_t s = 0; s < 5; s++) {
        hspmv_order_random(p, 1000, s);
        CHECK(hspmv_order_check(p, 1000, "random", &e) == HSPMV_OK, "seed %llu: %s", (unsigned long long)s, e.msg);
        CHECK(!hspmv_order_is_identity(p, 1000), "seed %llu gave the identity", (unsigned long long)s);
    }
}

static void test_measure(void)
{
    hspmv_csr A;
    hspmv_order_stats s;
    CHECK(grid2d(&A, 6, 10) == HSPMV_OK, "grid");
    hspmv_order_measure(&A, 5, 2, &s);
    CHECK(s.bandwidth == 10, "bandwidth %lld, not 10", (long long)s.bandwidth);
    /* the 50 rows with a row above reach back 10, the 9 others of columns > 0 back 1 */
    CHECK(s.profile == 50 * 10 + 9, "profile %g, not 509", s.profile);
    /* |i-j| <= 5: the diagonal and the two horizontal neighbours */
    int64_t far = 2 * 50; /* 50 rows have a row above, 50 one below */
    CHECK(s.local_frac == (double)(A.nnz - far) / (double)A.nnz, "local fraction %g", s.local_frac);
    CHECK(s.window == 5, "window %lld", (long long)s.window);
    hspmv_csr_free(&A);
    hspmv_csr Z = {0};
    Z.nrows = Z.ncols = 3;
    int64_t rp0[4] = {0, 0, 0, 0};
    Z.rowptr = rp0;
    hspmv_order_measure(&Z, 5, 1, &s);
    CHECK(s.bandwidth == 0 && s.local_frac == 1 && s.mean_dist == 0, "no entries");
    CHECK(hspmv_order_window("reorder_window=77") == 77, "the test key forces the window");
    CHECK(hspmv_order_window("") >= 1024, "the cache window %lld", (long long)hspmv_order_window(""));
}

/* A shuffled grid: RCM brings the bandwidth back near the grid's (at most
   twice its width plus one), and the locality measure says so. */
static void test_rcm_shuffled_grid(void)
{
    hspmv_csr A, S;
    hspmv_order_stats before, after, natural;
    int64_t n;
    CHECK(grid2d(&A, 40, 50) == HSPMV_OK && shuffle(&A, &S, 3) == HSPMV_OK, "setup");
    n = A.nrows;
    int64_t *rp = malloc((size_t)n * sizeof(int64_t)), *cp = malloc((size_t)n * sizeof(int64_t));
    hspmv_csr R;
    CHECK(hspmv_order_rcm(&S, rp, cp, NULL) == HSPMV_OK, "rcm");
    CHECK(!memcmp(rp, cp, (size_t)n * sizeof(int64_t)), "square: rows and columns alike");
    CHECK(hspmv_order_apply(&S, rp, cp, 0, &R, NULL) == HSPMV_OK, "apply");
    hspmv_order_measure(&A, 100, 0, &natural);
    hspmv_order_measure(&S, 100, 0, &before);
    hspmv_order_measure(&R, 100, 0, &after);
    /* the diagonal (a fifth of the entries) is always near; of the rest about 2*100/2000 */
    CHECK(before.bandwidth > n / 2, "shuffled bandwidth %lld", (long long)before.bandwidth);
    CHECK(after.bandwidth <= 2 * 40 + 1, "rcm bandwidth %lld (grid 40 x 50)", (long long)after.bandwidth);
    CHECK(after.local_frac == 1 && before.local_frac < 0.35, "local %g -> %g", before.local_frac, after.local_frac);
    CHECK(after.profile <= 1.1 * natural.profile, "profile %g against the grid's %g", after.profile, natural.profile);
    CHECK(permuted_matches(&S, rp, cp, "shuffled grid"), "product");
    free(rp), free(cp);
    hspmv_csr_free(&R);
    hspmv_csr_free(&S);
    hspmv_csr_free(&A);
}

static void test_orders_on_shapes(void)
{
    hspmv_csr A, B;
    /* non-symmetric square, rectangular both ways, long rows (the heap sort) */
    CHECK(tl_csr_random(&A, 300, 300, NULL, 6, 0, 11) == HSPMV_OK, "random");
    check_orders(&A, "random 300x300 (non-symmetric)");
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 120, 70, NULL, 5, 2, 12) == HSPMV_OK, "rect");
    check_orders(&A, "random 120x70");
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 50, 400, NULL, 9, 3, 13) == HSPMV_OK, "rect");
    check_orders(&A, "random 50x400");
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 200, 200, NULL, 150, 0, 14) == HSPMV_OK, "long rows");
    check_orders(&A, "random 200x200, 150 a row");
    hspmv_csr_free(&A);
    /* a path (one component, bandwidth 1), shuffled */
    CHECK(grid2d(&A, 500, 1) == HSPMV_OK && shuffle(&A, &B, 5) == HSPMV_OK, "path");
    check_orders(&B, "shuffled path");
    hspmv_csr_free(&A);
    hspmv_csr_free(&B);
    /* empty rows and columns: every third row emptied */
    CHECK(tl_csr_random(&A, 90, 90, NULL, 4, 0, 15) == HSPMV_OK, "holes");
    {
        int64_t w = 0;
        for (int64_t i = 0; i < A.nrows; i++) {
            int64_t a = A.rowptr[i], b = A.rowptr[i + 1];
            A.rowptr[i] = w;
            if (i % 3 == 1) continue;
            for (int64_t k = a; k < b; k++)
                if (A.colind[k] % 5 != 2) A.colind[w] = A.colind[k], A.val[w++] = A.val[k]; /* columns 2, 7, ... empty */
        }
        A.rowptr[A.nrows] = w;
        A.nnz = w;
    }
    check_orders(&A, "empty rows and columns");
    hspmv_csr_free(&A);
    /* one row, one column, a 1 x 1 */
    CHECK(tl_csr_random(&A, 1, 40, NULL, 7, 0, 16) == HSPMV_OK, "one row");
    check_orders(&A, "1x40");
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 40, 1, NULL, 1, 0, 17) == HSPMV_OK, "one column");
    check_orders(&A, "40x1");
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 1, 1, NULL, 1, 0, 18) == HSPMV_OK, "1x1");
    check_orders(&A, "1x1");
    hspmv_csr_free(&A);
    /* zero entries; 0 x 0 */
    CHECK(tl_csr_random(&A, 30, 30, NULL, 0, 0, 19) == HSPMV_OK && A.nnz == 0, "no entries");
    check_orders(&A, "30x30, no entries");
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 0, 0, NULL, 0, 0, 20) == HSPMV_OK, "0x0");
    check_orders(&A, "0x0");
    hspmv_csr_free(&A);
}

/* Disconnected: four shuffled grids side by side (block diagonal) and
   isolated nodes; RCM keeps each component contiguous. */
static void test_disconnected(void)
{
    hspmv_csr G, D, S;
    CHECK(grid2d(&G, 12, 9) == HSPMV_OK, "grid");
    int64_t ng = G.nrows, n = 4 * ng + 10, e = 0;
    memset(&D, 0, sizeof(D));
    D.nrows = D.ncols = n;
    D.rowptr = malloc(((size_t)n + 1) * sizeof(int64_t));
    D.colind = malloc((size_t)(4 * G.nnz + 10) * sizeof(int32_t));
    D.val = malloc((size_t)(4 * G.nnz + 10) * sizeof(hspmv_real));
    D.rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t b = i / ng;
        if (b < 4)
            for (int64_t k = G.rowptr[i % ng]; k < G.rowptr[i % ng + 1]; k++)
                D.colind[e] = (int32_t)(G.colind[k] + b * ng), D.val[e++] = G.val[k];
        else D.colind[e] = (int32_t)i, D.val[e++] = 2; /* isolated, diagonal only */
        D.rowptr[i + 1] = e;
    }
    D.nnz = e;
    CHECK(shuffle(&D, &S, 9) == HSPMV_OK, "shuffle");
    check_orders(&S, "four grids and 10 isolated nodes, shuffled");
    int64_t *rp = malloc((size_t)n * sizeof(int64_t)), *cp = malloc((size_t)n * sizeof(int64_t));
    hspmv_csr R;
    hspmv_order_stats st;
    CHECK(hspmv_order_rcm(&S, rp, cp, NULL) == HSPMV_OK && hspmv_order_apply(&S, rp, cp, 0, &R, NULL) == HSPMV_OK, "rcm");
    hspmv_order_measure(&R, 1, 0, &st);
    CHECK(st.bandwidth <= 2 * 9 + 1, "components kept apart: bandwidth %lld", (long long)st.bandwidth);
    free(rp), free(cp);
    hspmv_csr_free(&R);
    hspmv_csr_free(&S);
    free(D.rowptr), free(D.colind), free(D.val);
    hspmv_csr_free(&G);
}

/* A non-symmetric pattern: the symmetrised graph joins i and j when
   either entry is there (a one-sided chain is still one component). */
static void test_one_sided_chain(void)
{
    hspmv_csr A, S;
    int64_t n = 300;
    memset(&A, 0, sizeof(A));
    A.nrows = A.ncols = n;
    A.rowptr = malloc(((size_t)n + 1) * sizeof(int64_t));
    A.colind = malloc((size_t)(2 * n) * sizeof(int32_t));
    A.val = malloc((size_t)(2 * n) * sizeof(hspmv_real));
    int64_t e = 0;
    A.rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        A.colind[e] = (int32_t)i, A.val[e++] = 3;
        if (i + 1 < n) A.colind[e] = (int32_t)(i + 1), A.val[e++] = -1; /* upper only */
        A.rowptr[i + 1] = e;
    }
    A.nnz = e;
    CHECK(shuffle(&A, &S, 21) == HSPMV_OK, "shuffle");
    int64_t *rp = malloc((size_t)n * sizeof(int64_t)), *cp = malloc((size_t)n * sizeof(int64_t));
    hspmv_csr R;
    hspmv_order_stats st;
    CHECK(hspmv_order_rcm(&S, rp, cp, NULL) == HSPMV_OK && hspmv_order_apply(&S, rp, cp, 0, &R, NULL) == HSPMV_OK, "rcm");
    hspmv_order_measure(&R, 1, 0, &st);
    CHECK(st.bandwidth == 1, "the chain back in a line: bandwidth %lld", (long long)st.bandwidth);
    CHECK(permuted_matches(&S, rp, cp, "one-sided chain"), "product");
    free(rp), free(cp);
    hspmv_csr_free(&R);
    hspmv_csr_free(&S);
    free(A.rowptr), free(A.colind), free(A.val);
}

/* The graph reads A's own arrays exactly when A's pattern is symmetric:
   a 2D grid is; the same grid with one entry moved (its mirror missing, or
   two mirrors swapped so the counts still agree) is not. */
static void test_symmetric_pattern_told(void)
{
    hspmv_csr A;
    hspmv_graph G;
    CHECK(grid2d(&A, 40, 40) == HSPMV_OK, "grid");
    CHECK(hspmv_graph_symmetric(&A, 0, &G, NULL) == HSPMV_OK && G.own_adj == NULL, "the grid read as it is");
    hspmv_graph_free(&G);
    /* row 500's right neighbour becomes 502: (500, 502) has no mirror, (501, 500) none either */
    int64_t at = A.rowptr[500] + 3;
    CHECK(A.colind[at] == 501, "the entry to move");
    A.colind[at] = 502;
    CHECK(hspmv_graph_symmetric(&A, 0, &G, NULL) == HSPMV_OK && G.own_adj != NULL, "one entry moved: A + A^T built");
    int sym = 1; /* and that graph is symmetric: every edge has its mirror */
    for (int64_t v = 0; v < G.n && sym; v++)
        for (int64_t q = G.beg[v]; q < G.end[v]; q++) {
            int64_t u = G.adj[q], found = 0;
            for (int64_t t = G.beg[u]; t < G.end[u]; t++) found |= G.adj[t] == v;
            sym &= (int)found;
        }
    CHECK(sym, "A + A^T's graph has every mirror");
    hspmv_graph_free(&G);
    hspmv_csr_free(&A);
}

/* auto and expander graphs: random columns reach every node in a few
   levels, so auto gives RCM up after its first search and keeps the
   order; rcm asked still orders them; a shuffled 2D grid (levels about
   one row wide) is still ordered by auto. */
static void test_auto_skips_rcm_on_expanders(void)
{
    hspmv_csr R, A, S;
    hspmv_order_choice C;
    hspmv_csr B;
    hspmv_error e;
    CHECK(tl_csr_wide_random(&R, 20000, 20000, 4, 17) == HSPMV_OK, "random");
    CHECK(hspmv_order_choose(&R, HSPMV_REORDER_AUTO, "reorder_window=64", 2, &C, &B, &e) == HSPMV_OK, "%s", e.msg);
    CHECK(C.used == HSPMV_REORDER_NONE && !C.tried && !C.rp && B.nnz == 0 && C.after.local_frac == C.before.local_frac,
          "random at window 64: used %d, tried %d", C.used, C.tried);
    CHECK(hspmv_order_choose(&R, HSPMV_REORDER_RCM, "reorder_window=64", 2, &C, &B, &e) == HSPMV_OK && C.tried &&
              C.used == HSPMV_REORDER_RCM, "rcm asked: computed all the same");
    hspmv_free(C.rp), hspmv_free(C.cp), hspmv_csr_free(&B);
    hspmv_csr_free(&R);
    CHECK(grid2d(&A, 60, 60) == HSPMV_OK && shuffle(&A, &S, 4) == HSPMV_OK, "shuffled grid");
    CHECK(hspmv_order_choose(&S, HSPMV_REORDER_AUTO, "reorder_window=64", 2, &C, &B, &e) == HSPMV_OK, "%s", e.msg);
    CHECK(C.tried && C.used == HSPMV_REORDER_RCM && C.after.local_frac == 1, "shuffled grid: used %d, tried %d, local %g",
          C.used, C.tried, C.after.local_frac);
    hspmv_free(C.rp), hspmv_free(C.cp), hspmv_csr_free(&B);
    hspmv_csr_free(&S);
    hspmv_csr_free(&A);
}

int main(void)
{
    RUN(test_check_permutations);
    RUN(test_measure);
    RUN(test_rcm_shuffled_grid);
    RUN(test_orders_on_shapes);
    RUN(test_disconnected);
    RUN(test_one_sided_chain);
    RUN(test_symmetric_pattern_told);
    RUN(test_auto_skips_rcm_on_expanders);
    CHECK_DONE();
}
