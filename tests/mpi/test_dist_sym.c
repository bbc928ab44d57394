/* test_dist_sym.c — one triangle across ranks (opts.symmetric on a
   distributed matrix): which matrices take it, and y = A x, A^T x and the
   block product from it against the long-double reference at every
   partition and both halo modes; CG on it against CG on both triangles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csr.h"
#include "dist.h"
#include "dist_sym.h"
#include "mpitest.h"
#include "testlib.h"
#include "util.h"

static int me, P;

/* CSR from a dense n x n array (small test matrices). */
static int from_dense(const double *d, int64_t n, hspmv_csr *A)
{
    int64_t z = 0;
    for (int64_t k = 0; k < n * n; k++) z += d[k] != 0;
    A->nrows = A->ncols = n;
    A->nnz = z;
    A->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    A->colind = hspmv_alloc_array((size_t)(z ? z : 1), sizeof(int32_t));
    A->val = hspmv_alloc_array((size_t)(z ? z : 1), sizeof(hspmv_real));
    if (!A->rowptr || !A->colind || !A->val) return HSPMV_ERR_NOMEM;
    z = 0;
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < n; j++)
            if (d[i * n + j] != 0) {
                A->colind[z] = (int32_t)j;
                A->val[z++] = (hspmv_real)d[i * n + j];
            }
        A->rowptr[i + 1] = z;
    }
    return HSPMV_OK;
}

/* Rank 0: a random matrix with s = +1 symmetric, -1 skew-symmetric; a
   diagonal unless skew; rows in [e0, e1) empty (their mirrors too); a
   far entry per row every 7 rows so ghosts come from ranks further away. */
static void random_sym(hspmv_csr *A, int64_t n, int s, int64_t e0, int64_t e1, uint64_t seed)
{
    double *d = calloc((size_t)(n * n), sizeof(double));
    uint64_t st = seed;
    for (int64_t i = 0; i < n; i++) {
        if (i >= e0 && i < e1) continue;
        if (s > 0) d[i * n + i] = 4 + tl_uniform(&st, 0, 1);
        for (int64_t o = 1; o <= 3 && o <= i; o++) {
            int64_t j = i - o - (int64_t)(tl_next(&st) % 3);
            if (j < 0 || (j >= e0 && j < e1)) continue;
            double v = tl_uniform(&st, -1, 1);
            d[i * n + j] = v;
            d[j * n + i] = s * v;
        }
        if (i % 7 == 3 && i > n / 2) {
            int64_t j = (int64_t)(tl_next(&st) % (uint64_t)(n / 4));
            if (j < e0 || j >= e1) {
                d[i * n + j] = 0.5;
                d[j * n + i] = s * 0.5;
            }
        }
    }
    from_dense(d, n, A);
    free(d);
}

/* T = A^T on rank 0 (the reference's matrix for the transposed product). */
static void transpose_csr(const hspmv_csr *A, hspmv_csr *T)
{
    int64_t n = A->nrows;
    double *d = calloc((size_t)(n > 0 ? n * n : 1), sizeof(double));
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) d[A->colind[k] * n + i] += A->val[k];
    from_dense(d, n, T);
    free(d);
}

/* Makes rank 0's A with symmetric `ask` and halo `halo`; 1 on every rank
   when the kept triangle is `sign` and y = A x, A^T x (one vector and a
   block of 3, row-major) match the reference. */
