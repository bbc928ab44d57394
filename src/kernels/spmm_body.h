/* spmm_body.h — the block kernels' body, written once over W-lane vector
   wrappers and included by spmm_simd.c (the SIMD sets of simd.h) and
   spmm_scalar.c (one lane): SIMD across the k values of a row of X, the
   entry's value broadcast, one FMA per W values. The includer defines
   SPMM_NV (vectors a row's sums may take in registers), SPMM_NAME(fmt) (the
   function's name), vstream/sfence, and a row's tail of t values
   (0 < t < W) in narrower registers: spmm_tail, tail_zero(a, t),
   tail_fma(a, t, v, x) (a += v * x[0..t)) and tail_put(a, t, y, add)
   (y[0..t) = a, add: += a), reading and writing nothing past t values. */
#include "kernels_spmm.h"
#include "kernels_csrdu.h" /* hspmv_csrdu_seek, _len, _first_step */
#include "kernels_csrp.h"  /* hspmv_csrp_len, _mixed_start */

#define SPMM_AI static inline __attribute__((always_inline))
#define SPMM_KB (SPMM_NV * W) /* values of a slab: the most one pass over a row keeps in registers */

/* A row's sums: nf full vectors, then a tail of t values (0 <= t < W). */
typedef struct spmm_acc {
    vreal a[SPMM_NV];
    spmm_tail tl;
} spmm_acc;

SPMM_AI void acc_zero(spmm_acc *a, const int nf, const int t)
{
    for (int q = 0; q < nf; q++) a->a[q] = vzero();
    tail_zero(&a->tl, t); /* even for t == 0: the compiler may not see that t stays 0 */
}

/* a += v * x[0 .. nf*W + t). */
SPMM_AI void acc_fma(spmm_acc *a, const int nf, const int t, hspmv_real v, const hspmv_real *x)
{
    vreal b = vset1(v);
    for (int q = 0; q < nf; q++) a->a[q] = vfma(b, vload(x + q * W), a->a[q]);
    if (t) tail_fma(&a->tl, t, v, x + nf * W);
}

/* y[0 .. nf*W + t) = a (add: += a; st: by streaming stores, which the
   caller allows only for t == 0 and y aligned to W values). */
SPMM_AI void acc_put(const spmm_acc *a, const int nf, const int t, hspmv_real *y, int add, int st)
{
    for (int q = 0; q < nf; q++) {
        vreal s = a->a[q];
        if (add) s = vadd(s, vload(y + q * W));
        if (st)
            vstream(y + q * W, s);
        else
            vstore(y + q * W, s);
    }
    if (t) tail_put(&a->tl, t, y + nf * W, add);
}

/* One slab of row i: values [j0_, j0_ + NFC*W + TC) of every X and Y row.
   ENTRIES(F) calls F(value, column) for each of the row's entries; the
   callers' functions have ld (the row length of X and Y), X, Y, add and st. */
#define SPMM_FMA_(val, col) acc_fma(&a_, nf_, t_, (val), X + (int64_t)(col) * ld + j0_)
#define SPMM_SLAB(ENTRIES, i, NFC, TC)                                                             \
    do {                                                                                           \
        spmm_acc a_;                                                                               \
        const int nf_ = (NFC), t_ = (TC);                                                          \
        acc_zero(&a_, nf_, t_);                                                                    \
        ENTRIES(SPMM_FMA_);                                                                        \
        acc_put(&a_, nf_, t_, Y + (int64_t)(i) * ld + j0_, add, st);                               \
    } while (0)

/* Row i of Y. K (a constant after inlining) > 0 whose full vectors fit
   the registers: k = K, one slab of constant shape (K / W vectors and a
   tail of K % W values: a masked W-lane load or store of a short row cost
   as much as a full one, and more where it crossed a cache line). Else any
   k: slabs of SPMM_KB values, then one vector at a time, then the tail. */
#define SPMM_ROW(ENTRIES, i)                                                                       \
    do {                                                                                           \
        if (K && K / W <= SPMM_NV) {                                                               \
            const int64_t j0_ = 0;                                                                 \
            SPMM_SLAB(ENTRIES, i, K / W, K % W);                                                   \
        } else {                                                                                   \
            int64_t j0_ = 0;                                                                       \
            for (; j0_ + SPMM_KB <= ld; j0_ += SPMM_KB) SPMM_SLAB(ENTRIES, i, SPMM_NV, 0);         \
            for (; j0_ + W <= ld; j0_ += W) SPMM_SLAB(ENTRIES, i, 1, 0);                           \
            if (j0_ < ld) SPMM_SLAB(ENTRIES, i, 0, (int)(ld - j0_));                               \
        }                                                                                          \
    } while (0)

