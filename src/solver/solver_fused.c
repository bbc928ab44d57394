/* solver_fused.c — the methods' fused vector passes: the updates and dot
   products of one step in one sweep over the vectors, each thread on its
   contiguous share (as solver_vec.c, so the same thread touches the same
   entries in every pass), loops the compiler vectorizes, dots in double
   summed in a fixed order for a given thread count. */
#include <omp.h>
#include <string.h>
#include "solver.h"

/* Runs body over [lo, hi) shares and sums its nd partial dots (nd <= 8) in thread order. */
#define FUSED(w, len, nd, out, ...)                                                   \
    do {                                                                               \
        int nt_ = (w)->threads > 1 && (len) >= SV_PAR_MIN ? (w)->threads : 1;          \
        memset((w)->part, 0, sizeof(double) * 8 * (size_t)(w)->threads);               \
        _Pragma("omp parallel num_threads(nt_)")                                       \
        {                                                                              \
            int t_ = omp_get_thread_num(), n_ = omp_get_num_threads();                 \
            int64_t lo = (len) * t_ / n_, hi = (len) * (t_ + 1) / n_;                  \
            double *acc = (w)->part + 8 * t_;                                          \
            __VA_ARGS__                                                                \
        }                                                                              \
        for (int d_ = 0; d_ < (nd); d_++) {                                            \
            (out)[d_] = 0;                                                             \
            for (int t_ = 0; t_ < nt_; t_++) (out)[d_] += (w)->part[8 * t_ + d_];      \
        }                                                                              \
    } while (0)

void hspmv_sv_cg_step(solver_ws *w, double a, const hspmv_real *p, const hspmv_real *q, hspmv_real *x,
                      hspmv_real *r, hspmv_real *z, double s[2])
{
    const hspmv_real ar = (hspmv_real)a, *d = w->dinv;
    int64_t n = w->n;
    FUSED(w, n, 2, s, {
        double rr = 0, rz = 0;
        if (z == r) {
        _Pragma("omp simd reduction(+ : rr)")
            for (int64_t i = lo; i < hi; i++) {
                x[i] += ar * p[i];
                hspmv_real ri = r[i] - ar * q[i];
                r[i] = ri;
                rr += (double)ri * ri;
            }
            rz = rr;
        } else {
        _Pragma("omp simd reduction(+ : rr, rz)")
            for (int64_t i = lo; i < hi; i++) {
                x[i] += ar * p[i];
                hspmv_real ri = r[i] - ar * q[i], zi = d[i] * ri;
                r[i] = ri;
                z[i] = zi;
                rr += (double)ri * ri;
                rz += (double)ri * zi;
            }
        }
        acc[0] = rr;
        acc[1] = rz;
    });
}

void hspmv_sv_pipe_step(solver_ws *w, const pipe_vecs *v, double alpha, double beta, double s[3])
{
    const hspmv_real a = (hspmv_real)alpha, b = (hspmv_real)beta, *d = w->dinv;
    hspmv_real *r = v->r, *u = v->u, *wv = v->w, *m = v->m, *nv = v->n, *z = v->z, *q = v->q, *sv = v->s,
               *p = v->p, *x = v->x;
    int64_t len = w->n;
    /* beta = 0 (a start) does not read the old z, q, s, p: they may hold anything */
    int fresh = beta == 0;
    FUSED(w, len, 3, s, {
        double g = 0, dl = 0, rr = 0;
        if (!d) {
        _Pragma("omp simd reduction(+ : g, dl)")
            for (int64_t i = lo; i < hi; i++) {
                hspmv_real zi = fresh ? nv[i] : nv[i] + b * z[i], si = fresh ? wv[i] : wv[i] + b * sv[i];
                hspmv_real pi = fresh ? r[i] : r[i] + b * p[i];
                z[i] = zi;
                sv[i] = si;
                p[i] = pi;
                x[i] += a * pi;
                hspmv_real ri = r[i] - a * si, wi = wv[i] - a * zi;
                r[i] = ri;
                wv[i] = wi;
                g += (double)ri * ri;
                dl += (double)wi * ri;
            }
            rr = g;
        } else {
        _Pragma("omp simd reduction(+ : g, dl, rr)")
            for (int64_t i = lo; i < hi; i++) {
                hspmv_real zi = fresh ? nv[i] : nv[i] + b * z[i], qi = fresh ? m[i] : m[i] + b * q[i];
                hspmv_real si = fresh ? wv[i] : wv[i] + b * sv[i], pi = fresh ? u[i] : u[i] + b * p[i];
                z[i] = zi;
                q[i] = qi;
                sv[i] = si;
                p[i] = pi;
                x[i] += a * pi;
                hspmv_real ri = r[i] - a * si, ui = u[i] - a * qi, wi = wv[i] - a * zi;
                r[i] = ri;
                u[i] = ui;
                wv[i] = wi;
                m[i] = d[i] * wi;
                g += (double)ri * ui;
                dl += (double)wi * ui;
                rr += (double)ri * ri;
            }
        }
        acc[0] = g;
        acc[1] = dl;
        acc[2] = rr;
    });
}

