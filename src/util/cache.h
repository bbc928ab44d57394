/* cache.h — the CPU's cache sizes and how many CPUs share each, from Linux
   sysfs (cpuN/cache/index*), else glibc's sysconf, else fixed defaults. */
#ifndef HSPMV_CACHE_H
#define HSPMV_CACHE_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

/* Levels 1 (data), 2 and 3; index 0 is unused. */
typedef struct hspmv_caches {
    int64_t bytes[4]; /* size of the level's cache (0: the level is absent) */
    int sharers[4];   /* CPUs sharing it (sysfs shared_cpu_list); 0: unknown */
    int llc;          /* the highest level present: 3, or 2 where no L3 */
    const char *source; /* "sysfs", "sysconf" or "default" */
} hspmv_caches;

/* The defaults when neither sysfs nor sysconf knows a size: L1d 32 KiB,
   L2 1 MiB, L3 32 MiB, sharers unknown. */
#define HSPMV_CACHE_DEFAULT_L1 ((int64_t)32 << 10)
#define HSPMV_CACHE_DEFAULT_L2 ((int64_t)1 << 20)
#define HSPMV_CACHE_DEFAULT_L3 ((int64_t)32 << 20)

/* "32K", "1024K", "32M", "1G" or a plain number of bytes (a trailing
   newline or blanks allowed) in bytes; -1 for anything else. */
int64_t hspmv_cache_parse_size(const char *s);

/* CPUs in a sysfs CPU list such as "0-3,8,10-11" (8 here); -1 when malformed. */
int hspmv_cache_count_cpus(const char *list);

/* Reads ROOT/cpuCPU/cache/indexI/ (files level, type, size, shared_cpu_list; ROOT is
   /sys/devices/system/cpu on Linux; tests give a fake tree). Fills *c with
   source "sysfs" and returns 1 when at least one data or unified cache of
   levels 1-3 was read; else returns 0 and leaves *c cleared. llc_list
   (may be NULL) receives the last level's shared_cpu_list, the key that
   tells one last-level cache from another. */
int hspmv_caches_sysfs(const char *root, int cpu, hspmv_caches *c, char *llc_list, size_t llc_len);

/* The whole chain for CPU cpu under ROOT: its sysfs entries, else cpu0's,
   else sysconf (_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE,
   _SC_LEVEL3_CACHE_SIZE; sharers unknown), else the defaults. A level
   sysconf leaves out stays absent unless all are (then the defaults). */
void hspmv_caches_read(const char *root, int cpu, hspmv_caches *c);

/* hspmv_caches_read for the real sysfs and the CPU the first call runs on
   (sched_getcpu; cpu0 where unknown), read once per process. */
const hspmv_caches *hspmv_caches_here(void);

/* Bytes of the last-level cache of hspmv_caches_here(). */
int64_t hspmv_cache_llc_bytes(void);

/* Bytes of last-level cache the CPUs of set can reach together: the sum of
   the distinct last-level caches (told apart by shared_cpu_list) of its
   CPUs under ROOT. Where sysfs lacks a CPU's caches, hspmv_caches_read's
   figure for one cache, counted as at most 16 MiB for each CPU of set:
   sysconf does not say how many CPUs share it, and on some virtual
   machines it reports hundreds of MiB for a 32 MiB cache. *source (may be
   NULL) receives "sysfs", "sysconf" or "default". */
int64_t hspmv_cache_reach(const char *root, const cpu_set_t *set, const char **source);

#endif
