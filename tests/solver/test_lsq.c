/* test_lsq.c — CGLS and LSQR (hspmv_solve) at any rank count: on ash219
   (219 x 85, a least squares test problem of the Harwell-Boeing set) and a
   random 300 x 120 matrix, an inconsistent b gives the least squares
   solution of the normal equations solved densely in long double
   (x and ||b - A x|| within stated bounds, reason CONVERGED_RTOL_NORMAL),
   a consistent b = A*1 gives x = 1 (CONVERGED_RTOL); the same iterations
   (+-2) as on one rank; DIVERGED_ITS at maxit 2; CG on a rectangular
   matrix and a Jacobi diagonal for least squares refused on every rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpitest.h"
#include "testlib.h"
#include "csr.h"

static int me, P;
#define SINGLE (sizeof(hspmv_real) == 4)
#define TOL (SINGLE ? 1e-5 : 1e-8)

/* ---- the dense long-double reference --------------------------------------- */

/* The least squares solution of A x = b (A of full column rank): the
   normal equations A^T A x = A^T b by Cholesky in long double. 0 when
   A^T A is not positive definite at that precision. */
static int ls_reference(const hspmv_csr *A, const double *b, double *x)
{
    int64_t n = A->ncols;
    long double *G = calloc((size_t)(n * n), sizeof(long double)), *g = calloc((size_t)n, sizeof(long double));
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            g[A->colind[p]] += (long double)A->val[p] * b[i];
            for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
                G[A->colind[p] * n + A->colind[q]] += (long double)A->val[p] * A->val[q];
        }
    int ok = 1;
    for (int64_t j = 0; j < n && ok; j++) { /* G = L L^T, L in the lower triangle */
        for (int64_t k = 0; k < j; k++) G[j * n + j] -= G[j * n + k] * G[j * n + k];
        if (!(G[j * n + j] > 0)) ok = 0;
        else G[j * n + j] = sqrtl(G[j * n + j]);
        for (int64_t i = j + 1; i < n && ok; i++) {
            for (int64_t k = 0; k < j; k++) G[i * n + j] -= G[i * n + k] * G[j * n + k];
            G[i * n + j] /= G[j * n + j];
        }
    }
    for (int64_t i = 0; i < n && ok; i++) { /* L z = g */
        for (int64_t k = 0; k < i; k++) g[i] -= G[i * n + k] * g[k];
        g[i] /= G[i * n + i];
    }
    for (int64_t i = n - 1; i >= 0 && ok; i--) { /* L^T x = z */
        for (int64_t k = i + 1; k < n; k++) g[i] -= G[k * n + i] * g[k];
        g[i] /= G[i * n + i];
    }
    for (int64_t i = 0; i < n; i++) x[i] = ok ? (double)g[i] : 0;
    free(G);
    free(g);
    return ok;
}

/* ||b - A x||_2 in long double. */
static double resid(const hspmv_csr *A, const double *b, const double *x)
{
    long double s = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        long double r = b[i];
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) r -= (long double)A->val[p] * x[A->colind[p]];
        s += r * r;
    }
    return (double)sqrtl(s);
}

/* A random m x n matrix: a 1 + u on the diagonal, 6 random entries in
   [-1, 1] a row (full column rank, well conditioned). */
static void random_rect(int64_t m, int64_t n, hspmv_csr *A)
{
    uint64_t s = 12345;
    A->nrows = m, A->ncols = n, A->nnz = 0;
    A->rowptr = calloc((size_t)m + 1, sizeof(int64_t));
    A->colind = calloc((size_t)m * 7, sizeof(int32_t));
    A->val = calloc((size_t)m * 7, sizeof(hspmv_real));
    for (int64_t i = 0; i < m; i++) {
        int32_t c[7];
        int k = 0;
        if (i < n) c[k++] = (int32_t)i;
        while (k < 7) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            int32_t j = (int32_t)((s >> 33) % (uint64_t)n), dup = 0;
            for (int q = 0; q < k; q++) dup |= c[q] == j;
            if (!dup) c[k++] = j;
        }
        for (int a = 1; a < 7; a++) /* ascending */
            for (int q = a; q > 0 && c[q - 1] > c[q]; q--) {
                int32_t t = c[q];
                c[q] = c[q - 1], c[q - 1] = t;
            }
        for (int q = 0; q < 7; q++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            double u = (double)(s >> 11) / 9007199254740992.0;
            A->colind[A->nnz] = c[q];
            A->val[A->nnz++] = (hspmv_real)(c[q] == i ? 1 + u : 2 * u - 1);
        }
        A->rowptr[i + 1] = A->nnz;
    }
}

