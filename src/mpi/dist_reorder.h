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

/* Rank 0's reorder fields of *in to every rank of comm (MPI_Bcast's status). */
int hspmv_dist_bcast_reorder(hspmv_dist_info *in, MPI_Comm comm);

#endif
