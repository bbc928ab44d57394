/* kernels_spmm.h — block kernels: Y = A·X for k vectors stored row by row
   (X[c*k + j], Y[i*k + j]), rows [r0, r1) of Y, one function per format x
   instruction set (spmm_simd.c compiled per set, spmm_scalar.c its twin).
   add == 0: Y[i,:] = sum A[i,c] X[c,:]; add != 0: Y[i,:] += that. how:
   HSPMV_SPMM_COLMAJOR: X and Y hold their vectors one after another (vector
   j at X + j*ncols, Y + j*nrows): the same kernels with a row's sums in
   scalar registers. HSPMV_SPMM_STREAM (row-major, add == 0; the caller's
   promise: Y aligned to 64 bytes and k values a multiple of 64 bytes):
   Y's rows are written with streaming stores, fenced before the kernel
   returns (panels: only with one panel, since later panels read Y back).
   Each row's k sums are kept in registers (k > the registers' width: in
   slabs of the row's values, the row's entries read again from the
   first-level cache; a row's last k mod W values in narrower registers,
   not masked W-lane ones) and Y's row written once. k = 1..8 and 16 are
   compiled with k a constant; any other k runs the general loop. Blocked COO has no block kernel
   (local_spmm.c multiplies it vector by vector). No allocation, printing,
   MPI or OpenMP. */
#ifndef HSPMV_KERNELS_SPMM_H
#define HSPMV_KERNELS_SPMM_H

#include "hspmv.h"
#include "csrl.h"
#include "csr16.h"
#include "csrvi.h"
#include "csrp.h"
#include "csrdu.h"
#include "panels.h"

#define HSPMV_SPMM_STREAM 1
#define HSPMV_SPMM_COLMAJOR 2

#define HSPMV_SPMM_KERNEL(name, fmt_t)                                                                     \
    typedef void name(int64_t r0, int64_t r1, const fmt_t *A, int k, const hspmv_real *X, hspmv_real *Y, \
                      int add, int how)
HSPMV_SPMM_KERNEL(hspmv_spmm_csr_kernel, hspmv_csr);
HSPMV_SPMM_KERNEL(hspmv_spmm_csrl_kernel, hspmv_csrl);
HSPMV_SPMM_KERNEL(hspmv_spmm_csr16_kernel, hspmv_csr16);
HSPMV_SPMM_KERNEL(hspmv_spmm_csrvi_kernel, hspmv_csrvi);
HSPMV_SPMM_KERNEL(hspmv_spmm_csrp_kernel, hspmv_csrp);
HSPMV_SPMM_KERNEL(hspmv_spmm_csrdu_kernel, hspmv_csrdu);
HSPMV_SPMM_KERNEL(hspmv_spmm_panels_kernel, hspmv_panels);

/* One instruction set's block kernels. */
typedef struct hspmv_spmm_set {
    const char *isa; /* as hspmv_kernel_set's */
    hspmv_spmm_csr_kernel *csr;
    hspmv_spmm_csrl_kernel *csrl;
    hspmv_spmm_csr16_kernel *csr16;
    hspmv_spmm_csrvi_kernel *csrvi;
    hspmv_spmm_csrp_kernel *csrp;
    hspmv_spmm_csrdu_kernel *csrdu;
    hspmv_spmm_panels_kernel *panels;
} hspmv_spmm_set;

/* The block kernels for k vectors of the set named isa (a
   hspmv_kernel_set's name; AVX-512 gives AVX2's when a row of X is 32
   bytes), the scalar ones for a name this build lacks. */
const hspmv_spmm_set *hspmv_spmm_find(const char *isa, int k);

#define HSPMV_SPMM_DECLARE(isa)                                                                    \
    hspmv_spmm_csr_kernel hspmv_k_spmm_csr_##isa;                                                  \
    hspmv_spmm_csrl_kernel hspmv_k_spmm_csrl_##isa;                                                \
    hspmv_spmm_csr16_kernel hspmv_k_spmm_csr16_##isa;                                              \
    hspmv_spmm_csrvi_kernel hspmv_k_spmm_csrvi_##isa;                                              \
    hspmv_spmm_csrp_kernel hspmv_k_spmm_csrp_##isa;                                                \
    hspmv_spmm_csrdu_kernel hspmv_k_spmm_csrdu_##isa;                                              \
    hspmv_spmm_panels_kernel hspmv_k_spmm_panels_##isa

HSPMV_SPMM_DECLARE(scalar);
#if defined(__x86_64__) || defined(_M_X64)
HSPMV_SPMM_DECLARE(avx2);
HSPMV_SPMM_DECLARE(avx512);
#endif
#if defined(__aarch64__)
HSPMV_SPMM_DECLARE(neon);
#endif

#endif
