/* spmv_csrl_neon.c — CSRL kernel for aarch64 NEON, y = A*x (or y += A*x) on rows [r0, r1).
   A segment's columns are consecutive, so x and the values both load
   contiguously (no gathers): groups of 8, then 4, then 2 go through fused
   multiply-adds into separate accumulators, a last odd entry and single-entry
   segments through one scalar fma. Nothing is read past a segment's end.
   Each row is reduced once and y[i] written once.
   Float: a group of 4 is one 4-lane vector, a pair a 2-lane one.
   Double: a group of 4 is two 2-lane vectors, a pair one. */
#include "simd_neon.h"
#include "kernels.h"

#ifdef HSPMV_SINGLE
typedef float32x2_t pair; /* 2 values */

static inline quad quad_fma(quad q, const float *v, const float *x)
{
    return vfmaq_f32(q, vld1q_f32(v), vld1q_f32(x));
}
static inline pair pair_zero(void) { return vdup_n_f32(0.0f); }
static inline float pair_sum(pair p) { return vaddv_f32(p); }
static inline pair pair_fma(pair p, const float *v, const float *x)
{
    return vfma_f32(p, vld1_f32(v), vld1_f32(x));
}
#else
typedef float64x2_t pair; /* 2 values */

static inline quad quad_fma(quad q, const double *v, const double *x)
{
    q.val[0] = vfmaq_f64(q.val[0], vld1q_f64(v), vld1q_f64(x));
    q.val[1] = vfmaq_f64(q.val[1], vld1q_f64(v + 2), vld1q_f64(x + 2));
    return q;
}
static inline pair pair_zero(void) { return vdupq_n_f64(0.0); }
static inline double pair_sum(pair p) { return vaddvq_f64(p); }
static inline pair pair_fma(pair p, const double *v, const double *x)
{
    return vfmaq_f64(p, vld1q_f64(v), vld1q_f64(x));
}
#endif

void hspmv_k_csrl_neon(int64_t r0, int64_t r1, const int64_t *sp, const int64_t *vp,
                       const int32_t *jas, const int32_t *jan, const hspmv_real *v,
                       const hspmv_real *x, hspmv_real *y, int add)
{
    for (int64_t i = r0; i < r1; i++) {
        const hspmv_real *a = v + vp[i];
        quad q0 = quad_zero(), q1 = quad_zero(), q2 = quad_zero();
        pair p = pair_zero();
        hspmv_real s = 0;

        for (int64_t g = sp[i]; g < sp[i + 1]; g++) {
            const hspmv_real *xs = x + jas[g];
            int32_t n = jan[g], k = 0;

            if (n == 1) { /* scattered entry: the common case in sparse rows */
                s = fma1(*a++, *xs, s);
                continue;
            }
            for (; k <= n - 8; k += 8) {
                q0 = quad_fma(q0, a + k, xs + k);
                q1 = quad_fma(q1, a + k + 4, xs + k + 4);
            }
            if (k <= n - 4) {
                q2 = quad_fma(q2, a + k, xs + k);
                k += 4;
            }
            if (k <= n - 2) {
                p = pair_fma(p, a + k, xs + k);
                k += 2;
            }
            if (k < n) s = fma1(a[k], xs[k], s);
            a += n;
        }

        s += quad_sum(quad_add(quad_add(q0, q1), q2)) + pair_sum(p);
        y[i] = add ? y[i] + s : s;
    }
}
