/* spmv_csrvi_neon.c — CSRVI kernel for aarch64 NEON, y = A*x (or y += A*x) on rows [r0, r1).
   The scheme of spmv_csr16_neon.c (whose sums it reproduces bit for bit)
   with absolute columns and values from the table: NEON has no gathers, so
   x and the table entries are loaded lane by lane, four entries at a time,
   two groups of 4 in flight with their own accumulators (vfmaq), 0..3
   leftovers through scalar fma, one reduction and one write of y[i] per row.
   Float: a group of 4 is one 4-lane vector. Double: two 2-lane vectors. */
#include "simd_neon.h"
#include "kernels_csrvi.h"

/* q += tab[code[0..3]] * x[ci[0..3]] */
#ifdef HSPMV_SINGLE
static inline quad quad_fma(quad q, const uint8_t *code, const int32_t *ci, const float *tab, const float *x)
{
    return vfmaq_f32(q, quad_lanes(tab, code[0], code[1], code[2], code[3]),
                     quad_lanes(x, ci[0], ci[1], ci[2], ci[3]));
}
#else
static inline quad quad_fma(quad q, const uint8_t *code, const int32_t *ci, const double *tab, const double *x)
{
    quad t = quad_lanes(tab, code[0], code[1], code[2], code[3]);
    quad g = quad_lanes(x, ci[0], ci[1], ci[2], ci[3]);
    q.val[0] = vfmaq_f64(q.val[0], t.val[0], g.val[0]);
    q.val[1] = vfmaq_f64(q.val[1], t.val[1], g.val[1]);
    return q;
}
#endif

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,
     const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab, const hspmv_real *x,
     hspmv_real *y, int add)
{
    int64_t e = HSPMV_CSRVI_RP(r0);
    (void)ntab;
    for (int64_t i = r0; i < r1; i++) {
        int64_t b = e;
        e = HSPMV_CSRVI_RP(i + 1);
        const int32_t *c = ci + b;
        const uint8_t *o = code + b;
        int64_t n = e - b, k = 0;
        quad q0 = quad_zero(), q1 = quad_zero();
        hspmv_real s = 0;

        for (; k + 8 <= n; k += 8) {
            q0 = quad_fma(q0, o + k, c + k, tab, x);
            q1 = quad_fma(q1, o + k + 4, c + k + 4, tab, x);
        }
        if (k + 4 <= n) {
            q0 = quad_fma(q0, o + k, c + k, tab, x);
            k += 4;
        }
        for (; k < n; k++) s = fma1(tab[o[k]], x[c[k]], s);

        s += quad_sum(quad_add(q0, q1));
        y[i] = add ? y[i] + s : s;
    }
}

/* y[i] (+)= sum_k tab[code[k]]*x[ci[k]] for rows [r0, r1). */
void hspmv_k_csrvi_neon(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                        const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab,
                        const hspmv_real *x, hspmv_real *y, int add)
{
    HSPMV_CSRVI_DISPATCH(rows);
}
