/* test_transpose.c — Y = A^T X on distributed matrices (hspmv_dist_spmm with
   HSPMV_TRANSPOSE): square and rectangular, random columns and a 2D stencil
   (folded boundary rows in halo "node"), halo "p2p" and "node" with every
   gather (direct, copy, shared rows) and the owned columns merged or not,
   k = 1, 3 row-major and column-major and 2, 8, 17 row-major, against
   the long-double reference of the whole matrix's transpose; successive
   products give the same bits, plain ones between them too; a failed
   allocation on one rank in the first call is every rank's error, and the
   next call works; the transposed matrix keeps a forced format and shows
   in the view. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpitest.h"
#include "testlib.h"
#include "dist.h" /* HSPMV_MPI_REAL, D->tr */
#include "node.h" /* the transposed matrix's copies of x */

static int me, P;

/* The whole matrix, the same on every rank. kind 0: random columns, n x m;
   kind 1: the 5-point stencil of a g x g grid (n = m = g*g), random values. */
static void whole(hspmv_csr *A, int kind, int64_t n, int64_t m, uint64_t seed)
{
    if (kind == 0) {
        tl_csr_random(A, n, m, NULL, 5, 0, seed);
        return;
    }
    int64_t g = 1;
    while ((g + 1) * (g + 1) <= n) g++;
    n = g * g;
    A->nrows = A->ncols = n;
    A->rowptr = hspmv_malloc(sizeof(int64_t) * (size_t)(n + 1));
    A->colind = hspmv_malloc(sizeof(int32_t) * (size_t)(5 * n));
    A->val = hspmv_malloc(sizeof(hspmv_real) * (size_t)(5 * n));
    uint64_t s = seed;
    int64_t k = 0;
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i / g, c = i % g;
        int64_t nb[5] = {r > 0 ? i - g : -1, c > 0 ? i - 1 : -1, i, c < g - 1 ? i + 1 : -1, r < g - 1 ? i + g : -1};
        for (int d = 0; d < 5; d++)
            if (nb[d] >= 0) {
                A->colind[k] = (int32_t)nb[d];
                A->val[k++] = (hspmv_real)tl_uniform(&s, -1, 1);
            }
        A->rowptr[i + 1] = k;
    }
    A->nnz = k;
}

