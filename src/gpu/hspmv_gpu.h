/* hspmv_gpu.h — the single-GPU path (make CUDA=1): a CSR matrix on the device,
   y = A*x with the seed's one-thread-per-row kernel, LightSpMV vector kernels,
   a hybrid choice between them, and cuSPARSE on the same data for comparison.
   Plain C: callers need neither nvcc nor the CUDA headers. */
#ifndef HSPMV_GPU_H
#define HSPMV_GPU_H

#include "hspmv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels hspmv_gpu_spmv can run. */
enum {
    HSPMV_GPU_AUTO = 0,       /* hybrid rule: kernel by mean nnz/row, long rows split off */
    HSPMV_GPU_NAIVE,          /* one thread per row (the seed's short-row kernel) */
    HSPMV_GPU_STREAM,         /* one warp per 32 rows, entries staged through shared memory */
    HSPMV_GPU_LIGHT,          /* LightSpMV, V from the mean nnz/row (never one thread) */
    HSPMV_GPU_LIGHT2,         /* LightSpMV with vectors of V = 2 threads per row */
    HSPMV_GPU_LIGHT4,
    HSPMV_GPU_LIGHT8,
    HSPMV_GPU_LIGHT16,
    HSPMV_GPU_LIGHT32,
    HSPMV_GPU_CUSPARSE,       /* cusparseSpMV, CUSPARSE_SPMV_ALG_DEFAULT */
    HSPMV_GPU_CUSPARSE_ALG2,  /* cusparseSpMV, CUSPARSE_SPMV_CSR_ALG2 (merge-based) */
    HSPMV_GPU_NKERNELS
};

/* Timing hooks, not products: AUTO's two parts alone. AUTO_SHORT is the
   short-row kernel (long rows get y_i = 0), AUTO_LONG the long-row chunks
   added into y (y must hold AUTO_SHORT's result for a product). Without long
   rows AUTO_SHORT is AUTO and AUTO_LONG does nothing. */
enum { HSPMV_GPU_AUTO_SHORT = 64, HSPMV_GPU_AUTO_LONG = 65 };

/* Name of a kernel id ("naive", "light8", ...); "?" when out of range. */
const char *hspmv_gpu_kernel_name(int kernel);
/* Kernel id from a name as printed by hspmv_gpu_kernel_name; -1 when unknown. */
int hspmv_gpu_kernel_parse(const char *name);

/* What the device is. */
typedef struct hspmv_gpu_info {
    char name[256];     /* e.g. "NVIDIA H100 80GB HBM3" */
    int sm_count;       /* streaming multiprocessors */
    int cc_major, cc_minor;
    int64_t l2_bytes;   /* L2 cache size */
    int64_t mem_bytes;  /* device memory */
    int runtime_version, driver_version;
} hspmv_gpu_info;

/* Selects device `device` and fills *info (may be NULL). Returns
   HSPMV_ERR_CUDA with the CUDA message when there is no usable GPU. */
int hspmv_gpu_init(int device, hspmv_gpu_info *info, hspmv_error *err);

/* A CSR matrix in device memory plus what the hybrid rule decided. Opaque. */
typedef struct hspmv_gpu_csr hspmv_gpu_csr;

/* Facts about an uploaded matrix. */
typedef struct hspmv_gpu_stats {
    int64_t nrows, ncols, nnz;
    double mean_row;      /* nnz / nrows */
    int64_t max_row;      /* longest row */
    int auto_kernel;      /* what HSPMV_GPU_AUTO runs for the short rows */
    int light_kernel;     /* what HSPMV_GPU_LIGHT runs */
    int64_t long_min;     /* AUTO hands rows of at least this many entries to the long-row kernel */
    int64_t long_rows;    /* rows at or above long_min */
    int64_t long_chunks;  /* blocks the long-row kernel launches */
    int64_t device_bytes; /* device memory held by the matrix (cuSPARSE's extras included once made) */
    double upload_seconds; /* host-to-device copies of the upload, planning excluded */
    int hints;            /* cache-hint mode of the kernels (hspmv_gpu_csr_set_hints) */
    int panels;           /* column panels AUTO runs one after another (0: none) */
    int64_t panel_cols;   /* columns per panel (0: no panels) */
    int panel_kernel;     /* short-row kernel of the first panel (-1: no panels) */
} hspmv_gpu_stats;

