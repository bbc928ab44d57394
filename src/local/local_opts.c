/* local_opts.c — the default run-time knobs (hspmv_opts; their thread bound is in util/threads.c). */
#include "hspmv.h"
#include "local_calls.h"

void hspmv_opts_default(hspmv_opts *o)
{
    if (!o) return;
    o->format = HSPMV_FORMAT_AUTO;
    o->csrl_threshold = 0.3;
    o->kernel = "auto";
    o->threads = 0;
    o->partition = HSPMV_PART_NNZ;
    o->halo = HSPMV_HALO_AUTO;
    o->read = HSPMV_READ_ROOT;
    o->node_ranks = 0;
    o->reorder = HSPMV_REORDER_NONE;
    o->symmetric = HSPMV_SYMMETRIC_NO; /* one triangle measured slower at 16 threads (include/hspmv.h) */
}
