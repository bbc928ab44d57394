/* spmv_csrdu_scalar.c — portable CSRDU kernel, the twin of every SIMD CSRDU
   kernel. Four partial sums per row: with one, a row of 27-81 entries is a
   chain of as many dependent adds, and the out-of-order window holds too
   few rows to hide it (genmat fem3d 45, real values, 2 threads, Zen 4:
   8.3-8.8 ms with one sum, 6.6-6.8 with four). The escape test stays a
   branch: without it (a conditional move and e += b == 0) every step
   waits for the previous one's load of esc, 8.6-9.0 ms. */
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
        int64_t n = hspmv_csrdu_len(D, i, &e);
        hspmv_real s = 0;
        if (n > 0) {
            int32_t col;
            c += hspmv_csrdu_first_step(D, k, &e);
            col = c;
            hspmv_real s1 = 0, s2 = 0, s3 = 0;
            int64_t q = k + 1, end = k + n;
            s = v[k] * x[col];
            for (; q + 4 <= end; q += 4) { /* four sums: the adds of a row overlap */
                col += d[q] ? d[q] : esc[e++];
                s1 += v[q] * x[col];
                col += d[q + 1] ? d[q + 1] : esc[e++];
                s2 += v[q + 1] * x[col];
                col += d[q + 2] ? d[q + 2] : esc[e++];
                s3 += v[q + 2] * x[col];
                col += d[q + 3] ? d[q + 3] : esc[e++];
                s += v[q + 3] * x[col];
            }
            for (; q < end; q++) {
                col += d[q] ? d[q] : esc[e++];
                s += v[q] * x[col];
            }
            s += (s1 + s2) + s3;
            k = end;
        }
        y[i] = add ? y[i] + s : s;
    }
}
