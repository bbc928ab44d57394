/* simd_avx2.h — the AVX2 vector wrappers every SIMD kernel body is written over
   (see simd.h for the list and its contract), in the build's precision.
   Included through simd.h only, in files compiled with -mavx2 -mfma. */
#ifndef HSPMV_SIMD_AVX2_H
#define HSPMV_SIMD_AVX2_H

#include <immintrin.h>
#include <math.h>
#include <string.h>
#include "hspmv.h"

/* Rows shorter than this take a scalar FMA loop: for them a masked gather
   and a horizontal sum cost more than they save (a 5-entry row would take
   a gather of 4 plus a masked gather of 1; docs/results has the timings).
   Must be >= W: the tail loads the row's last W entries. */
#define SIMD_SHORT 8
/* Software prefetch distance in entries (0: off): far enough ahead that
   the value and index streams arrive before the gathers need them, on
   short rows and on wide bands alike. */
#define SIMD_PF 256
/* The tail of a row (its last 1..W-1 entries) is computed on the row's last
   W entries with the lanes already done masked off: AVX2 has no masked
   16-bit or 8-bit loads, and the overlapping loads stay inside the row. */
#define SIMD_TAIL_FULL 1

/* Lane masks (32-bit lanes): the lanes read from hspmv_avx2_lanes + 16 - r
   have the first r set; 8 lanes from hspmv_avx2_lanes + r (4 lanes: + 4 + r)
   have the last r set. */
static const int32_t hspmv_avx2_lanes[24] = {0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1,
                                              -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

/* 0xFF in byte j of the result where bit j of k (4 bits) is set: each bit
   is moved to the bottom of its byte by one multiplication (no carries:
   the shifted copies land on disjoint bits), then spread over the byte. */
static inline uint32_t avx2_bytes4(unsigned k) { return ((k * 0x00204081u) & 0x01010101u) * 0xFFu; }

/* __builtin_prefetch, not _mm_prefetch: GCC 12 drops an _mm_prefetch made
   inside a small inline function as if it had no effect. */
static inline void pf(const void *p) { __builtin_prefetch(p, 0, 3); }
static inline void sfence(void) { _mm_sfence(); }

#ifdef HSPMV_SINGLE
enum { W = 8 }; /* lanes */
typedef __m256 vreal;
typedef __m256i vidx; /* W 32-bit indices */
typedef __m256 vmask; /* all-ones lanes */
static inline vreal vzero(void) { return _mm256_setzero_ps(); }
static inline vreal vset1(float a) { return _mm256_set1_ps(a); }
static inline vreal vload(const float *p) { return _mm256_loadu_ps(p); }
static inline void vstore(float *p, vreal a) { _mm256_storeu_ps(p, a); }
static inline void vstream(float *p, vreal a) { _mm256_stream_ps(p, a); }
/* Gathers merge into their destination register, so reusing one register
   chains every gather to the previous one. The empty asm hides that z is
   zero and m all ones, which keeps the compiler from dropping z: each gather
   then starts from a fresh copy of z and the gathers overlap instead of
   waiting for each other. */
static inline vreal vgather(vidx i, const float *x)
{
    __m256 z = _mm256_setzero_ps(), m = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    __asm__("" : "+x"(z), "+x"(m));
    return _mm256_mask_i32gather_ps(z, x, i, m, 4);
}
static inline vreal vfma(vreal a, vreal b, vreal c) { return _mm256_fmadd_ps(a, b, c); }
static inline vreal vmul(vreal a, vreal b) { return _mm256_mul_ps(a, b); }
static inline vreal vadd(vreal a, vreal b) { return _mm256_add_ps(a, b); }
static inline float sfma(float a, float b, float c) { return fmaf(a, b, c); }
static inline float vsum(vreal a)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
static inline vidx iload32(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline vidx iload16(const int16_t *p) { return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p)); }
static inline vidx iloadu8(const uint8_t *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
static inline vidx iloadu16(const uint16_t *p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)); }
static inline vmask mask_first(int r) { return _mm256_loadu_ps((const float *)hspmv_avx2_lanes + 16 - r); }
static inline vmask mask_last(int r) { return _mm256_loadu_ps((const float *)hspmv_avx2_lanes + r); }
static inline vreal vand(vreal a, vmask m) { return _mm256_and_ps(a, m); }
static inline vreal vmload(vmask m, const float *p) { return _mm256_maskload_ps(p, _mm256_castps_si256(m)); }
static inline vreal vmgather(vmask m, vidx i, const float *x)
{
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), x, i, m, 4);
}
/* Inclusive prefix sum of the lanes (in-lane shifts, then the low half's
   total into the high half). */
static inline vidx iscan(vidx a)
{
    a = _mm256_add_epi32(a, _mm256_slli_si256(a, 4));
    a = _mm256_add_epi32(a, _mm256_slli_si256(a, 8));
    __m256i lo = _mm256_shuffle_epi32(a, 0xFF); /* lane 3 of each half */
    return _mm256_add_epi32(a, _mm256_permute2x128_si256(lo, lo, 0x08)); /* low half's into high */
}
static inline int32_t ilast(vidx a) { return _mm256_extract_epi32(a, 7); }
/* CSRDU's column steps (simd.h): the 8 bytes lie in the row (SIMD_TAIL_FULL),
   those outside keep are cleared. */
