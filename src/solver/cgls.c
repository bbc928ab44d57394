/* cgls.c — CGLS: conjugate gradients on the normal equations A^T A x =
   A^T b without forming A^T A (M. R. Hestenes and E. Stiefel, J. Res.
   Nat. Bur. Standards 49(6), 1952, who gave CG for the normal equations in
   this form; A. Bjorck, Numerical Methods for Least Squares Problems,
   SIAM 1996, calls it CGLS): one product with A, one with A^T and two
   reductions per iteration; A of any shape. */
#include <math.h>
#include "solver.h"

static const char *who = "hspmv_solve (cgls)";

typedef struct cgls {
    hspmv_real *r, *q;         /* y-like: residual b - A x, A p */
    hspmv_real *s, *p;         /* x-like: A^T r, search direction */
    double gamma, snorm0;      /* ||s||^2, ||A^T r0|| */
    double relres, normres;    /* ||r||/||b||, ||s||/||s0|| */
} cgls;

/* From r = b - A x (already in k->r, fail its product's flag): s = A^T r,
   p = s, the norms. */
static int restart(solver_ws *w, cgls *k, int fail, hspmv_error *err)
{
    fail |= hspmv_solver_spmv_t(w, k->r, k->s);
    double t[2] = {hspmv_sv_dot_n(w, w->nc, k->s, k->s), hspmv_sv_dot(w, k->r, k->r)};
    int rc = hspmv_solver_sum(w, t, 2, fail, who, err);
    if (rc) return rc;
    hspmv_sv_copy_n(w, w->nc, k->s, k->p);
    k->gamma = t[0];
    if (k->snorm0 < 0) k->snorm0 = sqrt(t[0]);
    k->relres = sqrt(t[1]) / w->bnorm;
    k->normres = k->snorm0 > 0 ? sqrt(t[0]) / k->snorm0 : 0;
    return HSPMV_OK;
}

/* The recurrence says converged: the true residual and its A^T decide.
   1: converged (*reason set); 0: restarted from the true residual. */
static int confirmed(solver_ws *w, cgls *k, const hspmv_real *b, const hspmv_real *x, int *reason, int *rc,
                     hspmv_error *err)
{
    double rr;
    int fail = hspmv_solver_residual(w, b, x, k->r, &rr);
    if ((*rc = restart(w, k, fail, err))) return 0;
    w->res.relres_true = k->relres;
    if (k->relres <= w->o.tol) *reason = HSPMV_CONVERGED_RTOL;
    else if (k->normres <= w->o.tol) *reason = HSPMV_CONVERGED_RTOL_NORMAL;
    else return 0;
    return 1;
}

int hspmv_solver_cgls(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                      const hspmv_solver_opts *o, hspmv_error *err)
{
    cgls k;
    int64_t it = 0;
    int rc = hspmv_solver_begin(w, D, b, x, o, 2, 2, who, err), reason;
    if (rc) return rc;
    b = w->b; /* b itself, or b scaled with x (hspmv_solver_end scales x back) */
    k.r = w->v[0]; k.q = w->v[1]; k.s = w->c[0]; k.p = w->c[1];
    k.snorm0 = -1;
    /* passes: q'q 1, r with r'r 3 (y-like); x 3, s's 1, p 3 (x-like) */
    w->res.spmv_per_iter = 2;
    w->res.passes_rows = 4;
    w->res.passes_cols = 7;
    if (w->bnorm == 0) {
        hspmv_solver_zero_rhs(w, x);
        return HSPMV_OK;
    }
    double t[2];
    int fail = hspmv_solver_residual(w, b, x, k.r, &t[0]);
    if ((rc = restart(w, &k, fail, err))) return rc;
    hspmv_solver_note(w, 0, k.relres);
    for (;;) {
        if ((k.relres <= w->o.tol || k.normres <= w->o.tol) && (confirmed(w, &k, b, x, &reason, &rc, err) || rc)) {
            if (!rc) rc = hspmv_solver_stop(w, reason, err, "%s", "");
            break;
        }
        if (it >= w->o.maxit) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_ITS, err, "%s: no convergence in %lld iterations: relative "
                                   "residual %.3e, normal equations' %.3e > tol %.3e", who, (long long)it,
                                   k.relres, k.normres, w->o.tol);
            break;
        }
        fail = hspmv_solver_spmv(w, k.p, k.q);
        t[0] = hspmv_sv_dot(w, k.q, k.q);
        if ((rc = hspmv_solver_sum(w, t, 1, fail, who, err))) return rc;
        if (!(t[0] > 0) || !isfinite(t[0])) { /* A p = 0 only when p = A^T r = 0, which converged above */
            rc = hspmv_solver_stop(w, isfinite(t[0]) ? HSPMV_DIVERGED_BREAKDOWN : HSPMV_DIVERGED_NANORINF, err,
                                   "%s: breakdown at iteration %lld: ||A p||^2 = %.3e", who, (long long)it + 1, t[0]);
            break;
        }
        double alpha = k.gamma / t[0];
        hspmv_sv_axpy_n(w, w->nc, alpha, k.p, x);
        hspmv_sv_axpy_dot_n(w, w->n, -alpha, k.q, k.r, &t[1]); /* r -= alpha*q and r'r in one sweep */
        fail = hspmv_solver_spmv_t(w, k.r, k.s);
        t[0] = hspmv_sv_dot_n(w, w->nc, k.s, k.s);
        if ((rc = hspmv_solver_sum(w, t, 2, fail, who, err))) return rc;
        k.relres = sqrt(t[1]) / w->bnorm;
        k.normres = sqrt(t[0]) / k.snorm0;
        hspmv_solver_note(w, ++it, k.relres);
        if (!isfinite(k.relres) || !isfinite(k.normres)) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_NANORINF, err, "%s: breakdown at iteration %lld: residual "
                                   "is not finite", who, (long long)it);
            break;
        }
        hspmv_sv_xpby_n(w, w->nc, k.s, t[0] / k.gamma, k.p);
        k.gamma = t[0];
    }
    if (rc == HSPMV_ERR_NOCONV || rc == HSPMV_ERR_BREAKDOWN) hspmv_solver_true_residual(w, b, x, k.q, who);
    return rc;
}
