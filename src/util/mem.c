/* mem.c — how many bytes this process can still be given (physical memory,
   the cgroup's limit, the address-space and data limits), and the refusal
   of a need above that, with both figures, before anything is allocated. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "util.h"

double hspmv_mem_test_bytes = 0;
double hspmv_mem_test_process_bytes = 0;

/* Field k (0-based) of /proc/self/statm in bytes, or -1. */
static double statm_bytes(int k)
{
    FILE *f = fopen("/proc/self/statm", "r");
    double v[7] = {-1, -1, -1, -1, -1, -1, -1};
    long page = sysconf(_SC_PAGESIZE);
    if (!f) return -1;
    int n = fscanf(f, "%lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]);
    fclose(f);
    return n > k && v[k] >= 0 && page > 0 ? v[k] * (double)page : -1;
}

/* The limit of this process's cgroup (v2 memory.max), or -1 when none. */
static double cgroup_max(void)
{
    char line[512], path[640];
    double v = -1;
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return -1;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "0::", 3)) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max", line + 3);
            FILE *m = fopen(path, "r");
            if (m) {
                if (fscanf(m, "%lf", &v) != 1) v = -1; /* "max": no limit */
                fclose(m);
            }
        }
    fclose(f);
    return v;
}

/* A soft rlimit less what the process already uses of it (statm field), or INFINITY. */
static double rlimit_left(int res, int statm_field)
{
    struct rlimit rl;
    if (getrlimit(res, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return INFINITY;
    double used = statm_bytes(statm_field);
    double left = (double)rl.rlim_cur - (used > 0 ? used : 0);
    return left > 0 ? left : 0;
}

/* Physical memory and the cgroup limit do not change while a process runs:
   read once (the cgroup files cost several system calls). */
static double phys_bytes, cgroup_bytes;
static pthread_once_t fixed_once = PTHREAD_ONCE_INIT;
static void read_fixed_limits(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    phys_bytes = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    cgroup_bytes = cgroup_max();
}

double hspmv_mem_available_of(int kinds, const char **what)
{
    const char *w = "no limit";
    double have = INFINITY, v;
    pthread_once(&fixed_once, read_fixed_limits);
    if (kinds & HSPMV_MEM_MACHINE) {
        have = phys_bytes, w = "physical memory";
        if (hspmv_mem_test_bytes > 0) have = hspmv_mem_test_bytes, w = "the test's memory limit";
        if ((v = cgroup_bytes) >= 0 && v < have) have = v, w = "the cgroup's memory limit (memory.max)";
    }
    if (kinds & HSPMV_MEM_PROCESS) {
        if ((v = rlimit_left(RLIMIT_AS, 0)) < have) have = v, w = "the address-space limit (ulimit -v)";
        if ((v = rlimit_left(RLIMIT_DATA, 5)) < have) have = v, w = "the data-size limit (ulimit -d)";
        if ((v = hspmv_mem_test_process_bytes) > 0 && v < have) have = v, w = "the test's process limit";
    }
    if (what) *what = w;
    return have;
}

double hspmv_mem_available(const char **what) { return hspmv_mem_available_of(HSPMV_MEM_ALL, what); }

int hspmv_mem_check_of(int kinds, double need, const char *name, int64_t line, const char *what, hspmv_error *err)
{
    const char *lim;
    double have = hspmv_mem_available_of(kinds, &lim);
    if (!(need > have)) return HSPMV_OK;
    if (!name) /* not about a file */
        return hspmv_err(err, HSPMV_ERR_NOMEM, "%s needs %.3g GB, more than %s allows (%.3g GB)", what, need / 1e9,
                         lim, have / 1e9);
    return hspmv_err_file(err, HSPMV_ERR_NOMEM, name, line, "%s needs %.3g GB, more than %s allows (%.3g GB)",
                          what, need / 1e9, lim, have / 1e9);
}

int hspmv_mem_check(double need, const char *name, int64_t line, const char *what, hspmv_error *err)
{
    return hspmv_mem_check_of(HSPMV_MEM_ALL, need, name, line, what, err);
}