typedef struct lrun {
    int rc, reason, agreed;
    int64_t its;
    double rnorm, xerr; /* ||b - A x|| (long double, x gathered); max|x - xref| / max|xref| */
    char msg[512];
} lrun;

/* Solves with D (A distributed on its communicator; A and b in the file
   ordering on every rank, whole) and measures against xref (ncols). */
static lrun lsq_solve(hspmv_dist *D, const hspmv_csr *A, const double *b, const double *xref, int method,
                      int64_t maxit)
{
    lrun R;
    memset(&R, 0, sizeof(R));
    hspmv_error e = {0, ""};
    MPI_Comm comm = hspmv_dist_get_comm(D);
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *bl = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    for (int64_t i = 0; i < in.nrows_local; i++) bl[i] = (hspmv_real)b[in.row_begin + i];
    hspmv_solver_opts so;
    hspmv_solver_opts_default(&so);
    so.method = method;
    so.tol = TOL;
    so.maxit = maxit;
    hspmv_solver_result res;
    R.rc = hspmv_solve(D, bl, x, &so, &res, &e);
    R.reason = res.reason;
    R.its = res.iterations;
    snprintf(R.msg, sizeof(R.msg), "%s", R.rc ? e.msg : "");
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = R.msg; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    long long v[2] = {R.rc * 1000 + R.reason, (long long)(h >> 1)}, lo[2], hi[2];
    MPI_Allreduce(v, lo, 2, MPI_LONG_LONG, MPI_MIN, comm);
    MPI_Allreduce(v, hi, 2, MPI_LONG_LONG, MPI_MAX, comm);
    R.agreed = lo[0] == hi[0] && lo[1] == hi[1];
    /* x whole on every rank (no METIS: the distributed order is the file's) */
    double *xl = malloc(sizeof(double) * (size_t)(in.ncols_local + 1)), *xg = malloc(sizeof(double) * (size_t)in.ncols);
    int np = in.nranks, *cnt = malloc(sizeof(int) * 2 * (size_t)np);
    int64_t *cs = malloc(sizeof(int64_t) * (size_t)(np + 1));
    hspmv_dist_get_ranges(D, NULL, cs);
    for (int p = 0; p < np; p++) cnt[p] = (int)(cs[p + 1] - cs[p]), cnt[np + p] = (int)cs[p];
    for (int64_t j = 0; j < in.ncols_local; j++) xl[j] = x[j];
    MPI_Allgatherv(xl, (int)in.ncols_local, MPI_DOUBLE, xg, cnt, cnt + np, MPI_DOUBLE, comm);
    R.rnorm = resid(A, b, xg);
    double dm = 0, xm = 0;
    for (int64_t j = 0; j < A->ncols; j++) dm = fmax(dm, fabs(xg[j] - xref[j])), xm = fmax(xm, fabs(xref[j]));
    R.xerr = dm / xm;
    free(xl);
    free(xg);
    free(cnt);
    free(cs);
    hspmv_free(x);
    hspmv_free(bl);
    return R;
}

static const char *mname(int m)
{
    return m == HSPMV_SOLVER_CGLS ? "cgls" : "lsqr";
}

/* One matrix: an inconsistent b (A*1 plus a perturbation) and a consistent
   one (A*1), both methods, P ranks against one. */
