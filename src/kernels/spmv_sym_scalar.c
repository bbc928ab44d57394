/* spmv_sym_scalar.c — portable one-triangle kernel, the twin of every SIMD one (kernels_sym.h). */
#include "kernels_sym.h"

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x, hspmv_real *y,
     hspmv_real *yh, int64_t lo, int add, const int w32, const int i16)
{
    int64_t e = HSPMV_SYM_RP(r0);
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        e = HSPMV_SYM_RP(i + 1);
        hspmv_real s = hspmv_sym_row_scalar(S, i, k, e, split, x, y, yh, lo, i16);
        y[i] = add ? y[i] + s : s;
    }
}

void hspmv_k_sym_scalar(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x,
                        hspmv_real *y, hspmv_real *yh, int64_t lo, int add)
{
    HSPMV_SYM_DISPATCH(rows);
}
