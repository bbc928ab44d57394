/* rowptr.c — checking and allocating the 32- or 64-bit row pointers of CSR16 and CSRVI. */
#include "rowptr.h"
#include "util.h"

int hspmv_rowptr_check(const char *fmt, int rp_bits, int64_t nnz, hspmv_error *err)
{
    if (rp_bits != 32 && rp_bits != 64)
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: row pointers of %d bits (32 or 64)", fmt, rp_bits);
    if (rp_bits == 32 && (uint64_t)nnz > UINT32_MAX)
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: %lld nonzeros need 64-bit row pointers", fmt,
                         (long long)nnz);
    return HSPMV_OK;
}

int hspmv_rowptr_alloc(int rp_bits, int64_t nrows, uint32_t **p32, int64_t **p64)
{
    size_t np = (size_t)nrows + 1;
    if (rp_bits == 32)
        *p32 = hspmv_alloc_array(np, sizeof(uint32_t));
    else
        *p64 = hspmv_alloc_array(np, sizeof(int64_t));
    if (!*p32 && !*p64) return 0;
    hspmv_rowptr_set(*p32, *p64, 0, 0);
    return 1;
}
