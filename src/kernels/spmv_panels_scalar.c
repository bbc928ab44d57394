/* spmv_panels_scalar.c — portable column-panel kernel, the twin of every SIMD panel kernel. */
#include "kernels_panels.h"

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32, const int pf, int xpf,
     const int32_t *ci, const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add)
{
    int64_t e = HSPMV_PANELS_RP(r0);
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        hspmv_real s = 0;
        e = HSPMV_PANELS_RP(i + 1);
        for (; k < e; k++) {
            if (pf) __builtin_prefetch(x + ci[k + xpf], 0, 3);
            s += v[k] * x[ci[k]];
        }
        y[i] = add ? y[i] + s : s;
    }
}

/* y[i] (+)= sum over the panels of sum_k v[k]*x[ci[k]] for rows [r0, r1). */
void hspmv_k_panels_scalar(int64_t r0, int64_t r1, const hspmv_panels *P, const hspmv_real *x, hspmv_real *y,
                           int add)
{
    HSPMV_PANELS_DISPATCH(rows);
}
