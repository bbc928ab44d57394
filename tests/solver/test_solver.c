/* test_solver.c — CG and BiCGStab at any rank count: convergence on the
   Laplacians and the SPD matrices of matrices/suitesparse with every partition
   and the same iteration count (+-2) as on one rank, the error against the
   known solution x* = 1 (b = A*1) within its bound, breakdown or
   non-convergence (never a wrong answer) on matrices that are not SPD,
   NOCONV at a too-small iteration limit, agreed status on every rank, and the
   create-from-own-rows path against the file path.
   Tolerance: 1e-8 in double; 1e-5 in single precision, where 1e-8 is below
   what the working precision can reach (u = 6e-8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpitest.h"
#include "testlib.h"
#include "csr.h"

static int me, P;
static const char *part_name[] = {"nnz", "rows", "metis"};
#define SINGLE (sizeof(hspmv_real) == 4)
#define TOL (SINGLE ? 1e-5 : 1e-8)
/* Iteration counts may differ from one rank's by 2, or by 1% in runs of
   hundreds of iterations (1138_bus: ~935), where the order of the sums,
   not the method, decides the last few iterations. */
#define ITS_SLACK 2
static int its_close(int64_t a, int64_t b)
{
    int64_t d = a > b ? a - b : b - a, m = a > b ? a : b;
    return d <= ITS_SLACK || d * 100 <= m;
}
/* BiCGStab's last digits of residual come irregularly (its residual is not
   minimised): a stagnating stretch near 1e-8 may take a few iterations more
   or less with another summation order. 20% (and 2). */
static int its_close_bicg(int64_t a, int64_t b)
{
    int64_t d = a > b ? a - b : b - a, m = a > b ? a : b;
    return d <= ITS_SLACK || d * 5 <= m;
}

enum { CG = 0, BICG = 1 };

/* What one solve gave; the same on every rank of its communicator. */
typedef struct run {
    int rc, agreed;      /* status; 1 when every rank had the same status and message */
    int reason;          /* hspmv_solver_result.reason, and its name */
    char reason_name[32];
    int64_t its;
    double relres, relres_true;
    double err_max, err2; /* max|x - 1|, ||x - 1||_2 (b = A*1 only) */
    double rnorm2;       /* ||b - A*x||_2 */
    char msg[512];
} run;

/* 1 when every rank of comm holds the same rc and message. */
static int same_everywhere(MPI_Comm comm, int rc, const char *msg)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = msg; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    long long v[2] = {rc, (long long)(h >> 1)}, lo[2], hi[2];
    MPI_Allreduce(v, lo, 2, MPI_LONG_LONG, MPI_MIN, comm);
    MPI_Allreduce(v, hi, 2, MPI_LONG_LONG, MPI_MAX, comm);
    return lo[0] == hi[0] && lo[1] == hi[1];
}

/* Solves with a distributed matrix: b = A*1 (bglob NULL) or rank 0's bglob
   in the file ordering; x0 = 0. */
static run solve_dist(hspmv_dist *D, int method, const hspmv_real *diag, double tol, int64_t maxit,
                      int given, const hspmv_real *bglob, double *hist, int64_t hlen)
{
    run R;
    memset(&R, 0, sizeof(R));
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    MPI_Comm comm = hspmv_dist_get_comm(D);
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    hspmv_error e = {0, ""};
    for (int64_t j = 0; j < in.ncols_local; j++) x[j] = 1;
    if (given) hspmv_dist_scatter(D, HSPMV_VEC_ROWS, bglob, b, &e);
    else hspmv_dist_spmv(D, x, b, &e);
    for (int64_t j = 0; j < in.ncols_local; j++) x[j] = 0;
    hspmv_solver_opts o;
    hspmv_solver_opts_default(&o);
    o.tol = tol;
    o.maxit = maxit;
    o.diag = diag;
    o.history = hist;
    o.history_len = hlen;
    o.method = method == CG ? HSPMV_SOLVER_CG : HSPMV_SOLVER_BICGSTAB;
    hspmv_solver_result res;
    R.rc = hspmv_solve(D, b, x, &o, &res, &e);
    R.reason = res.reason;
    snprintf(R.reason_name, sizeof(R.reason_name), "%s", res.reason_name ? res.reason_name : "(null)");
    R.agreed = same_everywhere(comm, R.rc, R.rc ? e.msg : "");
    snprintf(R.msg, sizeof(R.msg), "%s", R.rc ? e.msg : "");
    R.its = res.iterations;
    R.relres = res.relres;
    R.relres_true = res.relres_true;
    double s[2] = {0, 0}, bb = 0, m = 0;
    for (int64_t j = 0; j < in.ncols_local; j++) {
        double d = fabs((double)x[j] - 1.0);
        m = fmax(m, d);
        s[0] += d * d;
        bb += (double)b[j] * b[j];
    }
    s[1] = bb;
    MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(&m, &R.err_max, 1, MPI_DOUBLE, MPI_MAX, comm);
    R.err2 = sqrt(s[0]);
    R.rnorm2 = R.relres_true * sqrt(s[1]);
    hspmv_free(x);
    hspmv_free(b);
    return R;
}

