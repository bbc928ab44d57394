/* spmv_hybrid.cu — which kernel runs: the hybrid rule (vector width from the
   mean row length, as in the seed), the long-row split, and the dispatch
   behind hspmv_gpu_spmv. */
#include "gpu_internal.h"
#include "gpu_dev.h"

/* Mean nnz/row up to `upto` -> kernel. The seed's V100 table was
   [0,8] naive, (8,16] V=2, (16,32] 4, (32,64] 8, (64,128] 16, above 32.
   Re-measured on the H100 (docs/results/2026-11-22-gpu-h100-sweeps.md: sweeps over random and
   banded matrices of 64M entries, double, plus the Laplacians): one thread
   per row wins up to ~6 entries (x lines reused through L1), the
   warp-stream kernel from there to ~64 (it beats every vector width on
   random and banded rows and on 3D stencils), V=16 up to 128, V=32 beyond.
   In single precision a row's entries take 8 bytes instead of 12, the
   one-thread-per-row footprint in L1 shrinks, and naive still wins on the
   7-point stencil (0.40 ms vs 0.58 for stream on lap3d:256). */
#ifdef HSPMV_SINGLE
#define NAIVE_UPTO 8
#else
#define NAIVE_UPTO 6
#endif
typedef struct { double upto; int kernel; } rule_row;
static const rule_row auto_rule[] = {
    {NAIVE_UPTO, HSPMV_GPU_NAIVE},
    {64, HSPMV_GPU_STREAM},
    {192, HSPMV_GPU_LIGHT16},
    {1e300, HSPMV_GPU_LIGHT32},
};
/* light16 up to 192 (was 128): on the H200's banded rows of 129 entries
   light16 ran at 0.93 of cuSPARSE and light32 at 0.72; on the H100 light32
   was 7% ahead there. Both rules only matter where cuSPARSE does not take
   the matrix (below) or where the product adds into y. */
/* "light" alone (LightSpMV, no other kernel): the best width by mean on
   the H100's banded sweep, about twice as wide as the seed's table. */
static const rule_row light_rule[] = {
    {10, HSPMV_GPU_LIGHT2},
    {20, HSPMV_GPU_LIGHT4},
    {40, HSPMV_GPU_LIGHT8},
    {100, HSPMV_GPU_LIGHT16},
    {1e300, HSPMV_GPU_LIGHT32},
};

/* allow_short != 0: the hybrid (AUTO) table; 0: the LightSpMV-only table. */
int hspmv_gpu_rule(double mean_row, int allow_short)
{
    const rule_row *r = allow_short ? auto_rule : light_rule;
    size_t n = allow_short ? sizeof(auto_rule) / sizeof(*r) : sizeof(light_rule) / sizeof(*r);
    for (size_t t = 0; t < n; t++)
        if (mean_row <= r[t].upto) return r[t].kernel;
    return HSPMV_GPU_LIGHT32;
}

/* Uniform rows of more than 24 entries (no row split off as long, none
   longer than 1.5x the mean): AUTO hands the product to cuSPARSE
   (cusparseSpMV, default algorithm). On banded rows (runs of 2w+1 columns,
   H200) cuSPARSE reached 0.75-0.83 of the copy rate from 33 entries per row
   on, and the best of our kernels 0.92 (w16, stream), 0.89 (w32, light16)
   and 0.93 (w64, light16) of it; on the H100's random rows of 32-256
   entries it was first or within 0.1% of the first. Short rows stay ours
   (stream 1.01x cuSPARSE on w4, 1.16x on the 7-point stencil), and so do
   rows with long ones among them (the split wins there). cuSPARSE takes
   32-bit row pointers: at most 2^31-1 entries. */
int hspmv_gpu_rule_cusparse(double mean_row, int64_t max_row, int64_t nlong, int64_t nnz)
{
    return nlong == 0 && mean_row > 24 && (double)max_row <= 1.5 * mean_row && nnz <= INT32_MAX;
}

static int vector_width(int kernel)
{
    return kernel >= HSPMV_GPU_LIGHT2 && kernel <= HSPMV_GPU_LIGHT32 ? 2 << (kernel - HSPMV_GPU_LIGHT2) : 1;
}

/* Long for the kernel's vector width and long compared with the mean, so a
   matrix of uniformly long rows is not split. One thread per row (naive,
   stream) hands rows from 128 entries on to the warp-per-chunk kernel: on
   the power-law matrix the stream kernel's lanes summed rows of 64-1023
   entries serially (24% of its entries), docs/results/2026-11-22-gpu-h100-sweeps.md. */
int64_t hspmv_gpu_long_min(int kernel, double mean_row)
{
    int64_t V = vector_width(kernel), m = V == 1 ? 128 : 64 * V > 1024 ? 64 * V : 1024;
    int64_t by_mean = (int64_t)(8.0 * mean_row);
    return by_mean > m ? by_mean : m;
}

/* Short-row kernel k; rows of at least long_min entries count as 0. */
static int run_short(hspmv_gpu_csr *A, int k, const hspmv_real *x, hspmv_real *y,
                     int64_t long_min, int add, hspmv_error *err)
{
    if (k == HSPMV_GPU_NAIVE) return hspmv_gpu_launch_naive(A, x, y, long_min, add, err);
    if (k == HSPMV_GPU_STREAM) return hspmv_gpu_launch_stream(A, x, y, long_min, add, err);
    return hspmv_gpu_launch_light(A, vector_width(k), x, y, long_min, add, err);
}

