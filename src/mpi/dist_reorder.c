/* dist_reorder.c — hspmv_opts.reorder for a distributed matrix that rank 0
   holds whole (hspmv_dist_create_root, the root read): with the nonzero or
   row split a global order of the whole matrix first (src/order: RCM, ND or
   auto's choice), then the split of the new order, so that each rank's
   contiguous block is local; with METIS's partition each rank's rows then
   ordered by the order of its own diagonal block. Rank 0 keeps the result
   as METIS's renumbering (perm, iperm), which the scatter, the gather and
   the file index already translate. Cost on rank 0: the ordering, one
   permuted copy of the matrix while it is measured, and for METIS a copy
   of each block's pattern in turn. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dist.h"
#include "dist_reorder.h"
#include "order.h"
#include "util.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The pattern of rows [b, e) of A(perm, perm) against the same columns
   (the diagonal block of one rank), rebased to 0; values 1. */
static int diagonal_block(const hspmv_csr *A, const int64_t *perm, const int64_t *iperm, int64_t b, int64_t e,
                          hspmv_csr *B)
{
    int64_t n = e - b, z = 0;
    memset(B, 0, sizeof(*B));
    for (int64_t i = b; i < e; i++) z += A->rowptr[perm[i] + 1] - A->rowptr[perm[i]];
    B->nrows = B->ncols = n;
    B->rowptr = hspmv_alloc_array((size_t)n + 1, sizeof(int64_t));
    B->colind = hspmv_alloc_array(z ? (size_t)z : 1, sizeof(int32_t));
    B->val = hspmv_alloc_array(z ? (size_t)z : 1, sizeof(hspmv_real));
    if (!B->rowptr || !B->colind || !B->val) return HSPMV_ERR_NOMEM;
    z = 0;
    B->rowptr[0] = 0;
    for (int64_t i = b; i < e; i++) {
        int64_t r = perm[i], first = z;
        for (int64_t q = A->rowptr[r]; q < A->rowptr[r + 1]; q++) {
            int64_t c = iperm[A->colind[q]];
            if (c >= b && c < e) B->colind[z] = (int32_t)(c - b), B->val[z++] = 1;
        }
        qsort(B->colind + first, (size_t)(z - first), sizeof(int32_t), cmp_i32);
        B->rowptr[i - b + 1] = z;
    }
    B->nnz = z;
    return HSPMV_OK;
}

/* METIS's parts each reordered by their diagonal block: perm composed in place. */
static int order_parts(const hspmv_csr *A, int reorder, const char *test, int P, const int64_t *start, int64_t *perm,
                       int64_t *iperm, int *used, hspmv_error *err)
{
    int rc = HSPMV_OK;
    int64_t *tmp = hspmv_alloc_array(A->nrows ? (size_t)A->nrows : 1, sizeof(int64_t));
    if (!tmp) return hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory reordering the parts");
    for (int p = 0; p < P && !rc; p++) {
        int64_t b = start[p], e = start[p + 1];
        hspmv_csr Bp, Bq;
        hspmv_order_choice C;
        if (diagonal_block(A, perm, iperm, b, e, &Bp)) {
            hspmv_csr_free(&Bp);
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for rank %d's block", p);
            break;
        }
        rc = hspmv_order_choose(&Bp, reorder, test, 0, &C, &Bq, err);
        hspmv_csr_free(&Bp);
        hspmv_csr_free(&Bq);
        if (rc) break;
        if (C.rp) {
            for (int64_t k = 0; k < e - b; k++) tmp[k] = perm[b + C.rp[k]];
            memcpy(perm + b, tmp, (size_t)(e - b) * sizeof(int64_t));
            *used = C.used;
        }
        hspmv_free(C.rp);
        hspmv_free(C.cp);
    }
    hspmv_free(tmp);
    if (!rc) hspmv_order_invert(perm, A->nrows, iperm);
    return rc;
}

int hspmv_dist_reorder_root(const hspmv_csr *A, int reorder, int partition, const char *test, int P,
                            int64_t *row_start, int64_t **perm, int64_t **iperm, hspmv_dist_info *in,
                            hspmv_error *err)
{
    double t0 = now_s();
    hspmv_order_stats before, after;
    hspmv_csr B = {0};
    int rc = HSPMV_OK, used = HSPMV_REORDER_NONE;
    if (reorder == HSPMV_REORDER_NONE) return HSPMV_OK;
    if (!hspmv_order_name(reorder))
        return hspmv_err(err, HSPMV_ERR_ARG, "rank 0: unknown reorder %d (none, rcm, nd or auto)", reorder);
    if (A->nrows != A->ncols)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "reorder of a distributed matrix needs a square matrix, this one "
                         "is %lld x %lld", (long long)A->nrows, (long long)A->ncols);
    hspmv_order_measure(A, hspmv_order_window(test), 0, &before);
    after = before;
    if (!*perm) { /* nonzero or row split (or METIS that kept the order): a global order, then the split */
        hspmv_order_choice C;
        if ((rc = hspmv_order_choose(A, reorder, test, 0, &C, &B, err))) return rc;
        if (C.rp) {
            *perm = C.rp;
            hspmv_free(C.cp);
            *iperm = hspmv_alloc_array(A->nrows ? (size_t)A->nrows : 1, sizeof(int64_t));
            if (!*iperm) rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for the inverse order");
            else hspmv_order_invert(*perm, A->nrows, *iperm);
            if (partition == HSPMV_PART_NNZ) hspmv_partition_nnz(B.rowptr, B.nrows, P, row_start);
            else if (partition == HSPMV_PART_ROWS) hspmv_partition_rows(B.nrows, P, row_start);
            after = C.after;
            used = C.used;
        }
        hspmv_csr_free(&B);
    } else { /* METIS renumbered: each part ordered inside */
        rc = order_parts(A, reorder, test, P, row_start, *perm, *iperm, &used, err);
        if (!rc && !(rc = hspmv_order_apply(A, *perm, *perm, 0, &B, err))) hspmv_order_measure(&B, before.window, 0, &after);
        hspmv_csr_free(&B);
    }
    in->reorder = used;
    in->bandwidth_before = before.bandwidth;
    in->bandwidth_after = after.bandwidth;
    in->local_before = before.local_frac;
    in->local_after = after.local_frac;
    in->reorder_s = now_s() - t0;
    return rc;
}

int hspmv_dist_bcast_reorder(hspmv_dist_info *in, MPI_Comm comm)
{
    double f[6] = {(double)in->reorder, (double)in->bandwidth_before, (double)in->bandwidth_after, in->local_before,
                   in->local_after, in->reorder_s};
    int rc = MPI_Bcast(f, 6, MPI_DOUBLE, 0, comm);
    in->reorder = (int)f[0];
    in->bandwidth_before = (int64_t)f[1];
    in->bandwidth_after = (int64_t)f[2];
    in->local_before = f[3];
    in->local_after = f[4];
    in->reorder_s = f[5];
    return rc;
}
