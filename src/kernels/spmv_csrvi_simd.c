/* spmv_csrvi_simd.c — the CSRVI kernel of every instruction set (simd.h; the
   Makefile compiles this file once per set): the row loop of
   spmv_csr16_simd.c (four FMA accumulators, a masked tail, one horizontal
   sum per row, scalar short rows, one prefetch per row and stream, and so
   the same sums to the bit) with absolute column gathers of x and values
   looked up in the table: a register permute when the table fits one or two
   registers (TAB1, TAB2 of simd_<isa>.h), else a gather from the table (it
   stays in L1); a table of one value (pattern matrices) reads no codes.
   Short rows load tab[code[k]] one by one: on the 2-core AMD EPYC (Zen 4)
   VM, 7-point Laplacian, AVX-512, a select by bit operations for two values
   (GPR to XMM move per entry) was 15% slower, rotating a permuted register
   9%, 8 codes in one 64-bit load 12%, and the vector path for short rows
   (masked gathers) 37%. */
#include "simd.h"
#include "kernels_csrvi.h"

/* How values are fetched from the table. */
enum { TAB_GATHER = 0, TAB_PERM1 = 1, TAB_PERM2 = 2, TAB_ONE = 3 };

/* Values of the W codes at p; masked: the lanes outside m are 0. */
static inline __attribute__((always_inline)) vreal tval(const int mode, const uint8_t *p, vtab t,
                                                       vreal one, const hspmv_real *tab)
{
    if (mode == TAB_ONE) return one; /* every lane tab[0]: no codes to read */
    return mode == TAB_PERM1 ? tab_perm1(p, t) : mode == TAB_PERM2 ? tab_perm2(p, t) : tab_gather(p, tab);
}
static inline __attribute__((always_inline)) vreal tmval(const int mode, vmask m, const uint8_t *p, vtab t,
                                                        vreal one, const hspmv_real *tab)
{
    if (mode == TAB_ONE) return vand(one, m);
    return mode == TAB_PERM1   ? tab_mperm1(m, p, t)
           : mode == TAB_PERM2 ? tab_mperm2(m, p, t)
                               : tab_mgather(m, p, tab);
}

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,
     const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab, const hspmv_real *x,
     hspmv_real *y, int add, const int mode)
{
    int64_t e = HSPMV_CSRVI_RP(r0);
    hspmv_real v0 = mode == TAB_ONE && ntab > 0 ? tab[0] : 0;
    vreal one = vset1(v0); /* TAB_ONE: every value */
    vtab t = tab_regs(tab, mode == TAB_PERM1 || mode == TAB_PERM2 ? ntab : 0); /* the permutes' table */
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        hspmv_real s = 0;
        e = HSPMV_CSRVI_RP(i + 1);
        if (SIMD_PF > 0) {
            pf(ci + e + SIMD_PF);
            if (mode != TAB_ONE) pf(code + e + SIMD_PF);
        }
        if (e - k < SIMD_SHORT) {
            if (mode == TAB_ONE) /* one value: no codes to read */
                for (; k < e; k++) s = sfma(v0, x[ci[k]], s);
            else
                for (; k < e; k++) s = sfma(tab[code[k]], x[ci[k]], s);
        } else {
            vreal a0 = vzero(), a1 = vzero(), a2 = vzero(), a3 = vzero();
            for (; k + 4 * W <= e; k += 4 * W) {
                a0 = vfma(tval(mode, code + k, t, one, tab), vgather(iload32(ci + k), x), a0);
                a1 = vfma(tval(mode, code + k + W, t, one, tab), vgather(iload32(ci + k + W), x), a1);
                a2 = vfma(tval(mode, code + k + 2 * W, t, one, tab), vgather(iload32(ci + k + 2 * W), x), a2);
                a3 = vfma(tval(mode, code + k + 3 * W, t, one, tab), vgather(iload32(ci + k + 3 * W), x), a3);
            }
            for (; k + W <= e; k += W) a0 = vfma(tval(mode, code + k, t, one, tab), vgather(iload32(ci + k), x), a0);
            if (k < e) { /* 1..W-1 left: masked lanes add exact zeros */
                vmask m = tail_mask((int)(e - k));
                int64_t at = tail_at(k, e);
                a1 = vfma(tmval(mode, m, code + at, t, one, tab), vmgather(m, imload32(m, ci + at), x), a1);
            }
            s = vsum(vadd(vadd(a0, a1), vadd(a2, a3)));
        }
        y[i] = add ? y[i] + s : s;
    }
}

/* The row loop for each way of reading the table. */
#define CSRVI_MODE(name, mode)                                                                       \
    static inline __attribute__((always_inline)) void name(                                         \
        int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,              \
        const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab, const hspmv_real *x, \
        hspmv_real *y, int add)                                                                      \
    {                                                                                                \
        rows(r0, r1, rp32, rp, w32, ci, code, tab, ntab, x, y, add, mode);                           \
    }
CSRVI_MODE(rows_one, TAB_ONE)
CSRVI_MODE(rows_perm1, TAB_PERM1)
CSRVI_MODE(rows_perm2, TAB_PERM2)
CSRVI_MODE(rows_gather, TAB_GATHER)

/* y[i] (+)= sum_k tab[code[k]]*x[ci[k]] for rows [r0, r1). */
void HSPMV_KERNEL(csrvi)(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                         const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab,
                         const hspmv_real *x, hspmv_real *y, int add)
{
    if (ntab <= 1)
        HSPMV_CSRVI_DISPATCH(rows_one);
    else if (ntab <= TAB1)
        HSPMV_CSRVI_DISPATCH(rows_perm1);
    else if (ntab <= TAB2)
        HSPMV_CSRVI_DISPATCH(rows_perm2);
    else
        HSPMV_CSRVI_DISPATCH(rows_gather);
}
