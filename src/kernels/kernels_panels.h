/* kernels_panels.h — column-panel kernels (the format is in
   src/format/panels.h): rows [r0, r1) of y = A*x (add == 0) or y += A*x
   (add != 0), panel after panel (each panel's sum added into y; with
   P->rblock > 0, all panels of a block of rblock rows, then the next
   block, so the block's y stays in the first-level cache and each panel's
   piece of x is used by many rows before the next panel's), x
   prefetched P->xpf entries ahead of its gathers. A row's result is
   panel 0's sum, then plus each later panel's, whatever rows a call
   covers. No allocation, printing, MPI or OpenMP. */
#ifndef HSPMV_KERNELS_PANELS_H
#define HSPMV_KERNELS_PANELS_H

#include "panels.h"

typedef void hspmv_panels_kernel(int64_t r0, int64_t r1, const hspmv_panels *P, const hspmv_real *x,
                                 hspmv_real *y, int add);

hspmv_panels_kernel hspmv_k_panels_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_panels_kernel hspmv_k_panels_avx2;
hspmv_panels_kernel hspmv_k_panels_avx512;
#endif

#if defined(__aarch64__)
hspmv_panels_kernel hspmv_k_panels_neon;
#endif

/* Each kernel writes its row loop once as an always-inline function taking
   constants w32 (1: 32-bit row pointers) and pf (1: prefetch x) and calls
   it through HSPMV_PANELS_DISPATCH on every panel, so neither is a per-row test. */
#define HSPMV_PANELS_RP(i) (w32 ? (int64_t)rp32[i] : rp[i])
#define HSPMV_PANELS_DISPATCH(body)                                                                \
    do {                                                                                           \
        int64_t n1_ = P->nrows + 1, rb_ = P->rblock > 0 ? P->rblock : r1 - r0;                     \
        for (int64_t b0_ = r0; b0_ < r1; b0_ += rb_) { /* row blocks: all panels of each in turn */ \
            int64_t b1_ = r1 - b0_ > rb_ ? b0_ + rb_ : r1;                                         \
            for (int p_ = 0; p_ < P->npanels; p_++) {                                              \
                int a_ = add || p_ > 0;                                                            \
                if (P->rowptr32 && P->xpf)                                                         \
                    body(b0_, b1_, P->rowptr32 + p_ * n1_, NULL, 1, 1, P->xpf, P->colind, P->val, x, y, a_); \
                else if (P->rowptr32)                                                              \
                    body(b0_, b1_, P->rowptr32 + p_ * n1_, NULL, 1, 0, 0, P->colind, P->val, x, y, a_); \
                else if (P->xpf)                                                                   \
                    body(b0_, b1_, NULL, P->rowptr + p_ * n1_, 0, 1, P->xpf, P->colind, P->val, x, y, a_); \
                else                                                                               \
                    body(b0_, b1_, NULL, P->rowptr + p_ * n1_, 0, 0, 0, P->colind, P->val, x, y, a_); \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif
