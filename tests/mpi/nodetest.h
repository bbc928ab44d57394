/* nodetest.h — checks of the node-aware plan itself (halo "node"), for the
   MPI tests: every ghost column of a rank (and its own columns, when they
   are in the node block) maps to the right entry of the node's x (window) or of the node's ghost area after a real product with
   x[j] = global j, and the volumes between nodes add up. Collective. */
#ifndef HSPMV_NODETEST_H
#define HSPMV_NODETEST_H

#include <stdio.h>
#include "dist.h"
#include "node.h"

static int node_plan_ok(hspmv_dist *D, const char *what)
{
    hspmv_node *N = D->node;
    int ok = 1, me = D->rank;
    if (D->halo != HSPMV_HALO_NODE) return 1;
    hspmv_real *x = hspmv_dist_vec_alloc(D, HSPMV_VEC_COLS, 1), *y = hspmv_dist_vec_alloc(D, HSPMV_VEC_ROWS, 1);
    for (int64_t j = 0; j < D->ncols_local; j++) x[j] = (hspmv_real)(D->col_start[me] + j);
    ok &= hspmv_dist_spmv(D, x, y, NULL) == HSPMV_OK;
    uint64_t n = N->calls;
    int b = (int)(n & 1), common = -1;
    for (int p = 0; p < N->size; p++) /* the node vector that call used, as every rank saw it */
        if (N->flags[p].slot[b] >= -1) common = N->flags[p].slot[b];
    const hspmv_real *xb = N->vecs + (int64_t)(common >= 0 ? common : N->nslots + b) * N->vec_stride;
    const hspmv_real *gh = N->ghost + b * N->gh_stride;
    int64_t jn = 0, jo = 0, cb = D->col_start[me], ce = D->col_start[me + 1], own = N->merged ? ce - cb : 0;
    for (int64_t k = 0, g = 0; k < D->nghost + own; k++) { /* ghosts ascending, the own columns in place when merged */
        int64_t c;
        if (g < D->nghost && (D->ghost_col[g] < cb || k - g >= own)) c = D->ghost_col[g++];
        else c = cb + (k - g);
        int o = hspmv_dist_owner(D->col_start, D->size, c);
        ok &= (o != me) == (c < cb || c >= ce);
        if (N->node_of[o] == N->node) {
            ok &= jn < N->nn && xb[N->nsrc[jn]] == (hspmv_real)c;
            jn++;
        } else {
            ok &= jo < N->no && gh[N->osrc[jo]] == (hspmv_real)c;
            jo++;
        }
    }
    ok &= jn == N->nn && jo == N->no;
    /* what the node's senders send is what the nodes' ghost areas hold */
    int64_t mine[3] = {N->send_ptr[N->nsend], N->rank == 0 ? N->gh_len : 0, 0}, all[3];
    for (int r = 0; r < N->nrecv; r++) mine[2] += N->recv_cnt[r];
    MPI_Allreduce(mine, all, 3, MPI_INT64_T, MPI_SUM, D->comm);
    hspmv_dist_info in;
    hspmv_dist_get_info(D, &in);
    ok &= all[0] == all[1] && all[1] == all[2] && all[1] == in.internode_entries_node;
    ok &= in.internode_entries_node <= in.internode_entries_p2p && in.internode_msgs_node <= in.internode_msgs_p2p;
    hspmv_free(x);
    hspmv_free(y);
    if (!ok) fprintf(stderr, "rank %d: node plan wrong for %s\n", me, what);
    return ok;
}

#endif
