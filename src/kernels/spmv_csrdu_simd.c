/* spmv_csrdu_simd.c — the CSRDU kernel of every instruction set (simd.h; the
   Makefile compiles this file once per set). A row's columns are decoded
   W at a time: W delta bytes widened to 32-bit lanes, an in-register prefix
   sum plus the column before them, and the gather of x by the result; a
   group that holds an escape (a 0 byte) is decoded one by one. Four FMA
   accumulators, scalar short rows and tails, one horizontal sum per row,
   and one software prefetch per row of the value and byte streams. */
#include "simd.h"
#include "kernels_csrdu.h"

/* The W columns whose steps are the bytes at d, after column *col (then
   the last of them); escaped steps come from esc[*e], .. */
static inline vidx columns(const uint8_t *d, int32_t *col, int64_t *e, const int32_t *esc)
{
    vidx idx;
    if (__builtin_expect(!any_zero_u8(d), 1)) {
        idx = iadd(iscan(iloadu8(d)), *col);
    } else {
        int32_t c[W], cc = *col;
        for (int j = 0; j < W; j++) {
            cc += d[j] ? d[j] : esc[(*e)++];
            c[j] = cc;
        }
        idx = iload32(c);
    }
    *col = ilast(idx);
    return idx;
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
    for (int64_t i = r0; i < r1; i++) {
        int64_t n = D->len[i];
        hspmv_real s = 0;
        if (n == HSPMV_CSRDU_LENESC) n = esc[e++];
        if (SIMD_PF > 0) { /* one line of each stream per row, SIMD_PF entries ahead */
            pf(v + k + n + SIMD_PF);
            pf(d + k + n + SIMD_PF);
        }
        if (n > 0) {
            int64_t q = k + 1, end = k + n;
            int32_t col;
            c += d[k] == HSPMV_CSRDU_ESC1 ? esc[e++] : (int8_t)d[k];
            col = c;
            s = v[k] * x[col];
            if (n >= SIMD_SHORT) {
                vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
                for (; q + 4 * W <= end; q += 4 * W) {
                    a0 = vfma(vload(v + q), vgather(columns(d + q, &col, &e, esc), x), a0);
                    a1 = vfma(vload(v + q + W), vgather(columns(d + q + W, &col, &e, esc), x), a1);
                    a2 = vfma(vload(v + q + 2 * W), vgather(columns(d + q + 2 * W, &col, &e, esc), x), a2);
                    a3 = vfma(vload(v + q + 3 * W), vgather(columns(d + q + 3 * W, &col, &e, esc), x), a3);
                }
                for (; q + W <= end; q += W) a0 = vfma(vload(v + q), vgather(columns(d + q, &col, &e, esc), x), a0);
                s += vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
            }
            for (; q < end; q++) { /* short rows, and the last 0..W-1 entries */
                col += d[q] ? d[q] : esc[e++];
                s = sfma(v[q], x[col], s);
            }
            k = end;
        }
        y[i] = add ? y[i] + s : s;
    }
}