static inline vidx isteps(const uint8_t *p, unsigned keep, unsigned *zero)
{
    uint64_t bm = (uint64_t)avx2_bytes4(keep & 15) | (uint64_t)avx2_bytes4(keep >> 4) << 32;
    __m128i b = _mm_and_si128(_mm_loadl_epi64((const __m128i *)p), _mm_cvtsi64_si128((long long)bm));
    *zero = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_setzero_si128())) & keep;
    return _mm256_cvtepu8_epi32(b);
}
static inline vidx iadd_lanes(vidx a, unsigned m, int32_t b)
{
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i in = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)m), bit), bit);
    return _mm256_add_epi32(a, _mm256_and_si256(in, _mm256_set1_epi32(b)));
}
#else
enum { W = 4 };
typedef __m256d vreal;
typedef __m128i vidx;  /* W 32-bit indices */
typedef __m256d vmask; /* all-ones lanes */
static inline vreal vzero(void) { return _mm256_setzero_pd(); }
static inline vreal vset1(double a) { return _mm256_set1_pd(a); }
static inline vreal vload(const double *p) { return _mm256_loadu_pd(p); }
static inline void vstore(double *p, vreal a) { _mm256_storeu_pd(p, a); }
static inline void vstream(double *p, vreal a) { _mm256_stream_pd(p, a); }
static inline vreal vgather(vidx i, const double *x)
{
    __m256d z = _mm256_setzero_pd(), m = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    __asm__("" : "+x"(z), "+x"(m));
    return _mm256_mask_i32gather_pd(z, x, i, m, 8);
}
static inline vreal vfma(vreal a, vreal b, vreal c) { return _mm256_fmadd_pd(a, b, c); }
static inline vreal vmul(vreal a, vreal b) { return _mm256_mul_pd(a, b); }
static inline vreal vadd(vreal a, vreal b) { return _mm256_add_pd(a, b); }
static inline double sfma(double a, double b, double c) { return fma(a, b, c); }
static inline double vsum(vreal a)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
    s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
    return _mm_cvtsd_f64(s);
}
static inline vidx iload32(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline vidx iload16(const int16_t *p) { return _mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)p)); }
static inline vidx iloadu8(const uint8_t *p)
{
    int32_t w;
    memcpy(&w, p, sizeof(w));
    return _mm_cvtepu8_epi32(_mm_cvtsi32_si128(w));
}
static inline vidx iloadu16(const uint16_t *p) { return _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)p)); }
static inline vmask mask_first(int r)
{
    return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(hspmv_avx2_lanes + 16 - r))));
}
static inline vmask mask_last(int r)
{
    return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(hspmv_avx2_lanes + 4 + r))));
}
static inline vreal vand(vreal a, vmask m) { return _mm256_and_pd(a, m); }
static inline vreal vmload(vmask m, const double *p) { return _mm256_maskload_pd(p, _mm256_castpd_si256(m)); }
static inline vreal vmgather(vmask m, vidx i, const double *x)
{
    return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), x, i, m, 8);
}
static inline vidx iscan(vidx a)
{
    a = _mm_add_epi32(a, _mm_slli_si128(a, 4));
    return _mm_add_epi32(a, _mm_slli_si128(a, 8));
}
static inline int32_t ilast(vidx a) { return _mm_extract_epi32(a, 3); }
static inline vidx isteps(const uint8_t *p, unsigned keep, unsigned *zero)
{
    int32_t w;
    memcpy(&w, p, sizeof(w));
    __m128i b = _mm_cvtsi32_si128(w & (int32_t)avx2_bytes4(keep));
    *zero = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_setzero_si128())) & keep;
    return _mm_cvtepu8_epi32(b);
}
static inline vidx iadd_lanes(vidx a, unsigned m, int32_t b)
{
    const __m128i bit = _mm_setr_epi32(1, 2, 4, 8);
    __m128i in = _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32((int)m), bit), bit);
    return _mm_add_epi32(a, _mm_and_si128(in, _mm_set1_epi32(b)));
}

/* CSRDU's column vectors (simd.h): 4 64-bit lanes, lane j the sum of the
   kept bytes 0..j by one vpsadbw on the bytes broadcast to every lane and
   masked to its prefix, gathered with 64-bit indices. */
