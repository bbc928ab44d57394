/* gpu_dist.c — the several-GPU matrix made and freed: the CPU path's
   partition and p2p plan (hspmv_dist_plan_rows), this rank's GPU from its
   place on the node, the halo path (NCCL, CUDA-aware MPI, host staging),
   the blocks and buffers on the device. Every failure agreed by all ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "dist.h"
#include "gpu_dist.h"
#include "gpu_dev.h"
#include "util.h"
#include "csr.h"
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

static const char *const comm_names[HSPMV_GPU_NCOMM] = {"auto", "nccl", "mpi", "host"};

const char *hspmv_gpu_comm_name(int comm)
{
    return comm >= 0 && comm < HSPMV_GPU_NCOMM ? comm_names[comm] : "?";
}

int hspmv_gpu_comm_parse(const char *name)
{
    for (int c = 0; name && c < HSPMV_GPU_NCOMM; c++)
        if (!strcmp(name, comm_names[c])) return c;
    return -1;
}

int hspmv_gpu_nccl_built(void)
{
#ifdef HSPMV_NCCL
    return 1;
#else
    return 0;
#endif
}

void hspmv_gpu_dist_opts_default(hspmv_gpu_dist_opts *o)
{
    o->comm = HSPMV_GPU_COMM_AUTO;
    o->device = -1;
    o->kernel = HSPMV_GPU_AUTO;
    o->mpi_cuda_aware = -1;
}

/* What MPI says about device pointers: 1 aware, 0 not, -1 it cannot tell
   (no MPIX_Query_cuda_support). Open MPI built without CUDA compiles the
   query in and answers 0. */
static int mpi_cuda_query(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    return MPIX_Query_cuda_support() ? 1 : 0;
#else
    return -1;
#endif
}

static int cuda_err(cudaError_t e, const char *what, int me, hspmv_error *err)
{
    if (e == cudaSuccess) return HSPMV_OK;
    return hspmv_err(err, HSPMV_ERR_CUDA, "rank %d: %s: %s", me, what, cudaGetErrorString(e));
}

/* This rank's place on its node and the device it takes: local rank %
   visible devices unless one is named; set current. Not agreed. */
static int choose_device(MPI_Comm comm, int device, int *local, int *nlocal, int *dev, hspmv_error *err)
{
    MPI_Comm node = MPI_COMM_NULL;
    int n = 0, me = 0;
    MPI_Comm_rank(comm, &me);
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Comm_split_type failed", me);
    MPI_Comm_rank(node, local);
    MPI_Comm_size(node, nlocal);
    MPI_Comm_free(&node);
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0)
        return hspmv_err(err, HSPMV_ERR_CUDA, "rank %d: no usable CUDA device (%s)", me,
                         e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
    if (device >= n) return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: device %d asked for, %d visible", me, device, n);
    *dev = device >= 0 ? device : *local % n;
    return cuda_err(cudaSetDevice(*dev), "cudaSetDevice", me, err);
}

int hspmv_gpu_dist_device(MPI_Comm comm, int device, int *dev, hspmv_error *err)
{
    int local = 0, nlocal = 0, d = -1;
    if (comm == MPI_COMM_NULL) return hspmv_err(err, HSPMV_ERR_ARG, "MPI_COMM_NULL given as communicator");
    int rc = hspmv_dist_agree(comm, choose_device(comm, device, &local, &nlocal, &d, err), err);
    if (dev) *dev = rc ? -1 : d;
    return rc;
}

/* This rank's device (choose_device), its name, and the node's ranks
   sharing each GPU counted by UUID. Collective, agreed. */
