/* spmv_csrdu_rows.h — CSRDU's row loop, included by spmv_csrdu_simd.c once
   per column decoder: CSRDU_ROWS names the function, CSRDU_LONG the
   decoder's function for a row of SIMD_SHORT or more entries (its sum;
   spmv_csrdu_groups.h makes it for the decoders of W columns); undefined
   again at the end. The loop walks the byte streams, keeps them
   prefetched, and sums rows shorter than SIMD_SHORT with a scalar loop. */
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
            int64_t end = k + n;
            c += hspmv_csrdu_first_step(D, k, &e);
            if (n < SIMD_SHORT) {
                int32_t col = c;
                s = v[k] * x[col];
                for (int64_t q = k + 1; q < end; q++) {
                    col += d[q] ? d[q] : esc[e++];
                    s = sfma(v[q], x[col], s);
                }
            } else {
                s = CSRDU_LONG(d, v, esc, k, end, c, &e, x);
            }
            k = end;
        }
        y[i] = add ? y[i] + s : s;
    }
}

#undef CSRDU_ROWS
#undef CSRDU_LONG