static int sym_product(const hspmv_csr *A, int part, int halo, int ask, int sign, const char *what)
{
    hspmv_opts o;
    mt_opts(&o);
    o.partition = part;
    o.symmetric = ask;
    if (halo >= 0) o.halo = halo;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int ok = 1;
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, &o, &D, &e);
    if (rc) {
        if (me == 0) fprintf(stderr, "  %s: create failed: %s\n", what, e.msg);
        return 0;
    }
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    if (in.symmetric != sign) {
        if (me == 0) fprintf(stderr, "  %s: kept symmetric %d, expected %d\n", what, in.symmetric, sign);
        ok = 0;
    }
    ok &= (D->sym != NULL) == (sign != 0) && (!D->sym || D->halo == HSPMV_HALO_P2P);
    int64_t n = in.nrows, k = 3;
    hspmv_csr T = {0};
    hspmv_real *x = NULL, *y = NULL, *xj = NULL, *yj = NULL;
    hspmv_real *xl = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *yl = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    hspmv_real *Xl = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, (int)k), *Yl = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, (int)k);
    if (me == 0) {
        x = hspmv_alloc_array((size_t)n + 1, sizeof(hspmv_real));
        y = hspmv_alloc_array((size_t)n + 1, sizeof(hspmv_real));
        xj = hspmv_alloc_array((size_t)n + 1, sizeof(hspmv_real));
        yj = hspmv_alloc_array((size_t)n + 1, sizeof(hspmv_real));
        tl_fill(x, n, 7);
        transpose_csr(A, &T);
    }
    /* y = A x, twice (the second reuses the buffers) */
    ok &= hspmv_dist_scatter(D, HSPMV_VEC_COLS, x, xl, &e) == HSPMV_OK;
    for (int r = 0; r < 2; r++) ok &= hspmv_dist_spmv(D, xl, yl, &e) == HSPMV_OK;
    ok &= hspmv_dist_gather(D, HSPMV_VEC_ROWS, yl, y, &e) == HSPMV_OK;
    if (me == 0) ok &= tl_matches_ref(A, x, y, what);
    /* y = A^T x */
    ok &= hspmv_dist_spmm(D, HSPMV_TRANSPOSE, 1, xl, yl, &e) == HSPMV_OK;
    ok &= hspmv_dist_gather(D, HSPMV_VEC_ROWS, yl, y, &e) == HSPMV_OK;
    if (me == 0) ok &= tl_matches_ref(&T, x, y, what);
    /* Y = A X, row-major, vector j = x * (j + 1) */
    int64_t nl = D->ncols_local, ml = D->nrows_local;
    for (int64_t i = 0; i < nl; i++)
        for (int j = 0; j < k; j++) Xl[i * k + j] = xl[i] * (hspmv_real)(j + 1);
    ok &= hspmv_dist_spmm(D, 0, (int)k, Xl, Yl, &e) == HSPMV_OK;
    for (int j = 0; j < k; j++) {
        for (int64_t i = 0; i < ml; i++) yl[i] = Yl[i * k + j];
        ok &= hspmv_dist_gather(D, HSPMV_VEC_ROWS, yl, yj, &e) == HSPMV_OK;
        if (me == 0) {
            for (int64_t i = 0; i < n; i++) xj[i] = x[i] * (hspmv_real)(j + 1);
            ok &= tl_matches_ref(A, xj, yj, what);
        }
    }
    hspmv_free(x);
    hspmv_free(y);
    hspmv_free(xj);
    hspmv_free(yj);
    hspmv_free(xl);
    hspmv_free(yl);
    hspmv_free(Xl);
    hspmv_free(Yl);
    hspmv_csr_free(&T);
    hspmv_dist_destroy(&D);
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all && me == 0) fprintf(stderr, "  %s (partition %d, halo %d, %d ranks) wrong\n", what, part, halo, P);
    return all;
}

/* Every partition (METIS where the matrix is square) and halo p2p and auto. */
static int every_layout(const hspmv_csr *A, int ask, int sign, const char *what)
{
    int ok = 1;
    for (int part = 0; part < 3; part++)
        for (int h = 0; h < 2; h++) {
            char w[160];
            snprintf(w, sizeof(w), "%s, partition %d, halo %s", what, part, h ? "p2p" : "auto");
            ok &= sym_product(A, part, h ? HSPMV_HALO_P2P : HSPMV_HALO_AUTO, ask, sign, w);
        }
    return ok;
}

static void bundled_symmetric_matrices_keep_one_triangle(void)
{
    static const char *files[] = {"matrices/lap3d_12_sym.mtx", "matrices/lap3d_12.mtx", "matrices/fem3d_6.mtx",
                                  "matrices/lap3d27_10.mtx", "matrices/blocks_1200_b12.mtx"};
    for (int i = 0; i < 5; i++) {
        hspmv_csr A = {0};
        int rc = me == 0 ? tl_read_csr(files[i], &A) : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(rc == 0, "%s unreadable", files[i]);
        if (!rc) CHECK(every_layout(&A, HSPMV_SYMMETRIC_AUTO, 1, files[i]), "%s with symmetric auto", files[i]);
        if (!rc) CHECK(sym_product(&A, HSPMV_PART_NNZ, -1, HSPMV_SYMMETRIC_YES, 1, files[i]), "%s yes", files[i]);
        hspmv_csr_free(&A);
    }
}