static int pick_device(hspmv_gpu_dist *G, int device, hspmv_error *err)
{
    hspmv_gpu_dist_info *in = &G->info;
    MPI_Comm node = MPI_COMM_NULL;
    unsigned char uuid[16], *all = NULL;
    int rc, me = G->rank;
    rc = choose_device(G->comm, device, &in->local_rank, &in->local_ranks, &in->device, err);
    if (!rc) rc = hspmv_gpu_device_id(uuid, in->device_name, sizeof(in->device_name), err);
    if (!rc && !(all = hspmv_alloc_array((size_t)in->local_ranks, 16))) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(G->comm, rc, err))) goto out;
    MPI_Comm_split_type(G->comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    MPI_Allgather(uuid, 16, MPI_BYTE, all, 16, MPI_BYTE, node);
    MPI_Comm_free(&node);
    in->device_sharers = 0;
    for (int r = 0; r < in->local_ranks; r++) in->device_sharers += !memcmp(all + 16 * r, uuid, 16);
    MPI_Allreduce(&in->device_sharers, &in->max_device_sharers, 1, MPI_INT, MPI_MAX, G->comm);
out:
    hspmv_free(all);
    return rc;
}

/* The halo path from rank 0's choice and what every rank found. Collective;
   the same answer or refusal everywhere (decided from agreed values only). */
static int pick_comm(hspmv_gpu_dist *G, int asked, int trust, hspmv_error *err)
{
    hspmv_gpu_dist_info *in = &G->info;
    int q = mpi_cuda_query(), aware = q == 1 || (q == -1 && trust == 1), all_aware = 0;
    if (trust == 0) aware = 0;
    MPI_Allreduce(&aware, &all_aware, 1, MPI_INT, MPI_MIN, G->comm);
    in->mpi_query = q;
    in->mpi_cuda_aware = all_aware;
    in->nccl_built = hspmv_gpu_nccl_built();
    int shared = in->max_device_sharers > 1;
    switch (asked) {
    case HSPMV_GPU_COMM_AUTO:
        in->comm = in->nccl_built && !shared ? HSPMV_GPU_COMM_NCCL
                 : all_aware ? HSPMV_GPU_COMM_MPI : HSPMV_GPU_COMM_HOST;
        return hspmv_ok(err);
    case HSPMV_GPU_COMM_NCCL:
        if (!in->nccl_built)
            return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "--gpu-comm nccl: this library was built without NCCL "
                             "(nccl.h and libnccl were not found: see docs/gpu.md)");
        if (shared)
            return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "--gpu-comm nccl: %d ranks share one GPU, and NCCL takes "
                             "one GPU per rank; use --gpu-comm host or mpi, or one rank per GPU",
                             in->max_device_sharers);
        break;
    case HSPMV_GPU_COMM_MPI:
        if (!all_aware)
            return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "--gpu-comm mpi: %s; device pointers would crash it "
                             "(use --gpu-comm host or nccl)",
                             q == 0 ? "this MPI says it is not CUDA-aware (MPIX_Query_cuda_support() = 0), "
                                      "which no option overrules"
                             : trust == 0 ? "MPI was declared not CUDA-aware"
                                          : "this MPI cannot tell whether it is CUDA-aware (no "
                                            "MPIX_Query_cuda_support); declare it with --gpu-mpi-aware 1 if it is");
        break;
    case HSPMV_GPU_COMM_HOST:
        break;
    default:
        return hspmv_err(err, HSPMV_ERR_ARG, "unknown GPU halo path %d", asked);
    }
    in->comm = asked;
    return hspmv_ok(err);
}

static int dev_alloc(void **p, int64_t n, size_t size, int me, const char *what, hspmv_error *err)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * size;
    *p = NULL;
    return cuda_err(cudaMalloc(p, bytes), what, me, err);
}

