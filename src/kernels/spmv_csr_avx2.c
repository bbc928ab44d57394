/* spmv_csr_avx2.c — CSR kernel for AVX2: gathers of x by column index, four
   FMA accumulators, a masked gather for the tail, one horizontal sum per row,
   and a software prefetch that keeps the v and ci streams ahead of the loads.
   Built with -mavx2 -mfma only; kernel_select.c calls it only on CPUs with both. */
#include <immintrin.h>
#include <math.h>
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

#ifdef HSPMV_SINGLE
enum { W = 8 }; /* lanes */
typedef __m256 vreal;
typedef __m256i vidx;
static inline vreal vzero(void) { return _mm256_setzero_ps(); }
static inline vreal vload(const float *p) { return _mm256_loadu_ps(p); }
static inline vidx iload(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
/* Gathers merge into their destination register, so reusing one register
   chains every gather to the previous one. The empty asm hides that z is
   zero and m all ones, which keeps the compiler from dropping z: each gather
   then starts from a fresh copy of z and the gathers overlap (64-wide band,
   double, Zen 4: 48 ms vs 61 ms with the chained gathers). */
static inline vreal vgather(vidx i, const float *x)
{
    __m256 z = _mm256_setzero_ps(), m = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    __asm__("" : "+x"(z), "+x"(m));
    return _mm256_mask_i32gather_ps(z, x, i, m, 4);
}
static inline vreal vfma(vreal a, vreal b, vreal c) { return _mm256_fmadd_ps(a, b, c); }
static inline vreal vadd(vreal a, vreal b) { return _mm256_add_ps(a, b); }
static inline float sfma(float a, float b, float c) { return fmaf(a, b, c); }
static inline float vsum(vreal a)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
/* v[k..k+r) . x[ci[k..k+r)], 0 < r < W; masked lanes are not read. */
static inline vreal vtail(const float *v, const int32_t *ci, const float *x, int r)
{
    __m256i m = _mm256_loadu_si256((const __m256i *)(ones8 + 8 - r));
    __m256i i = _mm256_maskload_epi32(ci, m);
    __m256 g = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), x, i, _mm256_castsi256_ps(m), 4);
    return _mm256_mul_ps(_mm256_maskload_ps(v, m), g);
}
#else
enum { W = 4 };
typedef __m256d vreal;
typedef __m128i vidx;
static inline vreal vzero(void) { return _mm256_setzero_pd(); }
static inline vreal vload(const double *p) { return _mm256_loadu_pd(p); }
static inline vidx iload(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline vreal vgather(vidx i, const double *x)
{
    __m256d z = _mm256_setzero_pd(), m = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    __asm__("" : "+x"(z), "+x"(m));
    return _mm256_mask_i32gather_pd(z, x, i, m, 8);
}
static inline vreal vfma(vreal a, vreal b, vreal c) { return _mm256_fmadd_pd(a, b, c); }
static inline vreal vadd(vreal a, vreal b) { return _mm256_add_pd(a, b); }
static inline double sfma(double a, double b, double c) { return fma(a, b, c); }
static inline double vsum(vreal a)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
    s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
    return _mm_cvtsd_f64(s);
}
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
