/* bicgstab.c — BiCGStab (van der Vorst 1992) with optional right Jacobi
   preconditioning, A*M^-1*u = b, x = M^-1*u: two SpMVs and four
   reductions per iteration; besides the products five fused passes
   over the vectors. */
#include <math.h>
#include "solver.h"
#include "util.h"
#include "csr.h"

static const char *who = "hspmv_solve (bicgstab)";

typedef struct bicg {
    hspmv_real *r, *rh, *p, *v, *s, *t, *ph, *sh; /* ph, sh alias p, s without M */
    double rho, rho_old, alpha, omega, relres;
    double rh_norm; /* ||r^||: rho and r^'v count as zero below u^2*||r^||*||.|| */
    int fresh; /* first iteration since a (re)start: p = r */
    double relres0; /* relres at the last (re)start */
} bicg;

/* From the true residual in k->r: r^ = r, rho = r'r, recurrences reset. */
static int restart(solver_ws *w, bicg *k, int fail, hspmv_error *err)
{
    double s = hspmv_sv_dot(w, k->r, k->r);
    int rc = hspmv_solver_sum(w, &s, 1, fail, who, err);
    if (rc) return rc;
    hspmv_sv_copy(w, k->r, k->rh);
    k->rho = s;
    k->rh_norm = sqrt(s);
    k->rho_old = k->alpha = k->omega = 1;
    k->fresh = 1;
    k->relres = k->relres0 = sqrt(s) / w->bnorm;
    return HSPMV_OK;
}

/* Converged by the recurrence; confirmed by the true residual? If not,
   restart from it. 1: converged. */
static int confirmed(solver_ws *w, bicg *k, const hspmv_real *b, const hspmv_real *x, int *rc,
                     hspmv_error *err)
{
    double rr;
    int fail = hspmv_solver_residual(w, b, x, k->t, &rr);
    if ((*rc = hspmv_solver_sum(w, &rr, 1, fail, who, err))) return 0;
    w->res.relres_true = sqrt(rr) / w->bnorm;
    if (w->res.relres_true <= w->o.tol) return 1;
    hspmv_sv_copy(w, k->t, k->r);
    *rc = restart(w, k, 0, err);
    return 0;
}

static int breakdown(solver_ws *w, int64_t it, const char *what, double val, hspmv_error *err)
{
    return hspmv_solver_stop(w, isfinite(val) ? HSPMV_DIVERGED_BREAKDOWN : HSPMV_DIVERGED_NANORINF, err,
                             "%s: breakdown at iteration %lld: %s = %.3e", who, (long long)it, what, val);
}

/* One iteration (it is its number, for messages). When the half step s
   already meets tol it stops there: x += alpha*M^-1 p and r = s. */
static int step(solver_ws *w, bicg *k, hspmv_real *x, int64_t it, hspmv_error *err)
{
    double s[2], u = hspmv_eps();
    int rc, fail;
    if (!(fabs(k->rho) > u * u * k->rh_norm * k->relres * w->bnorm)) return breakdown(w, it, "rho = r0'r", k->rho, err);
    if (k->fresh) hspmv_sv_copy(w, k->r, k->p);
    else /* p = r + beta*(p - omega*v) */
        hspmv_sv_bicg_p(w, (k->rho / k->rho_old) * (k->alpha / k->omega), k->omega, k->r, k->v, k->p);
    k->fresh = 0;
    hspmv_sv_precond(w, k->p, k->ph);
    fail = hspmv_solver_spmv(w, k->ph, k->v);
    hspmv_sv_dot2(w, k->rh, k->v, k->v, k->v, s);
    if ((rc = hspmv_solver_sum(w, s, 2, fail, who, err))) return rc;
    if (!(fabs(s[0]) > u * u * k->rh_norm * sqrt(s[1]))) return breakdown(w, it, "r0'v", s[0], err);
    k->alpha = k->rho / s[0];
    hspmv_sv_waxpy_dot(w, -k->alpha, k->v, k->r, k->s, &s[0]); /* s = r - alpha*v, s's */
    if ((rc = hspmv_solver_sum(w, s, 1, 0, who, err))) return rc;
    if (sqrt(s[0]) / w->bnorm <= w->o.tol) { /* half step: x += alpha*M^-1 p, r = s */
        hspmv_sv_axpy(w, k->alpha, k->ph, x);
        hspmv_real *tmp = k->r;
        k->r = k->s;
        k->s = tmp;
        k->relres = sqrt(s[0]) / w->bnorm;
        return HSPMV_OK;
    }
    hspmv_sv_precond(w, k->s, k->sh);
    fail = hspmv_solver_spmv(w, k->sh, k->t);
    hspmv_sv_dot2(w, k->t, k->s, k->t, k->t, s);
    if ((rc = hspmv_solver_sum(w, s, 2, fail, who, err))) return rc;
    if (!(s[1] > 0)) return breakdown(w, it, "t't", s[1], err);
    k->omega = s[0] / s[1];
    if (k->omega == 0 || !isfinite(k->omega)) return breakdown(w, it, "omega", k->omega, err);
    /* x += alpha*M^-1 p + omega*M^-1 s, r = s - omega*t, r'r, r0'r */
    hspmv_sv_bicg_xr(w, k->alpha, k->ph, k->omega, k->sh, x, k->s, k->t, k->rh, k->r, s);
    if ((rc = hspmv_solver_sum(w, s, 2, 0, who, err))) return rc;
    k->rho_old = k->rho;
    k->rho = s[1];
    k->relres = sqrt(s[0]) / w->bnorm;
    return HSPMV_OK;
}

