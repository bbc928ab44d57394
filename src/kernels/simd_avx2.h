/* simd_avx2.h — the AVX2 vector wrappers the gather kernels share (CSR, CSR16):
   lanes W, vreal/vidx, loads, gathers, FMA and the horizontal sum, in the
   build's precision. Include only from files compiled with -mavx2 -mfma; each
   kernel adds its own index load (iload) and masked tail (vtail). */
#ifndef HSPMV_SIMD_AVX2_H
#define HSPMV_SIMD_AVX2_H

#include <immintrin.h>
#include <math.h>
#include "hspmv.h"

#ifdef HSPMV_SINGLE
enum { W = 8 }; /* lanes */
typedef __m256 vreal;
typedef __m256i vidx;
static inline vreal vzero(void) { return _mm256_setzero_ps(); }
static inline vreal vload(const float *p) { return _mm256_loadu_ps(p); }
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
#else
enum { W = 4 };
typedef __m256d vreal;
typedef __m128i vidx;
static inline vreal vzero(void) { return _mm256_setzero_pd(); }
static inline vreal vload(const double *p) { return _mm256_loadu_pd(p); }
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
#endif

#endif
