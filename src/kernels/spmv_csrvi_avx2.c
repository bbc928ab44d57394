/* spmv_csrvi_avx2.c — CSRVI kernel for AVX2: the structure of
   spmv_csr16_avx2.c (four FMA accumulators, an overlapping masked tail, one
   horizontal sum per row, scalar short rows, one prefetch per row and
   stream) with absolute column gathers of x, and values looked up in the
   table: a vpermps of the table held in one register (double <= 4 values,
   as pairs of 32-bit lanes; float <= 8), two permutes and a blend for twice
   that, else a gather from the table (it stays in L1); a table of one
   value (pattern matrices) reads no codes at all.
   Built with -mavx2 -mfma only; kernel_select.c calls it only on CPUs with both. */
#include <string.h>
#include "kernels_csrvi.h"

/* Rows with fewer nonzeros than this take a scalar FMA loop (as in
   spmv_csr16_avx2.c, whose sums this kernel reproduces bit for bit); must
   be >= the lane count W (the tail needs W entries). */
#ifndef CSRVI_SHORT
#define CSRVI_SHORT 8
#endif

/* Software prefetch distance in nonzeros (0: off), per row and stream. */
#ifndef CSRVI_PF
#define CSRVI_PF 256
#endif

/* Lane masks for the tail: the 8 entries from tailm + r have their last r set. */
static const int32_t tailm[16] = {0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1};

#include "simd_avx2.h"

/* How values are fetched from the table. */
enum { TAB_GATHER = 0, TAB_PERM1 = 1, TAB_PERM2 = 2, TAB_ONE = 3 };

#ifdef HSPMV_SINGLE
enum { TAB1 = 8, TAB2 = 16 }; /* table sizes the permutes cover */
static inline vidx iload(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
/* The W codes at p as 32-bit lanes. */
static inline __m256i cload(const uint8_t *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
static inline vreal tperm1(__m256i c, vreal t0) { return _mm256_permutevar8x32_ps(t0, c); }
static inline vreal tperm2(__m256i c, vreal t0, vreal t1)
{ /* bit 3 of the code picks the register: shifted into the sign bit for blendv */
    return _mm256_blendv_ps(_mm256_permutevar8x32_ps(t0, c), _mm256_permutevar8x32_ps(t1, c),
                            _mm256_castsi256_ps(_mm256_slli_epi32(c, 28)));
}
static inline vreal tgather(__m256i c, const float *t) { return vgather(c, t); }
/* The mask of the last r (0 < r < W) lanes. */
static inline vreal tailmask(int r) { return _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(tailm + r))); }
static inline vreal vand(vreal a, vreal m) { return _mm256_and_ps(a, m); }
static inline vreal vbroadcast(float v) { return _mm256_set1_ps(v); }
static inline vreal vmul(vreal a, vreal b) { return _mm256_mul_ps(a, b); }
static inline vreal vmgather(vreal m, vidx i, const float *x)
{
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), x, i, m, 4);
}
#else
enum { TAB1 = 4, TAB2 = 8 };
static inline vidx iload(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
/* The W codes at p as lanes of 2c and 2c+1 (the code's double as two
   32-bit halves), 8 lanes of 32 bits: for vpermps on a table of doubles. */
static inline __m256i cload(const uint8_t *p)
{
    int32_t w;
    memcpy(&w, p, sizeof(w));
    __m128i b = _mm_cvtsi32_si128(w);
    b = _mm_add_epi8(b, b);                                                    /* 2c */
    b = _mm_shuffle_epi8(b, _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, -1, -1, -1, -1, -1, -1, -1, -1));
    b = _mm_add_epi8(b, _mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0)); /* 2c, 2c+1 */
    return _mm256_cvtepu8_epi32(b);
}
static inline vreal tperm1(__m256i c, vreal t0)
{
    return _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(t0), c));
}
static inline vreal tperm2(__m256i c, vreal t0, vreal t1)
{ /* 2c >= 8 (c >= 4) picks t1: bit 3 shifted into the sign bit of both halves */
    __m256 p0 = _mm256_permutevar8x32_ps(_mm256_castpd_ps(t0), c);
    __m256 p1 = _mm256_permutevar8x32_ps(_mm256_castpd_ps(t1), c);
    return _mm256_castps_pd(_mm256_blendv_ps(p0, p1, _mm256_castsi256_ps(_mm256_slli_epi32(c, 28))));
}
static inline vreal tgather(const uint8_t *p, const double *t)
{
    int32_t w;
    memcpy(&w, p, sizeof(w));
    return vgather(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(w)), t);
}
static inline vreal tailmask(int r)
{
    return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(tailm + 4 + r))));
}
static inline vreal vand(vreal a, vreal m) { return _mm256_and_pd(a, m); }
static inline vreal vbroadcast(double v) { return _mm256_set1_pd(v); }
static inline vreal vmul(vreal a, vreal b) { return _mm256_mul_pd(a, b); }
static inline vreal vmgather(vreal m, vidx i, const double *x)
{
    return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), x, i, m, 8);
}
#endif

