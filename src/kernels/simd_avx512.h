/* simd_avx512.h — the AVX-512 vector wrappers every SIMD kernel body is written
   over (see simd.h for the list and its contract), in the build's precision.
   Included through simd.h only, in files compiled with the AVX-512 flags. */
#ifndef HSPMV_SIMD_AVX512_H
#define HSPMV_SIMD_AVX512_H

#include <immintrin.h>
#include <math.h>
#include "hspmv.h"

/* Rows shorter than this take a scalar FMA loop: for them one masked gather
   plus a horizontal sum costs more than it saves (much more on AMD, where
   a gather is slow; a little on Intel), while rows of 16 and more gain
   from the vectors (docs/results has the timings). */
#define SIMD_SHORT 8
/* Software prefetch distance in entries (0: off): far enough ahead that
   the value and index streams arrive before the gathers need them, on
   short rows and on wide bands alike. */
#define SIMD_PF 256
/* The tail of a row (its last 1..W-1 entries) is read with masked loads
   from where it starts: masked lanes are neither loaded nor gathered, so a
   row may be shorter than W (float: W = 16 > SIMD_SHORT). */
#define SIMD_TAIL_FULL 0

/* __builtin_prefetch, not _mm_prefetch: GCC 12 drops an _mm_prefetch made
   inside a small inline function as if it had no effect. */
static inline void pf(const void *p) { __builtin_prefetch(p, 0, 3); }
static inline void sfence(void) { _mm_sfence(); }

/* Inclusive prefix sum of 16 32-bit lanes (iscan in single precision, the
   wide CSRDU decoder's wscan in double). */
static inline __m512i scan16(__m512i a)
{
    const __m512i z = _mm512_setzero_si512();
    a = _mm512_add_epi32(a, _mm512_alignr_epi32(a, z, 15));
    a = _mm512_add_epi32(a, _mm512_alignr_epi32(a, z, 14));
    a = _mm512_add_epi32(a, _mm512_alignr_epi32(a, z, 12));
    return _mm512_add_epi32(a, _mm512_alignr_epi32(a, z, 8));
}

#ifdef HSPMV_SINGLE
enum { W = 16 }; /* lanes */
typedef __m512 vreal;
typedef __m512i vidx; /* W 32-bit indices */
typedef __mmask16 vmask;
static inline vreal vzero(void) { return _mm512_setzero_ps(); }
static inline vreal vset1(float a) { return _mm512_set1_ps(a); }
static inline vreal vload(const float *p) { return _mm512_loadu_ps(p); }
static inline void vstore(float *p, vreal a) { _mm512_storeu_ps(p, a); }
static inline void vstream(float *p, vreal a) { _mm512_stream_ps(p, a); }
static inline vreal vmload(vmask m, const float *p) { return _mm512_maskz_loadu_ps(m, p); }
/* Gathers merge into their destination register, so reusing one register
   chains every gather to the previous one. The empty asm hides that z is
   zero and m all ones, which keeps the compiler from dropping z: each gather
   then starts from a fresh copy of z and the gathers overlap instead of
   waiting for each other (it matters on AMD; Intel does not chain them). */
static inline vreal vgather(vidx i, const float *x)
{
    __m512 z = _mm512_setzero_ps();
    __mmask16 m = 0xFFFF;
    __asm__("" : "+v"(z), "+k"(m));
    return _mm512_mask_i32gather_ps(z, m, i, x, 4);
}
static inline vreal vmgather(vmask m, vidx i, const float *x)
{
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, i, x, 4);
}
static inline vreal vfma(vreal a, vreal b, vreal c) { return _mm512_fmadd_ps(a, b, c); }
static inline vreal vmul(vreal a, vreal b) { return _mm512_mul_ps(a, b); }
static inline vreal vadd(vreal a, vreal b) { return _mm512_add_ps(a, b); }
static inline float vsum(vreal a) { return _mm512_reduce_add_ps(a); }
static inline float sfma(float a, float b, float c) { return fmaf(a, b, c); }
static inline vreal vand(vreal a, vmask m) { return _mm512_maskz_mov_ps(m, a); }
static inline vidx iload32(const int32_t *p) { return _mm512_loadu_si512(p); }
static inline vidx imload32(vmask m, const int32_t *p) { return _mm512_maskz_loadu_epi32(m, p); }
static inline vidx iload16(const int16_t *p) { return _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)p)); }
static inline vidx imload16(vmask m, const int16_t *p) { return _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, p)); }
static inline vidx iloadu8(const uint8_t *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)); }
static inline vidx iloadu16(const uint16_t *p) { return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)); }
static inline vidx iadd(vidx a, int32_t b) { return _mm512_add_epi32(a, _mm512_set1_epi32(b)); }
/* Inclusive prefix sum of the lanes: lane j gets lanes 0..j (valignd shifts). */
static inline vidx iscan(vidx a) { return scan16(a); }
static inline int32_t ilast(vidx a) { return _mm_extract_epi32(_mm512_extracti32x4_epi32(a, 3), 3); }
/* CSRDU's column steps (simd.h): a masked load reads no byte outside keep;
   an escaped step is one masked add (iadd_lanes). */