static void check_matrix(const char *name, const hspmv_csr *A)
{
    int64_t m = A->nrows, n = A->ncols;
    double *b = malloc(sizeof(double) * (size_t)m), *xref = malloc(sizeof(double) * (size_t)n);
    double *ones = malloc(sizeof(double) * (size_t)n);
    hspmv_dist *D = NULL, *D1 = NULL; /* on every rank, and on rank 0 alone */
    hspmv_error e;
    int rc = hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? A : NULL, NULL, &D, &e);
    if (me == 0 && !rc) rc = hspmv_dist_create_root(MPI_COMM_SELF, A, NULL, &D1, &e);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(rc == HSPMV_OK, "%s: %s", name, e.msg);
    if (rc) {
        hspmv_dist_destroy(&D);
        hspmv_dist_destroy(&D1);
        free(b), free(xref), free(ones);
        return;
    }
    for (int64_t j = 0; j < n; j++) ones[j] = 1;
    for (int consistent = 0; consistent < 2; consistent++) {
        for (int64_t i = 0; i < m; i++) {
            double s = 0;
            for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) s += A->val[p];
            b[i] = s + (consistent ? 0 : 0.5 * sin(1.0 + (double)i)); /* the perturbation leaves range(A) */
        }
        if (consistent) memcpy(xref, ones, sizeof(double) * (size_t)n);
        else if (!ls_reference(A, b, xref)) {
            CHECK(0, "%s: A^T A not positive definite in long double", name);
            continue;
        }
        double rref = resid(A, b, xref), bnorm = 0, afro = 0;
        for (int64_t i = 0; i < m; i++) bnorm += b[i] * b[i];
        for (int64_t k = 0; k < A->nnz; k++) afro += (double)A->val[k] * A->val[k];
        bnorm = sqrt(bnorm), afro = sqrt(afro);
        for (int method = HSPMV_SOLVER_CGLS; method <= HSPMV_SOLVER_LSQR; method++) {
            lrun S;
            memset(&S, 0, sizeof(S));
            if (me == 0) S = lsq_solve(D1, A, b, xref, method, 1000);
            MPI_Bcast(&S, (int)sizeof(S), MPI_BYTE, 0, MPI_COMM_WORLD);
            lrun R = lsq_solve(D, A, b, xref, method, 1000);
            const char *what = consistent ? "b = A*1" : "b = A*1 + 0.5 sin(i)";
            int want = consistent ? HSPMV_CONVERGED_RTOL : HSPMV_CONVERGED_RTOL_NORMAL;
            /* CGLS on a consistent b may meet its normal equations' test first:
               ||A^T r||/||A^T b|| falls with ||r||/||b||, the check of ||r|| below decides */
            if (consistent && method == HSPMV_SOLVER_CGLS && R.reason == HSPMV_CONVERGED_RTOL_NORMAL) want = R.reason;
            CHECK(R.rc == HSPMV_OK && R.reason == want && R.agreed, "%s %s, %s: status %d reason %d (want %d) %s", name,
                  mname(method), what, R.rc, R.reason, want, R.msg);
            /* consistent: ||r|| within twice the stopping test's bound, tol*(||b|| + ||A|| ||x||)
               (||A||_F bounds LSQR's estimate of ||A||); else the least squares
               residual to 1e-6 (1e-3 in single) */
            double rtol = SINGLE ? 1e-3 : 1e-6;
            CHECK(consistent ? R.rnorm <= 2 * TOL * (bnorm + afro * sqrt((double)n)) + rref
                             : fabs(R.rnorm - rref) <= rtol * rref,
                  "%s %s, %s: ||b - Ax|| = %.9e, reference %.9e", name, mname(method), what, R.rnorm, rref);
            CHECK(R.xerr <= (SINGLE ? 1e-2 : 1e-5), "%s %s, %s: max|x - xref|/max|xref| = %.3e", name, mname(method),
                  what, R.xerr);
            CHECK(llabs(R.its - S.its) <= 2, "%s %s, %s: %lld iterations at %d ranks, %lld on one", name,
                  mname(method), what, (long long)R.its, P, (long long)S.its);
            if (me == 0)
                fprintf(stderr, "  %s %s, %s: %lld iterations (1 rank: %lld), ||b-Ax|| %.6e (ref %.6e), x err %.1e\n",
                        name, mname(method), what, (long long)R.its, (long long)S.its, R.rnorm, rref, R.xerr);
        }
    }
    /* the same matrix stops at maxit 2 with DIVERGED_ITS */
    for (int method = HSPMV_SOLVER_CGLS; method <= HSPMV_SOLVER_LSQR; method++) {
        lrun R = lsq_solve(D, A, b, xref, method, 2);
        CHECK(R.rc == HSPMV_ERR_NOCONV && R.reason == HSPMV_DIVERGED_ITS && R.its == 2 && R.agreed &&
                  strstr(R.msg, "no convergence in 2 iterations"),
              "%s %s maxit 2: status %d reason %d after %lld: %s", name, mname(method), R.rc, R.reason,
              (long long)R.its, R.msg);
    }
    hspmv_dist_destroy(&D);
    hspmv_dist_destroy(&D1);
    free(b);
    free(xref);
    free(ones);
}

