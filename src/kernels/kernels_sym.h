/* kernels_sym.h — the one-triangle kernels (the format is in src/format/sym.h):
   rows [r0, r1) of y = A*x (add == 0) or y += A*x from the diagonal and the
   strictly lower triangle. Row i sets y[i] (+)= diag[i]*x[i] + sum_k
   v[k]*x[j_k] (its sum in registers, written once) and adds
   sign*v[k]*x[i] to the mirrored row j_k < i: to y[j_k] when j_k >= split,
   else to yh[j_k - lo] (a thread's private part of y below its rows,
   local_sym.c). The caller's contract: rows [split, r0) are the caller's
   own and already written (by an earlier call on those rows), so the adds
   find them set; no other thread writes y[split..r1) meanwhile. No
   allocation, printing, MPI or OpenMP. */
#ifndef HSPMV_KERNELS_SYM_H
#define HSPMV_KERNELS_SYM_H

#include "sym.h"

typedef void hspmv_sym_kernel(int64_t r0, int64_t r1, int64_t split, const hspmv_sym *S, const hspmv_real *x,
                              hspmv_real *y, hspmv_real *yh, int64_t lo, int add);

hspmv_sym_kernel hspmv_k_sym_scalar;

#if defined(__x86_64__) || defined(_M_X64)
hspmv_sym_kernel hspmv_k_sym_avx2;
hspmv_sym_kernel hspmv_k_sym_avx512;
#endif

#if defined(__aarch64__)
hspmv_sym_kernel hspmv_k_sym_neon;
#endif

/* Each kernel file writes its row loop once as an always-inline function of
   two constants, w32 (32-bit pointers) and kind (sym.h's index), and
   instantiates it for the five cases, so neither is a per-row test. */
#define HSPMV_SYM_RP(i) (w32 ? (int64_t)S->rp32[i] : S->rp[i])
#define HSPMV_SYM_DISPATCH(body)                                                                   \
    do {                                                                                           \
        if (r1 <= r0) return;                                                                      \
        if (S->index == HSPMV_SYM_PAT) body(r0, r1, split, S, x, y, yh, lo, add, 0, HSPMV_SYM_PAT); \
        else if (S->rp32 && S->index == HSPMV_SYM_IDX16)                                           \
            body(r0, r1, split, S, x, y, yh, lo, add, 1, HSPMV_SYM_IDX16);                         \
        else if (S->rp32) body(r0, r1, split, S, x, y, yh, lo, add, 1, HSPMV_SYM_IDX32);           \
        else if (S->index == HSPMV_SYM_IDX16)                                                      \
            body(r0, r1, split, S, x, y, yh, lo, add, 0, HSPMV_SYM_IDX16);                         \
        else body(r0, r1, split, S, x, y, yh, lo, add, 0, HSPMV_SYM_IDX32);                        \
    } while (0)

/* The column of entry k of row i, whose entries start at kb (PAT: its
   pattern's offsets po). */
static inline __attribute__((always_inline)) int64_t
hspmv_sym_col(const hspmv_sym *S, const int kind, int64_t i, int64_t kb, int64_t k, const int32_t *po)
{
    if (kind == HSPMV_SYM_PAT) return i + po[k - kb];
    if (kind == HSPMV_SYM_IDX16) return i - 65536 + (int64_t)S->off[k];
    return S->ci[k];
}

/* Where row r0's entries start in val. */
static inline __attribute__((always_inline)) int64_t
hspmv_sym_start(const hspmv_sym *S, int64_t r0, const int w32, const int kind)
{
    if (kind != HSPMV_SYM_PAT) return HSPMV_SYM_RP(r0);
    int64_t k = S->sp[r0 / HSPMV_SYM_SLICE];
    for (int64_t i = r0 - r0 % HSPMV_SYM_SLICE; i < r0; i++) k += S->pptr[S->pid[i] + 1] - S->pptr[S->pid[i]];
    return k;
}

