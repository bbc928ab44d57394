/* spmv_csr16_neon.c — CSR16 kernel for aarch64 NEON, y = A*x (or y += A*x) on rows [r0, r1).
   The scheme of spmv_csr_neon.c with columns i + off[k]: unroll by 4, x
   loaded lane by lane from x + i, values loaded whole, two groups of 4 in
   flight with their own accumulators (vfmaq), 0..3 leftovers through scalar
   fma, one reduction and one write of y[i] per row.
   Float: a group of 4 is one 4-lane vector. Double: two 2-lane vectors. */
#include "simd_neon.h"
#include "kernels_csr16.h"

/* q += v[0..3] * xi[o[0..3]] */
#ifdef HSPMV_SINGLE
static inline quad quad_fma(quad q, const float *v, const int16_t *o, const float *xi)
{
    return vfmaq_f32(q, vld1q_f32(v), quad_lanes(xi, o[0], o[1], o[2], o[3]));
}
#else
static inline quad quad_fma(quad q, const double *v, const int16_t *o, const double *xi)
{
    quad g = quad_lanes(xi, o[0], o[1], o[2], o[3]);
    q.val[0] = vfmaq_f64(q.val[0], vld1q_f64(v), g.val[0]);
    q.val[1] = vfmaq_f64(q.val[1], vld1q_f64(v + 2), g.val[1]);
    return q;
}
#endif

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,
     const int16_t *off, const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add)
{
    int64_t e = HSPMV_CSR16_RP(r0);
    for (int64_t i = r0; i < r1; i++) {
        int64_t b = e;
        e = HSPMV_CSR16_RP(i + 1);
        const int16_t *o = off + b;
        const hspmv_real *a = v + b, *xi = x + i; /* row i's columns are i + off[k] */
        int64_t n = e - b, k = 0;
        quad q0 = quad_zero(), q1 = quad_zero();
        hspmv_real s = 0;

        for (; k + 8 <= n; k += 8) {
            q0 = quad_fma(q0, a + k, o + k, xi);
            q1 = quad_fma(q1, a + k + 4, o + k + 4, xi);
        }
        if (k + 4 <= n) {
            q0 = quad_fma(q0, a + k, o + k, xi);
            k += 4;
        }
        for (; k < n; k++) s = fma1(a[k], xi[o[k]], s);

        s += quad_sum(quad_add(q0, q1));
        y[i] = add ? y[i] + s : s;
    }
}

/* y[i] (+)= sum_k v[k]*x[i+off[k]] for rows [r0, r1). */
void hspmv_k_csr16_neon(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                        const int16_t *off, const hspmv_real *v, const hspmv_real *x,
                        hspmv_real *y, int add)
{
    HSPMV_CSR16_DISPATCH(rows);
}
