/* spmv_csrdu_rows.h — CSRDU's row loop, included by spmv_csrdu_simd.c once
   per column decoder: CSRDU_ROWS names the function; CSRDU_COLUMNS (a
   group's columns), CSRDU_CCOL (the column carried between groups),
   CSRDU_GCOL (a group's columns), CSRDU_START (CCOL from a row's first
   column) and CSRDU_GATHER/CSRDU_MGATHER are the decoder's; undefined
   again at the end. */
static void CSRDU_ROWS(int64_t r0, int64_t r1, const hspmv_csrdu *D, const hspmv_real *x, hspmv_real *y, int add)
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
        int64_t n = hspmv_csrdu_len(D, i, &e);
        hspmv_real s = 0;
        if (SIMD_PF > 0) { /* keep v and d streaming SIMD_PF entries ahead, every line */
            uintptr_t pe = (uintptr_t)(v + k + n) + SIMD_PF * sizeof(*v);
            for (; pv < pe; pv += 64) pf((const void *)pv);
            pe = (uintptr_t)(d + k + n) + SIMD_PF;
            for (; pd < pe; pd += 64) pf((const void *)pd);
        }
        if (n > 0) {
            int64_t q = k, end = k + n;
            c += hspmv_csrdu_first_step(D, k, &e);
            if (n < SIMD_SHORT) {
                int32_t col = c;
                s = v[k] * x[col];
                for (q = k + 1; q < end; q++) {
                    col += d[q] ? d[q] : esc[e++];
                    s = sfma(v[q], x[col], s);
                }
            } else {
                vreal a0 = vzero(), a1 = vzero();
                CSRDU_CCOL col = CSRDU_START(c);
                CSRDU_GCOL ix;
                if (n >= W) { /* lane 0: the first entry, column c (its byte is not a step) */
                    ix = CSRDU_COLUMNS(d + k, ALL & ~1u, &col, &e, esc);
                    a0 = vmul(vload(v + k), CSRDU_GATHER(ix, x));
                    for (q = k + W; q + 2 * W <= end; q += 2 * W) {
                        ix = CSRDU_COLUMNS(d + q, ALL, &col, &e, esc);
                        a1 = vfma(vload(v + q), CSRDU_GATHER(ix, x), a1);
                        ix = CSRDU_COLUMNS(d + q + W, ALL, &col, &e, esc);
                        a0 = vfma(vload(v + q + W), CSRDU_GATHER(ix, x), a0);
                    }
                    if (q + W <= end) {
                        ix = CSRDU_COLUMNS(d + q, ALL, &col, &e, esc);
                        a1 = vfma(vload(v + q), CSRDU_GATHER(ix, x), a1);
                        q += W;
                    }
                }
                if (q < end) { /* the last r entries (the whole row when n < W, lane 0 its first) */
                    int r = (int)(end - q);
                    int64_t at = tail_at(q, end);
                    unsigned keep = SIMD_TAIL_FULL ? ((1u << r) - 1) << (W - r) : (1u << r) - 1;
                    vmask m = tail_mask(r);
                    if (q == k) keep &= ~1u;
                    ix = CSRDU_COLUMNS(d + at, keep, &col, &e, esc);
                    a0 = vfma(vmload(m, v + at), CSRDU_MGATHER(m, ix, x), a0);
                }
                s = vsum(vadd(a0, a1));
            }
            k = end;
        }
        y[i] = add ? y[i] + s : s;
    }
}

#undef CSRDU_ROWS
#undef CSRDU_CCOL
#undef CSRDU_GCOL
#undef CSRDU_COLUMNS
#undef CSRDU_START
#undef CSRDU_GATHER
#undef CSRDU_MGATHER
