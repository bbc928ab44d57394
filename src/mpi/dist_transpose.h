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

#endif
