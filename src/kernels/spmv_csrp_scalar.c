/* spmv_csrp_scalar.c — portable CSRP kernel, the twin of every SIMD CSRP kernel:
   rows one by one, a uniform slice's values read with stride G. */
#include "kernels_csrp.h"

#define MULADD(a, b, c) ((a) * (b) + (c))

/* y[i] (+)= sum_j val[.]*x[i+ofs[start[pid[i]]+j]] for rows [r0, r1). */
void hspmv_k_csrp_scalar(int64_t r0, int64_t r1, const hspmv_csrp *P, const hspmv_real *x, hspmv_real *y,
                         int add)
{
    for (int64_t i = r0; i < r1;) {
        int64_t s = i / HSPMV_CSRP_G, a = s * HSPMV_CSRP_G;
        int64_t end = a + HSPMV_CSRP_G < r1 ? a + HSPMV_CSRP_G : r1;
        unsigned p = P->spat[s];
        if (p != HSPMV_CSRP_MIXED) { /* uniform: row i's entry j at sp + j*G + (i - a) */
            const int32_t *o = P->ofs + P->start[p];
            int32_t n = hspmv_csrp_len(P, (int)p);
            for (; i < end; i++) {
                hspmv_real t;
                HSPMV_CSRP_ROW_OF_SLICE(MULADD, P->val + P->sp[s] + (i - a), o, n, x + i, t);
                y[i] = add ? y[i] + t : t;
            }
        } else { /* mixed: rows one after another */
            int64_t k = hspmv_csrp_mixed_start(P, i);
            for (; i < end; i++) {
                const int32_t *o = P->ofs + P->start[P->pid[i]];
                int32_t n = hspmv_csrp_len(P, P->pid[i]);
                hspmv_real t = 0;
                for (int32_t j = 0; j < n; j++) t += P->val[k + j] * x[i + o[j]];
                k += n;
                y[i] = add ? y[i] + t : t;
            }
        }
    }
}
