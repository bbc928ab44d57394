/* spmv_bcoo_scalar.c — portable blocked COO kernel, the twin of every SIMD BCOO kernel.
   Each entry adds v*x[col0 + c] into y[row0 + r]; a tile row's slice of y
   is zeroed first when add == 0. */
#include <string.h>
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
    const int64_t *tp = B->tptr;
    for (int64_t tr = t0; tr < t1; tr++) {
        if (!add) {
            int64_t r0, r1;
            hspmv_bcoo_tr_rows(B, tr, &r0, &r1);
            memset(y + r0, 0, (size_t)(r1 - r0) * sizeof(*y));
        }
        for (int64_t t = B->trptr[tr]; t < B->trptr[tr + 1]; t++) {
            const uint8_t *ix = B->idx + B->toff[t];
            const hspmv_real *xt = x + B->tcol0[t];
            hspmv_real *yt = y + B->trow0[t];
            if (B->twidth[t] == 1)
                tile_u8(tp[t + 1] - tp[t], ix, B->val + tp[t], xt, yt);
            else
                tile_u16(tp[t + 1] - tp[t], ix, B->val + tp[t], xt, yt);
        }
    }
}
