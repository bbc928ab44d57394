/* spmm_simd.c — the block kernels of every instruction set (simd.h; the
   Makefile compiles this file once per set): the body is spmm_body.h, over
   this set's vectors, four of them per row in registers (eight on NEON,
   whose vectors hold 2 doubles: k = 16 in one pass), and a row's last
   k mod W values in exact-width pieces (x86: 256-, 128-, 64- and 32-bit
   registers; NEON: scalars). Masked W-lane loads and stores of those values
   cost as much as full ones and more where they crossed a cache line: k = 2
   in double took 0.65-0.75x k = 1's time per vector. */
#include "simd.h"

#if defined(HSPMV_ISA_AVX512) || defined(HSPMV_ISA_AVX2)
#define SPMM_NV 4
/* The tail's pieces, largest first (W > 2P: a tail of t < W values may hold
   a piece of P values). */
#ifdef HSPMV_SINGLE
typedef struct spmm_tail {
    __m256 a8;
    __m128 a4, a2, a1;
} spmm_tail;
/* two floats: 64-bit moves (__m128i types may alias) */
static inline __m128 load2(const float *p) { return _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)p)); }
static inline void store2(float *p, __m128 a) { _mm_storel_epi64((__m128i *)p, _mm_castps_si128(a)); }
/* every piece, so that none is read unset where t is not a constant (the
   unused ones are dropped where it is) */
static inline void tail_zero(spmm_tail *a, int t)
{
    (void)t;
    a->a8 = _mm256_setzero_ps();
    a->a4 = a->a2 = a->a1 = _mm_setzero_ps();
}
static inline void tail_fma(spmm_tail *a, int t, float v, const float *x)
{
    __m128 b = _mm_set1_ps(v);
    if (W > 8 && (t & 8)) a->a8 = _mm256_fmadd_ps(_mm256_set1_ps(v), _mm256_loadu_ps(x), a->a8), x += 8;
    if (t & 4) a->a4 = _mm_fmadd_ps(b, _mm_loadu_ps(x), a->a4), x += 4;
    if (t & 2) a->a2 = _mm_fmadd_ps(b, load2(x), a->a2), x += 2;
    if (t & 1) a->a1 = _mm_fmadd_ps(b, _mm_load_ss(x), a->a1); /* lanes 1-3 stay 0; no copy of b as _ss would make */
}
static inline void tail_put(const spmm_tail *a, int t, float *y, int add)
{
    if (W > 8 && (t & 8)) _mm256_storeu_ps(y, add ? _mm256_add_ps(a->a8, _mm256_loadu_ps(y)) : a->a8), y += 8;
    if (t & 4) _mm_storeu_ps(y, add ? _mm_add_ps(a->a4, _mm_loadu_ps(y)) : a->a4), y += 4;
    if (t & 2) store2(y, add ? _mm_add_ps(a->a2, load2(y)) : a->a2), y += 2;
    if (t & 1) _mm_store_ss(y, add ? _mm_add_ss(a->a1, _mm_load_ss(y)) : a->a1);
}
#else
typedef struct spmm_tail {
    __m256d a4;
    __m128d a2, a1;
} spmm_tail;
static inline void tail_zero(spmm_tail *a, int t) /* every piece: as in single */
{
    (void)t;
    a->a4 = _mm256_setzero_pd();
    a->a2 = a->a1 = _mm_setzero_pd();
}
static inline void tail_fma(spmm_tail *a, int t, double v, const double *x)
{
    __m128d b = _mm_set1_pd(v);
    if (W > 4 && (t & 4)) a->a4 = _mm256_fmadd_pd(_mm256_set1_pd(v), _mm256_loadu_pd(x), a->a4), x += 4;
    if (t & 2) a->a2 = _mm_fmadd_pd(b, _mm_loadu_pd(x), a->a2), x += 2;
    if (t & 1) a->a1 = _mm_fmadd_pd(b, _mm_load_sd(x), a->a1); /* lane 1 stays 0; no copy of b as _sd would make */
}
static inline void tail_put(const spmm_tail *a, int t, double *y, int add)
{
    if (W > 4 && (t & 4)) _mm256_storeu_pd(y, add ? _mm256_add_pd(a->a4, _mm256_loadu_pd(y)) : a->a4), y += 4;
    if (t & 2) _mm_storeu_pd(y, add ? _mm_add_pd(a->a2, _mm_loadu_pd(y)) : a->a2), y += 2;
    if (t & 1) _mm_store_sd(y, add ? _mm_add_sd(a->a1, _mm_load_sd(y)) : a->a1);
}
#endif
#else
#define SPMM_NV 8
typedef struct spmm_tail {
    hspmv_real s[W];
} spmm_tail;
static inline void tail_zero(spmm_tail *a, int t)
{
    (void)t;
    for (int j = 0; j < W; j++) a->s[j] = 0;
}
static inline void tail_fma(spmm_tail *a, int t, hspmv_real v, const hspmv_real *x)
{
    for (int j = 0; j < t; j++) a->s[j] += v * x[j];
}
static inline void tail_put(const spmm_tail *a, int t, hspmv_real *y, int add)
{
    for (int j = 0; j < t; j++) y[j] = add ? y[j] + a->s[j] : a->s[j];
}
#endif

#define SPMM_NAME(fmt) HSPMV_KERNEL(spmm_##fmt)

#include "spmm_body.h"
