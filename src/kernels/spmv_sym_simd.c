/* spmv_sym_simd.c — the one-triangle kernel of every instruction set
   (simd.h; the Makefile compiles this file once per set). A row of at
   least SIMD_SHORT entries whose columns all lie at or above split: the
   row sum by gathers of x and two FMA accumulators; the mirrored adds
   v*x[i] computed W at a time and added to y by a gather, add and scatter
   (AVX-512) or lane by lane (the sets without scatter); the columns of one
   row are distinct, so lanes never collide. Other rows and each row's last
   1..W-1 entries take the scalar loop (kernels_sym.h). */
#include "simd.h"
#include "kernels_sym.h"

/* y[col] += m lane by lane, cols the W columns (as the index vector vi). */
static inline __attribute__((always_inline)) void
add_lanes(hspmv_real *y, vidx vi, vreal m, const hspmv_sym *S, int64_t i, int64_t k, const int i16)
{
#if defined(HSPMV_ISA_AVX512) && !defined(HSPMV_SINGLE)
    (void)S, (void)i, (void)k, (void)i16;
    _mm512_i32scatter_pd(y, vi, _mm512_add_pd(_mm512_i32gather_pd(vi, y, 8), m), 8);
#elif defined(HSPMV_ISA_AVX512)
    (void)S, (void)i, (void)k, (void)i16;
    _mm512_i32scatter_ps(y, vi, _mm512_add_ps(_mm512_i32gather_ps(vi, y, 4), m), 4);
#else
    hspmv_real t[W];
    (void)vi;
    vstore(t, m);
    for (int l = 0; l < W; l++) y[HSPMV_SYM_COL(i, k + l)] += t[l];
#endif
}

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x, hspmv_real *y,
     hspmv_real *yh, int64_t lo, int add, const int w32, const int i16)
{
    int64_t e = HSPMV_SYM_RP(r0);
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        hspmv_real s;
        e = HSPMV_SYM_RP(i + 1);
        if (e - k < SIMD_SHORT || HSPMV_SYM_COL(i, k) < split) {
            s = hspmv_sym_row_scalar(S, i, k, e, split, x, y, yh, lo, i16);
        } else {
            vreal a0 = vzero(), a1 = vzero(), xs = vset1(S->sign > 0 ? x[i] : -x[i]);
            for (; k + W <= e; k += W) {
                vidx vi = i16 ? iadd(iloadu16(S->off + k), (int32_t)(i - 65536)) : iload32(S->ci + k);
                vreal v = vload(S->val + k);
                if ((k / W) & 1) a1 = vfma(v, vgather(vi, x), a1);
                else a0 = vfma(v, vgather(vi, x), a0);
                add_lanes(y, vi, vmul(v, xs), S, i, k, i16);
            }
            s = vsum(vadd(a0, a1)) + hspmv_sym_row_scalar(S, i, k, e, split, x, y, yh, lo, i16);
        }
        y[i] = add ? y[i] + s : s;
    }
}

void HSPMV_KERNEL(sym)(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x,
                       hspmv_real *y, hspmv_real *yh, int64_t lo, int add)
{
    HSPMV_SYM_DISPATCH(rows);
}
