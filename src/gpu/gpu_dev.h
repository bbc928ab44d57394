/* gpu_dev.h — private to src/gpu: the device helpers (.cu) that the MPI
   side of the GPU path (gpu_dist*.c, gpu_cg.c, plain C) launches on a
   stream it names. Plain C; cudaStream_t comes from the runtime API. */
#ifndef HSPMV_GPU_DEV_H
#define HSPMV_GPU_DEV_H

#include <cuda_runtime_api.h>
#include "hspmv_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = A*x (add == 0) or y += A*x with the given kernel, on the legacy
   default stream like hspmv_gpu_spmv (the hybrid's long rows and column
   panels included). */
int hspmv_gpu_spmv_add(hspmv_gpu_csr *A, int kernel, const hspmv_real *x, hspmv_real *y, int add,
                       hspmv_error *err);

/* CG's p'q inside the product, where the kernel that runs is the warp
   streaming one over every row of a square matrix (hspmv_gpu_dot_fusable:
   kernel STREAM, or AUTO choosing it without a long-row split, panels or
   cuSPARSE): y = A*x and wdot[w] = the sum of x_i*y_i over the 32 rows of
   warp w (hspmv_gpu_dot_rows_scratch(nrows) doubles, device), to be
   summed by hspmv_gpu_sum. HSPMV_ERR_ARG where not fusable. */
int hspmv_gpu_dot_fusable(const hspmv_gpu_csr *A, int kernel);
int64_t hspmv_gpu_dot_rows_scratch(int64_t nrows);
int hspmv_gpu_spmv_dot(hspmv_gpu_csr *A, int kernel, const hspmv_real *x, hspmv_real *y, double *wdot,
                       hspmv_error *err);
/* out[0] (device) = the sum of a[0..n) in double, in a fixed order; partial
   as for hspmv_gpu_dots. */
int hspmv_gpu_sum(const double *a, int64_t n, double *partial, double *out, hspmv_error *err);

/* buf[k] = x[idx[k]] for k < n, on stream s. */
int hspmv_gpu_pack(const hspmv_real *x, const int32_t *idx, int64_t n, hspmv_real *buf, cudaStream_t s,
                   hspmv_error *err);
/* y[row[i]] += gy[i] for i < n, on stream s. */
int hspmv_gpu_scatter_add(hspmv_real *y, const int64_t *row, const hspmv_real *gy, int64_t n, cudaStream_t s,
                          hspmv_error *err);

/* Dot products for CG, on the legacy default stream: out[j] (device,
   double) = sum_i a_j[i]*b_j[i] for the m <= 2 pairs, summed in double;
   partial is scratch of hspmv_gpu_dot_scratch() doubles. */
int64_t hspmv_gpu_dot_scratch(void);
int hspmv_gpu_dots(int m, const hspmv_real *const *a, const hspmv_real *const *b, int64_t n, double *partial,
                   double *out, hspmv_error *err);
/* CG's update in one pass on the legacy default stream: x += alpha*p,
   r -= alpha*q, out[0] (device, double) = r'r of the new r; partial as
   for hspmv_gpu_dots. */
int hspmv_gpu_cg_update(int64_t n, double alpha, const hspmv_real *p, const hspmv_real *q, hspmv_real *x,
                        hspmv_real *r, double *partial, double *out, hspmv_error *err);
/* y += alpha*x; y = x + beta*y; z = x - y; on the legacy default stream. */
int hspmv_gpu_axpy(int64_t n, double alpha, const hspmv_real *x, hspmv_real *y, hspmv_error *err);
int hspmv_gpu_xpby(int64_t n, const hspmv_real *x, double beta, hspmv_real *y, hspmv_error *err);
int hspmv_gpu_sub(int64_t n, const hspmv_real *x, const hspmv_real *y, hspmv_real *z, hspmv_error *err);

/* The current device's UUID (16 bytes) and name. */
int hspmv_gpu_device_id(unsigned char uuid[16], char *name, size_t name_len, hspmv_error *err);

#ifdef __cplusplus
}
#endif
#endif