/* At = A^T, for the reference (column by column). */
static void transpose_slow(const hspmv_csr *A, hspmv_csr *At)
{
    At->nrows = A->ncols;
    At->ncols = A->nrows;
    At->nnz = A->nnz;
    At->rowptr = hspmv_malloc(sizeof(int64_t) * (size_t)(A->ncols + 1));
    At->colind = hspmv_malloc(sizeof(int32_t) * (size_t)(A->nnz + 1));
    At->val = hspmv_malloc(sizeof(hspmv_real) * (size_t)(A->nnz + 1));
    int64_t q = 0;
    At->rowptr[0] = 0;
    for (int64_t j = 0; j < A->ncols; j++) {
        for (int64_t i = 0; i < A->nrows; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                if (A->colind[k] == j) {
                    At->colind[q] = (int32_t)i;
                    At->val[q++] = A->val[k];
                }
        At->rowptr[j + 1] = q;
    }
}

/* This rank's rows of A (an even split) as a distributed matrix. */
static int create(const hspmv_csr *A, const hspmv_opts *o, hspmv_dist **D, hspmv_error *e)
{
    int64_t b = A->nrows * me / P, en = A->nrows * (me + 1) / P, z = A->rowptr[en] - A->rowptr[b];
    int64_t *rp = malloc(sizeof(int64_t) * (size_t)(en - b + 1)), *ci = malloc(sizeof(int64_t) * (size_t)(z + 1));
    for (int64_t i = b; i <= en; i++) rp[i - b] = A->rowptr[i] - A->rowptr[b];
    for (int64_t k = 0; k < z; k++) ci[k] = A->colind[A->rowptr[b] + k];
    int rc = hspmv_dist_create(MPI_COMM_WORLD, en - b, A->ncols, -1, rp, ci, A->val + A->rowptr[b], o, D, e);
    free(rp);
    free(ci);
    return rc;
}

/* Y = A^T X for k vectors on D against the reference At (whole), every
   vector gathered on every rank. Returns the failures (printed). */
static int check_product(hspmv_dist *D, const hspmv_csr *At, int k, int colmajor, const char *what)
{
    int64_t *rs = malloc(sizeof(int64_t) * (size_t)(P + 1)), *cs = malloc(sizeof(int64_t) * (size_t)(P + 1));
    hspmv_dist_get_ranges(D, rs, cs);
    int64_t m = At->ncols, n = At->nrows, nr = rs[me + 1] - rs[me], nc = cs[me + 1] - cs[me];
    hspmv_real *x = malloc(sizeof(hspmv_real) * (size_t)(m * k + 1)), *y = malloc(sizeof(hspmv_real) * (size_t)(n + 1));
    hspmv_real *X = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, k), *Y = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, k);
    int *cnt = malloc(sizeof(int) * (size_t)P), *dsp = malloc(sizeof(int) * (size_t)P);
    hspmv_real *yl = malloc(sizeof(hspmv_real) * (size_t)(nc + 1));
    int bad = 0;
    hspmv_error e;
    tl_fill(x, m * k, 77 + (uint64_t)k); /* vector j: x[j*m .. j*m+m) */
    for (int j = 0; j < k; j++)
        for (int64_t i = 0; i < nr; i++) X[colmajor ? j * nr + i : i * k + j] = x[j * m + rs[me] + i];
    int rc = hspmv_dist_spmm(D, HSPMV_TRANSPOSE | (colmajor ? HSPMV_COL_MAJOR : 0), k, X, Y, &e);
    if (rc) {
        fprintf(stderr, "  rank %d: %s: %s\n", me, what, e.msg);
        bad++;
    }
    for (int q = 0; q < P; q++) {
        cnt[q] = (int)(cs[q + 1] - cs[q]);
        dsp[q] = (int)cs[q];
    }
    for (int j = 0; !rc && j < k; j++) {
        char w[300];
        for (int64_t i = 0; i < nc; i++) yl[i] = Y[colmajor ? j * nc + i : i * k + j];
        MPI_Allgatherv(yl, (int)nc, HSPMV_MPI_REAL, y, cnt, dsp, HSPMV_MPI_REAL, MPI_COMM_WORLD);
        snprintf(w, sizeof(w), "%s k=%d %s vector %d", what, k, colmajor ? "col-major" : "row-major", j);
        bad += me == 0 && !tl_matches_ref(At, x + j * m, y, w);
    }
    hspmv_free(X);
    hspmv_free(Y);
    free(x);
    free(y);
    free(yl);
    free(rs);
    free(cs);
    free(cnt);
    free(dsp);
    return bad;
}

