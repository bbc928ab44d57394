/* partition_walk.c — the seed's alternating-shrink partition computed as a
   walk along the ranks, each looking only at the row pointers of its own
   block of rows, so no rank needs every row length (no MPI here). */
#include "dist_petsc.h"

int hspmv_partition_nnz_walk(part_walk *w, const int64_t *rpb, int64_t first, int64_t lo, int64_t hi,
                             int64_t nrows, int P, double avg, int64_t *start, int64_t *start_nnz)
{
#define RP(i) rpb[(i) - first]
    int64_t end = hi < nrows ? hi : nrows;
    while (w->p < P - 1) {
        int64_t e = w->b, rpe = w->rpb;
        if (w->b < nrows) {
            /* first e >= b+1 with rp[e] >= rp[b] + avg, as first_reaching's binary search */
            double target = (double)w->rpb + avg;
            int64_t i = w->b + 1 > lo ? w->b + 1 : lo;
            while (i < end && (double)RP(i) < target) i++;
            if (i < end) e = i;
            else if (hi >= nrows) e = nrows;
            else return 0; /* the next block goes on searching */
            if ((w->p & 1) && e - 1 > w->b && e < nrows) e--; /* shrink */
            rpe = RP(e);
        }
        w->p++;
        start[w->p] = e;
        start_nnz[w->p] = rpe;
        w->b = e;
        w->rpb = rpe;
    }
    return 1;
#undef RP
}
