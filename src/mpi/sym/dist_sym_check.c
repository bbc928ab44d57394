/* dist_sym_check.c — is a distributed matrix symmetric (or skew) across
   its ranks: the owned blocks checked in place, every lower ghost entry
   sent to its column's owner and matched with that owner's upper ones. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "dist_sym.h"
#include "sym.h"
#include "util.h"

typedef struct trip {
    int64_t r, c; /* global row and column */
    hspmv_real v;
} trip;

static int cmp_trip(const void *a, const void *b)
{
    const trip *x = a, *y = b;
    if (x->r != y->r) return (x->r > y->r) - (x->r < y->r);
    return (x->c > y->c) - (x->c < y->c);
}

/* Sorts t by (row, column) and sums duplicates in place; the new count. */
static int64_t sort_sum(trip *t, int64_t n)
{
    int64_t m = 0;
    qsort(t, (size_t)n, sizeof(*t), cmp_trip);
    for (int64_t k = 0; k < n; k++) {
        if (m > 0 && t[m - 1].r == t[k].r && t[m - 1].c == t[k].c) t[m - 1].v += t[k].v;
        else t[m++] = t[k];
    }
    return m;
}

/* The owned block: bit 1 symmetric possible, bit 2 skew possible. */
static int owned_kinds(const hspmv_csr *Ao, int threads)
{
    if (Ao->nnz == 0) return 3;
    int k = hspmv_sym_check(Ao, threads, NULL);
    return k == HSPMV_SYM_PLUS ? 1 : k == HSPMV_SYM_SKEW ? 2 : 0;
}

/* The ghost blocks: this rank's mirrors of the lower ghost entries it got
   (R, sorted) against its own upper ghost entries (U, sorted). */
static int ghost_kinds(const trip *R, int64_t nr, const trip *U, int64_t nu)
{
    int plus = nr == nu, skew = nr == nu;
    for (int64_t k = 0; k < nr && (plus || skew); k++) {
        if (R[k].r != U[k].r || R[k].c != U[k].c) return 0;
        plus = plus && R[k].v == U[k].v;
        skew = skew && R[k].v == -U[k].v;
    }
    return plus | skew << 1;
}

/* This rank's status, with its message, agreed by all: the lowest failing
   rank's code and words everywhere. */
static int agreed(hspmv_dist *D, int rc, int64_t n, hspmv_error *err)
{
    if (rc == HSPMV_ERR_NOMEM)
        hspmv_err(err, rc, "rank %d: out of memory checking the matrix for symmetry (%lld ghost entries, %d bytes "
                  "each)", D->rank, (long long)n, (int)sizeof(trip));
    else if (rc == HSPMV_ERR_UNSUPPORTED)
        hspmv_err(err, rc, "rank %d: symmetric yes: more than 2^31 - 1 ghost entries to compare on one rank", D->rank);
    else if (rc == HSPMV_ERR_MPI)
        hspmv_err(err, rc, "rank %d: exchanging the ghost entries for the symmetry check failed", D->rank);
    return hspmv_dist_agree(D->comm, rc, err);
}

