/* local_split.c — rows to threads: contiguous ranges balanced by nonzeros. */
#include "local.h"

/* Smallest row i in [lo, hi] with rp[i] >= goal (hi when none). */
static int64_t first_row_reaching(const int64_t *rp, int64_t lo, int64_t hi, int64_t goal)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (rp[mid] >= goal) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

void hspmv_local_split(const int64_t *rp, int64_t nrows, int nchunks, int64_t *start)
{
    int64_t nnz = nrows > 0 ? rp[nrows] - rp[0] : 0;
    start[0] = 0;
    for (int c = 1; c < nchunks; c++) {
        /* c*nnz/nchunks without overflow */
        int64_t goal = nnz / nchunks * c + nnz % nchunks * c / nchunks;
        if (nnz == 0) /* nothing to balance: split the rows (y still gets written) */
            start[c] = nrows / nchunks * c + nrows % nchunks * c / nchunks;
        else
            start[c] = first_row_reaching(rp, start[c - 1], nrows, rp[0] + goal);
    }
    start[nchunks] = nrows;
}
