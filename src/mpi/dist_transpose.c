/* dist_transpose.c — Y = A^T X on a distributed matrix (PETSc's
   MatMultTranspose_MPIAIJ): the rank's rows transposed into an owned part
   (x-like rows) and a ghost part (one row per ghost column), whose results
   go back to the ghost columns' owners and are summed there: the p2p halo
   in reverse (halo "node": through a shared window within a node, by
   message between nodes). Made on the first transposed call
   (dist_transpose_plan.c), then kept. */
#include <limits.h>
#include <string.h>
#include "dist.h"
#include "dist_transpose.h"
#include "local.h"
#include "local_calls.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

enum { TAG_TRANSPOSE = 12 };

/* Halo node: a rank's flags at the start of its segment of the window
   (call numbers: release stores, acquire loads), each on its own 128 bytes. */
typedef struct tr_flags {
    uint64_t ready; /* its contributions of call n are in half n % 2 */
    char pad0[120];
    uint64_t done;  /* call n: it has read the halves of the senders on its node */
    char pad1[120];
} tr_flags;

struct hspmv_dist_tr {
    hspmv_dist *At;    /* A^T held by its columns' owners (dist_transpose_owner.c), multiplied as A is;
                          NULL: the reverse halo below */
    hspmv_local *To;   /* the owned part transposed: ncols_local x nrows_local; NULL when it has no entries */
    hspmv_local *Tg;   /* the ghost part transposed: nghost x nrows_local; NULL when it has no entries */
    int k;             /* vectors the buffers hold */
    int npieces;       /* the owned part of one vector is multiplied in this many parts, messages
                          progressing between them (as the owned block: halo_plan.c's prepare_owned) */
    hspmv_real *gv;    /* nghost*k: this rank's contributions to the ghost columns, sent to their owners
                          (halo node: its two halves in the node window, by call parity) */
    hspmv_real *rv;    /* send_ptr[nsend]*k: the contributions others send to this rank's columns */
    MPI_Request *req;  /* nrecv + nsend entries (at least 1) */
    /* halo node: the ranks of a node leave their contributions in a shared window, where the
       owners read them; only those for other nodes travel by message */
    MPI_Win win;
    int have_win;
    uint64_t calls;    /* products since the window was made (the parity of gv's half) */
    tr_flags **fl;     /* node size entries: each node rank's flags */
    hspmv_real **peer; /* node size entries: each node rank's two halves */
    int64_t *half;     /* node size entries: the length of each node rank's half */
    int *peer_q;       /* nsend entries: node rank of sender s, -1 when on another node */
    int64_t *peer_off; /* nsend entries: where sender s's ghosts of this rank start in its gv */
    int *owner_q;      /* nrecv entries: node rank of owner r (who reads gv; nothing sent), -1 when on another node */
};

/* Frees the node window (collective over the node). */
static void window_free(hspmv_dist_tr *t)
{
    if (t->have_win) {
        MPI_Win_unlock_all(t->win);
        MPI_Win_free(&t->win);
    }
    t->have_win = 0;
    t->gv = NULL;
}

void hspmv_dist_transpose_free(hspmv_dist *D)
{
    hspmv_dist_tr *t = D->tr;
    if (!t) return;
    hspmv_dist_destroy(&t->At);
    hspmv_local_destroy(&t->To);
    hspmv_local_destroy(&t->Tg);
    if (t->have_win) window_free(t);
    else hspmv_free(t->gv);
    hspmv_free(t->rv);
    hspmv_free(t->req);
    hspmv_free(t->fl);
    hspmv_free(t->peer);
    hspmv_free(t->half);
    hspmv_free(t->peer_q);
    hspmv_free(t->peer_off);
    hspmv_free(t->owner_q);
    hspmv_free(t);
    D->tr = NULL;
}

/* Halo node: which senders and owners are on this node, and where each
   sender's ghosts of this rank start in its gv (one MPI_Alltoall of those
   starts). Collective, agreed. */
