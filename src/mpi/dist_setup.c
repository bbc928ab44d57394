/* dist_setup.c — how a distributed matrix was read and set up, and the
   process's peak memory (for the setup record and the benchmarks). */
#include <sys/resource.h>
#include "read_parallel.h"

void hspmv_dist_get_setup(const hspmv_dist *D, hspmv_dist_setup *s)
{
    *s = D->setup;
    if (!s->read_note) s->read_note = "";
}

double hspmv_peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)ru.ru_maxrss * 1024.0; /* Linux reports KiB */
}