/* Distributes rank 0's A on comm by partition part and solves; b = A*1,
   or rank 0's bglob when given (on every rank). */
static run solve_root(MPI_Comm comm, const hspmv_csr *A, int part, int method, int jacobi, double tol,
                      int64_t maxit, int given, const hspmv_real *bglob)
{
    run R;
    memset(&R, 0, sizeof(R));
    int r;
    MPI_Comm_rank(comm, &r);
    hspmv_opts o;
    hspmv_opts_default(&o);
    o.partition = part;
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    if ((R.rc = hspmv_dist_create_root(comm, r == 0 ? A : NULL, &o, &D, &e))) {
        R.rc = -R.rc; /* not a solver status */
        snprintf(R.msg, sizeof(R.msg), "create: %s", e.msg);
        return R;
    }
    hspmv_real *diag = jacobi ? hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1) : NULL;
    if (jacobi && hspmv_dist_get_diagonal(D, diag, &e)) {
        R.rc = -HSPMV_ERR_ARG;
        snprintf(R.msg, sizeof(R.msg), "diag: %s", e.msg);
    } else
        R = solve_dist(D, method, diag, tol, maxit, given, bglob, NULL, 0);
    hspmv_free(diag);
    hspmv_dist_destroy(&D);
    return R;
}

/* The same solve on rank 0 alone (MPI_COMM_SELF), its outcome on every rank. */
static run solve_serial(const hspmv_csr *A, int method, int jacobi, double tol, int64_t maxit)
{
    run R;
    memset(&R, 0, sizeof(R));
    if (me == 0) R = solve_root(MPI_COMM_SELF, A, HSPMV_PART_NNZ, method, jacobi, tol, maxit, 0, NULL);
    MPI_Bcast(&R, (int)sizeof(R), MPI_BYTE, 0, MPI_COMM_WORLD);
    return R;
}

