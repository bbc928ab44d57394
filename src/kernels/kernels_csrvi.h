/* kernels_csrvi.h — CSRVI kernels (the format is in src/format/csrvi.h):
   rows [r0, r1) of y = A*x (add == 0) or y += A*x (add != 0), row i's
   entries at rp[i]..rp[i+1] with columns ci[k] and values tab[code[k]]
   (ntab table entries; kernels read tab[0..ntab) only). Row pointers come
   as rp32 (32-bit) when the format has them, else rp32 is NULL and rp
   (64-bit) is used; both are absolute, not rebased to r0. Each row's sum is
   kept in registers and y[i] written once; no allocation, printing, MPI or
   OpenMP. Each SIMD kernel sums in the order of its set's CSR16 kernel, so
   the two give the same bits. */
#ifndef HSPMV_KERNELS_CSRVI_H
#define HSPMV_KERNELS_CSRVI_H

#include "csrvi.h"

typedef void hspmv_csrvi_kernel(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp,
                                const int32_t *ci, const uint8_t *code, const hspmv_real *tab, int ntab,
                                const hspmv_real *x, hspmv_real *y, int add);

hspmv_csrvi_kernel hspmv_k_csrvi_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_csrvi_kernel hspmv_k_csrvi_avx2;
hspmv_csrvi_kernel hspmv_k_csrvi_avx512;
#endif

#if defined(__aarch64__)
hspmv_csrvi_kernel hspmv_k_csrvi_neon;
#endif

/* As HSPMV_CSR16_DISPATCH (kernels_csr16.h): each kernel file writes its row
   loop once as an always-inline function taking a constant w32 (1: rp32,
   0: rp) and instantiates it for both widths, so the pointer width is no
   per-row test. */
#define HSPMV_CSRVI_RP(i) (w32 ? (int64_t)rp32[i] : rp[i])
#define HSPMV_CSRVI_DISPATCH(body)                                                                 \
    do {                                                                                           \
        if (r1 <= r0) return;                                                                      \
        if (rp32)                                                                                  \
            body(r0, r1, rp32, NULL, 1, ci, code, tab, ntab, x, y, add);                           \
        else                                                                                       \
            body(r0, r1, NULL, rp, 0, ci, code, tab, ntab, x, y, add);                             \
    } while (0)

#endif
