/* test_cache.c — the cache-size module (src/util/cache.c) on fake sysfs
   trees in a temporary folder: sizes and CPU lists parse, instruction
   caches and levels above 3 are left out, a CPU without entries falls back
   to cpu0's, a tree without any to sysconf or the defaults, and the reach
   of a CPU set counts each shared last-level cache once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cache.h"
#include "check.h"

static char root[64];

/* Writes root/cpuCPU/cache/indexI/{level,type,size,shared_cpu_list}. */
static void put(int cpu, int i, const char *level, const char *type, const char *size, const char *list)
{
    char d[256], f[300];
    const char *names[4] = {"level", "type", "size", "shared_cpu_list"}, *vals[4] = {level, type, size, list};
    snprintf(d, sizeof(d), "%s/cpu%d", root, cpu);
    mkdir(d, 0755);
    snprintf(d, sizeof(d), "%s/cpu%d/cache", root, cpu);
    mkdir(d, 0755);
    snprintf(d, sizeof(d), "%s/cpu%d/cache/index%d", root, cpu, i);
    mkdir(d, 0755);
    for (int k = 0; k < 4; k++) {
        if (!vals[k]) continue;
        snprintf(f, sizeof(f), "%s/%s", d, names[k]);
        FILE *fp = fopen(f, "w");
        if (fp) {
            fprintf(fp, "%s\n", vals[k]);
            fclose(fp);
        }
    }
}

/* A machine of CPUs 0-3: private L1i, L1d, L2; two L3s of 32 MiB, one
   for CPUs 0-1 and one for 2-3. */
static void make_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    if (root[0] && system(cmd)) {}
    mkdir(root, 0755);
    for (int cpu = 0; cpu < 4; cpu++) {
        char self[8];
        snprintf(self, sizeof(self), "%d", cpu);
        put(cpu, 0, "1", "Data", "48K", self);
        put(cpu, 1, "1", "Instruction", "32K", self);
        put(cpu, 2, "2", "Unified", "1024K", self);
        put(cpu, 3, "3", "Unified", "32768K", cpu < 2 ? "0-1" : "2-3");
    }
}

static void sizes_parse(void)
{
    CHECK(hspmv_cache_parse_size("32K") == 32768, "32K");
    CHECK(hspmv_cache_parse_size("1024K\n") == 1048576, "1024K with newline");
    CHECK(hspmv_cache_parse_size("32M") == (int64_t)32 << 20, "32M");
    CHECK(hspmv_cache_parse_size("2G") == (int64_t)2 << 30, "2G");
    CHECK(hspmv_cache_parse_size("65536") == 65536, "plain bytes");
    CHECK(hspmv_cache_parse_size("") == -1, "empty");
    CHECK(hspmv_cache_parse_size("K") == -1, "no number");
    CHECK(hspmv_cache_parse_size("32KB") == -1, "a unit with a tail");
    CHECK(hspmv_cache_parse_size("-4K") == -1, "negative");
    CHECK(hspmv_cache_parse_size("99999999999G") == -1, "absurd");
}

static void cpu_lists_count(void)
{
    CHECK(hspmv_cache_count_cpus("0") == 1, "0");
    CHECK(hspmv_cache_count_cpus("0-3,8,10-11\n") == 7, "0-3,8,10-11: %d", hspmv_cache_count_cpus("0-3,8,10-11"));
    CHECK(hspmv_cache_count_cpus("0-63") == 64, "0-63");
    CHECK(hspmv_cache_count_cpus("") == -1, "empty");
    CHECK(hspmv_cache_count_cpus("3-1") == -1, "backwards range");
    CHECK(hspmv_cache_count_cpus("0-") == -1, "open range");
    CHECK(hspmv_cache_count_cpus("0;1") == -1, "bad separator");
}