int hspmv_dist_sym_decide(hspmv_dist *D, const hspmv_csr *Ao, const hspmv_csr *Ag, const int32_t *g, int ask,
                          int threads, int *sign, double *check_s, hspmv_error *err)
{
    int P = D->size, me = D->rank, rc = HSPMV_OK, kinds = 0, all = 0;
    int64_t rb = D->row_start[me], nlow = 0, nup = 0, nrecv = 0;
    int *scnt = hspmv_calloc((size_t)P, sizeof(int)), *rcnt = hspmv_calloc((size_t)P, sizeof(int));
    int *sdsp = hspmv_calloc((size_t)P, sizeof(int)), *rdsp = hspmv_calloc((size_t)P, sizeof(int));
    trip *S = NULL, *R = NULL, *U = NULL;
    MPI_Datatype tt = MPI_DATATYPE_NULL;
    double t0 = MPI_Wtime();
    *sign = 0;
    if (D->nrows != D->ncols) goto decided; /* every rank alike */
    if (!scnt || !rcnt || !sdsp || !rdsp) rc = HSPMV_ERR_NOMEM;
    for (int64_t k = 0; !rc && k < Ag->nnz; k++) {
        if (g[Ag->colind[k]] < rb) nlow++;
        else nup++;
    }
    if (!rc && nlow > INT_MAX) rc = HSPMV_ERR_UNSUPPORTED;
    if (!rc) {
        S = hspmv_alloc_array((size_t)(nlow ? nlow : 1), sizeof(trip));
        U = hspmv_alloc_array((size_t)(nup ? nup : 1), sizeof(trip));
        if (!S || !U) rc = HSPMV_ERR_NOMEM;
    }
    if (!rc) {
        int64_t ks = 0, ku = 0;
        for (int64_t i = 0; i < Ag->nrows; i++)
            for (int64_t k = Ag->rowptr[i]; k < Ag->rowptr[i + 1]; k++) {
                int64_t c = g[Ag->colind[k]];
                if (c < rb) S[ks++] = (trip){c, rb + i, Ag->val[k]}; /* the mirror its owner must hold */
                else U[ku++] = (trip){rb + i, c, Ag->val[k]};
            }
        qsort(S, (size_t)nlow, sizeof(*S), cmp_trip); /* by row, so by owner */
        for (int64_t k = 0; k < nlow; k++) scnt[hspmv_dist_owner(D->row_start, P, S[k].r)]++;
        for (int q = 1; q < P; q++) sdsp[q] = sdsp[q - 1] + scnt[q - 1];
        nup = sort_sum(U, nup);
    }
    if ((rc = agreed(D, rc, nlow + nup, err))) goto failed;
    if (MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, D->comm) != MPI_SUCCESS) rc = HSPMV_ERR_MPI;
    for (int q = 0; !rc && q < P; q++) {
        if (q > 0) rdsp[q] = rdsp[q - 1] + rcnt[q - 1];
        nrecv += rcnt[q];
    }
    if (!rc && nrecv > INT_MAX) rc = HSPMV_ERR_UNSUPPORTED;
    else if (!rc && !(R = hspmv_alloc_array((size_t)(nrecv ? nrecv : 1), sizeof(trip)))) rc = HSPMV_ERR_NOMEM;
    if ((rc = agreed(D, rc, nrecv, err))) goto failed;
    MPI_Type_contiguous((int)sizeof(trip), MPI_BYTE, &tt);
    MPI_Type_commit(&tt);
    if (MPI_Alltoallv(S, scnt, sdsp, tt, R, rcnt, rdsp, tt, D->comm) != MPI_SUCCESS) rc = HSPMV_ERR_MPI;
    if ((rc = agreed(D, rc, 0, err))) goto failed;
    nrecv = sort_sum(R, nrecv);
    kinds = owned_kinds(Ao, threads) & ghost_kinds(R, nrecv, U, nup);
    MPI_Allreduce(&kinds, &all, 1, MPI_INT, MPI_BAND, D->comm);
    *sign = all & 1 ? 1 : all & 2 ? -1 : 0;
    goto decided;
failed:
    if (rc == HSPMV_ERR_UNSUPPORTED && ask != HSPMV_SYMMETRIC_YES)
        rc = hspmv_ok(err); /* too many entries to compare: not checked, both triangles kept (every rank) */
decided:
    if (!rc && *sign == 0 && ask == HSPMV_SYMMETRIC_YES)
        rc = hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "symmetric yes asked for, but the distributed matrix (%lld x %lld) "
                       "is neither symmetric nor skew-symmetric in pattern and values", (long long)D->nrows,
                       (long long)D->ncols);
    if (tt != MPI_DATATYPE_NULL) MPI_Type_free(&tt);
    hspmv_free(S);
    hspmv_free(R);
    hspmv_free(U);
    hspmv_free(scnt);
    hspmv_free(rcnt);
    hspmv_free(sdsp);
    hspmv_free(rdsp);
    *check_s = MPI_Wtime() - t0;
    return rc;
}
