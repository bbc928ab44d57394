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

/* PAT: an interleaved group of G rows, Q = G/W vectors a column: x, the
   values and the mirrored rows of y by plain vector loads; the offsets
   nearer than G (their mirrored rows partly in the group) lane by lane
   after the group's y is stored. A group reaching below split: scalar. */
static void group(const hspmv_sym *S, int64_t i, int64_t k, const int32_t *po, int len, int64_t split,
                  const hspmv_real *x, hspmv_real *y, hspmv_real *yh, int64_t lo, int add)
{
    enum { G = HSPMV_SYM_G, Q = HSPMV_SYM_G / W };
    vreal acc[Q], xs[Q];
    int l = 0;
    if (len > 0 && i + po[0] < split) {
        hspmv_sym_group_scalar(S, i, k, po, len, split, x, y, yh, lo, add);
        return;
    }
    for (int q = 0; q < Q; q++) {
        vreal xv = vload(x + i + q * W);
        acc[q] = vmul(vload(S->diag + i + q * W), xv);
        xs[q] = S->sign > 0 ? xv : vmul(vset1(-1), xv);
    }
    for (; l < len && po[l] <= -G; l++) { /* mirrored rows all before the group */
        const hspmv_real *v = S->val + k + (int64_t)l * G;
        hspmv_real *yp = y + i + po[l];
        for (int q = 0; q < Q; q++) {
            vreal vv = vload(v + q * W);
            acc[q] = vfma(vv, vload(x + i + po[l] + q * W), acc[q]);
            vstore(yp + q * W, vfma(vv, xs[q], vload(yp + q * W)));
        }
    }
    for (int l2 = l; l2 < len; l2++) { /* near offsets: the row sums */
        const hspmv_real *v = S->val + k + (int64_t)l2 * G;
        for (int q = 0; q < Q; q++) acc[q] = vfma(vload(v + q * W), vload(x + i + po[l2] + q * W), acc[q]);
    }
    for (int q = 0; q < Q; q++) vstore(y + i + q * W, add ? vadd(vload(y + i + q * W), acc[q]) : acc[q]);
    for (; l < len; l++) { /* near offsets: the mirrored adds, into rows now stored */
        const hspmv_real *v = S->val + k + (int64_t)l * G;
        for (int r = 0; r < G; r++) y[i + r + po[l]] += v[r] * (S->sign > 0 ? x[i + r] : -x[i + r]);
    }
}

static void pat_rows(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x, hspmv_real *y,
                     hspmv_real *yh, int64_t lo, int add)
{
    HSPMV_SYM_PAT_ROWS(group);
}

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x, hspmv_real *y,
     hspmv_real *yh, int64_t lo, int add, const int w32, const int kind)
{
    if (kind == HSPMV_SYM_PAT) {
        pat_rows(r0, r1, split, S, x, y, yh, lo, add);
        return;
    }
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
