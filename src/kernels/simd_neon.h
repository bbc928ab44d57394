/* simd_neon.h — the aarch64 NEON vector wrappers every SIMD kernel body is
   written over (see simd.h for the list and its contract), in the build's
   precision: W = 4 values (float: one 4-lane vector, double: two 2-lane
   vectors). NEON has no gathers: x is loaded lane by lane, and index
   vectors are 4 integers in general registers, which is what lane loads
   want. Included through simd.h only. */
#ifndef HSPMV_SIMD_NEON_H
#define HSPMV_SIMD_NEON_H

#include <arm_neon.h>
#include <math.h>
#include "hspmv.h"

/* Rows shorter than W take the scalar FMA loop (the seed's NEON kernel: a
   group of 4, then scalar leftovers); the tail loads the row's last W entries. */
#define SIMD_SHORT 4
/* No software prefetch (none was measured on NEON hardware). */
#define SIMD_PF 0
/* The tail of a row is computed on its last W entries, the lanes already
   done masked off (the loads stay inside the row). */
#define SIMD_TAIL_FULL 1

enum { W = 4 }; /* lanes */
typedef struct vidx { int32_t i[4]; } vidx; /* W indices, in general registers */

static inline void pf(const void *p) { __builtin_prefetch(p, 0, 3); }
static inline void sfence(void) {}

static inline vidx iload32(const int32_t *p) { vidx v = {{p[0], p[1], p[2], p[3]}}; return v; }
static inline vidx iload16(const int16_t *p) { vidx v = {{p[0], p[1], p[2], p[3]}}; return v; }
static inline vidx iloadu8(const uint8_t *p) { vidx v = {{p[0], p[1], p[2], p[3]}}; return v; }
static inline vidx iloadu16(const uint16_t *p) { vidx v = {{p[0], p[1], p[2], p[3]}}; return v; }
static inline vidx iadd(vidx a, int32_t b)
{
    for (int j = 0; j < 4; j++) a.i[j] += b;
    return a;
}
static inline vidx iscan(vidx a)
{
    a.i[1] += a.i[0];
    a.i[2] += a.i[1];
    a.i[3] += a.i[2];
    return a;
}
static inline int32_t ilast(vidx a) { return a.i[3]; }
/* CSRDU's column steps (simd.h), lane by lane in general registers. */
static inline vidx isteps(const uint8_t *p, unsigned keep, unsigned *zero)
{
    vidx v;
    unsigned z = 0;
    for (int j = 0; j < 4; j++) {
        v.i[j] = keep >> j & 1 ? p[j] : 0;
        z |= (unsigned)(keep >> j & 1 && !v.i[j]) << j;
    }
    *zero = z;
    return v;
}
static inline vidx iadd_lanes(vidx a, unsigned m, int32_t b)
{
    for (int t = 0; t < 4; t++) a.i[t] += m >> t & 1 ? b : 0;
    return a;
}

