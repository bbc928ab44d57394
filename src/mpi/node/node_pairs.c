/* node_pairs.c — what travels between nodes: the off-node columns of a
   node merged, so that a value crosses between two nodes once, whichever
   ranks of the receiving node need it (Bienz, Gropp, Olson, JPDC 2019),
   received by one rank of the node into the shared ghost area all its
   ranks read. The node leaders (node rank 0) make the plan; each node pair
   gets one receiving and one sending rank, spread over the ranks by volume. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "node.h"
#include "util.h"

enum { TAG_PLAN = 21 };

/* Everything one node tells its ranks about the exchange between nodes,
   per other node B (one int64 array, broadcast from the leader; after the
   last node's fields, the ghost area's length, so that region B is
   [hdr[B][H_REG], hdr[B+1][H_REG])). */
enum { H_REG, H_RECVNR = 1, H_RECVSRC, H_NEED, H_SENDNR, H_SENDDST, H_FIELDS };

/* Sorted distinct union of a[0..na) and b[0..nb) (both sorted, distinct) into out; returns its length. */
static int64_t merge_unique(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int32_t *out)
{
    int64_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        int32_t v = j >= nb || (i < na && a[i] < b[j]) ? a[i++] : b[j++];
        if (n == 0 || out[n - 1] != v) out[n++] = v;
        else if (i < na && a[i] == v) i++;
    }
    return n;
}

/* The leader's union of the node's off-node columns, regrouped by owner
   node (ascending columns within a node): *U gets nu entries, reg[B] ..
   reg[B+1] is node B's region. Collective over the node; allocations are
   agreed over D->comm. */
static int node_union(hspmv_dist *D, hspmv_node *N, const int32_t *og, int64_t no, int32_t **Uout, int64_t *reg,
                      hspmv_error *err)
{
    int me = D->rank, rc = HSPMV_OK, k = N->size, n32 = (int)no;
    int *cnt = NULL, *dsp = NULL;
    int32_t *all = NULL, *tmp = NULL, *U = NULL;
    int64_t tot = 0, nu = 0;
    *Uout = NULL;
    if (no > INT_MAX) rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %lld off-node columns", me, (long long)no);
    if (N->rank == 0) {
        cnt = hspmv_alloc_array((size_t)k, sizeof(int));
        dsp = hspmv_alloc_array((size_t)k + 1, sizeof(int));
        if (!cnt || !dsp) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node plan", me);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (MPI_Gather(&n32, 1, MPI_INT, cnt, 1, MPI_INT, 0, N->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Gather of the off-node counts failed", me);
    if (N->rank == 0 && !rc) {
        for (int q = 0; q < k; q++) tot += cnt[q];
        if (tot > INT_MAX)
            rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "node %d: %lld off-node columns in all exceed 2^31-1", N->node,
                           (long long)tot);
        dsp[0] = 0;
        for (int q = 0; q < k && !rc; q++) dsp[q + 1] = dsp[q] + cnt[q];
        all = hspmv_alloc_array((size_t)(tot ? tot : 1), sizeof(int32_t));
        tmp = hspmv_alloc_array((size_t)(tot ? tot : 1), sizeof(int32_t));
        U = hspmv_alloc_array((size_t)(tot ? tot : 1), sizeof(int32_t));
        if (!rc && (!all || !tmp || !U))
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory merging %lld off-node columns", me,
                           (long long)tot);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (MPI_Gatherv(og, n32, MPI_INT32_T, all, cnt, dsp, MPI_INT32_T, 0, N->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Gatherv of the off-node columns failed", me);
    if (N->rank == 0 && !rc) {
        /* pairwise merges of the ranks' sorted lists: log2(k) passes */
        int64_t *lo = hspmv_alloc_array((size_t)k + 1, sizeof(int64_t));
        int m = k;
        if (!lo) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
        for (int q = 0; q <= k && lo; q++) lo[q] = dsp[q];
        while (lo && m > 1) {
            int64_t w = 0;
            int mm = 0;
            for (int q = 0; q < m; q += 2) {
                int64_t a0 = lo[q], a1 = lo[q + 1], b1 = q + 2 <= m ? lo[q + 2] : a1;
                int64_t len = merge_unique(all + a0, a1 - a0, all + a1, b1 - a1, tmp + w);
                lo[mm++] = w;
                w += len;
            }
            lo[mm] = w;
            m = mm;
            int32_t *sw = all;
            all = tmp;
            tmp = sw;
        }
        nu = lo ? lo[m] - lo[0] : 0;
        hspmv_free(lo);
        /* regroup by owner node (a counting sort keeps columns ascending) */
        for (int B = 0; B <= N->nnodes; B++) reg[B] = 0;
        for (int64_t i = 0; i < nu; i++) reg[N->node_of[hspmv_dist_owner(D->col_start, D->size, all[i])] + 1]++;
        for (int B = 0; B < N->nnodes; B++) reg[B + 1] += reg[B];
        int64_t *fill = hspmv_alloc_array((size_t)N->nnodes, sizeof(int64_t));
        if (!fill && !rc) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
        for (int B = 0; fill && B < N->nnodes; B++) fill[B] = reg[B];
        for (int64_t i = 0; fill && i < nu; i++)
            U[fill[N->node_of[hspmv_dist_owner(D->col_start, D->size, all[i])]]++] = all[i];
        hspmv_free(fill);
    }
    rc = hspmv_dist_agree(D->comm, rc, err);
out:
    hspmv_free(cnt);
    hspmv_free(dsp);
    hspmv_free(all);
    hspmv_free(tmp);
    if (rc) hspmv_free(U);
    else *Uout = U;
    return rc;
}

/* Node rank with the least load so far; adds w to it. */
static int least_loaded(int64_t *load, int k, int64_t w)
{
    int best = 0;
    for (int q = 1; q < k; q++)
        if (load[q] < load[best]) best = q;
    load[best] += w;
    return best;
}

/* The node rank owning at least half of the n columns c (global, of this
   node's ranks), else -1: as the sending rank of a node pair it packs
   those from its own x, without waiting for the others. */
static int owner_majority(const hspmv_dist *D, const hspmv_node *N, const int32_t *c, int64_t n)
{
    int best = -1, cur = -1;
    int64_t run = 0, most = 0;
    for (int64_t i = 0; i <= n; i++) { /* columns ascending: an owner's are adjacent */
        int q = i < n ? hspmv_node_rank_of(N, hspmv_dist_owner(D->col_start, D->size, c[i])) : -2;
        if (q == cur) {
            run++;
            continue;
        }
        if (cur >= 0 && run > most) {
            most = run;
            best = cur;
        }
        cur = q;
        run = 1;
    }
    return 2 * most >= n ? best : -1;
}

/* The worst status over the leaders (before they wait on each other). */
static int leaders_agree(const hspmv_node *N, int rc)
{
    int worst = rc;
    if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, N->leaders) != MPI_SUCCESS) return HSPMV_ERR_MPI;
    return worst;
}

