/* spmm_select.c — the block kernels of each instruction set, looked up by the set's name. */
#include <string.h>
#include "kernels_spmm.h"

#define SPMM_SET(isa)                                                                                     \
    {#isa, hspmv_k_spmm_csr_##isa, hspmv_k_spmm_csrl_##isa, hspmv_k_spmm_csr16_##isa,                   \
     hspmv_k_spmm_csrvi_##isa, hspmv_k_spmm_csrp_##isa, hspmv_k_spmm_csrdu_##isa, hspmv_k_spmm_panels_##isa}

static const hspmv_spmm_set spmm_sets[] = {
#if defined(__x86_64__) || defined(_M_X64)
    SPMM_SET(avx512),
    SPMM_SET(avx2),
#endif
#if defined(__aarch64__)
    SPMM_SET(neon),
#endif
    SPMM_SET(scalar),
};

const hspmv_spmm_set *hspmv_spmm_find(const char *isa, int k)
{
    size_t n = sizeof(spmm_sets) / sizeof(spmm_sets[0]);
    /* a row of exactly 32 bytes (k = 4 in double, 8 in single): AVX2's full
       vectors beat AVX-512's masked ones, 1.39x on Zen 4 (results file) */
    if (isa && !strcmp(isa, "avx512") && (size_t)k * sizeof(hspmv_real) == 32) isa = "avx2";
    for (size_t i = 0; isa && i < n; i++)
        if (!strcmp(spmm_sets[i].isa, isa)) return &spmm_sets[i];
    return &spmm_sets[n - 1];
}
