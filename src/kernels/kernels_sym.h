/* kernels_sym.h — the one-triangle kernels (the format is in src/format/sym.h):
   rows [r0, r1) of y = A*x (add == 0) or y += A*x from the diagonal and the
   strictly lower triangle. Row i sets y[i] (+)= diag[i]*x[i] + sum_k
   v[k]*x[j_k] (its sum in registers, written once) and adds
   sign*v[k]*x[i] to the mirrored row j_k < i: to y[j_k] when j_k >= split,
   else to yh[j_k - lo] (a thread's private part of y below its rows,
   local_sym.c). The caller's contract: rows [split, r0) are the caller's
   own and already written (by an earlier call on those rows), so the adds
   find them set; no other thread writes y[split..r1) meanwhile. No
   allocation, printing, MPI or OpenMP. */
#ifndef HSPMV_KERNELS_SYM_H
#define HSPMV_KERNELS_SYM_H

#include "sym.h"

typedef void hspmv_sym_kernel(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x,
                              hspmv_real *y, hspmv_real *yh, int64_t lo, int add);

hspmv_sym_kernel hspmv_k_sym_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_sym_kernel hspmv_k_sym_avx2;
hspmv_sym_kernel hspmv_k_sym_avx512;
#endif

#if defined(__aarch64__)
hspmv_sym_kernel hspmv_k_sym_neon;
#endif

/* Each kernel file writes its row loop once as an always-inline function of
   two constants, w32 (32-bit pointers) and i16 (16-bit offsets), and
   instantiates it for the four cases, so neither is a per-row test. */
#define HSPMV_SYM_RP(i) (w32 ? (int64_t)S->rp32[i] : S->rp[i])
#define HSPMV_SYM_COL(i, k) (i16 ? (i) - 65536 + (int64_t)S->off[k] : (int64_t)S->ci[k])
#define HSPMV_SYM_DISPATCH(body)                                                                   \
    do {                                                                                           \
        if (r1 <= r0) return;                                                                      \
        if (S->rp32 && S->idx16) body(r0, r1, split, S, x, y, yh, lo, add, 1, 1);                  \
        else if (S->rp32) body(r0, r1, split, S, x, y, yh, lo, add, 1, 0);                         \
        else if (S->idx16) body(r0, r1, split, S, x, y, yh, lo, add, 0, 1);                        \
        else body(r0, r1, split, S, x, y, yh, lo, add, 0, 0);                                      \
    } while (0)

/* Row i with every mirrored add going where it belongs (the scalar loop;
   SIMD kernels take it for short rows and rows that reach below split). */
static inline __attribute__((always_inline)) hspmv_real
hspmv_sym_row_scalar(const hspmv_sym *S, int64_t i, int64_t k, int64_t e, int64_t split, const hspmv_real *x,
                     hspmv_real *y, hspmv_real *yh, int64_t lo, const int i16)
{
    hspmv_real s = S->diag[i] * x[i], t = S->sign > 0 ? x[i] : -x[i];
    for (; k < e; k++) {
        int64_t j = HSPMV_SYM_COL(i, k);
        hspmv_real a = S->val[k];
        s += a * x[j];
        if (j >= split) y[j] += a * t;
        else yh[j - lo] += a * t;
    }
    return s;
}

#endif
