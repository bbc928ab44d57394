/* spmv_csrdu_simd.c — the CSRDU kernel of every instruction set (simd.h; the
   Makefile compiles this file once per set). A row's columns are decoded
   W at a time: W delta bytes widened to 32-bit lanes (isteps), an
   in-register prefix sum (AVX-512 and AVX2 in double: one vpsadbw), then
   each escaped step (a 0 byte; one or two per group on FEM and 3D stencil
   rows) added to its lane and those after it (cadd_lanes: one masked add,
   the first two without a branch), plus the column before the group; then the
   gather of x by the result. The row's first entry (its column decoded
   from the previous row's) is lane 0 of the first group; the last 1..W-1
   entries are one masked group. Two FMA accumulators, scalar rows shorter
   than SIMD_SHORT, one horizontal sum per row, and a software prefetch
   that keeps the value and byte streams SIMD_PF entries ahead. */
#include "simd.h"
#include "kernels_csrdu.h"

#define ALL ((unsigned)((1ull << W) - 1)) /* every lane */

/* The W columns of the lanes in keep whose steps are the bytes at d, after
   column *col (the other lanes: *col), and *col moved to the last of them;
   *e is advanced past their escapes. The first two escaped steps are
   added without a branch (their lanes and those after; a mask of 0 when
   there is none: esc has two spare entries to read); more are rare. The
   prefix sums do not wait for *col: one scalar add per group lies on the
   chain from group to group. */
static inline vcol columns(const uint8_t *d, unsigned keep, int32_t *col, int64_t *e, const int32_t *esc)
{
    unsigned z, z2, b1, b2;
    vcol sc = csum_steps(d, keep, &z);
    const int32_t *ep = esc + *e;
    b1 = z & -z;
    z2 = z & (z - 1);
    b2 = z2 & -z2;
    sc = cadd_lanes(sc, ~(b1 - 1) & ALL, ep[0]);
    sc = cadd_lanes(sc, ~(b2 - 1) & ALL, ep[1]);
    for (unsigned r = z2 & (z2 - 1), t = 2; __builtin_expect(r != 0, 0); r &= r - 1, t++)
        sc = cadd_lanes(sc, ~((r & -r) - 1) & ALL, ep[t]);
    *e += __builtin_popcount(z);
    vcol ix = cadd(sc, *col);
    *col += clast(sc);
    return ix;
}

/* y[i] (+)= sum over row i's entries of val[k]*x[column decoded from d, esc] for rows [r0, r1). */
void HSPMV_KERNEL(csrdu)(int64_t r0, int64_t r1, const hspmv_csrdu *D, const hspmv_real *x, hspmv_real *y,
                         int add)
{
    const uint8_t *d = D->d;
    const int32_t *esc = D->esc;
    const hspmv_real *v = D->val;
    int64_t k, e;
    int32_t c;
    if (r1 <= r0) return;
    hspmv_csrdu_seek(D, r0, &k, &e, &c);
    uintptr_t pv = (uintptr_t)(v + k), pd = (uintptr_t)(d + k); /* next line to prefetch */
    for (int64_t i = r0; i < r1; i++) {
        int64_t n = D->len[i];
        hspmv_real s = 0;
        if (n == HSPMV_CSRDU_LENESC) n = esc[e++];
        if (SIMD_PF > 0) { /* keep v and d streaming SIMD_PF entries ahead, every line */
            uintptr_t pe = (uintptr_t)(v + k + n) + SIMD_PF * sizeof(*v);
            for (; pv < pe; pv += 64) pf((const void *)pv);
            pe = (uintptr_t)(d + k + n) + SIMD_PF;
            for (; pd < pe; pd += 64) pf((const void *)pd);
        }
        if (n > 0) {
            int64_t q = k, end = k + n;
            c += d[k] == HSPMV_CSRDU_ESC1 ? esc[e++] : (int8_t)d[k];
            if (n < SIMD_SHORT) {
                int32_t col = c;
                s = v[k] * x[col];
                for (q = k + 1; q < end; q++) {
                    col += d[q] ? d[q] : esc[e++];
                    s = sfma(v[q], x[col], s);
                }
            } else {
                vreal a0 = vzero(), a1 = vzero();
                int32_t col = c;
                vcol ix;
                if (n >= W) { /* lane 0: the first entry, column c (its byte is not a step) */
                    ix = columns(d + k, ALL & ~1u, &col, &e, esc);
                    a0 = vmul(vload(v + k), cgather(ix, x));
                    for (q = k + W; q + 2 * W <= end; q += 2 * W) {
                        ix = columns(d + q, ALL, &col, &e, esc);
                        a1 = vfma(vload(v + q), cgather(ix, x), a1);
                        ix = columns(d + q + W, ALL, &col, &e, esc);
                        a0 = vfma(vload(v + q + W), cgather(ix, x), a0);
                    }
                    if (q + W <= end) {
                        ix = columns(d + q, ALL, &col, &e, esc);
                        a1 = vfma(vload(v + q), cgather(ix, x), a1);
                        q += W;
                    }
                }
                if (q < end) { /* the last r entries (the whole row when n < W, lane 0 its first) */
                    int r = (int)(end - q);
                    int64_t at = tail_at(q, end);
                    unsigned keep = SIMD_TAIL_FULL ? ((1u << r) - 1) << (W - r) : (1u << r) - 1;
                    vmask m = tail_mask(r);
                    if (q == k) keep &= ~1u;
                    ix = columns(d + at, keep, &col, &e, esc);
                    a0 = vfma(vmload(m, v + at), cmgather(m, ix, x), a0);
                }
                s = vsum(vadd(a0, a1));
            }
            k = end;
        }
        y[i] = add ? y[i] + s : s;
    }
}
