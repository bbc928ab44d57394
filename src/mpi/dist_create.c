/* dist_create.c — distributed matrices created: from a file read on rank 0,
   from a CSR held by rank 0, or from each rank's own rows. */
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "dist.h"
#include "util.h"
#include "csr.h"
#include "dist_reorder.h"

enum { TAG_ROWPTR = 1, TAG_COLIND, TAG_VAL, TAG_PERM };

/* Rank 0: the partition of A by o->partition; perm and iperm when renumbered. */
static int root_partition(hspmv_dist *D, const hspmv_csr *A, int method, int64_t **perm, int64_t **iperm,
                          hspmv_error *err)
{
    int P = D->size, rc;
    *perm = *iperm = NULL;
    if (method == HSPMV_PART_ROWS) {
        hspmv_partition_rows(A->nrows, P, D->row_start);
        return HSPMV_OK;
    }
    if (method == HSPMV_PART_NNZ) {
        hspmv_partition_nnz(A->rowptr, A->nrows, P, D->row_start);
        return HSPMV_OK;
    }
    *perm = hspmv_alloc_array((size_t)(A->nrows ? A->nrows : 1), sizeof(int64_t));
    *iperm = hspmv_alloc_array((size_t)(A->nrows ? A->nrows : 1), sizeof(int64_t));
    if (!*perm || !*iperm) return hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for the METIS permutation");
    if ((rc = hspmv_partition_metis(A, P, D->row_start, *perm, err))) return rc;
    int64_t moved = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        (*iperm)[(*perm)[i]] = i;
        moved += (*perm)[i] != i;
    }
    if (!moved) { /* one part, or METIS had nothing to cut: keep the file order */
        hspmv_free(*perm);
        hspmv_free(*iperm);
        *perm = *iperm = NULL;
    }
    return HSPMV_OK;
}

/* Rank 0: rank p's slice into (rp, ci, v): rows rebased, renumbered by perm/iperm if given. */
static void pack_slice(const hspmv_csr *A, const int64_t *rs, int p, const int64_t *perm, const int64_t *iperm,
                       int64_t *rp, int32_t *ci, hspmv_real *v)
{
    int64_t b = rs[p], e = rs[p + 1], k = 0;
    rp[0] = 0;
    for (int64_t i = b; i < e; i++) {
        int64_t r = perm ? perm[i] : i;
        for (int64_t q = A->rowptr[r]; q < A->rowptr[r + 1]; q++, k++) {
            if (ci) ci[k] = (int32_t)(iperm ? iperm[A->colind[q]] : A->colind[q]);
            if (v) v[k] = A->val[q];
        }
        rp[i - b + 1] = k;
    }
}