/* The blocks, buffers, stream and events on the device (this rank only). */
static int device_setup(hspmv_gpu_dist *G, const hspmv_csr *Ao, const hspmv_csr *Ag, hspmv_error *err)
{
    hspmv_dist *D = G->D;
    int me = G->rank, rc = HSPMV_OK;
    size_t fb = 0, tb = 0;
    cudaMemGetInfo(&fb, &tb);
    if ((Ao->nnz > 0 && (rc = hspmv_gpu_csr_upload(Ao, &G->Ao, err))) ||
        (Ag->nnz > 0 && (rc = hspmv_gpu_csr_upload(Ag, &G->Ag, err)))) {
        char tmp[sizeof(err->msg)];
        snprintf(tmp, sizeof(tmp), "%s", err->msg);
        return hspmv_err(err, rc, "rank %d: %s", me, tmp);
    }
    int can_add = G->kernel != HSPMV_GPU_CUSPARSE && G->kernel != HSPMV_GPU_CUSPARSE_ALG2;
    G->ghost_into_gy = G->Ag && (D->ghost_row || !can_add);
    G->nsend_entries = D->send_ptr[D->nsend];
    if ((rc = dev_alloc((void **)&G->d_send_idx, G->nsend_entries, sizeof(int32_t), me, "cudaMalloc send index", err)) ||
        (rc = dev_alloc((void **)&G->d_sendbuf, G->nsend_entries, sizeof(hspmv_real), me, "cudaMalloc send buffer", err)) ||
        (rc = dev_alloc((void **)&G->d_xg, D->nghost, sizeof(hspmv_real), me, "cudaMalloc ghost values", err)))
        return rc;
    if (G->nsend_entries > 0 &&
        (rc = cuda_err(cudaMemcpy(G->d_send_idx, D->send_idx, (size_t)G->nsend_entries * sizeof(int32_t),
                                  cudaMemcpyHostToDevice), "copy send index", me, err)))
        return rc;
    if (G->ghost_into_gy &&
        (rc = dev_alloc((void **)&G->d_gy, D->nghost_rows, sizeof(hspmv_real), me, "cudaMalloc ghost rows' product", err)))
        return rc;
    if (D->ghost_row) {
        if ((rc = dev_alloc((void **)&G->d_ghost_row, D->nghost_rows, sizeof(int64_t), me, "cudaMalloc ghost rows", err)))
            return rc;
        if ((rc = cuda_err(cudaMemcpy(G->d_ghost_row, D->ghost_row, (size_t)D->nghost_rows * sizeof(int64_t),
                                      cudaMemcpyHostToDevice), "copy ghost rows", me, err)))
            return rc;
    }
    if (G->info.comm == HSPMV_GPU_COMM_HOST) {
        if ((rc = cuda_err(cudaMallocHost((void **)&G->h_send, (size_t)(G->nsend_entries ? G->nsend_entries : 1) * sizeof(hspmv_real)),
                           "cudaMallocHost send buffer", me, err)) ||
            (rc = cuda_err(cudaMallocHost((void **)&G->h_recv, (size_t)(D->nghost ? D->nghost : 1) * sizeof(hspmv_real)),
                           "cudaMallocHost receive buffer", me, err)))
            return rc;
    }
    /* the halo's stream at the highest priority: its pack and NCCL kernels
       get SMs as soon as blocks of the owned product retire, instead of
       queueing behind the whole grid */
    int least = 0, greatest = 0;
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if ((rc = cuda_err(cudaStreamCreateWithPriority(&G->s_comm, cudaStreamNonBlocking, greatest), "cudaStreamCreate",
                       me, err)))
        return rc;
    for (int e = 0; e < EV_N; e++)
        if ((rc = cuda_err(cudaEventCreate(&G->ev[e]), "cudaEventCreate", me, err))) return rc;
    G->req = hspmv_alloc_array((size_t)(D->nrecv + D->nsend + 1), sizeof(MPI_Request));
    if (!G->req) return hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    size_t fa = 0;
    cudaMemGetInfo(&fa, &tb);
    G->info.device_bytes = fb > fa ? (int64_t)(fb - fa) : 0;
    return cuda_err(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the upload", me, err);
}

/* NCCL's communicator over the plan's ranks, from rank 0's unique id. */
static int nccl_setup(hspmv_gpu_dist *G, hspmv_error *err)
{
#ifdef HSPMV_NCCL
    ncclUniqueId id;
    int rc = HSPMV_OK;
    memset(&id, 0, sizeof(id));
    if (G->rank == 0) {
        ncclResult_t r = ncclGetUniqueId(&id);
        if (r != ncclSuccess) rc = hspmv_err(err, HSPMV_ERR_CUDA, "rank 0: ncclGetUniqueId: %s", ncclGetErrorString(r));
    }
    if ((rc = hspmv_dist_agree(G->comm, rc, err))) return rc;
    if (MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, G->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the NCCL id failed", G->rank);
    if ((rc = hspmv_dist_agree(G->comm, rc, err))) return rc;
    ncclResult_t r = ncclCommInitRank(&G->nccl, G->size, id, G->rank);
    if (r != ncclSuccess)
        rc = hspmv_err(err, HSPMV_ERR_CUDA, "rank %d: ncclCommInitRank: %s", G->rank, ncclGetErrorString(r));
    else G->have_nccl = 1;
    return hspmv_dist_agree(G->comm, rc, err);
#else
    (void)G;
    return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "built without NCCL");
#endif
}

static void fill_info(hspmv_gpu_dist *G)
{
    hspmv_dist *D = G->D;
    hspmv_gpu_dist_info *in = &G->info;
    hspmv_gpu_stats st;
    in->nrows = D->nrows;
    in->ncols = D->ncols;
    in->nnz = D->nnz;
    in->row_begin = D->row_start[G->rank];
    in->col_begin = D->col_start[G->rank];
    in->nrows_local = D->nrows_local;
    in->ncols_local = D->ncols_local;
    in->nnz_owned = D->nnz_owned;
    in->nnz_ghost = D->nnz_ghost;
    in->nghost = D->nghost;
    in->nghost_rows = D->nghost_rows;
    in->nrecv = D->nrecv;
    in->nsend = D->nsend;
    in->send_entries = G->nsend_entries;
    hspmv_gpu_csr_stats(G->Ao, &st);
    in->owned_kernel = G->Ao ? st.auto_kernel : -1;
    in->owned_panels = G->Ao ? st.panels : 0;
    hspmv_gpu_csr_stats(G->Ag, &st);
    in->ghost_kernel = G->Ag ? st.auto_kernel : -1;
}

int hspmv_gpu_dist_create(MPI_Comm comm, const hspmv_csr *rows, const hspmv_gpu_dist_opts *o,
                          hspmv_gpu_dist **Gout, hspmv_error *err)
{
    hspmv_gpu_dist_opts od;
    hspmv_csr Ao = {0}, Ag = {0};
    hspmv_gpu_dist *G = NULL;
    int rc;
    if (!Gout) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_dist_create: G is NULL");
    *Gout = NULL;
    if (!o) {
        hspmv_gpu_dist_opts_default(&od);
        o = &od;
    }
    hspmv_dist *D = NULL;
    if ((rc = hspmv_dist_plan_rows(comm, rows, &D, &Ao, &Ag, err))) return rc;
    G = hspmv_calloc(1, sizeof(*G));
    rc = G ? HSPMV_OK : hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) {
        hspmv_dist_destroy(&D);
        goto out;
    }
    G->D = D;
    G->comm = D->comm;
    G->rank = D->rank;
    G->size = D->size;
    /* rank 0's choices for everyone (the device stays each rank's own) */
    int v[3] = {o->comm, o->kernel, o->mpi_cuda_aware};
    MPI_Bcast(v, 3, MPI_INT, 0, G->comm);
    G->kernel = v[1];
    if (v[0] < 0 || v[0] >= HSPMV_GPU_NCOMM) rc = hspmv_err(err, HSPMV_ERR_ARG, "unknown GPU halo path %d", v[0]);
    else if (v[1] < 0 || v[1] >= HSPMV_GPU_NKERNELS) rc = hspmv_err(err, HSPMV_ERR_ARG, "unknown GPU kernel %d", v[1]);
    else if (v[2] < -1 || v[2] > 1) rc = hspmv_err(err, HSPMV_ERR_ARG, "mpi_cuda_aware is %d (-1, 0 or 1)", v[2]);
    if (rc) goto out; /* the same values everywhere: the same refusal */
    if ((rc = pick_device(G, o->device, err))) goto out;
    if ((rc = pick_comm(G, v[0], v[2], err))) goto out;
    rc = device_setup(G, &Ao, &Ag, err);
    if ((rc = hspmv_dist_agree(G->comm, rc, err))) goto out;
    if (G->info.comm == HSPMV_GPU_COMM_NCCL && (rc = nccl_setup(G, err))) goto out;
    fill_info(G);
out:
    hspmv_csr_free(&Ao);
    hspmv_csr_free(&Ag);
    if (rc) hspmv_gpu_dist_destroy(&G);
    *Gout = G;
    return rc;
}

