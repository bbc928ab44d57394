/* spmv_csrdu_scalar.c — portable CSRDU kernel, the twin of every SIMD CSRDU kernel. */
#include "kernels_csrdu.h"

/* y[i] (+)= sum over row i's entries of val[k]*x[column decoded from d, esc] for rows [r0, r1). */
void hspmv_k_csrdu_scalar(int64_t r0, int64_t r1, const hspmv_csrdu *D, const hspmv_real *x,
                          hspmv_real *y, int add)
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
        if (n > 0) {
            int32_t col;
            c += d[k] == HSPMV_CSRDU_ESC1 ? esc[e++] : (int8_t)d[k];
            col = c;
            s = v[k] * x[col];
            for (int64_t q = k + 1; q < k + n; q++) {
                col += d[q] ? d[q] : esc[e++];
                s += v[q] * x[col];
            }
            k += n;
        }
        y[i] = add ? y[i] + s : s;
    }
}
