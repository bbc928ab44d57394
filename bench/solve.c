/* solve.c — the solver program: rank 0 reads the matrix, it is distributed,
   the SpMV is validated against the long-double reference, then CG,
   BiCGStab, CGLS or LSQR (hspmv_solve) solves A*x = b, or min ||A*x - b||
   for a rectangular A, with b from a file or b = A*1 (HPCG: the exact
   solution x* = 1 is known), and the outcome is checked and reported. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "mpi_check.h"
#include "mpi_gen.h"
#include "mpi_gpu.h"
#include "mpi_prog.h"
#include "alloc.h"

static const char *prog = "solve";
static int me, P;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n P %s matrix.mtx[.gz] [--rhs b.mtx] [--method cg|bicgstab|cgls|lsqr]\n"
            "         [--tol T] [--maxit N] [--jacobi] [--out x.mtx] [--partition nnz|rows|metis]\n"
            "         [--read root|parallel] [--threads N] [--reps N] [--verbose] [--progress auto|on|off]\n"
            "         [--reorder none|rcm|nd|auto]\n"
            "       mpirun -n P solve --gen KIND N [--values stencil|random] [--seed S] [options]\n"
            "  Solves A*x = b from x0 = 0 (cgls, lsqr: min ||A*x - b||, A of any shape). Without\n"
            "  --rhs, b = A*1 so the exact solution is x* = 1 and the error max|x - 1| is reported\n"
            "  (not for more columns than rows: the solution is not unique). --rhs reads a Matrix\n"
            "  Market vector (array or coordinate, m x 1) in the file ordering. Defaults: cg, tol 1e-8\n"
            "  (1e-5 in single precision), maxit 1000, partition nnz, reps 1. --jacobi: diagonal\n"
            "  preconditioner (cg, bicgstab). --out writes x (file ordering) as a Matrix Market\n"
            "  array. --reps N solves N times and reports the median time per iteration.\n"
            "  --verbose prints the residual of every iteration. Exit status 1 unless converged.\n"
            "  --read parallel: every rank reads a byte range of the matrix file (gzip: rank 0 reads it).\n"
            "  --reorder: rank 0 orders the matrix for locality before the split (docs/reordering.md);\n"
            "  the iterations run in that order, b and x move once (the root read of a square matrix).\n"
            "  --gen KIND N: no file; every rank makes its own rows of genmat's matrix (KIND lap2d, lap3d,\n"
            "  lap3d27, random[:K], powerlaw[:K]), split by nonzeros.\n"
            "  --progress: rank 0's lines on stderr for the read and the distribution (auto: on a terminal\n"
            "  after 2 s, elsewhere every 5 s; on: every 2 s and when each step ends; off).\n"
            "  --gpu: CG with its vectors on the GPUs, one rank each (make CUDA=1); see solve --gpu --help.\n",
            bu_invoked_name());
}

/* Rank 0's status becomes everyone's (rank 0 did the work alone). */
static void agree0(int rc, hspmv_error *e)
{
    e->code = rc;
    MPI_Bcast(e, (int)sizeof(*e), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (e->code) mp_die(e);
}

/* Rank 0: the right-hand side from a Matrix Market vector (n x 1 or 1 x n). */
static int read_rhs(const char *path, int64_t n, hspmv_real **b, hspmv_error *e)
{
    hspmv_coo c = {0};
    int rc = hspmv_mtx_read(path, &c, NULL, NULL, e);
    if (rc) return rc;
    int64_t len = c.ncols == 1 ? c.nrows : c.nrows == 1 ? c.ncols : -1;
    if (len != n) {
        snprintf(e->msg, sizeof(e->msg), "%s: %lld x %lld is not a vector of the matrix's %lld rows", path,
                 (long long)c.nrows, (long long)c.ncols, (long long)n);
        hspmv_coo_free(&c);
        return HSPMV_ERR_FORMAT;
    }
    *b = hspmv_calloc((size_t)n + 1, sizeof(hspmv_real));
    if (!*b) {
        hspmv_coo_free(&c);
        snprintf(e->msg, sizeof(e->msg), "out of memory for the right-hand side");
        return HSPMV_ERR_NOMEM;
    }
    for (int64_t k = 0; k < c.nnz; k++) (*b)[c.ncols == 1 ? c.row[k] : c.col[k]] += c.val[k];
    hspmv_coo_free(&c);
    return HSPMV_OK;
}

/* Rank 0: x (n entries, file ordering) as a Matrix Market array, n x 1,
   each value in digits that read back to the same bits; the write and the
   close are checked, a file not finished is removed. */
static int write_x(const char *path, const hspmv_real *x, int64_t n, hspmv_error *e)
{
    FILE *f = fopen(path, "w");
    int ok = f != NULL;
    if (ok) ok = fprintf(f, "%%%%MatrixMarket matrix array real general\n%lld 1\n", (long long)n) > 0;
    for (int64_t i = 0; ok && i < n; i++) ok = fprintf(f, "%.*g\n", sizeof(hspmv_real) == 8 ? 17 : 9, (double)x[i]) > 0;
    if (f && fclose(f) != 0) ok = 0;
    if (ok) return HSPMV_OK;
    snprintf(e->msg, sizeof(e->msg), "%s: cannot write the solution: %s", path, strerror(errno));
    if (f) remove(path);
    return HSPMV_ERR_IO;
}

static hspmv_real one(int64_t j)
{
    (void)j;
    return 1;
}

static void monitor(int64_t it, double relres, void *ctx)
{
    (void)ctx;
    if (me == 0) printf("  it %5lld  relres %.6e\n", (long long)it, relres);
}

int main(int argc, char **argv)
{
    bu_version(argc, argv, "solve"); /* --version: prints it and exits 0 */
    if (mg_wants_gpu(argc, argv)) return mg_solve_main(argc, argv); /* mpi_gpu.c */
    const char *path = NULL, *rhs = NULL, *out = NULL, *part_names[] = {"nnz", "rows", "metis"};
    const char *meth_names[] = {"cg", "bicgstab", "cgls", "lsqr"};
    int jacobi = 0, verbose = 0, par = 0;
    long reps = 1;
    hspmv_opts o;
    hspmv_solver_opts so;
    hspmv_error e = {0, ""};
    hspmv_csr A = {0};
    mg_args gen;
    double gen_s = 0;

    mp_start(&argc, &argv, prog, usage, &me, &P);
    bu_progress_rank(me); /* progress from rank 0 only */
    hspmv_opts_default(&o);
    hspmv_solver_opts_default(&so);
    mg_init(&gen);
    if (sizeof(hspmv_real) == 4) so.tol = 1e-5; /* 1e-8 is below single precision's reach */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--rhs")) rhs = bu_value(argc, argv, &i);
        else if (!strcmp(a, "--maxit")) so.maxit = bu_parse_int(a, bu_value(argc, argv, &i), 1, 1000000000);
        else if (!strcmp(a, "--reps")) reps = bu_parse_int(a, bu_value(argc, argv, &i), 1, BU_MAX_REPS);
        else if (!strcmp(a, "--threads")) o.threads = mp_parse_threads(a, bu_value(argc, argv, &i));
        else if (!strcmp(a, "--tol")) so.tol = bu_parse_real(a, bu_value(argc, argv, &i), 0, 1);
        else if (!strcmp(a, "--out")) out = bu_value(argc, argv, &i);
        else if (!strcmp(a, "--method")) {
            v = bu_value(argc, argv, &i);
            so.method = -1;
            for (int k = 0; k < 4; k++)
                if (!strcmp(v, meth_names[k])) so.method = k; /* HSPMV_SOLVER_CG, _BICGSTAB, _CGLS, _LSQR */
            if (so.method < 0) bu_fail("--method takes cg, bicgstab, cgls or lsqr, not '%.40s'", v);
        } else if (!strcmp(a, "--partition")) {
            if ((o.partition = bu_partition_of(v = bu_value(argc, argv, &i))) < 0)
                bu_fail("--partition takes nnz, rows or metis, not '%.40s'", v);
        } else if (!strcmp(a, "--read")) {
            v = bu_value(argc, argv, &i);
            if (!strcmp(v, "parallel")) par = 1;
            else if (!strcmp(v, "root")) par = 0;
            else bu_fail("--read takes root or parallel, not '%.40s'", v);
        } else if (!strcmp(a, "--jacobi")) jacobi = 1;
        else if (!strcmp(a, "--reorder")) o.reorder = bu_parse_reorder(a, bu_value(argc, argv, &i));
        else if (!strcmp(a, "--verbose")) verbose = 1;
        else if (!strcmp(a, "--progress")) bu_progress_set(bu_parse_progress(a, bu_value(argc, argv, &i)));
        else if (!mg_parse(argc, argv, &i, &gen)) mp_other_arg(a, &path);
    }
    path = mg_finish(&gen, path);
    mp_need_path(path);
    mp_check_threads(o.threads);
    int lsq = so.method == HSPMV_SOLVER_CGLS || so.method == HSPMV_SOLVER_LSQR;
    if (jacobi && lsq) bu_fail("--jacobi is for cg and bicgstab, not %s", meth_names[so.method]);

    /* rank 0 reads matrix and right-hand side (the status is everyone's),
       or every rank reads a byte range of the matrix */
    int rc = HSPMV_OK;
    hspmv_real *bg = NULL, *yg = NULL, *onesg = NULL;
    hspmv_dist *D = NULL;
    mc_rows R = {0};
    if (gen.s.kind) { /* every rank its own rows, kept for the check and the diagonal (as --read parallel) */
        par = 1;
        if (mg_rows(&gen, o.threads, &R, &gen_s, &e) || mg_create(&R, &o, &D, &e)) mp_die(&e);
        if (me == 0) printf("  generated %s in %.3f s (max over ranks)\n", path, gen_s);
    } else if (!par) {
        if (me == 0) {
            hspmv_read_opts ro = bu_progress_opts(path);
            ro.threads = o.threads;
            rc = hspmv_csr_read(path, &A, &ro, NULL, &e);
            if (rc) bu_step_abort(); /* no "done" for a failed read */
            else bu_step_end();
        }
        agree0(rc, &e);
        char step[64];
        snprintf(step, sizeof(step), "partitioning, distributing to %d ranks and preparing", P);
        bu_step_begin(step, me == 0 ? (double)(A.nrows + 1) * 8 + (double)A.nnz * (4.0 + sizeof(hspmv_real)) : 0, NULL);
        if (hspmv_dist_create_root(MPI_COMM_WORLD, me == 0 ? &A : NULL, &o, &D, &e)) mp_die(&e);
        bu_step_end();
    } else {
        o.read = HSPMV_READ_PARALLEL;
        bu_step_begin("reading on every rank, partitioning, distributing and preparing", 0, NULL);
        if (hspmv_dist_read(path, MPI_COMM_WORLD, &o, &D, &e)) mp_die(&e);
        bu_step_end();
    }
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    if (me == 0 && rhs) rc = read_rhs(rhs, in.nrows, &bg, &e);
    agree0(rc, &e);
    if (in.nrows != in.ncols && !lsq) {
        char m[200];
        snprintf(m, sizeof(m), "%s needs a square matrix, this one is %lld x %lld: use --method cgls or lsqr "
                 "(least squares)", meth_names[so.method], (long long)in.nrows, (long long)in.ncols);
        mp_die_msg(m);
    }

    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *b = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1),
               *ones = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *diag = NULL;
    if (jacobi) diag = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    int nomem = !x || !b || !ones || (jacobi && !diag);
    if (me == 0) {
        yg = hspmv_malloc(((size_t)in.nrows + 1) * sizeof(hspmv_real));
        onesg = hspmv_malloc(((size_t)in.ncols + 1) * sizeof(hspmv_real)); /* also --out's x */
        nomem |= !yg || !onesg;
    }
    MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (nomem) mp_die_msg("out of memory for the vectors");

    /* validate before timing: y = A*1 against the long-double reference */
    for (int64_t j = 0; j < in.ncols_local; j++) ones[j] = 1;
    if (hspmv_dist_spmv(D, ones, b, &e)) mp_die(&e);
    hspmv_check chk = {0};
    if (!par) {
        if (hspmv_dist_gather(D, HSPMV_VEC_ROWS, b, yg, &e)) mp_die(&e);
        if (me == 0) {
            for (int64_t j = 0; j < A.ncols; j++) onesg[j] = 1;
            hspmv_ref_check(&A, onesg, yg, 2.0, &chk);
        }
        MPI_Bcast(&chk, (int)sizeof(chk), MPI_BYTE, 0, MPI_COMM_WORLD);
    } else if ((!gen.s.kind && mc_rows_read(path, o.threads, &R, &e)) || mc_check(&R, D, b, yg, one, &chk, &e)) {
        mp_die(&e);
    }
    if (chk.violations || chk.overflows) {
        char m[300];
        if (chk.violations)
            snprintf(m, sizeof(m), "SpMV validation failed: y = A*1 violates the docs/design.md bound in %lld rows (first row %lld)",
                     (long long)chk.violations, (long long)chk.first_bad + 1);
        else
            snprintf(m, sizeof(m), "y = A*1 overflows the %s range in %lld rows (first row %lld): the matrix's row sums "
                     "are not representable; scale the matrix", sizeof(hspmv_real) == 4 ? "float" : "double",
                     (long long)chk.overflows, (long long)chk.first_overflow + 1);
        mp_die_msg(m);
    }
    if (rhs && hspmv_dist_scatter(D, HSPMV_VEC_ROWS, bg, b, &e)) mp_die(&e); /* else b = A*1 */
    if (jacobi && hspmv_dist_get_diagonal(D, diag, &e)) mp_die(&e);
    hspmv_csr_free(&A);
    mc_rows_free(&R);
    so.diag = diag;
    if (verbose) so.monitor = monitor;

    /* solve reps times from x0 = 0; median time per iteration */
    double *tpi = calloc((size_t)reps, sizeof(double)), share = 0;
    nomem = !tpi;
    MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (nomem) mp_die_msg("out of memory for the timings of --reps");
    hspmv_solver_result res = {0};
    hspmv_error se = {0, ""};
    int status = HSPMV_OK;
    for (long r = 0; r < reps; r++) {
        for (int64_t j = 0; j < in.ncols_local; j++) x[j] = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        status = hspmv_solve(D, b, x, &so, &res, &se);
        double t[2] = {res.total_s, res.spmv_s}, tmax, tsum[2];
        MPI_Allreduce(&t[0], &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(t, tsum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tpi[r] = tmax / (double)(res.iterations > 0 ? res.iterations : 1);
        share = tsum[0] > 0 ? tsum[1] / tsum[0] : 0;
        if (status && status != HSPMV_ERR_NOCONV && status != HSPMV_ERR_BREAKDOWN) mp_die(&se);
    }
    double med = 0, mn = 0, mx = 0;
    bu_stats(tpi, (int)reps, &med, &mn, &mx);

    /* error against x* = 1 when b = A*1 (unique only with no more columns
       than rows); ||b|| for the residual's norm */
    double err_loc = 0, err_max = -1, bb = 0;
    for (int64_t j = 0; j < in.ncols_local; j++) err_loc = fmax(err_loc, fabs((double)x[j] - 1.0));
    for (int64_t i = 0; i < in.nrows_local; i++) bb += (double)b[i] * b[i];
    MPI_Allreduce(&err_loc, &err_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rhs || in.ncols > in.nrows) err_max = -1;
    double rnorm = res.relres_true >= 0 ? res.relres_true * sqrt(bb) : -1;
    /* --out: x in the file ordering, written by rank 0 */
    if (out) {
        rc = hspmv_dist_gather(D, HSPMV_VEC_COLS, x, onesg, &e);
        if (rc) mp_die(&e);
        if (me == 0) rc = write_x(out, onesg, in.ncols, &e);
        agree0(rc, &e);
    }

    if (me == 0) {
        const char *prec = sizeof(hspmv_real) == 8 ? "double" : "single";
        int thr = in.owned.threads > 0 ? in.owned.threads : 1;
        const char *meth = meth_names[so.method];
        printf("matrix=%s rows=%lld cols=%lld nnz=%lld precision=%s ranks=%d threads=%d partition=%s\n", path,
               (long long)in.nrows, (long long)in.ncols, (long long)in.nnz, prec, P, thr, part_names[in.partition]);
        printf("  spmv check y=A*1: ok (worst %.3g of the docs/design.md bound)\n", chk.worst);
        printf("  method %s%s, b = %s, tol %.1e, maxit %lld\n", meth, jacobi ? " + jacobi" : "",
               rhs ? rhs : "A*1 (x* = 1)", so.tol, (long long)so.maxit);
        printf("  status: %s (%s)%s%s\n", status ? hspmv_strerror(status) : "converged", res.reason_name,
               status ? ": " : "", status ? se.msg : "");
        printf("  iterations %lld, relative residual %.3e (recurrence), %.3e (recomputed ||b-Ax||/||b||), "
               "||b-Ax|| = %.6e\n", (long long)res.iterations, res.relres, res.relres_true, rnorm);
        if (err_max >= 0) printf("  error vs x* = 1: max|x - 1| = %.3e\n", err_max);
        printf("  time per iteration %.4g ms (median of %ld, min %.4g, max %.4g), spmv share %.1f%%, "
               "%lld spmv calls\n", med * 1e3, reps, mn * 1e3, mx * 1e3, 100 * share, (long long)res.spmv_calls);
        if (out) printf("  solution written to %s\n", out);
        printf("bench=solve matrix=%s precision=%s ranks=%d threads=%d partition=%s method=%s jacobi=%d "
               "tol=%.3g status=%d iterations=%lld reason=%s relres=%.6e relres_true=%.6e rnorm=%.6e err_max=%.6e "
               "ms_per_iter=%.6g ms_per_iter_min=%.6g ms_per_iter_max=%.6g spmv_share=%.4f reps=%ld "
               "reorder=%s bandwidth_before=%lld bandwidth_after=%lld reorder_s=%.4f",
               path, prec, P, thr, part_names[in.partition], meth, jacobi, so.tol, status,
               (long long)res.iterations, res.reason_name, res.relres, res.relres_true, rnorm, err_max, med * 1e3, mn * 1e3, mx * 1e3,
               share, reps, bu_reorder_name(in.reorder), (long long)in.bandwidth_before, (long long)in.bandwidth_after,
               in.reorder_s);
        bu_meta_kv(stdout, 0, 0);
        printf("\n");
        fflush(stdout);
    }
    free(tpi);
    hspmv_free(x);
    hspmv_free(b);
    hspmv_free(ones);
    hspmv_free(diag);
    hspmv_free(bg);
    hspmv_free(yg);
    hspmv_free(onesg);
    hspmv_dist_destroy(&D);
    if (me == 0) bu_check_stdout(); /* results lost on a full disk are a failure */
    if (status) mp_die(&se);
    MPI_Finalize();
    return 0;
}
