/* test_dist_dot.c — the product that also gives x'y (CG's p'q,
   hspmv_dist_spmv_dot): y the same bits as hspmv_dist_spmv's, the sum over
   the ranks within the long-double reference's bound, at every partition,
   both halo modes and with the owned block in pieces; fused where the
   rows are made by the owned block alone; a non-square matrix refused
   alike on every rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "csr.h"
#include "dist.h"
#include "dist_dot.h"
#include "mpitest.h"
#include "testlib.h"

static int me, P;

/* Rank 0: an n x n band of half-width h, random values (diagonal 2h + 1). */
static int band(hspmv_csr *A, int64_t n, int64_t h, uint64_t seed)
{
    int64_t z = 0;
    A->nrows = A->ncols = n;
    A->nnz = n * (2 * h + 1);
    A->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    A->colind = hspmv_alloc_array((size_t)A->nnz, sizeof(int32_t));
    A->val = hspmv_alloc_array((size_t)A->nnz, sizeof(hspmv_real));
    if (!A->rowptr || !A->colind || !A->val) return HSPMV_ERR_NOMEM;
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = i - h; j <= i + h; j++)
            if (j >= 0 && j < n) {
                A->colind[z] = (int32_t)j;
                A->val[z++] = (hspmv_real)(j == i ? 2 * h + 1 : tl_uniform(&seed, -1, 1));
            }
        A->rowptr[i + 1] = z;
    }
    A->nnz = z;
    return HSPMV_OK;
}

/* Rank 0: x'(A x) in long double and its bound: each y_i within its row's
   bound (docs/design.md), then the n products summed in double. */
static void reference(const hspmv_csr *A, const hspmv_real *x, long double *dot, long double *bound)
{
    long double s = 0, b = 0, mag = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        long double yi = 0, ai = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            yi += (long double)A->val[k] * x[A->colind[k]];
            ai += fabsl((long double)A->val[k] * x[A->colind[k]]);
        }
        s += (long double)x[i] * yi;
        b += fabsl((long double)x[i]) * tl_row_bound(A, x, i);
        mag += fabsl((long double)x[i]) * ai;
    }
    *dot = s;
    *bound = b + 2.0L * (long double)(A->nrows + 1) * 1.1102230246251565e-16L * mag + 1e-300L;
}

/* One layout: 1 on every rank when y matches hspmv_dist_spmv bit for bit
   and the summed x'y the reference; *fused: every rank's hspmv_dist_dot_fused. */
static int check_layout(const hspmv_csr *A, int part, int halo, const char *test, const char *what, int *fused)
{
    hspmv_opts o;
    mt_opts(&o);
    o.partition = part;
    o.halo = halo;
    mt_test_env(test);
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, &D, &e);
    mt_test_env(NULL);
    if (rc) {
        if (me == 0) fprintf(stderr, "  %s: create failed: %s\n", what, e.msg);
        return 0;
    }
    int64_t n = D->nrows, ml = D->nrows_local;
    hspmv_real *x = NULL, *xl = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
    hspmv_real *y1 = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1), *y2 = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    if (me == 0) {
        x = hspmv_alloc_array((size_t)n + 1, sizeof(hspmv_real));
        tl_fill(x, n, 11);
    }
    int ok = hspmv_dist_scatter(D, HSPMV_VEC_COLS, x, xl, &e) == HSPMV_OK;
    ok &= hspmv_dist_spmv(D, xl, y1, &e) == HSPMV_OK;
    double dot = NAN, sum = 0;
    for (int r = 0; r < 2; r++) { /* twice: the second call reuses the exchange's buffers */
        tl_fill_nan(y2, ml);
        ok &= hspmv_dist_spmv_dot(D, xl, y2, &dot, &e) == HSPMV_OK;
    }
    ok &= tl_same_bits(y1, y2, ml);
    MPI_Allreduce(&dot, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        long double ref, bound;
        reference(A, x, &ref, &bound);
        if (!(fabsl((long double)sum - ref) <= bound)) {
            fprintf(stderr, "  %s: x'Ax = %.17g, reference %.17Lg, bound %.3Lg\n", what, sum, ref, bound);
            ok = 0;
        }
    }
    int f = hspmv_dist_dot_fused(D);
    MPI_Allreduce(&f, fused, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    hspmv_free(x);
    hspmv_free(xl);
    hspmv_free(y1);
    hspmv_free(y2);
    hspmv_dist_destroy(&D);
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all && me == 0) fprintf(stderr, "  %s (%d ranks) wrong\n", what, P);
    return all;
}

