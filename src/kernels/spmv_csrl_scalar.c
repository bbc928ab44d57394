/* spmv_csrl_scalar.c — portable CSRL kernel (segments of consecutive columns). */
#include "kernels.h"

void hspmv_k_csrl_scalar(int64_t r0, int64_t r1, const int64_t *sp, const int64_t *vp,
                         const int32_t *jas, const int32_t *jan, const hspmv_real *v,
                         const hspmv_real *x, hspmv_real *y, int add)
{
    for (int64_t i = r0; i < r1; i++) {
        hspmv_real s = add ? y[i] : 0;
        const hspmv_real *a = v + vp[i];
        for (int64_t g = sp[i]; g < sp[i + 1]; g++) {
            const hspmv_real *xs = x + jas[g];
            int32_t n = jan[g];
            for (int32_t k = 0; k < n; k++) s += a[k] * xs[k];
            a += n;
        }
        y[i] = s;
    }
}
