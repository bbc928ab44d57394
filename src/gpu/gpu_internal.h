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
   of HSPMV_LONG_CHUNK entries, one thread block each, added into y. */
#define HSPMV_LONG_CHUNK 8192
#define HSPMV_LONG_THREADS 256

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
    int64_t long_min, long_min_default;
    int64_t long_rows, nchunks;
    int32_t *chunk_row;   /* nchunks, device: row of each long-row chunk */
    int64_t *chunk_beg;   /* nchunks, device: first entry of the chunk */
    int64_t *chunk_end;   /* nchunks, device: one past its last entry */
    const int64_t *host_rp; /* caller's row pointers, kept only until the plan is made */
    int sm_count;
    int light_blocks[5];  /* persistent grid size of light2..light32 */
    int stream_blocks;
    int64_t device_bytes;
    double upload_seconds;
    struct hspmv_cusparse_state *sp;
};

/* HSPMV_OK when e == cudaSuccess, else HSPMV_ERR_CUDA with what and the CUDA string. */
int hspmv_cuda_err(cudaError_t e, const char *what, hspmv_error *err);
/* The same for the last launch (cudaGetLastError). */
int hspmv_cuda_launch_err(const char *what, hspmv_error *err);

/* Kernel families. Each writes y[i] for every row i; rows with at least
   long_min entries get 0 (the long-row kernel adds them in afterwards). */
int hspmv_gpu_launch_naive(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                           int64_t long_min, hspmv_error *err);
int hspmv_gpu_launch_stream(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                            int64_t long_min, hspmv_error *err);
int hspmv_gpu_launch_light(const hspmv_gpu_csr *A, int V, const hspmv_real *x, hspmv_real *y,
                           int64_t long_min, hspmv_error *err);
int hspmv_gpu_launch_long(const hspmv_gpu_csr *A, const hspmv_real *x, hspmv_real *y,
                          hspmv_error *err);
/* Grid sizes from the occupancy calculator, computed once per matrix. */
int hspmv_gpu_light_grid(hspmv_gpu_csr *A, hspmv_error *err);

/* Plans the long-row chunks for A->long_min from host row pointers rp. */
int hspmv_gpu_plan_long(hspmv_gpu_csr *A, const int64_t *rp, hspmv_error *err);
/* The hybrid rule: the kernel id for a mean row length. */
int hspmv_gpu_rule(double mean_row, int allow_short);
/* AUTO's long-row threshold for a kernel and mean row length. */
int64_t hspmv_gpu_long_min(int kernel, double mean_row);

int hspmv_gpu_cusparse_spmv(hspmv_gpu_csr *A, int alg2, const hspmv_real *x, hspmv_real *y,
                            hspmv_error *err);
void hspmv_gpu_cusparse_free(hspmv_gpu_csr *A);

#endif
