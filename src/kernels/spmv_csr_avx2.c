/* spmv_csr_avx2.c — CSR kernel for AVX2: gathers of x by column index, four
   FMA accumulators, a masked gather for the tail, one horizontal sum per row,
   and a software prefetch that keeps the v and ci streams ahead of the loads.
   Built with -mavx2 -mfma only; kernel_select.c calls it only on CPUs with both. */
#include "kernels.h"

/* Rows with fewer nonzeros than this take a scalar FMA loop (as in
   spmv_csr_avx512.c). 5-point Laplacian, double, Zen 4: 15.2 ms with 8,
   31.4 ms with 4 (a gather of 4 plus a masked gather of 1 per row). */
#ifndef CSR256_SHORT
#define CSR256_SHORT 8
#endif

/* Software prefetch distance in nonzeros (0: off); see spmv_csr_avx512.c. */
#ifndef CSR_PF
#define CSR_PF 256
#endif

/* Lane masks for the tail: the 8 entries from ones8 + 8 - r have r all-ones. */
static const int32_t ones8[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

#include "simd_avx2.h"

/* This format's index load and masked tail. */
#ifdef HSPMV_SINGLE
static inline vidx iload(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
/* v[k..k+r) . x[ci[k..k+r)], 0 < r < W; masked lanes are not read. */
static inline vreal vtail(const float *v, const int32_t *ci, const float *x, int r)
{
    __m256i m = _mm256_loadu_si256((const __m256i *)(ones8 + 8 - r));
    __m256i i = _mm256_maskload_epi32(ci, m);
    __m256 g = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), x, i, _mm256_castsi256_ps(m), 4);
    return _mm256_mul_ps(_mm256_maskload_ps(v, m), g);
}
#else
static inline vidx iload(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline vreal vtail(const double *v, const int32_t *ci, const double *x, int r)
{
    __m128i m = _mm_loadu_si128((const __m128i *)(ones8 + 8 - r));
    __m256i m2 = _mm256_cvtepi32_epi64(m); /* the same lanes, 64 bits wide */
    __m128i i = _mm_maskload_epi32(ci, m);
    __m256d g = _mm256_mask_i32gather_pd(_mm256_setzero_pd(), x, i, _mm256_castsi256_pd(m2), 8);
    return _mm256_mul_pd(_mm256_maskload_pd(v, m2), g);
}
#endif

/* y[i] (+)= sum_k v[k]*x[ci[k]] for rows [r0, r1). */
void hspmv_k_csr_avx2(int64_t r0, int64_t r1, const int64_t *rp, const int32_t *ci,
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
        if (e - k < CSR256_SHORT) {
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
            if (k < e) a1 = vadd(a1, vtail(v + k, ci + k, x, (int)(e - k)));
            s = vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        }
        y[i] = add ? y[i] + s : s;
    }
}
