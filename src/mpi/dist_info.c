/* dist_info.c — what a distributed matrix looks like, its layout, its timing. */
#include <string.h>
#include "dist.h"

void hspmv_dist_get_info(const hspmv_dist *D, hspmv_dist_info *info) { *info = D->info; }

void hspmv_dist_get_ranges(const hspmv_dist *D, int64_t *row_start, int64_t *col_start)
{
    size_t b = sizeof(int64_t) * (size_t)(D->size + 1);
    if (row_start) memcpy(row_start, D->row_start, b);
    if (col_start) memcpy(col_start, D->col_start, b);
}

void hspmv_dist_get_file_index(const hspmv_dist *D, int which, int64_t *index)
{
    int64_t n = which == HSPMV_VEC_ROWS ? D->nrows_local : D->ncols_local;
    int64_t b = which == HSPMV_VEC_ROWS ? D->row_start[D->rank] : D->col_start[D->rank];
    /* METIS matrices are square and renumber rows and columns alike */
    for (int64_t i = 0; i < n; i++) index[i] = D->file_row ? D->file_row[i] : b + i;
}

MPI_Comm hspmv_dist_get_comm(const hspmv_dist *D) { return D->comm; }

void hspmv_dist_get_timing(const hspmv_dist *D, hspmv_dist_timing *t) { *t = D->timing; }

void hspmv_dist_reset_timing(hspmv_dist *D) { memset(&D->timing, 0, sizeof(D->timing)); }
