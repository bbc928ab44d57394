/* kernels_csrp.h — CSRP kernels (the format is in src/format/csrp.h): rows
   [r0, r1) of y = A*x (add == 0) or y += A*x (add != 0) for any r0 <= r1,
   slices cut anywhere. Each row's sum is kept in registers and y[i] written
   once; no allocation, printing, MPI or OpenMP. Every kernel sums a row of a
   uniform slice the same way whether it multiplies the whole slice at once
   or the row alone (two FMA chains, even and odd entries, added at the
   end), so split row ranges give the bits of one call. */
#ifndef HSPMV_KERNELS_CSRP_H
#define HSPMV_KERNELS_CSRP_H

#include "csrp.h"

typedef void hspmv_csrp_kernel(int64_t r0, int64_t r1, const hspmv_csrp *P, const hspmv_real *x, hspmv_real *y,
                               int add);

hspmv_csrp_kernel hspmv_k_csrp_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_csrp_kernel hspmv_k_csrp_avx2;
hspmv_csrp_kernel hspmv_k_csrp_avx512;
#endif

#if defined(__aarch64__)
hspmv_csrp_kernel hspmv_k_csrp_neon;
#endif

/* Entries of pattern p. */
static inline int32_t hspmv_csrp_len(const hspmv_csrp *P, int p) { return P->start[p + 1] - P->start[p]; }

/* Where row i's values start when its slice is mixed: the slice's first
   value plus the lengths of the slice's rows before i. */
static inline int64_t hspmv_csrp_mixed_start(const hspmv_csrp *P, int64_t i)
{
    int64_t a = i / HSPMV_CSRP_G * HSPMV_CSRP_G, k = P->sp[i / HSPMV_CSRP_G];
    for (int64_t r = a; r < i; r++) k += hspmv_csrp_len(P, P->pid[r]);
    return k;
}

/* Row i of a uniform slice alone: n entries at v[0], v[G], .. (v: the
   slice's values plus the row's place in it), columns i + o[j]; fma is the
   build's fused multiply-add, as the SIMD kernels' lanes do it. */
#define HSPMV_CSRP_ROW_OF_SLICE(fma, v, o, n, xi, out)                                             \
    do {                                                                                           \
        hspmv_real t0_ = 0, t1_ = 0;                                                               \
        int32_t j_ = 0;                                                                            \
        for (; j_ + 1 < (n); j_ += 2) {                                                            \
            t0_ = fma((v)[(int64_t)j_ * HSPMV_CSRP_G], (xi)[(o)[j_]], t0_);                         \
            t1_ = fma((v)[(int64_t)(j_ + 1) * HSPMV_CSRP_G], (xi)[(o)[j_ + 1]], t1_);               \
        }                                                                                          \
        if (j_ < (n)) t0_ = fma((v)[(int64_t)j_ * HSPMV_CSRP_G], (xi)[(o)[j_]], t0_);               \
        (out) = t0_ + t1_;                                                                         \
    } while (0)

#endif
