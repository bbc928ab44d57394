/* spmv_bcoo_scalar.c — portable blocked COO kernel, the twin of every SIMD BCOO kernel.
   Each entry adds v*x[col0 + c] into y[row0 + r]; a tile row's slice of y
   is zeroed first when add == 0. */
#include "kernels_bcoo.h"

static void tile_u8(int64_t n, const uint8_t *r, const hspmv_real *v, const hspmv_real *x,
                    hspmv_real *y)
{
    const uint8_t *c = r + n;
    for (int64_t k = 0; k < n; k++) y[r[k]] += v[k] * x[c[k]];
}

static void tile_u16(int64_t n, const uint8_t *ix, const hspmv_real *v, const hspmv_real *x,
                     hspmv_real *y)
{
    const uint16_t *r = (const uint16_t *)ix, *c = r + n; /* toff is even */
    for (int64_t k = 0; k < n; k++) y[r[k]] += v[k] * x[c[k]];
}

void hspmv_k_bcoo_scalar(int64_t t0, int64_t t1, const hspmv_bcoo *B, const hspmv_real *x,
                         hspmv_real *y, int add)
{
    hspmv_bcoo_walk(t0, t1, B, x, y, add, tile_u8, tile_u16);
}
