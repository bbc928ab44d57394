/* dist_reorder_gather.c — hspmv_opts.reorder for a distributed matrix no
   rank holds whole (the parallel read): every rank sends its rows' pattern
   (global columns, no values) to rank 0 in bounded pieces, rank 0 orders
   it with dist_reorder.c's rule (a global order, then the split of the new
   order), every rank gets the inverse order, and the rows with their
   values move to their new owners in read_exchange.c's bounded all-to-all
   rounds. The renumbering is kept as the root path keeps it (rank 0's
   perm, each rank's file rows), so the scatter, the gather and the file
   index translate it. */
#include <stdio.h>
#include <string.h>
#include "dist_mem.h"
#include "dist_reorder.h"
#include "read_parallel.h"
#include "util.h"

enum { TAG_PAT_RP = 21, TAG_PAT_CI };

/* MPI_Bcast of n int64 from rank 0 in pieces whose counts stay an int. */
static int bcast_i64(int64_t *buf, int64_t n, MPI_Comm comm)
{
    const int64_t piece = (int64_t)1 << 26;
    for (int64_t k = 0; k < n; k += piece) {
        int64_t m = n - k < piece ? n - k : piece;
        if (MPI_Bcast(buf + k, (int)m, MPI_INT64_T, 0, comm) != MPI_SUCCESS) return HSPMV_ERR_MPI;
    }
    return HSPMV_OK;
}

/* Rank 0 gets the pattern of every rank's rows (A: n x n, unit values, as
   the ordering code takes a CSR); the others send theirs. nz: P+1 prefix
   sums of the ranks' entries. Agreed status. */
static int gather_pattern(hspmv_dist *D, const hspmv_csr *S, const int64_t *nz, hspmv_csr *A, hspmv_error *err)
{
    int me = D->rank, P = D->size, rc = HSPMV_OK;
    int64_t n = D->row_start[P];
    if (me == 0) {
        A->nrows = A->ncols = n;
        A->nnz = nz[P];
        A->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
        A->colind = hspmv_alloc_array((size_t)(A->nnz ? A->nnz : 1), sizeof(int32_t));
        A->val = hspmv_alloc_array((size_t)(A->nnz ? A->nnz : 1), sizeof(hspmv_real));
        if (!A->rowptr || !A->colind || !A->val)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for the gathered pattern of %lld entries "
                           "(reorder)", (long long)A->nnz);
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) return rc;
    if (me == 0) {
        memcpy(A->rowptr, S->rowptr, sizeof(int64_t) * ((size_t)S->nrows + 1));
        memcpy(A->colind, S->colind, sizeof(int32_t) * (size_t)S->nnz);
        for (int p = 1; p < P && !rc; p++) {
            int64_t r0 = D->row_start[p], nr = D->row_start[p + 1] - r0;
            rc = hspmv_dist_recv(A->rowptr + r0, nr + 1, MPI_INT64_T, p, TAG_PAT_RP, D->comm, D->test);
            if (!rc) rc = hspmv_dist_recv(A->colind + nz[p], nz[p + 1] - nz[p], MPI_INT32_T, p, TAG_PAT_CI, D->comm,
                                          D->test);
            for (int64_t i = r0; i <= r0 + nr && !rc; i++) A->rowptr[i] += nz[p]; /* rank p's start at 0 */
        }
        for (int64_t k = 0; k < A->nnz; k++) A->val[k] = 1;
    } else {
        rc = hspmv_dist_send(S->rowptr, S->nrows + 1, MPI_INT64_T, 0, TAG_PAT_RP, D->comm, D->test);
        if (!rc) rc = hspmv_dist_send(S->colind, S->nnz, MPI_INT32_T, 0, TAG_PAT_CI, D->comm, D->test);
    }
    if (rc) hspmv_err(err, rc, "rank %d: gathering the pattern on rank 0 (reorder) failed", me);
    return hspmv_dist_agree(D->comm, rc, err);
}

