/* spmv_csr_neon.c — CSR kernel for aarch64 NEON, y = A*x (or y += A*x) on rows [r0, r1).
   The seed's scheme: unroll by 4, x gathered lane by lane through the column
   indices, values loaded whole. Two groups of 4 are in flight per step, each
   with its own accumulators, so the fused multiply-adds (vfmaq, where the seed
   used the unfused vmlaq) do not wait on each other. The 0..3 leftovers of a
   row go through scalar fma; each row is reduced once and y[i] written once.
   Float: a group of 4 is one 4-lane vector. Double: two 2-lane vectors. */
#include "simd_neon.h"
#include "kernels.h"

/* q += v[0..3] * x[c[0..3]] */
#ifdef HSPMV_SINGLE
static inline quad quad_fma(quad q, const float *v, const int32_t *c, const float *x)
{
    return vfmaq_f32(q, vld1q_f32(v), quad_lanes(x, c[0], c[1], c[2], c[3]));
}
#else
static inline quad quad_fma(quad q, const double *v, const int32_t *c, const double *x)
{
    quad g = quad_lanes(x, c[0], c[1], c[2], c[3]);
    q.val[0] = vfmaq_f64(q.val[0], vld1q_f64(v), g.val[0]);
    q.val[1] = vfmaq_f64(q.val[1], vld1q_f64(v + 2), g.val[1]);
    return q;
}
#endif

void hspmv_k_csr_neon(int64_t r0, int64_t r1, const int64_t *rp, const int32_t *ci,
                      const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add)
{
    for (int64_t i = r0; i < r1; i++) {
        const int32_t *c = ci + rp[i];
        const hspmv_real *a = v + rp[i];
        int64_t n = rp[i + 1] - rp[i], k = 0;
        quad q0 = quad_zero(), q1 = quad_zero();
        hspmv_real s = 0;

        for (; k + 8 <= n; k += 8) {
            q0 = quad_fma(q0, a + k, c + k, x);
            q1 = quad_fma(q1, a + k + 4, c + k + 4, x);
        }
        if (k + 4 <= n) {
            q0 = quad_fma(q0, a + k, c + k, x);
            k += 4;
        }
        for (; k < n; k++) s = fma1(a[k], x[c[k]], s);

        s += quad_sum(quad_add(q0, q1));
        y[i] = add ? y[i] + s : s;
    }
}