/* Every matrix, halo mode, gather and k. */
static void transposed_product_matches_ref(void)
{
    static const struct { int kind; int64_t n, m; } mats[] = {{0, 90, 90}, {1, 576, 576}, {0, 70, 110}, {0, 110, 70}};
    static const struct { int halo; const char *test; } modes[] = {
        {HSPMV_HALO_P2P, NULL},
        {HSPMV_HALO_NODE, "gather=direct,merge=0"},
        {HSPMV_HALO_NODE, "gather=copy,merge=0"},
        {HSPMV_HALO_NODE, "gather=direct,merge=1"},
        {HSPMV_HALO_NODE, "gather=copy,merge=1"},
        {HSPMV_HALO_NODE, "gather=share,merge=1"},
        {HSPMV_HALO_NODE, "merge=0,replica=1"},
    };
    int cases = 0;
    for (int a = 0; a < 4; a++) {
        hspmv_csr A, At;
        whole(&A, mats[a].kind, mats[a].n, mats[a].m, 5 + (uint64_t)a);
        transpose_slow(&A, &At);
        for (int md = 0; md < (int)(sizeof(modes) / sizeof(modes[0])); md++) {
            /* every set-up on the stencil (folded rows); four on the random square, two on the rectangular */
            if (mats[a].kind == 0 && md != 0 && md != 2 && md != 5 && (mats[a].n != mats[a].m || md != 3)) continue;
            hspmv_opts o;
            hspmv_dist *D = NULL;
            hspmv_error e;
            char what[200];
            mt_opts(&o);
            o.halo = modes[md].halo;
            mt_test_env(modes[md].test);
            int rc = create(&A, &o, &D, &e);
            mt_test_env(NULL);
            snprintf(what, sizeof(what), "%s %lldx%lld halo %s %s", mats[a].kind ? "stencil" : "random",
                     (long long)A.nrows, (long long)A.ncols, o.halo == HSPMV_HALO_P2P ? "p2p" : "node",
                     modes[md].test ? modes[md].test : "");
            CHECK(rc == HSPMV_OK, "%s: create: %s", what, e.msg);
            if (rc) continue;
            CHECK(check_product(D, &At, 1, 0, what) == 0, "%s", what);
            CHECK(check_product(D, &At, 1, 0, what) == 0, "%s, again", what);
            CHECK(check_product(D, &At, 3, 0, what) == 0, "%s", what);
            CHECK(check_product(D, &At, 3, 1, what) == 0, "%s", what);
            if (md == 0 || md == 3)
                for (int kk = 0; kk < 3; kk++) { /* 2: the exact-width tail alone; 8: whole lines; 17: both */
                    static const int ks[3] = {2, 8, 17};
                    CHECK(check_product(D, &At, ks[kk], 0, what) == 0, "%s, k = %d", what, ks[kk]);
                }
            hspmv_dist_destroy(&D);
            cases++;
        }
        hspmv_csr_free(&A);
        hspmv_csr_free(&At);
    }
    if (me == 0) printf("  %d matrix x halo cases\n", cases);
}

/* Successive transposed products give the same bits (a fixed summation
   order), also with plain products of the same matrix between them, and
   each reads this call's x (the transposed matrix's own window and halo,
   beside the matrix's): call j's x is x * 2^j, so its y must be the
   first y * 2^j exactly. The plain products are checked against A's
   reference; the first transposed y against At's. */
