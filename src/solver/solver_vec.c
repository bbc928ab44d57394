/* solver_vec.c — the Krylov methods' vector kernels on this rank's part:
   dot products accumulated in double with a fixed summation order for a
   given thread count, axpy-like updates, the Jacobi scaling. */
#include <omp.h>
#include <string.h>
#include "solver.h"

static int par(const solver_ws *w, int64_t len)
{
    return w->threads > 1 && len >= SV_PAR_MIN;
}

/* This thread's contiguous share [*lo, *hi) of n. */
static void share(int64_t n, int64_t *lo, int64_t *hi)
{
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    *lo = n * t / nt;
    *hi = n * (t + 1) / nt;
}

/* sum a[i]*b[i] */
double hspmv_sv_dot_n(solver_ws *w, int64_t n, const hspmv_real *a, const hspmv_real *b)
{
    double s = 0;
    if (!par(w, n)) {
#pragma omp simd reduction(+ : s)
        for (int64_t i = 0; i < n; i++) s += (double)a[i] * b[i];
        return s;
    }
    memset(w->part, 0, sizeof(double) * 8 * (size_t)w->threads);
#pragma omp parallel num_threads(w->threads)
    {
        int64_t lo, hi;
        double t = 0;
        share(n, &lo, &hi);
#pragma omp simd reduction(+ : t)
        for (int64_t i = lo; i < hi; i++) t += (double)a[i] * b[i];
        w->part[8 * omp_get_thread_num()] = t;
    }
    for (int t = 0; t < w->threads; t++) s += w->part[8 * t];
    return s;
}

/* y = a*x + y */
void hspmv_sv_axpy_n(solver_ws *w, int64_t n, double a, const hspmv_real *x, hspmv_real *y)
{
    hspmv_real ar = (hspmv_real)a;
#pragma omp parallel for schedule(static) num_threads(w->threads) if (par(w, n))
    for (int64_t i = 0; i < n; i++) y[i] += ar * x[i];
}

/* y = x + b*y */
void hspmv_sv_xpby_n(solver_ws *w, int64_t n, const hspmv_real *x, double b, hspmv_real *y)
{
    hspmv_real br = (hspmv_real)b;
#pragma omp parallel for schedule(static) num_threads(w->threads) if (par(w, n))
    for (int64_t i = 0; i < n; i++) y[i] = x[i] + br * y[i];
}

/* y *= a */
void hspmv_sv_scal_n(solver_ws *w, int64_t n, double a, hspmv_real *y)
{
    hspmv_real ar = (hspmv_real)a;
#pragma omp parallel for schedule(static) num_threads(w->threads) if (par(w, n))
    for (int64_t i = 0; i < n; i++) y[i] *= ar;
}

/* z = M^-1 r with M = diag(A), or z = r */
void hspmv_sv_precond(solver_ws *w, const hspmv_real *r, hspmv_real *z)
{
    int64_t n = w->n;
    const hspmv_real *d = w->dinv;
    if (!d) {
        if (z != r) hspmv_sv_copy(w, r, z);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(w->threads) if (par(w, n))
    for (int64_t i = 0; i < n; i++) z[i] = d[i] * r[i];
}

/* y = x */
void hspmv_sv_copy_n(solver_ws *w, int64_t n, const hspmv_real *x, hspmv_real *y)
{
#pragma omp parallel for schedule(static) num_threads(w->threads) if (par(w, n))
    for (int64_t i = 0; i < n; i++) y[i] = x[i];
}
