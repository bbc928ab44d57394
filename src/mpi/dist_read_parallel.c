/* dist_read_parallel.c — hspmv_dist_read with every rank reading a byte
   range of the file: the rows come to their owners (read_parallel.c) and
   become the distributed matrix; METIS, which needs the whole graph, gets
   the rows gathered on rank 0 and goes the root path from there. */
#include <stdio.h>
#include <string.h>
#include "dist_mem.h"
#include "dist_reorder.h"
#include "read_parallel.h"

enum { TAG_RP = 11, TAG_CI, TAG_V };

/* Rank 0 gets the whole CSR from every rank's rows (row_start: P+1). */
static int gather_rows(MPI_Comm comm, const char *test, const char *path, const int64_t *row_start, hspmv_csr *S, hspmv_csr *A,
                       hspmv_error *err)
{
    int me, P, rc = HSPMV_OK;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    int64_t *nz = hspmv_alloc_array((size_t)P + 1, sizeof(int64_t));
    if (!nz) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) return rc;
    if (MPI_Allgather(&S->nnz, 1, MPI_INT64_T, nz + 1, 1, MPI_INT64_T, comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allgather failed", me);
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    nz[0] = 0;
    for (int p = 0; p < P; p++) nz[p + 1] += nz[p];
    /* rank 0 is about to hold the whole matrix, as the root read does: the
       same figure (CSR, x and y), refused before it is allocated */
    const double r = sizeof(hspmv_real), rows = (double)row_start[P];
    double csr = 8 * (rows + 1) + (4 + r) * (double)nz[P], vec = r * (rows + (double)S->ncols);
    char whole[160], mine[400];
    snprintf(whole, sizeof(whole), "a %lld x %lld matrix of %lld entries", (long long)row_start[P],
             (long long)S->ncols, (long long)nz[P]);
    snprintf(mine, sizeof(mine), "gathering %s on rank 0 for METIS (CSR %.3g GB, x and y %.3g GB)", whole, csr / 1e9,
             vec / 1e9);
    if ((rc = hspmv_dist_mem_check(comm, me == 0 ? csr + vec : 0, path, 0, mine, whole, err))) goto out;
    if (me == 0) {
        int64_t n = row_start[P];
        A->nrows = n;
        A->ncols = S->ncols;
        A->nnz = nz[P];
        A->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
        A->colind = hspmv_alloc_array((size_t)(A->nnz ? A->nnz : 1), sizeof(int32_t));
        A->val = hspmv_alloc_array((size_t)(A->nnz ? A->nnz : 1), sizeof(hspmv_real));
        if (!A->rowptr || !A->colind || !A->val)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory gathering the matrix for METIS (%lld entries)",
                           (long long)A->nnz);
    }
    if ((rc = hspmv_dist_agree(comm, rc, err))) goto out;
    if (me == 0) {
        memcpy(A->rowptr, S->rowptr, sizeof(int64_t) * ((size_t)S->nrows + 1));
        memcpy(A->colind, S->colind, sizeof(int32_t) * (size_t)S->nnz);
        memcpy(A->val, S->val, sizeof(hspmv_real) * (size_t)S->nnz);
        for (int p = 1; p < P && !rc; p++) {
            int64_t r0 = row_start[p], nr = row_start[p + 1] - r0;
            rc = hspmv_dist_recv(A->rowptr + r0, nr + 1, MPI_INT64_T, p, TAG_RP, comm, test);
            if (!rc) rc = hspmv_dist_recv(A->colind + nz[p], nz[p + 1] - nz[p], MPI_INT32_T, p, TAG_CI, comm, test);
            if (!rc) rc = hspmv_dist_recv(A->val + nz[p], nz[p + 1] - nz[p], HSPMV_MPI_REAL, p, TAG_V, comm, test);
            for (int64_t i = r0; i <= r0 + nr && !rc; i++) A->rowptr[i] += nz[p]; /* rank p's pointers start at 0 */
        }
    } else {
        rc = hspmv_dist_send(S->rowptr, S->nrows + 1, MPI_INT64_T, 0, TAG_RP, comm, test);
        if (!rc) rc = hspmv_dist_send(S->colind, S->nnz, MPI_INT32_T, 0, TAG_CI, comm, test);
        if (!rc) rc = hspmv_dist_send(S->val, S->nnz, HSPMV_MPI_REAL, 0, TAG_V, comm, test);
    }
    if (rc) hspmv_err(err, rc, "rank %d: gathering the rows on rank 0 failed", me);
    rc = hspmv_dist_agree(comm, rc, err);
out:
    hspmv_free(nz);
    if (rc) hspmv_csr_free(A);
    return rc;
}