/* Column-major blocks (how & HSPMV_SPMM_COLMAJOR): vector j of X at
   X + j*nx, of Y at Y + j*ny. A row's up to 16 sums in scalar registers,
   one load of each vector's x per entry: the matrix is still read once. */
#define SPMM_CMFMA_(val, col)                                                                      \
    do {                                                                                           \
        const hspmv_real v_ = (val), *x_ = X + (int64_t)(col) + j0_ * nx;                          \
        for (int cj_ = 0; cj_ < kk_; cj_++) cs_[cj_] += v_ * x_[cj_ * nx];                               \
    } while (0)
#define SPMM_SLAB_CM(ENTRIES, i, KK)                                                               \
    do {                                                                                           \
        hspmv_real cs_[16];                                                                         \
        const int kk_ = (KK);                                                                      \
        for (int cj_ = 0; cj_ < kk_; cj_++) cs_[cj_] = 0;                                               \
        ENTRIES(SPMM_CMFMA_);                                                                      \
        hspmv_real *y_ = Y + (int64_t)(i) + j0_ * ny;                                              \
        for (int cj_ = 0; cj_ < kk_; cj_++) y_[cj_ * ny] = add ? y_[cj_ * ny] + cs_[cj_] : cs_[cj_];        \
    } while (0)
#define SPMM_ROW_CM(ENTRIES, i)                                                                    \
    do {                                                                                           \
        if (K) {                                                                                   \
            const int64_t j0_ = 0;                                                                 \
            SPMM_SLAB_CM(ENTRIES, i, K ? K : 1);                                                   \
        } else {                                                                                   \
            for (int64_t j0_ = 0; j0_ < ld; j0_ += 16) SPMM_SLAB_CM(ENTRIES, i, ld - j0_ < 16 ? (int)(ld - j0_) : 16); \
        }                                                                                          \
    } while (0)
/* Row i in the layout: cm (a constant) picks. */
#define SPMM_ANY_ROW(ENTRIES, i)                                                                   \
    do {                                                                                           \
        if (cm)                                                                                    \
            SPMM_ROW_CM(ENTRIES, i);                                                               \
        else                                                                                       \
            SPMM_ROW(ENTRIES, i);                                                                  \
    } while (0)

/* The body compiled with K = 1..8, 16 (then k == K) and K = 0 (any k), in layout CM. */
#define SPMM_CASES(CALL, CM)                                                                           \
    switch (k) {                                                                                   \
    case 1: CALL(1, CM); break;                                                                        \
    case 2: CALL(2, CM); break;                                                                        \
    case 3: CALL(3, CM); break;                                                                        \
    case 4: CALL(4, CM); break;                                                                        \
    case 5: CALL(5, CM); break;                                                                        \
    case 6: CALL(6, CM); break;                                                                        \
    case 7: CALL(7, CM); break;                                                                        \
    case 8: CALL(8, CM); break;                                                                        \
    case 16: CALL(16, CM); break;                                                                      \
    default: CALL(0, CM); break;                                                                       \
    }

/* Streaming stores of Y's rows (HSPMV_SPMM_STREAM: row-major, y = A x). */
#define SPMM_STREAMS(how, add) (((how) & HSPMV_SPMM_STREAM) && !((how) & HSPMV_SPMM_COLMAJOR) && !(add))

/* The cases in each layout: CM_ is 1 (column-major) or 0 inside CALL. */
#define SPMM_LAYOUTS(CALL)                                                                         \
    do {                                                                                           \
        if (how & HSPMV_SPMM_COLMAJOR) {                                                           \
            SPMM_CASES(CALL, 1);                                                                   \
        } else {                                                                                   \
            SPMM_CASES(CALL, 0);                                                                   \
        }                                                                                          \
    } while (0)