static void repeated_products_same_bits_and_interleaved(void)
{
    static const struct { int kind; int64_t n, m; } mats[] = {{0, 90, 90}, {1, 576, 576}, {0, 70, 110}};
    for (int a = 0; a < 3; a++)
        for (int halo = 0; halo < 2; halo++) {
            hspmv_csr A, At;
            hspmv_opts o;
            hspmv_dist *D = NULL;
            hspmv_error e;
            char what[200];
            whole(&A, mats[a].kind, mats[a].n, mats[a].m, 31 + (uint64_t)a);
            transpose_slow(&A, &At);
            mt_opts(&o);
            o.halo = halo ? HSPMV_HALO_P2P : HSPMV_HALO_NODE;
            snprintf(what, sizeof(what), "%s %lldx%lld halo %s", mats[a].kind ? "stencil" : "random",
                     (long long)A.nrows, (long long)A.ncols, halo ? "p2p" : "node");
            int rc = create(&A, &o, &D, &e);
            CHECK(rc == HSPMV_OK, "%s: create: %s", what, e.msg);
            if (rc) {
                hspmv_csr_free(&A);
                hspmv_csr_free(&At);
                continue;
            }
            int64_t *rs = malloc(sizeof(int64_t) * (size_t)(P + 1)), *cs = malloc(sizeof(int64_t) * (size_t)(P + 1));
            hspmv_dist_get_ranges(D, rs, cs);
            int64_t nr = rs[me + 1] - rs[me], nc = cs[me + 1] - cs[me];
            hspmv_real *X = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1), *Y = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
            hspmv_real *xc = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *yr = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
            hspmv_real *x0 = malloc(sizeof(hspmv_real) * (size_t)(nr + 1)), *y0 = malloc(sizeof(hspmv_real) * (size_t)(nc + 1));
            hspmv_real *xg = malloc(sizeof(hspmv_real) * (size_t)(A.ncols + A.nrows));
            hspmv_real *yg = malloc(sizeof(hspmv_real) * (size_t)(A.ncols + A.nrows));
            int *cnt = malloc(sizeof(int) * (size_t)P), *dsp = malloc(sizeof(int) * (size_t)P);
            int differ = 0, fails = 0;
            tl_fill(xg, A.nrows > A.ncols ? A.nrows : A.ncols, 123 + (uint64_t)a);
            for (int64_t i = 0; i < nr; i++) x0[i] = xg[rs[me] + i];
            for (int64_t i = 0; i < nc; i++) xc[i] = xg[cs[me] + i];
            for (int j = 0; j < 8; j++) {
                for (int64_t i = 0; i < nr; i++) X[i] = ldexp(x0[i], j);
                if (hspmv_dist_spmm(D, HSPMV_TRANSPOSE, 1, X, Y, &e)) fails++;
                if (j == 0) memcpy(y0, Y, sizeof(hspmv_real) * (size_t)nc);
                for (int64_t i = 0; i < nc; i++) differ += Y[i] != ldexp(y0[i], j);
                if (j % 3 == 1) { /* a plain product between, checked */
                    if (hspmv_dist_spmv(D, xc, yr, &e)) fails++;
                    for (int q = 0; q < P; q++) {
                        cnt[q] = (int)(rs[q + 1] - rs[q]);
                        dsp[q] = (int)rs[q];
                    }
                    MPI_Allgatherv(yr, (int)nr, HSPMV_MPI_REAL, yg, cnt, dsp, HSPMV_MPI_REAL, MPI_COMM_WORLD);
                    if (me == 0 && !tl_matches_ref(&A, xg, yg, what)) fails++;
                }
            }
            for (int q = 0; q < P; q++) {
                cnt[q] = (int)(cs[q + 1] - cs[q]);
                dsp[q] = (int)cs[q];
            }
            MPI_Allgatherv(y0, (int)nc, HSPMV_MPI_REAL, yg, cnt, dsp, HSPMV_MPI_REAL, MPI_COMM_WORLD);
            if (me == 0 && !tl_matches_ref(&At, xg, yg, what)) fails++;
            CHECK(fails == 0, "%s: %d failed products or checks", what, fails);
            /* X in a slot of A's window (square: the same parts) is read in
               place by the transposed matrix's node product, never copied */
            if (A.nrows == A.ncols && D->halo == HSPMV_HALO_NODE && hspmv_node_slot_of(D->node, X) >= 0 && D->tr &&
                D->tr->halo == HSPMV_HALO_NODE)
                CHECK(D->tr->node->lend && D->tr->node->copies == 0, "%s: x copied %lld times (lent %d)", what,
                      (long long)D->tr->node->copies, D->tr->node->lend != NULL);
            CHECK(differ == 0, "%s: %d entries differ from the first product's bits (times 2^j)", what, differ);
            hspmv_free(X);
            hspmv_free(Y);
            hspmv_free(xc);
            hspmv_free(yr);
            free(x0);
            free(y0);
            free(xg);
            free(yg);
            free(cnt);
            free(dsp);
            free(rs);
            free(cs);
            hspmv_dist_destroy(&D);
            hspmv_csr_free(&A);
            hspmv_csr_free(&At);
        }
}

/* The n-th allocation of the first transposed call fails on the last
   rank: the same NOMEM on every rank, nobody hangs, the matrix stays
   usable and a later call gives the right result; and the check can fail. */
