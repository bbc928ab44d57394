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

/* ---- several GPUs: one rank per GPU (gpu_dist.c, gpu_dist_spmv.c) ------------
   The distributed matrix of the CPU path (rows as each rank gives them, x
   split like the rows when square, the p2p halo plan of hspmv_dist with its
   compressed ghost rows) with the owned and ghost blocks on this rank's GPU
   in the single-GPU kernels' format. A product packs the x entries others
   need on the device, moves them (NCCL, device pointers to a CUDA-aware
   MPI, or host staging through pinned buffers), multiplies the owned block
   meanwhile on another stream, then adds the ghost block's product. Needs
   MPI (not under HSPMV_NO_MPI). */
#ifndef HSPMV_NO_MPI

/* How the halo moves (hspmv_gpu_dist_opts.comm). */
enum {
    HSPMV_GPU_COMM_AUTO = 0, /* nccl where built with NCCL and every rank has a GPU of its own, else mpi
                                where MPI is CUDA-aware, else host */
    HSPMV_GPU_COMM_NCCL,     /* ncclSend/ncclRecv in one group (one GPU per rank: NCCL refuses shared GPUs) */
    HSPMV_GPU_COMM_MPI,      /* MPI_Isend/Irecv of device pointers (a CUDA-aware MPI only) */
    HSPMV_GPU_COMM_HOST,     /* device -> pinned host buffers -> MPI_Isend/Irecv -> device */
    HSPMV_GPU_NCOMM
};
/* "auto", "nccl", "mpi", "host" ("?" out of range); the id of a name, -1 when unknown. */
const char *hspmv_gpu_comm_name(int comm);
int hspmv_gpu_comm_parse(const char *name);
/* 1 when this library was built with NCCL. */
int hspmv_gpu_nccl_built(void);

typedef struct hspmv_gpu_dist_opts {
    int comm;           /* HSPMV_GPU_COMM_* (default AUTO) */
    int device;         /* -1 (default): local rank on the node % visible devices (the node's ranks
                           from MPI_Comm_split_type shared; CUDA_VISIBLE_DEVICES, as Slurm's
                           --gpus-per-task sets it, decides which are visible); else this device */
    int kernel;         /* HSPMV_GPU_AUTO (default) or another kernel id, for both blocks */
    int mpi_cuda_aware; /* -1 (default): ask MPI (MPIX_Query_cuda_support where mpi-ext.h has it,
                           else "not aware"); 0: treat MPI as not CUDA-aware; 1: trust that it is
                           where MPI cannot tell. An MPI that answers "not aware" is never overruled:
                           comm "mpi" is then HSPMV_ERR_UNSUPPORTED whatever this says */
} hspmv_gpu_dist_opts;
void hspmv_gpu_dist_opts_default(hspmv_gpu_dist_opts *o);

typedef struct hspmv_gpu_dist hspmv_gpu_dist;

/* What a GPU distributed matrix is (this rank's view; global fields agreed). */
typedef struct hspmv_gpu_dist_info {
    int comm;                  /* the halo path in use (never AUTO) */
    int nccl_built;            /* built with NCCL */
    int mpi_cuda_aware;        /* 1 when device pointers go to MPI (asked or trusted) */
    int mpi_query;             /* what MPI said: 1 aware, 0 not, -1 cannot tell */
    int device;                /* this rank's device number */
    int local_rank, local_ranks; /* place on the node, ranks on the node */
    int device_sharers;        /* ranks of the node on this rank's GPU (itself included) */
    int max_device_sharers;    /* the most over all GPUs */
    char device_name[256];
    int64_t nrows, ncols, nnz; /* global */
    int64_t row_begin, nrows_local, col_begin, ncols_local;
    int64_t nnz_owned, nnz_ghost, nghost, nghost_rows;
    int nrecv, nsend;          /* ranks this rank receives from and sends to */
    int64_t send_entries;      /* x entries this rank sends per product */
    int owned_kernel, ghost_kernel; /* what AUTO runs on each block (short rows; -1: empty block) */
    int owned_panels;          /* column panels of the owned block (0: none) */
    int64_t device_bytes;      /* device memory of the blocks and buffers */
} hspmv_gpu_dist_info;

/* Cumulative timing of this rank's products since creation or the last
   reset: CUDA events on the device's timeline, in milliseconds. */
typedef struct hspmv_gpu_dist_timing {
    int64_t calls;
    double pack_ms;     /* packing the send buffer on the device */
    double exchange_ms; /* from packed to the ghost values in device memory (copies and MPI included) */
    double local_ms;    /* the owned block's product (overlaps the exchange) */
    double ghost_ms;    /* the ghost block's product added into y */
    double total_ms;    /* the whole product */
    double halo_bytes;  /* bytes this rank sent */
} hspmv_gpu_dist_timing;