static int node_lists(hspmv_dist *D, hspmv_dist_tr *t, hspmv_error *err)
{
    const hspmv_node *N = D->node;
    int P = D->size, rc = HSPMV_OK;
    int64_t *mine = hspmv_alloc_array((size_t)P, sizeof(int64_t)), *theirs = hspmv_alloc_array((size_t)P, sizeof(int64_t));
    t->peer = hspmv_calloc((size_t)N->size, sizeof(hspmv_real *));
    t->half = hspmv_calloc((size_t)N->size, sizeof(int64_t));
    t->peer_q = hspmv_alloc_array((size_t)D->nsend + 1, sizeof(int));
    t->peer_off = hspmv_alloc_array((size_t)D->nsend + 1, sizeof(int64_t));
    t->fl = hspmv_calloc((size_t)N->size, sizeof(tr_flags *));
    t->owner_q = hspmv_alloc_array((size_t)D->nrecv + 1, sizeof(int));
    if (!mine || !theirs || !t->peer || !t->half || !t->peer_q || !t->peer_off || !t->fl ||
        !t->owner_q)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the transposed node plan", D->rank);
    if (!(rc = hspmv_dist_agree(D->comm, rc, err))) {
        for (int q = 0; q < P; q++) mine[q] = -1;
        for (int r = 0; r < D->nrecv; r++) {
            mine[D->recv_rank[r]] = D->recv_ptr[r];
            t->owner_q[r] = hspmv_node_rank_of(N, D->recv_rank[r]);
        }
        if (MPI_Alltoall(mine, 1, MPI_INT64_T, theirs, 1, MPI_INT64_T, D->comm) != MPI_SUCCESS)
            rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoall of the transposed plan failed", D->rank);
        for (int s = 0; !rc && s < D->nsend; s++) {
            t->peer_q[s] = hspmv_node_rank_of(N, D->send_rank[s]);
            t->peer_off[s] = theirs[D->send_rank[s]];
        }
        rc = hspmv_dist_agree(D->comm, rc, err);
    }
    hspmv_free(mine);
    hspmv_free(theirs);
    return rc;
}


/* Halo node: gv as this rank's part of a node window (its flags, then two
   halves of nghost*k values), every node rank's part mapped, the flags
   zeroed before any rank reads them, and the call count started again.
   Collective over D->comm (agreed). */
static int node_window(hspmv_dist *D, hspmv_dist_tr *t, int k, hspmv_error *err)
{
    const hspmv_node *N = D->node;
    int64_t h = D->nghost * k > 0 ? D->nghost * k : 1;
    char *mine = NULL;
    int rc = HSPMV_OK;
    if (MPI_Win_allocate_shared((MPI_Aint)(sizeof(tr_flags) + (size_t)(2 * h) * sizeof(hspmv_real)), 1,
                                MPI_INFO_NULL, N->comm, &mine, &t->win) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: no shared window of %lld values for the transposed product",
                       D->rank, (long long)(2 * h));
    else {
        t->have_win = 1;
        MPI_Win_lock_all(MPI_MODE_NOCHECK, t->win);
        memset(mine, 0, sizeof(tr_flags));
        t->gv = (hspmv_real *)(mine + sizeof(tr_flags));
        for (int q = 0; q < N->size && !rc; q++) {
            MPI_Aint sz;
            int du;
            char *b = NULL;
            if (MPI_Win_shared_query(t->win, q, &sz, &du, &b) != MPI_SUCCESS || !b)
                rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Win_shared_query gave no memory", D->rank);
            t->fl[q] = (tr_flags *)b;
            t->peer[q] = (hspmv_real *)(b + sizeof(tr_flags));
            t->half[q] = ((int64_t)sz - (int64_t)sizeof(tr_flags)) / (int64_t)sizeof(hspmv_real) / 2;
        }
        MPI_Win_sync(t->win);
    }
    t->calls = 0;
    rc = hspmv_dist_agree(D->comm, rc, err); /* also: every rank zeroed its flags before any reads them */
    if (t->have_win) MPI_Win_sync(t->win);
    return rc;
}

/* Node mode keeps no rank-to-rank plan: it is made from the ghost columns
   (D->ghost_col) on the first transposed call. A failed attempt leaves
   none behind (the next call tries again). Collective, agreed. */
