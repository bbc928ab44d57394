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
#include "bench_out.h"
#include "bench_util.h"
#include "mpi_check.h"
#include "mpi_gen.h"
#include "mpi_gpu.h"
#include "mpi_prog.h"
#include "alloc.h"
#include "solve_model.h"

static const char *prog = "solve";
static int me, P;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n P %s matrix.mtx[.gz] [--rhs b.mtx] [--method cg|pipecg|bicgstab|cgls|lsqr]\n"
            "         [--tol T] [--maxit N] [--jacobi] [--out x.mtx] [--partition nnz|rows|metis]\n"
            "         [--read root|parallel] [--threads N] [--reps N] [--verbose] [--progress auto|on|off]\n"
            "         [--reorder none|rcm|nd|auto] [--symmetric auto|no|yes]\n"
            "       mpirun -n P solve --gen KIND N [--values stencil|random] [--seed S] [options]\n"
            "  Solves A*x = b from x0 = 0 (cgls, lsqr: min ||A*x - b||, A of any shape). Without\n"
            "  --rhs, b = A*1 so the exact solution is x* = 1 and the error max|x - 1| is reported\n"
            "  (not for more columns than rows: the solution is not unique). --rhs reads a Matrix\n"
            "  Market vector (array or coordinate, m x 1 or 1 x m) in the file ordering. Defaults: cg, tol 1e-8\n"
            "  (1e-5 in single precision), maxit 1000, partition nnz, reps 3. --jacobi: diagonal\n"
            "  preconditioner (cg, pipecg, bicgstab). --out writes x (file ordering) as a Matrix Market\n"
            "  array (gzip when the name ends in .gz), opened before the solve, under a temporary name\n"
            "  renamed over it when complete; the matrix's or --rhs's own file is refused.\n"
            "  --reps N solves N times: the first apart (it first touches the work vectors),\n"
            "  the median time per iteration of the others, beside the standalone product and the\n"
            "  byte model of an iteration at that product's bandwidth.\n"
            "  --verbose prints the residual of every iteration. Exit status 1 unless converged.\n"
            "  --read parallel: every rank reads a byte range of the matrix file (gzip: rank 0 reads it).\n"
            "  --reorder: rank 0 orders the matrix for locality before the split (docs/reordering.md);\n"
            "  the iterations run in that order, b and x move once (a square Matrix Market file; with\n"
            "  --read parallel rank 0 gathers the pattern to order it).\n"
            "  --symmetric: no (default) keeps both triangles; auto keeps each rank's lower triangle of a\n"
            "  matrix checked symmetric across the ranks (the products' mirrored sums travel back in the\n"
            "  halo exchange, by p2p messages); yes insists (an error when it is not symmetric).\n"
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
   each value in digits that read back to the same bits, into --out's file
   opened before the solve (bench_out: a temporary name renamed over the
   target when complete, gzip for a name ending in .gz); a failed write
   removes the temporary file only. */
static int write_x(bo_file *o, const hspmv_real *x, int64_t n, hspmv_error *e)
{
    bo_printf(o, "%%%%MatrixMarket matrix array real general\n%lld 1\n", (long long)n);
    for (int64_t i = 0; !o->err && i < n; i++) bo_printf(o, "%.*g\n", sizeof(hspmv_real) == 8 ? 17 : 9, (double)x[i]);
    if (!bo_commit(o, e->msg, sizeof(e->msg))) return HSPMV_OK;
    char m[sizeof(e->msg)];
    snprintf(m, sizeof(m), "--out: %s", e->msg); /* "--out: writing PATH: why" */
    snprintf(e->msg, sizeof(e->msg), "%s", m);
    return HSPMV_ERR_IO;
}

/* Every rank: rank 0 opens --out's file before any work (refused: the same
   file as the matrix or --rhs, a folder, '-', a path that cannot be
   created); the refusal is everyone's, exit status 2. */
