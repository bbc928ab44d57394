/* kernel_select.c — the kernels this CPU can run, best first, and lookup by name. */
#include <string.h>
#include "kernel_select.h"

static int cpu_has(const char *isa)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!strcmp(isa, "avx2")) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!strcmp(isa, "avx512"))
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512cd");
#endif
    (void)isa;
    return 1; /* scalar, and NEON which every aarch64 has */
}

/* Best first. */
static const hspmv_kernel_set all_sets[] = {
#if defined(__x86_64__)
    {"avx512", hspmv_k_csr_avx512, hspmv_k_csrl_avx512, hspmv_k_bcoo_avx512, hspmv_k_csr16_avx512,
     hspmv_k_csrvi_avx512, hspmv_k_csrp_avx512, hspmv_k_csrdu_avx512,
     hspmv_k_panels_avx512, hspmv_k_sym_avx512},
    {"avx2", hspmv_k_csr_avx2, hspmv_k_csrl_avx2, hspmv_k_bcoo_avx2, hspmv_k_csr16_avx2,
     hspmv_k_csrvi_avx2, hspmv_k_csrp_avx2, hspmv_k_csrdu_avx2,
     hspmv_k_panels_avx2, hspmv_k_sym_avx2},
#endif
#if defined(__aarch64__)
    {"neon", hspmv_k_csr_neon, hspmv_k_csrl_neon, hspmv_k_bcoo_neon, hspmv_k_csr16_neon,
     hspmv_k_csrvi_neon, hspmv_k_csrp_neon, hspmv_k_csrdu_neon,
     hspmv_k_panels_neon, hspmv_k_sym_neon},
#endif
    {"scalar", hspmv_k_csr_scalar, hspmv_k_csrl_scalar, hspmv_k_bcoo_scalar, hspmv_k_csr16_scalar,
     hspmv_k_csrvi_scalar, hspmv_k_csrp_scalar, hspmv_k_csrdu_scalar,
     hspmv_k_panels_scalar, hspmv_k_sym_scalar},
};

int hspmv_kernel_sets(const hspmv_kernel_set **sets, int max)
{
    int n = 0;
    for (size_t i = 0; i < sizeof(all_sets) / sizeof(all_sets[0]); i++)
        if (cpu_has(all_sets[i].isa) && n < max) sets[n++] = &all_sets[i];
    return n;
}

const hspmv_kernel_set *hspmv_kernel_find(const char *isa)
{
    const hspmv_kernel_set *sets[8];
    int n = hspmv_kernel_sets(sets, 8);
    if (!isa || !*isa || !strcmp(isa, "auto")) return sets[0];
    for (int i = 0; i < n; i++)
        if (!strcmp(sets[i]->isa, isa)) return sets[i];
    return NULL;
}

static int csrdu_decoder = -1; /* set by hspmv_csrdu_set_decoder; -1: the CPU's choice */
static int csrdu_default = -1; /* the CPU's choice; -1: not looked up yet */

void hspmv_csrdu_set_decoder(int mode)
{
    __atomic_store_n(&csrdu_decoder, mode < 0 || mode > HSPMV_CSRDU_WIDE ? -1 : mode, __ATOMIC_RELAXED);
}

int hspmv_csrdu_decoder(void)
{
    int m = __atomic_load_n(&csrdu_decoder, __ATOMIC_RELAXED);
    if (m >= 0) return m;
    m = __atomic_load_n(&csrdu_default, __ATOMIC_RELAXED);
    if (m < 0) { /* every thread that gets here finds the same */
#if defined(__x86_64__)
        __builtin_cpu_init();
        m = __builtin_cpu_is("intel") ? HSPMV_CSRDU_WIDE : HSPMV_CSRDU_STEPS;
#else
        m = HSPMV_CSRDU_STEPS;
#endif
        __atomic_store_n(&csrdu_default, m, __ATOMIC_RELAXED);
    }
    return m;
}
