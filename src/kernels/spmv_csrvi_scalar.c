/* spmv_csrvi_scalar.c — portable CSRVI kernel, the twin of every SIMD CSRVI kernel. */
#include "kernels_csrvi.h"

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,
     const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab, const hspmv_real *x,
     hspmv_real *y, int add)
{
    int64_t e = HSPMV_CSRVI_RP(r0);
    (void)ntab;
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        hspmv_real s = 0;
        e = HSPMV_CSRVI_RP(i + 1);
        for (; k < e; k++) s += tab[code[k]] * x[ci[k]];
        y[i] = add ? y[i] + s : s;
    }
}

/* y[i] (+)= sum_k tab[code[k]]*x[ci[k]] for rows [r0, r1). */
void hspmv_k_csrvi_scalar(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                          const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab,
                          const hspmv_real *x, hspmv_real *y, int add)
{
    HSPMV_CSRVI_DISPATCH(rows);
}
