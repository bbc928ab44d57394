/* solver.h — private to src/solver: the workspace every Krylov method
   shares, agreed status, timed products, threaded vector kernels, and the
   methods behind hspmv_solve. */
#ifndef HSPMV_SOLVER_H
#define HSPMV_SOLVER_H

#include "hspmv.h"

#define SOLVER_NVEC 10 /* work vectors of each kind at most */
#define SV_PAR_MIN 20000 /* vector kernels: below this length threads cost more than they save */

typedef struct solver_ws {
    hspmv_dist *D;
    MPI_Comm comm;          /* hspmv_dist_get_comm(D) */
    int rank;
    int threads;            /* OpenMP threads for vector kernels (the matrix's) */
    int64_t n;              /* y-like (b, r) local length: nrows_local */
    int64_t nc;             /* x-like local length: ncols_local (== n for CG, BiCGStab) */
    hspmv_solver_opts o;    /* the caller's options or the defaults */
    hspmv_real *dinv;       /* 1/diag (n entries) or NULL: no preconditioner */
    hspmv_real *v[SOLVER_NVEC]; /* y-like work vectors, n entries each (at least 1) */
    hspmv_real *c[SOLVER_NVEC]; /* x-like work vectors, nc entries each (at least 1) */
    double *part;           /* per-thread partial sums, 8 doubles apart */
    hspmv_solver_result res;
    double bnorm;           /* ||b|| (of the scaled b) */
    const hspmv_real *b;    /* the b the method iterates on: the caller's, or bs */
    hspmv_real *bs;         /* b * scale when b's entries are too large or small to square, else NULL */
    hspmv_real *x;          /* the caller's x while it is scaled (x * scale), else NULL */
    double scale;           /* a power of two; 1 when b is used as given */
    double t0;
    int prod_rc;            /* this rank's first failed product: its status and message, */
    hspmv_error prod_err;   /*   agreed by the next hspmv_solver_sum */
    double delay_s;         /* test only (HSPMV_TEST solver_delay, rank 0's): every reduction
                               completes no sooner than this after it began */
    MPI_Request req;        /* the reduction hspmv_solver_isum began, or MPI_REQUEST_NULL */
    double req_t0, req_buf[8], req_out[8];
    int req_k, req_fail;
} solver_ws;

/* Checks arguments (CG and BiCGStab: square; least squares: no diag),
   allocates nrow y-like and ncol x-like work vectors and 1/diag; every rank
   gets the same status. Fills w->b (the b to iterate on; b and x scaled by
   a power of two when b's squares would leave the double range) and
   w->bnorm. who names the method in messages. */
int hspmv_solver_begin(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                       const hspmv_solver_opts *o, int nrow, int ncol, const char *who, hspmv_error *err);

/* Scales x back when it was scaled, frees the workspace, stores the times,
   the reason's name, and copies the result out. */
void hspmv_solver_end(solver_ws *w, hspmv_solver_result *res);

/* The static name of a reason ("DIVERGED_ITS"; "UNKNOWN" for no reason). */
const char *hspmv_solver_reason_name(int reason);

/* b = 0: x = 0 and HSPMV_CONVERGED_ZERO_RHS. */
void hspmv_solver_zero_rhs(solver_ws *w, hspmv_real *x);

/* Sets w->res.reason and returns the status that goes with it, with a
   message made of who and text in err (converged: HSPMV_OK, err cleared). */
