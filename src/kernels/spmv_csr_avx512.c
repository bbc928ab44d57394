/* spmv_csr_avx512.c — CSR kernel for AVX-512: gathers of x by column index,
   four FMA accumulators, masked tails, one horizontal sum per row, and a
   software prefetch that keeps the v and ci streams ahead of the loads.
   Built with -mavx512f -mavx512vl -mavx512dq -mavx512bw -mavx512cd -mfma only;
   kernel_select.c calls it only on CPUs that have those. */
#include "kernels.h"

/* Rows with fewer nonzeros than this take a scalar FMA loop: for them one
   masked gather plus a horizontal sum costs more than it saves. Measured,
   one core, 4M-row 5-point Laplacian (5 nnz/row), double: AMD EPYC Zen 4
   15.1 ms with the scalar loop vs 42 ms all-vector; Intel Xeon (H100 host)
   23.9 vs 24.7 ms. Random 16 nnz/row, Xeon: vectorised 19-26% faster than scalar. */
#ifndef CSR512_SHORT
#define CSR512_SHORT 8
#endif

/* Software prefetch distance in nonzeros (0: off). Laplacian, Zen 4, double:
   10.6 ms with 256 vs 15.6 ms without; 64-wide band, Xeon: 68 vs 83 ms. */
#ifndef CSR_PF
#define CSR_PF 256
#endif

#include "simd_avx512.h"

/* Index loads: this format's column indices as 32-bit lanes. */
#ifdef HSPMV_SINGLE
static inline vidx iload(const int32_t *p) { return _mm512_loadu_si512(p); }
static inline vidx imload(vmask m, const int32_t *p) { return _mm512_maskz_loadu_epi32(m, p); }
#else
static inline vidx iload(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline vidx imload(vmask m, const int32_t *p) { return _mm256_maskz_loadu_epi32(m, p); }
#endif

/* y[i] (+)= sum_k v[k]*x[ci[k]] for rows [r0, r1). */
void hspmv_k_csr_avx512(int64_t r0, int64_t r1, const int64_t *rp, const int32_t *ci,
                        const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add)
{
    uintptr_t pv = (uintptr_t)(v + rp[r0]), pc = (uintptr_t)(ci + rp[r0]); /* next line to prefetch */
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = rp[i], e = rp[i + 1];
        hspmv_real s = 0;
        if (CSR_PF > 0) { /* keep v and ci streaming CSR_PF entries ahead */
            uintptr_t pe = (uintptr_t)(v + e) + CSR_PF * sizeof(*v);
            for (; pv < pe; pv += 64) _mm_prefetch((const char *)pv, _MM_HINT_T0);
            pe = (uintptr_t)(ci + e) + CSR_PF * sizeof(*ci);
            for (; pc < pe; pc += 64) _mm_prefetch((const char *)pc, _MM_HINT_T0);
        }
        if (e - k < CSR512_SHORT) {
            for (; k < e; k++) s = sfma(v[k], x[ci[k]], s);
        } else {
            vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
            for (; k + 4 * W <= e; k += 4 * W) {
                a0 = vfma(vload(v + k), vgather(iload(ci + k), x), a0);
                a1 = vfma(vload(v + k + W), vgather(iload(ci + k + W), x), a1);
                a2 = vfma(vload(v + k + 2 * W), vgather(iload(ci + k + 2 * W), x), a2);
                a3 = vfma(vload(v + k + 3 * W), vgather(iload(ci + k + 3 * W), x), a3);
            }
            for (; k + W <= e; k += W) a0 = vfma(vload(v + k), vgather(iload(ci + k), x), a0);
            if (k < e) { /* 1..W-1 left: masked lanes are neither loaded nor gathered */
                vmask m = (vmask)((1u << (e - k)) - 1);
                a1 = vfma(vmload(m, v + k), vmgather(m, imload(m, ci + k), x), a1);
            }
            s = vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        }
        y[i] = add ? y[i] + s : s;
    }
}
