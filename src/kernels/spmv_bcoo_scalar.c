/* spmv_bcoo_scalar.c — portable blocked COO kernel, the twin of every SIMD BCOO kernel.
   Each entry adds v*x[col0 + c] into y[row0 + r]; the range's rows of y are
   zeroed first when add == 0; x is prefetched B->xpf entries ahead. */
#include "kernels_bcoo.h"

static void tile_u8(int64_t k0, int64_t k1, const uint8_t *r, const uint8_t *c, const hspmv_real *v,
                    const hspmv_real *x, hspmv_real *y, int xpf)
{
    for (int64_t k = k0; k < k1; k++) {
        if (xpf > 0 && k + xpf < k1) __builtin_prefetch(x + c[k + xpf], 0, 3);
        y[r[k]] += v[k] * x[c[k]];
    }
}

static void tile_u16(int64_t k0, int64_t k1, const uint8_t *rb, const uint8_t *cb, const hspmv_real *v,
                     const hspmv_real *x, hspmv_real *y, int xpf)
{
    const uint16_t *r = (const uint16_t *)rb, *c = (const uint16_t *)cb; /* toff is even */
    for (int64_t k = k0; k < k1; k++) {
        if (xpf > 0 && k + xpf < k1) __builtin_prefetch(x + c[k + xpf], 0, 3);
        y[r[k]] += v[k] * x[c[k]];
    }
}

void hspmv_k_bcoo_scalar(int64_t r0, int64_t r1, const hspmv_bcoo *B, const hspmv_real *x,
                         hspmv_real *y, int add)
{
    hspmv_bcoo_walk(r0, r1, B, x, y, add, tile_u8, tile_u16);
}
