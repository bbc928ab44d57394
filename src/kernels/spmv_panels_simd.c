/* spmv_panels_simd.c — the column-panel kernel of every instruction set
   (simd.h; the Makefile compiles this file once per set): in each panel the
   row loop of spmv_csr_simd.c (gathers of x, four FMA accumulators, a
   masked tail, scalar short rows) with 32- or 64-bit row pointers, one
   prefetch per row of the value and column streams, and a prefetch of
   x[ci[k + xpf]] for every entry k it multiplies. */
#include "simd.h"
#include "kernels_panels.h"

/* Prefetches x at the W columns ci[0..W). */
static inline void pf_x(const int32_t *ci, const hspmv_real *x)
{
    for (int j = 0; j < W; j++) pf(x + ci[j]);
}

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32, const int xp, int xpf,
     const int32_t *ci, const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add)
{
    int64_t e = HSPMV_PANELS_RP(r0);
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        hspmv_real s = 0;
        e = HSPMV_PANELS_RP(i + 1);
        if (SIMD_PF > 0) { /* one line of each stream per row, SIMD_PF entries ahead */
            pf(v + e + SIMD_PF);
            pf(ci + e + SIMD_PF);
        }
        if (e - k < SIMD_SHORT) {
            for (; k < e; k++) {
                if (xp) pf(x + ci[k + xpf]);
                s = sfma(v[k], x[ci[k]], s);
            }
        } else {
            vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
            for (; k + 4 * W <= e; k += 4 * W) {
                if (xp) pf_x(ci + k + xpf, x), pf_x(ci + k + xpf + W, x), pf_x(ci + k + xpf + 2 * W, x),
                        pf_x(ci + k + xpf + 3 * W, x);
                a0 = vfma(vload(v + k), vgather(iload32(ci + k), x), a0);
                a1 = vfma(vload(v + k + W), vgather(iload32(ci + k + W), x), a1);
                a2 = vfma(vload(v + k + 2 * W), vgather(iload32(ci + k + 2 * W), x), a2);
                a3 = vfma(vload(v + k + 3 * W), vgather(iload32(ci + k + 3 * W), x), a3);
            }
            for (; k + W <= e; k += W) {
                if (xp) pf_x(ci + k + xpf, x);
                a0 = vfma(vload(v + k), vgather(iload32(ci + k), x), a0);
            }
            if (k < e) { /* 1..W-1 left: masked lanes add exact zeros */
                vmask m = tail_mask((int)(e - k));
                int64_t t = tail_at(k, e);
                if (xp) pf_x(ci + t + xpf, x);
                a1 = vfma(vmload(m, v + t), vmgather(m, imload32(m, ci + t), x), a1);
            }
            s = vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        }
        y[i] = add ? y[i] + s : s;
    }
}

/* y[i] (+)= sum over the panels of sum_k v[k]*x[ci[k]] for rows [r0, r1). */
void HSPMV_KERNEL(panels)(int64_t r0, int64_t r1, const hspmv_panels *P, const hspmv_real *x, hspmv_real *y,
                          int add)
{
    HSPMV_PANELS_DISPATCH(rows);
}
