/* local_opts.c — the default run-time knobs (hspmv_opts) and their bounds. */
#include "hspmv.h"
#include "local_calls.h"
#ifdef _OPENMP
#include <omp.h>
#endif

void hspmv_opts_default(hspmv_opts *o)
{
    o->format = HSPMV_FORMAT_AUTO;
    o->csrl_threshold = 0.3;
    o->kernel = "auto";
    o->threads = 0;
    o->partition = HSPMV_PART_NNZ;
    o->halo = HSPMV_HALO_AUTO;
    o->read = HSPMV_READ_ROOT;
    o->node_ranks = 0;
    o->symmetric = HSPMV_SYMMETRIC_NO; /* one triangle measured slower at 16 threads (include/hspmv.h) */
}

int hspmv_max_threads(void)
{
#ifdef _OPENMP
    int p = omp_get_num_procs();
#else
    int p = 1;
#endif
    return p > 32 ? 8 * p : 256;
}
