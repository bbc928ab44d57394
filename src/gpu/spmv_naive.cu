/* spmv_naive.cu — the seed's short-row GPU kernel: one thread per row,
   y_i = sum_k v_k * x[ci_k] over the row; x through the read-only cache. */
#include "gpu_internal.h"

#define NAIVE_THREADS 256

/* Rows of at least long_min entries are left to the long-row kernel (y_i = 0,
   or unchanged under add, which adds the row's sum into y_i).
   H: cache hints (gpu_internal.h). */
template <int H>
__global__ void __launch_bounds__(NAIVE_THREADS)
spmv_naive_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                  const hspmv_real *__restrict__ v, const hspmv_real *__restrict__ x,
                  hspmv_real *__restrict__ y, int64_t long_min, int add)
{
    int64_t i = (int64_t)blockIdx.x * NAIVE_THREADS + threadIdx.x;
    if (i >= n) return;
    int64_t b = rp[i], e = rp[i + 1];
    const unsigned long long pol = hspmv_x_policy<H>();
    hspmv_real sum = 0;
    if (e - b >= long_min) e = b;
#pragma unroll 4
    for (int64_t k = b; k < e; k++) sum += hspmv_ld_v<H>(&v[k]) * hspmv_ld_x<H>(&x[hspmv_ld_i<H>(&ci[k])], pol);
    y[i] = add ? y[i] + sum : sum;
}

typedef void naive_fn(int64_t, const int64_t *, const int32_t *, const hspmv_real *,
                      const hspmv_real *, hspmv_real *, int64_t, int);
static naive_fn *const naive_kernels[HSPMV_NHINTS] = {
    spmv_naive_kernel<0>, spmv_naive_kernel<1>, spmv_naive_kernel<2>,
};

int hspmv_gpu_launch_naive(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                           int64_t long_min, int add, hspmv_error *err)
{
    int64_t blocks = (A->nrows + NAIVE_THREADS - 1) / NAIVE_THREADS;
    if (blocks == 0) return hspmv_ok(err);
    HSPMV_BY_HINTS(A, naive_kernels)<<<(unsigned)blocks, NAIVE_THREADS>>>(A->nrows, A->rp, A->ci, A->v, x, y, long_min, add);
    return hspmv_cuda_launch_err("spmv_naive_kernel", err);
}