static void least_squares_on_ash219_and_a_random_300x120(void)
{
    hspmv_csr A;
    char p[1024];
    snprintf(p, sizeof(p), "%s/ash219.mtx", tl_shared_dir());
    memset(&A, 0, sizeof(A));
    if (tl_read_csr(p, &A) == HSPMV_OK) {
        check_matrix("ash219", &A);
        hspmv_csr_free(&A);
    } else
        SKIP("%s missing", p);
    random_rect(300, 120, &A);
    check_matrix("random 300x120", &A);
    free(A.rowptr);
    free(A.colind);
    free(A.val);
}

/* CG and BiCGStab on a rectangular matrix, or a diagonal with CGLS/LSQR:
   HSPMV_ERR_ARG with a message saying so, on every rank. */
static void refused_on_every_rank(void)
{
    hspmv_csr A;
    random_rect(30, 12, &A);
    hspmv_dist *D = NULL;
    hspmv_error e;
    if (hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, NULL, &D, &e)) {
        CHECK(0, "create: %s", e.msg);
        return;
    }
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    for (int64_t i = 0; i < in.nrows_local; i++) b[i] = 1;
    hspmv_solver_opts so;
    hspmv_solver_opts_default(&so);
    hspmv_solver_result res;
    for (int m = HSPMV_SOLVER_CG; m <= HSPMV_SOLVER_BICGSTAB; m++) {
        so.method = m;
        int rc = hspmv_solve(D, b, x, &so, &res, &e);
        CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "not square") && strstr(e.msg, "LSQR") &&
                  res.reason == HSPMV_REASON_NONE && !strcmp(res.reason_name, "NONE"),
              "method %d on 30 x 12: %d %s (%s)", m, rc, e.msg, res.reason_name);
    }
    so.method = HSPMV_SOLVER_LSQR;
    so.diag = b;
    int rc = hspmv_solve(D, b, x, &so, &res, &e);
    CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "least squares"), "lsqr with a diagonal: %d %s", rc, e.msg);
    so.diag = NULL;
    so.method = 7;
    rc = hspmv_solve(D, b, x, &so, &res, &e);
    CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "unknown method"), "method 7: %d %s", rc, e.msg);
    hspmv_free(x);
    hspmv_free(b);
    hspmv_dist_destroy(&D);
    free(A.rowptr);
    free(A.colind);
    free(A.val);
}

int main(int argc, char **argv)
{
    int prov;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (me != 0) {
        if (!freopen("/dev/null", "w", stdout)) return 1;
        if (!getenv("HSPMV_TEST_VERBOSE") && !freopen("/dev/null", "w", stderr)) return 1;
    }
    MRUN(least_squares_on_ash219_and_a_random_300x120);
    MRUN(refused_on_every_rank);
    MPI_Finalize();
    CHECK_DONE();
}
