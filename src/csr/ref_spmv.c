/* ref_spmv.c — the correctness oracle: a plain serial product accumulated in
   long double, and the DESIGN.md bound |y_i - ref_i| <= c*k_i*eps*(|A||x|)_i.
   Kept simple on purpose: never tune this file. */
#include <float.h>
#include <math.h>
#include "util.h"

double hspmv_eps(void)
{
#ifdef HSPMV_SINGLE
    return FLT_EPSILON / 2;
#else
    return DBL_EPSILON / 2;
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
    hspmv_check r = {0, -1, 0.0, 0.0, 0.0};
    long double eps = hspmv_eps(), relsum = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        long double s = 0, a = 0;
        int64_t k_i = A->rowptr[i + 1] - A->rowptr[i];
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            long double t = (long double)A->val[k] * (long double)x[A->colind[k]];
            s += t;
            a += fabsl(t);
        }
        long double d = fabsl((long double)y[i] - s);
        long double bound = (long double)c * k_i * eps * a;
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
