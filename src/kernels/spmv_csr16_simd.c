/* spmv_csr16_simd.c — the CSR16 kernel of every instruction set (simd.h; the
   Makefile compiles this file once per set): 16-bit offsets widened to 32
   bits index gathers of x from x + i, four FMA accumulators, a masked tail,
   one horizontal sum per row, scalar short rows, and one software prefetch
   per row and stream. kernel_select.c calls each build only on CPUs that
   run its instruction set. */
#include "simd.h"
#include "kernels_csr16.h"

/* A row shorter than 2W entries prefetches one line of each stream,
   unconditionally, not spmv_csr_simd.c's loop up to the distance: that
   loop's 0-or-1 trip count is a branch the CPU mispredicts on short rows.
   5-point Laplacian 2000^2, float, one core, 2-core AMD EPYC (Zen 4) VM,
   AVX-512: 9.9 / 8.8 ms vs 15.8 / 15.7 ms with the loop, 12.6 ms without
   prefetch (naive 32-bit CSR loop: 11.8 ms). A longer row (FEM rows of
   27-81 entries span 4-10 lines of values) prefetches every line of its
   entries SIMD_PF ahead, a loop whose trip count hardly changes from row
   to row: with one line per row such rows left most of their values to
   the hardware prefetchers, and on the 16-core Xeon (genmat fem3d 60 and
   lap3d27 120, real values, one job) CSR16 took 61.4 and 48.4 ms at 1
   thread where it now takes 38.0 and 36.8 (CSR: 38.5 and 38.4), and at 16
   threads 1.04-1.26 times CSR's time where it now takes 0.81-0.99. */
static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,
     const int16_t *off, const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add)
{
    int64_t e = HSPMV_CSR16_RP(r0);
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        const hspmv_real *xi = x + i; /* row i's columns are i + off[k] */
        hspmv_real s = 0;
        e = HSPMV_CSR16_RP(i + 1);
        if (SIMD_PF > 0 && e - k < 2 * W) { /* one line of each stream per row, SIMD_PF entries ahead */
            pf(v + e + SIMD_PF);
            pf(off + e + SIMD_PF);
        } else if (SIMD_PF > 0) { /* a long row: every line of its entries SIMD_PF ahead */
            for (const char *a = (const char *)(v + k + SIMD_PF); a < (const char *)(v + e + SIMD_PF); a += 64) pf(a);
            for (const char *a = (const char *)(off + k + SIMD_PF); a < (const char *)(off + e + SIMD_PF); a += 64)
                pf(a);
        }
        if (e - k < SIMD_SHORT) {
            for (; k < e; k++) s = sfma(v[k], xi[off[k]], s);
        } else {
            vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
            for (; k + 4 * W <= e; k += 4 * W) {
                a0 = vfma(vload(v + k), vgather(iload16(off + k), xi), a0);
                a1 = vfma(vload(v + k + W), vgather(iload16(off + k + W), xi), a1);
                a2 = vfma(vload(v + k + 2 * W), vgather(iload16(off + k + 2 * W), xi), a2);
                a3 = vfma(vload(v + k + 3 * W), vgather(iload16(off + k + 3 * W), xi), a3);
            }
            for (; k + W <= e; k += W) a0 = vfma(vload(v + k), vgather(iload16(off + k), xi), a0);
            if (k < e) { /* 1..W-1 left: masked lanes add exact zeros */
                vmask m = tail_mask((int)(e - k));
                int64_t t = tail_at(k, e);
                a1 = vfma(vmload(m, v + t), vmgather(m, imload16(m, off + t), xi), a1);
            }
            s = vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        }
        y[i] = add ? y[i] + s : s;
    }
}

/* y[i] (+)= sum_k v[k]*x[i+off[k]] for rows [r0, r1). */
void HSPMV_KERNEL(csr16)(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                         const int16_t *off, const hspmv_real *v, const hspmv_real *x, hspmv_real *y,
                         int add)
{
    HSPMV_CSR16_DISPATCH(rows);
}
