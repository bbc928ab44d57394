/* spmv_csr16_avx2.c — CSR16 kernel for AVX2: 16-bit offsets widened to 32
   bits (vpmovsxwd) index gathers of x from x + i, four FMA accumulators, an
   overlapping masked tail, one horizontal sum per row, scalar short rows and
   the software prefetch of spmv_csr_avx2.c on the v and off streams.
   Built with -mavx2 -mfma only; kernel_select.c calls it only on CPUs with both. */
#include "kernels_csr16.h"

/* Rows with fewer nonzeros than this take a scalar FMA loop (as in
   spmv_csr_avx2.c); must be >= the lane count W (the tail needs W entries). */
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

/* Lane masks for the tail: the 8 entries from tailm + r have their last r set. */
static const int32_t tailm[16] = {0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1};

#include "simd_avx2.h"

/* This format's index load and masked tail. */
#ifdef HSPMV_SINGLE
static inline vidx iload(const int16_t *p)
{
    return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
}
/* The last r (0 < r < W) of the W entries at v, off: lanes before them are
   masked (not gathered, not loaded), so they add exact zeros. */
static inline vreal vtail(const float *v, const int16_t *off, const float *x, int r)
{
    __m256i m = _mm256_loadu_si256((const __m256i *)(tailm + r));
    __m256 g = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), x, iload(off), _mm256_castsi256_ps(m), 4);
    return _mm256_mul_ps(_mm256_maskload_ps(v, m), g);
}
#else
static inline vidx iload(const int16_t *p)
{
    return _mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)p));
}
static inline vreal vtail(const double *v, const int16_t *off, const double *x, int r)
{
    __m128i m = _mm_loadu_si128((const __m128i *)(tailm + 4 + r));
    __m256i m2 = _mm256_cvtepi32_epi64(m); /* the same lanes, 64 bits wide */
    __m256d g = _mm256_mask_i32gather_pd(_mm256_setzero_pd(), x, iload(off), _mm256_castsi256_pd(m2), 8);
    return _mm256_mul_pd(_mm256_maskload_pd(v, m2), g);
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
            /* 1..W-1 left: the W entries ending at e (the row has >= W) with
               the ones already done masked off; nothing past e is read */
            if (k < e) a1 = vadd(a1, vtail(v + e - W, off + e - W, xi, (int)(e - k)));
            s = vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        }
        y[i] = add ? y[i] + s : s;
    }
}

/* y[i] (+)= sum_k v[k]*x[i+off[k]] for rows [r0, r1). */
void hspmv_k_csr16_avx2(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                        const int16_t *off, const hspmv_real *v, const hspmv_real *x,
                        hspmv_real *y, int add)
{
    HSPMV_CSR16_DISPATCH(rows);
}
