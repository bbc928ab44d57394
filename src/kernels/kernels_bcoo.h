/* kernels_bcoo.h — blocked COO kernels (the format is in src/format/bcoo.h).
   A kernel computes rows [r0, r1) of y and touches no other row of y:
   add == 0: y[i]  = sum_k A[i,k]*x[k]  (rows without entries get 0)
   add != 0: y[i] += sum_k A[i,k]*x[k]
   Tile rows inside the range run whole; in a tile row the range cuts, each
   tile runs the entries of the range's rows only (a binary search on its
   sorted local rows), so threads may call it on any disjoint row ranges:
   tile row chunks (hspmv_bcoo_chunks), or the MPI layer's shared rows. y's
   rows of a tile row stay in cache while its tiles add into them; no
   allocation, printing, MPI or OpenMP inside. */
#ifndef HSPMV_KERNELS_BCOO_H
#define HSPMV_KERNELS_BCOO_H

#include <string.h>
#include "bcoo.h"

typedef void hspmv_bcoo_kernel(int64_t r0, int64_t r1, const hspmv_bcoo *B, const hspmv_real *x,
                               hspmv_real *y, int add);

/* Rows [*r0, *r1) of tile row tr. */
static inline void hspmv_bcoo_tr_rows(const hspmv_bcoo *B, int64_t tr, int64_t *r0, int64_t *r1)
{
    *r0 = tr * B->tile_h;
    *r1 = *r0 + B->tile_h < B->nrows ? *r0 + B->tile_h : B->nrows;
}

/* The first of a tile's n sorted local rows (w bytes each) that is >= v; n when none. */
static inline int64_t hspmv_bcoo_lower(const uint8_t *r, int w, int64_t n, int64_t v)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        int64_t rm = w == 1 ? r[m] : ((const uint16_t *)r)[m];
        if (rm < v) lo = m + 1;
        else hi = m;
    }
    return lo;
}

/* Prefetches x at tile t's first min(xpf, n) columns: issued a whole tile
   ahead, they cover the entries the tile kernels' own prefetch distance
   (xpf entries) does not reach, which is all of a short tile. */
static inline void hspmv_bcoo_pf_head(const hspmv_bcoo *B, int64_t t, const hspmv_real *x)
{
    int64_t n = B->tptr[t + 1] - B->tptr[t], m = n < B->xpf ? n : B->xpf;
    const uint8_t *c = B->idx + B->toff[t] + n * B->twidth[t];
    const hspmv_real *xt = x + B->tcol0[t];
    if (B->twidth[t] == 1)
        for (int64_t j = 0; j < m; j++) __builtin_prefetch(xt + c[j], 0, 3);
    else
        for (int64_t j = 0; j < m; j++) __builtin_prefetch(xt + ((const uint16_t *)c)[j], 0, 3);
}

/* The walk every BCOO kernel shares: rows [r0, r1) of y zeroed first when
   add == 0, then each tile of the tile rows the range meets through tile_u8
   or tile_u16 (by its offset width) with the range's entries [k0, k1) of
   the tile, its local rows, columns and values, x and y moved to the
   tile's origin, and the prefetch distance; with B->xpf > 0 the next
   tile's first columns are prefetched before each tile runs. Always
   inlined, so the tile functions are direct calls. A SIMD tile function
   groups entries W at a time from the tile's first entry, not from k0, so
   ranges that cut a tile row give the bits one call gives. */
typedef void hspmv_bcoo_tile_fn(int64_t k0, int64_t k1, const uint8_t *r, const uint8_t *c, const hspmv_real *v,
                                const hspmv_real *x, hspmv_real *y, int xpf);
static inline __attribute__((always_inline)) void
hspmv_bcoo_walk(int64_t r0, int64_t r1, const hspmv_bcoo *B, const hspmv_real *x, hspmv_real *y, int add,
                hspmv_bcoo_tile_fn *tile_u8, hspmv_bcoo_tile_fn *tile_u16)
{
    const int64_t *tp = B->tptr;
    int64_t h = B->tile_h, tr0 = r0 / h, tr1 = (r1 - 1) / h, t0, t1, e0, s1;
    if (r1 <= r0) return;
    if (!add) memset(y + r0, 0, (size_t)(r1 - r0) * sizeof(*y));
    t0 = B->trptr[tr0];
    t1 = B->trptr[tr1 + 1];
    /* tiles the range cuts: those of its first tile row before e0, of its last from s1 */
    e0 = r0 > tr0 * h ? B->trptr[tr0 + 1] : t0;
    s1 = r1 < (tr1 + 1) * h && r1 < B->nrows ? B->trptr[tr1] : t1;
    if (B->xpf > 0 && t0 < t1) hspmv_bcoo_pf_head(B, t0, x);
    for (int64_t t = t0; t < t1; t++) {
        int w = B->twidth[t];
        int64_t n = tp[t + 1] - tp[t], k0 = 0, k1 = n;
        const uint8_t *rw = B->idx + B->toff[t];
        if (B->xpf > 0 && t + 1 < t1) hspmv_bcoo_pf_head(B, t + 1, x);
        if (t < e0 || t >= s1) {
            k0 = hspmv_bcoo_lower(rw, w, n, r0 - B->trow0[t]);
            k1 = hspmv_bcoo_lower(rw, w, n, r1 - B->trow0[t]);
            if (k1 <= k0) continue;
        }
        (w == 1 ? tile_u8 : tile_u16)(k0, k1, rw, rw + n * w, B->val + tp[t], x + B->tcol0[t], y + B->trow0[t],
                                      B->xpf);
    }
}

hspmv_bcoo_kernel hspmv_k_bcoo_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_bcoo_kernel hspmv_k_bcoo_avx2;
hspmv_bcoo_kernel hspmv_k_bcoo_avx512;
#endif

#if defined(__aarch64__)
hspmv_bcoo_kernel hspmv_k_bcoo_neon;
#endif

#endif
