/* dist_reorder.h — private: hspmv_opts.reorder on rank 0's whole matrix
   before it is split (dist_reorder.c). */
#ifndef HSPMV_DIST_REORDER_H
#define HSPMV_DIST_REORDER_H

#include "hspmv.h"

/* Rank 0, after the partition of A (row_start; perm, iperm set where METIS
   renumbered, else NULL): orders A by reorder (HSPMV_REORDER_*) as
   dist_reorder.c says, updating row_start, *perm and *iperm (allocated
   here when they were NULL and an order is used), and records in *in the
   order used, bandwidths, shares near the diagonal and seconds.
   HSPMV_ERR_UNSUPPORTED for a rectangular matrix (and nd without METIS). */
int hspmv_dist_reorder_root(const hspmv_csr *A, int reorder, int partition, const char *test, int P,
                            int64_t *row_start, int64_t **perm, int64_t **iperm, hspmv_dist_info *in,
                            hspmv_error *err);

/* Collective (dist_reorder_gather.c): o->reorder for a matrix whose rows S
   (global columns, sorted) each rank holds under D->row_start (the nonzero
   or row split): the pattern gathered on rank 0, ordered there by
   hspmv_dist_reorder_root, the rows moved to the owners of their new
   numbers; D->row_start, D->perm (rank 0), D->file_row, D->permuted and
   the reorder fields of D->info set, S replaced. path names the file in
   the memory refusal (HSPMV_ERR_NOMEM with the bytes). Nothing is done
   for HSPMV_REORDER_NONE or where auto keeps the order. Same status on
   every rank. */
int hspmv_dist_reorder_gathered(struct hspmv_dist *D, hspmv_csr *S, const hspmv_opts *o, const char *path,
                                hspmv_error *err);

/* Rank 0's reorder fields of *in to every rank of comm (MPI_Bcast's status). */
int hspmv_dist_bcast_reorder(hspmv_dist_info *in, MPI_Comm comm);

#endif
