/* node_gather.c — how a rank reads the x entries of the other ranks of its
   node and the off-node ghosts: gathered by its blocks straight from the
   shared window (no copy; but the window lives on 4 KiB pages wherever
   /sys/kernel/mm/transparent_hugepage/shmem_enabled is "never", and random
   gathers over a large x then miss the TLB), or first copied, one pass, into
   a private huge-page buffer of just the entries it needs, which its blocks
   gather from; or direct with the node block's rows shared by the ranks of
   the node while a product runs (node_share.c), where that was built. The
   plan times each on every rank at once (the fastest of 8 products, after
   2 untimed, each variant in a block of its own) and keeps shared rows
   where built, else direct, unless copy's slowest rank is more than 10%
   faster. On top of direct or shared rows, a replica: each product every
   rank first copies the node's x parts, whole and contiguous, into a
   private huge-page vector and gathers from that; worth it where the node
   block reads most of x (random columns) and several threads share each
   rank's gathers (hybrid splits, one job on the 16-core machine: direct
   from the window took 26-30 ms at 8x2 and 4x4 where shared rows took
   13-15 ms and benchmark-omp 10-11). */
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "node.h"
#include "util.h"

enum { TIMED_REPS = 8 };

/* The x the plan times with: parity buffer 0, every rank's part set as a
   caller's x would be (collective over the node). */
static hspmv_real *timing_x(hspmv_dist *D, hspmv_node *N)
{
    hspmv_real *xb = N->vecs + (int64_t)N->nslots * N->vec_stride;
    for (int64_t j = 0; j < D->ncols_local; j++) xb[N->part_off[N->rank] + j] = 1;
    MPI_Barrier(N->comm);
    return xb;
}

/* One timed product of a variant's node and off-node blocks (from node
   vector xb and the ghost area), all ranks at once: the bandwidth they
   share is real. Shared rows are opened on every rank before any claims.
   Seconds. */
static double timed_product(hspmv_dist *D, hspmv_node *N, int gather, const node_block *blk, const hspmv_real *xb)
{
    const hspmv_real *gb = N->ghost;
    hspmv_real *y = D->work;
    if (gather == HSPMV_GATHER_SHARE) hspmv_node_share_open(N->share, blk[0].L, -1);
    MPI_Barrier(D->comm);
    double t0 = MPI_Wtime();
    if (N->replica && gather != HSPMV_GATHER_COPY) {
        hspmv_node_replicate(N, xb, -1);
        xb = N->xr;
    }
    if (gather == HSPMV_GATHER_COPY) {
        if (blk[0].L) hspmv_node_gather_copy(N->xn, xb, N->nsrc, N->nn, N->threads);
        hspmv_node_block_add(&blk[0], N->xn, y, N->threads);
        if (blk[1].L) hspmv_node_gather_copy(N->xo, gb, N->osrc, N->no, N->threads);
        hspmv_node_block_add(&blk[1], N->xo, y, N->threads);
    } else {
        if (gather == HSPMV_GATHER_SHARE)
            hspmv_node_share_mul(N->share, &blk[0], xb, hspmv_node_same_x, (void *)xb, y, 1, NULL, 0);
        else
            hspmv_node_block_add(&blk[0], xb, y, N->threads);
        hspmv_node_block_add(&blk[1], gb, y, N->threads);
    }
    return MPI_Wtime() - t0;
}

static void keep(hspmv_node *N, int gather, node_block dir[2], node_block cpy[2])
{
    node_block *k = gather == HSPMV_GATHER_COPY ? cpy : dir;
    N->gather = gather;
    N->nb = k[0];
    N->ob = k[1];
    memset(k, 0, 2 * sizeof(*k));
    if (gather != HSPMV_GATHER_COPY) {
        hspmv_free(N->xn);
        hspmv_free(N->xo);
        N->xn = N->xo = NULL;
    }
    if (gather != HSPMV_GATHER_SHARE) hspmv_node_share_free(&N->share);
}