static inline vidx isteps(const uint8_t *p, unsigned keep, unsigned *zero)
{
    __m512i b = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8((__mmask16)keep, p));
    *zero = _mm512_mask_testn_epi32_mask((__mmask16)keep, b, b);
    return b;
}
static inline vidx iadd_lanes(vidx a, unsigned m, int32_t b)
{
    return _mm512_mask_add_epi32(a, (__mmask16)m, a, _mm512_set1_epi32(b));
}
#else
enum { W = 8 };
typedef __m512d vreal;
typedef __m256i vidx; /* W 32-bit indices */
typedef __mmask8 vmask;
static inline vreal vzero(void) { return _mm512_setzero_pd(); }
static inline vreal vset1(double a) { return _mm512_set1_pd(a); }
static inline vreal vload(const double *p) { return _mm512_loadu_pd(p); }
static inline void vstore(double *p, vreal a) { _mm512_storeu_pd(p, a); }
static inline void vstream(double *p, vreal a) { _mm512_stream_pd(p, a); }
static inline vreal vmload(vmask m, const double *p) { return _mm512_maskz_loadu_pd(m, p); }
static inline vreal vgather(vidx i, const double *x)
{
    __m512d z = _mm512_setzero_pd();
    __mmask8 m = 0xFF;
    __asm__("" : "+v"(z), "+k"(m));
    return _mm512_mask_i32gather_pd(z, m, i, x, 8);
}
static inline vreal vmgather(vmask m, vidx i, const double *x)
{
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, i, x, 8);
}
static inline vreal vfma(vreal a, vreal b, vreal c) { return _mm512_fmadd_pd(a, b, c); }
static inline vreal vmul(vreal a, vreal b) { return _mm512_mul_pd(a, b); }
static inline vreal vadd(vreal a, vreal b) { return _mm512_add_pd(a, b); }
static inline double vsum(vreal a) { return _mm512_reduce_add_pd(a); }
static inline double sfma(double a, double b, double c) { return fma(a, b, c); }
static inline vreal vand(vreal a, vmask m) { return _mm512_maskz_mov_pd(m, a); }
static inline vidx iload32(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline vidx imload32(vmask m, const int32_t *p) { return _mm256_maskz_loadu_epi32(m, p); }
static inline vidx iload16(const int16_t *p) { return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p)); }
static inline vidx imload16(vmask m, const int16_t *p) { return _mm256_cvtepi16_epi32(_mm_maskz_loadu_epi16(m, p)); }
static inline vidx iloadu8(const uint8_t *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
static inline vidx iloadu16(const uint16_t *p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)); }
static inline vidx iadd(vidx a, int32_t b) { return _mm256_add_epi32(a, _mm256_set1_epi32(b)); }
static inline vidx iscan(vidx a)
{
    const __m256i z = _mm256_setzero_si256();
    a = _mm256_add_epi32(a, _mm256_alignr_epi32(a, z, 7));
    a = _mm256_add_epi32(a, _mm256_alignr_epi32(a, z, 6));
    return _mm256_add_epi32(a, _mm256_alignr_epi32(a, z, 4));
}
static inline int32_t ilast(vidx a) { return _mm256_extract_epi32(a, 7); }
static inline vidx isteps(const uint8_t *p, unsigned keep, unsigned *zero)
{
    __m256i b = _mm256_cvtepu8_epi32(_mm_maskz_loadu_epi8((__mmask16)keep, p));
    *zero = _mm256_mask_testn_epi32_mask((__mmask8)keep, b, b);
    return b;
}
static inline vidx iadd_lanes(vidx a, unsigned m, int32_t b)
{
    return _mm256_mask_add_epi32(a, (__mmask8)m, a, _mm256_set1_epi32(b));
}
/* CSRDU's wide decoder (SIMD_HAS_ESC_WIDE): 2W columns at once in 16 32-bit
   lanes, each escaped step put in its lane by an expanding load of esc
   (which reads only the escapes used), one 16-lane prefix sum, and the
   column carried to the next pair of groups kept in every lane; wlo/whi
   are the two groups' W indices for the gathers. */
