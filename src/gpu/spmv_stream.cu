/* spmv_stream.cu — short rows, coalesced: each warp owns 32 consecutive rows,
   reads their entries as one contiguous stream (v and ci coalesced, several
   loads in flight per lane), stages the products v_k * x[ci_k] in shared
   memory, and each lane then sums its own row from there. Rows of at least
   long_min entries are skipped (y_i = 0) for the long-row kernel. With
   wdot, each warp also writes the sum over its 32 rows of x_i*y_i (CG's
   p'q on a square matrix) while y_i is in its registers. */
#include "gpu_internal.h"

#define STREAM_THREADS 256
#define STREAM_WARPS (STREAM_THREADS / 32)
#define STREAM_PIECE 256 /* products staged per warp per step: 8 loads in flight per lane */

template <int H>
__global__ void __launch_bounds__(STREAM_THREADS)
spmv_stream_kernel(int64_t n, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                   const hspmv_real *__restrict__ v, const hspmv_real *__restrict__ x,
                   hspmv_real *__restrict__ y, int64_t long_min, int add, double *__restrict__ wdot)
{
    __shared__ hspmv_real buf[STREAM_WARPS][STREAM_PIECE];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int64_t r0 = ((int64_t)blockIdx.x * STREAM_WARPS + w) * 32;
    if (r0 >= n) { /* the whole warp leaves together */
        if (wdot && lane == 0) wdot[(int64_t)blockIdx.x * STREAM_WARPS + w] = 0;
        return;
    }
    const int64_t i = r0 + lane;
    const int64_t rb = i < n ? rp[i] : 0, rf = i < n ? rp[i + 1] : 0;
    const int last = (int)((n - r0 < 32 ? n - r0 : 32) - 1);
    const int64_t e = __shfl_sync(HSPMV_FULL_MASK, rf, last);
    const bool is_long = rf - rb >= long_min;
    /* long rows (left to the long-row kernel) are holes in the warp's stream */
    unsigned holes = __ballot_sync(HSPMV_FULL_MASK, is_long);
    const int64_t b = rb, f = is_long ? rb : rf;
    hspmv_real *p = buf[w];
    const unsigned long long pol = hspmv_x_policy<H>();
    hspmv_real sum = 0;
    int64_t seg = __shfl_sync(HSPMV_FULL_MASK, rb, 0);
    for (;;) {
        const int h = holes ? __ffs(holes) - 1 : -1;
        const int64_t seg_end = h >= 0 ? __shfl_sync(HSPMV_FULL_MASK, rb, h) : e;
        for (int64_t base = seg; base < seg_end; base += STREAM_PIECE) {
            const int64_t top = base + STREAM_PIECE < seg_end ? base + STREAM_PIECE : seg_end;
#pragma unroll
            for (int j = 0; j < STREAM_PIECE / 32; j++) {
                int64_t k = base + j * 32 + lane;
                if (k < top) p[j * 32 + lane] = hspmv_ld_v<H>(&v[k]) * hspmv_ld_x<H>(&x[hspmv_ld_i<H>(&ci[k])], pol);
            }
            __syncwarp();
            /* each lane sums its own row's part of the piece, starting at a
               lane-dependent rotation so that rows of equal length starting
               at a multiple of 16 entries do not hit one shared-memory bank */
            const int64_t lo = b > base ? b : base, hi = f < top ? f : top;
            const int cnt = hi > lo ? (int)(hi - lo) : 0;
            if (cnt > 0) {
                int64_t k = lo + lane % cnt;
                for (int t = 0; t < cnt; t++) {
                    sum += p[k - base];
                    if (++k == hi) k = lo;
                }
            }
            __syncwarp();
        }
        if (h < 0) break;
        seg = __shfl_sync(HSPMV_FULL_MASK, rf, h);
        holes &= holes - 1;
    }
    if (i < n) y[i] = add ? y[i] + sum : sum;
    if (wdot) { /* a fixed order: the same sum every run */
        double d = i < n ? (double)x[i] * (double)sum : 0.0;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) d += __shfl_down_sync(HSPMV_FULL_MASK, d, off);
        if (lane == 0) wdot[(int64_t)blockIdx.x * STREAM_WARPS + w] = d;
    }
}

typedef void stream_fn(int64_t, const int64_t *, const int32_t *, const hspmv_real *,
                       const hspmv_real *, hspmv_real *, int64_t, int, double *);
static stream_fn *const stream_kernels[HSPMV_NHINTS] = {
    spmv_stream_kernel<0>, spmv_stream_kernel<1>, spmv_stream_kernel<2>,
};

int hspmv_gpu_launch_stream(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                            int64_t long_min, int add, hspmv_error *err)
{
    int64_t rows_per_block = 32 * STREAM_WARPS;
    int64_t blocks = (A->nrows + rows_per_block - 1) / rows_per_block;
    if (blocks == 0) return hspmv_ok(err);
    HSPMV_BY_HINTS(A, stream_kernels)<<<(unsigned)blocks, STREAM_THREADS>>>(A->nrows, A->rp, A->ci, A->v, x, y, long_min, add,
                                                                           NULL);
    return hspmv_cuda_launch_err("spmv_stream_kernel", err);
}

int64_t hspmv_gpu_stream_dot_count(int64_t nrows)
{
    return (nrows + 32 * STREAM_WARPS - 1) / (32 * STREAM_WARPS) * STREAM_WARPS;
}

int hspmv_gpu_launch_stream_dot(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y, double *wdot,
                                hspmv_error *err)
{
    int64_t blocks = hspmv_gpu_stream_dot_count(A->nrows) / STREAM_WARPS;
    if (blocks == 0) return hspmv_ok(err);
    HSPMV_BY_HINTS(A, stream_kernels)<<<(unsigned)blocks, STREAM_THREADS>>>(A->nrows, A->rp, A->ci, A->v, x, y, INT64_MAX,
                                                                           0, wdot);
    return hspmv_cuda_launch_err("spmv_stream_kernel", err);
}
