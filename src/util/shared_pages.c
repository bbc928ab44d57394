/* shared_pages.c — huge pages for shared memory (an MPI shared window) on
   machines whose shmem THP setting is "never": a second mapping of the
   same pages at an address where they can be mapped 2 MiB at a time, and
   MADV_COLLAPSE (Linux 6.1+), which builds huge pages of a range whatever
   that setting says. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "util.h"

#define PAGE ((uintptr_t)4096)
#define HUGE ((uintptr_t)2 << 20)

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 */
#endif


#if defined(__linux__)
/* The mapping of this process that holds p: its start and file offset. */
static int mapping_of(uintptr_t p, uintptr_t *lo, uintptr_t *hi, uintptr_t *off)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (f && !found && fgets(line, sizeof(line), f)) {
        unsigned long a, b, o;
        char perm[8];
        if (sscanf(line, "%lx-%lx %7s %lx", &a, &b, perm, &o) == 4 && p >= a && p < b)
            *lo = a, *hi = b, *off = o, found = 1;
    }
    if (f) fclose(f);
    return found;
}
#endif

int hspmv_shared_alias(hspmv_alias *A, void *p, size_t len)
{
    memset(A, 0, sizeof(*A));
#if defined(__linux__) && defined(MREMAP_FIXED)
    uintptr_t lo, hi, off, a = (uintptr_t)p & ~(PAGE - 1), e = ((uintptr_t)p + len + PAGE - 1) & ~(PAGE - 1);
    if (len < HUGE || !mapping_of(a, &lo, &hi, &off) || e > hi) return 0;
    uintptr_t foff = off + (a - lo), L = e - a; /* file offset of a; the alias's length */
    if ((a - foff) % HUGE == 0) return 0;       /* already congruent: the pages can be huge where they are */
    char *r = mmap(NULL, L + HUGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) return 0;
    /* the first address in r congruent with foff modulo 2 MiB */
    uintptr_t t = (((uintptr_t)r + HUGE - 1) & ~(HUGE - 1)) + (foff & (HUGE - 1));
    if (t - HUGE >= (uintptr_t)r) t -= HUGE;
    /* old size 0 on a shared mapping: a new mapping of the same pages (mremap(2)) */
    void *m = mremap((void *)a, 0, L, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)t);
    if (m == MAP_FAILED) {
        munmap(r, L + HUGE);
        return 0;
    }
    if (t > (uintptr_t)r) munmap(r, t - (uintptr_t)r);
    if ((uintptr_t)r + L + HUGE > t + L) munmap((void *)(t + L), (uintptr_t)r + L + HUGE - (t + L));
    A->from = (char *)a;
    A->to = (char *)t;
    A->len = L;
    return 1;
#else
    (void)p, (void)len;
    return 0;
#endif
}

void *hspmv_shared_view(hspmv_alias *A, void *p, size_t len)
{
    void *v = hspmv_shared_alias(A, p, len) ? hspmv_alias_of(A, p) : p;
#ifdef MADV_HUGEPAGE
    uintptr_t a = (uintptr_t)v & ~(PAGE - 1);
    (void)madvise((void *)a, len + ((uintptr_t)v - a), MADV_HUGEPAGE);
#endif
    return v;
}

void *hspmv_alias_of(const hspmv_alias *A, void *p)
{
    if (!A->to || (char *)p < A->from || (char *)p >= A->from + A->len) return p;
    return A->to + ((char *)p - A->from);
}

void hspmv_shared_unalias(hspmv_alias *A)
{
    if (A->to) munmap(A->to, A->len);
    memset(A, 0, sizeof(*A));
}

size_t hspmv_shared_huge(void *p, size_t len, int part, int nparts)
{
#if defined(__linux__)
    uintptr_t a = ((uintptr_t)p + HUGE - 1) & ~(HUGE - 1), e = ((uintptr_t)p + len) & ~(HUGE - 1);
    if (e <= a || nparts < 1) return 0;
    size_t n = (e - a) / HUGE, h0 = n * (size_t)part / (size_t)nparts, h1 = n * (size_t)(part + 1) / (size_t)nparts;
    char *s = (char *)(a + h0 * HUGE);
    size_t l = (h1 - h0) * HUGE, done = 0;
    (void)madvise(s, l, MADV_HUGEPAGE);
    /* collapsing needs the pages present; populating does not change what
       they hold (other ranks may be writing their parts already) */
    if (l == 0 || madvise(s, l, MADV_POPULATE_WRITE) != 0) return 0;
    for (size_t k = 0; k < l; k += HUGE) /* page by page: one that fails does not stop the rest */
        if (madvise(s + k, HUGE, MADV_COLLAPSE) == 0) done += HUGE;
    return done;
#else
    (void)p, (void)len, (void)part, (void)nparts;
    return 0;
#endif
}
