/* spmv_bcoo_simd.c — the blocked COO kernel of every instruction set
   (simd.h; the Makefile compiles this file once per set): gathers x by local
   column + origin, multiplies W entries at once, then adds the products into
   the tile row's slice of y, which stays in cache; x is prefetched B->xpf
   entries ahead. A vector whose entries
   all share one row is reduced first and added once; otherwise each product
   is added into its row. */
#include "simd.h"
#include "kernels_bcoo.h"

/* Entries [k0, k1) of one tile: local rows r[], columns c[], values v[];
   x prefetched xpf entries ahead (the walk prefetched the first xpf).
   Vectors start at multiples of W from the tile's first entry: entries
   before the first such start, and after the last whole vector, go one by
   one, as the lanes of a vector with several rows do (the same bits). */
#define BCOO_TILE(name, T, IDX)                                                          \
    static void name(int64_t k0, int64_t k1, const uint8_t *rb, const uint8_t *cb,       \
                     const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int xpf)   \
    {                                                                                    \
        const T *r = (const T *)rb, *c = (const T *)cb;                                  \
        hspmv_real p[W];                                                                 \
        int64_t k = k0, a = (k0 + W - 1) / W * W;                                        \
        for (; k < a && k < k1; k++) y[r[k]] += v[k] * x[c[k]];                          \
        for (; k + W <= k1; k += W) {                                                    \
            if (xpf > 0 && k + xpf + W <= k1)                                          \
                for (int j = 0; j < W; j++) pf(x + c[k + xpf + j]);                      \
            vreal q = vmul(vload(v + k), vgather(IDX(c + k), x));                        \
            if (r[k] == r[k + W - 1]) {                                                  \
                y[r[k]] += vsum(q);                                                      \
                continue;                                                                \
            }                                                                            \
            vstore(p, q);                                                                \
            for (int j = 0; j < W; j++) y[r[k + j]] += p[j];                             \
        }                                                                                \
        for (; k < k1; k++) y[r[k]] += v[k] * x[c[k]];                                   \
    }

BCOO_TILE(tile_u8, uint8_t, iloadu8)
BCOO_TILE(tile_u16, uint16_t, iloadu16)

void HSPMV_KERNEL(bcoo)(int64_t r0, int64_t r1, const hspmv_bcoo *B, const hspmv_real *x, hspmv_real *y,
                        int add)
{
    hspmv_bcoo_walk(r0, r1, B, x, y, add, tile_u8, tile_u16);
}