static int reverse_plan(hspmv_dist *D, hspmv_error *err)
{
    int rc = HSPMV_OK;
    int32_t *g;
    if (D->halo != HSPMV_HALO_NODE || D->recv_ptr) return HSPMV_OK;
    g = hspmv_alloc_array((size_t)(D->nghost ? D->nghost : 1), sizeof(int32_t));
    if (!g) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the transposed halo plan", D->rank);
    for (int64_t j = 0; g && j < D->nghost; j++) g[j] = (int32_t)D->ghost_col[j];
    if (!(rc = hspmv_dist_agree(D->comm, rc, err))) rc = hspmv_halo_p2p_plan(D, g, err);
    hspmv_free(g);
    if (rc) {
        hspmv_free(D->recv_rank);
        hspmv_free(D->recv_ptr);
        hspmv_free(D->send_rank);
        hspmv_free(D->send_ptr);
        hspmv_free(D->send_idx);
        hspmv_free(D->sendbuf);
        hspmv_free(D->req);
        D->recv_rank = D->send_rank = NULL;
        D->recv_ptr = D->send_ptr = NULL;
        D->send_idx = NULL;
        D->sendbuf = NULL;
        D->req = NULL;
        D->nrecv = D->nsend = 0;
    }
    return rc;
}

/* Parts of the owned transposed product: one without messages (halo node:
   none between nodes), else one per 2^17 entries (2^15 per thread), at
   most HSPMV_DIST_PIECES_MAX:
   without a single-copy transport a message moves only while both ranks
   are inside MPI (halo_plan.c's prepare_owned says how much that costs).
   HSPMV_TEST's dist_pieces forces a count. */
static int owned_pieces(const hspmv_dist *D, const hspmv_dist_tr *t)
{
    long forced = hspmv_test_int(D->test, "dist_pieces", 0);
    int64_t per = (int64_t)1 << 17, nnz = D->nnz_owned;
    int msgs = 0;
    for (int r = 0; r < D->nrecv; r++) msgs += !t->have_win || t->owner_q[r] < 0;
    for (int s = 0; s < D->nsend; s++) msgs += !t->have_win || t->peer_q[s] < 0;
    if (per < (int64_t)D->threads << 15) per = (int64_t)D->threads << 15;
    if (forced > 0) return forced > HSPMV_DIST_PIECES_MAX ? HSPMV_DIST_PIECES_MAX : (int)forced;
    if (msgs == 0) return 1;
    return nnz / per > HSPMV_DIST_PIECES_MAX ? HSPMV_DIST_PIECES_MAX : nnz / per < 1 ? 1 : (int)(nnz / per);
}

/* The transposed parts and buffers for k vectors, made when missing or
   too small. Collective, agreed (every rank passes the same k, so every
   rank comes here with the same history). */
static int setup(hspmv_dist *D, int k, hspmv_error *err)
{
    int rc = HSPMV_OK, me = D->rank;
    hspmv_dist_tr *t = D->tr;
    if (t && (t->At || t->k >= k)) return HSPMV_OK;
    if (!t) {
        int owner = hspmv_test_int(D->test, "transpose", D->halo == HSPMV_HALO_NODE ? 2 : 1) == 2;
        t = hspmv_calloc(1, sizeof(*t));
        if (!t) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the transposed product", me);
        else if (!owner) rc = hspmv_dist_tr_parts(D, &t->To, &t->Tg, err);
        D->tr = t;
        if (owner) {
            if (!(rc = hspmv_dist_agree(D->comm, rc, err))) rc = hspmv_dist_tr_matrix(D, &t->At, err);
            if (rc) hspmv_dist_transpose_free(D);
            return rc;
        }
        if (!(rc = hspmv_dist_agree(D->comm, rc, err))) rc = reverse_plan(D, err);
        if (rc) {
            hspmv_dist_transpose_free(D);
            return rc;
        }
        if (D->halo == HSPMV_HALO_NODE && (rc = node_lists(D, t, err))) {
            hspmv_dist_transpose_free(D);
            return rc;
        }
    }
    /* buffers for k vectors */
    int64_t nr = D->send_ptr[D->nsend];
    if (t->have_win) window_free(t);
    else hspmv_free(t->gv);
    hspmv_free(t->rv);
    hspmv_free(t->req);
    t->k = 0;
    t->gv = NULL;
    if (D->halo == HSPMV_HALO_NODE && (rc = node_window(D, t, k, err))) return rc;
    if (!t->gv) t->gv = hspmv_alloc_pages((size_t)(D->nghost ? D->nghost * k : 1), sizeof(hspmv_real));
    t->rv = hspmv_alloc_pages((size_t)(nr ? nr * k : 1), sizeof(hspmv_real));
    t->req = hspmv_alloc_array((size_t)(D->nrecv + D->nsend + 1), sizeof(MPI_Request));
    if (!t->gv || !t->rv || !t->req)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %d transposed vectors", me, k);
    else if ((D->nghost * k > INT_MAX || nr * k > INT_MAX))
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %d vectors of %lld ghosts pass a message's 2^31 values",
                       me, k, (long long)D->nghost);
    rc = hspmv_dist_agree(D->comm, rc, err);
    if (!rc) t->k = k;
    if (!rc) t->npieces = owned_pieces(D, t); /* after the window: messages only between nodes */
    return rc;
}