static void open_out(bo_file *o, const char *out, const char *path, const char *rhs)
{
    struct { int st; char msg[1024]; } r = {0, ""};
    const char *ins[2] = {path, rhs};
    size_t len = strlen(out);
    if (me == 0)
        r.st = bo_open(o, "--out", out, ins, 2, BO_STREAM | (len > 3 && !strcmp(out + len - 3, ".gz") ? BO_GZIP : 0),
                       r.msg, sizeof(r.msg));
    MPI_Bcast(&r, (int)sizeof(r), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (r.st) bu_fail_status(r.st, "%s", r.msg);
}

/* A run that stopped at maxit: the message quotes the true relative
   residual ||b - A*x||/||b||, not the recurrence's (which drifts far below
   what x achieves once the true one stalls at the rounding level, e.g.
   with --tol 0). cg and bicgstab only: cgls and lsqr stop on another norm. */
static void quote_true_residual(hspmv_error *se, const hspmv_solver_result *res, double tol)
{
    char *cut = strstr(se->msg, "iterations:"), m[sizeof(se->msg)];
    if (!cut || res->relres_true < 0) return;
    cut[strlen("iterations:")] = 0;
    snprintf(m, sizeof(m), "%s true relative residual ||b - A*x||/||b|| = %.3e > tol %.3e (the recurrence's: %.3e)",
             se->msg, res->relres_true, tol, res->relres);
    snprintf(se->msg, sizeof(se->msg), "%s", m);
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
    const char *meth_names[] = {"cg", "bicgstab", "cgls", "lsqr", "pipecg"}; /* HSPMV_SOLVER_* order */
    int jacobi = 0, verbose = 0, par = 0;
    long reps = 3;
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
            for (int k = 0; k < 5; k++)
                if (!strcmp(v, meth_names[k])) so.method = k;
            if (so.method < 0) bu_fail("--method takes cg, pipecg, bicgstab, cgls or lsqr, not '%.40s'", v);
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
        else if (!strcmp(a, "--symmetric")) o.symmetric = bu_parse_symmetric(a, bu_value(argc, argv, &i));
        else if (!strcmp(a, "--verbose")) verbose = 1;
        else if (!strcmp(a, "--progress")) bu_progress_set(bu_parse_progress(a, bu_value(argc, argv, &i)));
        else if (!mg_parse(argc, argv, &i, &gen)) mp_other_arg(a, &path);
    }
    path = mg_finish(&gen, path);
    mp_need_path(path);
    if (rhs && !strcmp(rhs, "-"))
        bu_fail("--rhs: '-' is not taken for standard input: give a file name (./- for a file named '-')");
    mp_check_threads(o.threads);
    int lsq = so.method == HSPMV_SOLVER_CGLS || so.method == HSPMV_SOLVER_LSQR;
    if (jacobi && lsq) bu_fail("--jacobi is for cg, pipecg and bicgstab, not %s", meth_names[so.method]);
    bo_file xo; /* --out, tried now: not after the solve */
    if (out) open_out(&xo, out, path, rhs);

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

    /* solve reps times from x0 = 0: the first apart (it first touches the
       work vectors), the median per iteration of the others (the one when
       reps = 1); setup (hspmv_solver_begin) apart; the slowest rank's times */
    double *tpi = calloc((size_t)reps * 3, sizeof(double)), share = 0;
    double *tsetup = tpi + reps, *tprod = tpi + 2 * reps;
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
        double t[3] = {res.total_s - res.setup_s, res.setup_s,
                       res.spmv_calls > 0 ? res.spmv_s / (double)res.spmv_calls : 0}, tmax[3], tsum[2];
        MPI_Allreduce(t, tmax, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double ts[2] = {res.total_s - res.setup_s, res.spmv_s};
        MPI_Allreduce(ts, tsum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tpi[r] = tmax[0] / (double)(res.iterations > 0 ? res.iterations : 1);
        tsetup[r] = tmax[1];
        tprod[r] = tmax[2];
        share = tsum[0] > 0 ? tsum[1] / tsum[0] : 0;
        if (status && status != HSPMV_ERR_NOCONV && status != HSPMV_ERR_BREAKDOWN) mp_die(&se);
    }
    double med = 0, mn = 0, mx = 0, setup_med = 0, prod_med = 0, u0, u1;
    int first = reps > 1 ? 1 : 0, timed = (int)reps - first;
    bu_stats(tpi + first, timed, &med, &mn, &mx);
    bu_stats(tsetup + first, timed, &setup_med, &u0, &u1);
    bu_stats(tprod + first, timed, &prod_med, &u0, &u1);
    /* the standalone product on the same matrix and layout, and the byte model at its bandwidth */
    double alone = 0;
    sm_model bm;
    if (sm_time_product(D, ones, 10, &alone, &e)) mp_die(&e);
    sm_model_of(D, &res, alone, &bm);
    double frac = med > 0 ? bm.model_s / med : 0;

    /* error against x* = 1 when b = A*1 (unique only with no more columns
       than rows); ||b|| for the residual's norm */
    double err_loc = 0, err_max = -1, bb = 0;
    for (int64_t j = 0; j < in.ncols_local; j++) err_loc = fmax(err_loc, fabs((double)x[j] - 1.0));
    for (int64_t i = 0; i < in.nrows_local; i++) bb += (double)b[i] * b[i];
    MPI_Allreduce(&err_loc, &err_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rhs || in.ncols > in.nrows) err_max = -1;
    double rnorm = res.relres_true >= 0 ? res.relres_true * sqrt(bb) : -1;
    if (status == HSPMV_ERR_NOCONV && !lsq) quote_true_residual(&se, &res, so.tol);
    /* --out: x in the file ordering, written by rank 0; a failed write is
       reported after the results (they are not lost with it) */
    int out_rc = HSPMV_OK;
    hspmv_error oe = {0, ""};
    if (out) {
        rc = hspmv_dist_gather(D, HSPMV_VEC_COLS, x, onesg, &e);
        if (rc) mp_die(&e);
        if (me == 0) out_rc = write_x(&xo, onesg, in.ncols, &oe);
        MPI_Bcast(&out_rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }

    if (me == 0) {
        const char *prec = sizeof(hspmv_real) == 8 ? "double" : "single";
        int thr = in.owned.threads > 0 ? in.owned.threads : 1;
        const char *meth = meth_names[so.method];
        printf("matrix=%s rows=%lld cols=%lld nnz=%lld precision=%s ranks=%d threads=%d partition=%s\n", path,
               (long long)in.nrows, (long long)in.ncols, (long long)in.nnz, prec, P, thr, part_names[in.partition]);
        printf("  spmv check y=A*1: ok (worst %.3g of the docs/design.md bound)\n", chk.worst);
        if (in.symmetric)
            printf("  one triangle across ranks (%s): the lower triangle of each rank's rows, %lld ghost entries "
                   "above them not stored (check %.4f s)\n", in.symmetric > 0 ? "symmetric" : "skew-symmetric",
                   (long long)in.sym_dropped, in.sym_check_s);
        printf("  method %s%s, b = %s, tol %.1e, maxit %lld\n", meth, jacobi ? " + jacobi" : "",
               rhs ? rhs : "A*1 (x* = 1)", so.tol, (long long)so.maxit);
        printf("  status: %s (%s)%s%s\n", status ? hspmv_strerror(status) : "converged", res.reason_name,
               status ? ": " : "", status ? se.msg : "");
        printf("  iterations %lld, relative residual %.3e (recurrence), %.3e (recomputed ||b-Ax||/||b||), "
               "||b-Ax|| = %.6e\n", (long long)res.iterations, res.relres, res.relres_true, rnorm);
        if (err_max >= 0) printf("  error vs x* = 1: max|x - 1| = %.3e\n", err_max);
        printf("  time per iteration %.4g ms (median of %d timed solves, min %.4g, max %.4g; first solve %.4g), "
               "spmv share %.1f%%, %lld spmv calls; setup %.4g ms apart\n", med * 1e3, timed, mn * 1e3, mx * 1e3,
               tpi[0] * 1e3, 100 * share, (long long)res.spmv_calls, setup_med * 1e3);
        printf("  product in the solver %.4g ms, standalone on the same matrix and layout %.4g ms (%.2fx)\n",
               prod_med * 1e3, alone * 1e3, alone > 0 ? prod_med / alone : 0);
        printf("  byte model per iteration: %d product(s) x %.1f MB + %d+%d vector passes = %.1f MB; at the "
               "standalone product's %.1f GB/s %.4g ms, frac_model %.3f\n", res.spmv_per_iter, bm.prod_bytes / 1e6,
               res.passes_rows, res.passes_cols, bm.iter_bytes / 1e6, bm.bw / 1e9, bm.model_s * 1e3, frac);
        if (out && !out_rc) printf("  solution written to %s\n", out);
        printf("bench=solve matrix=%s precision=%s ranks=%d threads=%d partition=%s method=%s jacobi=%d "
               "tol=%.3g status=%d iterations=%lld reason=%s relres=%.6e relres_true=%.6e rnorm=%.6e err_max=%.6e "
               "ms_per_iter=%.6g ms_per_iter_min=%.6g ms_per_iter_max=%.6g spmv_share=%.4f reps=%ld "
               "reorder=%s bandwidth_before=%lld bandwidth_after=%lld reorder_s=%.4f symmetric=%s symmetric_asked=%s",
               path, prec, P, thr, part_names[in.partition], meth, jacobi, so.tol, status,
               (long long)res.iterations, res.reason_name, res.relres, res.relres_true, rnorm, err_max, med * 1e3, mn * 1e3, mx * 1e3,
               share, reps, bu_reorder_name(in.reorder), (long long)in.bandwidth_before, (long long)in.bandwidth_after,
               in.reorder_s, bu_symmetric_kept(in.symmetric), bu_symmetric_name(o.symmetric));
        printf(" first_ms_per_iter=%.6g setup_ms=%.6g spmv_ms=%.6g spmv_alone_ms=%.6g prod_mb=%.6g passes_rows=%d "
               "passes_cols=%d iter_mb=%.6g model_ms=%.6g frac_model=%.4f", tpi[0] * 1e3, setup_med * 1e3,
               prod_med * 1e3, alone * 1e3, bm.prod_bytes / 1e6, res.passes_rows, res.passes_cols,
               bm.iter_bytes / 1e6, bm.model_s * 1e3, frac);
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
    if (out_rc) agree0(out_rc, &oe);
    if (status) mp_die(&se);
    MPI_Finalize();
    return 0;
}