enum { TAG_RP = 31, TAG_CI, TAG_V };

int hspmv_gpu_dist_read(const char *path, MPI_Comm comm, const hspmv_gpu_dist_opts *o, hspmv_gpu_dist **Gout,
                        hspmv_error *err)
{
    hspmv_csr A = {0}, S = {0};
    hspmv_read_info ri = {0, 0, 0, 0};
    hspmv_read_opts ro = {NULL, NULL, 0};
    int me = 0, P = 1, rc = HSPMV_OK;
    int64_t *start = NULL, *rp = NULL, hdr[2] = {0, 0};
    if (!Gout) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_dist_read: G is NULL");
    *Gout = NULL;
    if (comm == MPI_COMM_NULL) return hspmv_err(err, HSPMV_ERR_ARG, "MPI_COMM_NULL given as communicator");
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    start = hspmv_calloc((size_t)P + 1, sizeof(int64_t));
    if (!start) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if (me == 0 && !rc) {
        if (!path) rc = hspmv_err(err, HSPMV_ERR_ARG, "rank 0: no file name given");
        else rc = hspmv_csr_read(path, &A, &ro, &ri, err);
        if (!rc) {
            int64_t most = 0;
            hspmv_partition_nnz(A.rowptr, A.nrows, P, start);
            for (int p = 1; p < P; p++)
                if (start[p + 1] - start[p] > most) most = start[p + 1] - start[p];
            hdr[0] = A.nrows;
            hdr[1] = A.ncols;
            if (!(rp = hspmv_alloc_array((size_t)most + 1, sizeof(int64_t)))) /* before anyone waits */
                rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for a slice's row pointers");
        }
    }
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    MPI_Bcast(hdr, 2, MPI_INT64_T, 0, comm);
    MPI_Bcast(start, P + 1, MPI_INT64_T, 0, comm);
    int64_t nl = start[me + 1] - start[me];
    /* the row pointers first, then (every rank's room agreed) the entries */
    if (me == 0) {
        for (int p = 1; p < P && !rc; p++) {
            int64_t b = start[p], n = start[p + 1] - b, z0 = A.rowptr[b];
            for (int64_t i = 0; i <= n; i++) rp[i] = A.rowptr[b + i] - z0;
            rc = hspmv_dist_send(rp, n + 1, MPI_INT64_T, p, TAG_RP, comm, "");
        }
        S.nrows = nl;
        S.ncols = A.ncols;
        S.nnz = A.rowptr[nl];
        S.rowptr = A.rowptr; /* rank 0's slice is the start of A: borrowed */
        S.colind = A.colind;
        S.val = A.val;
    } else {
        S.nrows = nl;
        S.ncols = hdr[1];
        S.rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
        if (!S.rowptr) rc = HSPMV_ERR_NOMEM;
        else if (hspmv_dist_recv(S.rowptr, nl + 1, MPI_INT64_T, 0, TAG_RP, comm, "")) rc = HSPMV_ERR_MPI;
        if (!rc) {
            S.nnz = S.rowptr[nl];
            S.colind = hspmv_alloc_array((size_t)(S.nnz ? S.nnz : 1), sizeof(int32_t));
            S.val = hspmv_alloc_array((size_t)(S.nnz ? S.nnz : 1), sizeof(hspmv_real));
            if (!S.colind || !S.val) rc = HSPMV_ERR_NOMEM;
        }
    }
    if (rc) hspmv_err(err, rc, "rank %d: %s its slice of %lld rows", me,
                      rc == HSPMV_ERR_NOMEM ? "out of memory for" : "failed to send or receive", (long long)nl);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if (me == 0) {
        for (int p = 1; p < P && !rc; p++) {
            int64_t z0 = A.rowptr[start[p]], z = A.rowptr[start[p + 1]] - z0;
            rc = hspmv_dist_send(A.colind + z0, z, MPI_INT32_T, p, TAG_CI, comm, "");
            if (!rc) rc = hspmv_dist_send(A.val + z0, z, HSPMV_MPI_REAL, p, TAG_V, comm, "");
        }
    } else if (hspmv_dist_recv(S.colind, S.nnz, MPI_INT32_T, 0, TAG_CI, comm, "") ||
               hspmv_dist_recv(S.val, S.nnz, HSPMV_MPI_REAL, 0, TAG_V, comm, "")) {
        rc = HSPMV_ERR_MPI;
    }
    if (rc) hspmv_err(err, rc, "rank %d: sending the matrix slices failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    rc = hspmv_gpu_dist_create(comm, &S, o, Gout, err);
out:
    if (me != 0) hspmv_csr_free(&S);
    hspmv_csr_free(&A);
    hspmv_free(start);
    hspmv_free(rp);
    return rc;
}

void hspmv_gpu_dist_destroy(hspmv_gpu_dist **Gp)
{
    if (!Gp || !*Gp) return;
    hspmv_gpu_dist *G = *Gp;
#ifdef HSPMV_NCCL
    if (G->have_nccl) ncclCommDestroy(G->nccl);
#endif
    hspmv_gpu_csr_destroy(&G->Ao);
    hspmv_gpu_csr_destroy(&G->Ag);
    cudaFree(G->d_send_idx);
    cudaFree(G->d_sendbuf);
    cudaFree(G->d_xg);
    cudaFree(G->d_ghost_row);
    cudaFree(G->d_gy);
    cudaFreeHost(G->h_send);
    cudaFreeHost(G->h_recv);
    if (G->s_comm) cudaStreamDestroy(G->s_comm);
    for (int e = 0; e < EV_N; e++)
        if (G->ev[e]) cudaEventDestroy(G->ev[e]);
    hspmv_free(G->req);
    hspmv_dist_destroy(&G->D);
    hspmv_free(G);
    *Gp = NULL;
}

int hspmv_gpu_dist_vec_create(const hspmv_gpu_dist *G, int which, hspmv_real **d, hspmv_error *err)
{
    if (!G || (which != HSPMV_VEC_ROWS && which != HSPMV_VEC_COLS))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_dist_vec_create: no matrix or unknown layout %d", which);
    return hspmv_gpu_vec_create(which == HSPMV_VEC_ROWS ? G->info.nrows_local : G->info.ncols_local, d, err);
}

void hspmv_gpu_dist_get_info(const hspmv_gpu_dist *G, hspmv_gpu_dist_info *info)
{
    if (G && info) *info = G->info;
}

void hspmv_gpu_dist_get_timing(hspmv_gpu_dist *G, hspmv_gpu_dist_timing *t, int reset)
{
    if (!G) return;
    if (t) *t = G->timing;
    if (reset) memset(&G->timing, 0, sizeof(G->timing));
}

MPI_Comm hspmv_gpu_dist_comm(const hspmv_gpu_dist *G)
{
    return G ? G->comm : MPI_COMM_NULL;
}
