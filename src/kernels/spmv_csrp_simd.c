/* spmv_csrp_simd.c — the CSRP kernel of every instruction set (simd.h; the
   Makefile compiles this file once per set). A uniform slice (G rows of
   one pattern, values entry-major) is multiplied G rows at once: for each
   entry j, G values and the G entries of x from s*G + off[j] come in by
   plain vector loads, G/W accumulators per chain, two chains (even and odd
   entries), and G results go out by vector stores: no gathers, no
   horizontal sums, no index bytes. Rows of mixed slices go through the row
   loop of spmv_csr16_simd.c with the pattern's 32-bit offsets. With
   P->stream_y (y = A*x only, y aligned to a vector) a uniform slice's
   results go out by streaming stores: y's lines are not read first (a
   write-allocate) and do not displace the streams from the cache. */
#include "simd.h"
#include "kernels_csrp.h"

enum { NV = HSPMV_CSRP_G / W }; /* vectors per slice */

/* Prefetch distance of a uniform slice's values, in entries (0 with
   SIMD_PF 0). The slices stream one array with no row pointers or indices
   to prefetch for them, and without it the hardware prefetchers alone
   kept one core's stream short of memory speed: 200^3 real-valued 3D
   stencil, 2 threads, Zen 4 VM: 0.41-0.59 of a STREAM triad with none,
   0.64 with 256 entries ahead, 0.74-0.76 with 512 or 1024. */
#define CSRP_PF (2 * SIMD_PF)
_Static_assert(HSPMV_CSRP_G % W == 0, "a slice is a whole number of vectors");

/* The G rows of a uniform slice from row a: n entries, offsets o, values v
   (entry-major). */
static inline void slice(int64_t a, const int32_t *o, int32_t n, const hspmv_real *v, const hspmv_real *x,
                         hspmv_real *y, int add, int nt, const uint8_t *pid)
{
    vreal c0[NV], c1[NV];
    const hspmv_real *xa = x + a;
    int32_t j = 0;
    for (int q = 0; q < NV; q++) c0[q] = c1[q] = vzero();
    if (CSRP_PF > 0) { /* every line of the slice CSRP_PF entries ahead, and the first and last x streams */
        for (int64_t e = 0; e < (int64_t)n * HSPMV_CSRP_G; e += 64 / (int64_t)sizeof(hspmv_real)) pf(v + CSRP_PF + e);
        if (n > 0) pf(xa + o[n - 1] + CSRP_PF / 8);
        if (n > 0) pf(xa + o[0] + CSRP_PF / 8);
        pf(pid + a + CSRP_PF); /* the pattern bytes a later mixed slice reads (a 64th of a line per row) */
    }
    for (; j + 1 < n; j += 2) {
        const hspmv_real *x0 = xa + o[j], *x1 = xa + o[j + 1], *v0 = v + (int64_t)j * HSPMV_CSRP_G;
        for (int q = 0; q < NV; q++) {
            c0[q] = vfma(vload(v0 + q * W), vload(x0 + q * W), c0[q]);
            c1[q] = vfma(vload(v0 + HSPMV_CSRP_G + q * W), vload(x1 + q * W), c1[q]);
        }
    }
    if (j < n) {
        const hspmv_real *x0 = xa + o[j], *v0 = v + (int64_t)j * HSPMV_CSRP_G;
        for (int q = 0; q < NV; q++) c0[q] = vfma(vload(v0 + q * W), vload(x0 + q * W), c0[q]);
    }
    for (int q = 0; q < NV; q++) {
        vreal t = vadd(c0[q], c1[q]);
        if (nt)
            vstream(y + a + q * W, t);
        else
            vstore(y + a + q * W, add ? vadd(vload(y + a + q * W), t) : t);
    }
}

/* One row of a mixed slice: n entries v[0..n), columns i + o[j] (xi = x + i). */
static inline hspmv_real row(const hspmv_real *v, const int32_t *o, int64_t n, const hspmv_real *xi)
{
    hspmv_real s = 0;
    int64_t k = 0;
    if (n < SIMD_SHORT) {
        for (; k < n; k++) s = sfma(v[k], xi[o[k]], s);
        return s;
    }
    vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
    for (; k + 4 * W <= n; k += 4 * W) {
        a0 = vfma(vload(v + k), vgather(iload32(o + k), xi), a0);
        a1 = vfma(vload(v + k + W), vgather(iload32(o + k + W), xi), a1);
        a2 = vfma(vload(v + k + 2 * W), vgather(iload32(o + k + 2 * W), xi), a2);
        a3 = vfma(vload(v + k + 3 * W), vgather(iload32(o + k + 3 * W), xi), a3);
    }
    for (; k + W <= n; k += W) a0 = vfma(vload(v + k), vgather(iload32(o + k), xi), a0);
    if (k < n) { /* 1..W-1 left: masked lanes add exact zeros */
        vmask m = tail_mask((int)(n - k));
        int64_t t = tail_at(k, n);
        a1 = vfma(vmload(m, v + t), vmgather(m, imload32(m, o + t), xi), a1);
    }
    return vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
}

/* y[i] (+)= sum_j val[.]*x[i+ofs[start[pid[i]]+j]] for rows [r0, r1). */
void HSPMV_KERNEL(csrp)(int64_t r0, int64_t r1, const hspmv_csrp *P, const hspmv_real *x, hspmv_real *y,
                        int add)
{
    int nt = P->stream_y && !add && (uintptr_t)y % (W * sizeof(hspmv_real)) == 0; /* y + s*G is then aligned */
    for (int64_t i = r0; i < r1;) {
        int64_t s = i / HSPMV_CSRP_G, a = s * HSPMV_CSRP_G;
        int64_t end = a + HSPMV_CSRP_G < r1 ? a + HSPMV_CSRP_G : r1;
        unsigned p = P->spat[s];
        if (p != HSPMV_CSRP_MIXED) {
            const int32_t *o = P->ofs + P->start[p];
            int32_t n = hspmv_csrp_len(P, (int)p);
            const hspmv_real *v = P->val + P->sp[s];
            if (i == a && end == a + HSPMV_CSRP_G) { /* the whole slice */
                slice(a, o, n, v, x, y, add, nt, P->pid);
                i = end;
            }
            for (; i < end; i++) { /* a part of it: row by row, the same sums */
                hspmv_real t;
                HSPMV_CSRP_ROW_OF_SLICE(sfma, v + (i - a), o, n, x + i, t);
                y[i] = add ? y[i] + t : t;
            }
        } else {
            int64_t k = hspmv_csrp_mixed_start(P, i);
            for (; i < end; i++) {
                int q = P->pid[i];
                int32_t n = hspmv_csrp_len(P, q);
                hspmv_real t = row(P->val + k, P->ofs + P->start[q], n, x + i);
                k += n;
                y[i] = add ? y[i] + t : t;
            }
        }
    }
    if (nt) sfence(); /* streaming stores are weakly ordered: done before the caller's barrier */
}
