/* spmv_light.cu — LightSpMV vector kernels (Liu & Schmidt): a vector of V
   threads computes one row, V = 2..32; warps take rows from one global
   counter (one atomicAdd per warp per fetch, broadcast with __shfl_sync),
   partial sums meet through __shfl_down_sync, x goes through __ldg. */
#include "gpu_internal.h"

#define LIGHT_THREADS 256
/* Rows each vector takes per fetch: a warp fetches 32/V * LIGHT_U rows, so
   the counter sees about one atomic per 600-800 entries at the table's row
   lengths instead of one per 32/V rows (a single address saturates near one
   atomic per clock, which would cap short-row matrices). */
#define LIGHT_U 4

/* counter[0]: next row; counter[1]: warps finished. The last warp to finish
   zeroes both, so the next launch needs no memset. Rows of at least long_min
   entries get y_i = 0 and are left to the long-row kernel. */
template <int V, int H>
__global__ void __launch_bounds__(LIGHT_THREADS)
spmv_light_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                  const hspmv_real *__restrict__ v, const hspmv_real *__restrict__ x,
                  hspmv_real *__restrict__ y, unsigned *counter, int64_t long_min,
                  unsigned nwarps, int add)
{
    constexpr int VPW = 32 / V;         /* vectors per warp */
    constexpr int F = VPW * LIGHT_U;    /* rows per fetch */
    const int lane = threadIdx.x & 31, vec = lane / V, vl = lane % V;
    const unsigned long long pol = hspmv_x_policy<H>();
    for (;;) {
        unsigned base = 0;
        if (lane == 0) base = atomicAdd(&counter[0], (unsigned)F);
        base = __shfl_sync(HSPMV_FULL_MASK, base, 0);
        if ((int64_t)base >= n) break;
#pragma unroll
        for (int u = 0; u < LIGHT_U; u++) {
            int64_t i = (int64_t)base + u * VPW + vec;
            hspmv_real sum = 0;
            if (i < n) {
                int64_t b = rp[i], e = rp[i + 1];
                if (e - b >= long_min) e = b;
#pragma unroll 4
                for (int64_t k = b + vl; k < e; k += V) sum += hspmv_ld_v<H>(&v[k]) * hspmv_ld_x<H>(&x[hspmv_ld_i<H>(&ci[k])], pol);
            }
#pragma unroll
            for (int off = V / 2; off > 0; off >>= 1)
                sum += __shfl_down_sync(HSPMV_FULL_MASK, sum, off, V);
            if (vl == 0 && i < n) y[i] = add ? y[i] + sum : sum;
        }
    }
    if (lane == 0) {
        __threadfence();
        if (atomicAdd(&counter[1], 1u) == nwarps - 1) {
            atomicExch(&counter[0], 0u);
            atomicExch(&counter[1], 0u);
        }
    }
}

typedef void light_fn(int64_t, const int64_t *, const int32_t *, const hspmv_real *,
                      const hspmv_real *, hspmv_real *, unsigned *, int64_t, unsigned, int);
#define LIGHT_ROW(H) {spmv_light_kernel<2, H>, spmv_light_kernel<4, H>, spmv_light_kernel<8, H>, \
                      spmv_light_kernel<16, H>, spmv_light_kernel<32, H>}
static light_fn *const light_kernels[HSPMV_NHINTS][5] = {LIGHT_ROW(0), LIGHT_ROW(1), LIGHT_ROW(2)};

static int log2_index(int V)
{
    switch (V) {
    case 2: return 0;
    case 4: return 1;
    case 8: return 2;
    case 16: return 3;
    case 32: return 4;
    default: return -1;
    }
}

/* Persistent grids: as many blocks as fit on the device at once. */
int hspmv_gpu_light_grid(hspmv_gpu_csr *A, hspmv_error *err)
{
    int dev, rc;
    if ((rc = hspmv_cuda_err(cudaGetDevice(&dev), "cudaGetDevice", err))) return rc;
    if ((rc = hspmv_cuda_err(cudaDeviceGetAttribute(&A->sm_count, cudaDevAttrMultiProcessorCount, dev),
                             "cudaDeviceGetAttribute", err)))
        return rc;
    for (int t = 0; t < 5; t++) {
        int least = 0;
        for (int h = 0; h < HSPMV_NHINTS; h++) { /* the hint variants may differ in registers */
            int per_sm = 0;
            if ((rc = hspmv_cuda_err(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, light_kernels[h][t], LIGHT_THREADS, 0),
                                     "cudaOccupancyMaxActiveBlocksPerMultiprocessor", err)))
                return rc;
            if (h == 0 || per_sm < least) least = per_sm;
        }
        A->light_blocks[t] = (least > 0 ? least : 1) * A->sm_count;
    }
    /* the counters start at zero; every launch leaves them at zero */
    return hspmv_cuda_err(cudaMemset(A->counter, 0, 2 * sizeof(unsigned)), "cudaMemset counter", err);
}

int hspmv_gpu_launch_light(const hspmv_gpu_csr *A, int V, const hspmv_real *x, hspmv_real *y,
                           int64_t long_min, int add, hspmv_error *err)
{
    int t = log2_index(V);
    if (t < 0) return hspmv_err(err, HSPMV_ERR_ARG, "LightSpMV: no vector width %d", V);
    if (A->nrows == 0) return hspmv_ok(err);
    unsigned blocks = (unsigned)A->light_blocks[t];
    unsigned nwarps = blocks * (LIGHT_THREADS / 32);
    HSPMV_BY_HINTS(A, light_kernels)[t]<<<blocks, LIGHT_THREADS>>>(A->nrows, A->rp, A->ci, A->v, x, y, A->counter,
                                                long_min, nwarps, add);
    return hspmv_cuda_launch_err("spmv_light_kernel", err);
}