/* Copies *A to the device (cudaMalloc, never managed memory) and plans the
   hybrid choice. *dA is NULL on failure. Not thread-safe with other calls on dA. */
int hspmv_gpu_csr_upload(const hspmv_csr *A, hspmv_gpu_csr **dA, hspmv_error *err);

/* AUTO on scattered columns (random, power law) with x larger than a
   quarter of L2: the upload also stores the matrix as column panels whose
   piece of x fits in that quarter, and AUTO runs them one after another,
   adding into y, so that its gathers hit L2 (device memory: a second copy
   of the matrix; skipped when it does not fit). Test and tuning hook:
   rebuild the panels of dA from A, the matrix that was uploaded, with
   panel_cols columns each (0: no panels, -1: the upload's rule). */
int hspmv_gpu_csr_set_panels(hspmv_gpu_csr *dA, const hspmv_csr *A, int64_t panel_cols, hspmv_error *err);

/* Frees everything of *dA (cuSPARSE handles too) and sets *dA to NULL; NULL is fine. */
void hspmv_gpu_csr_destroy(hspmv_gpu_csr **dA);

void hspmv_gpu_csr_stats(const hspmv_gpu_csr *dA, hspmv_gpu_stats *st);

/* Test and tuning hook: rows of at least long_min entries go to the
   long-row kernel under HSPMV_GPU_AUTO (0 = back to the planned default). */
int hspmv_gpu_csr_set_long_min(hspmv_gpu_csr *dA, int64_t long_min, hspmv_error *err);

/* Test and tuning hook: cache hints of every kernel but cuSPARSE.
   0: none (x through the read-only path, v and colind plain loads);
   1: v and colind streamed (ld.global.cs, evict-first), so x stays in L2;
   2: as 1, plus x under an L2 evict_last policy.
   -1: back to what the upload picked (1 for scattered columns, else 0). HSPMV_ERR_ARG for anything else. */
int hspmv_gpu_csr_set_hints(hspmv_gpu_csr *dA, int hints, hspmv_error *err);

/* ---- device vectors --------------------------------------------------------- */

/* Allocates n reals on the device (*d NULL on failure). */
int hspmv_gpu_vec_create(int64_t n, hspmv_real **d, hspmv_error *err);
void hspmv_gpu_vec_destroy(hspmv_real **d);
int hspmv_gpu_vec_upload(hspmv_real *d, const hspmv_real *h, int64_t n, hspmv_error *err);
int hspmv_gpu_vec_download(hspmv_real *h, const hspmv_real *d, int64_t n, hspmv_error *err);
/* Sets every byte of d[0..n) to byte (0xff gives NaNs: a poison for tests). */
int hspmv_gpu_vec_fill_bytes(hspmv_real *d, int byte, int64_t n, hspmv_error *err);

/* ---- the product -------------------------------------------------------------- */

/* y = A*x on the device with the given kernel; dx has ncols entries, dy
   nrows, both from hspmv_gpu_vec_create. Asynchronous on the default stream:
   launch errors are reported, faults surface at the next synchronising call. */
int hspmv_gpu_spmv(hspmv_gpu_csr *dA, int kernel, const hspmv_real *dx, hspmv_real *dy,
                   hspmv_error *err);

/* Runs `warmup` untimed products, then `reps` timed back to back with CUDA
   events; ms[r] is the device time of product r. */
int hspmv_gpu_spmv_time(hspmv_gpu_csr *dA, int kernel, const hspmv_real *dx, hspmv_real *dy,
                        int warmup, int reps, double *ms, hspmv_error *err);

/* Device-to-device copy rate in GB/s counting bytes read plus written:
   cudaMemcpy of `bytes` between two buffers, median of `reps` after one warm-up. */
int hspmv_gpu_copy_rate(size_t bytes, int reps, double *gbs, hspmv_error *err);

/* Waits for the device; returns any pending asynchronous error. */
int hspmv_gpu_sync(hspmv_error *err);

#ifdef __cplusplus
}
#endif
#endif /* HSPMV_GPU_H */
