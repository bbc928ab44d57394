/* lsqr.c — LSQR (C. C. Paige and M. A. Saunders, "LSQR: An algorithm for
   sparse linear equations and sparse least squares", ACM TOMS 8(1), 43-71,
   1982): Golub-Kahan bidiagonalization of A from b - A x0, the small
   bidiagonal least squares problem solved by plane rotations as it grows.
   One product with A, one with A^T and two reductions per iteration; A of
   any shape; no damping. It stops by the paper's stopping rules S1 and S2
   on its estimates of ||r|| and ||A^T r||, with ATOL = BTOL = tol, and,
   as in the paper, when the estimates stop changing at the working
   precision; the condition limit S3 is not used. */
#include <math.h>
#include "solver.h"
#include "csr.h"

static const char *who = "hspmv_solve (lsqr)";

static double sgn(double a)
{
    return a > 0 ? 1 : a < 0 ? -1 : 0;
}

/* The plane rotation [c s; -s c] taking (a, b) to (r, 0), r >= 0, without
   overflow (the stable form SciPy's _sym_ortho also uses). */
static void rotation(double a, double b, double *c, double *s, double *r)
{
    if (b == 0) {
        *c = sgn(a), *s = 0, *r = fabs(a);
    } else if (a == 0) {
        *c = 0, *s = sgn(b), *r = fabs(b);
    } else if (fabs(b) > fabs(a)) {
        double t = a / b;
        *s = sgn(b) / sqrt(1 + t * t);
        *c = *s * t;
        *r = b / *s;
    } else {
        double t = b / a;
        *c = sgn(a) / sqrt(1 + t * t);
        *s = *c * t;
        *r = a / *c;
    }
}

/* ||y||_2 over the ranks of a y-like (cols 0) or x-like (cols 1) vector; fail: this rank's product flag. */
static int norm(solver_ws *w, const hspmv_real *y, int cols, int fail, double *nrm, hspmv_error *err)
{
    double s = hspmv_sv_dot_n(w, cols ? w->nc : w->n, y, y);
    int rc = hspmv_solver_sum(w, &s, 1, fail, who, err);
    *nrm = sqrt(s);
    return rc;
}

