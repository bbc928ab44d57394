/* dist_transpose.h — between the transposed product (dist_transpose.c) and
   the decoding of a rank's entries from its blocks (dist_transpose_rows.c). */
#ifndef HSPMV_DIST_TRANSPOSE_H
#define HSPMV_DIST_TRANSPOSE_H

#include "dist.h"

/* This rank's entries decoded from its blocks (either halo mode) as two
   row-CSRs of its nrows_local rows: *Ao with the owned columns (local
   numbers), *Ag with the ghost columns (indices into D->ghost_col). A row's
   entries need not be in column order. Local; on failure the caller frees
   what was made. */
int hspmv_dist_tr_rows(const hspmv_dist *D, hspmv_csr *Ao, hspmv_csr *Ag, hspmv_error *err);

/* The kernel set D's blocks use (agreed at creation), "auto" when it has none. */
const char *hspmv_dist_tr_isa(const hspmv_dist *D);

#endif
