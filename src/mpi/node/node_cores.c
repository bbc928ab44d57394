/* node_cores.c — whether the ranks of a machine run more threads than the
   processors they may run on together (the union of their affinity masks):
   then a rank waiting on another yields its core at once instead of
   spinning, as the one it waits for may need that core to get there. */
#include <sched.h>
#include "dist.h"
#include "node.h"
#include "util.h"

#define MASK_WORDS 16 /* 1024 processors; beyond, the count is sysconf's */

int hspmv_node_cores(hspmv_dist *D, hspmv_node *N, int threads, hspmv_error *err)
{
    uint64_t mine[MASK_WORDS], all[MASK_WORDS];
    MPI_Comm shared;
    int rc = HSPMV_OK, t[2] = {threads, 0}, sum[2];
    t[1] = hspmv_cpu_mask(mine, MASK_WORDS) == 0 ? 1 : 0; /* 1: this rank's mask is unknown */
    if (MPI_Comm_split_type(D->comm, MPI_COMM_TYPE_SHARED, D->rank, MPI_INFO_NULL, &shared) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Comm_split_type(SHARED) failed", D->rank);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) return rc;
    if (MPI_Allreduce(mine, all, MASK_WORDS, MPI_UINT64_T, MPI_BOR, shared) != MPI_SUCCESS ||
        MPI_Allreduce(t, sum, 2, MPI_INT, MPI_SUM, shared) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: counting the node's processors failed", D->rank);
    MPI_Comm_free(&shared);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) return rc;
    int cpus = 0;
    for (int w = 0; w < MASK_WORDS; w++) cpus += __builtin_popcountll(all[w]);
    if (sum[1] > 0 || cpus == 0 || cpus >= 64 * MASK_WORDS) cpus = hspmv_cpus_allowed(); /* masks unknown */
    /* the most oversubscribed node speaks for all: its threads and processors */
    struct { double ratio; int rank; } in = {(double)sum[0] / cpus, D->rank}, out;
    int worst[2] = {sum[0], cpus};
    if (MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, D->comm) != MPI_SUCCESS ||
        MPI_Bcast(worst, 2, MPI_INT, out.rank, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: agreeing the nodes' processor counts failed", D->rank);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) return rc;
    N->oversub = sum[0] > cpus;
    N->spin = N->oversub ? 0 : HSPMV_NODE_SPIN;
    D->info.oversubscribed = worst[0] > worst[1];
    D->info.node_threads = worst[0];
    D->info.node_cpus = worst[1];
    return HSPMV_OK;
}

int hspmv_dist_waitall(const hspmv_dist *D, int n, MPI_Request *req)
{
    int done = 0;
    if (n == 0) return HSPMV_OK;
    if (!D->node || D->node->spin) return MPI_Waitall(n, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? 0 : HSPMV_ERR_MPI;
    /* oversubscribed: whatever the MPI library does while it waits (Open
       MPI polls unless mpirun told it the node is oversubscribed), test
       and give the core away between tests */
    for (;;) {
        if (MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) return HSPMV_ERR_MPI;
        if (done) return HSPMV_OK;
        sched_yield();
    }
}