/* Where sender s's contributions of call parity b are: received, or in its half of the window. */
static const hspmv_real *contributions(const hspmv_dist *D, const hspmv_dist_tr *t, int s, int k, int b)
{
    int q = t->have_win ? t->peer_q[s] : -1;
    if (q < 0) return t->rv + D->send_ptr[s] * k;
    return t->peer[q] + b * t->half[q] + t->peer_off[s] * k;
}

/* Y += every sender's contributions, senders in order for every row (the
   same sums every call, whatever the threads). A sender's rows are
   distinct and ascending (its ghosts owned here), so each thread takes a
   range of Y's rows and, sender by sender, the entries falling in it. */
static void add_received(const hspmv_dist *D, const hspmv_dist_tr *t, int k, int b, hspmv_real *Y)
{
    int64_t ne = D->send_ptr[D->nsend], nl = D->ncols_local;
#pragma omp parallel num_threads(D->threads) if (ne * k > 32768)
    {
        int id = hspmv_omp_thread(), nt = omp_get_num_threads();
        int64_t r0 = nl * id / nt, r1 = nl * (id + 1) / nt;
        for (int s = 0; s < D->nsend; s++) {
            const int32_t *si = D->send_idx + D->send_ptr[s];
            const hspmv_real *rv = contributions(D, t, s, k, b); /* rv[e*k + j]: value j of entry e */
            int64_t ns = D->send_ptr[s + 1] - D->send_ptr[s];
            int64_t e0 = nt > 1 ? hspmv_dist_lower_i32(si, ns, r0) : 0, e1 = nt > 1 ? hspmv_dist_lower_i32(si, ns, r1) : ns;
            if (k == 1)
                for (int64_t e = e0; e < e1; e++) Y[si[e]] += rv[e];
            else
                for (int64_t e = e0; e < e1; e++)
                    for (int j = 0; j < k; j++) Y[(int64_t)si[e] * k + j] += rv[e * k + j];
        }
    }
}

/* One product of k row-major vectors: the receives posted, the ghost
   contributions, their messages started (halo node: on-node ones left in
   the window, ready published), the owned part meanwhile (messages
   progressing between its pieces), then the received values added.
   Halo node, why the two halves suffice: a rank writes half b in call n
   only after every owner reading it published done >= n - 2, so after
   they read call n-2's values there; an owner reads a sender's half in
   call n after the sender published ready >= n, and the sender cannot
   be past call n+1 before this owner's done >= n. No barrier: a rank
   waits only for the ranks it reads from or writes for, and the owned
   part runs before it waits for the senders. */
