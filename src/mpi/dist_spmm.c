/* dist_spmm.c — Y = op(A) X on a distributed matrix for a block of k vectors. */
#include "dist.h"
#include "util.h"

int hspmv_dist_spmm(hspmv_dist *D, int flags, int k, const hspmv_real *X, hspmv_real *Y, hspmv_error *err)
{
    if (!D || k < 1 || (flags & ~(HSPMV_TRANSPOSE | HSPMV_COL_MAJOR)))
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_dist_spmm: bad arguments (k = %d, flags = %d)", k, flags);
    if (!(flags & HSPMV_TRANSPOSE) && k == 1) return hspmv_dist_spmv(D, X, Y, err);
    if (flags & HSPMV_TRANSPOSE) return hspmv_dist_spmm_transpose(D, flags, k, X, Y, err);
    return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "rank %d: hspmv_dist_spmm: not built yet", D->rank);
}
