/* gpu_dist_spmv.c — y = A*x on several GPUs: the send buffer packed on the
   device (stream s_comm), the owned block's product on the legacy default
   stream meanwhile, the halo moved by NCCL, by a CUDA-aware MPI or through
   pinned host buffers, then the ghost block's product added into y. */
#include <string.h>
#include <cuda_runtime_api.h>
#include "dist.h"
#include "gpu_dist.h"
#include "gpu_dev.h"
#include "util.h"

static int cuda_err(cudaError_t e, const char *what, int me, hspmv_error *err)
{
    if (e == cudaSuccess) return HSPMV_OK;
    return hspmv_err(err, HSPMV_ERR_CUDA, "rank %d: %s: %s", me, what, cudaGetErrorString(e));
}

#ifdef HSPMV_NCCL
#ifdef HSPMV_SINGLE
#define NCCL_REAL ncclFloat
#else
#define NCCL_REAL ncclDouble
#endif
/* One group of sends and receives on s_comm; the ghost values land in
   d_xg in the plan's receive order. */
static int exchange_nccl(hspmv_gpu_dist *G, hspmv_error *err)
{
    hspmv_dist *D = G->D;
    ncclResult_t r = ncclGroupStart();
    for (int i = 0; r == ncclSuccess && i < D->nrecv; i++)
        r = ncclRecv(G->d_xg + D->recv_ptr[i], (size_t)(D->recv_ptr[i + 1] - D->recv_ptr[i]), NCCL_REAL,
                     D->recv_rank[i], G->nccl, G->s_comm);
    for (int i = 0; r == ncclSuccess && i < D->nsend; i++)
        r = ncclSend(G->d_sendbuf + D->send_ptr[i], (size_t)(D->send_ptr[i + 1] - D->send_ptr[i]), NCCL_REAL,
                     D->send_rank[i], G->nccl, G->s_comm);
    ncclResult_t r2 = ncclGroupEnd();
    if (r == ncclSuccess) r = r2;
    if (r != ncclSuccess)
        return hspmv_err(err, HSPMV_ERR_CUDA, "rank %d: NCCL halo exchange: %s", G->rank, ncclGetErrorString(r));
    return HSPMV_OK;
}
#endif

/* MPI_Irecv/Isend of recv and send buffers (device pointers for "mpi",
   pinned host buffers for "host"), then MPI_Waitall. */