int hspmv_node_choose_gather(hspmv_dist *D, hspmv_node *N, node_block dir[2], node_block cpy[2], int timed,
                             hspmv_error *err)
{
    int64_t z = 0, zmax = 0;
    enum { NV = 3 };
    static const int mode[NV] = {HSPMV_GATHER_DIRECT, HSPMV_GATHER_COPY, HSPMV_GATHER_SHARE};
    double t[NV] = {1e300, 1e300, 1e300}, worst[NV];
    int have[NV] = {1, 1, N->share != NULL};
    (void)err;
    if (timed) { /* each variant with the kernel set its slowest rank runs fastest */
        hspmv_local *a[2] = {dir[0].L, dir[1].L}, *b[2] = {cpy[0].L, cpy[1].L};
        hspmv_dist_agree_kernels(D, a, 2, (int64_t)1 << 15);
        hspmv_dist_agree_kernels(D, b, 2, (int64_t)1 << 15);
        if (N->share) hspmv_node_share_kernels(N->share, dir[0].L);
    }
    for (int i = 0; i < 2; i++)
        if (dir[i].L) {
            hspmv_local_info li;
            hspmv_local_get_info(dir[i].L, &li);
            z += li.nnz;
        }
    MPI_Allreduce(&z, &zmax, 1, MPI_INT64_T, MPI_MAX, D->comm);
    if (zmax < ((int64_t)1 << 16)) { /* too small to time, and either is fast: no copies */
        keep(N, HSPMV_GATHER_DIRECT, dir, cpy);
        return HSPMV_OK;
    }
    const hspmv_real *xb = timing_x(D, N);
    for (int v = 0; v < NV; v++) /* each variant in a block of runs: interleaving them left caches cold */
        for (int r = -2; r < TIMED_REPS; r++) { /* 2 untimed first */
            if (!have[v]) continue;
            double s = timed_product(D, N, mode[v], mode[v] == HSPMV_GATHER_COPY ? cpy : dir, xb);
            if (r >= 0 && s < t[v]) t[v] = s;
        }
    MPI_Allreduce(t, worst, NV, MPI_DOUBLE, MPI_MAX, D->comm);
    N->t_direct = worst[0];
    N->t_copy = have[1] ? worst[1] : 0;
    N->t_share = have[2] ? worst[2] : 0;
    /* copy only when it wins clearly: its private buffers (a copy of much of
       x per rank) crowd the last-level cache the ranks share, which the
       isolated timing does not see, and timings at creation are noisy (on
       16 ranks of the power-law matrix one creation timed direct 113 ms,
       copy 94 ms; its products then took 96-102 ms, direct ones 53).
       Shared rows, where built, over direct without timing: they gather as
       direct does and only move rows, and the plan's timings of direct were
       far off the products' when some ranks ran slower than the others
       (2 ranks x 8 threads, random columns: direct timed 11.6 ms, products
       26.3 ms; shared rows timed 11.7, products 13.5). */
    int best = have[2] ? HSPMV_GATHER_SHARE : HSPMV_GATHER_DIRECT;
    double tb = have[2] ? worst[2] : worst[0];
    if (have[1] && worst[1] < 0.9 * tb) best = HSPMV_GATHER_COPY;
    keep(N, best, dir, cpy);
    return HSPMV_OK;
}

void hspmv_node_replicate(hspmv_node *N, const hspmv_real *xb, int b)
{
    enum { BLK = 1 << 15 }; /* entries per piece of work: 256 KiB */
#pragma omp parallel num_threads(N->threads)
    for (int q = 0; q < N->size; q++) {
        if (b >= 0 && N->flags[q].slot[b] == -2) continue; /* nobody reads it (and its owner may be writing it) */
        int64_t a = N->part_off[q], n = N->part_off[q + 1] - a, nblk = (n + BLK - 1) / BLK;
#pragma omp for schedule(static) nowait
        for (int64_t k = 0; k < nblk; k++) {
            int64_t j = a + k * BLK, m = n - k * BLK < BLK ? n - k * BLK : BLK;
            memcpy(N->xr + j, xb + j, sizeof(*xb) * (size_t)m);
        }
    }
}

int hspmv_node_choose_replica(hspmv_dist *D, hspmv_node *N, int timed, hspmv_error *err)
{
    int force = (int)hspmv_test_int(D->test, "replica", -1), rc = HSPMV_OK, g = N->gather;
    int64_t z[2] = {0, 0}, zmax[2]; /* the largest node block; 1 where one reads over a quarter of its node's x */
    if (N->nb.L) {
        hspmv_local_info li;
        hspmv_local_get_info(N->nb.L, &li);
        z[0] = li.nnz;
        z[1] = N->size > 1 && 4 * N->nn > N->vec_len;
    }
    MPI_Allreduce(z, zmax, 2, MPI_INT64_T, MPI_MAX, D->comm);
    if (g == HSPMV_GATHER_COPY || zmax[0] == 0 || force == 0) return HSPMV_OK;
    if (force < 0 && !(timed && zmax[1] && zmax[0] >= ((int64_t)1 << 16))) return HSPMV_OK; /* as choose_gather */
    N->xr = hspmv_alloc_pages((size_t)(N->vec_len > 0 ? N->vec_len : 1), sizeof(hspmv_real));
    if (!N->xr) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for a replica of the node's x", D->rank);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) return rc;
    if (force != 1) { /* time the kept gather without and with it, each in a block, all ranks at once */
        const hspmv_real *xb = timing_x(D, N);
        node_block blk[2] = {N->nb, N->ob};
        double t[2] = {1e300, 1e300}, worst[2];
        for (int v = 0; v < 2; v++) {
            N->replica = v;
            for (int r = -2; r < TIMED_REPS; r++) {
                double s = timed_product(D, N, g, blk, xb);
                if (r >= 0 && s < t[v]) t[v] = s;
            }
        }
        MPI_Allreduce(t, worst, 2, MPI_DOUBLE, MPI_MAX, D->comm);
        N->t_replica = worst[1];
        force = worst[1] < 0.95 * worst[0];
    }
    N->replica = force == 1;
    if (!N->replica) {
        hspmv_free(N->xr);
        N->xr = NULL;
    }
    return HSPMV_OK;
}