/* Rank 0 reads path; 1 on every rank when it worked. */
static int read0(const char *path, hspmv_csr *A)
{
    int ok = 1;
    memset(A, 0, sizeof(*A));
    if (me == 0) ok = tl_read_csr(path, A) == HSPMV_OK;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

static const char *shared(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", tl_shared_dir(), name);
    return buf[k];
}

/* The error bound for SPD A: ||x - x*||_2 <= ||b - A x||_2 / lambda_min,
   where the computed residual and b = fl(A*1) itself may each be off by
   gamma*|| |A|*1 ||_2, gamma = (max row length + 1)*u, to first order. */
static int err_within(const run *R, double lam_min, double dA1)
{
    return R->err2 <= 1.01 * (R->rnorm2 + 3 * dA1) / lam_min;
}

/* gamma*|| |A|*1 ||_2 of rank 0's A (see err_within), on every rank. */
static double rounding_of_b(const hspmv_csr *A)
{
    double s = 0;
    int64_t kmax = 0;
    if (me == 0)
        for (int64_t i = 0; i < A->nrows; i++) {
            double r = 0;
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) r += fabs((double)A->val[k]);
            s += r * r;
            if (A->rowptr[i + 1] - A->rowptr[i] > kmax) kmax = A->rowptr[i + 1] - A->rowptr[i];
        }
    s = (double)(kmax + 1) * hspmv_eps() * sqrt(s);
    MPI_Bcast(&s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return s;
}

/* One case: CG (or BiCGStab) from the file on every partition, against the
   one-rank iteration count. */
typedef struct scase {
    const char *path;
    int method, jacobi;
    double lam_min;  /* > 0: smallest eigenvalue of A (SPD): bound ||x-1|| (err_within) */
    double err_tol;  /* else: stated bound on max|x - 1| */
    int64_t maxit;
    int single_too;  /* 0: skipped in single precision (see the reason) */
    int perturb;     /* also show that the bound rejects x off by 1% everywhere */
} scase;

static void check_case(const scase *c)
{
    hspmv_csr A;
    if (SINGLE && !c->single_too) { /* a note, not a skip: the other cases ran */
        if (me == 0) fprintf(stderr, "  not in single precision: %s (cond(A)*u too large for tol 1e-5)\n", c->path);
        return;
    }
    if (!read0(c->path, &A)) {
        CHECK(0, "%s could not be read (run from the repository root)", c->path);
        return;
    }
    int64_t n = 0;
    if (me == 0) n = A.nrows;
    MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    double dA1 = rounding_of_b(&A);
    run S = solve_serial(&A, c->method, c->jacobi, TOL, c->maxit);
    CHECK(S.rc == HSPMV_OK, "%s on 1 rank: %s", c->path, S.msg);
    for (int part = 0; part < 3; part++) {
        run R = solve_root(MPI_COMM_WORLD, &A, part, c->method, c->jacobi, TOL, c->maxit, 0, NULL);
        const char *pn = part_name[part];
        CHECK(R.rc == HSPMV_OK, "%s %s: %s", c->path, pn, R.msg);
        CHECK(R.reason == HSPMV_CONVERGED_RTOL && !strcmp(R.reason_name, "CONVERGED_RTOL"), "%s %s: reason %d %s",
              c->path, pn, R.reason, R.reason_name);
        CHECK(R.agreed, "%s %s: ranks disagree on the status", c->path, pn);
        CHECK(R.relres_true <= TOL, "%s %s: true residual %.3e", c->path, pn, R.relres_true);
        CHECK(c->method == CG ? its_close(R.its, S.its) : its_close_bicg(R.its, S.its),
              "%s %s: %lld iterations at %d ranks, %lld on 1", c->path, pn, (long long)R.its, P, (long long)S.its);
        if (c->lam_min > 0) {
            CHECK(err_within(&R, c->lam_min, dA1), "%s %s: ||x-1|| = %.3e > (||r|| + 3*%.2e)/lambda_min = %.3e",
                  c->path, pn, R.err2, dA1, (R.rnorm2 + 3 * dA1) / c->lam_min);
            if (c->perturb) {
                run bad = R; /* the bound must be able to fail */
                bad.err2 = R.err2 + 1e-2 * sqrt((double)n);
                CHECK(!err_within(&bad, c->lam_min, dA1), "%s: the error bound accepts a wrong x", c->path);
            }
        } else
            CHECK(R.err_max <= c->err_tol, "%s %s: max|x-1| = %.3e > %.3e", c->path, pn, R.err_max, c->err_tol);
        if (me == 0 && part == 0)
            fprintf(stderr, "  %s: %s%s, %lld iterations (1 rank: %lld), relres %.2e, max|x-1| %.2e\n", c->path,
                    c->method == CG ? "cg" : "bicgstab", c->jacobi ? "+jacobi" : "", (long long)R.its,
                    (long long)S.its, R.relres_true, R.err_max);
    }
    hspmv_csr_free(&A);
}

static double lap_min(int dim, int m)
{
    double s = sin(M_PI / (2.0 * (m + 1)));
    return 4.0 * dim * s * s;
}

/* CG on the bundled 2D/3D Laplacians: x* error under the exact eigenvalue bound. */
static void cg_converges_on_laplacians_same_iterations_any_ranks_and_partition(void)
{
    scase c2 = {"matrices/lap2d_64.mtx", CG, 0, lap_min(2, 64), 0, 1000, 1, 1};
    scase c3 = {"matrices/lap3d_12.mtx", CG, 0, lap_min(3, 12), 0, 1000, 1, 1};
    check_case(&c2);
    check_case(&c3);
}

/* The SPD matrices of matrices/suitesparse: the symmetric real files whose
   eigenvalues are all positive (computed once with a dense Jacobi eigen
   solver; cond = 8.8e5, 2.3e6, 8.6e6, 12.7). bcsstk01/04 and 1138_bus get
   Jacobi (without it: 130, 400 and 2100 iterations); bcsstm05 is diagonal.
   Not SPD: can_24 and vsp_data_and_seymourl (pattern, indefinite),
   plskz362 (skew); bcsstk13 is SPD but needs ~1400 Jacobi-CG iterations
   (kept out for CI time). In single precision cond*u > 1e-5 rules out
   bcsstk04 and 1138_bus. */
static void cg_converges_on_shared_spd_matrices_same_iterations(void)
{
    scase cs[] = {
        {shared("bcsstk01.mtx"), CG, 1, 3.4173e3, 0, 1000, 1, 0},
        {shared("bcsstk04.mtx"), CG, 1, 4.2141, 0, 1000, 0, 0},
        {shared("1138_bus.mtx"), CG, 1, 3.5169e-3, 0, 3000, 0, 0},
        {shared("bcsstm05.mtx"), CG, 0, 7.3078e-2, 0, 1000, 1, 0},
    };
    for (size_t k = 0; k < sizeof(cs) / sizeof(cs[0]); k++) check_case(&cs[k]);
}

/* BiCGStab on nonsymmetric matrices from files: arc130 (converges in ~10
   iterations; west0479, west0067 and random_3000_k8 have zero diagonals and
   BiCGStab without preconditioning breaks down on them); fs_183_1 with
   Jacobi. Their condition numbers are large, so the check on x is loose. */
static void bicgstab_converges_on_nonsymmetric_files(void)
{
    if (SINGLE) {
        SKIP("arc130 and fs_183_1: cond(A)*u too large for tol 1e-5 in single precision");
        return;
    }
    scase cs[] = {
        {shared("arc130.mtx"), BICG, 0, 0, 1, 1000, 0, 0},
        {shared("fs_183_1.mtx"), BICG, 1, 0, 1e4, 1000, 0, 0},
    };
    for (size_t k = 0; k < sizeof(cs) / sizeof(cs[0]); k++) check_case(&cs[k]);
}

/* e05r0000 with its own right-hand side (the file's): BiCGStab needs ~1100
   iterations for 236 unknowns, so the count depends on rounding and only
   convergence and the true residual are checked. */
static void bicgstab_solves_e05r0000_with_its_rhs(void)
{
    hspmv_csr A, B;
    if (SINGLE) {
        SKIP("e05r0000: cond(A)*u too large for 1e-5 in single precision");
        return;
    }
    if (!read0(shared("e05r0000.mtx"), &A) || !read0(shared("e05r0000_rhs1.mtx"), &B)) {
        CHECK(0, "e05r0000 or its rhs could not be read (run from the repository root)");
        return;
    }
    hspmv_real *b = NULL;
    if (me == 0) { /* a 236 x 1 array file read as a CSR: one entry per row */
        b = calloc((size_t)B.nrows, sizeof(hspmv_real));
        for (int64_t i = 0; i < B.nrows; i++)
            for (int64_t k = B.rowptr[i]; k < B.rowptr[i + 1]; k++) b[i] += B.val[k];
    }
    for (int part = 0; part < 3; part++) {
        run R = solve_root(MPI_COMM_WORLD, &A, part, BICG, 0, TOL, 5000, 1, b);
        CHECK(R.rc == HSPMV_OK && R.relres_true <= TOL, "%s: %s (true residual %.3e)", part_name[part], R.msg,
              R.relres_true);
        CHECK(R.agreed, "ranks disagree");
        if (me == 0 && part == 0)
            fprintf(stderr, "  e05r0000 + rhs1: bicgstab %lld iterations, relres %.2e\n", (long long)R.its,
                    R.relres_true);
    }
    free(b);
    hspmv_csr_free(&A);
    hspmv_csr_free(&B);
}

/* Matrices that are not SPD: CG must say so (breakdown or no convergence)
   or, if it stops with HSPMV_OK, the answer must be right. -A (negative
   definite) must break down at the first iteration (p'Ap < 0). */
static void cg_reports_breakdown_or_noconv_when_not_spd(void)
{
    const char *files[] = {shared("plskz362.mtx"), shared("west0479.mtx"), shared("can_24.mtx"),
                           shared("arc130.mtx"), "matrices/random_3000_k8.mtx"};
    for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
        hspmv_csr A;
        if (!read0(files[k], &A)) {
            CHECK(0, "%s could not be read (run from the repository root)", files[k]);
            continue;
        }
        run R = solve_root(MPI_COMM_WORLD, &A, HSPMV_PART_NNZ, CG, 0, TOL, 2000, 0, NULL);
        CHECK(R.agreed, "%s: ranks disagree", files[k]);
        CHECK(R.rc == HSPMV_ERR_BREAKDOWN || R.rc == HSPMV_ERR_NOCONV ||
                  (R.rc == HSPMV_OK && R.relres_true <= TOL),
              "%s: status %d, true residual %.3e", files[k], R.rc, R.relres_true);
        CHECK(R.rc == HSPMV_OK || strlen(R.msg) > 0, "%s: no message", files[k]);
        if (me == 0) fprintf(stderr, "  cg on %s: %s\n", files[k], R.rc ? R.msg : "converged (correctly)");
        hspmv_csr_free(&A);
    }
    hspmv_csr A;
    if (!read0("matrices/lap2d_64.mtx", &A)) return;
    if (me == 0)
        for (int64_t k = 0; k < A.nnz; k++) A.val[k] = -A.val[k];
    run R = solve_root(MPI_COMM_WORLD, &A, HSPMV_PART_NNZ, CG, 0, TOL, 1000, 0, NULL);
    CHECK(R.rc == HSPMV_ERR_BREAKDOWN && R.its == 0 && R.agreed, "-lap2d: status %d after %lld: %s", R.rc,
          (long long)R.its, R.msg);
    CHECK(R.reason == HSPMV_DIVERGED_INDEFINITE_MAT && !strcmp(R.reason_name, "DIVERGED_INDEFINITE_MAT"),
          "-lap2d: reason %d %s", R.reason, R.reason_name);
    /* and Jacobi with a negative diagonal on the SPD Laplacian (M not SPD) */
    if (me == 0)
        for (int64_t k = 0; k < A.nnz; k++) A.val[k] = -A.val[k];
    hspmv_dist *D = NULL;
    hspmv_error e;
    if (hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, NULL, &D, &e) == HSPMV_OK) {
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        hspmv_real *d = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        for (int64_t i = 0; i < in.nrows_local; i++) d[i] = -4;
        R = solve_dist(D, CG, d, TOL, 1000, 0, NULL, NULL, 0);
        CHECK(R.rc == HSPMV_ERR_BREAKDOWN && R.agreed, "negative Jacobi: status %d: %s", R.rc, R.msg);
        CHECK(R.reason == HSPMV_DIVERGED_INDEFINITE_PC && !strcmp(R.reason_name, "DIVERGED_INDEFINITE_PC"),
              "negative Jacobi: reason %d %s", R.reason, R.reason_name);
        hspmv_free(d);
        hspmv_dist_destroy(&D);
    }
    hspmv_csr_free(&A);
}