/* ---- CSR ---------------------------------------------------------------- */
SPMM_AI void csr_rows(int64_t r0, int64_t r1, const hspmv_csr *A, const int cm, const int K, int k, const hspmv_real *X, hspmv_real *Y, int add, int st)
{
    const int64_t ld = K ? K : k, *rp = A->rowptr;
    const int64_t nx = A->ncols, ny = A->nrows; /* column-major: one vector's length */
    const int32_t *ci = A->colind;
    const hspmv_real *v = A->val;
    for (int64_t i = r0; i < r1; i++) {
        const int64_t b = rp[i], e = rp[i + 1];
#define E_(F) for (int64_t q_ = b; q_ < e; q_++) F(v[q_], ci[q_])
        SPMM_ANY_ROW(E_, i);
#undef E_
    }
}
void SPMM_NAME(csr)(int64_t r0, int64_t r1, const hspmv_csr *A, int k, const hspmv_real *X, hspmv_real *Y,
                    int add, int how)
{
    const int st = SPMM_STREAMS(how, add);
#define C_(K, CM_) csr_rows(r0, r1, A, CM_, K, k, X, Y, add, st)
    SPMM_LAYOUTS(C_);
#undef C_
    if (st) sfence(); /* the streamed rows visible to other threads and ranks */
}

/* ---- CSRL: segments of consecutive columns -------------------------------- */
SPMM_AI void csrl_rows(int64_t r0, int64_t r1, const hspmv_csrl *A, const int cm, const int K, int k, const hspmv_real *X, hspmv_real *Y, int add, int st)
{
    const int64_t ld = K ? K : k;
    const int64_t nx = A->ncols, ny = A->nrows; /* column-major: one vector's length */
    const int32_t *jas = A->jas, *jan = A->jan;
    const hspmv_real *v = A->val;
    for (int64_t i = r0; i < r1; i++) {
        const int64_t sb = A->segptr[i], se = A->segptr[i + 1], vb = A->valptr[i];
#define E_(F)                                                                                      \
    for (int64_t s_ = sb, q_ = vb; s_ < se; s_++) {                                                \
        const int32_t c_ = jas[s_], n_ = jan[s_];                                                  \
        for (int32_t j_ = 0; j_ < n_; j_++) F(v[q_ + j_], c_ + j_);                                \
        q_ += n_;                                                                                  \
    }
        SPMM_ANY_ROW(E_, i);
#undef E_
    }
}
void SPMM_NAME(csrl)(int64_t r0, int64_t r1, const hspmv_csrl *A, int k, const hspmv_real *X, hspmv_real *Y,
                     int add, int how)
{
    const int st = SPMM_STREAMS(how, add);
#define C_(K, CM_) csrl_rows(r0, r1, A, CM_, K, k, X, Y, add, st)
    SPMM_LAYOUTS(C_);
#undef C_
    if (st) sfence(); /* the streamed rows visible to other threads and ranks */
}

/* ---- CSR16 and CSRVI: 32- or 64-bit row pointers (w32 a constant) --------- */
#define SPMM_RP(i) (w32 ? (int64_t)rp32[i] : rp[i])
SPMM_AI void csr16_rows(int64_t r0, int64_t r1, const hspmv_csr16 *A, const int w32, const int cm, const int K, int k,
                        const hspmv_real *X, hspmv_real *Y, int add, int st)
{
    const int64_t ld = K ? K : k, *rp = A->rowptr;
    const int64_t nx = A->ncols, ny = A->nrows; /* column-major: one vector's length */
    const uint32_t *rp32 = A->rowptr32;
    const int16_t *off = A->off;
    const hspmv_real *v = A->val;
    for (int64_t i = r0; i < r1; i++) {
        const int64_t b = SPMM_RP(i), e = SPMM_RP(i + 1);
#define E_(F) for (int64_t q_ = b; q_ < e; q_++) F(v[q_], i + off[q_])
        SPMM_ANY_ROW(E_, i);
#undef E_
    }
}
void SPMM_NAME(csr16)(int64_t r0, int64_t r1, const hspmv_csr16 *A, int k, const hspmv_real *X, hspmv_real *Y,
                      int add, int how)
{
    const int st = SPMM_STREAMS(how, add);
#define C_(K, CM_) (A->rowptr32 ? csr16_rows(r0, r1, A, 1, CM_, K, k, X, Y, add, st) : csr16_rows(r0, r1, A, 0, CM_, K, k, X, Y, add, st))
    SPMM_LAYOUTS(C_);
#undef C_
    if (st) sfence(); /* the streamed rows visible to other threads and ranks */
}

