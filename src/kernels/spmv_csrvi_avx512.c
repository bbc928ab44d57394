/* spmv_csrvi_avx512.c — CSRVI kernel for AVX-512: the structure of
   spmv_csr16_avx512.c (four FMA accumulators, masked tails, one horizontal
   sum per row, scalar short rows, one prefetch per row and stream) with
   absolute column gathers of x, and values looked up in the table: 1-byte
   codes widened to index lanes (vpmovzxbq / vpmovzxbd), then one register
   permute when the table fits one register (double <= 8, float <= 16
   values), a two-register permute (<= 16 / <= 32), else a gather from the
   table (it stays in L1). A table of one value (pattern matrices) reads no
   codes at all. Short rows load tab[code[k]] one by one: on the 2-core
   AMD EPYC (Zen 4) VM, 7-point Laplacian, a select by bit operations for
   two values (GPR to XMM move per entry) was 15% slower, rotating a
   permuted register 9%, 8 codes in one 64-bit load 12%, and the vector
   path for short rows (masked gathers) 37%. Built with -mavx512f -mavx512vl -mavx512dq
   -mavx512bw -mavx512cd -mfma only; kernel_select.c calls it only on CPUs
   that have those. */
#include "kernels_csrvi.h"

/* Rows with fewer nonzeros than this take a scalar FMA loop (as in
   spmv_csr16_avx512.c, whose sums this kernel reproduces bit for bit). */
#ifndef CSRVI_SHORT
#define CSRVI_SHORT 8
#endif

/* Software prefetch distance in nonzeros (0: off): one prefetch per row of
   the column and code streams, CSRVI_PF entries ahead (spmv_csr16_avx512.c). */
#ifndef CSRVI_PF
#define CSRVI_PF 256
#endif

#include "simd_avx512.h"

/* How values are fetched from the table. */
enum { TAB_GATHER = 0, TAB_PERM1 = 1, TAB_PERM2 = 2, TAB_ONE = 3 };

#ifdef HSPMV_SINGLE
enum { TAB1 = 16, TAB2 = 32 }; /* table sizes the permutes cover */
typedef __m512i vcode;         /* W codes, 32-bit lanes */
static inline vidx iload(const int32_t *p) { return _mm512_loadu_si512(p); }
static inline vidx imload(vmask m, const int32_t *p) { return _mm512_maskz_loadu_epi32(m, p); }
static inline vcode cload(const uint8_t *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)); }
static inline vcode cmload(vmask m, const uint8_t *p)
{
    return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, p));
}
/* The first n (may be <= 0 or > W) table entries in a register; lanes past n are 0 and not read. */
static inline vreal tload(const float *t, int n)
{
    return _mm512_maskz_loadu_ps(n >= W ? (vmask)0xFFFF : n <= 0 ? (vmask)0 : (vmask)((1u << n) - 1), t);
}
static inline vreal tperm1(vcode c, vreal t0) { return _mm512_permutexvar_ps(c, t0); }
static inline vreal tmove(vmask m, vreal t0) { return _mm512_maskz_mov_ps(m, t0); }
static inline vreal tset1(float v) { return _mm512_set1_ps(v); }
static inline vreal tperm2(vcode c, vreal t0, vreal t1) { return _mm512_permutex2var_ps(t0, c, t1); }
static inline vreal tmperm1(vmask m, vcode c, vreal t0) { return _mm512_maskz_permutexvar_ps(m, c, t0); }
static inline vreal tmperm2(vmask m, vcode c, vreal t0, vreal t1)
{
    return _mm512_maskz_permutex2var_ps(m, t0, c, t1);
}
static inline vreal tgather(vcode c, const float *t)
{
    __m512 z = _mm512_setzero_ps();
    __mmask16 m = 0xFFFF;
    __asm__("" : "+v"(z), "+k"(m)); /* a fresh destination: see vgather in simd_avx512.h */
    return _mm512_mask_i32gather_ps(z, m, c, t, 4);
}
static inline vreal tmgather(vmask m, vcode c, const float *t)
{
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, c, t, 4);
}
#else
enum { TAB1 = 8, TAB2 = 16 };
typedef __m512i vcode; /* W codes, 64-bit lanes */
static inline vidx iload(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline vidx imload(vmask m, const int32_t *p) { return _mm256_maskz_loadu_epi32(m, p); }
static inline vcode cload(const uint8_t *p) { return _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)p)); }
static inline vcode cmload(vmask m, const uint8_t *p)
{
    return _mm512_cvtepu8_epi64(_mm_maskz_loadu_epi8((__mmask16)m, p));
}
static inline vreal tload(const double *t, int n)
{
    return _mm512_maskz_loadu_pd(n >= W ? (vmask)0xFF : n <= 0 ? (vmask)0 : (vmask)((1u << n) - 1), t);
}
static inline vreal tperm1(vcode c, vreal t0) { return _mm512_permutexvar_pd(c, t0); }
static inline vreal tmove(vmask m, vreal t0) { return _mm512_maskz_mov_pd(m, t0); }
static inline vreal tset1(double v) { return _mm512_set1_pd(v); }
static inline vreal tperm2(vcode c, vreal t0, vreal t1) { return _mm512_permutex2var_pd(t0, c, t1); }
static inline vreal tmperm1(vmask m, vcode c, vreal t0) { return _mm512_maskz_permutexvar_pd(m, c, t0); }
static inline vreal tmperm2(vmask m, vcode c, vreal t0, vreal t1)
{
    return _mm512_maskz_permutex2var_pd(m, t0, c, t1);
}
static inline vreal tgather(vcode c, const double *t)
{
    __m512d z = _mm512_setzero_pd();
    __mmask8 m = 0xFF;
    __asm__("" : "+v"(z), "+k"(m));
    return _mm512_mask_i64gather_pd(z, m, c, t, 8);
}
static inline vreal tmgather(vmask m, vcode c, const double *t)
{
    return _mm512_mask_i64gather_pd(_mm512_setzero_pd(), m, c, t, 8);
}
#endif

