/* gpu_dist.h — private to src/gpu: the GPU distributed matrix behind
   hspmv_gpu_dist (the CPU path's plan mirrored on the device). Plain C. */
#ifndef HSPMV_GPU_DIST_H
#define HSPMV_GPU_DIST_H

#include <mpi.h>
#include <cuda_runtime_api.h>
#include "hspmv_gpu.h"
#ifdef HSPMV_NCCL
#include <nccl.h>
#endif

/* Timing events of one product (gpu_dist_spmv.c). */
enum { EV_X, EV_PACK0, EV_PACK1, EV_HALO, EV_LOC0, EV_LOC1, EV_GHOST0, EV_GHOST1, EV_N };

struct hspmv_gpu_dist {
    MPI_Comm comm;            /* the plan's duplicate of the caller's (errors returned) */
    int rank, size;
    struct hspmv_dist *D;     /* the CPU path's partition and p2p plan (no prepared blocks) */
    hspmv_gpu_dist_info info;
    hspmv_gpu_dist_timing timing;
    int kernel;
    hspmv_gpu_csr *Ao, *Ag;   /* owned and ghost blocks (NULL when empty) */
    int64_t nsend_entries;    /* D->send_ptr[D->nsend] */
    int32_t *d_send_idx;      /* nsend_entries, device: local x index of each entry sent */
    hspmv_real *d_sendbuf;    /* nsend_entries, device */
    hspmv_real *d_xg;         /* nghost, device: the received ghost values (D's receive order) */
    int64_t *d_ghost_row;     /* nghost_rows, device, when the ghost rows are compressed */
    hspmv_real *d_gy;         /* ghost block's product when it cannot add into y */
    int ghost_into_gy;        /* 1: the ghost product goes to d_gy, then into y */
    hspmv_real *h_send, *h_recv; /* pinned host buffers (comm "host") */
    MPI_Request *req;         /* nrecv + nsend */
    cudaStream_t s_comm;      /* packing and the exchange (non-blocking, highest priority: beside the owned product) */
    cudaEvent_t ev[EV_N];
#ifdef HSPMV_NCCL
    ncclComm_t nccl;
#endif
    int have_nccl;
    int pending;              /* a product launched without waiting whose events are not yet counted */
};

/* gpu_dist_spmv.c: the three halo paths. */
int hspmv_gpu_dist_exchange(hspmv_gpu_dist *G, hspmv_error *err);

/* y = A*x queued on the legacy default stream without waiting for it (CG:
   its next dot product's copy to the host waits anyway); the halo's host
   part (MPI paths) still runs inside. hspmv_gpu_dist_count adds the
   product's event times to G->timing once the device has passed them
   (after any synchronising call); returns its device ms (EV_X to the
   ghost block's end), 0 when none was pending. */
int hspmv_gpu_dist_spmv_nowait(hspmv_gpu_dist *G, const hspmv_real *dx, hspmv_real *dy, hspmv_error *err);
/* 1 where this rank's rows are made by its owned block alone (no ghost
   block) with a kernel that sums x'y as it goes (hspmv_gpu_dot_fusable),
   on a square matrix; then hspmv_gpu_dist_spmv_dot_nowait is the product
   with wdot[w] the sums of x_i*y_i over warp w's rows
   (hspmv_gpu_dot_rows_scratch(nrows_local) doubles, device). */
int hspmv_gpu_dist_dot_fusable(const hspmv_gpu_dist *G);
int hspmv_gpu_dist_spmv_dot_nowait(hspmv_gpu_dist *G, const hspmv_real *dx, hspmv_real *dy, double *wdot,
                                   hspmv_error *err);
double hspmv_gpu_dist_count(hspmv_gpu_dist *G);

#endif