/* The rows of S renumbered by iperm (rows and columns) moved to the owners
   of their new rows (start), sorted; S replaced. Agreed status. */
static int move_rows(hspmv_dist *D, hspmv_csr *S, const int64_t *iperm, const int64_t *start, hspmv_error *err)
{
    int me = D->rank, rc = HSPMV_OK;
    int64_t b0 = D->row_start[me], nb = start[me + 1] - start[me], moved = 0;
    mtx_piece pc;
    memset(&pc, 0, sizeof(pc));
    int64_t *cnt = hspmv_calloc((size_t)nb + 1, sizeof(int64_t));
    pc.row = hspmv_alloc_array((size_t)(S->nnz ? S->nnz : 1), sizeof(int32_t));
    pc.col = hspmv_alloc_array((size_t)(S->nnz ? S->nnz : 1), sizeof(int32_t));
    if (!cnt || !pc.row || !pc.col)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory renumbering its %lld entries (reorder)", me,
                       (long long)S->nnz);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    for (int64_t i = 0; i < S->nrows; i++)
        for (int64_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) {
            pc.row[q] = (int32_t)iperm[b0 + i];
            pc.col[q] = (int32_t)iperm[S->colind[q]];
        }
    pc.val = S->val; /* the piece takes the values: S keeps its pattern's arrays only */
    S->val = NULL;
    pc.nnz = S->nnz;
    hspmv_csr_free(S);
    xchg_sink ks = {start[me], cnt, NULL, NULL, NULL};
    if ((rc = hspmv_xchg_pieces(D->comm, D->test, XCHG_KEYS, &pc, 1, HSPMV_GENERAL, start, &ks, 0, &moved, err)))
        goto out;
    int64_t z = 0;
    for (int64_t i = 0; i < nb; i++) z += cnt[i];
    S->nrows = nb;
    S->ncols = D->row_start[D->size];
    S->nnz = z;
    S->rowptr = hspmv_alloc_array((size_t)nb + 1, sizeof(int64_t));
    S->colind = hspmv_alloc_array((size_t)(z ? z : 1), sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)(z ? z : 1), sizeof(hspmv_real));
    if (!S->rowptr || !S->colind || !S->val)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for its %lld reordered rows and %lld entries", me,
                       (long long)nb, (long long)z);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    S->rowptr[0] = 0;
    for (int64_t i = 0; i < nb; i++) S->rowptr[i + 1] = S->rowptr[i] + cnt[i];
    memcpy(cnt, S->rowptr, sizeof(int64_t) * (size_t)nb); /* where each row's next entry goes */
    xchg_sink es = {start[me], NULL, cnt, S->colind, S->val};
    if ((rc = hspmv_xchg_pieces(D->comm, D->test, XCHG_ENTRIES, &pc, 1, HSPMV_GENERAL, start, &es, 1, &moved, err)))
        goto out;
    hspmv_dist_sort_rows(S); /* renumbered columns are out of order */
out:
    hspmv_mtx_piece_free(&pc);
    hspmv_free(cnt);
    return rc;
}

