/* spmv_csrl_avx512.c — CSRL kernel for AVX-512: each segment's x is contiguous,
   so x and the values come in by plain unaligned loads (no gathers), four FMA
   accumulators on long segments, masked loads for the last 1..W-1 entries,
   a scalar FMA for segments of length 1, one horizontal sum per row, and a
   software prefetch that keeps the v, jas and jan streams ahead.
   Built with -mavx512f -mavx512vl -mavx512dq -mavx512bw -mavx512cd -mfma only. */
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

#ifdef HSPMV_SINGLE
enum { W = 16 }; /* lanes */
typedef __m512 vreal;
typedef __mmask16 vmask;
static inline vreal vzero(void) { return _mm512_setzero_ps(); }
static inline vreal vload(const float *p) { return _mm512_loadu_ps(p); }
static inline vreal vmload(vmask m, const float *p) { return _mm512_maskz_loadu_ps(m, p); }
static inline vreal vfma(vreal a, vreal b, vreal c) { return _mm512_fmadd_ps(a, b, c); }
static inline vreal vadd(vreal a, vreal b) { return _mm512_add_ps(a, b); }
static inline float vsum(vreal a) { return _mm512_reduce_add_ps(a); }
static inline float sfma(float a, float b, float c) { return fmaf(a, b, c); }
#else
enum { W = 8 };
typedef __m512d vreal;
typedef __mmask8 vmask;
static inline vreal vzero(void) { return _mm512_setzero_pd(); }
static inline vreal vload(const double *p) { return _mm512_loadu_pd(p); }
static inline vreal vmload(vmask m, const double *p) { return _mm512_maskz_loadu_pd(m, p); }
static inline vreal vfma(vreal a, vreal b, vreal c) { return _mm512_fmadd_pd(a, b, c); }
static inline vreal vadd(vreal a, vreal b) { return _mm512_add_pd(a, b); }
static inline double vsum(vreal a) { return _mm512_reduce_add_pd(a); }
static inline double sfma(double a, double b, double c) { return fma(a, b, c); }
#endif

/* y[i] (+)= sum over row i's segments g of sum_k v[.]*x[jas[g]+k], rows [r0, r1). */
void hspmv_k_csrl_avx512(int64_t r0, int64_t r1, const int64_t *sp, const int64_t *vp,
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
            if (k < n) { /* 1..W-1 left; masked lanes are not read */
                vmask m = (vmask)((1u << (n - k)) - 1);
                a1 = vfma(vmload(m, a + k), vmload(m, xs + k), a1);
                vreal t = a1; a1 = a2; a2 = t; /* next short segment uses another chain */
            }
            a += n;
        }
        hspmv_real s = s0 + s1;
        if (vec) s += vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        y[i] = add ? y[i] + s : s;
    }
}
