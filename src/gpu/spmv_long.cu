/* spmv_long.cu — the long-row split of the hybrid path: every row of at least
   long_min entries is cut into chunks of HSPMV_LONG_CHUNK entries, a thread
   block reduces each chunk and adds it into y_i (which the short-row kernel
   set to 0), so one huge row no longer serialises on one vector. */
#include "gpu_internal.h"

__global__ void __launch_bounds__(HSPMV_LONG_THREADS)
spmv_long_kernel(const int32_t *__restrict__ crow, const int64_t *__restrict__ cb,
                 const int64_t *__restrict__ ce, const int32_t *__restrict__ ci,
                 const hspmv_real *__restrict__ v, const hspmv_real *__restrict__ x,
                 hspmv_real *__restrict__ y)
{
    __shared__ hspmv_real part[HSPMV_LONG_THREADS / 32];
    const int64_t c = blockIdx.x;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int64_t e = ce[c];
    hspmv_real sum = 0;
#pragma unroll 8
    for (int64_t k = cb[c] + threadIdx.x; k < e; k += HSPMV_LONG_THREADS)
        sum += v[k] * __ldg(&x[ci[k]]);
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(HSPMV_FULL_MASK, sum, off);
    if (lane == 0) part[w] = sum;
    __syncthreads();
    if (w == 0) {
        sum = lane < HSPMV_LONG_THREADS / 32 ? part[lane] : 0;
        for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(HSPMV_FULL_MASK, sum, off);
        if (lane == 0) atomicAdd(&y[crow[c]], sum);
    }
}

int hspmv_gpu_launch_long(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                          hspmv_error *err)
{
    if (A->nchunks == 0) return hspmv_ok(err);
    if (A->nchunks > INT32_MAX)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "long-row kernel: %lld chunks", (long long)A->nchunks);
    spmv_long_kernel<<<(unsigned)A->nchunks, HSPMV_LONG_THREADS>>>(A->chunk_row, A->chunk_beg,
                                                                   A->chunk_end, A->ci, A->v, x, y);
    return hspmv_cuda_launch_err("spmv_long_kernel", err);
}