/* Every partition, p2p and node, whole and in pieces; the node halo also
   with its blocks' rows compressed and nothing shared, folded or merged,
   gathering direct and by copy (where the sum rides in the product). */
static void every_layout(const hspmv_csr *A, const char *name, int banded)
{
    static const char *tests[] = {"", "pieces=3,dist_pieces=3", "owned_share_tail=0,merge=0,fold=0,gather=direct",
                                  "owned_share_tail=0,merge=0,fold=0,gather=copy,pieces=2"};
    for (int part = 0; part < 3; part++)
        for (int h = 0; h < 2; h++)
            for (int t = 0; t < (h ? 2 : 4); t++) {
                char w[200];
                int fused = 0, halo = h ? HSPMV_HALO_P2P : HSPMV_HALO_NODE;
                snprintf(w, sizeof(w), "%s, partition %d, halo %s, %s", name, part, h ? "p2p" : "node",
                         t ? tests[t] : "whole");
                CHECK(check_layout(A, part, halo, tests[t], w, &fused), "%s", w);
                /* one rank, or on a long band (few rows with ghosts, compressed) p2p or the node halo
                   without shared, folded or merged rows: the owned block and compressed rows make every row */
                if (P == 1 || (banded && (h || t >= 2))) CHECK(fused, "%s: the sum should ride in the product", w);
            }
}

static void random_and_banded_matrices(void)
{
    hspmv_csr A = {0}, B = {0};
    int rc = 0;
    if (me == 0) {
        rc |= tl_csr_random(&A, 5000, 5000, NULL, 9, 3, 5);
        rc |= band(&B, 6000, 4, 3);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(rc == 0, "test matrices not made");
    if (rc) return;
    every_layout(&A, "random 5000 x 5000, 9 a row", 0);
    every_layout(&B, "band 6000, half-width 4", 1);
    hspmv_csr_free(&A);
    hspmv_csr_free(&B);
}

static void bundled_matrices(void)
{
    static const char *files[] = {"matrices/lap3d_12.mtx", "matrices/fem3d_6.mtx"};
    for (int i = 0; i < 2; i++) {
        hspmv_csr A = {0};
        int rc = me == 0 ? tl_read_csr(files[i], &A) : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(rc == 0, "%s unreadable", files[i]);
        if (!rc) every_layout(&A, files[i], 0); /* small: many rows have ghosts, not always compressed */
        hspmv_csr_free(&A);
    }
}

static void rectangular_refused_on_every_rank(void)
{
    hspmv_csr A = {0};
    int rc = me == 0 ? tl_csr_random(&A, 300, 200, NULL, 4, 0, 9) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(rc == 0, "matrix not made");
    hspmv_opts o;
    mt_opts(&o);
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    if (!rc && hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e) == HSPMV_OK) {
        hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        double dot = 0;
        tl_fill(x, D->ncols_local, 3);
        e = (hspmv_error){0, ""};
        rc = hspmv_dist_spmv_dot(D, x, y, &dot, &e);
        CHECK(rc == HSPMV_ERR_ARG, "a 300 x 200 matrix: status %d, expected HSPMV_ERR_ARG", rc);
        CHECK(!mt_errors_differ(rc, e.msg, 0), "the refusal differs between ranks: %s", e.msg);
        CHECK(hspmv_dist_dot_fused(D) == 0, "a rectangular matrix reported fused");
        hspmv_free(x);
        hspmv_free(y);
        hspmv_dist_destroy(&D);
    } else {
        CHECK(0, "create failed: %s", e.msg);
    }
    CHECK(hspmv_dist_spmv_dot(NULL, NULL, NULL, NULL, &e) == HSPMV_ERR_ARG, "a NULL matrix not refused");
    hspmv_csr_free(&A);
}

MT_MAIN(NULL, random_and_banded_matrices, bundled_matrices, rectangular_refused_on_every_rank)