/* Values of the W codes at p (masked: lanes outside m are 0, their codes not read). */
static inline __attribute__((always_inline)) vreal tval(const int mode, const uint8_t *p, vreal t0,
                                                       vreal t1, const hspmv_real *tab)
{
    if (mode == TAB_ONE) return t0; /* every lane tab[0]: no codes to read */
    vcode c = cload(p);
    return mode == TAB_PERM2 ? tperm2(c, t0, t1) : mode == TAB_GATHER ? tgather(c, tab) : tperm1(c, t0);
}
static inline __attribute__((always_inline)) vreal tmval(const int mode, vmask m, const uint8_t *p,
                                                        vreal t0, vreal t1, const hspmv_real *tab)
{
    if (mode == TAB_ONE) return tmove(m, t0);
    vcode c = cmload(m, p);
    return mode == TAB_PERM2    ? tmperm2(m, c, t0, t1)
           : mode == TAB_GATHER ? tmgather(m, c, tab)
                                : tmperm1(m, c, t0);
}

/* Prefetches the 4*W columns and codes at ci and code (long rows). */
static inline void pf_block(const int32_t *ci, const uint8_t *code)
{
    for (int j = 0; j < 4 * W * (int)sizeof(*ci); j += 64) _mm_prefetch((const char *)ci + j, _MM_HINT_T0);
    _mm_prefetch((const char *)code, _MM_HINT_T0); /* 4*W <= 64 codes: one line */
}

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,
     const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab, const hspmv_real *x,
     hspmv_real *y, int add, const int mode)
{
    int64_t e = HSPMV_CSRVI_RP(r0);
    vreal t0 = vzero(), t1 = vzero(); /* the table, for the permutes */
    hspmv_real v0 = mode == TAB_ONE && ntab > 0 ? tab[0] : 0;
    if (mode == TAB_ONE) t0 = tset1(v0);
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
            if (k < e) { /* 1..W-1 left: masked lanes are neither loaded nor gathered */
                vmask m = (vmask)((1u << (e - k)) - 1);
                a1 = vfma(tmval(mode, m, code + k, t0, t1, tab), vmgather(m, imload(m, ci + k), x), a1);
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
void hspmv_k_csrvi_avx512(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
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
