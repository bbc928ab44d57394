/* alloc.c — the one place arrays are allocated: 64-byte alignment for SIMD;
   big arrays on fresh, 2 MiB aligned mappings with transparent huge pages
   asked for, each starting at its own cache colour; memory lent by other
   layers (hspmv_free gives it back to its owner); and a test hook that
   makes the n-th allocation fail (CSparse's trick). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "util.h"

#define HSPMV_ALIGN 64
#define HSPMV_PAGE ((size_t)4096)
#define HSPMV_HUGE ((size_t)2 << 20) /* x86-64 and arm64 (4 KiB base pages) transparent huge page */

static _Thread_local long fail_countdown; /* 0 = never fail */

void hspmv_alloc_fail_after(long n) { fail_countdown = n; }

/* 1 when the test hook says this allocation fails. */
static int hook_fails(void) { return fail_countdown > 0 && --fail_countdown == 0; }

size_t hspmv_bytes(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size) return 0;
    return n * size;
}

/* Ranges hspmv_free must not hand to free(): arrays mapped here (unmapped
   and forgotten when freed) and memory another layer lends out (vectors in
   an MPI shared window: its release function is called). A few dozen at a
   time, so a list under a lock. */
typedef struct range {
    const char *lo, *hi;
    void (*release)(void *ctx, void *p); /* NULL: a mapping of ours */
    void *ctx;
    struct range *next;
} range;

static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;
static range *ranges;
static int nranges; /* read without the lock only to skip the search when 0 */

static int add_range(void *lo, size_t bytes, void (*release)(void *, void *), void *ctx)
{
    range *r = malloc(sizeof(*r)); /* not through the test hook */
    if (!r) return HSPMV_ERR_NOMEM;
    r->lo = lo;
    r->hi = (const char *)lo + bytes;
    r->release = release;
    r->ctx = ctx;
    pthread_mutex_lock(&ranges_lock);
    r->next = ranges;
    ranges = r;
    __atomic_store_n(&nranges, nranges + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ranges_lock);
    return HSPMV_OK;
}

/* Each big array starts a different multiple of 4 KiB + 64 bytes past its
   2 MiB boundary (32 such colours, at most 130 KiB): arrays that all
   started on the boundary put the same entry of every vector in the same
   L1 and L2 cache set, and a loop over a dozen of them at once (pipelined
   CG's step) evicted its own lines. */
#define HSPMV_COLOUR ((size_t)4096 + HSPMV_ALIGN)
static unsigned colours;

/* Big arrays: a fresh mapping, 2 MiB aligned (the unaligned ends given
   back), with MADV_HUGEPAGE before anything touches it, the array at its
   colour inside. From the heap, an array would often reuse memory a freed
   temporary already faulted in on 4 KiB pages, which the hint no longer
   changes (measured: a second matrix made in one process got none of its
   arrays on huge pages). */
static void *map_big(size_t bytes)
{
    if (bytes > (size_t)PTRDIFF_MAX - 4 * (size_t)HSPMV_HUGE) return NULL; /* the rounding below would wrap */
    size_t off = (__atomic_fetch_add(&colours, 1, __ATOMIC_RELAXED) % 32) * HSPMV_COLOUR;
    size_t len = (bytes + off + HSPMV_PAGE - 1) & ~(HSPMV_PAGE - 1);
    char *p = mmap(NULL, len + HSPMV_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    char *a = (char *)(((uintptr_t)p + HSPMV_HUGE - 1) & ~(uintptr_t)(HSPMV_HUGE - 1));
    if (a > p) munmap(p, (size_t)(a - p));
    if (p + len + HSPMV_HUGE > a + len) munmap(a + len, (size_t)(p + len + HSPMV_HUGE - (a + len)));
#ifdef MADV_HUGEPAGE
    (void)madvise(a, len, MADV_HUGEPAGE); /* a hint: where THP is off it fails */
#endif
    if (add_range(a, len, NULL, NULL) != HSPMV_OK) {
        munmap(a, len);
        return NULL;
    }
    return a + off;
}

void *hspmv_malloc(size_t bytes)
{
    void *p = NULL;
    if (hook_fails()) return NULL;
    if (bytes >= HSPMV_HUGE) return map_big(bytes);
    if (bytes == 0) bytes = 1;
    bytes = (bytes + HSPMV_ALIGN - 1) & ~(size_t)(HSPMV_ALIGN - 1);
    if (posix_memalign(&p, HSPMV_ALIGN, bytes) != 0) return NULL;
    return p;
}

void *hspmv_alloc_array(size_t n, size_t size)
{
    size_t b = hspmv_bytes(n, size);
    if (b == 0 && n != 0 && size != 0) return NULL;
    return hspmv_malloc(b);
}

void *hspmv_calloc(size_t n, size_t size)
{
    void *p = hspmv_alloc_array(n, size);
    /* from 2 MiB on the memory is a fresh anonymous mapping, zero already:
       clearing it would fault in every page of, say, row counters of which
       a file with 2^31 rows and one entry uses one */
    if (p && n * size < HSPMV_HUGE) memset(p, 0, n * size);
    return p;
}

/* From 1 MiB on, rounded up to whole 2 MiB pages (at most 1 MiB more than
   asked), so that all of it but its colour's last bytes (at most 130 KiB)
   can be on huge pages: a 1.5 MiB array would otherwise hold no whole
   2 MiB page. */
void *hspmv_alloc_pages(size_t n, size_t size)
{
    size_t b = hspmv_bytes(n, size);
    if (b == 0 && n != 0 && size != 0) return NULL;
    if (b >= ((size_t)1 << 20)) b = (b + HSPMV_HUGE - 1) & ~(HSPMV_HUGE - 1);
    return hspmv_malloc(b);
}

int hspmv_lend_range(void *lo, size_t bytes, void (*release)(void *ctx, void *p), void *ctx)
{
    return add_range(lo, bytes, release, ctx);
}

void hspmv_unlend_range(void *lo)
{
    pthread_mutex_lock(&ranges_lock);
    for (range **pp = &ranges; *pp; pp = &(*pp)->next)
        if ((*pp)->lo == lo && (*pp)->release) {
            range *r = *pp;
            *pp = r->next;
            free(r);
            __atomic_store_n(&nranges, nranges - 1, __ATOMIC_RELEASE);
            break;
        }
    pthread_mutex_unlock(&ranges_lock);
}

/* 1 when p lay in one of the ranges (and was unmapped or handed back). */
static int free_range(void *p)
{
    range *gone = NULL;
    int found = 0;
    if (!p || __atomic_load_n(&nranges, __ATOMIC_ACQUIRE) == 0) return 0;
    pthread_mutex_lock(&ranges_lock);
    for (range **pp = &ranges; *pp; pp = &(*pp)->next) {
        range *r = *pp;
        if ((const char *)p < r->lo || (const char *)p >= r->hi) continue;
        found = 1;
        if (r->release) {
            r->release(r->ctx, p);
        } else {
            *pp = r->next;
            gone = r;
            __atomic_store_n(&nranges, nranges - 1, __ATOMIC_RELEASE);
        }
        break;
    }
    pthread_mutex_unlock(&ranges_lock);
    if (gone) {
        munmap((void *)gone->lo, (size_t)(gone->hi - gone->lo));
        free(gone);
    }
    return found;
}

void hspmv_free(void *p)
{
    if (free_range(p)) return;
    free(p);
}