/* A limit too small for the tolerance is HSPMV_ERR_NOCONV after exactly
   maxit iterations, with the history filled and agreed. */
static void too_small_maxit_reports_noconv(void)
{
    hspmv_csr A;
    if (!read0("matrices/lap2d_64.mtx", &A)) {
        SKIP("lap2d_64 missing");
        return;
    }
    for (int m = 0; m < 2; m++) {
        hspmv_dist *D = NULL;
        hspmv_error e;
        CHECK(hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, NULL, &D, &e) == HSPMV_OK, "%s", e.msg);
        if (!D) break;
        double hist[8];
        for (int k = 0; k < 8; k++) hist[k] = -1;
        run R = solve_dist(D, m, NULL, TOL, 5, 0, NULL, hist, 8);
        CHECK(R.rc == HSPMV_ERR_NOCONV && R.its == 5 && R.agreed, "%s: status %d after %lld", m ? "bicgstab" : "cg",
              R.rc, (long long)R.its);
        CHECK(R.reason == HSPMV_DIVERGED_ITS && !strcmp(R.reason_name, "DIVERGED_ITS"), "reason %d %s", R.reason,
              R.reason_name);
        CHECK(hist[0] == 1 && hist[5] == R.relres && hist[6] == -1, "history %g .. %g", hist[0], hist[5]);
        CHECK(R.relres_true > TOL && fabs(R.relres_true - R.relres) < 1e-3 * R.relres, "true %.3e rec %.3e",
              R.relres_true, R.relres);
        hspmv_dist_destroy(&D);
    }
    hspmv_csr_free(&A);
}

