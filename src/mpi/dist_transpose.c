/* dist_transpose.c — A^T for the transposed product Y = A^T X
   (dist_spmm.c multiplies it): made once, on the first transposed call,
   as a distributed matrix of its own. Every entry a_ij moves by one
   MPI_Alltoallv to the rank that owns x_j, which then holds row j of A^T
   (A's column j) whole; it is multiplied like A, x_i read from the node
   window or the halo, no partial sums sent back. The reverse halo
   (PETSc's MatMultTranspose_MPIAIJ: each rank multiplies its rows'
   transpose and sends the ghost columns' sums to their owners) was
   measured against it and lost everywhere (docs/api.md). */
#include <limits.h>
#include <string.h>
#include "dist.h"
#include "dist_transpose.h"
#include "node.h"
#include "util.h"

/* One entry on its way: its row of A^T (local to the receiver), its
   column of A^T (a global row of A) and its value. */
typedef struct tr_entry {
    int32_t row, col;
    hspmv_real val;
} tr_entry;

/* The entries of this rank's rows bound for each rank, grouped by
   destination: *out (cnt[q] entries for rank q, from dsp[q]). */
static int pack(const hspmv_dist *D, const hspmv_csr *Ao, const hspmv_csr *Ag, int *cnt, int *dsp, tr_entry **out,
                hspmv_error *err)
{
    int P = D->size, me = D->rank;
    int64_t r0 = D->row_start[me], total = Ao->nnz + Ag->nnz, at = 0;
    int64_t *pos = hspmv_calloc((size_t)P + 1, sizeof(int64_t));
    int *own = hspmv_alloc_array((size_t)(Ag->nnz ? Ag->nnz : 1), sizeof(int));
    tr_entry *e = hspmv_alloc_array((size_t)(total ? total : 1), sizeof(tr_entry));
    *out = e;
    if (!pos || !own || !e) {
        hspmv_free(pos);
        hspmv_free(own);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory sending %lld entries to their columns' owners",
                         me, (long long)total);
    }
    if (total > INT_MAX) {
        hspmv_free(pos);
        hspmv_free(own);
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %lld entries pass one MPI_Alltoallv's 2^31", me,
                         (long long)total);
    }
    pos[me] += Ao->nnz;
    for (int64_t q = 0; q < Ag->nnz; q++) {
        own[q] = hspmv_dist_owner(D->col_start, P, D->ghost_col[Ag->colind[q]]);
        pos[own[q]]++;
    }
    for (int q = 0; q < P; q++) {
        cnt[q] = (int)pos[q];
        dsp[q] = (int)at;
        pos[q] = at;
        at += cnt[q];
    }
    for (int64_t i = 0; i < Ao->nrows; i++) {
        for (int64_t q = Ao->rowptr[i]; q < Ao->rowptr[i + 1]; q++)
            e[pos[me]++] = (tr_entry){Ao->colind[q], (int32_t)(r0 + i), Ao->val[q]};
        for (int64_t q = Ag->rowptr[i]; q < Ag->rowptr[i + 1]; q++) {
            int o = own[q];
            e[pos[o]++] = (tr_entry){(int32_t)(D->ghost_col[Ag->colind[q]] - D->col_start[o]), (int32_t)(r0 + i),
                                     Ag->val[q]};
        }
    }
    hspmv_free(pos);
    hspmv_free(own);
    return HSPMV_OK;
}

/* The received entries as rows of A^T (global columns, each row sorted). */
static int unpack(const hspmv_dist *D, const tr_entry *e, int64_t n, hspmv_csr *S, hspmv_error *err)
{
    int64_t nl = D->ncols_local;
    S->nrows = nl;
    S->ncols = D->nrows;
    S->nnz = n;
    S->rowptr = hspmv_calloc((size_t)nl + 1, sizeof(int64_t));
    S->colind = hspmv_alloc_array((size_t)(n ? n : 1), sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)(n ? n : 1), sizeof(hspmv_real));
    if (!S->rowptr || !S->colind || !S->val)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory for %lld transposed entries", D->rank,
                         (long long)n);
    for (int64_t q = 0; q < n; q++) S->rowptr[e[q].row + 1]++;
    for (int64_t i = 0; i < nl; i++) S->rowptr[i + 1] += S->rowptr[i];
    for (int64_t q = 0; q < n; q++) {
        int64_t at = S->rowptr[e[q].row]++;
        S->colind[at] = e[q].col;
        S->val[at] = e[q].val;
    }
    for (int64_t i = nl; i > 0; i--) S->rowptr[i] = S->rowptr[i - 1];
    S->rowptr[0] = 0;
    hspmv_dist_sort_rows(S); /* A held each (i, j) once: nothing is summed */
    return HSPMV_OK;
}

