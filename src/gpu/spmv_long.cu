/* spmv_long.cu — the long-row split of the hybrid path: every row of at least
   long_min entries is cut into chunks of HSPMV_LONG_CHUNK entries, a warp
   reduces each chunk and adds it into y_i (which the short-row kernel
   set to 0), so one huge row no longer serialises on one vector. */
#include "gpu_internal.h"

/* H: cache hints (gpu_internal.h). One warp per chunk (8 per block): each
   lane takes every 32nd entry, eight at a time (eight index loads in flight,
   then eight gathers from x), the warp reduces with shuffles and lane 0 adds
   the chunk into y_i. */
template <int H>
__global__ void __launch_bounds__(HSPMV_LONG_THREADS)
spmv_long_kernel(int64_t nchunks, const int32_t *__restrict__ crow, const int64_t *__restrict__ cb,
                 const int64_t *__restrict__ ce, const int32_t *__restrict__ ci,
                 const hspmv_real *__restrict__ v, const hspmv_real *__restrict__ x,
                 hspmv_real *__restrict__ y)
{
    constexpr int U = 8;
    const int64_t c = (int64_t)blockIdx.x * (HSPMV_LONG_THREADS / 32) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (c >= nchunks) return; /* the whole warp leaves together */
    const int64_t e = ce[c];
    const unsigned long long pol = hspmv_x_policy<H>();
    hspmv_real sum = 0;
    int64_t k = cb[c] + lane;
    for (; k + (U - 1) * 32 < e; k += U * 32) {
        int32_t cc[U];
        hspmv_real vv[U];
#pragma unroll
        for (int j = 0; j < U; j++) {
            cc[j] = hspmv_ld_i<H>(&ci[k + j * 32]);
            vv[j] = hspmv_ld_v<H>(&v[k + j * 32]);
        }
#pragma unroll
        for (int j = 0; j < U; j++) sum += vv[j] * hspmv_ld_x<H>(&x[cc[j]], pol);
    }
    for (; k < e; k += 32) sum += hspmv_ld_v<H>(&v[k]) * hspmv_ld_x<H>(&x[hspmv_ld_i<H>(&ci[k])], pol);
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(HSPMV_FULL_MASK, sum, off);
    if (lane == 0) atomicAdd(&y[crow[c]], sum);
}

typedef void long_fn(int64_t, const int32_t *, const int64_t *, const int64_t *, const int32_t *,
                     const hspmv_real *, const hspmv_real *, hspmv_real *);
static long_fn *const long_kernels[HSPMV_NHINTS] = {
    spmv_long_kernel<0>, spmv_long_kernel<1>, spmv_long_kernel<2>,
};

int hspmv_gpu_launch_long(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                          hspmv_error *err)
{
    if (A->nchunks == 0) return hspmv_ok(err);
    const int64_t per_block = HSPMV_LONG_THREADS / 32, blocks = (A->nchunks + per_block - 1) / per_block;
    if (blocks > INT32_MAX)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "long-row kernel: %lld chunks", (long long)A->nchunks);
    HSPMV_BY_HINTS(A, long_kernels)<<<(unsigned)blocks, HSPMV_LONG_THREADS>>>(
        A->nchunks, A->chunk_row, A->chunk_beg, A->chunk_end, A->ci, A->v, x, y);
    return hspmv_cuda_launch_err("spmv_long_kernel", err);
}
