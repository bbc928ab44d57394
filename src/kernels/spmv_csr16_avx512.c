/* spmv_csr16_avx512.c — CSR16 kernel for AVX-512: 16-bit offsets widened to
   32 bits (vpmovsxwd) index gathers of x from x + i, four FMA accumulators,
   masked tails (masked 16-bit loads), one horizontal sum per row, scalar
   short rows and the software prefetch of spmv_csr_avx512.c on v and off.
   Built with -mavx512f -mavx512vl -mavx512dq -mavx512bw -mavx512cd -mfma only;
   kernel_select.c calls it only on CPUs that have those. */
#include "kernels_csr16.h"

/* Rows with fewer nonzeros than this take a scalar FMA loop (as in
   spmv_csr_avx512.c). */
#ifndef CSR16_SHORT
#define CSR16_SHORT 8
#endif

/* Software prefetch distance in nonzeros (0: off). One unconditional
   prefetch per row and stream, not spmv_csr_*.c's loop up to the distance:
   that loop's 0-or-1 trip count is a branch the CPU mispredicts on short
   rows. 5-point Laplacian 2000^2, float, one core, 2-core AMD EPYC (Zen 4)
   VM, AVX-512: 9.9 / 8.8 ms vs 15.8 / 15.7 ms with the loop, 12.6 ms without
   prefetch (naive 32-bit CSR loop: 11.8 ms). */
#ifndef CSR16_PF
#define CSR16_PF 256
#endif

#include "simd_avx512.h"

/* Index loads: this format's column indices as 32-bit lanes. */
#ifdef HSPMV_SINGLE
static inline vidx iload(const int16_t *p)
{
    return _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)p));
}
static inline vidx imload(vmask m, const int16_t *p)
{
    return _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, p));
}
#else
static inline vidx iload(const int16_t *p)
{
    return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
}
static inline vidx imload(vmask m, const int16_t *p)
{
    return _mm256_cvtepi16_epi32(_mm_maskz_loadu_epi16(m, p));
}
#endif

/* Prefetches the 4*W values and offsets at v and off (long rows: the per-row
   prefetch covers one line of each stream only). Constant trip counts. */
static inline void pf_block(const hspmv_real *v, const int16_t *off)
{
    for (int j = 0; j < 4 * W * (int)sizeof(*v); j += 64) _mm_prefetch((const char *)v + j, _MM_HINT_T0);
    for (int j = 0; j < 4 * W * (int)sizeof(*off); j += 64) _mm_prefetch((const char *)off + j, _MM_HINT_T0);
}

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
        if (CSR16_PF > 0) { /* one line of each stream per row, CSR16_PF entries ahead */
            _mm_prefetch((const char *)(v + e + CSR16_PF), _MM_HINT_T0);
            _mm_prefetch((const char *)(off + e + CSR16_PF), _MM_HINT_T0);
        }
        if (e - k < CSR16_SHORT) {
            for (; k < e; k++) s = sfma(v[k], xi[off[k]], s);
        } else {
            vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
            for (; k + 4 * W <= e; k += 4 * W) {
                if (CSR16_PF > 0) pf_block(v + k + CSR16_PF, off + k + CSR16_PF);
                a0 = vfma(vload(v + k), vgather(iload(off + k), xi), a0);
                a1 = vfma(vload(v + k + W), vgather(iload(off + k + W), xi), a1);
                a2 = vfma(vload(v + k + 2 * W), vgather(iload(off + k + 2 * W), xi), a2);
                a3 = vfma(vload(v + k + 3 * W), vgather(iload(off + k + 3 * W), xi), a3);
            }
            for (; k + W <= e; k += W) a0 = vfma(vload(v + k), vgather(iload(off + k), xi), a0);
            if (k < e) { /* 1..W-1 left: masked lanes are neither loaded nor gathered */
                vmask m = (vmask)((1u << (e - k)) - 1);
                a1 = vfma(vmload(m, v + k), vmgather(m, imload(m, off + k), xi), a1);
            }
            s = vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        }
        y[i] = add ? y[i] + s : s;
    }
}

/* y[i] (+)= sum_k v[k]*x[i+off[k]] for rows [r0, r1). */
void hspmv_k_csr16_avx512(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                          const int16_t *off, const hspmv_real *v, const hspmv_real *x,
                          hspmv_real *y, int add)
{
    HSPMV_CSR16_DISPATCH(rows);
}
