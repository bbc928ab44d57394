/* solver.h — private to src/solver: the workspace every Krylov method
   shares, agreed status, timed SpMV, and threaded vector kernels. */
#ifndef HSPMV_SOLVER_H
#define HSPMV_SOLVER_H

#include "hspmv.h"

typedef struct solver_ws {
    hspmv_dist *D;
    MPI_Comm comm;          /* hspmv_dist_get_comm(D) */
    int rank;
    int threads;            /* OpenMP threads for vector kernels (the matrix's) */
    int64_t n;              /* local vector length (nrows_local == ncols_local) */
    hspmv_solver_opts o;    /* the caller's options or the defaults */
    hspmv_real *dinv;       /* 1/diag (n entries) or NULL: no preconditioner */
    hspmv_real *v[8];       /* work vectors, n entries each (at least 1) */
    double *part;           /* per-thread partial sums, 8 doubles apart */
    hspmv_solver_result res;
    double bnorm;           /* ||b|| (of the scaled b) */
    const hspmv_real *b;    /* the b the method iterates on: the caller's, or bs */
    hspmv_real *bs;         /* b * scale when b's entries are too large or small to square, else NULL */
    hspmv_real *x;          /* the caller's x while it is scaled (x * scale), else NULL */
    double scale;           /* a power of two; 1 when b is used as given */
    double t0;
} solver_ws;

/* Checks arguments, allocates nvec work vectors and 1/diag; every rank
   gets the same status. Fills w->b (the b to iterate on; b and x scaled by
   a power of two when b's squares would leave the double range) and
   w->bnorm. */
int hspmv_solver_begin(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                 const hspmv_solver_opts *o, int nvec, const char *who, hspmv_error *err);

/* Scales x back when it was scaled, frees the workspace, stores the times
   and copies the result out. */
void hspmv_solver_end(solver_ws *w, hspmv_solver_result *res);

/* y = A*x timed; returns 1 when this rank's call failed (not agreed: the
   failure travels with the next hspmv_solver_sum). */
int hspmv_solver_spmv(solver_ws *w, const hspmv_real *x, hspmv_real *y);

/* Sums s[0..k) over the ranks in place, together with this rank's failure
   flag; HSPMV_ERR_MPI (agreed) when any rank failed or the reduction did. */
int hspmv_solver_sum(solver_ws *w, double *s, int k, int fail, const char *who, hspmv_error *err);

/* Records relres of iteration it in the history and calls the monitor. */
void hspmv_solver_note(solver_ws *w, int64_t it, double relres);

/* r = b - A*x; returns this rank's failure flag like hspmv_solver_spmv. Also
   ||r||^2 of this rank in *rr. */
int hspmv_solver_residual(solver_ws *w, const hspmv_real *b, const hspmv_real *x, hspmv_real *r,
                    double *rr);

/* Local (this rank's) dot products, in double, fixed order per thread count. */
double hspmv_sv_dot(solver_ws *w, const hspmv_real *a, const hspmv_real *b);
/* y = a*x + y */
void hspmv_sv_axpy(solver_ws *w, double a, const hspmv_real *x, hspmv_real *y);
/* y = x + b*y */
void hspmv_sv_xpby(solver_ws *w, const hspmv_real *x, double b, hspmv_real *y);
/* z = dinv .* r, or a copy when there is no preconditioner */
void hspmv_sv_precond(solver_ws *w, const hspmv_real *r, hspmv_real *z);
/* y = x */
void hspmv_sv_copy(solver_ws *w, const hspmv_real *x, hspmv_real *y);

#endif