#define SIMD_HAS_ESC_WIDE 1
typedef __m512i widx;
static inline widx wsteps_esc(const uint8_t *p, unsigned keep, const int32_t *esc, unsigned *used)
{
    __m512i b = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8((__mmask16)keep, p));
    __mmask16 z = _mm512_mask_testn_epi32_mask((__mmask16)keep, b, b);
    *used = (unsigned)__builtin_popcount(z);
    return _mm512_add_epi32(b, _mm512_maskz_expandloadu_epi32(z, esc));
}
static inline widx wscan(widx a) { return scan16(a); }
static inline widx wset1(int32_t a) { return _mm512_set1_epi32(a); }
static inline widx waddv(widx a, widx b) { return _mm512_add_epi32(a, b); }
static inline widx wlast_all(widx a) { return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), a); }
static inline vidx wlo(widx a) { return _mm512_castsi512_si256(a); }
static inline vidx whi(widx a) { return _mm512_extracti32x8_epi32(a, 1); }

/* CSRDU's column vectors (simd.h): 8 64-bit lanes, lane j the sum of the
   kept bytes 0..j by one vpsadbw on the bytes broadcast to every lane and
   masked to its prefix (no widening and no shift-and-add scan), gathered
   with 64-bit indices. */
#define SIMD_HAS_VCOL 1
typedef __m512i vcol;
static inline vcol csum_steps(const uint8_t *p, unsigned keep, unsigned *zero)
{
    const __m512i prefix = _mm512_setr_epi64(0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFFll, 0xFFFFFFFFFFll, 0xFFFFFFFFFFFFll,
                                             0xFFFFFFFFFFFFFFll, -1ll);
    __m128i b = _mm_maskz_loadu_epi8((__mmask16)keep, p);
    *zero = _mm_mask_testn_epi8_mask((__mmask16)keep, b, b);
    return _mm512_sad_epu8(_mm512_and_si512(_mm512_broadcastq_epi64(b), prefix), _mm512_setzero_si512());
}
static inline vcol cadd_lanes(vcol a, unsigned m, int32_t b)
{
    return _mm512_mask_add_epi64(a, (__mmask8)m, a, _mm512_set1_epi64(b));
}
static inline vcol cadd(vcol a, int32_t b) { return _mm512_add_epi64(a, _mm512_set1_epi64(b)); }
static inline int32_t clast(vcol a) { return (int32_t)_mm_extract_epi64(_mm512_extracti64x2_epi64(a, 3), 1); }
static inline vreal cgather(vcol i, const double *x)
{
    __m512d z = _mm512_setzero_pd();
    __mmask8 m = 0xFF;
    __asm__("" : "+v"(z), "+k"(m));
    return _mm512_mask_i64gather_pd(z, m, i, x, 8);
}
static inline vreal cmgather(vmask m, vcol i, const double *x)
{
    return _mm512_mask_i64gather_pd(_mm512_setzero_pd(), m, i, x, 8);
}
#endif

/* Lanes [0, r) and [W - r, W), 0 < r < W. */
static inline vmask mask_first(int r) { return (vmask)((1u << r) - 1); }
static inline vmask mask_last(int r) { return (vmask)(((1u << r) - 1) << (W - r)); }

