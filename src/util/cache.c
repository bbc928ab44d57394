/* cache.c — cache sizes and sharers of a CPU from sysfs, else sysconf, else
   fixed defaults (cache.h). glibc's sysconf reads cpuid, which some
   hypervisors fill with figures far from the cache the CPU has (508 MiB of
   L3 on a 2-CPU AMD VM whose L3 is 32 MiB); Linux's sysfs lists what the
   kernel found, with the CPUs that share each cache. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cache.h"

int64_t hspmv_cache_parse_size(const char *s)
{
    char *end;
    int64_t v, mul = 1;
    if (!s || !isdigit((unsigned char)*s)) return -1;
    v = (int64_t)strtoll(s, &end, 10);
    if (*end == 'K' || *end == 'k') mul = (int64_t)1 << 10, end++;
    else if (*end == 'M' || *end == 'm') mul = (int64_t)1 << 20, end++;
    else if (*end == 'G' || *end == 'g') mul = (int64_t)1 << 30, end++;
    while (*end == ' ' || *end == '\t' || *end == '\n') end++;
    if (*end || v < 0 || v > ((int64_t)1 << 40) / mul) return -1;
    return v * mul;
}

int hspmv_cache_count_cpus(const char *list)
{
    const char *p = list;
    int n = 0;
    if (!p) return -1;
    while (*p && *p != '\n') {
        char *end;
        long a, b;
        if (!isdigit((unsigned char)*p)) return -1;
        a = b = strtol(p, &end, 10);
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1])) return -1;
            b = strtol(p + 1, &end, 10);
            p = end;
        }
        if (b < a || b - a > 1 << 20) return -1;
        n += (int)(b - a + 1);
        if (*p == ',') p++;
        else if (*p && *p != '\n') return -1;
    }
    return n > 0 ? n : -1;
}

/* The first line of DIR/NAME without its newline into buf; 0 when absent. */
static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
    char path[512];
    FILE *f;
    int ok;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(f = fopen(path, "r"))) return 0;
    ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = 0;
    return ok;
}

int hspmv_caches_sysfs(const char *root, int cpu, hspmv_caches *c, char *llc_list, size_t llc_len)
{
    char lists[4][256] = {{0}};
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < 64; i++) { /* index0, index1, ...: stops at the first missing one */
        char dir[400], level[16], type[32], size[32];
        int64_t bytes;
        long lv;
        snprintf(dir, sizeof(dir), "%s/cpu%d/cache/index%d", root, cpu, i);
        if (!read_line(dir, "level", level, sizeof(level))) break;
        if (!read_line(dir, "type", type, sizeof(type)) || !read_line(dir, "size", size, sizeof(size))) continue;
        lv = strtol(level, NULL, 10);
        bytes = hspmv_cache_parse_size(size);
        if (lv < 1 || lv > 3 || bytes <= 0 || !strcmp(type, "Instruction")) continue;
        c->bytes[lv] = bytes;
        if (read_line(dir, "shared_cpu_list", lists[lv], sizeof(lists[lv]))) {
            int n = hspmv_cache_count_cpus(lists[lv]);
            c->sharers[lv] = n > 0 ? n : 0;
        }
    }
    c->llc = c->bytes[3] > 0 ? 3 : c->bytes[2] > 0 ? 2 : c->bytes[1] > 0 ? 1 : 0;
    if (!c->llc) {
        memset(c, 0, sizeof(*c));
        return 0;
    }
    c->source = "sysfs";
    if (llc_list && llc_len) snprintf(llc_list, llc_len, "%s", lists[c->llc]);
    return 1;
}

static void from_sysconf(hspmv_caches *c)
{
    memset(c, 0, sizeof(*c));
#ifdef _SC_LEVEL3_CACHE_SIZE
    long v1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), v2 = sysconf(_SC_LEVEL2_CACHE_SIZE), v3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    c->bytes[1] = v1 > 0 ? v1 : 0;
    c->bytes[2] = v2 > 0 ? v2 : 0;
    c->bytes[3] = v3 > 0 ? v3 : 0;
#endif
    c->llc = c->bytes[3] > 0 ? 3 : c->bytes[2] > 0 ? 2 : c->bytes[1] > 0 ? 1 : 0;
    c->source = "sysconf";
    if (!c->llc) {
        c->bytes[1] = HSPMV_CACHE_DEFAULT_L1;
        c->bytes[2] = HSPMV_CACHE_DEFAULT_L2;
        c->bytes[3] = HSPMV_CACHE_DEFAULT_L3;
        c->llc = 3;
        c->source = "default";
    }
}

void hspmv_caches_read(const char *root, int cpu, hspmv_caches *c)
{
    if (hspmv_caches_sysfs(root, cpu, c, NULL, 0)) return;
    if (cpu != 0 && hspmv_caches_sysfs(root, 0, c, NULL, 0)) return;
    from_sysconf(c);
}

static hspmv_caches here;
static pthread_once_t here_once = PTHREAD_ONCE_INIT;

static void read_here(void)
{
    int cpu = sched_getcpu();
    hspmv_caches_read("/sys/devices/system/cpu", cpu >= 0 ? cpu : 0, &here);
}

const hspmv_caches *hspmv_caches_here(void)
{
    pthread_once(&here_once, read_here);
    return &here;
}

int64_t hspmv_cache_llc_bytes(void)
{
    const hspmv_caches *c = hspmv_caches_here();
    return c->bytes[c->llc];
}

/* sysconf's last-level figure is at most this much for each CPU of a set. */
#define REACH_PER_CPU ((int64_t)16 << 20)

int64_t hspmv_cache_reach(const char *root, const cpu_set_t *set, const char **source)
{
    enum { MAXLLC = 256, LISTLEN = 256 };
    char(*seen)[LISTLEN] = malloc(MAXLLC * LISTLEN); /* the distinct shared_cpu_lists met so far */
    int nseen = 0, ncpu = CPU_COUNT(set), first = -1, whole = seen != NULL;
    int64_t sum = 0;
    hspmv_caches c;
    for (int cpu = 0; cpu < CPU_SETSIZE && whole; cpu++) {
        char list[256];
        if (!CPU_ISSET(cpu, set)) continue;
        if (first < 0) first = cpu;
        if (!hspmv_caches_sysfs(root, cpu, &c, list, sizeof(list)) || !list[0]) whole = 0;
        else {
            int k = 0;
            while (k < nseen && strcmp(seen[k], list)) k++;
            if (k < nseen) continue;
            if (nseen < MAXLLC) snprintf(seen[nseen++], LISTLEN, "%s", list);
            sum += c.bytes[c.llc];
        }
    }
    free(seen);
    if (whole && sum > 0) {
        if (source) *source = "sysfs";
        return sum;
    }
    hspmv_caches_read(root, first >= 0 ? first : 0, &c);
    if (source) *source = c.source;
    sum = c.bytes[c.llc];
    if (!strcmp(c.source, "sysfs")) { /* another CPU's entries: as many such caches as the set needs */
        int per = c.sharers[c.llc] > 0 ? c.sharers[c.llc] : 1;
        return sum * ((ncpu + per - 1) / per > 0 ? (ncpu + per - 1) / per : 1);
    }
    return sum < REACH_PER_CPU * (ncpu > 0 ? ncpu : 1) ? sum : REACH_PER_CPU * (ncpu > 0 ? ncpu : 1);
}
