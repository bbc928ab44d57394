/* spmv_csr_simd.c — the CSR kernel of every instruction set (simd.h; the
   Makefile compiles this file once per set): gathers of x by column index,
   four FMA accumulators, a masked tail, one horizontal sum per row, scalar
   short rows, and a software prefetch that keeps the v and ci streams
   SIMD_PF entries ahead. kernel_select.c calls each build only on CPUs that
   run its instruction set. */
#include "simd.h"
#include "kernels.h"

/* y[i] (+)= sum_k v[k]*x[ci[k]] for rows [r0, r1). */
void HSPMV_KERNEL(csr)(int64_t r0, int64_t r1, const int64_t *rp, const int32_t *ci,
                       const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add)
{
    uintptr_t pv = (uintptr_t)(v + rp[r0]), pc = (uintptr_t)(ci + rp[r0]); /* next line to prefetch */
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = rp[i], e = rp[i + 1];
        hspmv_real s = 0;
        if (SIMD_PF > 0) { /* keep v and ci streaming SIMD_PF entries ahead */
            uintptr_t pe = (uintptr_t)(v + e) + SIMD_PF * sizeof(*v);
            for (; pv < pe; pv += 64) pf((const void *)pv);
            pe = (uintptr_t)(ci + e) + SIMD_PF * sizeof(*ci);
            for (; pc < pe; pc += 64) pf((const void *)pc);
        }
        if (e - k < SIMD_SHORT) {
            for (; k < e; k++) s = sfma(v[k], x[ci[k]], s);
        } else {
            vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
            for (; k + 4 * W <= e; k += 4 * W) {
                a0 = vfma(vload(v + k), vgather(iload32(ci + k), x), a0);
                a1 = vfma(vload(v + k + W), vgather(iload32(ci + k + W), x), a1);
                a2 = vfma(vload(v + k + 2 * W), vgather(iload32(ci + k + 2 * W), x), a2);
                a3 = vfma(vload(v + k + 3 * W), vgather(iload32(ci + k + 3 * W), x), a3);
            }
            for (; k + W <= e; k += W) a0 = vfma(vload(v + k), vgather(iload32(ci + k), x), a0);
            if (k < e) { /* 1..W-1 left: masked lanes add exact zeros */
                vmask m = tail_mask((int)(e - k));
                int64_t t = tail_at(k, e);
                a1 = vfma(vmload(m, v + t), vmgather(m, imload32(m, ci + t), x), a1);
            }
            s = vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        }
        y[i] = add ? y[i] + s : s;
    }
}
