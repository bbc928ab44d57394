/* cg.c — (Jacobi-preconditioned) conjugate gradients on a distributed
   matrix: one SpMV and two reductions per iteration; besides the product
   two passes over the vectors (x, r, z and r'r, r'z
   in one; p), and p'q inside the product or a pass of its own. */
#include <math.h>
#include "solver.h"
#include "util.h"
#include "dist_dot.h"

static const char *who = "hspmv_solve (cg)";

/* From the true residual in r: z = M^-1 r, p = z; *rz = r'z, *relres. */
static int restart(solver_ws *w, hspmv_real *r, hspmv_real *z, hspmv_real *p, int fail,
                   double *rz, double *relres, hspmv_error *err)
{
    double s[2];
    hspmv_sv_precond(w, r, z);
    s[0] = hspmv_sv_dot(w, r, r);
    s[1] = z == r ? s[0] : hspmv_sv_dot(w, r, z);
    int rc = hspmv_solver_sum(w, s, 2, fail, who, err);
    if (rc) return rc;
    hspmv_sv_copy(w, z, p);
    *rz = s[1];
    *relres = sqrt(s[0]) / w->bnorm;
    return HSPMV_OK;
}

/* Converged by the recurrence: is it by the true residual too? If not, r
   becomes the true residual and the iteration restarts. 1: converged. */
static int confirmed(solver_ws *w, const hspmv_real *b, hspmv_real *x, hspmv_real *r, hspmv_real *z,
                     hspmv_real *p, double *rz, double *relres, int *rc, hspmv_error *err)
{
    double rr;
    hspmv_real *q = w->v[3];
    int fail = hspmv_solver_residual(w, b, x, q, &rr);
    if ((*rc = hspmv_solver_sum(w, &rr, 1, fail, who, err))) return 0;
    w->res.relres_true = sqrt(rr) / w->bnorm;
    if (w->res.relres_true <= w->o.tol) return 1;
    hspmv_sv_copy(w, q, r);
    *rc = restart(w, r, z, p, 0, rz, relres, err);
    return 0;
}

int hspmv_solver_cg(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                    const hspmv_solver_opts *o, hspmv_error *err)
{
    double rz, relres, s[2];
    int64_t it = 0;
    int rc = hspmv_solver_begin(w, D, b, x, o, 4, 0, who, err);
    if (rc) return rc;
    b = w->b; /* b itself, or b scaled with x (hspmv_solver_end scales x back) */
    hspmv_real *r = w->v[0], *z = w->dinv ? w->v[1] : w->v[0], *p = w->v[2], *q = w->v[3];
    w->res.spmv_per_iter = 1; /* passes: p'q 2 (0 inside the product), x r (z) 6 (8), p 3 */
    int fused = hspmv_dist_dot_fused(D); /* p'q inside the product where every rank can: 2 passes fewer */
    MPI_Allreduce(MPI_IN_PLACE, &fused, 1, MPI_INT, MPI_MIN, w->comm);
    w->res.passes_rows = (w->dinv ? 13 : 11) - (fused ? 2 : 0);
    if (w->bnorm == 0) { /* A*0 = 0: the exact answer */
        hspmv_solver_zero_rhs(w, x);
        return HSPMV_OK;
    }
    int fail = hspmv_solver_residual(w, b, x, r, &s[0]);
    if ((rc = restart(w, r, z, p, fail, &rz, &relres, err))) return rc;
    hspmv_solver_note(w, 0, relres);
    for (;;) {
        if (relres <= w->o.tol && (confirmed(w, b, x, r, z, p, &rz, &relres, &rc, err) || rc)) {
            if (!rc) rc = hspmv_solver_stop(w, HSPMV_CONVERGED_RTOL, err, "%s", "");
            break;
        }
        if (it >= w->o.maxit) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_ITS, err, "%s: no convergence in %lld iterations: relative "
                                   "residual %.3e > tol %.3e", who, (long long)it, relres, w->o.tol);
            break;
        }
        if (!(rz > 0)) {
            rc = hspmv_solver_stop(w, isfinite(rz) ? HSPMV_DIVERGED_INDEFINITE_PC : HSPMV_DIVERGED_NANORINF, err,
                                   "%s: breakdown at iteration %lld: r'M^-1r = %.3e <= 0 (Jacobi diagonal not "
                                   "positive)", who, (long long)it + 1, rz);
            break;
        }
        if (fused) { /* p'q summed as q's rows are made */
            fail = hspmv_solver_spmv_dot(w, p, q, &s[0]);
        } else {
            fail = hspmv_solver_spmv(w, p, q);
            s[0] = hspmv_sv_dot(w, p, q);
        }
        if ((rc = hspmv_solver_sum(w, s, 1, fail, who, err))) return rc;
        if (!isfinite(s[0])) { /* an overflowing A*p: alpha would be 0 and x stall */
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_NANORINF, err, "%s: breakdown at iteration %lld: p'Ap = %.3e "
                                   "is not finite", who, (long long)it + 1, s[0]);
            break;
        }
        if (!(s[0] > 0)) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_INDEFINITE_MAT, err, "%s: breakdown at iteration %lld: p'Ap = "
                                   "%.3e <= 0 (matrix not symmetric positive definite)", who, (long long)it + 1, s[0]);
            break;
        }
        double alpha = rz / s[0];
        hspmv_sv_cg_step(w, alpha, p, q, x, r, z, s);
        if ((rc = hspmv_solver_sum(w, s, 2, 0, who, err))) return rc;
        relres = sqrt(s[0]) / w->bnorm;
        hspmv_solver_note(w, ++it, relres);
        if (!isfinite(relres)) {
            rc = hspmv_solver_stop(w, HSPMV_DIVERGED_NANORINF, err, "%s: breakdown at iteration %lld: residual "
                                   "is not finite", who, (long long)it);
            break;
        }
        hspmv_sv_xpby(w, z, s[1] / rz, p);
        rz = s[1];
    }
    if (rc == HSPMV_ERR_NOCONV || rc == HSPMV_ERR_BREAKDOWN) /* the true residual of what is left */
        hspmv_solver_true_residual(w, b, x, q, who);
    return rc;
}
