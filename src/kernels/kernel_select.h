/* kernel_select.h — choosing a kernel set by CPU features or by name. */
#ifndef HSPMV_KERNEL_SELECT_H
#define HSPMV_KERNEL_SELECT_H

#include "kernels.h"
#include "kernels_bcoo.h"
#include "kernels_csr16.h"
#include "kernels_csrdu.h"
#include "kernels_csrp.h"
#include "kernels_panels.h"
#include "kernels_csrvi.h"
#include "kernels_sym.h"

/* One instruction set's kernels for every format. */
typedef struct hspmv_kernel_set {
    const char *isa;         /* "avx512", "avx2", "neon", "scalar" */
    hspmv_csr_kernel *csr;
    hspmv_csrl_kernel *csrl;
    hspmv_bcoo_kernel *bcoo;
    hspmv_csr16_kernel *csr16;
    hspmv_csrvi_kernel *csrvi;
    hspmv_csrp_kernel *csrp;
    hspmv_csrdu_kernel *csrdu;
    hspmv_panels_kernel *panels;
    hspmv_sym_kernel *sym;   /* one-triangle storage (sym.h) */
} hspmv_kernel_set;

/* Fills sets[] with the sets this CPU runs, best first; returns how many. */
int hspmv_kernel_sets(const hspmv_kernel_set **sets, int max);

/* The set named isa ("auto" or NULL: the best), or NULL if this CPU lacks it. */
const hspmv_kernel_set *hspmv_kernel_find(const char *isa);

#endif