/* A short-row kernel with long_min (INT64_MAX: no split), then the long rows. */
static int run_split(hspmv_gpu_csr *A, int k, const hspmv_real *x, hspmv_real *y,
                     int64_t long_min, int add, hspmv_error *err)
{
    int rc = run_short(A, k, x, y, long_min, add, err);
    if (rc || long_min == INT64_MAX) return rc;
    return hspmv_gpu_launch_long(A, x, y, err);
}

/* AUTO: cuSPARSE for uniform long rows (hspmv_gpu_rule_cusparse; our
   kernel where the product adds into y), else the planned short-row kernel
   and long-row split; with column panels,
   panel by panel, the first writing y and the others adding into it, so
   each panel's gathers come from a piece of x that stays in L2. */
static int run_auto(hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y, int add, hspmv_error *err)
{
    if (A->npanels == 0 && A->auto_cusparse && !add) return hspmv_gpu_cusparse_spmv(A, 0, x, y, err);
    if (A->npanels == 0)
        return run_split(A, A->auto_kernel, x, y, A->nchunks > 0 ? A->long_min : INT64_MAX, add, err);
    for (int p = 0; p < A->npanels; p++) {
        hspmv_gpu_csr *P = A->panel[p];
        int rc = run_split(P, P->auto_kernel, x, y, P->nchunks > 0 ? P->long_min : INT64_MAX, add || p > 0, err);
        if (rc) return rc;
    }
    return hspmv_ok(err);
}

int hspmv_gpu_spmv(hspmv_gpu_csr *A, int kernel, const hspmv_real *x, hspmv_real *y,
                   hspmv_error *err)
{
    if (!A || (A->ncols > 0 && !x) || (A->nrows > 0 && !y))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_spmv: NULL matrix or vector");
    switch (kernel) {
    case HSPMV_GPU_AUTO:
        return run_auto(A, x, y, 0, err);
    case HSPMV_GPU_LIGHT:
        return run_split(A, A->light_kernel, x, y, INT64_MAX, 0, err);
    case HSPMV_GPU_AUTO_SHORT:
        return run_short(A, A->auto_kernel, x, y, A->nchunks > 0 ? A->long_min : INT64_MAX, 0, err);
    case HSPMV_GPU_AUTO_LONG:
        return hspmv_gpu_launch_long(A, x, y, err);
    case HSPMV_GPU_NAIVE:
    case HSPMV_GPU_STREAM:
    case HSPMV_GPU_LIGHT2:
    case HSPMV_GPU_LIGHT4:
    case HSPMV_GPU_LIGHT8:
    case HSPMV_GPU_LIGHT16:
    case HSPMV_GPU_LIGHT32:
        return run_split(A, kernel, x, y, INT64_MAX, 0, err);
    case HSPMV_GPU_CUSPARSE:
        return hspmv_gpu_cusparse_spmv(A, 0, x, y, err);
    case HSPMV_GPU_CUSPARSE_ALG2:
        return hspmv_gpu_cusparse_spmv(A, 1, x, y, err);
    default:
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_spmv: unknown kernel %d", kernel);
    }
}

int hspmv_gpu_dot_fusable(const hspmv_gpu_csr *A, int kernel)
{
    if (!A || A->nrows != A->ncols || A->nrows == 0) return 0;
    if (kernel == HSPMV_GPU_STREAM) return 1;
    return kernel == HSPMV_GPU_AUTO && A->npanels == 0 && !A->auto_cusparse && A->auto_kernel == HSPMV_GPU_STREAM &&
           A->nchunks == 0;
}

int64_t hspmv_gpu_dot_rows_scratch(int64_t nrows)
{
    return hspmv_gpu_stream_dot_count(nrows);
}

int hspmv_gpu_spmv_dot(hspmv_gpu_csr *A, int kernel, const hspmv_real *x, hspmv_real *y, double *wdot,
                       hspmv_error *err)
{
    if (!hspmv_gpu_dot_fusable(A, kernel) || !x || !y || !wdot)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_spmv_dot: kernel %s does not sum x'y as it goes",
                         hspmv_gpu_kernel_name(kernel));
    return hspmv_gpu_launch_stream_dot(A, x, y, wdot, err);
}

/* The several-GPU path's ghost block adds into y: AUTO and our kernels take
   add; cuSPARSE is run only with add == 0 (beta = 0 in its call). */
int hspmv_gpu_spmv_add(hspmv_gpu_csr *A, int kernel, const hspmv_real *x, hspmv_real *y, int add,
                       hspmv_error *err)
{
    if (!add) return hspmv_gpu_spmv(A, kernel, x, y, err);
    if (!A || (A->ncols > 0 && !x) || (A->nrows > 0 && !y))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_spmv_add: NULL matrix or vector");
    switch (kernel) {
    case HSPMV_GPU_AUTO:
        return run_auto(A, x, y, 1, err);
    case HSPMV_GPU_LIGHT:
        return run_split(A, A->light_kernel, x, y, INT64_MAX, 1, err);
    case HSPMV_GPU_NAIVE:
    case HSPMV_GPU_STREAM:
    case HSPMV_GPU_LIGHT2:
    case HSPMV_GPU_LIGHT4:
    case HSPMV_GPU_LIGHT8:
    case HSPMV_GPU_LIGHT16:
    case HSPMV_GPU_LIGHT32:
        return run_split(A, kernel, x, y, INT64_MAX, 1, err);
    default:
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_spmv_add: kernel %s cannot add into y",
                         hspmv_gpu_kernel_name(kernel));
    }
}
