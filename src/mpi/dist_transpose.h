/* dist_transpose.h — between the transposed product (dist_transpose.c) and
   the making of its parts (dist_transpose_plan.c). */
#ifndef HSPMV_DIST_TRANSPOSE_H
#define HSPMV_DIST_TRANSPOSE_H

#include "dist.h"

/* *To = this rank's owned part transposed (ncols_local x nrows_local), *Tg
   = its ghost part transposed (one row per ghost column, D->ghost_col's
   order), each NULL when it has no entries; prepared with the blocks'
   threads and kernel set. Local (the caller agrees the status); on failure
   the caller frees what was made. */
int hspmv_dist_tr_parts(const hspmv_dist *D, hspmv_local **To, hspmv_local **Tg, hspmv_error *err);

/* This rank's entries decoded from its blocks (either halo mode) as two
   row-CSRs of its nrows_local rows: *Ao with the owned columns (local
   numbers), *Ag with the ghost columns (indices into D->ghost_col). A row's
   entries need not be in column order. Local; on failure the caller frees
   what was made. */
int hspmv_dist_tr_rows(const hspmv_dist *D, hspmv_csr *Ao, hspmv_csr *Ag, hspmv_error *err);

/* The kernel set D's blocks use (agreed at creation), "auto" when it has none. */
const char *hspmv_dist_tr_isa(const hspmv_dist *D);

/* dist_transpose_owner.c. *T = A^T as a distributed matrix: row j (A's
   column j) held by the rank that owns x_j, with every entry of A's column
   j from whichever rank holds its row, its columns split like A's rows;
   made with D's threads, kernel set, halo mode and nodes. Collective,
   agreed; *T is NULL on failure. */
int hspmv_dist_tr_matrix(const hspmv_dist *D, hspmv_dist **T, hspmv_error *err);

#endif
