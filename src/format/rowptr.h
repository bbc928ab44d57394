/* rowptr.h — row pointers of 32 or 64 bits, as CSR16 and CSRVI store them. */
#ifndef HSPMV_ROWPTR_H
#define HSPMV_ROWPTR_H

#include "hspmv.h"

/* The narrower width that holds nnz: 32 when nnz <= UINT32_MAX, else 64. */
static inline int hspmv_rowptr_bits(int64_t nnz)
{
    return (uint64_t)nnz <= UINT32_MAX ? 32 : 64;
}

/* HSPMV_OK when rp_bits is 32 (needs nnz <= UINT32_MAX) or 64, else
   HSPMV_ERR_ARG with a message that names the format fmt. */
int hspmv_rowptr_check(const char *fmt, int rp_bits, int64_t nnz, hspmv_error *err);

/* Allocates nrows+1 pointers of rp_bits bits in *p32 or *p64 (the other
   stays as it is, NULL) and sets entry 0 to 0. 1, or 0 when out of memory. */
int hspmv_rowptr_alloc(int rp_bits, int64_t nrows, uint32_t **p32, int64_t **p64);

/* Entry i of whichever of p32 / p64 is there. */
static inline void hspmv_rowptr_set(uint32_t *p32, int64_t *p64, int64_t i, int64_t v)
{
    if (p32)
        p32[i] = (uint32_t)v;
    else
        p64[i] = v;
}

#endif
