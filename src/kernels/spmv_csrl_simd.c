/* spmv_csrl_simd.c — the CSRL kernel of every instruction set (simd.h; the
   Makefile compiles this file once per set): each segment's x is
   contiguous, so x and the values come in by plain unaligned loads (no
   gathers), four FMA accumulators on long segments, loads of the first
   1..W-1 lanes for a segment's end (nothing past it is read), a scalar FMA
   for segments of length 1, one horizontal sum per row, and a software
   prefetch that keeps the v, jas and jan streams ahead. */
#include "simd.h"
#include "kernels.h"

/* Segments shorter than this use scalar FMAs (2: only length 1; 4 measured
   no faster on the Laplacian's 1-3-1 segments and slower on length-1 ones). */
#define CSRL_SHORT 2

/* y[i] (+)= sum over row i's segments g of sum_k v[.]*x[jas[g]+k], rows [r0, r1).
   Prefetch distance SIMD_PF in values for v and in segments for jas and jan:
   64-wide band, double, Xeon: 51 ms with 256 vs 63 ms without. */
void HSPMV_KERNEL(csrl)(int64_t r0, int64_t r1, const int64_t *sp, const int64_t *vp,
                        const int32_t *jas, const int32_t *jan, const hspmv_real *v,
                        const hspmv_real *x, hspmv_real *y, int add)
{
    /* next line of v, jas and jan to prefetch */
    uintptr_t pv = (uintptr_t)(v + vp[r0]), pj = (uintptr_t)(jas + sp[r0]), pn = (uintptr_t)(jan + sp[r0]);
    for (int64_t i = r0; i < r1; i++) {
        const hspmv_real *a = v + vp[i];
        if (SIMD_PF > 0) {
            uintptr_t pe = (uintptr_t)(v + vp[i + 1]) + SIMD_PF * sizeof(*v);
            for (; pv < pe; pv += 64) pf((const void *)pv);
            pe = (uintptr_t)(jas + sp[i + 1]) + SIMD_PF * sizeof(*jas);
            for (; pj < pe; pj += 64) pf((const void *)pj);
            pe = (uintptr_t)(jan + sp[i + 1]) + SIMD_PF * sizeof(*jan);
            for (; pn < pe; pn += 64) pf((const void *)pn);
        }
        vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
        hspmv_real s0 = 0, s1 = 0; /* length-1 segments, two chains */
        int vec = 0;               /* 1 once a0..a3 hold anything */
        for (int64_t g = sp[i]; g < sp[i + 1]; g++) {
            const hspmv_real *xs = x + jas[g];
            int64_t n = jan[g], k = 0;
            if (n < CSRL_SHORT) { /* short segment: scalar, two chains */
                for (; k < n; k++) {
                    s0 = sfma(a[k], xs[k], s0);
                    hspmv_real t = s0; s0 = s1; s1 = t;
                }
                a += n;
                continue;
            }
            vec = 1;
            for (; k + 4 * W <= n; k += 4 * W) {
                a0 = vfma(vload(a + k), vload(xs + k), a0);
                a1 = vfma(vload(a + k + W), vload(xs + k + W), a1);
                a2 = vfma(vload(a + k + 2 * W), vload(xs + k + 2 * W), a2);
                a3 = vfma(vload(a + k + 3 * W), vload(xs + k + 3 * W), a3);
            }
            for (; k + W <= n; k += W) a0 = vfma(vload(a + k), vload(xs + k), a0);
            if (k < n) { /* 1..W-1 left */
                a1 = vfma_first(a + k, xs + k, (int)(n - k), a1);
                vreal t = a1; a1 = a2; a2 = t; /* next short segment uses another chain */
            }
            a += n;
        }
        hspmv_real s = s0 + s1;
        if (vec) s += vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        y[i] = add ? y[i] + s : s;
    }
}
