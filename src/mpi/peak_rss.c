/* peak_rss.c — the process's peak resident memory (for the setup facts of
   hspmv_dist_info and the benchmarks). */
#include <sys/resource.h>
#include "dist.h"

double hspmv_peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)ru.ru_maxrss * 1024.0; /* Linux reports KiB */
}