static void first_call_allocation_failure_is_every_ranks_error(void)
{
    hspmv_csr A, At;
    whole(&A, 1, 100, 100, 9);
    transpose_slow(&A, &At);
    for (int halo = 0; halo < 2; halo++) {
        hspmv_opts o;
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        mt_opts(&o);
        o.halo = halo ? HSPMV_HALO_P2P : HSPMV_HALO_NODE;
        if (create(&A, &o, &D, &e) != HSPMV_OK) {
            CHECK(0, "create: %s", e.msg);
            continue;
        }
        hspmv_real *X = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1), *Y = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
        int failures = 0, mismatches = 0, n, rc = 1;
        for (n = 1; n < 200 && rc; n++) {
            if (me == P - 1) hspmv_alloc_fail_after(n);
            rc = hspmv_dist_spmm(D, HSPMV_TRANSPOSE, 1, X, Y, &e);
            hspmv_alloc_fail_after(0);
            mismatches += mt_errors_differ(rc, e.msg, rc == 0);
            if (rc) {
                failures++;
                CHECK(rc == HSPMV_ERR_NOMEM, "allocation %d: rc %d: %s", n, rc, e.msg);
            }
        }
        if (me == 0) printf("  halo %s: allocation failure injected at %d points before success\n",
                            halo ? "p2p" : "node", failures);
        CHECK(mismatches == 0 && failures >= 3 && !rc, "%d mismatches, %d failures, rc %d", mismatches, failures, rc);
        hspmv_free(X);
        hspmv_free(Y);
        CHECK(check_product(D, &At, 1, 0, "after the failures") == 0, "after the failures");
        CHECK(check_product(D, &At, 2, 0, "after the failures") == 0, "after the failures, k = 2");
        hspmv_dist_destroy(&D);
    }
    /* a wrong reference is caught */
    At.val[0] += 1;
    hspmv_opts o;
    hspmv_dist *D = NULL;
    mt_opts(&o);
    if (create(&A, &o, &D, NULL) == HSPMV_OK) {
        if (me == 0) fprintf(stderr, "    (mismatches expected below)\n");
        int bad = check_product(D, &At, 1, 0, "perturbed on purpose"), any;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(any > 0, "a perturbed reference passed");
    }
    hspmv_dist_destroy(&D);
    hspmv_csr_free(&A);
    hspmv_csr_free(&At);
}

/* The transposed matrix is made with the matrix's forced format (CSR here,
   which AUTO would not pick for the stencil) and hspmv_dist_view shows it
   once it exists, not before; its product still matches the reference. */
static void transposed_matrix_keeps_format_and_is_viewed(void)
{
    hspmv_csr A, At;
    hspmv_opts o;
    hspmv_dist *D = NULL;
    hspmv_error e;
    whole(&A, 1, 900, 900, 77);
    transpose_slow(&A, &At);
    mt_opts(&o);
    o.format = HSPMV_FORMAT_CSR;
    int rc = create(&A, &o, &D, &e);
    CHECK(rc == HSPMV_OK, "create: %s", e.msg);
    if (!rc) {
        char *before = NULL, *after = NULL;
        size_t nb = 0, na = 0;
        FILE *f = open_memstream(&before, &nb);
        hspmv_dist_view(D, f);
        fclose(f);
        CHECK(check_product(D, &At, 1, 0, "format csr") == 0, "format csr");
        f = open_memstream(&after, &na);
        hspmv_dist_view(D, f);
        fclose(f);
        if (me == 0) {
            CHECK(!strstr(before, "the transposed matrix"), "the view shows a transposed matrix before one is made");
            CHECK(strstr(after, "the transposed matrix"), "the view does not show the transposed matrix");
        }
        hspmv_dist_info in = {0};
        if (D->tr) hspmv_dist_get_info(D->tr, &in);
        int others = 0;
        for (int k = 0; k < HSPMV_NFORMATS; k++) others += k != HSPMV_FORMAT_CSR ? in.format_counts[k] : 0;
        CHECK(D->tr && others == 0 && in.format_counts[HSPMV_FORMAT_CSR] > 0,
              "the transposed matrix's blocks are not all CSR (%d others)", others);
        free(before);
        free(after);
    }
    hspmv_dist_destroy(&D);
    hspmv_csr_free(&A);
    hspmv_csr_free(&At);
}

MT_MAIN(NULL, transposed_product_matches_ref, repeated_products_same_bits_and_interleaved,
        first_call_allocation_failure_is_every_ranks_error, transposed_matrix_keeps_format_and_is_viewed)
