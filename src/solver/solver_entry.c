/* solver_entry.c — hspmv_solve: the one entry point, which hands the call to
   the method o->method names; the names of the stopping reasons. */
#include "solver.h"
#include "util.h"

const char *hspmv_solver_reason_name(int reason)
{
    switch (reason) { /* PETSc's KSPConvergedReason names, less KSP_ */
    case HSPMV_CONVERGED_RTOL_NORMAL: return "CONVERGED_RTOL_NORMAL";
    case HSPMV_CONVERGED_RTOL: return "CONVERGED_RTOL";
    case HSPMV_CONVERGED_ZERO_RHS: return "CONVERGED_ZERO_RHS";
    case HSPMV_REASON_NONE: return "NONE";
    case HSPMV_DIVERGED_ITS: return "DIVERGED_ITS";
    case HSPMV_DIVERGED_BREAKDOWN: return "DIVERGED_BREAKDOWN";
    case HSPMV_DIVERGED_INDEFINITE_PC: return "DIVERGED_INDEFINITE_PC";
    case HSPMV_DIVERGED_NANORINF: return "DIVERGED_NANORINF";
    case HSPMV_DIVERGED_INDEFINITE_MAT: return "DIVERGED_INDEFINITE_MAT";
    default: return "UNKNOWN";
    }
}

int hspmv_solve(hspmv_dist *D, const hspmv_real *b, hspmv_real *x, const hspmv_solver_opts *o,
                hspmv_solver_result *res, hspmv_error *err)
{
    solver_ws w;
    int rc, method = o ? o->method : HSPMV_SOLVER_CG;
    switch (method) {
    case HSPMV_SOLVER_CG: rc = hspmv_solver_cg(&w, D, b, x, o, err); break;
    case HSPMV_SOLVER_BICGSTAB: rc = hspmv_solver_bicgstab(&w, D, b, x, o, err); break;
    case HSPMV_SOLVER_CGLS: rc = hspmv_solver_cgls(&w, D, b, x, o, err); break;
    case HSPMV_SOLVER_LSQR: rc = hspmv_solver_lsqr(&w, D, b, x, o, err); break;
    case HSPMV_SOLVER_PIPECG: rc = hspmv_solver_pipecg(&w, D, b, x, o, err); break;
    default: /* not collective to find out: every rank sees its own o, and a bad one is refused at once */
        if (res) {
            hspmv_solver_result r0 = {0};
            r0.relres_true = -1;
            r0.reason_name = hspmv_solver_reason_name(HSPMV_REASON_NONE);
            *res = r0;
        }
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_solve: unknown method %d (HSPMV_SOLVER_CG, _BICGSTAB, "
                         "_CGLS, _LSQR or _PIPECG)", method);
    }
    hspmv_solver_end(&w, res);
    return rc;
}