int hspmv_dist_create_root(MPI_Comm comm, const hspmv_csr *A, const hspmv_opts *o, hspmv_dist **Dout,
                           hspmv_error *err)
{
    hspmv_opts od;
    hspmv_dist *D = NULL;
    hspmv_csr S = {0};
    int64_t *perm = NULL, *iperm = NULL, *nnzs = NULL, hdr[4] = {0, 0, 0, 0};
    int64_t *prp = NULL; /* rank 0: rebased row pointers of one slice */
    int32_t *pci = NULL; /* rank 0, METIS: one slice's renumbered columns */
    hspmv_real *pv = NULL;
    int rc;

    hspmv_dist *none = NULL;
    int no_out = !Dout; /* this rank's fault, but it still joins the collective steps until they agree */
    if (no_out) Dout = &none;
    *Dout = NULL;
    if (!o) {
        hspmv_opts_default(&od);
        o = &od;
    }
    if ((rc = hspmv_dist_alloc(comm, &D, err))) return rc;
    int me = D->rank, P = D->size;
    nnzs = hspmv_calloc((size_t)P + 1, sizeof(int64_t));
    if (!nnzs) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if (!rc && no_out) rc = hspmv_err(err, HSPMV_ERR_ARG, "rank %d: hspmv_dist_create_root: D is NULL", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;

    /* rank 0 checks, partitions and tells everyone the sizes */
    double t0 = MPI_Wtime(), t1;
    if (me == 0 && !rc) {
        if (!A) rc = hspmv_err(err, HSPMV_ERR_ARG, "rank 0: no matrix given to hspmv_dist_create_root");
        else if (o->partition < HSPMV_PART_NNZ || o->partition > HSPMV_PART_METIS)
            rc = hspmv_err(err, HSPMV_ERR_ARG, "unknown partition method %d", o->partition);
        else if (A->nrows > INT32_MAX || A->ncols > INT32_MAX)
            rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "a %lld x %lld matrix exceeds 2^31-1 rows or columns",
                           (long long)A->nrows, (long long)A->ncols);
        else rc = hspmv_csr_validate(A, err);
        if (!rc) rc = root_partition(D, A, o->partition, &perm, &iperm, err);
        if (!rc) rc = hspmv_dist_reorder_root(A, o->reorder, o->partition, D->test, P, D->row_start, &perm, &iperm,
                                              &D->info, err);
        if (!rc) {
            int64_t maxr = 0, maxz = 0;
            for (int p = 0; p < P; p++) {
                int64_t z = 0;
                for (int64_t i = D->row_start[p]; i < D->row_start[p + 1]; i++) {
                    int64_t r = perm ? perm[i] : i;
                    z += A->rowptr[r + 1] - A->rowptr[r];
                }
                nnzs[p + 1] = nnzs[p] + z;
                if (p > 0 && D->row_start[p + 1] - D->row_start[p] > maxr) maxr = D->row_start[p + 1] - D->row_start[p];
                if (p > 0 && z > maxz) maxz = z;
            }
            /* everything rank 0 needs while sending, allocated before anyone waits */
            prp = hspmv_alloc_array((size_t)maxr + 1, sizeof(int64_t));
            if (perm) {
                pci = hspmv_alloc_array((size_t)(maxz ? maxz : 1), sizeof(int32_t));
                pv = hspmv_alloc_array((size_t)(maxz ? maxz : 1), sizeof(hspmv_real));
            }
            if (!prp || (perm && (!pci || !pv)))
                rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for a send buffer of %lld entries",
                               (long long)maxz);
            hdr[0] = A->nrows;
            hdr[1] = A->ncols;
            hdr[2] = A->nnz;
            hdr[3] = perm != NULL;
        }
    }
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    t1 = MPI_Wtime();
    D->info.partition_s = t1 - t0;
    if (MPI_Bcast(hdr, 4, MPI_INT64_T, 0, D->comm) != MPI_SUCCESS ||
        MPI_Bcast(D->row_start, P + 1, MPI_INT64_T, 0, D->comm) != MPI_SUCCESS ||
        MPI_Bcast(nnzs, P + 1, MPI_INT64_T, 0, D->comm) != MPI_SUCCESS ||
        hspmv_dist_bcast_reorder(&D->info, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Bcast of the partition failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    D->nrows = hdr[0];
    D->ncols = hdr[1];
    D->nnz = hdr[2];
    D->permuted = (int)hdr[3];
    D->partition = o->partition;
    hspmv_dist_column_layout(D);

    /* every rank makes room for its slice; agreed before rank 0 sends */
    int64_t nl = D->row_start[me + 1] - D->row_start[me], zl = nnzs[me + 1] - nnzs[me];
    S.nrows = nl;
    S.ncols = D->ncols;
    S.nnz = zl;
    S.rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    S.colind = hspmv_alloc_array((size_t)(zl ? zl : 1), sizeof(int32_t));
    S.val = hspmv_alloc_array((size_t)(zl ? zl : 1), sizeof(hspmv_real));
    if (D->permuted) D->file_row = hspmv_alloc_array((size_t)(nl ? nl : 1), sizeof(int64_t));
    if (!S.rowptr || !S.colind || !S.val || (D->permuted && !D->file_row))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for its slice of %lld rows and %lld entries",
                       me, (long long)nl, (long long)zl);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;

    /* the scatter: rank 0 MPI_Send's each slice, in pieces below 2^31 */
    if (me == 0) {
        for (int p = 1; p < P && !rc; p++) {
            int64_t np = D->row_start[p + 1] - D->row_start[p], zp = nnzs[p + 1] - nnzs[p];
            const int32_t *sci = A->colind + nnzs[p];
            const hspmv_real *sv = A->val + nnzs[p];
            pack_slice(A, D->row_start, p, perm, iperm, prp, perm ? pci : NULL, perm ? pv : NULL);
            if (perm) {
                sci = pci;
                sv = pv;
            }
            rc = hspmv_dist_send(prp, np + 1, MPI_INT64_T, p, TAG_ROWPTR, D->comm, D->test);
            if (!rc) rc = hspmv_dist_send(sci, zp, MPI_INT32_T, p, TAG_COLIND, D->comm, D->test);
            if (!rc) rc = hspmv_dist_send(sv, zp, HSPMV_MPI_REAL, p, TAG_VAL, D->comm, D->test);
            if (!rc && perm) rc = hspmv_dist_send(perm + D->row_start[p], np, MPI_INT64_T, p, TAG_PERM, D->comm, D->test);
        }
        pack_slice(A, D->row_start, 0, perm, iperm, S.rowptr, S.colind, S.val);
        if (perm) memcpy(D->file_row, perm, sizeof(int64_t) * (size_t)nl);
    } else {
        rc = hspmv_dist_recv(S.rowptr, nl + 1, MPI_INT64_T, 0, TAG_ROWPTR, D->comm, D->test);
        if (!rc) rc = hspmv_dist_recv(S.colind, zl, MPI_INT32_T, 0, TAG_COLIND, D->comm, D->test);
        if (!rc) rc = hspmv_dist_recv(S.val, zl, HSPMV_MPI_REAL, 0, TAG_VAL, D->comm, D->test);
        if (!rc && D->permuted) rc = hspmv_dist_recv(D->file_row, nl, MPI_INT64_T, 0, TAG_PERM, D->comm, D->test);
    }
    if (rc) hspmv_err(err, rc, "rank %d: sending the matrix slices failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (D->permuted) hspmv_dist_sort_rows(&S); /* renumbered columns are out of order */
    D->perm = perm;
    perm = NULL;
    t0 = MPI_Wtime();
    D->info.distribute_s = t0 - t1;
    D->info.peak_read_bytes = hspmv_peak_rss();
    hspmv_opts ob = *o;
    ob.reorder = HSPMV_REORDER_NONE; /* done above: the blocks are made in the new order */
    rc = hspmv_dist_build(D, &S, &ob, err);
    D->info.prepare_s = MPI_Wtime() - t0;
out:
    hspmv_csr_free(&S);
    hspmv_free(perm);
    hspmv_free(iperm);
    hspmv_free(nnzs);
    hspmv_free(prp);
    hspmv_free(pci);
    hspmv_free(pv);
    if (rc) hspmv_dist_destroy(&D);
    *Dout = D;
    return rc;
}

int hspmv_dist_read_root(const char *path, MPI_Comm comm, const hspmv_opts *o, hspmv_dist **Dout, hspmv_error *err)
{
    int me, rc = HSPMV_OK;
    hspmv_csr A = {0};
    hspmv_read_info info = {0, 0, 0, 0};
    if (!Dout) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_read: D is NULL");
    *Dout = NULL;
    if (comm == MPI_COMM_NULL) return hspmv_err(err, HSPMV_ERR_ARG, "MPI_COMM_NULL given as communicator");
    if (MPI_Comm_rank(comm, &me) != MPI_SUCCESS) return hspmv_err(err, HSPMV_ERR_MPI, "MPI_Comm_rank failed");
    double t0 = MPI_Wtime();
    if (me == 0) {
        hspmv_read_opts ro = {NULL, NULL, o ? o->threads : 0};
        if (!path) rc = hspmv_err(err, HSPMV_ERR_ARG, "rank 0: no file name given");
        else rc = hspmv_csr_read(path, &A, &ro, &info, err);
    }
    /* a bad file is everyone's error before anyone waits for a slice */
    if ((rc = hspmv_dist_agree(comm, rc, err))) return rc;
    double t_read = MPI_Wtime() - t0;
    rc = hspmv_dist_create_root(comm, me == 0 ? &A : NULL, o, Dout, err);
    hspmv_csr_free(&A);
    if (!rc) {
        (*Dout)->info.read = HSPMV_READ_ROOT;
        (*Dout)->info.read_s = t_read;
        (*Dout)->info.read_bytes = info.bytes;
    }
    return rc;
}

/* Checks and copies this rank's rows into S (int32 global columns, rows sorted). */
static int copy_rows(int me, int64_t nl, int64_t ncols, const int64_t *rowptr, const int64_t *colind,
                     const hspmv_real *val, hspmv_csr *S, hspmv_error *err)
{
    if (nl < 0) return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: nrows_local %lld < 0", me, (long long)nl);
    if (ncols < 0 || ncols > INT32_MAX)
        return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: ncols %lld outside [0, 2^31-1]", me, (long long)ncols);
    if (nl > 0 && !rowptr) return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: rowptr is NULL", me);
    if (nl > 0 && rowptr[0] != 0) return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: rowptr[0] = %lld, not 0", me, (long long)rowptr[0]);
    for (int64_t i = 0; i < nl; i++)
        if (rowptr[i + 1] < rowptr[i])
            return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: rowptr decreases at local row %lld", me, (long long)i);
    int64_t z = nl > 0 ? rowptr[nl] : 0;
    if (z > 0 && (!colind || !val)) return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: colind or val is NULL", me);
    for (int64_t k = 0; k < z; k++)
        if (colind[k] < 0 || colind[k] >= ncols)
            return hspmv_err(err, HSPMV_ERR_ARG, "rank %d: column %lld of entry %lld outside [0, %lld)", me,
                             (long long)colind[k], (long long)k, (long long)ncols);
    char what[96]; /* the copy is checked against what this rank can be given before it is made */
    snprintf(what, sizeof(what), "rank %d: a copy of its %lld rows and %lld entries", me, (long long)nl, (long long)z);
    int rc = hspmv_mem_check(8.0 * ((double)nl + 1) + (4.0 + sizeof(hspmv_real)) * (double)z, "hspmv_dist_create", 0,
                             what, err);
    if (rc) return rc;
    S->nrows = nl;
    S->ncols = ncols;
    S->nnz = z;
    S->rowptr = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t));
    S->colind = hspmv_alloc_array((size_t)(z ? z : 1), sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)(z ? z : 1), sizeof(hspmv_real));
    if (!S->rowptr || !S->colind || !S->val)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory copying %lld rows", me, (long long)nl);
    S->rowptr[0] = 0;
    for (int64_t i = 0; i < nl; i++) S->rowptr[i + 1] = rowptr[i + 1];
    for (int64_t k = 0; k < z; k++) {
        S->colind[k] = (int32_t)colind[k];
        S->val[k] = val[k];
    }
    hspmv_dist_sort_rows(S);
    return HSPMV_OK;
}