/* A right-hand side near 1e300 (or 1e-300): its squares leave the double
   range, and ||b|| came out inf ("not finite") or 0 (x = 0 returned). The
   solvers scale b and x by a power of two, exactly: the same iterations and
   residuals as b near 1, x scaled back. */
static void rhs_near_1e300_and_1e_minus_300_solve_like_rhs_near_1(void)
{
    if (sizeof(hspmv_real) == 4) {
        SKIP("1e300 is no float: single precision's squares are summed in double and cannot overflow");
        return;
    }
    hspmv_dist *D = NULL;
    hspmv_error e = {0, ""};
    if (hspmv_dist_read("matrices/lap2d_64.mtx", MPI_COMM_WORLD, NULL, &D, &e)) {
        SKIP("%s", e.msg);
        return;
    }
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    hspmv_real *b1 = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    for (int64_t j = 0; j < in.ncols_local; j++) x[j] = 1;
    hspmv_dist_spmv(D, x, b1, &e);
    /* powers of two keep b = s*A*1 exact: the very same iteration (relres to
       the bit); 1e300 and 1.7e-300 round b: an iteration as close as another
       summation order's */
    static const double scales[] = {1, 0x1p997, 0x1p-997, 0x1p1015, 1e300, 1.7e-300};
    hspmv_solver_result r1 = {0};
    for (int method = 0; method < 2; method++)
        for (size_t k = 0; k < sizeof(scales) / sizeof(scales[0]); k++) {
            double sc = scales[k], err = 0;
            hspmv_solver_result res;
            for (int64_t j = 0; j < in.nrows_local; j++) b[j] = (hspmv_real)(b1[j] * sc);
            for (int64_t j = 0; j < in.ncols_local; j++) x[j] = 0;
            hspmv_solver_opts so;
            hspmv_solver_opts_default(&so);
            so.method = method == CG ? HSPMV_SOLVER_CG : HSPMV_SOLVER_BICGSTAB;
            int rc = hspmv_solve(D, b, x, &so, &res, &e);
            for (int64_t j = 0; j < in.ncols_local; j++) err = fmax(err, fabs((double)x[j] / sc - 1));
            MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            CHECK(rc == HSPMV_OK && err < 1e-5, "method %d, b = %g * A*1: rc %d (%s), max|x/s - 1| = %.3g", method, sc,
                  rc, rc ? e.msg : "", err);
            int exact = frexp(sc, &(int){0}) == 0.5;
            if (k == 0) r1 = res;
            else CHECK(exact ? res.iterations == r1.iterations && res.relres == r1.relres
                             : method == CG ? its_close(res.iterations, r1.iterations)
                                            : its_close_bicg(res.iterations, r1.iterations),
                       "method %d, b = %g * A*1: %lld iterations, relres %.6e; with b = A*1: %lld, %.6e", method, sc,
                       (long long)res.iterations, res.relres, (long long)r1.iterations, r1.relres);
        }
    b[0] = (hspmv_real)INFINITY; /* a non-finite b is refused on every rank */
    int rc = hspmv_solve(D, b, x, NULL, NULL, &e);
    CHECK(rc == HSPMV_ERR_ARG && strstr(e.msg, "inf or nan") && same_everywhere(MPI_COMM_WORLD, rc, e.msg),
          "inf in b: rc %d: %s", rc, e.msg);
    hspmv_free(x);
    hspmv_free(b);
    hspmv_free(b1);
    hspmv_dist_destroy(&D);
}

/* Argument errors are every rank's: a zero on the Jacobi diagonal, a
   non-square matrix; b = 0 gives x = 0 at once. */
