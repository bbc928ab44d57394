/* kernels_bcoo.h — blocked COO kernels (the format is in src/format/bcoo.h).
   A kernel computes tile rows [t0, t1) of B, which cover rows
   [t0*tile_h, min(t1*tile_h, nrows)) of y, and touches no other row of y:
   add == 0: y[i]  = sum_k A[i,k]*x[k]  (rows without entries get 0)
   add != 0: y[i] += sum_k A[i,k]*x[k]
   y's rows of a tile row stay in cache while its tiles add into them; no
   allocation, printing, MPI or OpenMP inside. Threads call it on disjoint
   tile row ranges (hspmv_bcoo_chunks). */
#ifndef HSPMV_KERNELS_BCOO_H
#define HSPMV_KERNELS_BCOO_H

#include <string.h>
#include "bcoo.h"

typedef void hspmv_bcoo_kernel(int64_t t0, int64_t t1, const hspmv_bcoo *B, const hspmv_real *x,
                               hspmv_real *y, int add);

/* Rows [*r0, *r1) of tile row tr. */
static inline void hspmv_bcoo_tr_rows(const hspmv_bcoo *B, int64_t tr, int64_t *r0, int64_t *r1)
{
    *r0 = tr * B->tile_h;
    *r1 = *r0 + B->tile_h < B->nrows ? *r0 + B->tile_h : B->nrows;
}

/* The walk every BCOO kernel shares: tile rows [t0, t1), each one's slice
   of y zeroed first when add == 0, then each tile through tile_u8 or
   tile_u16 (by its offset width) with its entry count, index bytes, values
   and x, y moved to the tile's origin. Always inlined, so the tile
   functions are direct calls. */
typedef void hspmv_bcoo_tile_fn(int64_t n, const uint8_t *ix, const hspmv_real *v, const hspmv_real *x,
                                hspmv_real *y);
static inline __attribute__((always_inline)) void
hspmv_bcoo_walk(int64_t t0, int64_t t1, const hspmv_bcoo *B, const hspmv_real *x, hspmv_real *y, int add,
                hspmv_bcoo_tile_fn *tile_u8, hspmv_bcoo_tile_fn *tile_u16)
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

hspmv_bcoo_kernel hspmv_k_bcoo_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_bcoo_kernel hspmv_k_bcoo_avx2;
hspmv_bcoo_kernel hspmv_k_bcoo_avx512;
#endif

#if defined(__aarch64__)
hspmv_bcoo_kernel hspmv_k_bcoo_neon;
#endif

#endif