static void random_symmetric_and_skew_matrices(void)
{
    struct { int64_t n; int s; int64_t e0, e1; const char *what; } c[] = {
        {97, 1, 0, 0, "random symmetric 97"},
        {120, -1, 0, 0, "random skew 120"},
        {150, 1, 40, 75, "symmetric 150 with rows 40-74 empty"},
        {61, -1, 10, 20, "skew 61 with rows 10-19 empty"},
    };
    for (int t = 0; t < 4; t++) {
        hspmv_csr A = {0};
        if (me == 0) random_sym(&A, c[t].n, c[t].s, c[t].e0, c[t].e1, 11 + (uint64_t)t);
        CHECK(every_layout(&A, HSPMV_SYMMETRIC_AUTO, c[t].s, c[t].what), "%s", c[t].what);
        hspmv_csr_free(&A);
    }
}

/* Tiny and degenerate ones: 1 x 1, diagonal only, fewer rows than ranks. */
static void tiny_and_diagonal_matrices(void)
{
    double one[1] = {2.5}, diag[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3};
    double two[4] = {1, 2, 2, 1};
    struct { const double *d; int64_t n; const char *what; } c[] = {
        {one, 1, "1 x 1"}, {diag, 3, "diagonal 3 x 3"}, {two, 2, "2 x 2"}};
    for (int t = 0; t < 3; t++) {
        hspmv_csr A = {0};
        if (me == 0) from_dense(c[t].d, c[t].n, &A);
        CHECK(every_layout(&A, HSPMV_SYMMETRIC_AUTO, 1, c[t].what), "%s", c[t].what);
        hspmv_csr_free(&A);
    }
}

/* What is not taken: a general matrix, one nearly symmetric (one upper
   value off by one unit in the last place), a rectangular one; yes on them refused alike
   on every rank; halo node asked: auto keeps both, yes refused. */
static void matrices_that_are_not_symmetric_keep_both(void)
{
    hspmv_csr A = {0}, N = {0}, S = {0};
    if (me == 0) {
        tl_read_csr("matrices/random_3000_k8.mtx", &A);
        random_sym(&N, 90, 1, 0, 0, 5);
        for (int64_t i = 0; i < N.nrows; i++) /* the first upper entry of row 30 */
            for (int64_t k = N.rowptr[i]; k < N.rowptr[i + 1]; k++)
                if (i == 30 && N.colind[k] > i) {
#ifdef HSPMV_SINGLE
                    N.val[k] = nextafterf(N.val[k], 2 * N.val[k]);
#else
                    N.val[k] = nextafter(N.val[k], 2 * N.val[k]);
#endif
                    i = N.nrows;
                    break;
                }
        random_sym(&S, 80, 1, 0, 0, 6);
    }
    CHECK(every_layout(&A, HSPMV_SYMMETRIC_AUTO, 0, "random_3000_k8"), "a general matrix");
    CHECK(every_layout(&N, HSPMV_SYMMETRIC_AUTO, 0, "nearly symmetric"), "a nearly symmetric matrix");
    const char *names[] = {"random_3000_k8", "nearly symmetric"};
    hspmv_csr *M[] = {&A, &N};
    for (int t = 0; t < 2; t++) {
        hspmv_opts o;
        mt_opts(&o);
        o.symmetric = HSPMV_SYMMETRIC_YES;
        o.halo = HSPMV_HALO_P2P;
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? M[t] : NULL, &o, &D, &e);
        CHECK(rc == HSPMV_ERR_UNSUPPORTED && strstr(e.msg, "neither symmetric") && !D, "%s with yes: %d %s",
              names[t], rc, e.msg);
        CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "%s with yes: ranks disagree", names[t]);
        hspmv_dist_destroy(&D);
    }
    CHECK(sym_product(&S, HSPMV_PART_NNZ, HSPMV_HALO_NODE, HSPMV_SYMMETRIC_AUTO, 0, "halo node, auto"),
          "halo node with auto keeps both triangles");
    hspmv_opts o;
    mt_opts(&o);
    o.symmetric = HSPMV_SYMMETRIC_YES;
    o.halo = HSPMV_HALO_NODE;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &S : NULL, &o, &D, &e);
    CHECK(rc == HSPMV_ERR_UNSUPPORTED && strstr(e.msg, "halo node") && !D, "halo node with yes: %d %s", rc, e.msg);
    CHECK(!mt_errors_differ(rc, e.msg, D != NULL), "halo node with yes: ranks disagree");
    hspmv_csr_free(&A);
    hspmv_csr_free(&N);
    hspmv_csr_free(&S);
}

