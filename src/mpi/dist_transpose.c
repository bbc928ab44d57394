/* dist_transpose.c — A^T for the transposed product Y = A^T X
   (dist_spmm.c multiplies it): made once, on the first transposed call,
   as a distributed matrix of its own. Every entry a_ij moves (in the
   readers' all-to-all rounds) to the rank that owns x_j, which then holds
   row j of A^T (A's column j) whole; it is multiplied like A, x_i read
   from the node window or the halo, no partial sums sent back. The reverse halo
   (PETSc's MatMultTranspose_MPIAIJ: each rank multiplies its rows'
   transpose and sends the ghost columns' sums to their owners) was
   measured against it and lost everywhere (docs/api.md). */
#include <stdio.h>
#include <string.h>
#include "dist.h"
#include "dist_transpose.h"
#include "node.h"
#include "read_parallel.h" /* the all-to-all rounds of the readers */
#include "util.h"

/* This rank's entries as one piece of (row of A^T = global column j,
   column of A^T = global row i, value) records, for the exchange. */
static int piece_of(const hspmv_dist *D, mtx_piece *pc, hspmv_error *err)
{
    hspmv_csr Ao = {0}, Ag = {0};
    int me = D->rank, rc = hspmv_dist_tr_rows(D, &Ao, &Ag, err);
    int64_t n = Ao.nnz + Ag.nnz, at = 0, r0 = D->row_start[me], cb = D->col_start[me];
    memset(pc, 0, sizeof(*pc));
    if (!rc) {
        pc->row = hspmv_alloc_array((size_t)(n ? n : 1), sizeof(int32_t));
        pc->col = hspmv_alloc_array((size_t)(n ? n : 1), sizeof(int32_t));
        pc->val = hspmv_alloc_array((size_t)(n ? n : 1), sizeof(hspmv_real));
        if (!pc->row || !pc->col || !pc->val)
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for its %lld entries' transposes", me,
                           (long long)n);
    }
    for (int64_t i = 0; !rc && i < Ao.nrows; i++) {
        for (int64_t q = Ao.rowptr[i]; q < Ao.rowptr[i + 1]; q++, at++) {
            pc->row[at] = (int32_t)(cb + Ao.colind[q]);
            pc->col[at] = (int32_t)(r0 + i);
            pc->val[at] = Ao.val[q];
        }
        for (int64_t q = Ag.rowptr[i]; q < Ag.rowptr[i + 1]; q++, at++) {
            pc->row[at] = (int32_t)D->ghost_col[Ag.colind[q]];
            pc->col[at] = (int32_t)(r0 + i);
            pc->val[at] = Ag.val[q];
        }
    }
    pc->nnz = rc ? 0 : n;
    hspmv_csr_free(&Ao);
    hspmv_csr_free(&Ag);
    return rc;
}

/* This rank's rows of A^T, gathered from every rank's entries by the
   readers' bounded all-to-all rounds (read_exchange.c): the rows counted,
   then the entries placed, each row sorted. Collective, agreed. */
