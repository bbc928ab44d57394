/* dist_sym.h — a distributed symmetric matrix stored once: each rank keeps
   the lower triangle of its rows (private to src/mpi). */
#ifndef HSPMV_DIST_SYM_H
#define HSPMV_DIST_SYM_H

#include "dist.h"

/* The ghost part of one-triangle storage. Rank p keeps its rows' entries
   a_ij with j below its first row (the lower ghost block G, columns from
   lower ranks); the entries above its last row are the mirrors of lower
   ranks' G and are not stored. A product (as PETSc's MPISBAIJ, but one
   message each way per neighbour pair):
     c = s G^T x_own             (what this rank's rows add to lower ranks' y)
     send x to the higher ranks, c to the lower ones; receive both
     y = A_own x_own             (the owned block, one triangle itself)
     y += G x_ghost, y[send_idx] += c from the higher ranks
   x from a lower rank and c to it cover the same index list, so the p2p
   plan of the lower ghosts serves both directions. */
typedef struct hspmv_dist_sym {
    int sign;                 /* +1 symmetric, -1 skew-symmetric (c = -G^T x) */
    int64_t nrows;            /* rows of G kept (rows with lower ghost entries) */
    int64_t *row;             /* nrows entries: the local row of each */
    int64_t *rowptr;          /* nrows + 1 */
    int32_t *colind;          /* into the ghost columns (D->ghost_col) */
    hspmv_real *val;
    int64_t nnz;              /* entries of G (= D->nnz_ghost) */
    int64_t dropped;          /* the upper ghost entries not stored (this rank) */
    hspmv_real *cout;         /* D->nghost entries: c, sent back to the ghosts' owners */
    hspmv_real *cin;          /* D->send_ptr[nsend] entries: c received from the ranks x goes to */
    hspmv_real **cpriv;       /* threads > 1 with many entries: a private c per thread */
    int cthreads;             /* threads computing c (1: one pass, no private copies) */
    MPI_Request *req;         /* the contributions' messages: nrecv + nsend */
    double check_s;           /* seconds the symmetry check took (this rank) */
} hspmv_dist_sym;

/* Collective. Whether the matrix of this rank's blocks (Ao owned, Ag ghost
   with compact columns into g; threads for the owned check) is symmetric (+1) or
   skew-symmetric (-1) across all ranks: each owned block checked in place,
   each lower ghost entry sent to its column's owner and compared with the
   owner's upper ghost entries. *sign = 0 when it is neither (or the matrix
   is not square with x split like the rows). ask YES: neither is
   HSPMV_ERR_UNSUPPORTED on every rank. Same status everywhere. */
int hspmv_dist_sym_decide(hspmv_dist *D, const hspmv_csr *Ao, const hspmv_csr *Ag, const int32_t *g, int ask,
                          int threads, int *sign, double *check_s, hspmv_error *err);

/* This rank's part of it: Ag and g reduced to the lower ghosts (columns
   below this rank's first; *ng updated, Ag's columns renumbered), G's rows
   with entries kept in D->sym. HSPMV_ERR_NOMEM (this rank's; the caller
   agrees it). */
int hspmv_dist_sym_keep_lower(hspmv_dist *D, hspmv_csr *Ag, int32_t *g, int64_t *ng, int sign, double check_s);

/* Buffers once the p2p plan of the lower ghosts is made (D->nghost,
   send_ptr). HSPMV_ERR_NOMEM (this rank's). */
int hspmv_dist_sym_buffers(hspmv_dist *D);

/* y = A x from one triangle (the four steps above); D->halo is p2p. */
int hspmv_dist_sym_spmv(hspmv_dist *D, const hspmv_real *x, hspmv_real *y);

/* Frees D->sym (accepts NULL). */
void hspmv_dist_sym_free(hspmv_dist_sym *S);

#endif
