/* spmv_sym_scalar.c — portable one-triangle kernel, the twin of every SIMD one (kernels_sym.h). */
#include "kernels_sym.h"

static void pat_rows(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x, hspmv_real *y,
                     hspmv_real *yh, int64_t lo, int add)
{
    HSPMV_SYM_PAT_ROWS(hspmv_sym_group_scalar);
}

static inline __attribute__((always_inline)) void
rows(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x, hspmv_real *y,
     hspmv_real *yh, int64_t lo, int add, const int w32, const int kind)
{
    if (kind == HSPMV_SYM_PAT) {
        pat_rows(r0, r1, split, S, x, y, yh, lo, add);
        return;
    }
    int64_t e = hspmv_sym_start(S, r0, w32, kind);
    for (int64_t i = r0; i < r1; i++) {
        int64_t k = e;
        const int32_t *po = NULL;
        e = hspmv_sym_end(S, i, k, &po, w32, kind);
        hspmv_real s = hspmv_sym_row_scalar(S, i, k, k, e, po, split, x, y, yh, lo, kind);
        y[i] = add ? y[i] + s : s;
    }
}

void hspmv_k_sym_scalar(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x,
                        hspmv_real *y, hspmv_real *yh, int64_t lo, int add)
{
    HSPMV_SYM_DISPATCH(rows);
}
