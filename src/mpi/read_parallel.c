/* read_parallel.c — every rank reads a byte range of the file: the prologue
   read by rank 0 and broadcast, the ranges parsed by each rank's threads,
   the first fault in file order found and re-parsed with its true line,
   rows counted and the partition agreed from counts spread over the ranks,
   entries (and mirrors) sent to their owners, rows sorted and summed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "csr_build.h"
#include "dist_mem.h"
#include "read_parallel.h"

/* The prologue as rank 0 read it, sent as bytes (same program everywhere). */
typedef struct prologue_msg {
    mtx_header h;
    int64_t data_offset, lines, file_size;
    int splittable, gzip;
} prologue_msg;

/* Rank 0's path to every rank (the parallel read opens it everywhere). */
static int share_path(MPI_Comm comm, int me, const char *path, char **out, hspmv_error *err)
{
    long long len = me == 0 && path ? (long long)strlen(path) : -1;
    int rc = HSPMV_OK;
    *out = NULL;
    if (MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm) != MPI_SUCCESS)
        return hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the file name failed", me);
    if (len < 0) return hspmv_err(err, HSPMV_ERR_ARG, "rank 0: no file name given");
    if (!(*out = malloc((size_t)len + 1))) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) return rc;
    if (me == 0) memcpy(*out, path, (size_t)len + 1);
    if (MPI_Bcast(*out, (int)len + 1, MPI_CHAR, 0, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the file name failed", me);
    return hspmv_dist_agree(comm, rc, err);
}

/* This rank's part of x: the rows' split when square, else the columns
   split evenly (hspmv_dist_column_layout). */
static int64_t share_cols(int64_t nrows, int64_t ncols, const int64_t *rs, int me, int P)
{
    if (nrows == ncols) return rs[me + 1] - rs[me];
    return (int64_t)((__int128)ncols * (me + 1) / P) - (int64_t)((__int128)ncols * me / P);
}

/* Rank 0 reads the file whole and sends each rank its rows (gzip, pipes). */
static int rows_from_root(const char *path, MPI_Comm comm, const char *test, int method, int threads, int keep, hspmv_csr *S,
                          int64_t *rs, read_stats *st, hspmv_error *err)
{
    int me, P, rc = HSPMV_OK;
    hspmv_csr A = {0};
    hspmv_read_info info = {0, 0, 0, 0};
    int64_t hdr[2] = {0, 0}, *nz = NULL;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    double t0 = MPI_Wtime();
    if (me == 0) {
        hspmv_read_opts ro = {NULL, NULL, threads};
        rc = hspmv_csr_read(path, &A, &ro, &info, err);
        st->bytes = info.bytes;
    }
    if ((rc = hspmv_dist_agree(comm, rc, err))) return rc;
    double t1 = MPI_Wtime();
    st->read_s = t1 - t0;
    if (!(nz = hspmv_calloc((size_t)P + 1, sizeof(int64_t)))) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if (me == 0 && !rc) {
        if (method == HSPMV_PART_ROWS) hspmv_partition_rows(A.nrows, P, rs);
        else hspmv_partition_nnz(A.rowptr, A.nrows, P, rs);
        for (int p = 0; p < P; p++) nz[p] = A.rowptr[rs[p + 1]] - A.rowptr[rs[p]];
        hdr[0] = A.nrows;
        hdr[1] = A.ncols;
    }
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if (MPI_Bcast(hdr, 2, MPI_INT64_T, 0, comm) != MPI_SUCCESS || MPI_Bcast(rs, P + 1, MPI_INT64_T, 0, comm) != MPI_SUCCESS ||
        MPI_Bcast(nz, P, MPI_INT64_T, 0, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the partition failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    double t2 = MPI_Wtime();
    st->partition_s = t2 - t1;
    int64_t nl = rs[me + 1] - rs[me];
    /* what this rank will hold, refused before it is allocated (rank 0's
       whole matrix was checked by its read) */
    char whole[160];
    snprintf(whole, sizeof(whole), "a %lld x %lld matrix of %lld entries", (long long)hdr[0], (long long)hdr[1],
             (long long)(me == 0 ? A.nnz : 0));
    if (MPI_Bcast(whole, (int)sizeof(whole), MPI_CHAR, 0, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the matrix size failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    share_need sn = {nl, nz[me], share_cols(hdr[0], hdr[1], rs, me, P), keep != READ_ROWS,
                     keep == READ_MATRIX_WINDOW};
    if ((rc = hspmv_dist_check_share(comm, &sn, path, 0, whole, err))) goto out;
    S->nrows = nl;
    S->ncols = hdr[1];
    S->nnz = nz[me];
    S->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    S->colind = hspmv_alloc_array((size_t)(S->nnz ? S->nnz : 1), sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)(S->nnz ? S->nnz : 1), sizeof(hspmv_real));
    if (!S->rowptr || !S->colind || !S->val)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld rows", me, (long long)nl);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if (me == 0) {
        for (int p = 1; p < P && !rc; p++) {
            int64_t a = A.rowptr[rs[p]];
            rc = hspmv_dist_send(A.rowptr + rs[p], rs[p + 1] - rs[p] + 1, MPI_INT64_T, p, 1, comm, test);
            if (!rc) rc = hspmv_dist_send(A.colind + a, nz[p], MPI_INT32_T, p, 2, comm, test);
            if (!rc) rc = hspmv_dist_send(A.val + a, nz[p], HSPMV_MPI_REAL, p, 3, comm, test);
        }
        memcpy(S->rowptr, A.rowptr, sizeof(int64_t) * ((size_t)nl + 1));
        memcpy(S->colind, A.colind, sizeof(int32_t) * (size_t)S->nnz);
        memcpy(S->val, A.val, sizeof(hspmv_real) * (size_t)S->nnz);
    } else {
        rc = hspmv_dist_recv(S->rowptr, nl + 1, MPI_INT64_T, 0, 1, comm, test);
        if (!rc) rc = hspmv_dist_recv(S->colind, S->nnz, MPI_INT32_T, 0, 2, comm, test);
        if (!rc) rc = hspmv_dist_recv(S->val, S->nnz, HSPMV_MPI_REAL, 0, 3, comm, test);
        for (int64_t i = nl; i >= 0 && !rc; i--) S->rowptr[i] -= S->rowptr[0];
    }
    if (rc) hspmv_err(err, rc, "rank %d: sending the rows failed", me);
    rc = hspmv_dist_agree(comm, rc, err);
    st->distribute_s = MPI_Wtime() - t2;
out:
    hspmv_csr_free(&A);
    hspmv_free(nz);
    if (rc) hspmv_csr_free(S);
    return rc;
}

/* This rank's range parsed by its threads; then the first fault of the
   whole file found from every rank's outcome and reported with its true
   line by the rank that holds it. */
static int parse_ranges(const char *path, int fd, MPI_Comm comm, const mtx_prologue *pr, int T, mtx_piece *pc,
                        int64_t *k_before, read_stats *st, hspmv_error *err)
{
    int me, P, rc = HSPMV_OK;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const int64_t lo = pr->data_offset < pr->file_size ? pr->data_offset : pr->file_size, hi = pr->file_size;
    int64_t rb, re, *all = hspmv_alloc_array((size_t)P * 3, sizeof(int64_t));
    hspmv_error *pe = hspmv_calloc((size_t)T, sizeof(hspmv_error));
    mtx_outcome *po = hspmv_calloc((size_t)T, sizeof(mtx_outcome)), *ro = hspmv_calloc((size_t)P, sizeof(mtx_outcome));
    if (!all || !pe || !po || !ro) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    hspmv_mtx_split(lo, hi, hspmv_mtx_read_chunk_env(), me, P, &rb, &re);
#pragma omp parallel for num_threads(T) schedule(dynamic, 1)
    for (int t = 0; t < T; t++) {
        int64_t b, e;
        hspmv_mtx_split(rb, re, 0, t, T, &b, &e);
        /* lines are counted from 0 here: only a fault's message needs the
           true number, and the first fault is parsed again with it */
        hspmv_mtx_read_range(path, fd, pr, b, e, 0, pr->h.nnz, 0, NULL, NULL, &pc[t], &pe[t]);
        po[t].lines = pc[t].lines;
        po[t].nnz = pc[t].nnz;
        po[t].failed = pc[t].rc != HSPMV_OK;
    }
    /* this rank's outcome: its ranges up to the first that failed */
    int64_t mine[3] = {0, 0, 0};
    for (int t = 0; t < T; t++) {
        st->bytes += pc[t].bytes;
        mine[0] += po[t].lines;
        mine[1] += po[t].nnz;
        if (po[t].failed) {
            mine[2] = 1;
            break;
        }
    }
    if (MPI_Allgather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allgather of the range outcomes failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    *k_before = 0;
    for (int p = 0; p < P; p++) {
        ro[p] = (mtx_outcome){all[3 * p], all[3 * p + 1], (int)all[3 * p + 2]};
        if (p < me) *k_before += all[3 * p + 1];
    }
    mtx_first f;
    hspmv_mtx_decide(pr, ro, P, &f);
    if (f.kind == MTX_FIRST_END) {
        rc = hspmv_mtx_fault_end(path, pr, &f, err); /* the same message on every rank */
    } else if (f.kind == MTX_FIRST_PIECE && f.piece == me) {
        /* the fault is in one of this rank's ranges: which, from its own outcomes */
        mtx_prologue here = *pr;
        mtx_first g;
        here.lines = f.first_line;
        here.h.nnz = f.cap;
        hspmv_mtx_decide(&here, po, T, &g);
        if (g.kind != MTX_FIRST_PIECE) g.piece = 0, g.first_line = f.first_line, g.cap = f.cap; /* cannot happen */
        int64_t b, e;
        hspmv_mtx_split(rb, re, 0, (int)g.piece, T, &b, &e);
        mtx_piece again;
        rc = hspmv_mtx_read_range(path, fd, pr, b, e, g.first_line, g.cap, 0, NULL, NULL, &again, err);
        hspmv_mtx_piece_free(&again);
        if (rc == HSPMV_OK) rc = *pe[g.piece].msg ? hspmv_err(err, pe[g.piece].code, "%s", pe[g.piece].msg)
                                                   : hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    }
    rc = hspmv_dist_agree(comm, rc, err);
out:
    hspmv_free(all);
    hspmv_free(pe);
    hspmv_free(po);
    hspmv_free(ro);
    return rc;
}

/* Collective. Before the rows are counted: this rank's byte range's
   triplets and the counters (and their sums, for the nnz partition) of its
   equal block of rows, refused with the size line's file and line when
   this rank or its node cannot hold them. */
static int check_counting(MPI_Comm comm, const char *path, const mtx_prologue *pr, int method, int T,
                          const int64_t *crs, const char *whole, hspmv_error *err)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const int64_t lo = pr->data_offset < pr->file_size ? pr->data_offset : pr->file_size;
    int64_t rb, re, nb = crs[me + 1] - crs[me];
    hspmv_mtx_split(lo, pr->file_size, hspmv_mtx_read_chunk_env(), me, P, &rb, &re);
    double most = (double)(re - rb) / hspmv_mtx_min_entry_bytes(&pr->h) + 2.0 * T; /* as hspmv_mtx_read_range sizes a range */
    if (most > (double)pr->h.nnz) most = (double)pr->h.nnz;
    double trip = most * (8.0 + sizeof(hspmv_real)), cnt = 8.0 * ((double)nb + 1) * (method == HSPMV_PART_NNZ ? 2 : 1);
    char mine[400];
    snprintf(mine, sizeof(mine), "counting the rows of %s on rank %d (its byte range's triplets %.3g GB, "
             "counts of %lld rows %.3g GB)", whole, me, trip / 1e9, (long long)nb, cnt / 1e9);
    return hspmv_dist_mem_check(comm, trip + cnt, path, pr->lines, mine, whole, err);
}

/* Collective. Once the partition is agreed and before any row of it is
   allocated: what this rank will hold (its rows and entries, counted from
   the row counts of every block, and, for a matrix, its vectors), refused
   as check_counting does. */
static int check_share(MPI_Comm comm, const char *path, const mtx_prologue *pr, int keep, const int64_t *crs,
                       const int64_t *cnt, const int64_t *prov, const char *whole, hspmv_error *err)
{
    int me, P, rc = HSPMV_OK;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    int64_t *to = hspmv_calloc((size_t)P, sizeof(int64_t)), z = 0;
    if (!to) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) return rc;
    /* the entries each rank will receive: the counts of this block's rows in its range, summed */
    for (int q = 0; q < P; q++) {
        int64_t a = prov[q] > crs[me] ? prov[q] : crs[me], b = prov[q + 1] < crs[me + 1] ? prov[q + 1] : crs[me + 1];
        for (int64_t r = a; r < b; r++) to[q] += cnt[r - crs[me]];
    }
    if (MPI_Reduce_scatter_block(to, &z, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Reduce_scatter_block of the entry counts failed", me);
    hspmv_free(to);
    if ((rc = hspmv_dist_agree(comm, rc, err))) return rc;
    /* the triplets and counts held now are not counted again: the limits
       of this process are what it has left (mem.c) */
    int64_t nl = prov[me + 1] - prov[me];
    share_need sn = {nl, z, share_cols(pr->h.nrows, pr->h.ncols, prov, me, P), keep != READ_ROWS,
                     keep == READ_MATRIX_WINDOW};
    return hspmv_dist_check_share(comm, &sn, path, pr->lines, whole, err);
}

int hspmv_read_rows(const char *path0, MPI_Comm comm, const char *test, int method, int threads, int keep, hspmv_csr *S, int64_t *rs,
                    read_stats *st, hspmv_error *err)
{
    int me, P, rc = HSPMV_OK, fd = -1;
    int T = threads > 0 ? threads : omp_get_max_threads();
    char *path = NULL;
    mtx_prologue pr;
    prologue_msg pm;
    mtx_piece *pc = NULL;
    int64_t *crs = NULL, *prov = NULL, *cnt = NULL, *raw = NULL, k_before = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    memset(S, 0, sizeof(*S));
    memset(st, 0, sizeof(*st));
    memset(&pm, 0, sizeof(pm));
    double t0 = MPI_Wtime();
    if ((rc = share_path(comm, me, path0, &path, err))) goto out;

    /* the prologue, once */
    if (me == 0) {
        rc = hspmv_mtx_read_prologue(path, &pr, err);
        pm.h = pr.h;
        pm.data_offset = pr.data_offset;
        pm.lines = pr.lines;
        pm.file_size = pr.file_size;
        pm.splittable = pr.splittable;
        pm.gzip = pr.whole_why && !strcmp(pr.whole_why, "gzip");
    }
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if (MPI_Bcast(&pm, (int)sizeof(pm), MPI_BYTE, 0, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the header failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if (!pm.splittable) {
        st->whole = 1;
        st->whole_why = pm.gzip ? "gzip" : "not a regular file";
        rc = rows_from_root(path, comm, test, method, threads, keep, S, rs, st, err);
        st->read_s = MPI_Wtime() - t0 - st->partition_s - st->distribute_s; /* the prologue included */
        goto out;
    }
    memset(&pr, 0, sizeof(pr));
    pr.h = pm.h;
    pr.data_offset = pm.data_offset;
    pr.lines = pm.lines;
    pr.file_size = pm.file_size;
    pr.splittable = 1;
    const int64_t n = pr.h.nrows;
    char whole[160];
    snprintf(whole, sizeof(whole), "a %lld x %lld matrix of %lld entries", (long long)n, (long long)pr.h.ncols,
             (long long)pr.h.nnz);
    crs = hspmv_alloc_array((size_t)P + 1, sizeof(int64_t));
    prov = hspmv_alloc_array((size_t)P + 1, sizeof(int64_t));
    if (!crs || !prov) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    hspmv_partition_rows(n, P, crs);
    if ((rc = check_counting(comm, path, &pr, method, T, crs, whole, err))) goto out;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        rc = hspmv_err_file(err, HSPMV_ERR_IO, path, 0, "rank %d cannot open it: %s", me, strerror(errno));
    pc = hspmv_calloc((size_t)T, sizeof(mtx_piece));
    if (!rc && !pc) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if ((rc = parse_ranges(path, fd, comm, &pr, T, pc, &k_before, st, err))) goto out;
    if (pr.h.array) /* a dense file's places follow from the values before them */
        for (int t = 0; t < T; t++) {
            hspmv_mtx_array_place(&pr.h, k_before, pc[t].row, pc[t].col, pc[t].nnz);
            k_before += pc[t].nnz;
        }
    double t1 = MPI_Wtime();
    st->read_s = t1 - t0;

    /* rows counted by the ranks owning equal row blocks (crs), then the partition */
    int64_t nb = crs[me + 1] - crs[me];
    if (!(cnt = hspmv_calloc((size_t)nb + 1, sizeof(int64_t)))) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    xchg_sink ks = {crs[me], cnt, NULL, NULL, NULL};
    int64_t moved = 0;
    if ((rc = hspmv_xchg_pieces(comm, test, XCHG_KEYS, pc, T, pr.h.symmetry, crs, &ks, 0, &moved, err))) goto out;
    if (method == HSPMV_PART_ROWS) memcpy(prov, crs, sizeof(int64_t) * ((size_t)P + 1));
    else if ((rc = hspmv_partition_nnz_spread(comm, crs, cnt, n, prov, err))) goto out;
    if ((rc = check_share(comm, path, &pr, keep, crs, cnt, prov, whole, err))) goto out;
    int64_t nl = prov[me + 1] - prov[me];
    if (!(raw = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t)))) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if ((rc = hspmv_move_counts(comm, crs, prov, cnt, raw, err))) goto out;
    hspmv_free(cnt);
    cnt = NULL;
    double t2 = MPI_Wtime();
    st->partition_s = t2 - t1;

    /* the entries to their owners, placed by the counts */
    S->nrows = nl;
    S->ncols = pr.h.ncols;
    S->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    if (S->rowptr) {
        S->rowptr[0] = 0;
        for (int64_t i = 0; i < nl; i++) S->rowptr[i + 1] = S->rowptr[i] + raw[i];
        S->nnz = S->rowptr[nl];
        memcpy(raw, S->rowptr, sizeof(int64_t) * ((size_t)nl + 1)); /* raw becomes each row's next place */
    }
    S->colind = hspmv_alloc_array((size_t)(S->nnz ? S->nnz : 1), sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)(S->nnz ? S->nnz : 1), sizeof(hspmv_real));
    if (!S->rowptr || !S->colind || !S->val)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld rows and %lld entries", me, (long long)nl,
                       (long long)S->nnz);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    xchg_sink es = {prov[me], NULL, raw, S->colind, S->val};
    if ((rc = hspmv_xchg_pieces(comm, test, XCHG_ENTRIES, pc, T, pr.h.symmetry, prov, &es, 1, &st->records_moved, err)))
        goto out;
    for (int t = 0; t < T; t++) hspmv_mtx_piece_free(&pc[t]);
    /* sorted and summed as the root read does it; the lowest bad row wins */
    int64_t before = S->nnz;
    rc = hspmv_csr_sort_and_sum_threads(S, T, path, prov[me], err);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    /* the partition counts summed duplicates once: where some were summed, agree it again */
    int summed = S->nnz != before, any = 0;
    if (MPI_Allreduce(&summed, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allreduce failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    memcpy(rs, prov, sizeof(int64_t) * ((size_t)P + 1));
    if (any && method == HSPMV_PART_NNZ) {
        for (int64_t i = 0; i < nl; i++) raw[i] = S->rowptr[i + 1] - S->rowptr[i];
        if ((rc = hspmv_partition_nnz_spread(comm, prov, raw, n, rs, err))) goto out;
        if (memcmp(rs, prov, sizeof(int64_t) * ((size_t)P + 1)) != 0 && (rc = hspmv_move_rows(comm, prov, rs, S, err)))
            goto out;
    }
    st->distribute_s = MPI_Wtime() - t2;
out:
    if (fd >= 0) close(fd);
    if (pc)
        for (int t = 0; t < T; t++) hspmv_mtx_piece_free(&pc[t]);
    hspmv_free(pc);
    hspmv_free(crs);
    hspmv_free(prov);
    hspmv_free(cnt);
    hspmv_free(raw);
    free(path);
    st->peak_b = hspmv_peak_rss();
    if (rc) hspmv_csr_free(S);
    return rc;
}

int hspmv_dist_read_rows(const char *path, MPI_Comm comm, const hspmv_opts *o, hspmv_csr *rows, int64_t *row_start,
                         hspmv_error *err)
{
    hspmv_opts od;
    MPI_Comm c;
    read_stats st;
    int rc;
    if (rows) memset(rows, 0, sizeof(*rows)); /* whatever else is wrong: never a caller's garbage to free */
    if (!rows || !row_start) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_read_rows: rows and row_start must not be NULL");
    if (!o) {
        hspmv_opts_default(&od);
        o = &od;
    }
    if (comm == MPI_COMM_NULL) return hspmv_err(err, HSPMV_ERR_ARG, "MPI_COMM_NULL given as communicator");
    if (o->partition != HSPMV_PART_NNZ && o->partition != HSPMV_PART_ROWS)
        return hspmv_err(err, o->partition == HSPMV_PART_METIS ? HSPMV_ERR_UNSUPPORTED : HSPMV_ERR_ARG,
                         "hspmv_dist_read_rows gives rows in the file ordering: partition nnz or rows, not %s",
                         o->partition == HSPMV_PART_METIS ? "METIS (it renumbers rows; use hspmv_dist_read)" : "this");
    if (MPI_Comm_dup(comm, &c) != MPI_SUCCESS) return hspmv_err(err, HSPMV_ERR_MPI, "MPI_Comm_dup failed");
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    char test[HSPMV_TEST_MAX];
    rc = hspmv_dist_agree_test(c, test, err);
    if (!rc) rc = hspmv_read_rows(path, c, test, o->partition, o->threads, READ_ROWS, rows, row_start, &st, err);
    MPI_Comm_free(&c);
    return rc;
}
