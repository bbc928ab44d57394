/* local_pages.c — asks the kernel for transparent huge pages on the big
   arrays of a prepared matrix (THP is often in "madvise" mode): fewer TLB
   misses on the gathers of x and on the streams of values and indices. */
#include <stdint.h>
#include <sys/mman.h>
#include "local.h"

void hspmv_local_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (p && bytes >= ((size_t)4 << 20) && e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}
