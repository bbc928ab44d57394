/* kernels.h — the inner loops: one function per format x instruction set.
   Kernels take const arrays and write y; they never allocate, print or call MPI.
   Every kernel computes rows [r0, r1) only, so OpenMP threads can share one:
   add == 0: y[i]  = sum_k A[i,k]*x[k]
   add != 0: y[i] += sum_k A[i,k]*x[k]
   Each row's sum is kept in registers and y[i] is written once. */
#ifndef HSPMV_KERNELS_H
#define HSPMV_KERNELS_H

#include "hspmv.h"

/* CSR: rp[i]..rp[i+1] index ci/v for row i (rp absolute, not rebased to r0). */
typedef void hspmv_csr_kernel(int64_t r0, int64_t r1, const int64_t *rp, const int32_t *ci,
                              const hspmv_real *v, const hspmv_real *x, hspmv_real *y, int add);

/* CSRL: row i has segments sp[i]..sp[i+1]; segment s covers columns
   jas[s] .. jas[s]+jan[s]-1 and its values are contiguous in v, starting at
   vp[i] for the row's first segment (vp is the CSR row pointer). */
typedef void hspmv_csrl_kernel(int64_t r0, int64_t r1, const int64_t *sp, const int64_t *vp,
                               const int32_t *jas, const int32_t *jan, const hspmv_real *v,
                               const hspmv_real *x, hspmv_real *y, int add);

hspmv_csr_kernel hspmv_k_csr_scalar;
hspmv_csrl_kernel hspmv_k_csrl_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_csr_kernel hspmv_k_csr_avx2;
hspmv_csr_kernel hspmv_k_csr_avx512;
hspmv_csrl_kernel hspmv_k_csrl_avx2;
hspmv_csrl_kernel hspmv_k_csrl_avx512;
#endif

#if defined(__aarch64__)
hspmv_csr_kernel hspmv_k_csr_neon;
hspmv_csrl_kernel hspmv_k_csrl_neon;
#endif

#endif
