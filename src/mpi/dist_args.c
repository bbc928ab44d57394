/* dist_args.c — the products' vector checks: a NULL block on one rank is
   that rank's HSPMV_ERR_ARG, yet the rank still takes part in the exchange
   (other ranks wait on its x otherwise), with NaN for the x it lacks. */
#include <math.h>
#include <string.h>
#include "dist.h"
#include "util.h"

int hspmv_dist_vec_args(const hspmv_dist *D, const char *call, int k, const hspmv_real **X, int64_t nx,
                        hspmv_real **Y, int64_t ny, hspmv_real **sub, hspmv_error *err)
{
    static hspmv_real none[1]; /* a part of no entries: never read nor written */
    int bx = !*X && nx > 0, by = !*Y && ny > 0;
    const char *xn = strstr(call, "spmm") ? "X" : "x", *yn = strstr(call, "spmm") ? "Y" : "y";
    *sub = NULL;
    if (!*X) *X = none;
    if (!*Y) *Y = none;
    if (!bx && !by) return HSPMV_OK;
    size_t mx = bx ? (size_t)nx * (size_t)k : 0, my = by ? (size_t)ny * (size_t)k : 0;
    *sub = hspmv_alloc_array(mx + my, sizeof(hspmv_real));
    if (!*sub)
        return hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: %s: %s is NULL, and no memory to stand in for it",
                         D->rank, call, bx ? xn : yn);
    for (size_t i = 0; i < mx; i++) (*sub)[i] = (hspmv_real)NAN;
    if (bx) *X = *sub;
    if (by) *Y = *sub + mx;
    return hspmv_err(err, HSPMV_ERR_ARG,
                     "rank %d: %s: %s%s is NULL (this rank's part has %lld entries%s); the rank took part in the "
                     "exchange with NaN for its x, so the other ranks' rows that read it are NaN",
                     D->rank, call, bx ? xn : yn, bx && by ? (*yn == 'Y' ? " (and Y)" : " (and y)") : "",
                     (long long)(bx ? nx : ny),
                     k > 1 ? " per vector" : "");
}
