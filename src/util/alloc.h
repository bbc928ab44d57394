/* alloc.h — private: the library's allocation calls beside the public
   hspmv_malloc/hspmv_free (zeroed arrays, and a hook for tests). */
#ifndef HSPMV_ALLOC_H
#define HSPMV_ALLOC_H

#include <stddef.h>
#include "hspmv.h"

/* hspmv_malloc of n*size zeroed bytes (NULL on overflow or no memory);
   free with hspmv_free. */
void *hspmv_calloc(size_t n, size_t size);

/* Test hook: make the n-th allocation from now fail (0 = never), so that
   tests reach every out-of-memory path. */
void hspmv_alloc_fail_after(long n);

#endif
