/* test_shared_pages.c — shared memory on huge pages (src/util/shared_pages.c):
   the second mapping sees the same pages at an address congruent with the
   file offset, collapsing keeps what the pages hold. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "util.h"

#define HUGE ((uintptr_t)2 << 20)
#define LEN ((size_t)16 << 20)

/* A shared memory file of LEN bytes mapped 8 KiB past a 2 MiB boundary
   (so never congruent with its offsets, like Open MPI's windows); NULL
   where the system cannot. */
static char *map_shared_off(void)
{
#if defined(__linux__)
    int fd = memfd_create("hspmv-test", 0);
    if (fd < 0) return NULL;
    char *r = ftruncate(fd, (off_t)LEN) == 0 ? mmap(NULL, LEN + 2 * HUGE, PROT_NONE,
                                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                             : MAP_FAILED;
    char *p = MAP_FAILED;
    if (r != MAP_FAILED) {
        char *a = (char *)((((uintptr_t)r + HUGE - 1) & ~(HUGE - 1)) + 8192);
        p = mmap(a, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    }
    close(fd);
    return p == MAP_FAILED ? NULL : p;
#else
    return NULL;
#endif
}

static uint64_t word_at(size_t i) { return i * 0x9e3779b97f4a7c15ull ^ 0x5bd1e995ull; }

static void fill(char *p, size_t n)
{
    for (size_t i = 0; i < n / 8; i++) ((uint64_t *)p)[i] = word_at(i);
}

static int holds(const char *p, size_t n)
{
    for (size_t i = 0; i < n / 8; i++)
        if (((const uint64_t *)p)[i] != word_at(i)) return 0;
    return 1;
}

/* kB of ShmemPmdMapped of this process, -1 when unknown. */
static double pmd_kb(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    double v = -1;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "ShmemPmdMapped: %lf", &v) == 1) break;
    if (f) fclose(f);
    return v;
}

static void an_alias_sees_the_same_pages_at_an_address_congruent_with_the_file(void)
{
    char *p = map_shared_off();
    if (!p) {
        SKIP("no shared memory file here");
        return;
    }
    fill(p, LEN);
    hspmv_alias A;
    int ok = hspmv_shared_alias(&A, p + 100, LEN - 200);
    CHECK(ok == 1, "no alias of a non-congruent shared mapping");
    if (ok) {
        /* the alias covers p's pages from p (offset 0) on: offset o sits at A.to + o */
        CHECK(A.from == p && A.len == LEN, "aliased %p + %zu, asked for the pages of %p + %zu", (void *)A.from, A.len,
              (void *)p, LEN);
        CHECK((uintptr_t)A.to % HUGE == 0, "alias at %p, file offset 0: not 2 MiB congruent", (void *)A.to);
        char *q = hspmv_alias_of(&A, p + 100);
        CHECK(q == A.to + 100, "alias_of gave %p", (void *)q);
        CHECK(holds(A.to, LEN), "the alias does not hold what the mapping holds");
        ((uint64_t *)A.to)[12345] = 42; /* one page set, seen through both */
        CHECK(((uint64_t *)p)[12345] == 42, "a write through the alias is not seen in the mapping");
        ((uint64_t *)A.to)[12345] = word_at(12345);
        char outside = 0;
        CHECK(hspmv_alias_of(&A, &outside) == &outside, "an address outside the range moved");
        CHECK(hspmv_alias_of(&A, p + LEN) == p + LEN, "the end of the range moved");
        hspmv_shared_unalias(&A);
        CHECK(A.to == NULL && holds(p, LEN), "unaliasing lost the mapping's contents");
    }
    munmap(p, LEN);
}

static void collapsing_in_parts_keeps_what_the_pages_hold(void)
{
    char *p = map_shared_off();
    hspmv_alias A;
    if (!p || !hspmv_shared_alias(&A, p, LEN)) {
        SKIP("no shared memory file or no alias here");
        if (p) munmap(p, LEN);
        return;
    }
    fill(A.to, LEN);
    size_t whole = 0, all = 0;
    for (uintptr_t a = ((uintptr_t)A.to + 4096 + HUGE - 1) & ~(HUGE - 1); a + HUGE <= (uintptr_t)A.to + LEN - 4096;
         a += HUGE)
        whole += HUGE;
    double kb0 = pmd_kb();
    for (int part = 0; part < 3; part++) { /* three "ranks", each its share of the whole pages */
        size_t got = hspmv_shared_huge(A.to + 4096, LEN - 8192, part, 3);
        CHECK(got % HUGE == 0 && got <= whole / 3 + HUGE, "part %d: %zu bytes collapsed", part, got);
        all += got;
    }
    CHECK(all <= whole, "collapsed %zu bytes of %zu", all, whole);
    CHECK(holds(A.to, LEN) && holds(p, LEN), "collapsing changed what the pages hold");
    /* where the kernel collapsed them (Linux 6.1+), the alias maps them 2 MiB at a time */
    double kb1 = pmd_kb();
    if (all > 0 && kb0 >= 0) CHECK(kb1 - kb0 >= all / 1024.0, "ShmemPmdMapped %.0f -> %.0f kB", kb0, kb1);
    printf("  collapsed %zu of %zu bytes; ShmemPmdMapped %.0f -> %.0f kB\n", all, whole, kb0, kb1);
    hspmv_shared_unalias(&A);
    munmap(p, LEN);
}

int main(void)
{
    RUN(an_alias_sees_the_same_pages_at_an_address_congruent_with_the_file);
    RUN(collapsing_in_parts_keeps_what_the_pages_hold);
    printf("%d passed, %d failed, %d skipped\n", check_passed, check_failed, check_skipped);
    return check_failed > 0;
}
