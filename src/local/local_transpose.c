/* local_transpose.c — the transposed copy of a prepared matrix, built on
   the first transposed product and kept in L->T. */
#include "local.h"
#include "util.h"

int hspmv_local_transposed(hspmv_local *L, hspmv_error *err)
{
    if (L->T) return hspmv_ok(err);
    return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "hspmv_local_spmm: the transposed product is not built yet");
}
