/* gpu_internal.h — private to src/gpu: the device matrix, CUDA error
   reporting, and the kernel launchers each family file provides. */
#ifndef HSPMV_GPU_INTERNAL_H
#define HSPMV_GPU_INTERNAL_H

#include <cuda_runtime.h>
#include "hspmv_gpu.h"
extern "C" {
#include "util.h"
}

#define HSPMV_FULL_MASK 0xffffffffu

/* Long-row split: rows of at least long_min entries are computed in chunks
   of HSPMV_LONG_CHUNK entries, one warp each, added into y. */
#define HSPMV_LONG_CHUNK 1024
#define HSPMV_LONG_THREADS 256

/* Cache hints (A->hints, hspmv_gpu_csr_set_hints), a template argument H
   of every kernel:
   0: v and ci plain loads, x through __ldg (the kernels as first written);
   1: v and ci streamed with ld.global.cs (evict-first in L1 and L2), so the
      matrix, read once, does not push x out of L2; x through __ldg;
   2: as 1, and x loaded under an L2 evict_last policy.
   Mode 1 helps where columns are scattered (gathers from an x larger than
   L2) and costs 15-95% on stencils and bands, where lines of v and ci are
   reused through L1; the upload picks 1 only for scattered columns.
   Long rows with random columns are bound by gathers from x; whether x stays
   in L2 decides their speed (docs/results/2026-11-22-gpu-h100-sweeps.md). */
/* Column panels (AUTO, scattered columns only): each panel's piece of x
   takes at most this share of L2 (20 MB of the H100's 50). Measured on
   8M-column power-law and random matrices (docs/results/2026-11-22-gpu-h100-sweeps.md): 3-4
   panels best in double (16-21 MB of x each), 2-3 in single (16-11 MB);
   this share gives 4 and 2. */
#define HSPMV_PANEL_L2_SHARE 0.4

#define HSPMV_HINTS_DEFAULT 0 /* the upload picks 1 for scattered columns */
#define HSPMV_NHINTS 3

template <int H>
__device__ __forceinline__ hspmv_real hspmv_ld_v(const hspmv_real *p)
{
    if (H >= 1) return __ldcs(p);
    return *p;
}

template <int H>
__device__ __forceinline__ int32_t hspmv_ld_i(const int32_t *p)
{
    if (H >= 1) return __ldcs(p);
    return *p;
}

/* The L2 policy for x under H = 2 (a no-op value elsewhere). */
template <int H>
__device__ __forceinline__ unsigned long long hspmv_x_policy()
{
    unsigned long long pol = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (H >= 2) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
#endif
    return pol;
}

template <int H>
__device__ __forceinline__ hspmv_real hspmv_ld_x(const hspmv_real *p, unsigned long long pol)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (H >= 2) {
        hspmv_real r;
#ifdef HSPMV_SINGLE
        asm("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(r) : "l"(p), "l"(pol));
#else
        asm("ld.global.nc.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(r) : "l"(p), "l"(pol));
#endif
        return r;
    }
#endif
    (void)pol;
    return __ldg(p);
}

struct hspmv_cusparse_state; /* spmv_cusparse.cu */

struct hspmv_gpu_csr {
    int64_t nrows, ncols, nnz;
    int64_t *rp;          /* nrows+1, device */
    int32_t *ci;          /* nnz (at least 1), device */
    hspmv_real *v;        /* nnz (at least 1), device */
    unsigned *counter;    /* 2, device: LightSpMV next row, warps finished */
    /* plan */
    double mean_row;
    int64_t max_row;
    int auto_kernel, light_kernel;
    int auto_cusparse;    /* AUTO hands the product to cuSPARSE (uniform long rows, spmv_hybrid.cu) */
    int64_t long_min, long_min_default;
    int64_t long_rows, nchunks;
    int32_t *chunk_row;   /* nchunks, device: row of each long-row chunk */
    int64_t *chunk_beg;   /* nchunks, device: first entry of the chunk */
    int64_t *chunk_end;   /* nchunks, device: one past its last entry */
    const int64_t *host_rp; /* caller's row pointers, kept only until the plan is made */
    int sm_count;
    int light_blocks[5];  /* persistent grid size of light2..light32 */
    int stream_blocks;
    int hints;            /* cache-hint mode in use: see above */
    int hints_default;    /* what the upload picked */
    int64_t device_bytes;
    double upload_seconds;
    struct hspmv_cusparse_state *sp;
    /* column panels (AUTO only): panel p holds columns [p*panel_cols,
       (p+1)*panel_cols) of every row, absolute column numbers, planned as a
       matrix of its own; AUTO writes y with panel 0 and adds the others */
    int npanels;
    int64_t panel_cols;
    struct hspmv_gpu_csr **panel;
};

/* HSPMV_OK when e == cudaSuccess, else HSPMV_ERR_CUDA with what and the CUDA string. */
int hspmv_cuda_err(cudaError_t e, const char *what, hspmv_error *err);
/* The same for the last launch (cudaGetLastError). */
int hspmv_cuda_launch_err(const char *what, hspmv_error *err);

/* Short-row kernel families. Each writes y[i] = (row i) . x for every row
   i, or adds it into y[i] when add != 0; rows with at least long_min
   entries count as 0 (the long-row kernel adds them in afterwards). */
int hspmv_gpu_launch_naive(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                           int64_t long_min, int add, hspmv_error *err);
int hspmv_gpu_launch_stream(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                            int64_t long_min, int add, hspmv_error *err);
/* The stream kernel on every row (no long-row split), y = A*x, and
   wdot[w] = sum of x_i*y_i over warp w's 32 rows (a square matrix);
   hspmv_gpu_stream_dot_count(nrows) entries of wdot. */
int64_t hspmv_gpu_stream_dot_count(int64_t nrows);
int hspmv_gpu_launch_stream_dot(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y, double *wdot,
                                hspmv_error *err);
int hspmv_gpu_launch_light(const hspmv_gpu_csr *A, int V, const hspmv_real *x, hspmv_real *y,
                           int64_t long_min, int add, hspmv_error *err);
int hspmv_gpu_launch_long(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                          hspmv_error *err);
/* Picks fn[A->hints] (clamped to the known modes). */
#define HSPMV_BY_HINTS(A, fn) ((fn)[(A)->hints >= 0 && (A)->hints < HSPMV_NHINTS ? (A)->hints : HSPMV_HINTS_DEFAULT])
/* Grid sizes from the occupancy calculator, computed once per matrix. */
int hspmv_gpu_light_grid(hspmv_gpu_csr *A, hspmv_error *err);

/* Plans the long-row chunks for A->long_min from host row pointers rp. */
int hspmv_gpu_plan_long(hspmv_gpu_csr *A, const int64_t *rp, hspmv_error *err);
/* The hybrid rule: the kernel id for a mean row length. */
int hspmv_gpu_rule(double mean_row, int allow_short);
/* 1 when AUTO should hand a matrix of this shape to cuSPARSE (spmv_hybrid.cu). */
int hspmv_gpu_rule_cusparse(double mean_row, int64_t max_row, int64_t nlong, int64_t nnz);
/* AUTO's long-row threshold for a kernel and mean row length. */
int64_t hspmv_gpu_long_min(int kernel, double mean_row);

int hspmv_gpu_cusparse_spmv(hspmv_gpu_csr *A, int alg2, const hspmv_real *x, hspmv_real *y,
                            hspmv_error *err);
void hspmv_gpu_cusparse_free(hspmv_gpu_csr *A);

#endif