SPMM_AI void csrvi_rows(int64_t r0, int64_t r1, const hspmv_csrvi *A, const int w32, const int cm, const int K, int k,
                        const hspmv_real *X, hspmv_real *Y, int add, int st)
{
    const int64_t ld = K ? K : k, *rp = A->rowptr;
    const int64_t nx = A->ncols, ny = A->nrows; /* column-major: one vector's length */
    const uint32_t *rp32 = A->rowptr32;
    const int32_t *ci = A->colind;
    const uint8_t *code = A->code;
    const hspmv_real *tab = A->tab;
    for (int64_t i = r0; i < r1; i++) {
        const int64_t b = SPMM_RP(i), e = SPMM_RP(i + 1);
#define E_(F) for (int64_t q_ = b; q_ < e; q_++) F(tab[code[q_]], ci[q_])
        SPMM_ANY_ROW(E_, i);
#undef E_
    }
}
void SPMM_NAME(csrvi)(int64_t r0, int64_t r1, const hspmv_csrvi *A, int k, const hspmv_real *X, hspmv_real *Y,
                      int add, int how)
{
    const int st = SPMM_STREAMS(how, add);
#define C_(K, CM_) (A->rowptr32 ? csrvi_rows(r0, r1, A, 1, CM_, K, k, X, Y, add, st) : csrvi_rows(r0, r1, A, 0, CM_, K, k, X, Y, add, st))
    SPMM_LAYOUTS(C_);
#undef C_
    if (st) sfence(); /* the streamed rows visible to other threads and ranks */
}

/* ---- CSRP: a uniform slice's row reads its values with stride G ----------- */
SPMM_AI void csrp_rows(int64_t r0, int64_t r1, const hspmv_csrp *P, const int cm, const int K, int k, const hspmv_real *X, hspmv_real *Y, int add, int st)
{
    const int64_t ld = K ? K : k;
    const int64_t nx = P->ncols, ny = P->nrows; /* column-major: one vector's length */
    for (int64_t i = r0; i < r1;) {
        int64_t s = i / HSPMV_CSRP_G, a = s * HSPMV_CSRP_G;
        int64_t end = a + HSPMV_CSRP_G < r1 ? a + HSPMV_CSRP_G : r1;
        unsigned p = P->spat[s];
        if (p != HSPMV_CSRP_MIXED) { /* row i's entry j at sp + j*G + (i - a) */
            const int32_t *o = P->ofs + P->start[p];
            const int32_t n = hspmv_csrp_len(P, (int)p);
            for (; i < end; i++) {
                const hspmv_real *vb = P->val + P->sp[s] + (i - a);
#define E_(F) for (int32_t j_ = 0; j_ < n; j_++) F(vb[(int64_t)j_ * HSPMV_CSRP_G], i + o[j_])
                SPMM_ANY_ROW(E_, i);
#undef E_
            }
        } else { /* rows one after another */
            int64_t q = hspmv_csrp_mixed_start(P, i);
            for (; i < end; i++) {
                const int32_t *o = P->ofs + P->start[P->pid[i]];
                const int32_t n = hspmv_csrp_len(P, P->pid[i]);
                const hspmv_real *vb = P->val + q;
#define E_(F) for (int32_t j_ = 0; j_ < n; j_++) F(vb[j_], i + o[j_])
                SPMM_ANY_ROW(E_, i);
#undef E_
                q += n;
            }
        }
    }
}
void SPMM_NAME(csrp)(int64_t r0, int64_t r1, const hspmv_csrp *A, int k, const hspmv_real *X, hspmv_real *Y,
                     int add, int how)
{
    const int st = SPMM_STREAMS(how, add);
#define C_(K, CM_) csrp_rows(r0, r1, A, CM_, K, k, X, Y, add, st)
    SPMM_LAYOUTS(C_);
#undef C_
    if (st) sfence(); /* the streamed rows visible to other threads and ranks */
}