static void bad_arguments_agree_and_zero_rhs(void)
{
    hspmv_csr A;
    if (read0(shared("west0479.mtx"), &A)) {
        run R = solve_root(MPI_COMM_WORLD, &A, HSPMV_PART_NNZ, BICG, 1, TOL, 100, 0, NULL);
        CHECK(R.rc == -HSPMV_ERR_ARG || R.rc == HSPMV_ERR_ARG, "west0479 jacobi: %d %s", R.rc, R.msg);
        hspmv_csr_free(&A);
    }
    if (read0(shared("lp_ship04l.mtx"), &A)) {
        hspmv_dist *D = NULL;
        hspmv_error e;
        if (hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, NULL, &D, &e) == HSPMV_OK) {
            hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
            int rc = hspmv_solve(D, b, x, NULL, NULL, &e);
            CHECK(rc == HSPMV_ERR_ARG && same_everywhere(MPI_COMM_WORLD, rc, e.msg) && strstr(e.msg, "not square"),
                  "non-square: %d %s", rc, e.msg);
            hspmv_free(x);
            hspmv_free(b);
            hspmv_dist_destroy(&D);
        }
        hspmv_csr_free(&A);
    }
    if (read0("matrices/lap3d_12.mtx", &A)) {
        hspmv_dist *D = NULL;
        hspmv_error e;
        hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, NULL, &D, &e);
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        for (int64_t j = 0; j < in.ncols_local; j++) x[j] = 7;
        hspmv_solver_result res;
        hspmv_solver_opts so;
        hspmv_solver_opts_default(&so);
        for (int m = HSPMV_SOLVER_CG; m <= HSPMV_SOLVER_LSQR; m++) { /* every method: x = 0, CONVERGED_ZERO_RHS */
            for (int64_t j = 0; j < in.ncols_local; j++) x[j] = 7;
            so.method = m;
            int rc = hspmv_solve(D, b, x, &so, &res, &e);
            int nz = 0;
            for (int64_t j = 0; j < in.ncols_local; j++) nz += x[j] != 0;
            CHECK(rc == HSPMV_OK && res.iterations == 0 && nz == 0 && res.reason == HSPMV_CONVERGED_ZERO_RHS &&
                      !strcmp(res.reason_name, "CONVERGED_ZERO_RHS"),
                  "method %d, b = 0: %d, %lld its, %d non-zeros, %s", m, rc, (long long)res.iterations, nz,
                  res.reason_name);
        }
        hspmv_free(x);
        hspmv_free(b);
        hspmv_dist_destroy(&D);
        hspmv_csr_free(&A);
    }
}

/* My rows of the 2D convection-diffusion operator -lap(u) + c u_x (upwind)
   on an m x m grid, global columns: nonsymmetric, diagonally dominant. */
static void convdiff_rows(int64_t m, double c, int64_t lo, int64_t hi, int64_t **rp, int64_t **ci, hspmv_real **v)
{
    int64_t nl = hi - lo, k = 0;
    *rp = malloc(sizeof(int64_t) * (size_t)(nl + 1));
    *ci = malloc(sizeof(int64_t) * (size_t)(5 * nl + 1));
    *v = malloc(sizeof(hspmv_real) * (size_t)(5 * nl + 1));
    (*rp)[0] = 0;
    for (int64_t i = lo; i < hi; i++) {
        int64_t r = i / m, q = i % m;
        if (q < m - 1) (*ci)[k] = i + 1, (*v)[k++] = -1; /* columns in any order */
        (*ci)[k] = i, (*v)[k++] = (hspmv_real)(4 + c);
        if (r > 0) (*ci)[k] = i - m, (*v)[k++] = -1;
        if (q > 0) (*ci)[k] = i - 1, (*v)[k++] = (hspmv_real)(-1 - c);
        if (r < m - 1) (*ci)[k] = i + m, (*v)[k++] = -1;
        (*rp)[i - lo + 1] = k;
    }
}

/* Builds the convection-diffusion matrix on comm from each rank's own rows
   (the last rank owning none when comm has more than one rank) and solves
   with BiCGStab, plain (R[0]) and Jacobi (R[1]). */
static int convdiff_solve(MPI_Comm comm, int64_t m, run R[2])
{
    int np, r, rc;
    MPI_Comm_size(comm, &np);
    MPI_Comm_rank(comm, &r);
    int64_t n = m * m, *rp, *ci;
    int64_t lo = np == 1 ? 0 : r >= np - 1 ? n : n * r / (np - 1);
    int64_t hi = np == 1 ? n : r >= np - 1 ? n : n * (r + 1) / (np - 1);
    hspmv_real *v;
    convdiff_rows(m, 2.0, lo, hi, &rp, &ci, &v);
    hspmv_dist *D = NULL;
    hspmv_error e;
    memset(R, 0, 2 * sizeof(run));
    rc = hspmv_dist_create(comm, hi - lo, n, -1, rp, ci, v, NULL, &D, &e);
    if (rc) snprintf(R[0].msg, sizeof(R[0].msg), "create from own rows: %.400s", e.msg);
    else {
        hspmv_real *diag = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        for (int64_t i = 0; i < hi - lo; i++) diag[i] = (hspmv_real)(4 + 2.0);
        R[0] = solve_dist(D, BICG, NULL, TOL, 500, 0, NULL, NULL, 0);
        R[1] = solve_dist(D, BICG, diag, TOL, 500, 0, NULL, NULL, 0);
        hspmv_free(diag);
        hspmv_dist_destroy(&D);
    }
    free(rp);
    free(ci);
    free(v);
    return rc;
}