/* The leaders' exchange (leaders only): what each node needs from each
   other, who receives and who sends; fills hdr and the leader's send lists
   (node-vector offsets, grouped by sending node rank) in *sidx. */
static int leaders_plan(hspmv_dist *D, hspmv_node *N, const int32_t *U, const int64_t *reg, int64_t *hdr,
                        int64_t **sidx, int64_t *sidx_n, hspmv_error *err)
{
    int nn = N->nnodes, k = N->size, rc = HSPMV_OK;
    int *sc = hspmv_calloc((size_t)nn, sizeof(int)), *rcn = hspmv_calloc((size_t)nn, sizeof(int));
    int *sd = hspmv_calloc((size_t)nn + 1, sizeof(int)), *rd = hspmv_calloc((size_t)nn + 1, sizeof(int));
    int *pin = hspmv_calloc((size_t)nn * 2, sizeof(int)), *pout = hspmv_calloc((size_t)nn * 2, sizeof(int));
    int64_t *load = hspmv_calloc((size_t)k, sizeof(int64_t)), tot = 0;
    int32_t *need = NULL;
    *sidx = NULL;
    if (!sc || !rcn || !sd || !rd || !pin || !pout || !load) rc = HSPMV_ERR_NOMEM;
    if ((rc = leaders_agree(N, rc))) goto out;
    for (int B = 0; B < nn; B++) sc[B] = (int)(reg[B + 1] - reg[B]);
    if (MPI_Alltoall(sc, 1, MPI_INT, rcn, 1, MPI_INT, N->leaders) != MPI_SUCCESS) {
        rc = HSPMV_ERR_MPI;
        goto out;
    }
    for (int B = 0; B < nn; B++) {
        sd[B + 1] = sd[B] + sc[B];
        tot += rcn[B];
    }
    for (int B = 0; B < nn; B++) rd[B + 1] = rd[B] + rcn[B];
    if (tot <= INT_MAX) need = hspmv_alloc_array((size_t)(tot ? tot : 1), sizeof(int32_t));
    rc = tot > INT_MAX ? HSPMV_ERR_UNSUPPORTED : need ? HSPMV_OK : HSPMV_ERR_NOMEM;
    if ((rc = leaders_agree(N, rc))) goto out;
    if (MPI_Alltoallv(U, sc, sd, MPI_INT32_T, need, rcn, rd, MPI_INT32_T, N->leaders) != MPI_SUCCESS) {
        rc = HSPMV_ERR_MPI;
        goto out;
    }
    /* receivers for what this node needs, senders for what others need from it: largest first, each to the
       least loaded rank (receiving and packing are spread separately) */
    for (int pass = 0; pass < 2; pass++) {
        int64_t *cntB = hspmv_alloc_array((size_t)nn, sizeof(int64_t));
        int *order = hspmv_alloc_array((size_t)nn, sizeof(int));
        rc = cntB && order ? HSPMV_OK : HSPMV_ERR_NOMEM;
        if ((rc = leaders_agree(N, rc))) {
            hspmv_free(cntB);
            hspmv_free(order);
            goto out;
        }
        for (int q = 0; q < k; q++) load[q] = 0;
        for (int B = 0; B < nn; B++) {
            cntB[B] = pass == 0 ? sc[B] : rcn[B];
            order[B] = B;
        }
        for (int i = 1; i < nn; i++) /* insertion sort by count, descending */
            for (int j = i; j > 0 && cntB[order[j - 1]] < cntB[order[j]]; j--) {
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        for (int i = 0; i < nn; i++) {
            int B = order[i];
            int q = cntB[B] > 0 ? least_loaded(load, k, cntB[B]) : 0;
            if (pass == 1 && cntB[B] > 0) { /* sender: the rank owning most of it, when one owns half or more */
                int best = owner_majority(D, N, need + rd[B], rcn[B]);
                if (best >= 0) {
                    load[q] -= cntB[B];
                    load[best] += cntB[B];
                    q = best;
                }
            }
            hdr[(int64_t)B * H_FIELDS + (pass == 0 ? H_RECVNR : H_SENDNR)] = q;
            pin[2 * B + pass] = N->member[q];
        }
        hspmv_free(cntB);
        hspmv_free(order);
    }
    /* tell each other leader: [my receiver for your data, my sender for your needs] */
    if (MPI_Alltoall(pin, 2, MPI_INT, pout, 2, MPI_INT, N->leaders) != MPI_SUCCESS) {
        rc = HSPMV_ERR_MPI;
        goto out;
    }
    for (int B = 0; B < nn; B++) {
        int64_t *h = hdr + (int64_t)B * H_FIELDS;
        h[H_REG] = reg[B];
        h[H_RECVSRC] = pout[2 * B + 1]; /* B's sender of what this node needs */
        h[H_NEED] = rcn[B];
        h[H_SENDDST] = pout[2 * B]; /* B's receiver of what it needs from this node */
    }
    /* the send lists as node-vector offsets, grouped by sending rank, nodes ascending within */
    *sidx = hspmv_alloc_array((size_t)(tot ? tot : 1), sizeof(int64_t));
    if (!*sidx) {
        rc = HSPMV_ERR_NOMEM;
        goto out;
    }
    int64_t w = 0;
    for (int q = 0; q < k; q++)
        for (int A = 0; A < nn; A++)
            if (rcn[A] > 0 && hdr[(int64_t)A * H_FIELDS + H_SENDNR] == q)
                for (int64_t i = rd[A]; i < rd[A + 1]; i++) (*sidx)[w++] = hspmv_node_offset(D, N, need[i]);
    *sidx_n = w;
out:
    hspmv_free(sc);
    hspmv_free(rcn);
    hspmv_free(sd);
    hspmv_free(rd);
    hspmv_free(pin);
    hspmv_free(pout);
    hspmv_free(load);
    hspmv_free(need);
    if (rc) {
        hspmv_free(*sidx);
        *sidx = NULL;
        hspmv_err(err, rc, "rank %d (node %d's leader): planning the exchange between nodes failed", D->rank, N->node);
    }
    return rc;
}

/* The exchange between nodes for this rank's off-node columns og[0..no):
   receive and send jobs, the ghost area and osrc. Collective. */
int hspmv_node_offnode_plan(hspmv_dist *D, hspmv_node *N, const int32_t *og, int64_t no, hspmv_error *err)
{
    int me = D->rank, nn = N->nnodes, k = N->size, rc = HSPMV_OK;
    int64_t *reg = hspmv_calloc((size_t)nn + 1, sizeof(int64_t));
    int64_t *hdr = hspmv_calloc((size_t)nn * H_FIELDS + 1, sizeof(int64_t)), *sidx = NULL, sidx_n = 0;
    int32_t *U = NULL;
    int *scnt = NULL, *sdsp = NULL;
    if (!reg || !hdr) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node plan", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if ((rc = node_union(D, N, og, no, &U, reg, err))) goto out;
    if (N->rank == 0) rc = leaders_plan(D, N, U, reg, hdr, &sidx, &sidx_n, err);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (N->rank == 0) hdr[(int64_t)nn * H_FIELDS] = reg[nn]; /* the ghost area's length */
    if (MPI_Bcast(hdr, nn * H_FIELDS + 1, MPI_INT64_T, 0, N->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the node plan failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    N->gh_len = hdr[(int64_t)nn * H_FIELDS];
    /* the ghost area's columns, for everyone's osrc */
    if (N->rank != 0) U = hspmv_alloc_array((size_t)(N->gh_len ? N->gh_len : 1), sizeof(int32_t));
    N->osrc = hspmv_alloc_array((size_t)(no ? no : 1), sizeof(int64_t));
    /* my jobs */
    int64_t mine = 0;
    for (int B = 0; B < nn; B++) {
        const int64_t *h = hdr + (int64_t)B * H_FIELDS;
        int64_t len = h[H_FIELDS + H_REG] - h[H_REG];
        if (len > 0 && h[H_RECVNR] == N->rank) N->nrecv++;
        if (h[H_NEED] > 0 && h[H_SENDNR] == N->rank) {
            N->nsend++;
            mine += h[H_NEED];
        }
    }
    N->recv_src = hspmv_alloc_array((size_t)N->nrecv + 1, sizeof(int));
    N->recv_off = hspmv_alloc_array((size_t)N->nrecv + 1, sizeof(int64_t));
    N->recv_cnt = hspmv_alloc_array((size_t)N->nrecv + 1, sizeof(int64_t));
    N->send_dst = hspmv_alloc_array((size_t)N->nsend + 1, sizeof(int));
    N->send_ptr = hspmv_alloc_array((size_t)N->nsend + 1, sizeof(int64_t));
    N->send_idx = hspmv_alloc_pages((size_t)(mine ? mine : 1), sizeof(int64_t));
    N->sendbuf = hspmv_alloc_pages((size_t)(mine ? mine : 1), sizeof(hspmv_real));
    N->req = hspmv_alloc_array((size_t)(N->nrecv + N->nsend + 1), sizeof(MPI_Request));
    if (N->rank == 0) {
        scnt = hspmv_calloc((size_t)k, sizeof(int));
        sdsp = hspmv_calloc((size_t)k + 1, sizeof(int));
    }
    if (!U || !N->osrc || !N->recv_src || !N->recv_off || !N->recv_cnt || !N->send_dst || !N->send_ptr ||
        !N->send_idx || !N->sendbuf || !N->req || (N->rank == 0 && (!scnt || !sdsp)))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the exchange between nodes", me);
    if (!rc && mine > INT_MAX)
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %lld entries to send", me, (long long)mine);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (MPI_Bcast(U, (int)N->gh_len, MPI_INT32_T, 0, N->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the ghost area failed", me);
    if (N->rank == 0 && !rc) { /* the send lists, each sending rank its own */
        for (int B = 0; B < nn; B++) {
            const int64_t *h = hdr + (int64_t)B * H_FIELDS;
            if (h[H_NEED] > 0) scnt[h[H_SENDNR]] += (int)h[H_NEED];
        }
        for (int q = 0; q < k; q++) sdsp[q + 1] = sdsp[q] + scnt[q];
    }
    if (!rc && MPI_Scatterv(sidx, scnt, sdsp, MPI_INT64_T, N->send_idx, (int)mine, MPI_INT64_T, 0, N->comm) !=
                   MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Scatterv of the send lists failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    int nr = 0, ns = 0;
    N->send_ptr[0] = 0;
    for (int B = 0; B < nn; B++) {
        const int64_t *h = hdr + (int64_t)B * H_FIELDS;
        int64_t len = h[H_FIELDS + H_REG] - h[H_REG];
        if (len > 0 && h[H_RECVNR] == N->rank) {
            N->recv_src[nr] = (int)h[H_RECVSRC];
            N->recv_off[nr] = h[H_REG];
            N->recv_cnt[nr++] = len;
        }
        if (h[H_NEED] > 0 && h[H_SENDNR] == N->rank) {
            N->send_dst[ns] = (int)h[H_SENDDST];
            N->send_ptr[ns + 1] = N->send_ptr[ns] + h[H_NEED];
            ns++;
        }
        if (len > 0) N->inter_msgs += N->rank == 0; /* one message per node pair, counted by the receiving node */
    }
    if (N->rank == 0) N->inter_entries = N->gh_len;
    /* where each of my off-node columns lies in the ghost area, and who receives it */
    int *mark = hspmv_calloc((size_t)k, sizeof(int));
    if (!mark) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    for (int64_t j = 0; !rc && j < no; j++) {
        int B = N->node_of[hspmv_dist_owner(D->col_start, D->size, og[j])];
        const int64_t *h = hdr + (int64_t)B * H_FIELDS;
        int64_t lo = h[H_REG], hi = h[H_FIELDS + H_REG];
        while (lo < hi) {
            int64_t m = lo + (hi - lo) / 2;
            if (U[m] < og[j]) lo = m + 1;
            else hi = m;
        }
        if (U[lo] != og[j]) rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: column %d missing from the node's ghost area",
                                           me, og[j]);
        N->osrc[j] = lo;
        mark[h[H_RECVNR]] = 1;
    }
    for (int q = 0; mark && q < k; q++) N->nsrc_recv += mark[q];
    N->src_recv = hspmv_alloc_array((size_t)N->nsrc_recv + 1, sizeof(int));
    if (!N->src_recv && !rc) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    for (int q = 0, w = 0; !rc && q < k; q++)
        if (mark[q]) N->src_recv[w++] = q;
    hspmv_free(mark);
    rc = hspmv_dist_agree(D->comm, rc, err);
out:
    hspmv_free(reg);
    hspmv_free(hdr);
    hspmv_free(sidx);
    hspmv_free(U);
    hspmv_free(scnt);
    hspmv_free(sdsp);
    return rc;
}

/* The runs of send_idx with one owner (for packing, each from its owner's x). */
int hspmv_node_send_segments(hspmv_node *N)
{
    int64_t ns = N->send_ptr[N->nsend];
    int n = 0;
    for (int64_t j = 0; j < ns; j++)
        n += j == 0 || hspmv_node_part_of(N, N->send_idx[j]) != hspmv_node_part_of(N, N->send_idx[j - 1]);
    N->seg_ptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    N->seg_owner = hspmv_alloc_array((size_t)n + 1, sizeof(int));
    if (!N->seg_ptr || !N->seg_owner) return HSPMV_ERR_NOMEM;
    N->nseg = 0;
    for (int64_t j = 0; j < ns; j++) {
        int q = hspmv_node_part_of(N, N->send_idx[j]);
        if (j == 0 || q != N->seg_owner[N->nseg - 1]) {
            N->seg_ptr[N->nseg] = j;
            N->seg_owner[N->nseg++] = q;
        }
    }
    N->seg_ptr[N->nseg] = ns;
    return HSPMV_OK;
}

int hspmv_node_volumes(hspmv_dist *D, hspmv_node *N, const int32_t *g, hspmv_error *err)
{
    int me = D->rank, rc = HSPMV_OK;
    int64_t no = 0, *reg = hspmv_calloc((size_t)N->nnodes + 1, sizeof(int64_t));
    int32_t *og = hspmv_alloc_array((size_t)(D->nghost ? D->nghost : 1), sizeof(int32_t)), *U = NULL;
    if (!reg || !og) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    for (int64_t j = 0; j < D->nghost; j++)
        if (N->node_of[hspmv_dist_owner(D->col_start, D->size, g[j])] != N->node) og[no++] = g[j];
    if ((rc = node_union(D, N, og, no, &U, reg, err))) goto out;
    if (N->rank == 0) {
        N->inter_entries = reg[N->nnodes];
        for (int B = 0; B < N->nnodes; B++) N->inter_msgs += reg[B + 1] > reg[B];
    }
out:
    hspmv_free(reg);
    hspmv_free(og);
    hspmv_free(U);
    return rc;
}
