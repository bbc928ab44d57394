/* spmv_bcoo_neon.c — blocked COO kernel for aarch64 NEON: groups of 4 entries
   load x lane by lane (NEON has no gather) at local column + origin, multiply
   with the values in vector registers, and add the products into the tile
   row's slice of y, which stays in cache. A group whose entries share one row
   is reduced first and added once. Float: one 4-lane vector per group;
   double: two 2-lane vectors. */
#include <arm_neon.h>
#include <string.h>
#include "kernels_bcoo.h"

#ifdef HSPMV_SINGLE
typedef float32x4_t quad;
static inline quad quad_prod(const float *v, const float *x, uint32_t c0, uint32_t c1,
                             uint32_t c2, uint32_t c3)
{
    quad q = vld1q_dup_f32(x + c0);
    q = vld1q_lane_f32(x + c1, q, 1);
    q = vld1q_lane_f32(x + c2, q, 2);
    q = vld1q_lane_f32(x + c3, q, 3);
    return vmulq_f32(vld1q_f32(v), q);
}
static inline float quad_sum(quad q) { return vaddvq_f32(q); }
static inline void quad_store(float *p, quad q) { vst1q_f32(p, q); }
#else
typedef float64x2x2_t quad;
static inline quad quad_prod(const double *v, const double *x, uint32_t c0, uint32_t c1,
                             uint32_t c2, uint32_t c3)
{
    quad q;
    q.val[0] = vmulq_f64(vld1q_f64(v), vcombine_f64(vld1_f64(x + c0), vld1_f64(x + c1)));
    q.val[1] = vmulq_f64(vld1q_f64(v + 2), vcombine_f64(vld1_f64(x + c2), vld1_f64(x + c3)));
    return q;
}
static inline double quad_sum(quad q) { return vaddvq_f64(vaddq_f64(q.val[0], q.val[1])); }
static inline void quad_store(double *p, quad q)
{
    vst1q_f64(p, q.val[0]);
    vst1q_f64(p + 2, q.val[1]);
}
#endif

/* One tile: n entries, local rows r[0..n), local columns r[n..2n). */
#define BCOO_TILE(name, T)                                                               \
    static void name(int64_t n, const uint8_t *ix, const hspmv_real *v, const hspmv_real *x, \
                     hspmv_real *y)                                                      \
    {                                                                                    \
        const T *r = (const T *)ix, *c = r + n;                                          \
        hspmv_real p[4];                                                                 \
        int64_t k = 0;                                                                   \
        for (; k + 4 <= n; k += 4) {                                                     \
            quad q = quad_prod(v + k, x, c[k], c[k + 1], c[k + 2], c[k + 3]);            \
            if (r[k] == r[k + 3]) {                                                      \
                y[r[k]] += quad_sum(q);                                                  \
                continue;                                                                \
            }                                                                            \
            quad_store(p, q);                                                            \
            y[r[k]] += p[0];                                                             \
            y[r[k + 1]] += p[1];                                                         \
            y[r[k + 2]] += p[2];                                                         \
            y[r[k + 3]] += p[3];                                                         \
        }                                                                                \
        for (; k < n; k++) y[r[k]] += v[k] * x[c[k]];                                    \
    }

BCOO_TILE(tile_u8, uint8_t)
BCOO_TILE(tile_u16, uint16_t)

void hspmv_k_bcoo_neon(int64_t t0, int64_t t1, const hspmv_bcoo *B, const hspmv_real *x,
                       hspmv_real *y, int add)
{
    const int64_t *tp = B->tptr;
    for (int64_t tr = t0; tr < t1; tr++) {
        if (!add) {
            int64_t r0, r1;
            hspmv_bcoo_tr_rows(B, tr, &r0, &r1);
            memset(y + r0, 0, (size_t)(r1 - r0) * sizeof(*y));
        }
        for (int64_t t = B->trptr[tr]; t < B->trptr[tr + 1]; t++) {
            const uint8_t *ix = B->idx + B->toff[t];
            const hspmv_real *xt = x + B->tcol0[t];
            hspmv_real *yt = y + B->trow0[t];
            if (B->twidth[t] == 1)
                tile_u8(tp[t + 1] - tp[t], ix, B->val + tp[t], xt, yt);
            else
                tile_u16(tp[t + 1] - tp[t], ix, B->val + tp[t], xt, yt);
        }
    }
}
