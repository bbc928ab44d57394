/* gpu_dist_kernels.cu — the small device kernels of the several-GPU path
   and of CG on the GPUs: packing the halo's send buffer, adding the
   compressed ghost rows into y, dot products and vector updates. */
#include <stdio.h>
#include <string.h>
#include "gpu_internal.h"
#include "gpu_dev.h"

#define DIST_THREADS 256
#define DOT_BLOCKS 4096 /* partial sums per dot product at most: one full wave on any GPU here */

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

/* Run by every thread of the last block: out[j] = the sum of the nb block
   sums partial[2b + j], in a fixed order (each thread a fixed share, then
   a fixed tree), so the same on every run; all the block's threads load,
   where one thread alone would wait on nb loads in turn. */
static __device__ void last_block_sum(const double *partial, int j, unsigned nb, double *out)
{
    __shared__ double sh[DIST_THREADS / 32];
    double t = 0;
    for (unsigned b = threadIdx.x; b < nb; b += blockDim.x) t += ((volatile const double *)partial)[2 * b + j];
    for (int off = 16; off > 0; off >>= 1) t += __shfl_down_sync(HSPMV_FULL_MASK, t, off);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = t;
    __syncthreads();
    if (threadIdx.x == 0) {
        double u = 0;
        for (int k = 0; k < DIST_THREADS / 32; k++) u += sh[k];
        out[j] = u;
    }
    __syncthreads();
}

/* Run by every thread at the end of a grid-stride reduction kernel with
   its own sums s0 (and s1 when m = 2): the block's sums go to partial[2b],
   partial[2b + 1]; the last block to finish adds all blocks' in a fixed
   order into out[0..m) and resets the counter done for the next launch. */
static __device__ void finish_sums(int m, double s0, double s1, double *partial, double *out, unsigned *done)
{
    __shared__ double sh[2][DIST_THREADS / 32];
    __shared__ bool last;
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
    if (last) { /* the same for the whole block */
        __threadfence();
        for (int j = 0; j < m; j++) last_block_sum(partial, j, gridDim.x, out);
        if (threadIdx.x == 0) *done = 0; /* ready for the next launch */
    }
}

/* Block sums in double of up to two products a_j . b_j; the last block to
   finish adds the partial sums in a fixed order (the same result every run). */
static __global__ void dots_kernel(int m, const hspmv_real *__restrict__ a0, const hspmv_real *__restrict__ b0,
                            const hspmv_real *__restrict__ a1, const hspmv_real *__restrict__ b1, int64_t n,
                            double *__restrict__ partial, double *__restrict__ out, unsigned *done)
{
    double s0 = 0, s1 = 0;
    const int64_t st = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    /* four strides at once: their loads in flight together (one at a time,
       the grid's few blocks wait on memory latency, not bandwidth) */
    for (; i + 3 * st < n; i += 4 * st) {
        hspmv_real a[4], b[4];
        for (int u = 0; u < 4; u++) a[u] = a0[i + u * st], b[u] = b0[i + u * st];
        for (int u = 0; u < 4; u++) s0 += (double)a[u] * (double)b[u];
        if (m > 1) {
            for (int u = 0; u < 4; u++) a[u] = a1[i + u * st], b[u] = b1[i + u * st];
            for (int u = 0; u < 4; u++) s1 += (double)a[u] * (double)b[u];
        }
    }
    for (; i < n; i += st) {
        s0 += (double)a0[i] * (double)b0[i];
        if (m > 1) s1 += (double)a1[i] * (double)b1[i];
    }
    finish_sums(m, s0, s1, partial, out, done);
}

/* The sum of n doubles, summed like dots_kernel (the warps' sums of the
   fused product, hspmv_gpu_spmv_dot). */
static __global__ void sum_kernel(const double *__restrict__ a, int64_t n, double *__restrict__ partial,
                                  double *__restrict__ out, unsigned *done)
{
    double s = 0;
    const int64_t st = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += st) s += a[i];
    finish_sums(1, s, 0, partial, out, done);
}

/* Blocks of a grid-stride reduction kernel: one full wave of the device
   (its SMs times the blocks of the kernel one SM holds at once), so that no
   second, partial wave of blocks runs while most SMs idle (with 1024
   blocks and a one-thread final sum, CG's vector kernels ran at half the
   copy rate on an H200); at most DOT_BLOCKS and the blocks n needs. */