int hspmv_dist_reorder_gathered(hspmv_dist *D, hspmv_csr *S, const hspmv_opts *o, const char *path,
                                hspmv_error *err)
{
    int me = D->rank, P = D->size, rc = HSPMV_OK;
    int64_t n = D->row_start[P], *nz = NULL, *start = NULL, *perm = NULL, *iperm = NULL, used = 0;
    hspmv_csr A = {0};
    double t0 = MPI_Wtime();
    if (o->reorder == HSPMV_REORDER_NONE) return HSPMV_OK;
    if (n != S->ncols) /* the same sizes on every rank: the same answer */
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "reorder of a distributed matrix needs a square matrix, this one "
                         "is %lld x %lld", (long long)n, (long long)S->ncols);
    nz = hspmv_calloc((size_t)P + 1, sizeof(int64_t));
    start = hspmv_alloc_array((size_t)P + 1, sizeof(int64_t));
    if (!nz || !start) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if (!rc && MPI_Allgather(&S->nnz, 1, MPI_INT64_T, nz + 1, 1, MPI_INT64_T, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allgather of the entry counts failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    for (int p = 0; p < P; p++) nz[p + 1] += nz[p];
    memcpy(start, D->row_start, sizeof(int64_t) * ((size_t)P + 1));

    /* the memory, refused before it is allocated: rank 0 the pattern (what
       is sent: 4 bytes an entry and 8 a row) with a unit value per entry,
       the ordering's permuted copy and the two orders; every rank the
       inverse order, its entries renumbered and its rows as they arrive */
    const double r = sizeof(hspmv_real), e = (double)nz[P], rows = (double)n, ez = (double)S->nnz;
    double pattern = 4 * e + 8 * (rows + 1), root = 2 * (pattern + r * e) + 16 * rows;
    double mine_b = 8 * rows + 8 * ez + 2 * (12 * ez + 8 * (double)S->nrows);
    char whole[160], mine[400];
    snprintf(whole, sizeof(whole), "a %lld x %lld matrix of %lld entries", (long long)n, (long long)n,
             (long long)nz[P]);
    if (me == 0)
        snprintf(mine, sizeof(mine), "rank 0: reorder of %s read in parallel: the pattern gathered on rank 0 "
                 "(%.3g GB: 4 bytes an entry and 8 a row), with unit values, its permuted copy and the orders "
                 "(%.3g GB in all)", whole, pattern / 1e9, (root + mine_b) / 1e9);
    else
        snprintf(mine, sizeof(mine), "rank %d: reorder of %s: the inverse order (8 bytes a row) and its %lld entries "
                 "renumbered and moved (%.3g GB)", me, whole, (long long)S->nnz, mine_b / 1e9);
    if ((rc = hspmv_dist_mem_check(D->comm, me == 0 ? root + mine_b : mine_b, path, 0, mine, whole, err))) goto out;

    if ((rc = gather_pattern(D, S, nz, &A, err))) goto out;
    if (me == 0) {
        rc = hspmv_dist_reorder_root(&A, o->reorder, o->partition, D->test, P, start, &perm, &iperm, &D->info, err);
        used = perm != NULL;
    }
    hspmv_csr_free(&A);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (hspmv_dist_bcast_reorder(&D->info, D->comm) != MPI_SUCCESS ||
        MPI_Bcast(&used, 1, MPI_INT64_T, 0, D->comm) != MPI_SUCCESS ||
        MPI_Bcast(start, P + 1, MPI_INT64_T, 0, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the order failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    double t1 = MPI_Wtime();
    D->info.partition_s += t1 - t0;
    if (!used) goto out; /* auto kept the file's order: nothing moves */

    int64_t nl = start[me + 1] - start[me];
    if (me != 0) iperm = hspmv_alloc_array((size_t)(n ? n : 1), sizeof(int64_t));
    D->file_row = hspmv_alloc_array((size_t)(nl ? nl : 1), sizeof(int64_t));
    if (!iperm || !D->file_row)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for the order of %lld rows", me, (long long)n);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (bcast_i64(iperm, n, D->comm)) rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the order failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    for (int64_t f = 0; f < n; f++) /* each new row of this rank: its file row */
        if (iperm[f] >= start[me] && iperm[f] < start[me + 1]) D->file_row[iperm[f] - start[me]] = f;
    if ((rc = move_rows(D, S, iperm, start, err))) goto out;
    memcpy(D->row_start, start, sizeof(int64_t) * ((size_t)P + 1));
    D->perm = perm; /* rank 0: perm[new] = file row, as METIS's */
    perm = NULL;
    D->permuted = 1;
    D->info.distribute_s += MPI_Wtime() - t1;
out:
    hspmv_csr_free(&A);
    hspmv_free(nz);
    hspmv_free(start);
    hspmv_free(perm);
    hspmv_free(iperm);
    return rc;
}
