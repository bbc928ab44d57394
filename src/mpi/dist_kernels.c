/* dist_kernels.c — kernel "auto" agreed over the ranks for blocks multiplied together. */
#include "dist.h"
#include "kernel_select.h"
#include "local_calls.h"
#include "util.h"

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