void hspmv_sv_pipe_dots(solver_ws *w, const pipe_vecs *v, double s[3])
{
    const hspmv_real *d = w->dinv, *r = v->r, *u = v->u, *wv = v->w;
    hspmv_real *m = v->m;
    int64_t len = w->n;
    FUSED(w, len, 3, s, {
        double g = 0, dl = 0, rr = 0;
        _Pragma("omp simd reduction(+ : g, dl, rr)")
        for (int64_t i = lo; i < hi; i++) {
            if (d) m[i] = d[i] * wv[i];
            g += (double)r[i] * u[i];
            dl += (double)wv[i] * u[i];
            rr += (double)r[i] * r[i];
        }
        acc[0] = g;
        acc[1] = dl;
        acc[2] = rr;
    });
}

void hspmv_sv_dot2(solver_ws *w, const hspmv_real *a, const hspmv_real *b, const hspmv_real *c,
                   const hspmv_real *d, double s[2])
{
    int64_t n = w->n;
    FUSED(w, n, 2, s, {
        double s0 = 0, s1 = 0;
        _Pragma("omp simd reduction(+ : s0, s1)")
        for (int64_t i = lo; i < hi; i++) {
            s0 += (double)a[i] * b[i];
            s1 += (double)c[i] * d[i];
        }
        acc[0] = s0;
        acc[1] = s1;
    });
}

void hspmv_sv_waxpy_dot(solver_ws *w, double a, const hspmv_real *x, const hspmv_real *y, hspmv_real *z, double *zz)
{
    const hspmv_real ar = (hspmv_real)a;
    int64_t n = w->n;
    FUSED(w, n, 1, zz, {
        double s0 = 0;
        _Pragma("omp simd reduction(+ : s0)")
        for (int64_t i = lo; i < hi; i++) {
            hspmv_real zi = y[i] + ar * x[i];
            z[i] = zi;
            s0 += (double)zi * zi;
        }
        acc[0] = s0;
    });
}

void hspmv_sv_bicg_p(solver_ws *w, double beta, double omega, const hspmv_real *r, const hspmv_real *v,
                     hspmv_real *p)
{
    const hspmv_real b = (hspmv_real)beta, om = (hspmv_real)omega;
    int64_t n = w->n;
#pragma omp parallel num_threads(w->threads) if (w->threads > 1 && n >= SV_PAR_MIN)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
#pragma omp simd
        for (int64_t i = lo; i < hi; i++) p[i] = r[i] + b * (p[i] - om * v[i]);
    }
}

void hspmv_sv_bicg_xr(solver_ws *w, double alpha, const hspmv_real *ph, double omega, const hspmv_real *sh,
                      hspmv_real *x, const hspmv_real *s, const hspmv_real *t, const hspmv_real *rh, hspmv_real *r,
                      double out[2])
{
    const hspmv_real a = (hspmv_real)alpha, om = (hspmv_real)omega;
    int64_t n = w->n;
    FUSED(w, n, 2, out, {
        double rr = 0, hr = 0;
        _Pragma("omp simd reduction(+ : rr, hr)")
        for (int64_t i = lo; i < hi; i++) {
            x[i] += a * ph[i] + om * sh[i];
            hspmv_real ri = s[i] - om * t[i];
            r[i] = ri;
            rr += (double)ri * ri;
            hr += (double)rh[i] * ri;
        }
        acc[0] = rr;
        acc[1] = hr;
    });
}

void hspmv_sv_axpy_dot_n(solver_ws *w, int64_t len, double a, const hspmv_real *x, hspmv_real *y, double *yy)
{
    const hspmv_real ar = (hspmv_real)a;
    FUSED(w, len, 1, yy, {
        double s0 = 0;
        _Pragma("omp simd reduction(+ : s0)")
        for (int64_t i = lo; i < hi; i++) {
            hspmv_real yi = y[i] + ar * x[i];
            y[i] = yi;
            s0 += (double)yi * yi;
        }
        acc[0] = s0;
    });
}

void hspmv_sv_xpby_dot_n(solver_ws *w, int64_t len, const hspmv_real *x, double b, hspmv_real *y, double *yy)
{
    const hspmv_real br = (hspmv_real)b;
    FUSED(w, len, 1, yy, {
        double s0 = 0;
        _Pragma("omp simd reduction(+ : s0)")
        for (int64_t i = lo; i < hi; i++) {
            hspmv_real yi = x[i] + br * y[i];
            y[i] = yi;
            s0 += (double)yi * yi;
        }
        acc[0] = s0;
    });
}

void hspmv_sv_lsqr_xw(solver_ws *w, int64_t len, double a, double b, const hspmv_real *v, hspmv_real *wv,
                      hspmv_real *x)
{
    const hspmv_real ar = (hspmv_real)a, br = (hspmv_real)b;
#pragma omp parallel num_threads(w->threads) if (w->threads > 1 && len >= SV_PAR_MIN)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t lo = len * t / nt, hi = len * (t + 1) / nt;
#pragma omp simd
        for (int64_t i = lo; i < hi; i++) {
            hspmv_real wi = wv[i];
            x[i] += ar * wi;
            wv[i] = v[i] + br * wi;
        }
    }
}
