/* threads.c — bounds on thread counts and the processors this process may
   run on (its affinity mask): what the calls that take a thread count, and
   the programs' oversubscription warning, check against. */
#include <sched.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "util.h"

int hspmv_max_threads(void)
{
#ifdef _OPENMP
    int p = omp_get_num_procs();
#else
    int p = 1;
#endif
    return p > 32 ? 8 * p : 256;
}

int hspmv_cpus_allowed(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN); /* a mask beyond CPU_SETSIZE, or no sched_getaffinity */
    return n > 0 ? (int)n : 1;
}

int hspmv_cpu_mask(uint64_t *words, int nwords)
{
    cpu_set_t set;
    int n = 0;
    for (int w = 0; w < nwords; w++) words[w] = 0;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    for (int c = 0; c < CPU_SETSIZE && c < 64 * nwords; c++)
        if (CPU_ISSET(c, &set)) {
            words[c / 64] |= (uint64_t)1 << (c % 64);
            n++;
        }
    return n;
}
