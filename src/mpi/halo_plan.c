/* halo_plan.c — split one rank's rows into an owned-column block and a
   ghost-column block (ghosts renumbered compactly, PETSc MPIAIJ style), and
   build the plan of who sends which x entries to whom: rank to rank (halo
   "p2p"), or node-aware (halo "node", node_halo.c). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "dist.h"
#include "kernel_select.h"
#include "node.h"
#include "util.h"

#ifdef _OPENMP
#include <omp.h>
static int omp_max_threads(void) { return omp_get_max_threads(); }
#else
static int omp_max_threads(void) { return 1; }
#endif

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int hspmv_dist_owner(const int64_t *cs, int P, int64_t c)
{
    int lo = 0, hi = P - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (cs[mid] <= c) lo = mid;
        else hi = mid - 1;
    }
    while (lo < P - 1 && cs[lo + 1] <= c) lo++; /* skip ranks with no columns */
    return lo;
}

/* Index of c in the sorted g[0..n). */
static int64_t find_i32(const int32_t *g, int64_t n, int32_t c)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (g[m] < c) lo = m + 1;
        else hi = m;
    }
    return lo;
}

static void empty_info(hspmv_local_info *li, int64_t nrows, int64_t ncols)
{
    memset(li, 0, sizeof(*li));
    li->format_name = "none";
    li->isa = "-";
    li->bytes_formula = "-";
    li->nrows = nrows;
    li->ncols = ncols;
}

/* Splits S into the owned block Ao and the ghost block Ag; g gets the
   sorted distinct ghost columns. */
static int split_blocks(const hspmv_csr *S, int64_t cb, int64_t ce, hspmv_csr *Ao, hspmv_csr *Ag,
                        int32_t **g_out, int64_t *ng_out)
{
    int64_t nl = S->nrows, no = 0, ngh = 0, ng = 0;
    const int64_t *rp = S->rowptr;
    const int32_t *ci = S->colind;
    int32_t *g = NULL;
    for (int64_t k = 0; k < S->nnz; k++) {
        if (ci[k] >= cb && ci[k] < ce) no++;
        else ngh++;
    }
    Ao->nrows = Ag->nrows = nl;
    Ao->ncols = ce - cb;
    Ao->nnz = no;
    Ag->nnz = ngh;
    Ao->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    Ao->colind = hspmv_alloc_array((size_t)(no ? no : 1), sizeof(int32_t));
    Ao->val = hspmv_alloc_array((size_t)(no ? no : 1), sizeof(hspmv_real));
    Ag->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    Ag->colind = hspmv_alloc_array((size_t)(ngh ? ngh : 1), sizeof(int32_t));
    Ag->val = hspmv_alloc_array((size_t)(ngh ? ngh : 1), sizeof(hspmv_real));
    g = hspmv_alloc_array((size_t)(ngh ? ngh : 1), sizeof(int32_t));
    if (!Ao->rowptr || !Ao->colind || !Ao->val || !Ag->rowptr || !Ag->colind || !Ag->val || !g) {
        hspmv_free(g);
        return HSPMV_ERR_NOMEM;
    }
    int64_t ko = 0, kg = 0;
    Ao->rowptr[0] = Ag->rowptr[0] = 0;
    for (int64_t i = 0; i < nl; i++) {
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            if (ci[k] >= cb && ci[k] < ce) {
                Ao->colind[ko] = (int32_t)(ci[k] - cb);
                Ao->val[ko++] = S->val[k];
            } else {
                g[kg] = ci[k];
                Ag->colind[kg] = ci[k]; /* global for now */
                Ag->val[kg++] = S->val[k];
            }
        }
        Ao->rowptr[i + 1] = ko;
        Ag->rowptr[i + 1] = kg;
    }
    qsort(g, (size_t)ngh, sizeof(int32_t), cmp_i32);
    for (int64_t k = 0; k < ngh; k++)
        if (ng == 0 || g[ng - 1] != g[k]) g[ng++] = g[k];
    /* renumber compactly; sorted rows stay sorted */
    for (int64_t k = 0; k < ngh; k++) Ag->colind[k] = (int32_t)find_i32(g, ng, Ag->colind[k]);
    Ag->ncols = ng;
    *g_out = g;
    *ng_out = ng;
    return HSPMV_OK;
}