static void sysfs_levels_and_sharers(void)
{
    hspmv_caches c;
    char list[64];
    make_tree();
    CHECK(hspmv_caches_sysfs(root, 2, &c, list, sizeof(list)) == 1, "cpu2 read");
    CHECK(c.bytes[1] == 48 << 10, "L1d %lld, expected 48K (not the instruction cache's 32K)", (long long)c.bytes[1]);
    CHECK(c.bytes[2] == 1 << 20 && c.bytes[3] == (int64_t)32 << 20, "L2 %lld L3 %lld", (long long)c.bytes[2],
          (long long)c.bytes[3]);
    CHECK(c.sharers[1] == 1 && c.sharers[2] == 1 && c.sharers[3] == 2, "sharers %d %d %d", c.sharers[1], c.sharers[2],
          c.sharers[3]);
    CHECK(c.llc == 3 && !strcmp(c.source, "sysfs") && !strcmp(list, "2-3"), "llc %d source %s list '%s'", c.llc,
          c.source, list);
    /* a level 4 and a bad size are left out; no L3: the LLC is L2 */
    put(3, 3, "4", "Unified", "128M", "0-3");
    put(3, 4, "2", "Unified", "lots", "3");
    CHECK(hspmv_caches_sysfs(root, 3, &c, NULL, 0) == 1 && c.llc == 2 && c.bytes[3] == 0 && c.bytes[2] == 1 << 20,
          "level 4 ignored: llc %d L3 %lld L2 %lld", c.llc, (long long)c.bytes[3], (long long)c.bytes[2]);
}

static void fallbacks(void)
{
    hspmv_caches c;
    char empty[80];
    make_tree();
    hspmv_caches_read(root, 7, &c); /* no cpu7: cpu0's entries */
    CHECK(!strcmp(c.source, "sysfs") && c.bytes[3] == (int64_t)32 << 20 && c.sharers[3] == 2,
          "cpu7 -> cpu0: %s %lld", c.source, (long long)c.bytes[3]);
    snprintf(empty, sizeof(empty), "%s/none", root);
    CHECK(hspmv_caches_sysfs(empty, 0, &c, NULL, 0) == 0, "an absent tree reads nothing");
    hspmv_caches_read(empty, 0, &c);
    CHECK(!strcmp(c.source, "sysconf") || !strcmp(c.source, "default"), "source %s", c.source);
    CHECK(c.llc >= 1 && c.bytes[c.llc] > 0, "some last level: %d %lld", c.llc, (long long)c.bytes[c.llc]);
    if (!strcmp(c.source, "default"))
        CHECK(c.bytes[1] == HSPMV_CACHE_DEFAULT_L1 && c.bytes[2] == HSPMV_CACHE_DEFAULT_L2 &&
                  c.bytes[3] == HSPMV_CACHE_DEFAULT_L3,
              "the stated defaults");
#ifdef _SC_LEVEL3_CACHE_SIZE
    else {
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        CHECK(c.bytes[3] == (l3 > 0 ? l3 : 0) && c.bytes[2] == (l2 > 0 ? l2 : 0), "sysconf's figures");
    }
#endif
    const hspmv_caches *h = hspmv_caches_here();
    CHECK(h && h->llc >= 1 && hspmv_cache_llc_bytes() == h->bytes[h->llc] && h->source, "this machine");
    printf("  this machine: L1d %lld L2 %lld L3 %lld (%s; L3 shared by %d)\n", (long long)h->bytes[1],
           (long long)h->bytes[2], (long long)h->bytes[3], h->source, h->sharers[3]);
}

static void reach_counts_each_llc_once(void)
{
    cpu_set_t s;
    const char *src = NULL;
    char empty[80];
    make_tree();
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    CPU_SET(1, &s);
    CHECK(hspmv_cache_reach(root, &s, &src) == (int64_t)32 << 20 && !strcmp(src, "sysfs"), "CPUs 0-1: one L3");
    CPU_SET(2, &s);
    CHECK(hspmv_cache_reach(root, &s, &src) == (int64_t)64 << 20, "CPUs 0-2: two L3s");
    CPU_SET(9, &s); /* not in the tree: cpu0's entries, one 2-CPU L3 per 2 CPUs of the set */
    CHECK(hspmv_cache_reach(root, &s, &src) == (int64_t)64 << 20 && !strcmp(src, "sysfs"), "CPUs 0-2,9: %lld",
          (long long)hspmv_cache_reach(root, &s, &src));
    snprintf(empty, sizeof(empty), "%s/none", root);
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    int64_t r = hspmv_cache_reach(empty, &s, &src);
    CHECK(r > 0 && r <= (int64_t)16 << 20, "no sysfs, one CPU: at most 16 MiB, got %lld (%s)", (long long)r, src);
}

int main(void)
{
    snprintf(root, sizeof(root), "/tmp/hspmv-cache-XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(sizes_parse);
    RUN(cpu_lists_count);
    RUN(sysfs_levels_and_sharers);
    RUN(fallbacks);
    RUN(reach_counts_each_llc_once);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    if (system(cmd)) {}
    CHECK_DONE();
}
