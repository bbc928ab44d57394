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

/* y[col] += m, the W columns vi (entries k.. of row i, which starts at kb). */
static inline __attribute__((always_inline)) void
add_lanes(hspmv_real *y, vidx vi, vreal m, const hspmv_sym *S, int64_t i, int64_t kb, int64_t k, const int32_t *po,
          const int kind)
{
#if defined(HSPMV_ISA_AVX512) && !defined(HSPMV_SINGLE)
    (void)S, (void)i, (void)kb, (void)k, (void)po, (void)kind;
    _mm512_i32scatter_pd(y, vi, _mm512_add_pd(_mm512_i32gather_pd(vi, y, 8), m), 8);
#elif defined(HSPMV_ISA_AVX512)
    (void)S, (void)i, (void)kb, (void)k, (void)po, (void)kind;
    _mm512_i32scatter_ps(y, vi, _mm512_add_ps(_mm512_i32gather_ps(vi, y, 4), m), 4);
#else
    hspmv_real t[W];
    (void)vi;
    vstore(t, m);
    for (int l = 0; l < W; l++) y[hspmv_sym_col(S, kind, i, kb, k + l, po)] += t[l];
#endif
}

/* The W columns of entries k.. of row i (which starts at kb). */
static inline __attribute__((always_inline)) vidx
cols(const hspmv_sym *S, int64_t i, int64_t kb, int64_t k, const int32_t *po, const int kind)
{
    if (kind == HSPMV_SYM_PAT) return iadd(iload32(po + (k - kb)), (int32_t)i);
    if (kind == HSPMV_SYM_IDX16) return iadd(iloadu16(S->off + k), (int32_t)(i - 65536));
    return iload32(S->ci + k);
}

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x, hspmv_real *y,
     hspmv_real *yh, int64_t lo, int add, const int w32, const int kind)
{
    int64_t e = hspmv_sym_start(S, r0, w32, kind);
    for (int64_t i = r0; i < r1; i++) {
        int64_t kb = e, k = e;
        const int32_t *po = NULL;
        hspmv_real s;
        e = hspmv_sym_end(S, i, kb, &po, w32, kind);
        if (e - k < SIMD_SHORT || hspmv_sym_col(S, kind, i, kb, k, po) < split) {
            s = hspmv_sym_row_scalar(S, i, kb, k, e, po, split, x, y, yh, lo, kind);
        } else {
            vreal a0 = vzero(), a1 = vzero(), xs = vset1(S->sign > 0 ? x[i] : -x[i]);
            for (; k + 2 * W <= e; k += 2 * W) {
                vidx c0 = cols(S, i, kb, k, po, kind), c1 = cols(S, i, kb, k + W, po, kind);
                vreal v0 = vload(S->val + k), v1 = vload(S->val + k + W);
                a0 = vfma(v0, vgather(c0, x), a0);
                a1 = vfma(v1, vgather(c1, x), a1);
                add_lanes(y, c0, vmul(v0, xs), S, i, kb, k, po, kind);
                add_lanes(y, c1, vmul(v1, xs), S, i, kb, k + W, po, kind);
            }
            if (k + W <= e) {
                vidx c0 = cols(S, i, kb, k, po, kind);
                vreal v0 = vload(S->val + k);
                a0 = vfma(v0, vgather(c0, x), a0);
                add_lanes(y, c0, vmul(v0, xs), S, i, kb, k, po, kind);
                k += W;
            }
            s = vsum(vadd(a0, a1)) + hspmv_sym_row_scalar(S, i, kb, k, e, po, split, x, y, yh, lo, kind);
        }
        y[i] = add ? y[i] + s : s;
    }
}

void HSPMV_KERNEL(sym)(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x,
                       hspmv_real *y, hspmv_real *yh, int64_t lo, int add)
{
    HSPMV_SYM_DISPATCH(rows);
}
