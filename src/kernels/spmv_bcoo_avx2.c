/* spmv_bcoo_avx2.c — blocked COO kernel for AVX2: gathers x by local
   column + origin, multiplies VL entries at once (4 doubles or 8 floats),
   then adds the products into the tile row's slice of y, which stays in
   cache. A vector whose entries all share one row is reduced first and added
   once; otherwise each product is added into its row. */
#include <immintrin.h>
#include <string.h>
#include "kernels_bcoo.h"

#ifdef HSPMV_SINGLE
#define VL 8
typedef __m256 vreal;
static inline __m256i idx_u8(const uint8_t *c) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)c)); }
static inline __m256i idx_u16(const uint16_t *c) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)c)); }
static inline vreal prod(const float *v, __m256i c, const float *x)
{
    return _mm256_mul_ps(_mm256_loadu_ps(v), _mm256_i32gather_ps(x, c, 4));
}
static inline float vsum(vreal p)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(p), _mm256_extractf128_ps(p, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
static inline void vstore(float *p, vreal q) { _mm256_storeu_ps(p, q); }
#else
#define VL 4
typedef __m256d vreal;
static inline __m128i idx_u8(const uint8_t *c)
{
    int32_t w;
    memcpy(&w, c, 4);
    return _mm_cvtepu8_epi32(_mm_cvtsi32_si128(w));
}
static inline __m128i idx_u16(const uint16_t *c) { return _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)c)); }
static inline vreal prod(const double *v, __m128i c, const double *x)
{
    return _mm256_mul_pd(_mm256_loadu_pd(v), _mm256_i32gather_pd(x, c, 8));
}
static inline double vsum(vreal p)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(p), _mm256_extractf128_pd(p, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
static inline void vstore(double *p, vreal q) { _mm256_storeu_pd(p, q); }
#endif
/* One tile: n entries, local rows r[0..n), local columns r[n..2n). */
#define BCOO_TILE(name, T, IDX)                                                          \
    static void name(int64_t n, const uint8_t *ix, const hspmv_real *v, const hspmv_real *x, \
                     hspmv_real *y)                                                      \
    {                                                                                    \
        const T *r = (const T *)ix, *c = r + n;                                          \
        hspmv_real p[VL];                                                                \
        int64_t k = 0;                                                                   \
        for (; k + VL <= n; k += VL) {                                                   \
            vreal q = prod(v + k, IDX(c + k), x);                                        \
            if (r[k] == r[k + VL - 1]) {                                                 \
                y[r[k]] += vsum(q);                                                      \
                continue;                                                                \
            }                                                                            \
            vstore(p, q);                                                                \
            for (int j = 0; j < VL; j++) y[r[k + j]] += p[j];                            \
        }                                                                                \
        for (; k < n; k++) y[r[k]] += v[k] * x[c[k]];                                    \
    }

BCOO_TILE(tile_u8, uint8_t, idx_u8)
BCOO_TILE(tile_u16, uint16_t, idx_u16)

void hspmv_k_bcoo_avx2(int64_t t0, int64_t t1, const hspmv_bcoo *B, const hspmv_real *x,
                         hspmv_real *y, int add)
{
    const int64_t *tp = B->tptr;
    for (int64_t tr = t0; tr < t1; tr++) {
        if (!add) {
            int64_t r0, r1;
            hspmv_bcoo_tr_rows(B, tr, &r0, &r1);
            memset(y + r0, 0, (size_t)(r1 - r0) * sizeof(*y));
        }
        for (int64_t t = B->trptr[tr]; t < B->trptr[tr + 1]; t++) {
            const uint8_t *ix = B->idx + B->toff[t];
            const hspmv_real *xt = x + B->tcol0[t];
            hspmv_real *yt = y + B->trow0[t];
            if (B->twidth[t] == 1)
                tile_u8(tp[t + 1] - tp[t], ix, B->val + tp[t], xt, yt);
            else
                tile_u16(tp[t + 1] - tp[t], ix, B->val + tp[t], xt, yt);
        }
    }
}