int hspmv_solver_lsqr(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                      const hspmv_solver_opts *o, hspmv_error *err)
{
    int rc = hspmv_solver_begin(w, D, b, x, o, 2, 3, who, err);
    if (rc) return rc;
    b = w->b; /* b itself, or b scaled with x (hspmv_solver_end scales x back) */
    hspmv_real *u = w->v[0], *t = w->v[1], *v = w->c[0], *wv = w->c[1];
    int64_t m = w->n, n = w->nc, it = 0;
    double tol = w->o.tol, bnorm = w->bnorm, eps = hspmv_eps();
    /* passes: u with ||u|| 3, u/beta 2 (y-like); v with ||v|| 3, v/alpha 2, x and w 5 (x-like) */
    w->res.spmv_per_iter = 2;
    w->res.passes_rows = 5;
    w->res.passes_cols = 10;
    if (bnorm == 0) {
        hspmv_solver_zero_rhs(w, x);
        return HSPMV_OK;
    }
    /* beta u = b - A x0, alpha v = A^T u */
    double beta, alpha = 0, rr;
    int fail = hspmv_solver_residual(w, b, x, u, &rr);
    if ((rc = norm(w, u, 0, fail, &beta, err))) return rc;
    if (beta > 0) {
        hspmv_sv_scal_n(w, m, 1 / beta, u);
        fail = hspmv_solver_spmv_t(w, u, v);
        if ((rc = norm(w, v, 1, fail, &alpha, err))) return rc;
        if (alpha > 0) hspmv_sv_scal_n(w, n, 1 / alpha, v);
    }
    hspmv_sv_copy_n(w, n, v, wv);
    double rhobar = alpha, phibar = beta, anorm = 0, xnorm = 0, xxnorm = 0, z = 0, cs2 = -1, sn2 = 0;
    w->res.relres = beta / bnorm;
    hspmv_solver_note(w, 0, beta / bnorm);
    if (beta == 0 || alpha == 0) { /* x0 solves it already: r = 0, or A^T r = 0 */
        rc = hspmv_solver_stop(w, beta == 0 ? HSPMV_CONVERGED_RTOL : HSPMV_CONVERGED_RTOL_NORMAL, err, "%s", "");
        hspmv_solver_true_residual(w, b, x, t, who);
        return rc;
    }
    for (;;) {
        /* bidiagonalization: beta u = A v - alpha u, alpha v = A^T u - beta v */
        fail = hspmv_solver_spmv(w, v, t);
        double ss;
        hspmv_sv_xpby_dot_n(w, m, t, -alpha, u, &ss); /* u = A v - alpha u and u'u in one sweep */
        if ((rc = hspmv_solver_sum(w, &ss, 1, fail, who, err))) return rc;
        beta = sqrt(ss);
        if (beta > 0) {
            hspmv_sv_scal_n(w, m, 1 / beta, u);
            anorm = sqrt(anorm * anorm + alpha * alpha + beta * beta);
            fail = hspmv_solver_spmv_t(w, u, w->c[2]);
            hspmv_sv_xpby_dot_n(w, n, w->c[2], -beta, v, &ss);
            if ((rc = hspmv_solver_sum(w, &ss, 1, fail, who, err))) return rc;
            alpha = sqrt(ss);
            if (alpha > 0) hspmv_sv_scal_n(w, n, 1 / alpha, v);
        }
        /* the rotation that removes beta from the lower bidiagonal */
        double cs, sn, rho;
        rotation(rhobar, beta, &cs, &sn, &rho);
        double theta = sn * alpha, phi = cs * phibar, tau;
        rhobar = -cs * alpha;
        phibar = sn * phibar;
        tau = sn * phi;
        /* x += (phi/rho) w, w = v - (theta/rho) w */
        hspmv_sv_lsqr_xw(w, n, phi / rho, -theta / rho, v, wv, x);
        /* ||x|| estimated by a rotation on the right (the paper's estimate) */
        double delta = sn2 * rho, gambar = -cs2 * rho, rhs = phi - delta * z, zbar = rhs / gambar;
        xnorm = sqrt(xxnorm + zbar * zbar);
        double gamma = sqrt(gambar * gambar + theta * theta);
        cs2 = gambar / gamma;
        sn2 = theta / gamma;
        z = rhs / gamma;
        xxnorm += z * z;
        /* S1: ||r|| <= BTOL ||b|| + ATOL ||A|| ||x||; S2: ||A^T r|| <= ATOL ||A|| ||r|| */
        double rnorm = fabs(phibar), arnorm = alpha * fabs(tau);
        double test1 = rnorm / bnorm, test2 = arnorm / (anorm * rnorm + eps);
        double t1 = test1 / (1 + anorm * xnorm / bnorm), rtol = tol + tol * anorm * xnorm / bnorm;
        hspmv_solver_note(w, ++it, test1);
        if (!isfinite(test1) || !isfinite(test2) || !isfinite(xnorm)) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_NANORINF, err, "%s: breakdown at iteration %lld: an estimate "
                                   "is not finite (||r|| %.3e, ||A^T r|| %.3e)", who, (long long)it, rnorm, arnorm);
            break;
        }
        /* the user's tolerances first, then the working precision's (tol below eps) */
        int reason = test1 <= rtol ? HSPMV_CONVERGED_RTOL : test2 <= tol ? HSPMV_CONVERGED_RTOL_NORMAL
                   : 1 + t1 <= 1 ? HSPMV_CONVERGED_RTOL : 1 + test2 <= 1 ? HSPMV_CONVERGED_RTOL_NORMAL : 0;
        if (reason) {
            rc = hspmv_solver_stop(w, reason, err, "%s", "");
            break;
        }
        if (it >= w->o.maxit) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_ITS, err, "%s: no convergence in %lld iterations: ||r||/||b|| "
                                   "%.3e, ||A^T r||/(||A|| ||r||) %.3e > tol %.3e", who, (long long)it, test1, test2,
                                   tol);
            break;
        }
    }
    hspmv_solver_true_residual(w, b, x, t, who);
    return rc;
}