/* This rank's rows of A^T, gathered from every rank's entries. Collective, agreed. */
static int exchange(const hspmv_dist *D, hspmv_csr *S, hspmv_error *err)
{
    int P = D->size, me = D->rank, rc;
    hspmv_csr Ao = {0}, Ag = {0};
    tr_entry *se = NULL, *re = NULL;
    int *c = hspmv_alloc_array((size_t)P * 4, sizeof(int));
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int64_t nrecv = 0;
    double need = (double)(D->nnz_owned + D->nnz_ghost) * (double)(2 * sizeof(tr_entry) + 4 + sizeof(hspmv_real));
    rc = hspmv_mem_check(need, NULL, 0, "the transposed matrix's exchange", err);
    if (!rc && !c) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", me);
    if (!rc) rc = hspmv_dist_tr_rows(D, &Ao, &Ag, err);
    if (!rc) rc = pack(D, &Ao, &Ag, c, c + P, &se, err);
    hspmv_csr_free(&Ao);
    hspmv_csr_free(&Ag);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (MPI_Alltoall(c, 1, MPI_INT, c + 2 * P, 1, MPI_INT, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoall of the transposed entry counts failed", me);
    for (int q = 0; !rc && q < P; q++) {
        c[3 * P + q] = (int)nrecv;
        nrecv += c[2 * P + q];
    }
    if (!rc && nrecv > INT_MAX)
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: %lld transposed entries pass one MPI_Alltoallv's 2^31",
                       me, (long long)nrecv);
    if (!rc && !(re = hspmv_alloc_array((size_t)(nrecv ? nrecv : 1), sizeof(tr_entry))))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory receiving %lld transposed entries", me,
                       (long long)nrecv);
    if ((rc = hspmv_dist_agree(D->comm, rc, err))) goto out;
    if (MPI_Type_contiguous((int)sizeof(tr_entry), MPI_BYTE, &t) != MPI_SUCCESS || MPI_Type_commit(&t) != MPI_SUCCESS ||
        MPI_Alltoallv(se, c, c + P, t, re, c + 2 * P, c + 3 * P, t, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Alltoallv of the transposed entries failed", me);
    hspmv_free(se);
    se = NULL;
    if (!rc) rc = unpack(D, re, nrecv, S, err);
    rc = hspmv_dist_agree(D->comm, rc, err);
out:
    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
    hspmv_free(se);
    hspmv_free(re);
    hspmv_free(c);
    return rc;
}

/* D's kernel set on every rank: the one its blocks agreed on, which a rank
   without blocks learns from the others ("auto" only when no rank has
   any: then every rank times, together). Collective. */
static const char *agreed_isa(const hspmv_dist *D)
{
    static const char *const sets[] = {"scalar", "avx2", "avx512", "neon"};
    const char *mine = hspmv_dist_tr_isa(D);
    int i = -1, all = -1;
    for (int s = 0; s < 4; s++)
        if (!strcmp(mine, sets[s])) i = s;
    MPI_Allreduce(&i, &all, 1, MPI_INT, MPI_MAX, D->comm);
    return all < 0 ? "auto" : sets[all];
}

/* *Tout = A^T distributed by A's columns, made with D's threads, kernel
   set, format options, halo mode and nodes. Collective, agreed; *Tout is NULL on failure. */
static int tr_matrix(const hspmv_dist *D, hspmv_dist **Tout, hspmv_error *err)
{
    hspmv_csr S = {0};
    hspmv_dist *T = NULL;
    hspmv_opts o;
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
    o.kernel = agreed_isa(D);
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