static int exchange_mpi(hspmv_gpu_dist *G, hspmv_real *recv, const hspmv_real *send, hspmv_error *err)
{
    hspmv_dist *D = G->D;
    int n = 0, rc = HSPMV_OK;
    for (int i = 0; i < D->nrecv; i++)
        if (MPI_Irecv(recv + D->recv_ptr[i], (int)(D->recv_ptr[i + 1] - D->recv_ptr[i]), HSPMV_MPI_REAL,
                      D->recv_rank[i], 41, G->comm, &G->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    for (int i = 0; i < D->nsend; i++)
        if (MPI_Isend(send + D->send_ptr[i], (int)(D->send_ptr[i + 1] - D->send_ptr[i]), HSPMV_MPI_REAL,
                      D->send_rank[i], 41, G->comm, &G->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    if (MPI_Waitall(n, G->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) rc = HSPMV_ERR_MPI;
    if (rc) return hspmv_err(err, rc, "rank %d: the MPI halo exchange failed", G->rank);
    return HSPMV_OK;
}

/* After the pack on s_comm: the values move; EV_HALO is recorded on s_comm
   once they are in d_xg. A failure before still takes part in the messages. */
int hspmv_gpu_dist_exchange(hspmv_gpu_dist *G, hspmv_error *err)
{
    hspmv_dist *D = G->D;
    int rc = HSPMV_OK, me = G->rank;
    switch (G->info.comm) {
#ifdef HSPMV_NCCL
    case HSPMV_GPU_COMM_NCCL:
        rc = exchange_nccl(G, err);
        break;
#endif
    case HSPMV_GPU_COMM_MPI:
        rc = cuda_err(cudaStreamSynchronize(G->s_comm), "packing the halo", me, err);
        if (exchange_mpi(G, G->d_xg, G->d_sendbuf, rc ? NULL : err) && !rc) rc = HSPMV_ERR_MPI;
        break;
    case HSPMV_GPU_COMM_HOST:
        if (G->nsend_entries > 0)
            rc = cuda_err(cudaMemcpyAsync(G->h_send, G->d_sendbuf, (size_t)G->nsend_entries * sizeof(hspmv_real),
                                          cudaMemcpyDeviceToHost, G->s_comm), "halo to host", me, err);
        if (!rc) rc = cuda_err(cudaStreamSynchronize(G->s_comm), "halo to host", me, err);
        if (exchange_mpi(G, G->h_recv, G->h_send, rc ? NULL : err) && !rc) rc = HSPMV_ERR_MPI;
        if (!rc && D->nghost > 0)
            rc = cuda_err(cudaMemcpyAsync(G->d_xg, G->h_recv, (size_t)D->nghost * sizeof(hspmv_real),
                                          cudaMemcpyHostToDevice, G->s_comm), "halo to device", me, err);
        break;
    default:
        rc = hspmv_err(err, HSPMV_ERR_ARG, "rank %d: no halo path %d", me, G->info.comm);
    }
    cudaError_t e = cudaEventRecord(G->ev[EV_HALO], G->s_comm);
    if (!rc) rc = cuda_err(e, "cudaEventRecord", me, err);
    return rc;
}

static double elapsed(hspmv_gpu_dist *G, int a, int b)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, G->ev[a], G->ev[b]) == cudaSuccess ? ms : 0;
}

/* The events of the last product into G->timing (the device is past them). */
double hspmv_gpu_dist_count(hspmv_gpu_dist *G)
{
    if (!G || !G->pending) return 0;
    G->pending = 0;
    hspmv_gpu_dist_timing *t = &G->timing;
    double total = elapsed(G, EV_X, EV_GHOST1);
    t->calls++;
    t->pack_ms += elapsed(G, EV_PACK0, EV_PACK1);
    t->exchange_ms += elapsed(G, EV_PACK1, EV_HALO);
    t->local_ms += elapsed(G, EV_LOC0, EV_LOC1);
    t->ghost_ms += elapsed(G, EV_GHOST0, EV_GHOST1);
    t->total_ms += total;
    t->halo_bytes += (double)G->nsend_entries * sizeof(hspmv_real);
    return total;
}

/* The product queued; wait: 1 to wait for it and count its times; wdot
   (hspmv_gpu_dist_dot_fusable): the owned block's warps' sums of x_i*y_i too. */
static int product(hspmv_gpu_dist *G, const hspmv_real *dx, hspmv_real *dy, int wait, double *wdot,
                   hspmv_error *err)
{
    if (!G || (G->info.ncols_local > 0 && !dx) || (G->info.nrows_local > 0 && !dy))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_dist_spmv: NULL matrix or vector");
    hspmv_dist *D = G->D;
    hspmv_error e2;
    int me = G->rank, rc = HSPMV_OK;
    cudaStream_t s0 = 0;
    hspmv_gpu_dist_count(G); /* a product before this one, not waited for: its events are reused */ /* legacy default stream: the caller's work and the products */
    /* x is ready when the default stream's work so far is done */
    rc = cuda_err(cudaEventRecord(G->ev[EV_X], s0), "cudaEventRecord", me, err);
    if (!rc) rc = cuda_err(cudaStreamWaitEvent(G->s_comm, G->ev[EV_X], 0), "cudaStreamWaitEvent", me, err);
    cudaEventRecord(G->ev[EV_PACK0], G->s_comm);
    if (!rc) rc = hspmv_gpu_pack(dx, G->d_send_idx, G->nsend_entries, G->d_sendbuf, G->s_comm, err);
    cudaEventRecord(G->ev[EV_PACK1], G->s_comm);
    /* the owned block while the halo moves */
    cudaEventRecord(G->ev[EV_LOC0], s0);
    if (!rc && G->Ao && wdot) rc = hspmv_gpu_spmv_dot(G->Ao, G->kernel, dx, dy, wdot, err);
    else if (!rc && G->Ao) rc = hspmv_gpu_spmv(G->Ao, G->kernel, dx, dy, err);
    else if (!rc && G->info.nrows_local > 0)
        rc = cuda_err(cudaMemsetAsync(dy, 0, (size_t)G->info.nrows_local * sizeof(hspmv_real), s0), "cudaMemsetAsync y",
                      me, err);
    cudaEventRecord(G->ev[EV_LOC1], s0);
    int xrc = hspmv_gpu_dist_exchange(G, rc ? &e2 : err);
    if (!rc) rc = xrc;
    /* the ghost block once its x is there */
    if (!rc) rc = cuda_err(cudaStreamWaitEvent(s0, G->ev[EV_HALO], 0), "cudaStreamWaitEvent", me, err);
    cudaEventRecord(G->ev[EV_GHOST0], s0);
    if (!rc && G->Ag && !G->ghost_into_gy) rc = hspmv_gpu_spmv_add(G->Ag, G->kernel, G->d_xg, dy, 1, err);
    else if (!rc && G->Ag) {
        rc = hspmv_gpu_spmv(G->Ag, G->kernel, G->d_xg, G->d_gy, err);
        if (!rc && G->d_ghost_row) rc = hspmv_gpu_scatter_add(dy, G->d_ghost_row, G->d_gy, D->nghost_rows, s0, err);
        else if (!rc) rc = hspmv_gpu_axpy(D->nghost_rows, 1.0, G->d_gy, dy, err);
    }
    cudaError_t ce = cudaEventRecord(G->ev[EV_GHOST1], s0);
    if (!rc) rc = cuda_err(ce, "cudaEventRecord", me, err);
    if (!rc && wait) rc = cuda_err(cudaEventSynchronize(G->ev[EV_GHOST1]), "the product on the device", me, err);
    if (rc) return rc;
    G->pending = 1;
    if (wait) hspmv_gpu_dist_count(G);
    return hspmv_ok(err);
}

int hspmv_gpu_dist_spmv(hspmv_gpu_dist *G, const hspmv_real *dx, hspmv_real *dy, hspmv_error *err)
{
    return product(G, dx, dy, 1, NULL, err);
}

int hspmv_gpu_dist_spmv_nowait(hspmv_gpu_dist *G, const hspmv_real *dx, hspmv_real *dy, hspmv_error *err)
{
    return product(G, dx, dy, 0, NULL, err);
}

int hspmv_gpu_dist_dot_fusable(const hspmv_gpu_dist *G)
{
    const hspmv_dist *D = G ? G->D : NULL;
    return D && !G->Ag && G->Ao && D->nrows == D->ncols && D->nrows_local == D->ncols_local &&
           D->row_start[D->rank] == D->col_start[D->rank] && hspmv_gpu_dot_fusable(G->Ao, G->kernel);
}

int hspmv_gpu_dist_spmv_dot_nowait(hspmv_gpu_dist *G, const hspmv_real *dx, hspmv_real *dy, double *wdot,
                                   hspmv_error *err)
{
    if (!hspmv_gpu_dist_dot_fusable(G) || !wdot)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_dist_spmv_dot_nowait: the product cannot sum x'y as it goes");
    return product(G, dx, dy, 0, wdot, err);
}
