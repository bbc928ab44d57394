/* gpu_dist_kernels.cu — the small device kernels of the several-GPU path
   and of CG on the GPUs: packing the halo's send buffer, adding the
   compressed ghost rows into y, dot products and vector updates. */
#include <stdio.h>
#include <string.h>
#include "gpu_internal.h"
#include "gpu_dev.h"

#define DIST_THREADS 256
#define DOT_BLOCKS 1024 /* partial sums per dot product: enough blocks for any GPU here */

static unsigned grid_for(int64_t n)
{
    int64_t b = (n + DIST_THREADS - 1) / DIST_THREADS;
    return (unsigned)(b < 65535 * 64 ? (b > 0 ? b : 1) : 65535 * 64);
}

static __global__ void pack_kernel(const hspmv_real *__restrict__ x, const int32_t *__restrict__ idx, int64_t n,
                            hspmv_real *__restrict__ buf)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
        buf[k] = __ldg(&x[idx[k]]);
}

static __global__ void scatter_add_kernel(hspmv_real *__restrict__ y, const int64_t *__restrict__ row,
                                   const hspmv_real *__restrict__ gy, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[row[i]] += gy[i];
}

int hspmv_gpu_pack(const hspmv_real *x, const int32_t *idx, int64_t n, hspmv_real *buf, cudaStream_t s,
                   hspmv_error *err)
{
    if (n <= 0) return hspmv_ok(err);
    pack_kernel<<<grid_for(n), DIST_THREADS, 0, s>>>(x, idx, n, buf);
    return hspmv_cuda_launch_err("pack_kernel", err);
}

int hspmv_gpu_scatter_add(hspmv_real *y, const int64_t *row, const hspmv_real *gy, int64_t n, cudaStream_t s,
                          hspmv_error *err)
{
    if (n <= 0) return hspmv_ok(err);
    scatter_add_kernel<<<grid_for(n), DIST_THREADS, 0, s>>>(y, row, gy, n);
    return hspmv_cuda_launch_err("scatter_add_kernel", err);
}

/* Block sums in double of up to two products a_j . b_j; the last block to
   finish adds the partial sums in a fixed order (the same result every run). */
static __global__ void dots_kernel(int m, const hspmv_real *__restrict__ a0, const hspmv_real *__restrict__ b0,
                            const hspmv_real *__restrict__ a1, const hspmv_real *__restrict__ b1, int64_t n,
                            double *__restrict__ partial, double *__restrict__ out, unsigned *done)
{
    __shared__ double sh[2][DIST_THREADS / 32];
    __shared__ bool last;
    double s0 = 0, s1 = 0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        s0 += (double)a0[i] * (double)b0[i];
        if (m > 1) s1 += (double)a1[i] * (double)b1[i];
    }
    for (int off = 16; off > 0; off >>= 1) {
        s0 += __shfl_down_sync(HSPMV_FULL_MASK, s0, off);
        s1 += __shfl_down_sync(HSPMV_FULL_MASK, s1, off);
    }
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) {
        sh[0][w] = s0;
        sh[1][w] = s1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double t0 = 0, t1 = 0;
        for (int k = 0; k < DIST_THREADS / 32; k++) {
            t0 += sh[0][k];
            t1 += sh[1][k];
        }
        partial[2 * blockIdx.x] = t0;
        partial[2 * blockIdx.x + 1] = t1;
        __threadfence();
        last = atomicAdd(done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x < 2 && threadIdx.x < m) {
        __threadfence();
        double t = 0;
        for (unsigned b = 0; b < gridDim.x; b++) t += ((volatile double *)partial)[2 * b + threadIdx.x];
        out[threadIdx.x] = t;
    }
    if (last && threadIdx.x == 0) *done = 0; /* ready for the next launch */
}

int64_t hspmv_gpu_dot_scratch(void)
{
    return 2 * DOT_BLOCKS + 1; /* the partial sums, and the block counter in the last slot */
}

int hspmv_gpu_dots(int m, const hspmv_real *const *a, const hspmv_real *const *b, int64_t n, double *partial,
                   double *out, hspmv_error *err)
{
    if (m < 1 || m > 2) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_dots: %d products", m);
    int64_t blocks = (n + DIST_THREADS - 1) / DIST_THREADS;
    if (blocks > DOT_BLOCKS) blocks = DOT_BLOCKS;
    if (blocks < 1) blocks = 1;
    dots_kernel<<<(unsigned)blocks, DIST_THREADS>>>(m, a[0], b[0], m > 1 ? a[1] : a[0], m > 1 ? b[1] : b[0], n,
                                                   partial, out, (unsigned *)(partial + 2 * DOT_BLOCKS));
    return hspmv_cuda_launch_err("dots_kernel", err);
}

static __global__ void axpy_kernel(int64_t n, double alpha, const hspmv_real *__restrict__ x, hspmv_real *__restrict__ y)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] += (hspmv_real)alpha * x[i];
}

static __global__ void xpby_kernel(int64_t n, const hspmv_real *__restrict__ x, double beta, hspmv_real *__restrict__ y)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = x[i] + (hspmv_real)beta * y[i];
}

static __global__ void sub_kernel(int64_t n, const hspmv_real *__restrict__ x, const hspmv_real *__restrict__ y,
                           hspmv_real *__restrict__ z)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        z[i] = x[i] - y[i];
}

int hspmv_gpu_axpy(int64_t n, double alpha, const hspmv_real *x, hspmv_real *y, hspmv_error *err)
{
    if (n <= 0) return hspmv_ok(err);
    axpy_kernel<<<grid_for(n), DIST_THREADS>>>(n, alpha, x, y);
    return hspmv_cuda_launch_err("axpy_kernel", err);
}

int hspmv_gpu_xpby(int64_t n, const hspmv_real *x, double beta, hspmv_real *y, hspmv_error *err)
{
    if (n <= 0) return hspmv_ok(err);
    xpby_kernel<<<grid_for(n), DIST_THREADS>>>(n, x, beta, y);
    return hspmv_cuda_launch_err("xpby_kernel", err);
}

int hspmv_gpu_sub(int64_t n, const hspmv_real *x, const hspmv_real *y, hspmv_real *z, hspmv_error *err)
{
    if (n <= 0) return hspmv_ok(err);
    sub_kernel<<<grid_for(n), DIST_THREADS>>>(n, x, y, z);
    return hspmv_cuda_launch_err("sub_kernel", err);
}

int hspmv_gpu_device_id(unsigned char uuid[16], char *name, size_t name_len, hspmv_error *err)
{
    int dev = 0, rc;
    cudaDeviceProp p;
    if ((rc = hspmv_cuda_err(cudaGetDevice(&dev), "cudaGetDevice", err))) return rc;
    if ((rc = hspmv_cuda_err(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties", err))) return rc;
    memcpy(uuid, p.uuid.bytes, 16);
    if (name && name_len) snprintf(name, name_len, "%s", p.name);
    return hspmv_ok(err);
}