/* Keeps only the ghost block's non-empty rows when they are at most half of
   the rows (PETSc's compressed rows): a stencil's ghost block touches a few
   boundary rows, and walking every row pointer and y entry for them would
   cost as much as a third of the owned block. */
static int compress_ghost_rows(hspmv_dist *D, hspmv_csr *Ag)
{
    int64_t nl = Ag->nrows, nr = 0;
    for (int64_t i = 0; i < nl; i++) nr += Ag->rowptr[i + 1] > Ag->rowptr[i];
    D->nghost_rows = nl;
    if (nr == 0 || 2 * nr > nl) return HSPMV_OK;
    int64_t *rp = hspmv_alloc_array((size_t)nr + 1, sizeof(int64_t));
    D->ghost_row = hspmv_alloc_array((size_t)nr, sizeof(int64_t));
    D->gy = hspmv_alloc_pages((size_t)nr, sizeof(hspmv_real));
    if (!rp || !D->ghost_row || !D->gy) {
        hspmv_free(rp);
        return HSPMV_ERR_NOMEM;
    }
    int64_t n = 0;
    rp[0] = 0;
    for (int64_t i = 0; i < nl; i++)
        if (Ag->rowptr[i + 1] > Ag->rowptr[i]) {
            D->ghost_row[n] = i;
            rp[++n] = Ag->rowptr[i + 1];
        }
    hspmv_free(Ag->rowptr);
    Ag->rowptr = rp;
    Ag->nrows = nr;
    D->nghost_rows = nr;
    return HSPMV_OK;
}

/* Exchanges the requests: each owner learns which of its x entries every
   other rank needs. Collective; all allocations are agreed before waiting. */