int hspmv_dist_create(MPI_Comm comm, int64_t nrows_local, int64_t ncols, int64_t ncols_local,
                      const int64_t *rowptr, const int64_t *colind, const hspmv_real *val, const hspmv_opts *o,
                      hspmv_dist **Dout, hspmv_error *err)
{
    hspmv_opts od;
    hspmv_dist *D = NULL;
    hspmv_csr S = {0};
    int64_t *all = NULL;
    int rc;

    hspmv_dist *none = NULL;
    int no_out = !Dout; /* as in hspmv_dist_create_root */
    if (no_out) Dout = &none;
    *Dout = NULL;
    if (!o) {
        hspmv_opts_default(&od);
        o = &od;
    }
    if ((rc = hspmv_dist_alloc(comm, &D, err))) return rc;
    int me = D->rank, P = D->size;
    rc = no_out ? hspmv_err(err, HSPMV_ERR_ARG, "rank %d: hspmv_dist_create: D is NULL", me)
                : copy_rows(me, nrows_local, ncols, rowptr, colind, val, &S, err);
    if (!rc && ncols_local < -1)
        rc = hspmv_err(err, HSPMV_ERR_ARG, "rank %d: ncols_local %lld (use -1 for the default)", me,
                       (long long)ncols_local);
    if (!rc && !(all = hspmv_alloc_array((size_t)P * 3, sizeof(int64_t))))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;

    /* everyone learns everyone's row count, column count and layout choice */
    int64_t mine[3] = {nrows_local, ncols, ncols_local};
    if (MPI_Allgather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Allgather of the sizes failed", me);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    /* the same checks on the same data give the same answer everywhere:
       every rank is compared with rank 0's values, not its own */
    int given = 0;
    D->row_start[0] = 0;
    for (int p = 0; p < P; p++) {
        D->row_start[p + 1] = D->row_start[p] + all[3 * p];
        if (all[3 * p + 1] != all[1] && !rc)
            rc = hspmv_err(err, HSPMV_ERR_ARG, "ranks disagree on ncols: rank 0 has %lld, rank %d has %lld",
                           (long long)all[1], p, (long long)all[3 * p + 1]);
        given += all[3 * p + 2] >= 0;
    }
    D->nrows = D->row_start[P];
    D->ncols = all[1];
    if (!rc && D->nrows > INT32_MAX)
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "%lld rows in all exceed 2^31-1", (long long)D->nrows);
    if (!rc && given != 0 && given != P)
        rc = hspmv_err(err, HSPMV_ERR_ARG, "ncols_local is -1 on some ranks and given on others");
    if (!rc && given == P) {
        D->col_start[0] = 0;
        for (int p = 0; p < P; p++) D->col_start[p + 1] = D->col_start[p] + all[3 * p + 2];
        if (D->col_start[P] != ncols)
            rc = hspmv_err(err, HSPMV_ERR_ARG, "the ranks' ncols_local add up to %lld, not ncols = %lld",
                           (long long)D->col_start[P], (long long)ncols);
    } else if (!rc) {
        hspmv_dist_column_layout(D);
    }
    if (rc) goto out; /* the same rc on every rank */
    D->partition = HSPMV_PART_ROWS;
    hspmv_opts ob = *o;
    if (o->reorder != HSPMV_REORDER_NONE) { /* the pattern gathered on rank 0 and ordered, the rows moved */
        if (given == P) {
            rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "reorder %d with ncols_local given: the order moves rows "
                           "between ranks, so x is split like the new rows (pass ncols_local -1)", o->reorder);
            goto out;
        }
        if ((rc = hspmv_dist_reorder_gathered(D, &S, o, "hspmv_dist_create", err))) goto out;
        if (D->permuted) {
            hspmv_dist_column_layout(D);
            if (o->partition != HSPMV_PART_METIS) D->partition = o->partition; /* the new order's split */
        }
        ob.reorder = HSPMV_REORDER_NONE; /* done: the blocks are made in the new order */
    }
    rc = hspmv_dist_build(D, &S, &ob, err);
out:
    hspmv_csr_free(&S);
    hspmv_free(all);
    if (rc) hspmv_dist_destroy(&D);
    *Dout = D;
    return rc;
}
