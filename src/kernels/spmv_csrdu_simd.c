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
   that keeps the value and byte streams SIMD_PF entries ahead. Sets with
   SIMD_HAS_ESC_WIDE (AVX-512 in double) also have a second decoder that
   puts each escaped step into its lane and decodes two groups at once in
   16 lanes; which one runs is hspmv_csrdu_decoder()'s choice
   (kernels_csrdu.h). The row loop is written once (spmv_csrdu_rows.h) and
   included per decoder, with the byte steps' long rows from
   spmv_csrdu_groups.h and the wide one's own. */
#include "simd.h"
#include "kernels_csrdu.h"

#define ALL ((unsigned)((1ull << W) - 1)) /* every lane */

/* The byte-step decoder (every set): the W columns of the lanes in keep
   whose steps are the bytes at d, after column *col (the other lanes:
   *col), and *col moved to the last of them; *e is advanced past their
   escapes. The first two escaped steps are added after the prefix sum
   without a branch (their lanes and those after; a mask of 0 when there is
   none: esc has spare entries to read); more are rare. The prefix sums do
   not wait for *col: one scalar add per group lies on the chain from group
   to group. */
static inline vcol steps_columns(const uint8_t *d, unsigned keep, int32_t *col, int64_t *e, const int32_t *esc)
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
static inline int32_t steps_start(int32_t c) { return c; }

#define CSRDU_LONG steps_long
#define CSRDU_CCOL int32_t
#define CSRDU_GCOL vcol
#define CSRDU_COLUMNS steps_columns
#define CSRDU_START steps_start
#define CSRDU_GATHER cgather
#define CSRDU_MGATHER cmgather
#include "spmv_csrdu_groups.h"
#define CSRDU_ROWS steps_rows
#include "spmv_csrdu_rows.h"

#if SIMD_HAS_ESC_WIDE
/* The 2W columns of the lanes in keep (16 bits) whose steps are the bytes
   at d, after the column in every lane of *col, which moves to the last. */
static inline widx wide_columns(const uint8_t *d, unsigned keep, widx *col, int64_t *e, const int32_t *esc)
{
    unsigned used;
    widx ix = waddv(wscan(wsteps_esc(d, keep, esc + *e, &used)), *col);
    *e += used;
    *col = wlast_all(ix);
    return ix;
}

/* The wide decoder's long row: pairs of groups (lane 0 of the first the
   row's first entry), then the last 1..2W-1 entries as one masked pair of
   groups: 27 entries take two decodes, not four. */
static inline hspmv_real wide_long(const uint8_t *d, const hspmv_real *v, const int32_t *esc, int64_t k, int64_t end,
                                   int32_t c, int64_t *e, const hspmv_real *x)
{
    const unsigned ALL2 = (unsigned)((1ull << (2 * W)) - 1);
    vreal a0 = vzero(), a1 = vzero();
    widx col = wset1(c), ix;
    unsigned first = ~1u; /* lane 0 of the row's first group: column c, its byte not a step */
    int64_t q = k;
    for (; q + 2 * W <= end; q += 2 * W, first = ~0u) {
        ix = wide_columns(d + q, ALL2 & first, &col, e, esc);
        a0 = vfma(vload(v + q), vgather(wlo(ix), x), a0);
        a1 = vfma(vload(v + q + W), vgather(whi(ix), x), a1);
    }
    if (q < end) { /* the last r entries, 1 <= r < 2W */
        int r = (int)(end - q);
        unsigned keep = ((1u << r) - 1) & first;
        vmask m0 = r >= W ? (vmask)ALL : tail_mask(r), m1 = r > W ? tail_mask(r - W) : 0;
        ix = wide_columns(d + q, keep, &col, e, esc);
        a0 = vfma(vmload(m0, v + q), vmgather(m0, wlo(ix), x), a0);
        if (r > W) a1 = vfma(vmload(m1, v + q + W), vmgather(m1, whi(ix), x), a1);
    }
    return vsum(vadd(a0, a1));
}

#define CSRDU_ROWS wide_rows
#define CSRDU_LONG wide_long
#include "spmv_csrdu_rows.h"
#endif

/* y[i] (+)= sum over row i's entries of val[k]*x[column decoded from d, esc] for rows [r0, r1),
   by the decoder hspmv_csrdu_decoder() names where the set has it. */
void HSPMV_KERNEL(csrdu)(int64_t r0, int64_t r1, const hspmv_csrdu *D, const hspmv_real *x, hspmv_real *y,
                         int add)
{
#if SIMD_HAS_ESC_WIDE
    if (hspmv_csrdu_decoder() == HSPMV_CSRDU_WIDE) {
        wide_rows(r0, r1, D, x, y, add);
        return;
    }
#endif
    steps_rows(r0, r1, D, x, y, add);
}
