/* spmv_bcoo_simd.c — the blocked COO kernel of every instruction set
   (simd.h; the Makefile compiles this file once per set): gathers x by local
   column + origin, multiplies W entries at once, then adds the products into
   the tile row's slice of y, which stays in cache. A vector whose entries
   all share one row is reduced first and added once; otherwise each product
   is added into its row. */
#include "simd.h"
#include "kernels_bcoo.h"

/* One tile: n entries, local rows r[0..n), local columns r[n..2n). */
#define BCOO_TILE(name, T, IDX)                                                          \
    static void name(int64_t n, const uint8_t *ix, const hspmv_real *v, const hspmv_real *x, \
                     hspmv_real *y)                                                      \
    {                                                                                    \
        const T *r = (const T *)ix, *c = r + n;                                          \
        hspmv_real p[W];                                                                 \
        int64_t k = 0;                                                                   \
        for (; k + W <= n; k += W) {                                                     \
            vreal q = vmul(vload(v + k), vgather(IDX(c + k), x));                        \
            if (r[k] == r[k + W - 1]) {                                                  \
                y[r[k]] += vsum(q);                                                      \
                continue;                                                                \
            }                                                                            \
            vstore(p, q);                                                                \
            for (int j = 0; j < W; j++) y[r[k + j]] += p[j];                             \
        }                                                                                \
        for (; k < n; k++) y[r[k]] += v[k] * x[c[k]];                                    \
    }

BCOO_TILE(tile_u8, uint8_t, iloadu8)
BCOO_TILE(tile_u16, uint16_t, iloadu16)

void HSPMV_KERNEL(bcoo)(int64_t t0, int64_t t1, const hspmv_bcoo *B, const hspmv_real *x, hspmv_real *y,
                        int add)
{
    hspmv_bcoo_walk(t0, t1, B, x, y, add, tile_u8, tile_u16);
}
