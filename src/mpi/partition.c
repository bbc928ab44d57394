/* partition.c — rows to ranks: equal rows, and the seed's nnz-balanced
   "alternating shrink" (no MPI; rank 0 calls these). */
#include "dist.h"

/* start[p] = floor(nrows*p/P). */
void hspmv_partition_rows(int64_t nrows, int P, int64_t *start)
{
    for (int p = 0; p <= P; p++) start[p] = (int64_t)((__int128)nrows * p / P);
}

/* First row e >= lo with rp[e] >= target (rp ascending), or hi. */
static int64_t first_reaching(const int64_t *rp, int64_t lo, int64_t hi, double target)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((double)rp[mid] >= target) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* avg = nnz/P; each rank takes rows until its nnz reaches avg, then odd
   ranks give the last row back ("shrink") and even ranks keep it, so the
   overshoots and undershoots cancel instead of piling onto the last rank.
   The last rank takes what is left; ranks past the end get zero rows. */
void hspmv_partition_nnz(const int64_t *rp, int64_t nrows, int P, int64_t *start)
{
    int64_t nnz = rp[nrows];
    if (nnz == 0) {
        hspmv_partition_rows(nrows, P, start);
        return;
    }
    double avg = (double)nnz / P;
    int64_t b = 0;
    start[0] = 0;
    for (int p = 0; p < P - 1; p++) {
        int64_t e = b;
        if (b < nrows) {
            e = first_reaching(rp, b + 1, nrows, (double)rp[b] + avg);
            if ((p & 1) && e - 1 > b && e < nrows) e--; /* shrink */
        }
        start[p + 1] = b = e;
    }
    start[P] = nrows;
}

int hspmv_dist_owner(const int64_t *cs, int P, int64_t c)
{
    int lo = 0, hi = P - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (cs[mid] <= c) lo = mid;
        else hi = mid - 1;
    }
    while (lo < P - 1 && cs[lo + 1] <= c) lo++; /* skip ranks with no columns */
    return lo;
}
