/* node_halo.c — the node-aware plan: a rank's ghost columns split into
   those of other ranks of its node (read from the node's shared window) and
   those of other nodes; the latter merged per node, so that a value crosses
   between two nodes once, whichever ranks of the receiving node need it
   (Bienz, Gropp, Olson, JPDC 2019), received by one rank of the node into a
   shared ghost area all its ranks read. The node leaders (node rank 0) make
   the plan between nodes; each node pair gets one receiving and one sending
   rank, spread over the ranks by volume. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "node.h"
#include "util.h"

enum { TAG_PLAN = 21 };

/* Node rank of D rank r on this node (member[] is ascending), -1 if none. */
static int node_rank_of(const hspmv_node *N, int r)
{
    int lo = 0, hi = N->size - 1;
    while (lo <= hi) {
        int m = (lo + hi) / 2;
        if (N->member[m] == r) return m;
        if (N->member[m] < r) lo = m + 1;
        else hi = m - 1;
    }
    return -1;
}

/* Node-vector offset of global column c, owned by a rank of this node. */
static int64_t node_offset(const hspmv_dist *D, const hspmv_node *N, int64_t c)
{
    int o = hspmv_dist_owner(D->col_start, D->size, c);
    return N->part_off[node_rank_of(N, o)] + c - D->col_start[o];
}

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

/* Everything one node tells its ranks about the exchange between nodes,
   per other node B (one int64 array, broadcast from the leader; after the
   last node's fields, the ghost area's length, so that region B is
   [hdr[B][H_REG], hdr[B+1][H_REG])). */
enum { H_REG, H_RECVNR = 1, H_RECVSRC, H_NEED, H_SENDNR, H_SENDDST, H_FIELDS };

/* The node rank owning at least half of the n columns c (global, of this
   node's ranks), else -1: as the sending rank of a node pair it packs
   those from its own x, without waiting for the others. */
