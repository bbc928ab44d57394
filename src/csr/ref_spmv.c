/* ref_spmv.c — the correctness oracle: a plain serial product accumulated in
   long double, and the docs/design.md bound
   |y_i - ref_i| <= c*k_i*eps*(|A||x|)_i + k_i*eta (eta: smallest normal),
   rows whose |A||x| leaves the working precision's range set apart as
   overflows. Kept simple on purpose: never tune this file. */
#include <float.h>
#include <math.h>
#include "util.h"
#include "csr.h"

double hspmv_eps(void)
{
#ifdef HSPMV_SINGLE
    return FLT_EPSILON / 2;
#else
    return DBL_EPSILON / 2;
#endif
}

double hspmv_eta(void)
{
#ifdef HSPMV_SINGLE
    return FLT_MIN;
#else
    return DBL_MIN;
#endif
}

/* Largest finite value of the working precision. */
static long double real_max(void)
{
#ifdef HSPMV_SINGLE
    return FLT_MAX;
#else
    return DBL_MAX;
#endif
}

void hspmv_ref_spmv(const hspmv_csr *A, const hspmv_real *x, hspmv_real *y)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        long double s = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += (long double)A->val[k] * (long double)x[A->colind[k]];
        y[i] = (hspmv_real)s;
    }
}

int64_t hspmv_ref_check(const hspmv_csr *A, const hspmv_real *x, const hspmv_real *y,
                        double c, hspmv_check *out)
{
    hspmv_check r = {0, -1, 0.0, 0.0, 0.0, 0, -1};
    long double eps = hspmv_eps(), eta = hspmv_eta(), big = real_max(), relsum = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        long double s = 0, a = 0;
        int64_t k_i = A->rowptr[i + 1] - A->rowptr[i];
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            long double t = (long double)A->val[k] * (long double)x[A->colind[k]];
            s += t;
            a += fabsl(t);
        }
        /* |A||x| past the range (with the rounding of the partial sums):
           some summation order overflows, so y_i may be inf or anything;
           the matrix and x make the product unrepresentable, not the kernel */
        if (a * (1 + 2 * (long double)k_i * eps) > big) {
            if (r.first_overflow < 0) r.first_overflow = i;
            r.overflows++;
            continue;
        }
        long double d = fabsl((long double)y[i] - s);
        /* the absolute term covers products and sums in the subnormal
           range, whose error is absolute, not relative (docs/design.md) */
        long double bound = (long double)c * k_i * eps * a + k_i * eta;
        int bad = !(d <= bound); /* NaN in y is a violation */
        if (bad) {
            if (r.first_bad < 0) r.first_bad = i;
            r.violations++;
        }
        double ratio = bound > 0 ? (double)(d / bound) : (d > 0 || bad ? INFINITY : 0.0);
        if (ratio > r.worst || ratio != ratio) r.worst = ratio;
        /* relative to the magnitude of the summed terms: dividing by |ref_i|
           (the seed's choice) is meaningless on rows that cancel to ~0 */
        double rel = a != 0 ? (double)(d / a) : (d != 0 ? INFINITY : 0.0);
        if (rel > r.max_rel || rel != rel) r.max_rel = rel;
        relsum += rel;
    }
    r.avg_rel = A->nrows > 0 ? (double)(relsum / A->nrows) : 0.0;
    if (out) *out = r;
    return r.violations;
}
