/* alloc.c — the one place arrays are allocated: 64-byte alignment for SIMD,
   and a test hook that makes the n-th allocation fail (CSparse's trick). */
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define HSPMV_ALIGN 64

static _Thread_local long fail_countdown; /* 0 = never fail */

void hspmv_alloc_fail_after(long n) { fail_countdown = n; }

size_t hspmv_bytes(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size) return 0;
    return n * size;
}

void *hspmv_malloc(size_t bytes)
{
    void *p = NULL;
    if (fail_countdown > 0 && --fail_countdown == 0) return NULL;
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
    if (p) memset(p, 0, n * size);
    return p;
}

void hspmv_free(void *p) { free(p); }
