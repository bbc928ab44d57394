/* pipecg.c — pipelined conjugate gradients (P. Ghysels and W. Vanroose,
   "Hiding global synchronization latency in the preconditioned conjugate
   gradient algorithm", Parallel Computing 40(7), 2014, Algorithm 4): CG's
   iterates from recurrences that need one reduction per iteration, begun
   (MPI_Iallreduce) before the iteration's product and completed after it,
   so the product hides the reduction's latency. Jacobi as CG's (M =
   diag(A)). The recurrences drift from the true residual faster than CG's;
   residual replacement (Cools, Yetkin, Agullo, Giraud and Vanroose, SIAM
   J. Matrix Anal. Appl. 39(1), 2018, with a fixed period as its simplest
   rule) recomputes r, u, w, s, q, z from x and p every PIPE_REPLACE
   iterations, and, as CG, a recurrence that says converged is confirmed
   by the true residual (else the iteration restarts from it). */
#include <math.h>
#include "solver.h"
#include "util.h"

static const char *who = "hspmv_solve (pipecg)";

/* Iterations between residual replacements (4 products each). */
#define PIPE_REPLACE 50

/* r = b - A x, u = M r, w = A u, then m = M w and s3 = {r'u, w'u, r'r}.
   With p kept (replacement) also s = A p, q = M s, z = A q. Returns this
   rank's failure flag. */
static int recompute(solver_ws *w, const pipe_vecs *v, const hspmv_real *b, int keep_p, double s3[3])
{
    double rr;
    int fail = hspmv_solver_residual(w, b, v->x, v->r, &rr);
    hspmv_sv_precond(w, v->r, v->u);
    fail |= hspmv_solver_spmv(w, v->u, v->w);
    if (keep_p) {
        fail |= hspmv_solver_spmv(w, v->p, v->s);
        hspmv_sv_precond(w, v->s, v->q);
        fail |= hspmv_solver_spmv(w, v->q, v->z);
    }
    hspmv_sv_pipe_dots(w, v, s3);
    return fail;
}

int hspmv_solver_pipecg(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                        const hspmv_solver_opts *o, hspmv_error *err)
{
    double s3[3], g_old = 1, alpha_old = 1, relres = 0;
    int64_t it = 0, noted = -1;
    int fresh = 1, rc = hspmv_solver_begin(w, D, b, x, o, o && o->diag ? 10 : 7, 0, who, err);
    if (rc) return rc;
    b = w->b; /* b itself, or b scaled with x (hspmv_solver_end scales x back) */
    pipe_vecs v = {.r = w->v[0], .w = w->v[1], .n = w->v[2], .z = w->v[3], .s = w->v[4], .p = w->v[5], .x = x};
    hspmv_real *t = w->v[6]; /* the true residual when the recurrence says converged */
    v.u = w->dinv ? w->v[7] : v.r;
    v.m = w->dinv ? w->v[8] : v.w;
    v.q = w->dinv ? w->v[9] : v.s;
    w->res.spmv_per_iter = 1; /* passes: 13 reads and writes (20 with Jacobi), one sweep */
    w->res.passes_rows = w->dinv ? 20 : 13;
    if (w->bnorm == 0) {
        hspmv_solver_zero_rhs(w, x);
        return HSPMV_OK;
    }
    int fail = recompute(w, &v, b, 0, s3);
    for (;;) {
        /* the reduction of this iteration's dots flies while n = A m is made */
        if ((rc = hspmv_solver_isum(w, s3, 3, fail, who, err))) return rc;
        fail = hspmv_solver_spmv(w, v.m, v.n);
        if ((rc = hspmv_solver_wait(w, s3, who, err))) return rc;
        relres = sqrt(s3[2]) / w->bnorm;
        if (it > noted) hspmv_solver_note(w, noted = it, relres);
        if (!isfinite(relres)) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_NANORINF, err, "%s: breakdown at iteration %lld: residual "
                                   "is not finite", who, (long long)it);
            break;
        }
        if (relres <= w->o.tol) { /* confirmed by the true residual, or a restart from it */
            double rr;
            int f = hspmv_solver_residual(w, b, x, t, &rr);
            if ((rc = hspmv_solver_sum(w, &rr, 1, f | fail, who, err))) return rc;
            w->res.relres_true = sqrt(rr) / w->bnorm;
            if (w->res.relres_true <= w->o.tol) {
                rc = hspmv_solver_stop(w, HSPMV_CONVERGED_RTOL, err, "%s", "");
                break;
            }
            fail = recompute(w, &v, b, 0, s3);
            fresh = 1;
            continue;
        }
        if (it >= w->o.maxit) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_ITS, err, "%s: no convergence in %lld iterations: relative "
                                   "residual %.3e > tol %.3e", who, (long long)it, relres, w->o.tol);
            break;
        }
        double g = s3[0], beta = fresh ? 0 : g / g_old;
        if (!(g > 0)) {
            rc = hspmv_solver_stop(w, isfinite(g) ? HSPMV_DIVERGED_INDEFINITE_PC : HSPMV_DIVERGED_NANORINF, err,
                                   "%s: breakdown at iteration %lld: r'M^-1r = %.3e <= 0 (Jacobi diagonal not "
                                   "positive)", who, (long long)it + 1, g);
            break;
        }
        double pap = fresh ? s3[1] : s3[1] - beta * g / alpha_old; /* p'Ap by the recurrence */
        if (!isfinite(pap)) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_NANORINF, err, "%s: breakdown at iteration %lld: p'Ap = %.3e "
                                   "is not finite", who, (long long)it + 1, pap);
            break;
        }
        if (!(pap > 0)) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_INDEFINITE_MAT, err, "%s: breakdown at iteration %lld: p'Ap = "
                                   "%.3e <= 0 (matrix not symmetric positive definite)", who, (long long)it + 1, pap);
            break;
        }
        double alpha = g / pap;
        hspmv_sv_pipe_step(w, &v, alpha, beta, s3);
        g_old = g;
        alpha_old = alpha;
        fresh = 0;
        if (++it % PIPE_REPLACE == 0) fail |= recompute(w, &v, b, 1, s3);
    }
    if (rc == HSPMV_ERR_NOCONV || rc == HSPMV_ERR_BREAKDOWN) hspmv_solver_true_residual(w, b, x, t, who);
    return rc;
}