int hspmv_solver_bicgstab(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                          const hspmv_solver_opts *o, hspmv_error *err)
{
    bicg k;
    int64_t it = 0;
    int rc = hspmv_solver_begin(w, D, b, x, o, 8, 0, who, err);
    if (rc) return rc;
    b = w->b; /* b itself, or b scaled with x (hspmv_solver_end scales x back) */
    k.r = w->v[0]; k.rh = w->v[1]; k.p = w->v[2]; k.v = w->v[3];
    k.s = w->v[4]; k.t = w->v[5];
    k.ph = w->dinv ? w->v[6] : k.p;
    k.sh = w->dinv ? w->v[7] : k.s;
    /* passes: p 4, r0'v v'v 2, s s's 3, t's t't 2, x r r'r r0'r 8; Jacobi: M^-1 p, M^-1 s 3 each */
    w->res.spmv_per_iter = 2;
    w->res.passes_rows = w->dinv ? 25 : 19;
    if (w->bnorm == 0) {
        hspmv_solver_zero_rhs(w, x);
        return HSPMV_OK;
    }
    int fail = hspmv_solver_residual(w, b, x, k.r, &k.rho);
    if ((rc = restart(w, &k, fail, err))) return rc;
    hspmv_solver_note(w, 0, k.relres);
    for (;;) {
        if (k.relres <= w->o.tol && (confirmed(w, &k, b, x, &rc, err) || rc)) {
            if (!rc) rc = hspmv_solver_stop(w, HSPMV_CONVERGED_RTOL, err, "%s", "");
            break;
        }
        if (it >= w->o.maxit) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_ITS, err, "%s: no convergence in %lld iterations: relative "
                                   "residual %.3e > tol %.3e", who, (long long)it, k.relres, w->o.tol);
            break;
        }
        if ((rc = step(w, &k, x, it + 1, err))) {
            /* A vanishing rho or r0'v after real progress is the shadow
               residual r0 gone orthogonal, not the method failing: restart
               from the true residual with r0 = r. Without progress since
               the last restart it is a breakdown. */
            if (rc != HSPMV_ERR_BREAKDOWN || !(k.relres < 0.5 * k.relres0)) break;
            double rr;
            w->res.reason = HSPMV_REASON_NONE;
            fail = hspmv_solver_residual(w, b, x, k.r, &rr);
            if ((rc = restart(w, &k, fail, err))) break;
            continue;
        }
        hspmv_solver_note(w, ++it, k.relres);
        if (!isfinite(k.relres)) {
            rc = breakdown(w, it, "||r||/||b||", k.relres, err);
            break;
        }
    }
    if (rc == HSPMV_ERR_NOCONV || rc == HSPMV_ERR_BREAKDOWN) hspmv_solver_true_residual(w, b, x, k.t, who);
    return rc;
}