/* The mirrored sums from private copies per thread (forced: the test
   matrices are far below the size that takes them). */
static void private_copies_of_the_sums_agree(void)
{
    hspmv_csr A = {0};
    if (me == 0) random_sym(&A, 200, 1, 0, 0, 9);
    mt_test_env("sym_cthreads=2");
    CHECK(every_layout(&A, HSPMV_SYMMETRIC_AUTO, 1, "random symmetric 200, sums in 2 copies"), "private copies");
    mt_test_env(NULL);
    hspmv_csr_free(&A);
}

/* CG on one triangle: the same iterations (within 2) and x as on both. */
static void cg_on_one_triangle_matches_both(void)
{
    hspmv_csr A = {0};
    int rc = me == 0 ? tl_read_csr("matrices/lap3d_12_sym.mtx", &A) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(rc == 0, "lap3d_12_sym unreadable");
    if (rc) return;
    int64_t its[2] = {0, 0}, nl = 0;
    double xmax[3] = {0, 0, 0};
    hspmv_real *xs[2] = {NULL, NULL};
    int kept = 0;
    for (int v = 0; v < 2; v++) {
        hspmv_opts o;
        mt_opts(&o);
        o.symmetric = v ? HSPMV_SYMMETRIC_AUTO : HSPMV_SYMMETRIC_NO;
        o.halo = HSPMV_HALO_P2P;
        hspmv_dist *D = NULL;
        hspmv_error e = {0, ""};
        if (hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e)) {
            CHECK(0, "create: %s", e.msg);
            break;
        }
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        if (v) kept = in.symmetric;
        hspmv_real *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1), *one = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
        xs[v] = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1);
        for (int64_t i = 0; i < D->ncols_local; i++) one[i] = 1, xs[v][i] = 0;
        hspmv_dist_spmv(D, one, b, &e);
        hspmv_solver_opts so;
        hspmv_solver_opts_default(&so);
#ifdef HSPMV_SINGLE
        so.tol = 1e-5; /* what single precision reaches (solve's default there) */
#endif
        hspmv_solver_result res;
        rc = hspmv_solve(D, b, xs[v], &so, &res, &e);
        CHECK(rc == HSPMV_OK, "cg (%s): %s", v ? "one triangle" : "both", e.msg);
        its[v] = res.iterations;
        nl = D->ncols_local;
        for (int64_t i = 0; i < D->ncols_local; i++) xmax[v] = fmax(xmax[v], fabs((double)xs[v][i] - 1));
        hspmv_free(b);
        hspmv_free(one);
        hspmv_dist_destroy(&D);
    }
    for (int64_t i = 0; xs[0] && xs[1] && i < nl; i++) /* the same split both times: the same rows here */
        xmax[2] = fmax(xmax[2], fabs((double)xs[0][i] - (double)xs[1][i]));
    double gx[3];
    MPI_Allreduce(xmax, gx, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(kept == 1, "CG's matrix did not keep one triangle (%d)", kept);
    CHECK(its[0] > 0 && llabs(its[0] - its[1]) <= 2, "iterations %lld (both) against %lld (one triangle)",
          (long long)its[0], (long long)its[1]);
#ifdef HSPMV_SINGLE
    double bound = 1e-3;
#else
    double bound = 1e-6;
#endif
    CHECK(gx[0] < bound && gx[1] < bound && gx[2] < bound, "max |x - 1|: %.3e (both), %.3e (one triangle); "
          "max |x_both - x_one|: %.3e", gx[0], gx[1], gx[2]);
    hspmv_free(xs[0]);
    hspmv_free(xs[1]);
    hspmv_csr_free(&A);
}

MT_MAIN(NULL, bundled_symmetric_matrices_keep_one_triangle, random_symmetric_and_skew_matrices,
        tiny_and_diagonal_matrices, matrices_that_are_not_symmetric_keep_both, private_copies_of_the_sums_agree,
        cg_on_one_triangle_matches_both)
