/* solver_ws.c — what every Krylov method shares: argument checks agreed
   over the ranks, work vectors, the timed products, reductions that carry a
   failure, the residual history, the stopping reason. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "solver.h"
#include "dist_dot.h"
#include "util.h"
#include "settings.h"

/* Every rank leaves with the status and message of the lowest failing rank. */
static int agree(MPI_Comm comm, int rank, int rc, hspmv_error *err)
{
    int mine[2] = {rc ? rank : 1 << 30, rank}, low[2];
    hspmv_error e = {0, ""};
    if (MPI_Allreduce(mine, low, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce failed", rank);
    if (low[0] == 1 << 30) return HSPMV_OK;
    if (rank == low[0] && err) e = *err;
    e.code = rank == low[0] ? rc : 0;
    if (MPI_Bcast(&e, (int)sizeof(e), MPI_BYTE, low[0], comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast failed", rank);
    if (err) *err = e;
    return e.code;
}

static int least_squares(const solver_ws *w)
{
    return w->o.method == HSPMV_SOLVER_CGLS || w->o.method == HSPMV_SOLVER_LSQR;
}

static int check_local(solver_ws *w, const hspmv_real *b, const hspmv_real *x,
                       const hspmv_dist_info *in, const char *who, hspmv_error *err)
{
    const hspmv_solver_opts *o = &w->o;
    if (!least_squares(w) && in->nrows != in->ncols)
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: matrix is %lld x %lld, not square (least squares: "
                         "HSPMV_SOLVER_CGLS or HSPMV_SOLVER_LSQR)", who, (long long)in->nrows, (long long)in->ncols);
    if (!least_squares(w) && (in->row_begin != in->col_begin || in->row_end != in->col_end))
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: rank %d: x and b are split differently", who, w->rank);
    if ((w->n > 0 && !b) || (w->nc > 0 && !x))
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: rank %d: b or x is NULL", who, w->rank);
    if (least_squares(w) && o->diag)
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: no Jacobi preconditioner for least squares (diag must be NULL)",
                         who);
    if (!(o->tol >= 0) || o->maxit < 0 || o->history_len < 0 || (o->history_len > 0 && !o->history))
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: bad options (tol %g, maxit %lld, history %lld)", who,
                         o->tol, (long long)o->maxit, (long long)o->history_len);
    return HSPMV_OK;
}

/* Allocations and 1/diag; a zero (or non-finite) diagonal entry is an error. */
static int alloc_local(solver_ws *w, int nrow, int ncol, const char *who, hspmv_error *err)
{
    for (int k = 0; k < nrow; k++)
        if (!(w->v[k] = hspmv_dist_vec_alloc(w->D, HSPMV_VEC_ROWS, 1))) goto nomem;
    for (int k = 0; k < ncol; k++)
        if (!(w->c[k] = hspmv_dist_vec_alloc(w->D, HSPMV_VEC_COLS, 1))) goto nomem;
    if (!(w->part = hspmv_calloc((size_t)w->threads * 8, sizeof(double)))) goto nomem;
    if (!w->o.diag) return HSPMV_OK;
    if (!(w->dinv = hspmv_dist_vec_alloc(w->D, HSPMV_VEC_ROWS, 1))) goto nomem;
    hspmv_dist_info in;
    hspmv_dist_get_info(w->D, &in);
    for (int64_t i = 0; i < w->n; i++) {
        double d = w->o.diag[i];
        if (d == 0 || !isfinite(d))
            return hspmv_err(err, HSPMV_ERR_ARG, "%s: rank %d: Jacobi diagonal entry %g at row %lld "
                             "(distributed ordering)", who, w->rank, d, (long long)(in.row_begin + i));
        w->dinv[i] = (hspmv_real)(1.0 / d);
    }
    return HSPMV_OK;
nomem:
    return hspmv_err(err, HSPMV_ERR_NOMEM, "%s: rank %d: out of memory for vectors of %lld entries", who,
                     w->rank, (long long)(w->n > w->nc ? w->n : w->nc));
}

/* When b's largest entry is beyond 2^400 or below 2^-400, its squares (and
   those of every residual, which scale with b) leave the double range: ||b||
   came out inf or 0. Then b and x are scaled by 2^-e (the exponent of that
   entry), exactly, since it is a power of two; every Krylov quantity scales
   with b, so the iteration is the same one, relres unchanged, and x is
   scaled back at the end (LAPACK's dnrm2 scales for the same reason).
   Collective: one reduction of max|b_i| and a non-finite flag. */
static int scale_rhs(solver_ws *w, const hspmv_real *b, hspmv_real *x, const char *who, hspmv_error *err)
{
    double m[2] = {0, 0}, g[2];
    int rc = HSPMV_OK, e;
    w->b = b;
    w->scale = 1;
    for (int64_t i = 0; i < w->n; i++) {
        double a = fabs((double)b[i]);
        if (!(a <= DBL_MAX)) m[1] = 1;
        else if (a > m[0]) m[0] = a;
    }
    if (MPI_Allreduce(m, g, 2, MPI_DOUBLE, MPI_MAX, w->comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "%s: rank %d: MPI_Allreduce failed", who, w->rank);
    if (g[1] != 0) return hspmv_err(err, HSPMV_ERR_ARG, "%s: b holds an inf or nan", who);
    if (!(g[0] > 0x1p400 || (g[0] > 0 && g[0] < 0x1p-400))) return HSPMV_OK;
    frexp(g[0], &e);
    w->scale = ldexp(1.0, -e);
    if (!(w->bs = hspmv_dist_vec_alloc(w->D, HSPMV_VEC_ROWS, 1)))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "%s: rank %d: out of memory for the scaled b", who, w->rank);
    if ((rc = agree(w->comm, w->rank, rc, err))) return rc;
    for (int64_t i = 0; i < w->n; i++) w->bs[i] = (hspmv_real)((double)b[i] * w->scale);
    for (int64_t i = 0; i < w->nc; i++) x[i] = (hspmv_real)((double)x[i] * w->scale);
    w->b = w->bs;
    w->x = x;
    return HSPMV_OK;
}

int hspmv_solver_begin(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                       const hspmv_solver_opts *o, int nrow, int ncol, const char *who, hspmv_error *err)
{
    memset(w, 0, sizeof(*w));
    w->req = MPI_REQUEST_NULL; /* before any refusal: hspmv_solver_end waits on it */
    w->t0 = MPI_Wtime();
    w->res.relres_true = -1;
    w->res.reason = HSPMV_REASON_NONE;
    if (o) w->o = *o;
    else hspmv_solver_opts_default(&w->o);
    if (!D) return hspmv_err(err, HSPMV_ERR_ARG, "%s: distributed matrix is NULL", who);
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    w->D = D;
    w->comm = hspmv_dist_get_comm(D);
    w->rank = in.rank;
    w->threads = in.owned.threads > 0 ? in.owned.threads : 1;
    w->n = in.nrows_local;
    w->nc = in.ncols_local;
    w->req = MPI_REQUEST_NULL;
    /* test only: rank 0's reduction delay, every rank's (ranks never wait differently) */
    double delay_us = (double)hspmv_test_int(hspmv_test_spec(), "solver_delay", 0);
    if (MPI_Bcast(&delay_us, 1, MPI_DOUBLE, 0, w->comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "%s: rank %d: MPI_Bcast failed", who, w->rank);
    w->delay_s = delay_us * 1e-6;
    int rc = check_local(w, b, x, &in, who, err);
    if (!rc) rc = alloc_local(w, nrow, ncol, who, err);
    if ((rc = agree(w->comm, w->rank, rc, err))) return rc;
    if ((rc = scale_rhs(w, b, x, who, err))) return rc;
    double s = hspmv_sv_dot(w, w->b, w->b);
    if ((rc = hspmv_solver_sum(w, &s, 1, 0, who, err))) return rc;
    w->bnorm = sqrt(s);
    w->res.setup_s = MPI_Wtime() - w->t0;
    if (!isfinite(w->bnorm))
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: ||b|| is not finite", who);
    return hspmv_ok(err);
}

void hspmv_solver_end(solver_ws *w, hspmv_solver_result *res)
{
    if (w->req != MPI_REQUEST_NULL) MPI_Wait(&w->req, MPI_STATUS_IGNORE); /* an error left one begun */
    if (w->x)
        for (int64_t i = 0; i < w->nc; i++) w->x[i] = (hspmv_real)((double)w->x[i] / w->scale);
    hspmv_free(w->bs);
    for (int k = 0; k < SOLVER_NVEC; k++) {
        hspmv_free(w->v[k]);
        hspmv_free(w->c[k]);
    }
    hspmv_free(w->dinv);
    hspmv_free(w->part);
    w->res.total_s = MPI_Wtime() - w->t0;
    w->res.reason_name = hspmv_solver_reason_name(w->res.reason);
    if (res) *res = w->res;
}

void hspmv_solver_zero_rhs(solver_ws *w, hspmv_real *x)
{
    for (int64_t i = 0; i < w->nc; i++) x[i] = 0;
    w->res.relres = w->res.relres_true = 0;
    w->res.reason = HSPMV_CONVERGED_ZERO_RHS;
}

int hspmv_solver_stop(solver_ws *w, int reason, hspmv_error *err, const char *fmt, ...)
{
    w->res.reason = reason;
    if (reason > 0) return hspmv_ok(err);
    int code = reason == HSPMV_DIVERGED_ITS ? HSPMV_ERR_NOCONV : HSPMV_ERR_BREAKDOWN;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

/* Counts and times a product (with xy: and x'y); keeps this rank's first failure. */
static int product(solver_ws *w, int flags, const hspmv_real *in, hspmv_real *out, double *xy)
{
    double t = MPI_Wtime();
    hspmv_error e;
    int rc = flags ? hspmv_dist_spmm(w->D, flags, 1, in, out, &e)
             : xy  ? hspmv_dist_spmv_dot(w->D, in, out, xy, &e)
                   : hspmv_dist_spmv(w->D, in, out, &e);
    w->res.spmv_s += MPI_Wtime() - t;
    w->res.spmv_calls++;
    if (rc && !w->prod_rc) {
        w->prod_rc = rc;
        w->prod_err = e;
    }
    return rc != HSPMV_OK;
}

int hspmv_solver_spmv(solver_ws *w, const hspmv_real *x, hspmv_real *y)
{
    return product(w, 0, x, y, NULL);
}

int hspmv_solver_spmv_dot(solver_ws *w, const hspmv_real *x, hspmv_real *y, double *xy)
{
    return product(w, 0, x, y, xy);
}

int hspmv_solver_spmv_t(solver_ws *w, const hspmv_real *y, hspmv_real *x)
{
    return product(w, HSPMV_TRANSPOSE, y, x, NULL);
}

/* Test only: a reduction begun at t0 completes no sooner than t0 + delay_s
   (a reduction's latency over many nodes, on one). */
static void delayed(const solver_ws *w, double t0)
{
    if (w->delay_s > 0)
        while (MPI_Wtime() - t0 < w->delay_s) {
        }
}

/* The reduced out[0..k] (out[k]: failed products): a failure's agreed status, else s = out. */
static int summed(solver_ws *w, double *s, const double *out, int k, int fail, const char *who, hspmv_error *err)
{
    if (out[k] != 0) { /* the failing product's own status and message, from the lowest such rank */
        hspmv_error e = {0, ""};
        int rc = fail && w->prod_rc ? w->prod_rc : fail ? HSPMV_ERR_MPI : HSPMV_OK;
        if (rc) hspmv_err(&e, rc, "%s: %s", who, w->prod_rc ? w->prod_err.msg : "a product failed");
        rc = agree(w->comm, w->rank, rc, &e);
        if (err) *err = e;
        return rc ? rc : HSPMV_ERR_MPI;
    }
    for (int i = 0; i < k; i++) s[i] = out[i];
    return HSPMV_OK;
}

int hspmv_solver_sum(solver_ws *w, double *s, int k, int fail, const char *who, hspmv_error *err)
{
    double buf[8], out[8], t0 = MPI_Wtime();
    for (int i = 0; i < k; i++) buf[i] = s[i];
    buf[k] = fail ? 1 : 0;
    if (MPI_Allreduce(buf, out, k + 1, MPI_DOUBLE, MPI_SUM, w->comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "%s: rank %d: MPI_Allreduce failed", who, w->rank);
    delayed(w, t0);
    return summed(w, s, out, k, fail, who, err);
}

int hspmv_solver_isum(solver_ws *w, const double *s, int k, int fail, const char *who, hspmv_error *err)
{
    for (int i = 0; i < k; i++) w->req_buf[i] = s[i];
    w->req_buf[k] = fail ? 1 : 0;
    w->req_k = k;
    w->req_fail = fail;
    w->req_t0 = MPI_Wtime();
    if (MPI_Iallreduce(w->req_buf, w->req_out, k + 1, MPI_DOUBLE, MPI_SUM, w->comm, &w->req) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "%s: rank %d: MPI_Iallreduce failed", who, w->rank);
    return HSPMV_OK;
}

int hspmv_solver_wait(solver_ws *w, double *s, const char *who, hspmv_error *err)
{
    if (MPI_Wait(&w->req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "%s: rank %d: MPI_Wait on the reduction failed", who, w->rank);
    delayed(w, w->req_t0);
    return summed(w, s, w->req_out, w->req_k, w->req_fail, who, err);
}

void hspmv_solver_note(solver_ws *w, int64_t it, double relres)
{
    w->res.iterations = it;
    w->res.relres = relres;
    if (it < w->o.history_len) w->o.history[it] = relres;
    if (w->o.monitor) w->o.monitor(it, relres, w->o.monitor_ctx);
}

int hspmv_solver_residual(solver_ws *w, const hspmv_real *b, const hspmv_real *x, hspmv_real *r,
                          double *rr)
{
    int fail = hspmv_solver_spmv(w, x, r);
    hspmv_sv_xpby(w, b, -1.0, r);
    *rr = hspmv_sv_dot(w, r, r);
    return fail;
}

void hspmv_solver_true_residual(solver_ws *w, const hspmv_real *b, const hspmv_real *x, hspmv_real *r,
                                const char *who)
{
    double rr;
    int fail = hspmv_solver_residual(w, b, x, r, &rr);
    if (!hspmv_solver_sum(w, &rr, 1, fail, who, NULL)) w->res.relres_true = sqrt(rr) / w->bnorm;
}