/* ---- CSRDU: columns decoded from the byte steps, once per slab ------------ */
SPMM_AI void csrdu_rows(int64_t r0, int64_t r1, const hspmv_csrdu *D, const int cm, const int K, int k, const hspmv_real *X, hspmv_real *Y, int add, int st)
{
    const int64_t ld = K ? K : k;
    const int64_t nx = D->ncols, ny = D->nrows; /* column-major: one vector's length */
    const uint8_t *d = D->d;
    const int32_t *esc = D->esc;
    const hspmv_real *v = D->val;
    int64_t q, e;
    int32_t c;
    if (r1 <= r0) return;
    hspmv_csrdu_seek(D, r0, &q, &e, &c);
    for (int64_t i = r0; i < r1; i++) {
        const int64_t n = hspmv_csrdu_len(D, i, &e);
        int64_t e1 = e;
        if (n > 0) c += hspmv_csrdu_first_step(D, q, &e);
#define E_(F)                                                                                      \
    do {                                                                                           \
        int64_t ee_ = e;                                                                           \
        if (n > 0) {                                                                               \
            int32_t col_ = c;                                                                      \
            F(v[q], col_);                                                                         \
            for (int64_t p_ = q + 1; p_ < q + n; p_++) {                                           \
                col_ += d[p_] ? d[p_] : esc[ee_++];                                                \
                F(v[p_], col_);                                                                    \
            }                                                                                      \
        }                                                                                          \
        e1 = ee_;                                                                                  \
    } while (0)
        SPMM_ANY_ROW(E_, i);
#undef E_
        e = e1;
        q += n;
    }
}
void SPMM_NAME(csrdu)(int64_t r0, int64_t r1, const hspmv_csrdu *A, int k, const hspmv_real *X, hspmv_real *Y,
                      int add, int how)
{
    const int st = SPMM_STREAMS(how, add);
#define C_(K, CM_) csrdu_rows(r0, r1, A, CM_, K, k, X, Y, add, st)
    SPMM_LAYOUTS(C_);
#undef C_
    if (st) sfence(); /* the streamed rows visible to other threads and ranks */
}

/* ---- PANELS: every panel a CSR over the rows, added into Y ---------------- */
SPMM_AI void panel_rows(int64_t r0, int64_t r1, const uint32_t *rp32, const int64_t *rp, const int w32,
                        const hspmv_panels *P, const int cm, const int K, int k, const hspmv_real *X, hspmv_real *Y, int add, int st)
{
    const int64_t ld = K ? K : k;
    const int64_t nx = P->ncols, ny = P->nrows; /* column-major: one vector's length */
    const int32_t *ci = P->colind;
    const hspmv_real *v = P->val;
    const int xpf = P->xpf;
    for (int64_t i = r0; i < r1; i++) {
        const int64_t b = SPMM_RP(i), e = SPMM_RP(i + 1);
        if (xpf) /* X's rows of the entries xpf ahead (colind is padded for it) */
            for (int64_t q_ = b; q_ < e; q_++) __builtin_prefetch(X + (int64_t)ci[q_ + xpf] * ld, 0, 3);
#define E_(F) for (int64_t q_ = b; q_ < e; q_++) F(v[q_], ci[q_])
        SPMM_ANY_ROW(E_, i);
#undef E_
    }
}
SPMM_AI void panels_all(int64_t r0, int64_t r1, const hspmv_panels *P, const int cm, const int K, int k, const hspmv_real *X, hspmv_real *Y, int add, int st)
{
    int64_t n1 = P->nrows + 1, rb = P->rblock > 0 ? P->rblock : r1 - r0;
    for (int64_t b0 = r0; b0 < r1; b0 += rb) { /* row blocks: all panels of each in turn */
        int64_t b1 = r1 - b0 > rb ? b0 + rb : r1;
        for (int p = 0; p < P->npanels; p++) {
            int a = add || p > 0;
            if (P->rowptr32)
                panel_rows(b0, b1, P->rowptr32 + p * n1, NULL, 1, P, cm, K, k, X, Y, a, st);
            else
                panel_rows(b0, b1, NULL, P->rowptr + p * n1, 0, P, cm, K, k, X, Y, a, st);
        }
    }
}
void SPMM_NAME(panels)(int64_t r0, int64_t r1, const hspmv_panels *A, int k, const hspmv_real *X,
                       hspmv_real *Y, int add, int how)
{
    const int st = SPMM_STREAMS(how, add) && A->npanels == 1; /* later panels read Y back */
    if (r1 <= r0) return;
#define C_(K, CM_) panels_all(r0, r1, A, CM_, K, k, X, Y, add, st)
    SPMM_LAYOUTS(C_);
#undef C_
    if (st) sfence(); /* the streamed rows visible to other threads and ranks */
}
