/* spmv_csr_scalar.c — portable CSR kernel, the twin of every SIMD CSR kernel. */
#include "kernels.h"

void hspmv_k_csr_scalar(int64_t r0, int64_t r1, const int64_t *rp, const int32_t *ci,
                        const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add)
{
    for (int64_t i = r0; i < r1; i++) {
        hspmv_real s = add ? y[i] : 0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) s += v[k] * x[ci[k]];
        y[i] = s;
    }
}