/* Collective: selects the device hspmv_gpu_dist_create gives this rank
   (device -1: local rank on the node % visible devices; else that one) and
   returns it in *dev (-1 on failure); the same status on every rank. */
int hspmv_gpu_dist_device(MPI_Comm comm, int device, int *dev, hspmv_error *err);

/* Collective. rows: this rank's rows (nrows local, ncols GLOBAL, colind
   global 0-based, any order within a row); the rows of rank r follow those
   of rank r-1. Picks the device, uploads the blocks, plans the halo and
   makes the communicator of the path. Every rank returns the same status
   and message (a failed device allocation on one rank is everyone's error). */
int hspmv_gpu_dist_create(MPI_Comm comm, const hspmv_csr *rows, const hspmv_gpu_dist_opts *o,
                          hspmv_gpu_dist **G, hspmv_error *err);
/* Collective, as hspmv_dist_read (rank 0 reads, rows split by nonzeros as
   HSPMV_PART_NNZ does, each rank gets its slice), then hspmv_gpu_dist_create. */
int hspmv_gpu_dist_read(const char *path, MPI_Comm comm, const hspmv_gpu_dist_opts *o, hspmv_gpu_dist **G,
                        hspmv_error *err);
/* Frees everything (collective: NCCL's communicator); NULL is fine. */
void hspmv_gpu_dist_destroy(hspmv_gpu_dist **G);

/* Collective. y = A*x with dx this rank's ncols_local entries and dy its
   nrows_local, both device memory (hspmv_gpu_dist_vec_create). Ordered
   after work on the legacy default stream; returns when y is complete. A
   failure on one rank still takes part in the exchange (no rank is left
   waiting) and is returned on that rank. */
int hspmv_gpu_dist_spmv(hspmv_gpu_dist *G, const hspmv_real *dx, hspmv_real *dy, hspmv_error *err);

/* Device vectors of the layout: which = HSPMV_VEC_ROWS (nrows_local) or
   HSPMV_VEC_COLS (ncols_local); free with hspmv_gpu_vec_destroy. */
int hspmv_gpu_dist_vec_create(const hspmv_gpu_dist *G, int which, hspmv_real **d, hspmv_error *err);

void hspmv_gpu_dist_get_info(const hspmv_gpu_dist *G, hspmv_gpu_dist_info *info);
void hspmv_gpu_dist_get_timing(hspmv_gpu_dist *G, hspmv_gpu_dist_timing *t, int reset);
/* The matrix's own duplicate of the caller's communicator. */
MPI_Comm hspmv_gpu_dist_comm(const hspmv_gpu_dist *G);

/* ---- CG on the GPUs (gpu_cg.c) ------------------------------------------------
   Conjugate gradients with every vector on the device: the product as
   hspmv_gpu_dist_spmv's, queued without a wait, dot products reduced on the
   device (in double) and then by one MPI_Allreduce each (two per iteration,
   the only host waits). The stopping rule of hspmv_solve's CG (docs/api.md):
   converged when ||r_k||/||b|| <= tol and the recomputed ||b - A x_k||/||b|| <= tol,
   else the true residual replaces the recurrence's and the iteration goes on
   from x_k within maxit. db, dx: this rank's rows (square matrices: rows =
   columns); dx holds the initial guess. Collective, the same status everywhere. */
typedef struct hspmv_gpu_cg_result {
    int64_t iterations;
    double relres;      /* the last true ||b - A x|| / ||b|| */
    double seconds;     /* the iterations, wall clock (max over ranks) */
    double spmv_seconds; /* this rank's products on the device (events: its x ready to its y done) */
    int restarts;       /* times the true residual replaced the recurrence's */
    /* where this rank's seconds went besides the products: */
    double vector_seconds; /* the vector kernels on the device (events: dots, updates) */
    double wait_seconds;   /* the host waiting for the device before each reduction (the product's
                              and the kernels' time, seen from the host, plus the copy of the sums) */
    double reduce_seconds; /* in MPI_Allreduce (the device idle meanwhile) */
    int vector_passes;     /* vector passes an iteration besides the product: 11, or 9 where every rank
                              sums p'q inside its product */
} hspmv_gpu_cg_result;
int hspmv_gpu_cg(hspmv_gpu_dist *G, const hspmv_real *db, hspmv_real *dx, double tol, int64_t maxit,
                 hspmv_gpu_cg_result *res, hspmv_error *err);

#endif /* HSPMV_NO_MPI */

#ifdef __cplusplus
}
#endif
#endif /* HSPMV_GPU_H */