static const char *why_root(const read_stats *st)
{
    if (!st->whole) return "";
    return !strcmp(st->whole_why, "gzip") ? "gzip: a compressed stream cannot be split, rank 0 read it"
                                          : "not a regular file (a pipe?): rank 0 read it";
}

int hspmv_dist_read_parallel(const char *path, MPI_Comm comm, const hspmv_opts *o, hspmv_dist **Dout, hspmv_error *err)
{
    hspmv_dist *D = NULL;
    hspmv_csr S = {0}, A = {0};
    read_stats st;
    int rc;
    *Dout = NULL;
    if (o->partition < HSPMV_PART_NNZ || o->partition > HSPMV_PART_METIS)
        return hspmv_err(err, HSPMV_ERR_ARG, "unknown partition method %d", o->partition);
    if ((rc = hspmv_dist_alloc(comm, &D, err))) return rc;
    int metis = o->partition == HSPMV_PART_METIS;
    int keep = metis ? READ_ROWS : hspmv_dist_wants_window(o) ? READ_MATRIX_WINDOW : READ_MATRIX;
    rc = hspmv_read_rows(path, D->comm, D->test, metis ? HSPMV_PART_NNZ : o->partition, o->threads, keep, &S, D->row_start, &st,
                         err);
    if (rc) goto out;
    if (metis) {
        /* METIS partitions the whole graph: rank 0 gets the rows (the root
           read's memory on rank 0, the parsing done by all) */
        double t0 = MPI_Wtime();
        rc = gather_rows(D->comm, D->test, path, D->row_start, &S, &A, err);
        hspmv_csr_free(&S);
        double t_gather = MPI_Wtime() - t0;
        int me = D->rank;
        hspmv_dist_destroy(&D);
        if (rc) return rc;
        rc = hspmv_dist_create_root(comm, me == 0 ? &A : NULL, o, Dout, err);
        hspmv_csr_free(&A);
        if (rc) return rc;
        D = *Dout;
        D->info.partition_s += st.partition_s;
        D->info.distribute_s += st.distribute_s + t_gather;
        goto done;
    }
    D->info.partition_s = st.partition_s;
    D->info.distribute_s = st.distribute_s;
    /* reorder: the pattern gathered and ordered on rank 0, the rows moved to their new owners */
    if ((rc = hspmv_dist_reorder_gathered(D, &S, o, path, err))) goto out;
    D->nrows = D->row_start[D->size];
    D->ncols = S.ncols;
    D->partition = o->partition;
    hspmv_dist_column_layout(D);
    D->info.peak_read_bytes = st.peak_b;
    hspmv_opts ob = *o;
    ob.reorder = HSPMV_REORDER_NONE; /* done above: the blocks are made in the new order */
    double t0 = MPI_Wtime();
    rc = hspmv_dist_build(D, &S, &ob, err);
    D->info.prepare_s = MPI_Wtime() - t0;
done:
    D->info.read = st.whole ? HSPMV_READ_ROOT : HSPMV_READ_PARALLEL;
    D->info.read_note = why_root(&st);
    D->info.read_s = st.read_s;
    D->info.read_bytes = st.bytes;
out:
    hspmv_csr_free(&S);
    if (rc) hspmv_dist_destroy(&D);
    *Dout = D;
    return rc;
}