/* My rows [lo, hi) of an n x n matrix: "swap" exchanges the entries of
   each pair (2k, 2k+1) (row i has a 1 in column i^1), "big" is 1e308 times
   the identity (in single precision 3e38). */
static hspmv_dist *own_rows_matrix(const char *kind, int64_t n, hspmv_error *e)
{
    int64_t lo = n * me / P, hi = n * (me + 1) / P, rp[4096 + 1], ci[4096];
    hspmv_real v[4096];
    hspmv_dist *D = NULL;
    if (hi - lo > 4096) return NULL;
    rp[0] = 0;
    for (int64_t i = lo; i < hi; i++) {
        ci[i - lo] = strcmp(kind, "swap") ? i : i ^ 1;
        v[i - lo] = strcmp(kind, "swap") ? (hspmv_real)(SINGLE ? 3e38 : 1e308) : 1;
        rp[i - lo + 1] = i - lo + 1;
    }
    hspmv_dist_create(MPI_COMM_WORLD, hi - lo, n, -1, rp, ci, v, NULL, &D, e);
    return D;
}

/* The DIVERGED_ reasons not seen elsewhere, each on a matrix that must
   give it at iteration 1 on any rank count: BiCGStab on the pair swap with
   b = 1 on even rows (r0'v = r0'A r0 = 0, no progress yet:
   DIVERGED_BREAKDOWN); CG on 1e308*I (float: 3e38) with b = 2 (A*p
   overflows to inf in the working precision: DIVERGED_NANORINF). Statuses, reasons and messages are every rank's. */
static void breakdown_and_nan_or_inf_reasons(void)
{
    static const struct { const char *kind; int method, reason, status; const char *name; } cs[] = {
        {"swap", HSPMV_SOLVER_BICGSTAB, HSPMV_DIVERGED_BREAKDOWN, HSPMV_ERR_BREAKDOWN, "DIVERGED_BREAKDOWN"},
        {"big", HSPMV_SOLVER_CG, HSPMV_DIVERGED_NANORINF, HSPMV_ERR_BREAKDOWN, "DIVERGED_NANORINF"},
    };
    for (size_t c = 0; c < sizeof(cs) / sizeof(cs[0]); c++) {
        hspmv_error e = {0, ""};
        hspmv_dist *D = own_rows_matrix(cs[c].kind, 64, &e);
        CHECK(D != NULL, "%s: %s", cs[c].kind, e.msg);
        if (!D) continue;
        hspmv_dist_info in;
        hspmv_dist_get_info(D, &in);
        hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
        for (int64_t i = 0; i < in.nrows_local; i++) b[i] = c == 0 ? (hspmv_real)((in.row_begin + i) % 2 == 0) : 2;
        hspmv_solver_opts so;
        hspmv_solver_opts_default(&so);
        so.method = cs[c].method;
        hspmv_solver_result res;
        int rc = hspmv_solve(D, b, x, &so, &res, &e);
        CHECK(rc == cs[c].status && res.reason == cs[c].reason && !strcmp(res.reason_name, cs[c].name) &&
                  res.iterations == 0 && same_everywhere(MPI_COMM_WORLD, rc, e.msg),
              "%s: status %d, reason %d %s after %lld: %s", cs[c].kind, rc, res.reason, res.reason_name,
              (long long)res.iterations, e.msg);
        if (me == 0) fprintf(stderr, "  %s: %s (%s)\n", cs[c].kind, res.reason_name, e.msg);
        hspmv_free(x);
        hspmv_free(b);
        hspmv_dist_destroy(&D);
    }
}

/* BiCGStab (plain and Jacobi) on a nonsymmetric matrix made from each
   rank's own rows, one rank owning none: the iterations of one rank. */