#ifdef HSPMV_SINGLE
typedef float32x4_t vreal;
typedef uint32x4_t vmask;
static inline vreal vzero(void) { return vdupq_n_f32(0.0f); }
static inline vreal vset1(float a) { return vdupq_n_f32(a); }
static inline vreal vload(const float *p) { return vld1q_f32(p); }
static inline void vstore(float *p, vreal a) { vst1q_f32(p, a); }
static inline void vstream(float *p, vreal a) { vst1q_f32(p, a); } /* no streaming store: a plain one */
static inline vreal vfma(vreal a, vreal b, vreal c) { return vfmaq_f32(c, a, b); }
static inline vreal vmul(vreal a, vreal b) { return vmulq_f32(a, b); }
static inline vreal vadd(vreal a, vreal b) { return vaddq_f32(a, b); }
static inline float vsum(vreal a) { return vaddvq_f32(a); }
static inline float sfma(float a, float b, float c) { return fmaf(a, b, c); }
/* x[i[0]], .., x[i[3]] as one vector */
static inline vreal vgather(vidx i, const float *x)
{
    float32x2_t lo = vld1_dup_f32(x + i.i[0]), hi = vld1_dup_f32(x + i.i[2]);
    lo = vld1_lane_f32(x + i.i[1], lo, 1);
    hi = vld1_lane_f32(x + i.i[3], hi, 1);
    return vcombine_f32(lo, hi);
}
static inline vmask mask_lanes(int a, int b) /* lanes [a, b) */
{
    static const uint32_t idx[4] = {0, 1, 2, 3};
    uint32x4_t j = vld1q_u32(idx);
    return vandq_u32(vcgeq_u32(j, vdupq_n_u32((uint32_t)a)), vcltq_u32(j, vdupq_n_u32((uint32_t)b)));
}
static inline vreal vand(vreal a, vmask m) { return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(a), m)); }
#else
typedef float64x2x2_t vreal;
typedef uint64x2x2_t vmask;
static inline vreal vzero(void)
{
    vreal q = {{vdupq_n_f64(0.0), vdupq_n_f64(0.0)}};
    return q;
}
static inline vreal vset1(double a)
{
    vreal q = {{vdupq_n_f64(a), vdupq_n_f64(a)}};
    return q;
}
static inline vreal vload(const double *p)
{
    vreal q = {{vld1q_f64(p), vld1q_f64(p + 2)}};
    return q;
}
static inline void vstore(double *p, vreal a)
{
    vst1q_f64(p, a.val[0]);
    vst1q_f64(p + 2, a.val[1]);
}
static inline void vstream(double *p, vreal a) { vstore(p, a); } /* no streaming store: a plain one */
static inline vreal vfma(vreal a, vreal b, vreal c)
{
    c.val[0] = vfmaq_f64(c.val[0], a.val[0], b.val[0]);
    c.val[1] = vfmaq_f64(c.val[1], a.val[1], b.val[1]);
    return c;
}
static inline vreal vmul(vreal a, vreal b)
{
    a.val[0] = vmulq_f64(a.val[0], b.val[0]);
    a.val[1] = vmulq_f64(a.val[1], b.val[1]);
    return a;
}
static inline vreal vadd(vreal a, vreal b)
{
    a.val[0] = vaddq_f64(a.val[0], b.val[0]);
    a.val[1] = vaddq_f64(a.val[1], b.val[1]);
    return a;
}
static inline double vsum(vreal a) { return vaddvq_f64(vaddq_f64(a.val[0], a.val[1])); }
static inline double sfma(double a, double b, double c) { return fma(a, b, c); }
/* x[i[0]], .., x[i[3]] as two 2-lane vectors */
static inline vreal vgather(vidx i, const double *x)
{
    vreal q = {{vcombine_f64(vld1_f64(x + i.i[0]), vld1_f64(x + i.i[1])),
                vcombine_f64(vld1_f64(x + i.i[2]), vld1_f64(x + i.i[3]))}};
    return q;
}
static inline vmask mask_lanes(int a, int b) /* lanes [a, b) */
{
    static const uint64_t idx[4] = {0, 1, 2, 3};
    uint64x2_t lo = vdupq_n_u64((uint64_t)a), hi = vdupq_n_u64((uint64_t)b);
    uint64x2_t j0 = vld1q_u64(idx), j1 = vld1q_u64(idx + 2);
    vmask m = {{vandq_u64(vcgeq_u64(j0, lo), vcltq_u64(j0, hi)), vandq_u64(vcgeq_u64(j1, lo), vcltq_u64(j1, hi))}};
    return m;
}
static inline vreal vand(vreal a, vmask m)
{
    a.val[0] = vreinterpretq_f64_u64(vandq_u64(vreinterpretq_u64_f64(a.val[0]), m.val[0]));
    a.val[1] = vreinterpretq_f64_u64(vandq_u64(vreinterpretq_u64_f64(a.val[1]), m.val[1]));
    return a;
}
#endif

/* Lanes [0, r) and [W - r, W), 0 < r < W. */
static inline vmask mask_first(int r) { return mask_lanes(0, r); }
static inline vmask mask_last(int r) { return mask_lanes(W - r, W); }

/* With SIMD_TAIL_FULL every lane of a tail lies in the row: plain loads,
   the masked-off lanes zeroed. */
static inline vreal vmload(vmask m, const hspmv_real *p) { return vand(vload(p), m); }
static inline vreal vmgather(vmask m, vidx i, const hspmv_real *x) { return vand(vgather(i, x), m); }
static inline vidx imload32(vmask m, const int32_t *p) { (void)m; return iload32(p); }
static inline vidx imload16(vmask m, const int16_t *p) { (void)m; return iload16(p); }

/* The first r (0 <= r <= W) entries at p, 0 in the other lanes; nothing past p + r is read. */
static inline vreal vload_first(const hspmv_real *p, int r)
{
    hspmv_real b[4] = {0, 0, 0, 0};
    if (r >= W) return vload(p);
    for (int j = 0; j < r; j++) b[j] = p[j];
    return vload(b);
}

/* acc + a[0..r) * b[0..r) in the first r lanes, 0 < r < W; nothing past
   a + r or b + r is read. */
static inline vreal vfma_first(const hspmv_real *a, const hspmv_real *b, int r, vreal acc)
{
    return vfma(vload_first(a, r), vload_first(b, r), acc);
}

/* ---- value tables (CSRVI): the W values of the W 1-byte codes at p ------
   NEON has no register permute of doubles that these kernels use, so
   TAB1 = TAB2 = 0 and every table is read lane by lane (tab_gather); the
   permute versions exist only so that the shared body compiles. */
enum { TAB1 = 0, TAB2 = 0 };
typedef struct vtab { hspmv_real t[8]; } vtab; /* the first 2W entries, 0 past the table */
static inline vtab tab_regs(const hspmv_real *tab, int n)
{
    vtab t;
    for (int j = 0; j < 2 * W; j++) t.t[j] = j < n ? tab[j] : 0;
    return t;
}
static inline vreal tab_gather(const uint8_t *p, const hspmv_real *tab) { return vgather(iloadu8(p), tab); }
static inline vreal tab_perm1(const uint8_t *p, vtab t) { return tab_gather(p, t.t); }
static inline vreal tab_perm2(const uint8_t *p, vtab t) { return tab_gather(p, t.t); }
static inline vreal tab_mperm1(vmask m, const uint8_t *p, vtab t) { return vand(tab_perm1(p, t), m); }
static inline vreal tab_mperm2(vmask m, const uint8_t *p, vtab t) { return vand(tab_perm2(p, t), m); }
static inline vreal tab_mgather(vmask m, const uint8_t *p, const hspmv_real *tab) { return vand(tab_gather(p, tab), m); }

#endif