#define SIMD_HAS_VCOL 1
typedef __m256i vcol;
static inline vcol csum_steps(const uint8_t *p, unsigned keep, unsigned *zero)
{
    int32_t w;
    memcpy(&w, p, sizeof(w));
    __m128i b = _mm_cvtsi32_si128(w & (int32_t)avx2_bytes4(keep));
    *zero = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_setzero_si128())) & keep;
    __m256i bb = _mm256_and_si256(_mm256_broadcastq_epi64(b), _mm256_setr_epi64x(0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFFll));
    return _mm256_sad_epu8(bb, _mm256_setzero_si256());
}
static inline vcol cadd_lanes(vcol a, unsigned m, int32_t b)
{
    const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
    __m256i in = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(m), bit), bit);
    return _mm256_add_epi64(a, _mm256_and_si256(in, _mm256_set1_epi64x(b)));
}
static inline vcol cadd(vcol a, int32_t b) { return _mm256_add_epi64(a, _mm256_set1_epi64x(b)); }
static inline int32_t clast(vcol a) { return (int32_t)_mm256_extract_epi64(a, 3); }
static inline vreal cgather(vcol i, const double *x)
{
    __m256d z = _mm256_setzero_pd(), m = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    __asm__("" : "+x"(z), "+x"(m));
    return _mm256_mask_i64gather_pd(z, x, i, m, 8);
}
static inline vreal cmgather(vmask m, vcol i, const double *x)
{
    return _mm256_mask_i64gather_pd(_mm256_setzero_pd(), x, i, m, 8);
}
#endif

static inline vidx iadd(vidx a, int32_t b)
{
#ifdef HSPMV_SINGLE
    return _mm256_add_epi32(a, _mm256_set1_epi32(b));
#else
    return _mm_add_epi32(a, _mm_set1_epi32(b));
#endif
}

/* Masked index loads of the tail: with SIMD_TAIL_FULL every lane lies in
   the row, so these are plain loads. */
static inline vidx imload32(vmask m, const int32_t *p) { (void)m; return iload32(p); }
static inline vidx imload16(vmask m, const int16_t *p) { (void)m; return iload16(p); }

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
   TAB1 / TAB2: the table sizes that one / two registers' permutes cover;
   larger tables are gathered (they stay in L1). */
typedef struct vtab { vreal t0, t1; } vtab; /* the first 2W table entries, 0 past the table */
static inline vtab tab_regs(const hspmv_real *tab, int n)
{
    vtab t = {vload_first(tab, n), vload_first(tab + W, n - W)};
    return t;
}
#ifdef HSPMV_SINGLE
enum { TAB1 = 8, TAB2 = 16 };
static inline vreal tab_perm1(const uint8_t *p, vtab t) { return _mm256_permutevar8x32_ps(t.t0, iloadu8(p)); }
static inline vreal tab_perm2(const uint8_t *p, vtab t)
{ /* bit 3 of the code picks the register: shifted into the sign bit for blendv */
    __m256i c = iloadu8(p);
    return _mm256_blendv_ps(_mm256_permutevar8x32_ps(t.t0, c), _mm256_permutevar8x32_ps(t.t1, c),
                            _mm256_castsi256_ps(_mm256_slli_epi32(c, 28)));
}
#else
enum { TAB1 = 4, TAB2 = 8 };
/* The W codes at p as lanes 2c and 2c+1 (a double as two 32-bit halves),
   8 lanes of 32 bits: for vpermps on a table of doubles. */
static inline __m256i tab_pairs(const uint8_t *p)
{
    int32_t w;
    memcpy(&w, p, sizeof(w));
    __m128i b = _mm_cvtsi32_si128(w);
    b = _mm_add_epi8(b, b);                                                    /* 2c */
    b = _mm_shuffle_epi8(b, _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, -1, -1, -1, -1, -1, -1, -1, -1));
    b = _mm_add_epi8(b, _mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0)); /* 2c, 2c+1 */
    return _mm256_cvtepu8_epi32(b);
}
static inline vreal tab_perm1(const uint8_t *p, vtab t)
{
    return _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(t.t0), tab_pairs(p)));
}
static inline vreal tab_perm2(const uint8_t *p, vtab t)
{ /* 2c >= 8 (c >= 4) picks t1: bit 3 shifted into the sign bit of both halves */
    __m256i c = tab_pairs(p);
    __m256 p0 = _mm256_permutevar8x32_ps(_mm256_castpd_ps(t.t0), c);
    __m256 p1 = _mm256_permutevar8x32_ps(_mm256_castpd_ps(t.t1), c);
    return _mm256_castps_pd(_mm256_blendv_ps(p0, p1, _mm256_castsi256_ps(_mm256_slli_epi32(c, 28))));
}
#endif
static inline vreal tab_gather(const uint8_t *p, const hspmv_real *tab) { return vgather(iloadu8(p), tab); }
/* The tail's lanes m (SIMD_TAIL_FULL: all W codes lie in the row). */
static inline vreal tab_mperm1(vmask m, const uint8_t *p, vtab t) { return vand(tab_perm1(p, t), m); }
static inline vreal tab_mperm2(vmask m, const uint8_t *p, vtab t) { return vand(tab_perm2(p, t), m); }
static inline vreal tab_mgather(vmask m, const uint8_t *p, const hspmv_real *tab)
{
    return vmgather(m, iloadu8(p), tab);
}

#endif