/* Values of the W codes at p. */
static inline __attribute__((always_inline)) vreal tval(const int mode, const uint8_t *p, vreal t0,
                                                       vreal t1, const hspmv_real *tab)
{
    if (mode == TAB_ONE) return t0; /* every lane tab[0]: no codes to read */
#ifdef HSPMV_SINGLE
    __m256i c = cload(p);
    return mode == TAB_PERM1 ? tperm1(c, t0) : mode == TAB_PERM2 ? tperm2(c, t0, t1) : tgather(c, tab);
#else
    if (mode == TAB_GATHER) return tgather(p, tab);
    __m256i c = cload(p);
    return mode == TAB_PERM1 ? tperm1(c, t0) : tperm2(c, t0, t1);
#endif
}

/* The first n (may be <= 0 or > W) table entries in a register, 0 past n;
   only tab[0..n) is read. */
static inline vreal tload(const hspmv_real *tab, int n)
{
    hspmv_real b[W];
    for (int j = 0; j < W; j++) b[j] = j < n ? tab[j] : 0;
    return vload(b);
}

/* Prefetches the 4*W columns and codes at ci and code (long rows). */
static inline void pf_block(const int32_t *ci, const uint8_t *code)
{
    for (int j = 0; j < 4 * W * (int)sizeof(*ci); j += 64) _mm_prefetch((const char *)ci + j, _MM_HINT_T0);
    _mm_prefetch((const char *)code, _MM_HINT_T0); /* 4*W <= 32 codes: one line */
}

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,
     const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab, const hspmv_real *x,
     hspmv_real *y, int add, const int mode)
{
    int64_t e = HSPMV_CSRVI_RP(r0);
    vreal t0 = vzero(), t1 = vzero(); /* the table, for the permutes */
    hspmv_real v0 = mode == TAB_ONE && ntab > 0 ? tab[0] : 0;
    if (mode == TAB_ONE) t0 = vbroadcast(v0);
    else if (mode != TAB_GATHER) t0 = tload(tab, ntab);
    if (mode == TAB_PERM2) t1 = tload(tab + W, ntab - W);
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        hspmv_real s = 0;
        e = HSPMV_CSRVI_RP(i + 1);
        if (CSRVI_PF > 0) {
            _mm_prefetch((const char *)(ci + e + CSRVI_PF), _MM_HINT_T0);
            if (mode != TAB_ONE) _mm_prefetch((const char *)(code + e + CSRVI_PF), _MM_HINT_T0);
        }
        if (e - k < CSRVI_SHORT) {
            if (mode == TAB_ONE) /* one value: no codes to read */
                for (; k < e; k++) s = sfma(v0, x[ci[k]], s);
            else
                for (; k < e; k++) s = sfma(tab[code[k]], x[ci[k]], s);
        } else {
            vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
            for (; k + 4 * W <= e; k += 4 * W) {
                if (CSRVI_PF > 0) pf_block(ci + k + CSRVI_PF, code + k + CSRVI_PF);
                a0 = vfma(tval(mode, code + k, t0, t1, tab), vgather(iload(ci + k), x), a0);
                a1 = vfma(tval(mode, code + k + W, t0, t1, tab), vgather(iload(ci + k + W), x), a1);
                a2 = vfma(tval(mode, code + k + 2 * W, t0, t1, tab), vgather(iload(ci + k + 2 * W), x), a2);
                a3 = vfma(tval(mode, code + k + 3 * W, t0, t1, tab), vgather(iload(ci + k + 3 * W), x), a3);
            }
            for (; k + W <= e; k += W)
                a0 = vfma(tval(mode, code + k, t0, t1, tab), vgather(iload(ci + k), x), a0);
            /* 1..W-1 left: the W entries ending at e (the row has >= W) with
               the ones already done masked off (0 * 0); nothing past e is read */
            if (k < e) {
                vreal m = tailmask((int)(e - k));
                vreal v = vand(tval(mode, code + e - W, t0, t1, tab), m);
                a1 = vadd(a1, vmul(v, vmgather(m, iload(ci + e - W), x)));
            }
            s = vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        }
        y[i] = add ? y[i] + s : s;
    }
}

/* The row loop for each way of reading the table. */
#define CSRVI_MODE(name, mode)                                                                       \
    static inline __attribute__((always_inline)) void name(                                         \
        int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,              \
        const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab, const hspmv_real *x, \
        hspmv_real *y, int add)                                                                      \
    {                                                                                                \
        rows(r0, r1, rp32, rp, w32, ci, code, tab, ntab, x, y, add, mode);                           \
    }
CSRVI_MODE(rows_one, TAB_ONE)
CSRVI_MODE(rows_perm1, TAB_PERM1)
CSRVI_MODE(rows_perm2, TAB_PERM2)
CSRVI_MODE(rows_gather, TAB_GATHER)

/* y[i] (+)= sum_k tab[code[k]]*x[ci[k]] for rows [r0, r1). */
void hspmv_k_csrvi_avx2(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                        const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab,
                        const hspmv_real *x, hspmv_real *y, int add)
{
    if (ntab <= 1)
        HSPMV_CSRVI_DISPATCH(rows_one);
    else if (ntab <= TAB1)
        HSPMV_CSRVI_DISPATCH(rows_perm1);
    else if (ntab <= TAB2)
        HSPMV_CSRVI_DISPATCH(rows_perm2);
    else
        HSPMV_CSRVI_DISPATCH(rows_gather);
}