static void bicgstab_on_own_rows_convdiff_same_iterations(void)
{
    int64_t m = 40;
    run S[2], R[2];
    int src = 0;
    if (me == 0) src = convdiff_solve(MPI_COMM_SELF, m, S);
    MPI_Bcast(&src, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(S, (int)sizeof(S), MPI_BYTE, 0, MPI_COMM_WORLD);
    int rc = convdiff_solve(MPI_COMM_WORLD, m, R);
    CHECK(src == HSPMV_OK && rc == HSPMV_OK, "%s %s", S[0].msg, R[0].msg);
    if (src || rc) return;
    for (int k = 0; k < 2; k++) {
        CHECK(R[k].rc == HSPMV_OK && R[k].agreed && R[k].relres_true <= TOL, "%s: %s", k ? "jacobi" : "plain",
              R[k].msg);
        CHECK(its_close_bicg(R[k].its, S[k].its), "%lld iterations at %d ranks, %lld on 1",
              (long long)R[k].its, P, (long long)S[k].its);
        CHECK(R[k].err_max < (SINGLE ? 1e-2 : 1e-5), "max|x-1| = %.3e", R[k].err_max);
    }
    if (me == 0)
        fprintf(stderr, "  convdiff %lld: bicgstab %lld iterations, +jacobi %lld (1 rank: %lld, %lld)\n",
                (long long)(m * m), (long long)R[0].its, (long long)R[1].its, (long long)S[0].its,
                (long long)S[1].its);
}

/* The same rows through hspmv_dist_create (each rank its own rows, global
   columns) and through the file path give the same y (bit for bit here,
   the docs/design.md bound at least) and the same CG iterations. */
static void own_rows_matches_file_path(void)
{
    const char *path = "matrices/lap2d_64.mtx";
    hspmv_csr A;
    memset(&A, 0, sizeof(A));
    if (tl_read_csr(path, &A) != HSPMV_OK) { /* every rank reads: small matrix */
        SKIP("%s missing", path);
        return;
    }
    for (int part = 0; part < 2; part++) {
        hspmv_opts o;
        hspmv_opts_default(&o);
        o.partition = part;
        hspmv_dist *F = NULL, *M = NULL;
        hspmv_error e;
        if (hspmv_dist_read(path, MPI_COMM_WORLD, &o, &F, &e)) {
            CHECK(0, "read: %s", e.msg);
            break;
        }
        int64_t *rs = malloc(sizeof(int64_t) * (size_t)(P + 1));
        hspmv_dist_get_ranges(F, rs, NULL);
        int64_t lo = rs[me], hi = rs[me + 1], base = A.rowptr[lo];
        int64_t *rp = malloc(sizeof(int64_t) * (size_t)(hi - lo + 1)), *ci = malloc(sizeof(int64_t) * (size_t)(A.rowptr[hi] - base + 1));
        for (int64_t i = lo; i <= hi; i++) rp[i - lo] = A.rowptr[i] - base;
        for (int64_t k = base; k < A.rowptr[hi]; k++) ci[k - base] = A.colind[k];
        int rc = hspmv_dist_create(MPI_COMM_WORLD, hi - lo, A.ncols, -1, rp, ci, A.val + base, NULL, &M, &e);
        CHECK(rc == HSPMV_OK, "own rows: %s", e.msg);
        if (!rc) {
            hspmv_real *x = hspmv_dist_vec_alloc(F, HSPMV_VEC_COLS, 1), *y1 = hspmv_dist_vec_alloc(F, HSPMV_VEC_ROWS, 1),
                       *y2 = hspmv_dist_vec_alloc(M, HSPMV_VEC_ROWS, 1), *xg = malloc(sizeof(hspmv_real) * (size_t)A.ncols),
                       *yg = malloc(sizeof(hspmv_real) * (size_t)A.nrows);
            tl_fill(xg, A.ncols, 7);
            for (int64_t j = lo; j < hi; j++) x[j - lo] = xg[j];
            hspmv_dist_spmv(F, x, y1, &e);
            hspmv_dist_spmv(M, x, y2, &e);
            int64_t diff = 0;
            for (int64_t i = 0; i < hi - lo; i++) diff += y1[i] != y2[i];
            MPI_Allreduce(MPI_IN_PLACE, &diff, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            hspmv_dist_gather(M, HSPMV_VEC_ROWS, y2, yg, &e);
            int ok = me != 0 || tl_matches_ref(&A, xg, yg, "own rows");
            MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
            CHECK(ok, "own-rows y outside the docs/design.md bound (%s)", part_name[part]);
            if (me == 0 && diff) fprintf(stderr, "  own rows vs file (%s): %lld entries differ in the last bits\n",
                                         part_name[part], (long long)diff);
            run a = solve_dist(F, CG, NULL, TOL, 1000, 0, NULL, NULL, 0), b = solve_dist(M, CG, NULL, TOL, 1000, 0, NULL, NULL, 0);
            CHECK(a.rc == HSPMV_OK && b.rc == HSPMV_OK && its_close(a.its, b.its),
                  "cg: file %lld its (%d), own rows %lld (%d)", (long long)a.its, a.rc, (long long)b.its, b.rc);
            hspmv_free(x);
            hspmv_free(y1);
            hspmv_free(y2);
            free(xg);
            free(yg);
        }
        free(rs);
        free(rp);
        free(ci);
        hspmv_dist_destroy(&F);
        hspmv_dist_destroy(&M);
    }
    hspmv_csr_free(&A);
}

int main(int argc, char **argv)
{
    int prov;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (me != 0) { /* only rank 0 reports (the verdicts are agreed anyway) */
        if (!freopen("/dev/null", "w", stdout)) return 1;
        if (!getenv("HSPMV_TEST_VERBOSE") && !freopen("/dev/null", "w", stderr)) return 1;
    }
    MRUN(cg_converges_on_laplacians_same_iterations_any_ranks_and_partition);
    MRUN(cg_converges_on_shared_spd_matrices_same_iterations);
    MRUN(bicgstab_converges_on_nonsymmetric_files);
    MRUN(bicgstab_solves_e05r0000_with_its_rhs);
    MRUN(bicgstab_on_own_rows_convdiff_same_iterations);
    MRUN(cg_reports_breakdown_or_noconv_when_not_spd);
    MRUN(too_small_maxit_reports_noconv);
    MRUN(breakdown_and_nan_or_inf_reasons);
    MRUN(bad_arguments_agree_and_zero_rhs);
    MRUN(rhs_near_1e300_and_1e_minus_300_solve_like_rhs_near_1);
    MRUN(own_rows_matches_file_path);
    MPI_Finalize();
    CHECK_DONE();
}