/* The first r (0 <= r <= W) entries at p, 0 in the other lanes; nothing past p + r is read. */
static inline vreal vload_first(const hspmv_real *p, int r)
{
    return r >= W ? vload(p) : r <= 0 ? vzero() : vmload(mask_first(r), p);
}

/* acc + a[0..r) * b[0..r) in the first r lanes, 0 < r < W; nothing past
   a + r or b + r is read (one mask for both loads). */
static inline vreal vfma_first(const hspmv_real *a, const hspmv_real *b, int r, vreal acc)
{
    vmask m = mask_first(r);
    return vfma(vmload(m, a), vmload(m, b), acc);
}

/* ---- value tables (CSRVI): the W values of the W 1-byte codes at p ------
   TAB1 / TAB2: the table sizes that one / two-register permutes cover;
   larger tables are gathered (they stay in L1). Masked versions read no
   code outside m. */
typedef struct vtab { vreal t0, t1; } vtab; /* the first 2W table entries, 0 past the table */
static inline vtab tab_regs(const hspmv_real *tab, int n)
{
    vtab t = {vload_first(tab, n), vload_first(tab + W, n - W)};
    return t;
}
static inline vidx imloadu8(vmask m, const uint8_t *p);
#ifdef HSPMV_SINGLE
enum { TAB1 = 16, TAB2 = 32 };
typedef __m512i vcode; /* W codes, 32-bit lanes */
static inline vcode cload(const uint8_t *p) { return iloadu8(p); }
static inline vcode cmload(vmask m, const uint8_t *p) { return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, p)); }
static inline vreal tperm1(vcode c, vtab t) { return _mm512_permutexvar_ps(c, t.t0); }
static inline vreal tperm2(vcode c, vtab t) { return _mm512_permutex2var_ps(t.t0, c, t.t1); }
static inline vreal tmperm1(vmask m, vcode c, vtab t) { return _mm512_maskz_permutexvar_ps(m, c, t.t0); }
static inline vreal tmperm2(vmask m, vcode c, vtab t) { return _mm512_maskz_permutex2var_ps(m, t.t0, c, t.t1); }
static inline vidx imloadu8(vmask m, const uint8_t *p) { return cmload(m, p); }
#else
enum { TAB1 = 8, TAB2 = 16 };
typedef __m512i vcode; /* W codes, 64-bit lanes */
static inline vcode cload(const uint8_t *p) { return _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)p)); }
static inline vcode cmload(vmask m, const uint8_t *p)
{
    return _mm512_cvtepu8_epi64(_mm_maskz_loadu_epi8((__mmask16)m, p));
}
static inline vreal tperm1(vcode c, vtab t) { return _mm512_permutexvar_pd(c, t.t0); }
static inline vreal tperm2(vcode c, vtab t) { return _mm512_permutex2var_pd(t.t0, c, t.t1); }
static inline vreal tmperm1(vmask m, vcode c, vtab t) { return _mm512_maskz_permutexvar_pd(m, c, t.t0); }
static inline vreal tmperm2(vmask m, vcode c, vtab t) { return _mm512_maskz_permutex2var_pd(m, t.t0, c, t.t1); }
static inline vidx imloadu8(vmask m, const uint8_t *p)
{
    return _mm256_cvtepu8_epi32(_mm_maskz_loadu_epi8((__mmask16)m, p));
}
#endif
static inline vreal tab_perm1(const uint8_t *p, vtab t) { return tperm1(cload(p), t); }
static inline vreal tab_perm2(const uint8_t *p, vtab t) { return tperm2(cload(p), t); }
static inline vreal tab_gather(const uint8_t *p, const hspmv_real *tab) { return vgather(iloadu8(p), tab); }
static inline vreal tab_mperm1(vmask m, const uint8_t *p, vtab t) { return tmperm1(m, cmload(m, p), t); }
static inline vreal tab_mperm2(vmask m, const uint8_t *p, vtab t) { return tmperm2(m, cmload(m, p), t); }
static inline vreal tab_mgather(vmask m, const uint8_t *p, const hspmv_real *tab)
{
    return vmgather(m, imloadu8(m, p), tab);
}

#endif