int hspmv_solver_stop(solver_ws *w, int reason, hspmv_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* y = A*x, resp. x = A^T*y, timed; return 1 when this rank's call failed
   (not agreed: the failure travels with the next hspmv_solver_sum). */
int hspmv_solver_spmv(solver_ws *w, const hspmv_real *x, hspmv_real *y);
int hspmv_solver_spmv_t(solver_ws *w, const hspmv_real *y, hspmv_real *x);
/* y = A*x and *xy = x'y over this rank's rows (a square matrix), timed as
   a product: the sum rides in the product where hspmv_dist_dot_fused. */
int hspmv_solver_spmv_dot(solver_ws *w, const hspmv_real *x, hspmv_real *y, double *xy);

/* Sums s[0..k) (k <= 7) over the ranks in place, together with this rank's
   failure flag; when any rank's product failed, every rank returns the
   lowest failing rank's status and message (HSPMV_ERR_MPI when only the
   flag is known or the reduction itself failed). */
int hspmv_solver_sum(solver_ws *w, double *s, int k, int fail, const char *who, hspmv_error *err);

/* The same sum split in two: _isum begins it (MPI_Iallreduce of s[0..k)
   and fail), _wait completes it into s with hspmv_solver_sum's status; the
   work between the two overlaps the reduction. */
int hspmv_solver_isum(solver_ws *w, const double *s, int k, int fail, const char *who, hspmv_error *err);
int hspmv_solver_wait(solver_ws *w, double *s, const char *who, hspmv_error *err);

/* Records relres of iteration it in the history and calls the monitor. */
void hspmv_solver_note(solver_ws *w, int64_t it, double relres);

/* r = b - A*x; returns this rank's failure flag like hspmv_solver_spmv. Also
   ||r||^2 of this rank in *rr. */
int hspmv_solver_residual(solver_ws *w, const hspmv_real *b, const hspmv_real *x, hspmv_real *r,
                          double *rr);

/* relres_true = ||b - A*x||/||b|| recomputed into r (agreed; left at -1
   when a product fails, the status then being kept as it is). */
void hspmv_solver_true_residual(solver_ws *w, const hspmv_real *b, const hspmv_real *x, hspmv_real *r,
                                const char *who);

/* The methods, each on a workspace hspmv_solve has not begun. */
int hspmv_solver_cg(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                    const hspmv_solver_opts *o, hspmv_error *err);
int hspmv_solver_bicgstab(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                          const hspmv_solver_opts *o, hspmv_error *err);
int hspmv_solver_cgls(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                      const hspmv_solver_opts *o, hspmv_error *err);
int hspmv_solver_lsqr(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                      const hspmv_solver_opts *o, hspmv_error *err);
int hspmv_solver_pipecg(solver_ws *w, hspmv_dist *D, const hspmv_real *b, hspmv_real *x,
                        const hspmv_solver_opts *o, hspmv_error *err);

/* Local (this rank's) vector kernels on len entries: dot products in
   double with a fixed order per thread count, updates. The short names
   work on y-like vectors (w->n entries). */
double hspmv_sv_dot_n(solver_ws *w, int64_t len, const hspmv_real *a, const hspmv_real *b);
void hspmv_sv_axpy_n(solver_ws *w, int64_t len, double a, const hspmv_real *x, hspmv_real *y); /* y += a*x */
void hspmv_sv_xpby_n(solver_ws *w, int64_t len, const hspmv_real *x, double b, hspmv_real *y); /* y = x + b*y */
void hspmv_sv_copy_n(solver_ws *w, int64_t len, const hspmv_real *x, hspmv_real *y);          /* y = x */
void hspmv_sv_scal_n(solver_ws *w, int64_t len, double a, hspmv_real *y);                      /* y *= a */
#define hspmv_sv_dot(w, a, b) hspmv_sv_dot_n((w), (w)->n, (a), (b))
#define hspmv_sv_axpy(w, a, x, y) hspmv_sv_axpy_n((w), (w)->n, (a), (x), (y))
#define hspmv_sv_xpby(w, x, b, y) hspmv_sv_xpby_n((w), (w)->n, (x), (b), (y))
#define hspmv_sv_copy(w, x, y) hspmv_sv_copy_n((w), (w)->n, (x), (y))
/* z = dinv .* r, or a copy when there is no preconditioner (y-like) */
void hspmv_sv_precond(solver_ws *w, const hspmv_real *r, hspmv_real *z);

/* The fused passes (solver_fused.c): one sweep each, the threads' shares
   as in the kernels above, dots in double. y-like vectors. */
/* CG: x += a*p, r -= a*q, z = dinv .* r (z == r: none); s[0] = r'r, s[1] = r'z */
void hspmv_sv_cg_step(solver_ws *w, double a, const hspmv_real *p, const hspmv_real *q, hspmv_real *x,
                      hspmv_real *r, hspmv_real *z, double s[2]);
/* pipelined CG's update (vecs as in pipecg.c), the next m = dinv .* w and
   the next dots s = {r'u, w'u, r'r} */
typedef struct pipe_vecs {
    hspmv_real *r, *u, *w, *m, *n, *z, *q, *s, *p, *x; /* u == r, m == w, q == s: no preconditioner */
} pipe_vecs;
void hspmv_sv_pipe_step(solver_ws *w, const pipe_vecs *v, double alpha, double beta, double s[3]);
/* m = dinv .* w (when m != w) and s = {r'u, w'u, r'r} */
void hspmv_sv_pipe_dots(solver_ws *w, const pipe_vecs *v, double s[3]);
/* s = {a'b, c'd} in one sweep */
void hspmv_sv_dot2(solver_ws *w, const hspmv_real *a, const hspmv_real *b, const hspmv_real *c,
                   const hspmv_real *d, double s[2]);
/* z = y + a*x, *zz = z'z */
void hspmv_sv_waxpy_dot(solver_ws *w, double a, const hspmv_real *x, const hspmv_real *y, hspmv_real *z, double *zz);
/* BiCGStab: p = r + beta*(p - omega*v) */
void hspmv_sv_bicg_p(solver_ws *w, double beta, double omega, const hspmv_real *r, const hspmv_real *v,
                     hspmv_real *p);
/* y += a*x, resp. y = x + b*y, on len entries; *yy = y'y */
void hspmv_sv_axpy_dot_n(solver_ws *w, int64_t len, double a, const hspmv_real *x, hspmv_real *y, double *yy);
void hspmv_sv_xpby_dot_n(solver_ws *w, int64_t len, const hspmv_real *x, double b, hspmv_real *y, double *yy);
/* LSQR: x += a*wv, wv = v + b*wv (len entries) */
void hspmv_sv_lsqr_xw(solver_ws *w, int64_t len, double a, double b, const hspmv_real *v, hspmv_real *wv,
                      hspmv_real *x);
/* BiCGStab: x += alpha*ph + omega*sh, r = s - omega*t; out = {r'r, rh'r} */
void hspmv_sv_bicg_xr(solver_ws *w, double alpha, const hspmv_real *ph, double omega, const hspmv_real *sh,
                      hspmv_real *x, const hspmv_real *s, const hspmv_real *t, const hspmv_real *rh, hspmv_real *r,
                      double out[2]);

#endif