static int exchange(const hspmv_dist *D, hspmv_csr *S, hspmv_error *err)
{
    int me = D->rank, rc;
    int64_t nl = D->ncols_local, cb = D->col_start[me], *next = NULL, moved;
    mtx_piece pc = {0};
    double need = (double)(D->nnz_owned + D->nnz_ghost) * (double)(12 + 2 * sizeof(hspmv_real)) + 16.0 * (double)nl;
    rc = hspmv_mem_check(need, NULL, 0, "the transposed matrix's exchange", err);
    if (!rc) rc = piece_of(D, &pc, err);
    S->nrows = nl;
    S->ncols = D->nrows;
    if (!rc && (!(S->rowptr = hspmv_calloc((size_t)nl + 1, sizeof(int64_t))) ||
                !(next = hspmv_alloc_array((size_t)nl + 1, sizeof(int64_t)))))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld transposed rows", me, (long long)nl);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    xchg_sink ks = {cb, S->rowptr + 1, NULL, NULL, NULL};
    if ((rc = hspmv_xchg_pieces(D->comm, D->test, XCHG_KEYS, &pc, 1, HSPMV_GENERAL, D->col_start, &ks, 0, &moved, err)))
        goto out;
    for (int64_t i = 0; i < nl; i++) S->rowptr[i + 1] += S->rowptr[i];
    S->nnz = S->rowptr[nl];
    memcpy(next, S->rowptr, sizeof(int64_t) * ((size_t)nl + 1));
    S->colind = hspmv_alloc_array((size_t)(S->nnz ? S->nnz : 1), sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)(S->nnz ? S->nnz : 1), sizeof(hspmv_real));
    if (!S->colind || !S->val)
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld transposed entries", me,
                       (long long)S->nnz);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    xchg_sink es = {cb, NULL, next, S->colind, S->val};
    if ((rc = hspmv_xchg_pieces(D->comm, D->test, XCHG_ENTRIES, &pc, 1, HSPMV_GENERAL, D->col_start, &es, 1, &moved,
                                err)))
        goto out;
    hspmv_dist_sort_rows(S); /* A held each (i, j) once: nothing is summed */
out:
    hspmv_free(pc.row);
    hspmv_free(pc.col);
    hspmv_free(pc.val);
    hspmv_free(next);
    return rc;
}

/* D's kernel set on every rank, into name: the one its blocks agreed on,
   from the first rank that has blocks ("auto" only when no rank has any:
   then every rank times, together). Collective. */
static void agreed_isa(const hspmv_dist *D, char name[32])
{
    const char *mine = hspmv_dist_tr_isa(D);
    int me = strcmp(mine, "auto") ? D->rank : D->size, first;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, D->comm);
    snprintf(name, 32, "%s", first == D->size ? "auto" : mine);
    if (first < D->size) MPI_Bcast(name, 32, MPI_CHAR, first, D->comm);
}

/* *Tout = A^T distributed by A's columns, made with D's threads, kernel
   set, format options, halo mode and nodes. Collective, agreed; *Tout is NULL on failure. */
static int tr_matrix(const hspmv_dist *D, hspmv_dist **Tout, hspmv_error *err)
{
    hspmv_csr S = {0};
    hspmv_dist *T = NULL;
    hspmv_opts o;
    char isa[32];
    int P = D->size, rc = exchange(D, &S, err);
    *Tout = NULL;
    if (!rc) rc = hspmv_dist_alloc(D->comm, &T, err);
    if (rc) {
        hspmv_csr_free(&S);
        return rc;
    }
    memcpy(T->test, D->test, sizeof(T->test)); /* the matrix's agreed test hooks, not today's environment */
    for (int q = 0; q <= P; q++) {
        T->row_start[q] = D->col_start[q];
        T->col_start[q] = D->row_start[q];
    }
    T->nrows = D->ncols;
    T->ncols = D->nrows;
    T->partition = D->partition;
    hspmv_opts_default(&o);
    o.threads = D->threads;
    o.format = D->format;
    o.csrl_threshold = D->csrl_threshold;
    agreed_isa(D, isa);
    o.kernel = isa;
    o.halo = D->halo;
    o.node_ranks = D->node ? D->node->env_ranks : 0;
    rc = hspmv_dist_build(T, &S, &o, err); /* frees S */
    if (rc) hspmv_dist_destroy(&T);
    *Tout = T;
    return rc;
}

int hspmv_dist_transposed(hspmv_dist *D, hspmv_dist **At, hspmv_error *err)
{
    *At = NULL;
    if (!D->tr) { /* every rank comes here together: the same calls everywhere */
        int rc = tr_matrix(D, &D->tr, err);
        if (rc) return rc;
        if (D->halo == HSPMV_HALO_NODE && D->tr->halo == HSPMV_HALO_NODE) /* x in A's window: read in place */
            hspmv_node_lend(D->tr->node, D->node);
    }
    *At = D->tr;
    return HSPMV_OK;
}
