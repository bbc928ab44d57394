/* simd_neon.h — the NEON pieces the CSR, CSRL, CSR16 and CSRVI kernels share:
   a group of 4 values (quad) with its zero, sum and reduction, scalar fma,
   and 4 entries of an array loaded lane by lane (NEON has no gathers), in
   the build's precision. Include only from *_neon.c files. */
#ifndef HSPMV_SIMD_NEON_H
#define HSPMV_SIMD_NEON_H

#include <arm_neon.h>
#include <math.h>
#include "hspmv.h"

#ifdef HSPMV_SINGLE
typedef float32x4_t quad; /* 4 values */

static inline quad quad_zero(void) { return vdupq_n_f32(0.0f); }
static inline quad quad_add(quad p, quad q) { return vaddq_f32(p, q); }
static inline float quad_sum(quad q) { return vaddvq_f32(q); }
static inline float fma1(float a, float b, float c) { return fmaf(a, b, c); }

/* p[c0], p[c1], p[c2], p[c3] as one vector */
static inline quad quad_lanes(const float *p, int64_t c0, int64_t c1, int64_t c2, int64_t c3)
{
    float32x2_t lo = vld1_dup_f32(p + c0);
    float32x2_t hi = vld1_dup_f32(p + c2);
    lo = vld1_lane_f32(p + c1, lo, 1);
    hi = vld1_lane_f32(p + c3, hi, 1);
    return vcombine_f32(lo, hi);
}
#else
typedef float64x2x2_t quad; /* 4 values in two 2-lane vectors */

static inline quad quad_zero(void)
{
    quad q = {{vdupq_n_f64(0.0), vdupq_n_f64(0.0)}};
    return q;
}
static inline quad quad_add(quad p, quad q)
{
    p.val[0] = vaddq_f64(p.val[0], q.val[0]);
    p.val[1] = vaddq_f64(p.val[1], q.val[1]);
    return p;
}
static inline double quad_sum(quad q) { return vaddvq_f64(vaddq_f64(q.val[0], q.val[1])); }
static inline double fma1(double a, double b, double c) { return fma(a, b, c); }

/* p[c0], p[c1], p[c2], p[c3] as two 2-lane vectors */
static inline quad quad_lanes(const double *p, int64_t c0, int64_t c1, int64_t c2, int64_t c3)
{
    quad q = {{vcombine_f64(vld1_f64(p + c0), vld1_f64(p + c1)),
               vcombine_f64(vld1_f64(p + c2), vld1_f64(p + c3))}};
    return q;
}
#endif

#endif