static int owner_majority(const hspmv_dist *D, const hspmv_node *N, const int32_t *c, int64_t n)
{
    int best = -1, cur = -1;
    int64_t run = 0, most = 0;
    for (int64_t i = 0; i <= n; i++) { /* columns ascending: an owner's are adjacent */
        int q = i < n ? node_rank_of(N, hspmv_dist_owner(D->col_start, D->size, c[i])) : -2;
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
                for (int64_t i = rd[A]; i < rd[A + 1]; i++) (*sidx)[w++] = node_offset(D, N, need[i]);
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
static int offnode_plan(hspmv_dist *D, hspmv_node *N, const int32_t *og, int64_t no, hspmv_error *err)
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

/* Splits the ghost block Ag (compact columns into g, ng of them) into the
   node block Bn (columns of ranks of the node; compact, N->nsrc their
   node-vector offsets) and the off-node block Bo (compact; og their global
   columns). */
static int split_ghosts(hspmv_dist *D, hspmv_node *N, const hspmv_csr *Ag, const int32_t *g, int64_t ng,
                        hspmv_csr *Bn, hspmv_csr *Bo, int32_t **og)
{
    int64_t nl = Ag->nrows, zn = 0, zo = 0;
    int64_t *map = hspmv_alloc_array((size_t)(ng ? ng : 1), sizeof(int64_t));
    if (!map) return HSPMV_ERR_NOMEM;
    N->nn = N->no = 0;
    for (int64_t j = 0; j < ng; j++) {
        int o = hspmv_dist_owner(D->col_start, D->size, g[j]);
        map[j] = N->node_of[o] == N->node ? N->nn++ : -1 - N->no++;
    }
    N->nsrc = hspmv_alloc_array((size_t)(N->nn ? N->nn : 1), sizeof(int64_t));
    *og = hspmv_alloc_array((size_t)(N->no ? N->no : 1), sizeof(int32_t));
    for (int64_t k = 0; k < Ag->nnz; k++) {
        zn += map[Ag->colind[k]] >= 0;
        zo += map[Ag->colind[k]] < 0;
    }
    Bn->nrows = Bo->nrows = nl;
    Bn->ncols = N->nn;
    Bo->ncols = N->no;
    Bn->nnz = zn;
    Bo->nnz = zo;
    Bn->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    Bo->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    Bn->colind = hspmv_alloc_array((size_t)(zn ? zn : 1), sizeof(int32_t));
    Bo->colind = hspmv_alloc_array((size_t)(zo ? zo : 1), sizeof(int32_t));
    Bn->val = hspmv_alloc_array((size_t)(zn ? zn : 1), sizeof(hspmv_real));
    Bo->val = hspmv_alloc_array((size_t)(zo ? zo : 1), sizeof(hspmv_real));
    if (!N->nsrc || !*og || !Bn->rowptr || !Bo->rowptr || !Bn->colind || !Bo->colind || !Bn->val || !Bo->val) {
        hspmv_free(map);
        return HSPMV_ERR_NOMEM;
    }
    for (int64_t j = 0; j < ng; j++) {
        if (map[j] >= 0) N->nsrc[map[j]] = node_offset(D, N, g[j]);
        else (*og)[-1 - map[j]] = g[j];
    }
    int64_t kn = 0, ko = 0;
    Bn->rowptr[0] = Bo->rowptr[0] = 0;
    for (int64_t i = 0; i < nl; i++) {
        for (int64_t k = Ag->rowptr[i]; k < Ag->rowptr[i + 1]; k++) {
            int64_t m = map[Ag->colind[k]];
            if (m >= 0) {
                Bn->colind[kn] = (int32_t)m;
                Bn->val[kn++] = Ag->val[k];
            } else {
                Bo->colind[ko] = (int32_t)(-1 - m);
                Bo->val[ko++] = Ag->val[k];
            }
        }
        Bn->rowptr[i + 1] = kn;
        Bo->rowptr[i + 1] = ko;
    }
    hspmv_free(map);
    return HSPMV_OK;
}

/* Who reads whose part, and what: this rank reads the owners of its
   node-block columns and of what it packs for other ranks' values (its own
   it packs from x); an Alltoallv over the node gives each rank its readers
   and the entries of its part they read, and its folded rows read
   (exp_idx, or the whole part when
   they read more than half of it: a caller's x then costs one contiguous
   copy). */
static int find_readers(hspmv_dist *D, hspmv_node *N, hspmv_error *err)
{
    int k = N->size, me = N->rank, rc = HSPMV_OK;
    int *cnt = hspmv_calloc((size_t)k, sizeof(int)), *rcnt = hspmv_calloc((size_t)k, sizeof(int));
    int *sd = hspmv_calloc((size_t)k + 1, sizeof(int)), *rd = hspmv_calloc((size_t)k + 1, sizeof(int));
    int64_t tot = 0, rtot = 0, len = D->ncols_local, ns = N->send_ptr[N->nsend];
    int32_t *out = NULL, *in = NULL;
    unsigned char *mark = NULL;
    if (!cnt || !rcnt || !sd || !rd) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
    for (int64_t j = 0; !rc && j < N->nn; j++) cnt[hspmv_node_part_of(N, N->nsrc[j])]++;
    for (int64_t j = 0; !rc && j < ns; j++) {
        int q = hspmv_node_part_of(N, N->send_idx[j]);
        if (q != me) cnt[q]++;
    }
    for (int q = 0; !rc && q < k; q++) {
        sd[q + 1] = sd[q] + cnt[q];
        tot += cnt[q];
    }
    if (!rc && tot > INT_MAX) rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %lld reads", D->rank, (long long)tot);
    if (!rc && !(out = hspmv_alloc_array((size_t)(tot ? tot : 1), sizeof(int32_t))))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    {
        int *fill = rcnt; /* rcnt as scratch until the Alltoall */
        for (int q = 0; q < k; q++) fill[q] = sd[q];
        for (int64_t j = 0; j < N->nn; j++) {
            int q = hspmv_node_part_of(N, N->nsrc[j]);
            out[fill[q]++] = (int32_t)(N->nsrc[j] - N->part_off[q]);
        }
        for (int64_t j = 0; j < ns; j++) {
            int q = hspmv_node_part_of(N, N->send_idx[j]);
            if (q != me) out[fill[q]++] = (int32_t)(N->send_idx[j] - N->part_off[q]);
        }
    }
    if (MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, N->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoall of the node readers failed", D->rank);
    for (int q = 0; !rc && q < k; q++) {
        rd[q + 1] = rd[q] + rcnt[q];
        rtot += rcnt[q];
    }
    if (!rc && rtot > INT_MAX) rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %lld reads", D->rank, (long long)rtot);
    if (!rc) {
        in = hspmv_alloc_array((size_t)(rtot ? rtot : 1), sizeof(int32_t));
        mark = hspmv_calloc((size_t)(len ? len : 1), 1);
        N->readers = hspmv_alloc_array((size_t)k + 1, sizeof(int));
        if (!in || !mark || !N->readers) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (MPI_Alltoallv(out, cnt, sd, MPI_INT32_T, in, rcnt, rd, MPI_INT32_T, N->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoallv of the node reads failed", D->rank);
    for (int q = 0; !rc && q < k; q++)
        if (rcnt[q]) N->readers[N->nreaders++] = q;
    for (int64_t j = 0; !rc && j < rtot; j++) mark[in[j]] = 1;
    for (int64_t j = 0; !rc && j < N->nfold_own; j++) mark[N->fold_own[j]] = 1; /* its folded rows read them */
    for (int64_t j = 0; !rc && j < len; j++) N->nexp += mark[j];
    if (!rc && N->nexp > 0 && 2 * N->nexp <= len) { /* a few entries (a stencil's boundary): just those */
        N->exp_idx = hspmv_alloc_array((size_t)N->nexp, sizeof(int32_t));
        if (!N->exp_idx) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
        for (int64_t j = 0, w = 0; !rc && j < len; j++)
            if (mark[j]) N->exp_idx[w++] = (int32_t)j;
    }
    rc = hspmv_dist_agree(D->comm, rc, err);
out:
    hspmv_free(cnt);
    hspmv_free(rcnt);
    hspmv_free(sd);
    hspmv_free(rd);
    hspmv_free(out);
    hspmv_free(in);
    hspmv_free(mark);
    return rc;
}

/* The runs of send_idx with one owner (for packing, each from its owner's x). */
static int send_segments(hspmv_node *N)
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

/* Keeps B's rows with entries when they are at most half of the rows (as
   the p2p ghost block does): blk->row and gy, and A compressed in place. */
static int compress_rows(hspmv_csr *A, node_block *blk)
{
    int64_t nl = A->nrows, nr = 0;
    for (int64_t i = 0; i < nl; i++) nr += A->rowptr[i + 1] > A->rowptr[i];
    blk->nrows = nl;
    if (nr == 0 || 2 * nr > nl) return HSPMV_OK;
    int64_t *rp = hspmv_alloc_array((size_t)nr + 1, sizeof(int64_t));
    blk->row = hspmv_alloc_array((size_t)nr, sizeof(int64_t));
    blk->gy = hspmv_alloc_pages((size_t)nr, sizeof(hspmv_real));
    if (!rp || !blk->row || !blk->gy) {
        hspmv_free(rp);
        return HSPMV_ERR_NOMEM;
    }
    int64_t n = 0;
    rp[0] = 0;
    for (int64_t i = 0; i < nl; i++)
        if (A->rowptr[i + 1] > A->rowptr[i]) {
            blk->row[n] = i;
            rp[++n] = A->rowptr[i + 1];
        }
    hspmv_free(A->rowptr);
    A->rowptr = rp;
    A->nrows = nr;
    blk->nrows = nr;
    return HSPMV_OK;
}

/* The entries of A (compressed rows, blk->row) as row1/col1/val1 when
   every row holds exactly one, as the boundary rows of a 5- or 7-point
   stencil do: multiplied through L and gy, 16 ranks of the real-valued
   lap3d 200 spent 0.46-0.52 ms a product on 80 000 such rows (a tenth of
   the product; 68 bytes an entry moved: row pointer, row map, gy written
   and read), against 40 bytes this way. */
static int single_rows(const hspmv_csr *A, node_block *blk)
{
    if (!blk->row || A->nnz != A->nrows || A->nrows > INT32_MAX) return HSPMV_OK;
    for (int64_t i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] != 1 || blk->row[i] > INT32_MAX) return HSPMV_OK;
    blk->row1 = hspmv_alloc_pages((size_t)A->nrows, sizeof(int32_t));
    blk->col1 = hspmv_alloc_pages((size_t)A->nrows, sizeof(int32_t));
    blk->val1 = hspmv_alloc_pages((size_t)A->nrows, sizeof(hspmv_real));
    if (!blk->row1 || !blk->col1 || !blk->val1) return HSPMV_ERR_NOMEM; /* hspmv_node_block_free frees them */
    for (int64_t i = 0; i < A->nrows; i++) {
        blk->row1[i] = (int32_t)blk->row[i];
        blk->col1[i] = A->colind[i];
        blk->val1[i] = A->val[i];
    }
    return HSPMV_OK;
}

/* A copy of blk's row bookkeeping (the two gather variants share rows). */
static int copy_rows(const node_block *a, node_block *b)
{
    b->nrows = a->nrows;
    if (!a->row) return HSPMV_OK;
    b->row = hspmv_alloc_array((size_t)a->nrows, sizeof(int64_t));
    b->gy = hspmv_alloc_pages((size_t)a->nrows, sizeof(hspmv_real));
    if (!b->row || !b->gy) return HSPMV_ERR_NOMEM;
    memcpy(b->row, a->row, sizeof(int64_t) * (size_t)a->nrows);
    return HSPMV_OK;
}

/* 1 (on every rank) when the node blocks can be shared: the owned columns
   are in them (they are the ranks' whole work), there are other ranks on
   the node, and the blocks are worth timing (or sharing was asked for). */
static int share_fits(hspmv_dist *D, hspmv_node *N, const node_block *nb, int want)
{
    int64_t z[2] = {0, N->size}, g[2]; /* the largest block's entries, the largest node */
    if (nb->L) {
        hspmv_local_info li;
        hspmv_local_get_info(nb->L, &li);
        z[0] = li.nnz;
    }
    MPI_Allreduce(z, g, 2, MPI_INT64_T, MPI_MAX, D->comm);
    return N->merged && g[1] > 1 && (want == HSPMV_GATHER_SHARE || g[0] >= ((int64_t)1 << 16));
}

int hspmv_node_plan(hspmv_dist *D, hspmv_node *N, const hspmv_csr *Ag, const int32_t *g, int64_t ng,
                    hspmv_csr *Ao, const hspmv_opts *o, int timed, hspmv_error *err)
{
    int me = D->rank, rc = HSPMV_OK;
    int want = (int)hspmv_test_int(D->test, "gather", 0); /* HSPMV_TEST's gather=direct|copy|share: 1, 2, 3 */
    hspmv_csr Bn = {0}, Bo = {0};
    int32_t *og = NULL;
    node_block dir[2], cpy[2];
    N->orow0 = 0;
    N->orow1 = D->nrows_local;
    memset(dir, 0, sizeof(dir));
    memset(cpy, 0, sizeof(cpy));

    if (split_ghosts(D, N, Ag, g, ng, &Bn, &Bo, &og) != HSPMV_OK)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory splitting the ghost block by node", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if ((rc = hspmv_node_fold_plan(D, N, Ao, &Bn, err))) goto out;
    if ((rc = offnode_plan(D, N, og, N->no, err))) goto out;
    if (send_segments(N) != HSPMV_OK) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if ((rc = find_readers(D, N, err))) goto out;
    hspmv_free(N->fold_own); /* in the export list now */
    N->fold_own = NULL;
    N->nfold_own = 0;
    if ((rc = hspmv_node_window(D, N, err))) goto out;
    if ((rc = hspmv_node_fold_build(D, N, Ao, &Bn, err))) goto out;

    /* the blocks: compact columns (copy) and columns in the window (direct) */
    if (N->vec_len > INT32_MAX || N->gh_len > INT32_MAX) want = HSPMV_GATHER_COPY; /* int32 columns */
    if (compress_rows(&Bn, &cpy[0]) || compress_rows(&Bo, &cpy[1]) || copy_rows(&cpy[0], &dir[0]) ||
        copy_rows(&cpy[1], &dir[1]))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node blocks", me);
    if (!rc && want != HSPMV_GATHER_DIRECT && want != HSPMV_GATHER_SHARE) {
        if (Bn.nnz > 0) rc = hspmv_local_create(&Bn, o, &cpy[0].L, err);
        if (!rc && Bo.nnz > 0) rc = hspmv_local_create(&Bo, o, &cpy[1].L, err);
        if (!rc && (single_rows(&Bn, &cpy[0]) || single_rows(&Bo, &cpy[1])))
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node blocks", me);
        N->xn = hspmv_alloc_pages((size_t)(N->nn ? N->nn : 1), sizeof(hspmv_real));
        N->xo = hspmv_alloc_pages((size_t)(N->no ? N->no : 1), sizeof(hspmv_real));
        if (!rc && (!N->xn || !N->xo)) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    }
    if (!rc && want != HSPMV_GATHER_COPY) {
        for (int64_t k = 0; k < Bn.nnz; k++) Bn.colind[k] = (int32_t)N->nsrc[Bn.colind[k]];
        for (int64_t k = 0; k < Bo.nnz; k++) Bo.colind[k] = (int32_t)N->osrc[Bo.colind[k]];
        Bn.ncols = N->vec_len;
        Bo.ncols = N->gh_len;
        if (Bn.nnz > 0) rc = hspmv_local_create(&Bn, o, &dir[0].L, err);
        if (!rc && Bo.nnz > 0) rc = hspmv_local_create(&Bo, o, &dir[1].L, err);
        if (!rc && (single_rows(&Bn, &dir[0]) || single_rows(&Bo, &dir[1])))
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the node blocks", me);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if ((!want || want == HSPMV_GATHER_SHARE) && share_fits(D, N, &dir[0], want)) { /* rows shared: node_share.c */
        hspmv_error e2; /* not asked for: a failure only means no sharing */
        int src = hspmv_node_share_build(D, N, &N->share, &Bn, dir[0].L, -1, "node block",
                                         want == HSPMV_GATHER_SHARE ? err : &e2);
        if (src != HSPMV_OK) {
            hspmv_node_share_free(&N->share);
            if (want == HSPMV_GATHER_SHARE) rc = src;
        }
    } else if (want == HSPMV_GATHER_SHARE) {
        want = HSPMV_GATHER_DIRECT; /* nothing to share here: direct */
    }
    if (rc && err && strncmp(err->msg, "rank ", 5) != 0) {
        char tmp[sizeof(err->msg)];
        snprintf(tmp, sizeof(tmp), "%s", err->msg);
        hspmv_err(err, rc, "rank %d: %s", me, tmp);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (want) { /* forced: nothing to choose (the other variant was not built) */
        N->gather = want;
        node_block *keep = want != HSPMV_GATHER_COPY ? dir : cpy, *drop = want != HSPMV_GATHER_COPY ? cpy : dir;
        N->nb = keep[0];
        N->ob = keep[1];
        memset(keep, 0, 2 * sizeof(*keep));
        hspmv_node_block_free(&drop[0]);
        hspmv_node_block_free(&drop[1]);
        if (want != HSPMV_GATHER_COPY) {
            hspmv_free(N->xn);
            hspmv_free(N->xo);
            N->xn = N->xo = NULL;
        }
        if (timed) {
            hspmv_local *g2[2] = {N->nb.L, N->ob.L};
            hspmv_dist_agree_kernels(D, g2, 2, (int64_t)1 << 15);
            if (N->share) hspmv_node_share_kernels(N->share, N->nb.L);
        }
    } else {
        rc = hspmv_node_choose_gather(D, N, dir, cpy, timed, err);
    }
    if (!rc) rc = hspmv_node_choose_replica(D, N, timed, err);
out:
    for (int i = 0; i < 2; i++) {
        hspmv_node_block_free(&dir[i]);
        hspmv_node_block_free(&cpy[i]);
    }
    hspmv_csr_free(&Bn);
    hspmv_csr_free(&Bo);
    hspmv_free(og);
    return rc;
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

void hspmv_node_block_free(node_block *B)
{
    hspmv_local_destroy(&B->L);
    hspmv_free(B->row);
    hspmv_free(B->gy);
    hspmv_free(B->row1);
    hspmv_free(B->col1);
    hspmv_free(B->val1);
    B->row = NULL;
    B->gy = NULL;
    B->row1 = B->col1 = NULL;
    B->val1 = NULL;
}

void hspmv_node_block_add(const node_block *B, const hspmv_real *x, hspmv_real *y, int threads)
{
    hspmv_node_block_mul(B, x, y, threads, 1);
}

void hspmv_node_block_mul(const node_block *B, const hspmv_real *x, hspmv_real *y, int threads, int add)
{
    if (!B->L) return;
    if (!B->row) {
        hspmv_local_spmv(B->L, x, y, add);
        return;
    }
    const int64_t *r = B->row, n = B->nrows;
    const hspmv_real *gy = B->gy;
    if (B->val1) { /* one entry a row: rows differ, so entries may go to any thread */
        const int32_t *r1 = B->row1, *c1 = B->col1;
        const hspmv_real *v1 = B->val1;
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 32768)
        for (int64_t i = 0; i < n; i++) y[r1[i]] += v1[i] * x[c1[i]];
        return;
    }
    hspmv_local_spmv(B->L, x, B->gy, 0);
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 32768)
    for (int64_t i = 0; i < n; i++) y[r[i]] += gy[i];
}