static int build_plan(hspmv_dist *D, const int32_t *g, hspmv_error *err)
{
    int P = D->size, me = D->rank, rc = HSPMV_OK, nreq = 0;
    int *rcount = hspmv_calloc((size_t)P, sizeof(int)), *scount = hspmv_calloc((size_t)P, sizeof(int));
    MPI_Request *req = NULL;
    int64_t cb = D->col_start[me];

    if (!rcount || !scount) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the halo plan", me);
    /* ghosts are sorted, so each owner's are one contiguous run */
    if (!rc)
        for (int64_t k = 0; k < D->nghost; k++) rcount[hspmv_dist_owner(D->col_start, P, g[k])]++;
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (MPI_Alltoall(rcount, 1, MPI_INT, scount, 1, MPI_INT, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoall of the halo counts failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;

    int64_t nsend = 0;
    for (int q = 0; q < P; q++) {
        if (rcount[q]) D->nrecv++;
        if (scount[q]) D->nsend++;
        nsend += scount[q];
    }
    D->recv_rank = hspmv_alloc_array((size_t)(D->nrecv + 1), sizeof(int));
    D->recv_ptr = hspmv_alloc_array((size_t)(D->nrecv + 1), sizeof(int64_t));
    D->send_rank = hspmv_alloc_array((size_t)(D->nsend + 1), sizeof(int));
    D->send_ptr = hspmv_alloc_array((size_t)(D->nsend + 1), sizeof(int64_t));
    D->send_idx = hspmv_alloc_pages((size_t)(nsend ? nsend : 1), sizeof(int32_t));
    D->sendbuf = hspmv_alloc_pages((size_t)(nsend ? nsend : 1), sizeof(hspmv_real));
    D->req = hspmv_alloc_array((size_t)(D->nrecv + D->nsend + 1), sizeof(MPI_Request));
    req = hspmv_alloc_array((size_t)(D->nrecv + D->nsend + 1), sizeof(MPI_Request));
    if (!D->recv_rank || !D->recv_ptr || !D->send_rank || !D->send_ptr || !D->send_idx || !D->sendbuf ||
        !D->req || !req)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the halo plan (%lld entries to send)",
                       me, (long long)nsend);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;

    int nr = 0, ns = 0;
    D->recv_ptr[0] = D->send_ptr[0] = 0;
    for (int q = 0; q < P; q++) {
        if (rcount[q]) {
            D->recv_rank[nr] = q;
            D->recv_ptr[nr + 1] = D->recv_ptr[nr] + rcount[q];
            nr++;
        }
        if (scount[q]) {
            D->send_rank[ns] = q;
            D->send_ptr[ns + 1] = D->send_ptr[ns] + scount[q];
            ns++;
        }
    }
    /* the owners receive the global column numbers they must send */
    for (int s = 0; s < D->nsend; s++)
        if (MPI_Irecv(D->send_idx + D->send_ptr[s], scount[D->send_rank[s]], MPI_INT32_T, D->send_rank[s], 7,
                      D->comm, &req[nreq++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    for (int r = 0; r < D->nrecv; r++)
        if (MPI_Isend(g + D->recv_ptr[r], rcount[D->recv_rank[r]], MPI_INT32_T, D->recv_rank[r], 7, D->comm,
                      &req[nreq++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    if (MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) rc = HSPMV_ERR_MPI;
    if (rc) hspmv_err(err, rc, "rank %d: exchanging the halo requests failed", me);
    for (int64_t k = 0; !rc && k < nsend; k++) {
        int64_t c = D->send_idx[k] - cb;
        if (c < 0 || c >= D->ncols_local)
            rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: halo request for column %d it does not own", me,
                           D->send_idx[k]);
        D->send_idx[k] = (int32_t)c;
    }
    rc = hspmv_dist_agree(D->comm, rc, err);
out:
    hspmv_free(rcount);
    hspmv_free(scount);
    hspmv_free(req);
    return rc;
}


/* The owned block, one prepared matrix (one set of arrays, big enough for
   huge pages: ranks of 16 separately allocated pieces of 2 MiB got none), multiplied in
   parts balanced by rows, with message progress between them: one part
   unless this rank has messages in flight during the product; else a part
   per 2^17 nonzeros (2^15 per thread), up to HSPMV_DIST_PIECES_MAX. Open
   MPI's shared-memory transport without a single-copy mechanism (the
   default in containers) moves a large message only while both ranks are
   inside MPI: on 16 ranks of the 200^3 Laplacian, 1 piece waited 33% of the
   product, 4 pieces 14-22%, 8 pieces 1% (README, "Distributed runs").
   HSPMV_TEST's dist_pieces forces a count. */
static int prepare_owned(hspmv_dist *D, const hspmv_csr *Ao, const hspmv_opts *o, int messages, int T,
                         hspmv_error *err)
{
    int np = 1;
    long forced = hspmv_test_int(D->test, "dist_pieces", 0);
    int64_t per = (int64_t)1 << 17;
    if (per < (int64_t)T << 15) per = (int64_t)T << 15;
    if (forced > 0) np = (int)forced;
    else if (messages) np = Ao->nnz / per > HSPMV_DIST_PIECES_MAX ? HSPMV_DIST_PIECES_MAX
                           : Ao->nnz / per < 1 ? 1 : (int)(Ao->nnz / per);
    if (np > HSPMV_DIST_PIECES_MAX) np = HSPMV_DIST_PIECES_MAX;
    D->npieces = np;
    if (Ao->nnz == 0) return HSPMV_OK;
    int rc = hspmv_local_create(Ao, o, &D->Lo, err);
    if (!rc && D->node) hspmv_local_cache_sharers(D->Lo, D->node->shared_ranks); /* the node's ranks stream together */
    return rc;
}

/* Owned rows shared within the node (node_share.c): where the owned block
   is separate (not merged) and the node has several ranks, the last
   owned_share_tail 64ths of every rank's owned block are copied
   into a shared window (in its format where that is CSRP, else CSR), and
   a rank done with its own takes chunks from the others' tails. Default,
   where some rank's owned block has 2^16 entries or more: 32 for ranks
   of one thread, 16 for ranks of several, which also even out their
   threads' speeds among themselves. Why: on the 16-core Xeon VM some
   cores ran their equal shares 1.3-1.5x slower than the rest, different
   ones in each launch and the same ones for every allocation within one
   (the real-valued lap3d 200 at 16 ranks: 12 ranks 3.8-4.4 ms, 4 ranks
   5.6-5.8; a streaming read, 16 processes: 6.0-7.9 GB/s a core), and
   every product waited for them. Half of the block movable at 16x1 was
   faster than a quarter in 3 of 3 launches on one machine (CSRP copies:
   3.99-5.28 ms against 4.38-5.53) and 2 of 2 on another (CSR copies);
   at 4x4 it was slower in 5 of 5. Collective. */
static int share_owned(hspmv_dist *D, const hspmv_csr *Ao, hspmv_error *err)
{
    hspmv_node *N = D->node;
    int64_t nnz = Ao->nnz, most = 0, tail = hspmv_test_int(D->test, "owned_share_tail", -1);
    int ranks = 0, rc;
    MPI_Allreduce(&nnz, &most, 1, MPI_INT64_T, MPI_MAX, D->comm);
    MPI_Allreduce(&N->size, &ranks, 1, MPI_INT, MPI_MAX, D->comm);
    if (tail < 0) tail = most < ((int64_t)1 << 16) ? 0 : N->threads > 1 ? 16 : 32;
    if (N->merged || tail == 0 || ranks < 2) return HSPMV_OK;
    rc = hspmv_node_share_build(D, N, &N->oshare, Ao, D->Lo, (int)tail, "owned block", err);
    if (rc) return rc; /* agreed; hspmv_node_free frees what was built */
    if (N->size < 2) { /* alone on its node: nobody to share with */
        hspmv_node_share_free(&N->oshare);
        return HSPMV_OK;
    }
    hspmv_node_share_kernels(N->oshare, D->Lo);
    N->otail = (int)tail;
    return HSPMV_OK;
}

/* Kernel "auto" on every rank at once, for a group of blocks multiplied
   together (the owned block; the ghost block), made without timing: when some rank holds at
   least min_nnz of them, each rank times every kernel set on its group, and
   all ranks take the set whose slowest rank is fastest. Chosen rank by rank,
   ranks of equal work ended up with different sets (timings taken while all
   ranks run are noisy), and the slowest then set the pace of every product:
   owned-block time max/avg 1.35-1.75 on 16 ranks of the 200^3 Laplacian.
   The ranks time each set together, a barrier before each product, so that
   a set is timed while every core of the node runs it, as in the product:
   timed out of step, 16 ranks of the real-valued lap3d 200 took the AVX-512
   CSRP kernel (5.64 ms a product) where 8x2 and 4x4 took AVX2 (4.67, 4.71)
   and benchmark-omp, whose threads time a set together, AVX2 (4.59; one
   job on the 16-core Xeon, where wide vectors on every core lower the
   clock). The ghost block is timed on its own: its rows hold one or two
   entries, where per-row overhead, not memory, decides. Collective. */
static void barrier(void *comm) { MPI_Barrier(*(MPI_Comm *)comm); }

void hspmv_dist_agree_kernels(hspmv_dist *D, hspmv_local **all, int n, int64_t min_nnz)
{
    const hspmv_kernel_set *sets[8];
    double t[8] = {0}, worst[8];
    int ns = hspmv_kernel_sets(sets, 8), in[2] = {ns, -ns}, out[2], timed;
    int64_t nnz = 0, most = 0;
    for (int c = 0; c < n; c++)
        if (all[c]) {
            hspmv_local_info li;
            hspmv_local_get_info(all[c], &li);
            nnz += li.nnz;
        }
    MPI_Allreduce(&nnz, &most, 1, MPI_INT64_T, MPI_MAX, D->comm);
    MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, D->comm);
    if (most < min_nnz || out[0] < 2 || out[0] != -out[1]) {
        /* too small to time (the registry's first, as kernel "auto" takes
           there), one set, or CPUs that differ: no common choice to make */
        hspmv_local_use_kernels(all, n, 0);
        return;
    }
    int mine = nnz > 0 && nnz >= most / 8; /* ranks with little work abstain (but keep in step) */
    ns = hspmv_local_time_kernels_in_step(all, mine ? n : 0, t, out[0], barrier, &D->comm);
    MPI_Allreduce(&ns, &timed, 1, MPI_INT, MPI_MAX, D->comm);
    if (timed < 2) {
        hspmv_local_use_kernels(all, n, 0);
        return;
    }
    MPI_Allreduce(t, worst, out[0], MPI_DOUBLE, MPI_MAX, D->comm);
    hspmv_local_use_kernels(all, n, hspmv_local_pick_kernels(worst, out[0]));
}

/* The halo mode: o->halo, else node; rank 0's answer for everyone. */
static int halo_mode(hspmv_dist *D, const hspmv_opts *o, int *asked)
{
    int m = o->halo == HSPMV_HALO_NODE || o->halo == HSPMV_HALO_P2P ? o->halo : HSPMV_HALO_AUTO;
    int v[2] = {m, o->halo};
    MPI_Bcast(v, 2, MPI_INT, 0, D->comm);
    *asked = v[0]; /* AUTO, or what was asked for */
    return v[0] == HSPMV_HALO_P2P ? HSPMV_HALO_P2P : HSPMV_HALO_NODE;
}

/* What the p2p plan sends between nodes: this rank's ghosts whose owner is
   on another node, and the distinct such owners. */
static void p2p_volumes(const hspmv_dist *D, hspmv_node *N, const int32_t *g)
{
    int last = -1;
    N->inter_entries_p2p = N->inter_msgs_p2p = 0;
    for (int64_t k = 0; k < D->nghost; k++) {
        int o = hspmv_dist_owner(D->col_start, D->size, g[k]);
        if (N->node_of[o] == N->node) continue;
        N->inter_entries_p2p++;
        N->inter_msgs_p2p += o != last; /* ghosts ascending: an owner's are adjacent */
        last = o;
    }
}

static void empty_info_of(hspmv_local_info *li, const hspmv_local *L, int64_t nrows, int64_t ncols)
{
    if (L) hspmv_local_get_info(L, li);
    else empty_info(li, nrows, ncols);
}

/* The info, agreed once. */
static int fill_info(hspmv_dist *D, hspmv_error *err)
{
    hspmv_dist_info *in = &D->info;
    hspmv_node *N = D->node;
    int me = D->rank, P = D->size, rc = HSPMV_OK;
    in->rank = me;
    in->nranks = P;
    in->partition = D->partition;
    in->permuted = D->permuted;
    in->nrows = D->nrows;
    in->ncols = D->ncols;
    in->row_begin = D->row_start[me];
    in->row_end = D->row_start[me + 1];
    in->col_begin = D->col_start[me];
    in->col_end = D->col_start[me + 1];
    in->nrows_local = D->nrows_local;
    in->ncols_local = D->ncols_local;
    in->nnz_owned = D->nnz_owned;
    in->nnz_ghost = D->nnz_ghost;
    in->nnz_local = D->nnz_owned + D->nnz_ghost;
    in->nghost = D->nghost;
    in->halo = D->halo;
    empty_info_of(&in->owned, D->Lo, D->nrows_local, D->ncols_local);
    in->owned.nrows = D->nrows_local;
    in->nnodes = N->nnodes;
    in->node = N->node;
    in->node_ranks = N->size;
    in->node_ranks_env = N->env_ranks;
    if (D->halo == HSPMV_HALO_P2P) {
        in->nsend = D->send_ptr[D->nsend];
        in->nrecv_ranks = D->nrecv;
        in->nsend_ranks = D->nsend;
        empty_info_of(&in->ghost, D->Lg, D->nghost_rows, D->nghost);
    } else {
        in->nsend = N->send_ptr[N->nsend];
        in->nrecv_ranks = N->nrecv;
        in->nsend_ranks = N->nsend;
        empty_info_of(&in->ghost, N->nb.L, N->nb.nrows, N->gather == HSPMV_GATHER_COPY ? N->nn : N->vec_len);
        in->gather = N->gather;
        in->owned_in_node = N->merged;
        in->window_slots = N->nslots;
        in->node_readers = N->nreaders;
        in->gather_direct_ms = N->t_direct * 1e3;
        in->gather_copy_ms = N->t_copy * 1e3;
        in->gather_share_ms = N->t_share * 1e3;
        in->gather_replica = N->replica;
        in->gather_replica_ms = N->t_replica * 1e3;
        in->owned_share = N->otail;
        in->fold_rows = N->fold_rows;
        in->nnz_node = N->fold_nnz_node; /* those in folded rows */
        if (N->nb.L) {
            hspmv_local_info li;
            hspmv_local_get_info(N->nb.L, &li);
            in->nnz_node += li.nnz;
        }
        if (N->ob.L) {
            hspmv_local_info li;
            hspmv_local_get_info(N->ob.L, &li);
            in->nnz_offnode = li.nnz;
        }
    }
    D->threads = in->owned.threads > 0 ? in->owned.threads : in->ghost.threads > 0 ? in->ghost.threads : 1;
    int64_t mx[2] = {in->nnz_local, in->nghost}, gmx[2];
    int64_t sm[7] = {in->nnz_local, in->nghost, N->inter_entries, N->inter_entries_p2p, N->inter_msgs,
                     N->inter_msgs_p2p, in->fold_rows}, gsm[7];
    int fc[HSPMV_NFORMATS] = {0}, gfc[HSPMV_NFORMATS];
    if (in->owned.nnz > 0 && in->owned.format >= 0 && in->owned.format < HSPMV_NFORMATS) fc[in->owned.format] = 1;
    if (MPI_Allreduce(mx, gmx, 2, MPI_INT64_T, MPI_MAX, D->comm) != MPI_SUCCESS ||
        MPI_Allreduce(sm, gsm, 7, MPI_INT64_T, MPI_SUM, D->comm) != MPI_SUCCESS ||
        MPI_Allreduce(fc, gfc, HSPMV_NFORMATS, MPI_INT, MPI_SUM, D->comm) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &in->gather, 1, MPI_INT, MPI_MAX, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce of the matrix info failed", me);
    else {
        in->nnz_max = gmx[0];
        in->halo_max = gmx[1];
        in->nnz = gsm[0];
        in->halo_total = gsm[1];
        in->internode_entries_node = gsm[2];
        in->internode_entries_p2p = gsm[3];
        in->internode_msgs_node = gsm[4];
        in->internode_msgs_p2p = gsm[5];
        in->fold_rows_total = gsm[6];
        memcpy(in->format_counts, gfc, sizeof(gfc));
        D->nnz = gsm[0];
    }
    return hspmv_dist_agree(D->comm, rc, err);
}

/* Whether the owned columns go into the node block (one pass over the
   rows, and the block is then every rank's whole work, which the ranks of
   a node can share: node_share.c): when, over all ranks, fewer than twice
   as many entries lie in the ranks' own columns as in other columns of
   their node (random columns: 1/16 own at 16 ranks, and an owned block of
   half an entry per row costs a pass over the rows for little work; at 2
   ranks half and half); HSPMV_TEST's merge=0|1 forces it. Collective. */
static int merge_owned(hspmv_dist *D, const hspmv_node *N, const hspmv_csr *Ag, const int32_t *g, int64_t nnz_owned)
{
    int64_t v[2] = {nnz_owned, 0}, sum[2];
    for (int64_t k = 0; k < Ag->nnz; k++)
        v[1] += N->node_of[hspmv_dist_owner(D->col_start, D->size, g[Ag->colind[k]])] == N->node;
    MPI_Allreduce(v, sum, 2, MPI_INT64_T, MPI_SUM, D->comm);
    return (int)hspmv_test_int(D->test, "merge", sum[0] < 2 * sum[1]);
}

/* Ao and Ag as one block M whose columns are the ghost columns with this
   rank's own columns [cb, ce) in their place: gm (ascending, ngm of them). */
static int merge_blocks(const hspmv_csr *Ao, const hspmv_csr *Ag, const int32_t *g, int64_t ng, int64_t cb,
                        int64_t ce, hspmv_csr *M, int32_t **gm, int64_t *ngm)
{
    int64_t nlow = 0, nl = Ao->nrows, own = ce - cb, k = 0;
    while (nlow < ng && g[nlow] < cb) nlow++;
    *ngm = ng + own;
    *gm = hspmv_alloc_array((size_t)(*ngm ? *ngm : 1), sizeof(int32_t));
    M->nrows = nl;
    M->ncols = *ngm;
    M->nnz = Ao->nnz + Ag->nnz;
    M->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    M->colind = hspmv_alloc_array((size_t)(M->nnz ? M->nnz : 1), sizeof(int32_t));
    M->val = hspmv_alloc_array((size_t)(M->nnz ? M->nnz : 1), sizeof(hspmv_real));
    if (!*gm || !M->rowptr || !M->colind || !M->val) return HSPMV_ERR_NOMEM;
    for (int64_t j = 0; j < nlow; j++) (*gm)[j] = g[j];
    for (int64_t c = 0; c < own; c++) (*gm)[nlow + c] = (int32_t)(cb + c);
    for (int64_t j = nlow; j < ng; j++) (*gm)[own + j] = g[j];
    M->rowptr[0] = 0;
    for (int64_t i = 0; i < nl; i++) { /* ghosts below, own, ghosts above: ascending */
        int64_t a = Ag->rowptr[i], ae = Ag->rowptr[i + 1];
        for (; a < ae && Ag->colind[a] < nlow; a++) {
            M->colind[k] = Ag->colind[a];
            M->val[k++] = Ag->val[a];
        }
        for (int64_t o = Ao->rowptr[i]; o < Ao->rowptr[i + 1]; o++) {
            M->colind[k] = (int32_t)(nlow + Ao->colind[o]);
            M->val[k++] = Ao->val[o];
        }
        for (; a < ae; a++) {
            M->colind[k] = (int32_t)(own + Ag->colind[a]);
            M->val[k++] = Ag->val[a];
        }
        M->rowptr[i + 1] = k;
    }
    return HSPMV_OK;
}

/* Prefixes "rank R: " to a message that names no rank (from the local layer). */
static void name_rank(int me, int rc, hspmv_error *err)
{
    if (rc && err && strncmp(err->msg, "rank ", 5) != 0) {
        char tmp[sizeof(err->msg)];
        snprintf(tmp, sizeof(tmp), "%s", err->msg);
        hspmv_err(err, rc, "rank %d: %s", me, tmp);
    }
}

int hspmv_dist_build(hspmv_dist *D, hspmv_csr *S, const hspmv_opts *o, hspmv_error *err)
{
    int me = D->rank, rc = HSPMV_OK, asked;
    hspmv_csr Ao = {0}, Ag = {0};
    int32_t *g = NULL;
    int64_t cb = D->col_start[me], ce = D->col_start[me + 1];
    int T = o->threads > 0 ? o->threads : omp_max_threads();

    D->nrows_local = S->nrows;
    D->ncols_local = ce - cb;
    if (split_blocks(S, cb, ce, &Ao, &Ag, &g, &D->nghost) != HSPMV_OK)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory splitting %lld local rows into blocks", me,
                       (long long)S->nrows);
    hspmv_csr_free(S);
    if (!rc) {
        D->nnz_owned = Ao.nnz;
        D->nnz_ghost = Ag.nnz;
        D->ghost_col = hspmv_alloc_array((size_t)(D->nghost ? D->nghost : 1), sizeof(int64_t));
        D->work = hspmv_alloc_pages((size_t)(D->nrows_local ? D->nrows_local : 1), sizeof(hspmv_real));
        if (!D->ghost_col || !D->work)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld ghost entries", me,
                           (long long)D->nghost);
        else
            for (int64_t k = 0; k < D->nghost; k++) D->ghost_col[k] = g[k];
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if ((rc = hspmv_node_comm(D, o->node_ranks, &D->node, err))) goto out;
    hspmv_node_layout(D, D->node);
    p2p_volumes(D, D->node, g);
    D->halo = halo_mode(D, o, &asked);

    /* kernel "auto": the blocks are made untimed (scalar kernels, nothing to
       time at creation) and hspmv_dist_agree_kernels picks their set, once */
    hspmv_opts ob = *o;
    int timed = !o->kernel || !strcmp(o->kernel, "auto");
    if (timed) ob.kernel = "scalar";
    if (D->halo == HSPMV_HALO_NODE) {
        D->node->threads = T;
        D->node->merged = merge_owned(D, D->node, &Ag, g, Ao.nnz);
        if (D->node->merged) {
            hspmv_csr M = {0};
            int32_t *gm = NULL;
            int64_t ngm = 0;
            if (merge_blocks(&Ao, &Ag, g, D->nghost, cb, ce, &M, &gm, &ngm) != HSPMV_OK)
                rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory merging the owned block", me);
            rc = hspmv_dist_agree(D->comm, rc, err);
            if (!rc) rc = hspmv_node_plan(D, D->node, &M, gm, ngm, NULL, &ob, timed, err);
            hspmv_csr_free(&M);
            hspmv_free(gm);
            if (!rc) { /* nothing left for the owned block */
                hspmv_free(Ao.colind);
                hspmv_free(Ao.val);
                Ao.colind = NULL;
                Ao.val = NULL;
                Ao.nnz = 0;
            }
        } else {
            rc = hspmv_node_plan(D, D->node, &Ag, g, D->nghost, &Ao, &ob, timed, err);
        }
        if (rc == HSPMV_ERR_UNSUPPORTED && asked == HSPMV_HALO_AUTO) { /* no shared windows: p2p */
            hspmv_ok(err);
            hspmv_node_free(&D->node);
            if ((rc = hspmv_node_comm(D, o->node_ranks, &D->node, err))) goto out;
            hspmv_node_layout(D, D->node);
            p2p_volumes(D, D->node, g);
            D->halo = HSPMV_HALO_P2P;
        } else if (rc) {
            goto out;
        }
    }
    if (D->halo == HSPMV_HALO_P2P) {
        D->xg = hspmv_alloc_pages((size_t)(D->nghost ? D->nghost : 1), sizeof(hspmv_real));
        if (!D->xg) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld ghost entries", me,
                                   (long long)D->nghost);
        if (!rc && compress_ghost_rows(D, &Ag) != HSPMV_OK)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory compressing the ghost rows", me);
        if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
        if ((rc = build_plan(D, g, err))) goto out;
        if ((rc = hspmv_node_volumes(D, D->node, g, err))) goto out;
    }

    /* the owned block (and the p2p ghost block) for the node-level kernels */
    int messages = D->halo == HSPMV_HALO_P2P ? D->nrecv + D->nsend > 0 : D->node->nrecv + D->node->nsend > 0;
    rc = prepare_owned(D, &Ao, &ob, messages, T, err);
    if (!rc && D->halo == HSPMV_HALO_P2P && Ag.nnz > 0) rc = hspmv_local_create(&Ag, &ob, &D->Lg, err);
    name_rank(me, rc, err);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (D->halo == HSPMV_HALO_NODE) {
        rc = hspmv_node_fold_prepare(D->node, &ob, D->Lo, err);
        name_rank(me, rc, err);
        if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    }
    if (timed) { /* collective: every rank is here */
        hspmv_local *own[1 + HSPMV_NODE_FOLD_RUNS] = {D->Lo}; /* the owned block and its folded rows: the same rows' kernels */
        int nown = 1;
        for (int r = 0; D->halo == HSPMV_HALO_NODE && r < D->node->nfold; r++)
            own[nown++] = D->node->fold_L[r];
        hspmv_dist_agree_kernels(D, own, nown, (int64_t)1 << 20);
        if (D->halo == HSPMV_HALO_P2P) hspmv_dist_agree_kernels(D, &D->Lg, 1, (int64_t)1 << 15);
    }
    if (D->halo == HSPMV_HALO_NODE && (rc = share_owned(D, &Ao, err))) goto out;
    rc = fill_info(D, err);
out:
    hspmv_csr_free(&Ao);
    hspmv_csr_free(&Ag);
    hspmv_free(g);
    return rc;
}