static int product(hspmv_dist *D, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    hspmv_dist_tr *t = D->tr;
    hspmv_dist_timing *tm = &D->timing;
    uint64_t n = ++t->calls;
    int rc = HSPMV_OK, nreq = 0, b = (int)(n & 1), win = t->have_win, me = win ? D->node->rank : 0;
    int64_t nl = D->ncols_local;
    double t0 = MPI_Wtime(), sync = 0;
    hspmv_real *gv = win ? t->gv + b * t->half[me] : t->gv;
    for (int s = 0; s < D->nsend; s++) /* what this rank owns and others have as ghosts */
        if (!(win && t->peer_q[s] >= 0) &&
            MPI_Irecv(t->rv + D->send_ptr[s] * k, (int)((D->send_ptr[s + 1] - D->send_ptr[s]) * k), HSPMV_MPI_REAL,
                      D->send_rank[s], TAG_TRANSPOSE, D->comm, &t->req[nreq++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    for (int r = 0; win && n > 2 && r < D->nrecv; r++) /* its readers are done with call n-2 */
        if (t->owner_q[r] >= 0) sync += hspmv_node_wait(&t->fl[t->owner_q[r]]->done, n - 2);
    double t1 = MPI_Wtime();
    if (t->Tg) hspmv_local_spmm(t->Tg, 0, k, X, gv, 0, NULL);
    else if (D->nghost) memset(gv, 0, sizeof(hspmv_real) * (size_t)(D->nghost * k));
    double t2 = MPI_Wtime();
    for (int r = 0; r < D->nrecv; r++)
        if (!(win && t->owner_q[r] >= 0) &&
            MPI_Isend(gv + D->recv_ptr[r] * k, (int)((D->recv_ptr[r + 1] - D->recv_ptr[r]) * k), HSPMV_MPI_REAL,
                      D->recv_rank[r], TAG_TRANSPOSE, D->comm, &t->req[nreq++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    if (win) hspmv_node_publish(&t->fl[me]->ready, n);
    double t3 = MPI_Wtime();
    if (!t->To) {
        if (nl) memset(Y, 0, sizeof(hspmv_real) * (size_t)(nl * k));
    } else if (k == 1) {
        for (int c = 0; c < t->npieces; c++) {
            int flag;
            hspmv_local_spmv_part(t->To, c, t->npieces, X, Y, 0);
            if (c + 1 < t->npieces && nreq) MPI_Testall(nreq, t->req, &flag, MPI_STATUSES_IGNORE);
        }
    } else {
        hspmv_local_spmm(t->To, 0, k, X, Y, 0, NULL);
    }
    double t4 = MPI_Wtime();
    if (nreq && MPI_Waitall(nreq, t->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) rc = HSPMV_ERR_MPI;
    double t5 = MPI_Wtime();
    for (int s = 0; win && s < D->nsend; s++)
        if (t->peer_q[s] >= 0) sync += hspmv_node_wait(&t->fl[t->peer_q[s]]->ready, n);
    double t6 = MPI_Wtime();
    add_received(D, t, k, b, Y);
    if (win) hspmv_node_publish(&t->fl[me]->done, n);
    double t7 = MPI_Wtime();
    tm->post_s += (t1 - t0) + (t3 - t2) - sync + (t6 - t5);
    tm->ghost_s += (t2 - t1) + (t7 - t6);
    tm->owned_s += t4 - t3;
    tm->wait_s += t5 - t4;
    tm->sync_s += sync;
    tm->calls++;
    tm->total_s += t7 - t0;
    if (rc) return hspmv_err(err, rc, "rank %d: the transposed halo exchange failed", D->rank);
    return hspmv_ok(err);
}

/* Y = A^T X as At X, its times added to D's. */
static int product_owner(hspmv_dist *D, int flags, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    hspmv_dist *At = D->tr->At;
    hspmv_dist_timing a = At->timing, *tm = &D->timing;
    int rc = hspmv_dist_spmm(At, flags & HSPMV_COL_MAJOR, k, X, Y, err);
    const hspmv_dist_timing *b = &At->timing;
    tm->post_s += b->post_s - a.post_s;
    tm->owned_s += b->owned_s - a.owned_s;
    tm->wait_s += b->wait_s - a.wait_s;
    tm->ghost_s += b->ghost_s - a.ghost_s;
    tm->sync_s += b->sync_s - a.sync_s;
    tm->total_s += b->total_s - a.total_s;
    tm->calls += b->calls - a.calls;
    return rc;
}

int hspmv_dist_spmm_transpose(hspmv_dist *D, int flags, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    int colmajor = (flags & HSPMV_COL_MAJOR) != 0 && k > 1;
    int rc = setup(D, colmajor ? 1 : k, err);
    if (rc) return rc;
    if (D->tr->At) return product_owner(D, flags, k, X, Y, err);
    if (!colmajor) return product(D, k, X, Y, err);
    for (int j = 0; j < k && !rc; j++) /* column-major: one vector after another */
        rc = product(D, 1, X + (size_t)j * (size_t)D->nrows_local, Y + (size_t)j * (size_t)D->ncols_local, err);
    return rc;
}
