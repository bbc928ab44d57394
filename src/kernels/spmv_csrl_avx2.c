/* spmv_csrl_avx2.c — CSRL kernel for AVX2: each segment's x is contiguous, so
   x and the values come in by plain unaligned loads (no gathers), four FMA
   accumulators on long segments, masked loads for the last 1..W-1 entries,
   a scalar FMA for segments of length 1, one horizontal sum per row, and a
   software prefetch that keeps the v, jas and jan streams ahead.
   Built with -mavx2 -mfma only. */
#include <immintrin.h>
#include <math.h>
#include "kernels.h"

/* Software prefetch distance, in values for v and in segments for jas and
   jan (0: off). 64-wide band, double, Xeon: 51 ms with 256 vs 63 ms without. */
#ifndef CSRL_PF
#define CSRL_PF 256
#endif

/* Segments shorter than this use scalar FMAs (2: only length 1; 4 measured
   no faster on the Laplacian's 1-3-1 segments and slower on length-1 ones). */
#ifndef CSRL_SHORT
#define CSRL_SHORT 2
#endif

/* Lane masks for the tail: the 8 entries from ones8 + 8 - r have r all-ones. */
static const int32_t ones8[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

#ifdef HSPMV_SINGLE
enum { W = 8 }; /* lanes */
typedef __m256 vreal;
static inline vreal vzero(void) { return _mm256_setzero_ps(); }
static inline vreal vload(const float *p) { return _mm256_loadu_ps(p); }
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
/* acc + a[0..r) * xs[0..r), 0 < r < W; masked lanes are not read. */
static inline vreal vtail(const float *a, const float *xs, int r, vreal acc)
{
    __m256i m = _mm256_loadu_si256((const __m256i *)(ones8 + 8 - r));
    return _mm256_fmadd_ps(_mm256_maskload_ps(a, m), _mm256_maskload_ps(xs, m), acc);
}
#else
enum { W = 4 };
typedef __m256d vreal;
static inline vreal vzero(void) { return _mm256_setzero_pd(); }
static inline vreal vload(const double *p) { return _mm256_loadu_pd(p); }
static inline vreal vfma(vreal a, vreal b, vreal c) { return _mm256_fmadd_pd(a, b, c); }
static inline vreal vadd(vreal a, vreal b) { return _mm256_add_pd(a, b); }
static inline double sfma(double a, double b, double c) { return fma(a, b, c); }
static inline double vsum(vreal a)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
    s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
    return _mm_cvtsd_f64(s);
}
static inline vreal vtail(const double *a, const double *xs, int r, vreal acc)
{
    __m256i m = _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(ones8 + 8 - r)));
    return _mm256_fmadd_pd(_mm256_maskload_pd(a, m), _mm256_maskload_pd(xs, m), acc);
}
#endif

/* y[i] (+)= sum over row i's segments g of sum_k v[.]*x[jas[g]+k], rows [r0, r1). */
void hspmv_k_csrl_avx2(int64_t r0, int64_t r1, const int64_t *sp, const int64_t *vp,
                       const int32_t *jas, const int32_t *jan, const hspmv_real *v,
                       const hspmv_real *x, hspmv_real *y, int add)
{
    /* next line of v, jas and jan to prefetch */
    uintptr_t pv = (uintptr_t)(v + vp[r0]), pj = (uintptr_t)(jas + sp[r0]), pn = (uintptr_t)(jan + sp[r0]);
    for (int64_t i = r0; i < r1; i++) {
        const hspmv_real *a = v + vp[i];
        if (CSRL_PF > 0) {
            uintptr_t pe = (uintptr_t)(v + vp[i + 1]) + CSRL_PF * sizeof(*v);
            for (; pv < pe; pv += 64) _mm_prefetch((const char *)pv, _MM_HINT_T0);
            pe = (uintptr_t)(jas + sp[i + 1]) + CSRL_PF * sizeof(*jas);
            for (; pj < pe; pj += 64) _mm_prefetch((const char *)pj, _MM_HINT_T0);
            pe = (uintptr_t)(jan + sp[i + 1]) + CSRL_PF * sizeof(*jan);
            for (; pn < pe; pn += 64) _mm_prefetch((const char *)pn, _MM_HINT_T0);
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
            if (k < n) {
                a1 = vtail(a + k, xs + k, (int)(n - k), a1);
                vreal t = a1; a1 = a2; a2 = t; /* next short segment uses another chain */
            }
            a += n;
        }
        hspmv_real s = s0 + s1;
        if (vec) s += vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        y[i] = add ? y[i] + s : s;
    }
}
