/* solver_opts.c — the solvers' default options. */
#include "solver.h"

void hspmv_solver_opts_default(hspmv_solver_opts *o)
{
    if (!o) return;
    o->method = HSPMV_SOLVER_CG;
    o->tol = 1e-8;
    o->maxit = 1000;
    o->diag = NULL;
    o->history = NULL;
    o->history_len = 0;
    o->monitor = NULL;
    o->monitor_ctx = NULL;
}
