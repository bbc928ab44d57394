/* read_partition.c — the row partition agreed from row counts spread over
   the ranks (no rank holds the whole row pointer), and per-row data and
   CSR rows moved between two contiguous row partitions. */
#include <string.h>
#include "read_parallel.h"

/* First e in [lo, hi) with (double)rp(e) >= target, or hi; rp(e) = base + pre[e - b0].
   Binary search as hspmv_partition_nnz's, on this rank's part of the row pointer. */
static int64_t first_reaching(const int64_t *pre, int64_t b0, int64_t base, int64_t lo, int64_t hi, double target)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((double)(base + pre[mid - b0]) >= target) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

int hspmv_partition_nnz_spread(MPI_Comm comm, const int64_t *bs, const int64_t *cnt, int64_t nrows, int64_t *start,
                               hspmv_error *err)
{
    int me, P, rc = HSPMV_OK;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    int64_t b0 = bs[me], nl = bs[me + 1] - bs[me];
    int64_t *pre = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    int64_t *blk = hspmv_alloc_array((size_t)P * 2, sizeof(int64_t)); /* per block: rp at its first row, at its last */
    if (!pre || !blk) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the partition", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    pre[0] = 0;
    for (int64_t i = 0; i < nl; i++) pre[i + 1] = pre[i] + cnt[i];
    int64_t base = 0, total = 0, mine[2];
    if (MPI_Exscan(&pre[nl], &base, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&pre[nl], &total, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Exscan of the row counts failed", me);
    if (me == 0) base = 0; /* MPI_Exscan leaves rank 0's undefined */
    mine[0] = base;
    mine[1] = nl > 0 ? base + pre[nl - 1] : base;
    if (!rc && MPI_Allgather(mine, 2, MPI_INT64_T, blk, 2, MPI_INT64_T, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allgather of the block counts failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if (total == 0) {
        hspmv_partition_rows(nrows, P, start);
        goto out;
    }
    /* the seed's loop, in lock step on every rank: the rank whose block holds
       the answer finds it and broadcasts it with rp at that row */
    double avg = (double)total / P;
    int64_t b = 0, rpb = 0;
    start[0] = 0;
    for (int p = 0; p < P - 1 && !rc; p++) {
        int64_t e = b;
        if (b < nrows) {
            double target = (double)rpb + avg;
            int q = -1;
            for (int s = 0; s < P && q < 0; s++) /* the first block with a row >= b+1 reaching the target */
                if (bs[s + 1] > bs[s] && bs[s + 1] - 1 >= b + 1 && (double)blk[2 * s + 1] >= target) q = s;
            if (q < 0) {
                e = nrows;
            } else {
                int64_t msg[2] = {0, 0};
                if (q == me) {
                    int64_t lo = b + 1 > b0 ? b + 1 : b0;
                    e = first_reaching(pre, b0, base, lo, b0 + nl, target);
                    if ((p & 1) && e - 1 > b && e < nrows) e--; /* shrink */
                    msg[0] = e;
                    if (e >= b0) msg[1] = base + pre[e - b0];
                    else /* e = b0 - 1: the last row of an earlier block */
                        for (int s = 0; s < P; s++)
                            if (bs[s] <= e && e < bs[s + 1]) msg[1] = blk[2 * s + 1];
                }
                if (MPI_Bcast(msg, 2, MPI_INT64_T, q, comm) != MPI_SUCCESS)
                    rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of a partition point failed", me);
                e = msg[0];
                rpb = msg[1];
            }
        }
        start[p + 1] = b = e;
        if (e >= nrows) rpb = total;
    }
    start[P] = nrows;
    rc = hspmv_dist_agree(comm, rc, err);
out:
    hspmv_free(pre);
    hspmv_free(blk);
    return rc;
}

/* Overlap of [a0, a1) and [b0, b1): its start in *s, its length returned. */
static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1, int64_t *s)
{
    *s = a0 > b0 ? a0 : b0;
    int64_t e = a1 < b1 ? a1 : b1;
    return e > *s ? e - *s : 0;
}

int hspmv_move_counts(MPI_Comm comm, const int64_t *from, const int64_t *to, const int64_t *in, int64_t *out,
                      hspmv_error *err)
{
    int me, P, rc = HSPMV_OK;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    int *c = hspmv_alloc_array((size_t)P * 4, sizeof(int));
    if (!c) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) return rc;
    int *sc = c, *sd = c + P, *rcn = c + 2 * P, *rd = c + 3 * P;
    for (int q = 0; q < P; q++) { /* rows stay below 2^31: every count and place is an int */
        int64_t s;
        sc[q] = (int)overlap(from[me], from[me + 1], to[q], to[q + 1], &s);
        sd[q] = (int)(s - from[me]);
        rcn[q] = (int)overlap(from[q], from[q + 1], to[me], to[me + 1], &s);
        rd[q] = (int)(s - to[me]);
        if (!sc[q]) sd[q] = 0;
        if (!rcn[q]) rd[q] = 0;
    }
    if (MPI_Alltoallv(in, sc, sd, MPI_INT64_T, out, rcn, rd, MPI_INT64_T, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoallv of row data failed", me);
    hspmv_free(c);
    return hspmv_dist_agree(comm, rc, err);
}

/* Nonblocking send or receive of n elements in pieces below 2^31. */
static int post(int send, void *buf, int64_t n, MPI_Datatype t, int peer, int tag, MPI_Comm comm, MPI_Request *rq,
                int *nrq)
{
    int size;
    MPI_Type_size(t, &size);
    for (int64_t k = 0; k < n; k += HSPMV_DIST_CHUNK_MAX) {
        int m = (int)(n - k < HSPMV_DIST_CHUNK_MAX ? n - k : HSPMV_DIST_CHUNK_MAX);
        char *p = (char *)buf + k * size;
        int r = send ? MPI_Isend(p, m, t, peer, tag, comm, &rq[*nrq]) : MPI_Irecv(p, m, t, peer, tag, comm, &rq[*nrq]);
        if (r != MPI_SUCCESS) return HSPMV_ERR_MPI;
        (*nrq)++;
    }
    return HSPMV_OK;
}

int hspmv_move_rows(MPI_Comm comm, const int64_t *from, const int64_t *to, hspmv_csr *S, hspmv_error *err)
{
    int me, P, rc = HSPMV_OK, nrq = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    int64_t nl = from[me + 1] - from[me], nt = to[me + 1] - to[me];
    int64_t *len = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    hspmv_csr T = {0};
    MPI_Request *rq = NULL;
    T.nrows = nt;
    T.ncols = S->ncols;
    T.rowptr = hspmv_alloc_array((size_t)nt + 1, sizeof(int64_t));
    if (!len || !T.rowptr) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory moving rows", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    for (int64_t i = 0; i < nl; i++) len[i] = S->rowptr[i + 1] - S->rowptr[i];
    if ((rc = hspmv_move_counts(comm, from, to, len, T.rowptr + 1, err))) goto out;
    T.rowptr[0] = 0;
    for (int64_t i = 0; i < nt; i++) T.rowptr[i + 1] += T.rowptr[i];
    T.nnz = T.rowptr[nt];
    T.colind = hspmv_alloc_array((size_t)(T.nnz ? T.nnz : 1), sizeof(int32_t));
    T.val = hspmv_alloc_array((size_t)(T.nnz ? T.nnz : 1), sizeof(hspmv_real));
    /* at most 2 messages per peer per array per 2^30 entries */
    int64_t most = 4 * (int64_t)P * (1 + (S->nnz + T.nnz) / HSPMV_DIST_CHUNK_MAX);
    rq = hspmv_alloc_array((size_t)most, sizeof(MPI_Request));
    if (!T.colind || !T.val || !rq) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory moving rows", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    for (int q = 0; q < P && !rc; q++) {
        int64_t s, n = overlap(from[q], from[q + 1], to[me], to[me + 1], &s);
        if (n == 0 || q == me) continue;
        int64_t a = T.rowptr[s - to[me]], z = T.rowptr[s - to[me] + n] - a;
        rc = post(0, T.colind + a, z, MPI_INT32_T, q, 1, comm, rq, &nrq);
        if (!rc) rc = post(0, T.val + a, z, HSPMV_MPI_REAL, q, 2, comm, rq, &nrq);
    }
    for (int q = 0; q < P && !rc; q++) {
        int64_t s, n = overlap(from[me], from[me + 1], to[q], to[q + 1], &s);
        if (n == 0) continue;
        int64_t a = S->rowptr[s - from[me]], z = S->rowptr[s - from[me] + n] - a;
        if (q == me) {
            int64_t d = T.rowptr[s - to[me]];
            memcpy(T.colind + d, S->colind + a, (size_t)z * sizeof(int32_t));
            memcpy(T.val + d, S->val + a, (size_t)z * sizeof(hspmv_real));
            continue;
        }
        rc = post(1, S->colind + a, z, MPI_INT32_T, q, 1, comm, rq, &nrq);
        if (!rc) rc = post(1, S->val + a, z, HSPMV_MPI_REAL, q, 2, comm, rq, &nrq);
    }
    if (rc) rc = hspmv_err(err, rc, "rank %d: posting the row messages failed", me);
    if (MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS && !rc)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: moving rows failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    hspmv_csr_free(S);
    *S = T;
    memset(&T, 0, sizeof(T));
out:
    hspmv_free(len);
    hspmv_free(rq);
    hspmv_csr_free(&T);
    return rc;
}
