/* spmv_csrdu_groups.h — CSRDU's long row for a decoder of W columns at a
   time, included by spmv_csrdu_simd.c before spmv_csrdu_rows.h: CSRDU_LONG
   names the function; CSRDU_COLUMNS (a group's columns), CSRDU_CCOL (the
   column carried between groups), CSRDU_GCOL (a group's columns),
   CSRDU_START (CCOL from a row's first column) and
   CSRDU_GATHER/CSRDU_MGATHER are the decoder's; all but CSRDU_LONG
   undefined again at the end. Entries k..end-1 (end - k >= SIMD_SHORT),
   the first at column c. */
static inline hspmv_real CSRDU_LONG(const uint8_t *d, const hspmv_real *v, const int32_t *esc, int64_t k,
                                    int64_t end, int32_t c, int64_t *e, const hspmv_real *x)
{
    int64_t q = k;
    vreal a0 = vzero(), a1 = vzero();
    CSRDU_CCOL col = CSRDU_START(c);
    CSRDU_GCOL ix;
    if (end - k >= W) { /* lane 0: the first entry, column c (its byte is not a step) */
        ix = CSRDU_COLUMNS(d + k, ALL & ~1u, &col, e, esc);
        a0 = vmul(vload(v + k), CSRDU_GATHER(ix, x));
        for (q = k + W; q + 2 * W <= end; q += 2 * W) {
            ix = CSRDU_COLUMNS(d + q, ALL, &col, e, esc);
            a1 = vfma(vload(v + q), CSRDU_GATHER(ix, x), a1);
            ix = CSRDU_COLUMNS(d + q + W, ALL, &col, e, esc);
            a0 = vfma(vload(v + q + W), CSRDU_GATHER(ix, x), a0);
        }
        if (q + W <= end) {
            ix = CSRDU_COLUMNS(d + q, ALL, &col, e, esc);
            a1 = vfma(vload(v + q), CSRDU_GATHER(ix, x), a1);
            q += W;
        }
    }
    if (q < end) { /* the last r entries (the whole row when it is shorter than W, lane 0 its first) */
        int r = (int)(end - q);
        int64_t at = tail_at(q, end);
        unsigned keep = SIMD_TAIL_FULL ? ((1u << r) - 1) << (W - r) : (1u << r) - 1;
        vmask m = tail_mask(r);
        if (q == k) keep &= ~1u;
        ix = CSRDU_COLUMNS(d + at, keep, &col, e, esc);
        a0 = vfma(vmload(m, v + at), CSRDU_MGATHER(m, ix, x), a0);
    }
    return vsum(vadd(a0, a1));
}

#undef CSRDU_CCOL
#undef CSRDU_GCOL
#undef CSRDU_COLUMNS
#undef CSRDU_START
#undef CSRDU_GATHER
#undef CSRDU_MGATHER
