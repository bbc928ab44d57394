/* kernels_csr16.h — CSR16 kernels (the format is in src/format/csr16.h):
   rows [r0, r1) of y = A*x (add == 0) or y += A*x (add != 0), row i's
   entries at rp[i]..rp[i+1] with columns i + off[k]. Row pointers come as
   rp32 (32-bit) when the format has them, else rp32 is NULL and rp (64-bit)
   is used; both are absolute, not rebased to r0. Each row's sum is kept in
   registers and y[i] written once; no allocation, printing, MPI or OpenMP. */
#ifndef HSPMV_KERNELS_CSR16_H
#define HSPMV_KERNELS_CSR16_H

#include "csr16.h"

typedef void hspmv_csr16_kernel(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                                const int16_t *off, const hspmv_real *v, const hspmv_real *x,
                                hspmv_real *y, int add);

hspmv_csr16_kernel hspmv_k_csr16_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_csr16_kernel hspmv_k_csr16_avx2;
hspmv_csr16_kernel hspmv_k_csr16_avx512;
#endif

#if defined(__aarch64__)
hspmv_csr16_kernel hspmv_k_csr16_neon;
#endif

/* Each kernel file writes its row loop once as an always-inline function
   taking a constant w32 (1: rp32, 0: rp) and instantiates it for both
   widths with HSPMV_CSR16_DISPATCH, so the pointer width is no per-row test. */
#define HSPMV_CSR16_RP(i) (w32 ? (int64_t)rp32[i] : rp[i])
#define HSPMV_CSR16_DISPATCH(body)                                                                 \
    do {                                                                                           \
        if (r1 <= r0) return;                                                                      \
        if (rp32)                                                                                  \
            body(r0, r1, rp32, NULL, 1, off, v, x, y, add);                                        \
        else                                                                                       \
            body(r0, r1, NULL, rp, 0, off, v, x, y, add);                                          \
    } while (0)

#endif
