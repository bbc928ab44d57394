/* spmv_csr16_scalar.c — portable CSR16 kernel, the twin of every SIMD CSR16 kernel. */
#include "kernels_csr16.h"

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,
     const int16_t *off, const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add)
{
    int64_t e = HSPMV_CSR16_RP(r0);
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        hspmv_real s = 0;
        e = HSPMV_CSR16_RP(i + 1);
        for (; k < e; k++) s += v[k] * x[i + off[k]];
        y[i] = add ? y[i] + s : s;
    }
}

/* y[i] (+)= sum_k v[k]*x[i+off[k]] for rows [r0, r1). */
void hspmv_k_csr16_scalar(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                          const int16_t *off, const hspmv_real *v, const hspmv_real *x,
                          hspmv_real *y, int add)
{
    HSPMV_CSR16_DISPATCH(rows);
}