static int64_t wave_blocks(const void *kernel, int which, int64_t n)
{
    static int cached_dev[3] = {-1, -1, -1}; /* the answer for the last device asked, per kernel */
    static int64_t cached[3];
    int dev = 0, sms = 0, per = 0;
    int64_t need = (n + DIST_THREADS - 1) / DIST_THREADS, b = DOT_BLOCKS;
    if (cudaGetDevice(&dev) == cudaSuccess && dev == cached_dev[which]) {
        b = cached[which];
    } else {
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, DIST_THREADS, 0) == cudaSuccess && sms * per > 0) {
            b = (int64_t)sms * per;
            cached_dev[which] = dev;
            cached[which] = b;
        }
        cudaGetLastError(); /* a failed query leaves DOT_BLOCKS, not an error for the next launch */
    }
    if (b > DOT_BLOCKS) b = DOT_BLOCKS;
    if (b > need) b = need;
    return b < 1 ? 1 : b;
}

int64_t hspmv_gpu_dot_scratch(void)
{
    return 2 * DOT_BLOCKS + 1; /* the partial sums, and the block counter in the last slot */
}

int hspmv_gpu_dots(int m, const hspmv_real *const *a, const hspmv_real *const *b, int64_t n, double *partial,
                   double *out, hspmv_error *err)
{
    if (m < 1 || m > 2) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_dots: %d products", m);
    int64_t blocks = wave_blocks((const void *)dots_kernel, 0, n);
    dots_kernel<<<(unsigned)blocks, DIST_THREADS>>>(m, a[0], b[0], m > 1 ? a[1] : a[0], m > 1 ? b[1] : b[0], n,
                                                   partial, out, (unsigned *)(partial + 2 * DOT_BLOCKS));
    return hspmv_cuda_launch_err("dots_kernel", err);
}

int hspmv_gpu_sum(const double *a, int64_t n, double *partial, double *out, hspmv_error *err)
{
    int64_t blocks = wave_blocks((const void *)sum_kernel, 2, n);
    sum_kernel<<<(unsigned)blocks, DIST_THREADS>>>(a, n, partial, out, (unsigned *)(partial + 2 * DOT_BLOCKS));
    return hspmv_cuda_launch_err("sum_kernel", err);
}

/* CG's update in one pass: x += alpha*p, r -= alpha*q, and r'r of the new
   r in double, summed like dots_kernel (the last block adds the partial
   sums in a fixed order): 4 vectors read and 2 written, where two axpys
   and a dot product read 7 and write 2. */
static __global__ void cg_update_kernel(int64_t n, double alpha, const hspmv_real *__restrict__ p,
                                        const hspmv_real *__restrict__ q, hspmv_real *__restrict__ x,
                                        hspmv_real *__restrict__ r, double *__restrict__ partial,
                                        double *__restrict__ out, unsigned *done)
{
    const hspmv_real a = (hspmv_real)alpha;
    double s = 0;
    const int64_t st = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * st < n; i += 4 * st) { /* four strides' loads in flight together, as dots_kernel */
        hspmv_real pu[4], qu[4], xu[4], ru[4];
        for (int u = 0; u < 4; u++) pu[u] = p[i + u * st], qu[u] = q[i + u * st], xu[u] = x[i + u * st], ru[u] = r[i + u * st];
        for (int u = 0; u < 4; u++) {
            x[i + u * st] = xu[u] + a * pu[u];
            ru[u] -= a * qu[u];
            r[i + u * st] = ru[u];
            s += (double)ru[u] * (double)ru[u];
        }
    }
    for (; i < n; i += st) {
        x[i] += a * p[i];
        hspmv_real ri = r[i] - a * q[i];
        r[i] = ri;
        s += (double)ri * (double)ri;
    }
    finish_sums(1, s, 0, partial, out, done);
}

int hspmv_gpu_cg_update(int64_t n, double alpha, const hspmv_real *p, const hspmv_real *q, hspmv_real *x,
                        hspmv_real *r, double *partial, double *out, hspmv_error *err)
{
    int64_t blocks = wave_blocks((const void *)cg_update_kernel, 1, n);
    cg_update_kernel<<<(unsigned)blocks, DIST_THREADS>>>(n, alpha, p, q, x, r, partial, out,
                                                        (unsigned *)(partial + 2 * DOT_BLOCKS));
    return hspmv_cuda_launch_err("cg_update_kernel", err);
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