/* Where row i's entries end (they start at k); PAT: *po its offsets. */
static inline __attribute__((always_inline)) int64_t
hspmv_sym_end(const hspmv_sym *S, int64_t i, int64_t k, const int32_t **po, const int w32, const int kind)
{
    if (kind != HSPMV_SYM_PAT) return HSPMV_SYM_RP(i + 1);
    int p = S->pid[i];
    *po = S->pofs + S->pptr[p];
    return k + S->pptr[p + 1] - S->pptr[p];
}

/* Entries [k, e) of row i (which starts at kb; PAT: offsets po) with every
   mirrored add going where it belongs; returns diag[i]*x[i] plus their
   sum. The scalar loop; SIMD kernels call it for short rows, rows that
   reach below split and each row's last entries (once per row). */
static inline __attribute__((always_inline)) hspmv_real
hspmv_sym_row_scalar(const hspmv_sym *S, int64_t i, int64_t kb, int64_t k, int64_t e, const int32_t *po,
                     int64_t split, const hspmv_real *x, hspmv_real *y, hspmv_real *yh, int64_t lo, const int kind)
{
    hspmv_real s = S->diag[i] * x[i], t = S->sign > 0 ? x[i] : -x[i];
    if (k < e && hspmv_sym_col(S, kind, i, kb, k, po) < split) { /* the row reaches the private rows */
        for (; k < e; k++) {
            int64_t j = hspmv_sym_col(S, kind, i, kb, k, po);
            hspmv_real a = S->val[k];
            s += a * x[j];
            if (j >= split) y[j] += a * t;
            else yh[j - lo] += a * t;
        }
        return s;
    }
    for (; k < e; k++) { /* columns ascending: all at or above split */
        int64_t j = hspmv_sym_col(S, kind, i, kb, k, po);
        hspmv_real a = S->val[k];
        s += a * x[j];
        y[j] += a * t;
    }
    return s;
}

/* PAT: the interleaved group of rows [i, i+G) (values from k, entry l of
   row i+r at k + l*G + r; pattern po of len offsets), scalar. */
static inline __attribute__((always_inline)) void
hspmv_sym_group_scalar(const hspmv_sym *S, int64_t i, int64_t k, const int32_t *po, int len, int64_t split,
                       const hspmv_real *x, hspmv_real *y, hspmv_real *yh, int64_t lo, int add)
{
    for (int r = 0; r < HSPMV_SYM_G; r++) {
        int64_t row = i + r;
        hspmv_real s = S->diag[row] * x[row], t = S->sign > 0 ? x[row] : -x[row];
        for (int l = 0; l < len; l++) {
            int64_t j = row + po[l];
            hspmv_real a = S->val[k + (int64_t)l * HSPMV_SYM_G + r];
            s += a * x[j];
            if (j >= split) y[j] += a * t;
            else yh[j - lo] += a * t;
        }
        y[row] = add ? y[row] + s : s;
    }
}

/* PAT's row loop: interleaved groups through group(...), the other rows
   through hspmv_sym_row_scalar. r0 and r1 are multiples of G or nrows
   (the thread chunks), so no group straddles them. */
#define HSPMV_SYM_PAT_ROWS(group)                                                                  \
    do {                                                                                           \
        int64_t k = hspmv_sym_start(S, r0, 0, HSPMV_SYM_PAT);                                      \
        for (int64_t i = r0; i < r1;) {                                                            \
            int p = S->pid[i], len = S->pptr[p + 1] - S->pptr[p];                                  \
            const int32_t *po = S->pofs + S->pptr[p];                                              \
            if (i % HSPMV_SYM_G == 0 && hspmv_sym_uniform(S, i)) {                                 \
                group(S, i, k, po, len, split, x, y, yh, lo, add);                                 \
                k += (int64_t)HSPMV_SYM_G * len;                                                   \
                i += HSPMV_SYM_G;                                                                  \
            } else {                                                                               \
                hspmv_real s_ = hspmv_sym_row_scalar(S, i, k, k, k + len, po, split, x, y, yh, lo, \
                                                     HSPMV_SYM_PAT);                               \
                y[i] = add ? y[i] + s_ : s_;                                                       \
                k += len;                                                                          \
                i++;                                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif
