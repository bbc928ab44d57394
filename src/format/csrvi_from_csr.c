/* csrvi_from_csr.c — CSR to CSRVI: the distinct values go to a table, each nonzero keeps a 1-byte code. */
#include <string.h>
#include "csrvi.h"
#include "rowptr.h"
#include "util.h"

/* The bits of v, widened to 64. */
static inline uint64_t bits_of(hspmv_real v)
{
#ifdef HSPMV_SINGLE
    uint32_t b;
#else
    uint64_t b;
#endif
    memcpy(&b, &v, sizeof(b));
    return b;
}

/* First slot to probe for bits b (Fibonacci hashing: top bits of b * 2^64/phi). */
static inline unsigned slot_of(uint64_t b)
{
    return (unsigned)((b * 0x9E3779B97F4A7C15ull) >> 55) & (HSPMV_CSRVI_SLOTS - 1);
}

/* The slot holding b, or the empty slot where it would go. */
static inline unsigned probe(const hspmv_csrvi_set *S, uint64_t b)
{
    unsigned h = slot_of(b);
    while (S->idx[h] >= 0 && S->key[h] != b) h = (h + 1) & (HSPMV_CSRVI_SLOTS - 1);
    return h;
}

/* Adds v unless S has it; 0 when it is new and S is full. */
static inline int add_one(hspmv_csrvi_set *S, hspmv_real v)
{
    uint64_t b = bits_of(v);
    unsigned h = probe(S, b);
    if (S->idx[h] >= 0) return 1;
    if (S->n == HSPMV_CSRVI_MAXTAB) return 0;
    S->idx[h] = (int16_t)S->n;
    S->key[h] = b;
    S->val[S->n++] = v;
    return 1;
}

void hspmv_csrvi_set_clear(hspmv_csrvi_set *S)
{
    S->n = 0;
    memset(S->idx, 0xff, sizeof(S->idx)); /* every slot -1 */
}

int hspmv_csrvi_set_add(hspmv_csrvi_set *S, const hspmv_real *v, int64_t n)
{
    uint64_t last = 0;
    int have = 0;
    for (int64_t k = 0; k < n; k++) {
        uint64_t b = bits_of(v[k]);
        if (have && b == last) continue; /* runs of one value (-1, -1, ...) skip the hash */
        if (!add_one(S, v[k])) return 0;
        last = b;
        have = 1;
    }
    return 1;
}

int hspmv_csrvi_set_merge(hspmv_csrvi_set *S, const hspmv_csrvi_set *T)
{
    for (int c = 0; c < T->n; c++)
        if (!add_one(S, T->val[c])) return 0;
    return 1;
}

/* An unsigned key whose order is the numeric order of the values (-0.0
   just below 0.0): negative values get all bits flipped, others the sign set. */
static inline uint64_t order_key(hspmv_real v)
{
    const uint64_t sign = (uint64_t)1 << (8 * sizeof(hspmv_real) - 1);
    uint64_t b = bits_of(v);
    return (b & sign) ? ~b & (sign | (sign - 1)) : b | sign;
}

void hspmv_csrvi_set_sort(hspmv_csrvi_set *S)
{
    hspmv_real v[HSPMV_CSRVI_MAXTAB];
    int n = S->n;
    memcpy(v, S->val, (size_t)n * sizeof(hspmv_real));
    for (int i = 1; i < n; i++) { /* insertion sort: at most 256 values, once per matrix */
        hspmv_real t = v[i];
        uint64_t kt = order_key(t);
        int j = i;
        for (; j > 0 && order_key(v[j - 1]) > kt; j--) v[j] = v[j - 1];
        v[j] = t;
    }
    hspmv_csrvi_set_clear(S);
    for (int c = 0; c < n; c++) add_one(S, v[c]);
}

int hspmv_csrvi_set_find(const hspmv_csrvi_set *S, hspmv_real v)
{
    return S->idx[probe(S, bits_of(v))];
}

int hspmv_csrvi_values(const hspmv_csr *A, hspmv_csrvi_set *S)
{
    hspmv_csrvi_set_clear(S);
    if (!hspmv_csrvi_set_add(S, A->val, A->nnz)) return 0;
    hspmv_csrvi_set_sort(S);
    return 1;
}

int hspmv_csrvi_alloc(const hspmv_csr *A, const hspmv_csrvi_set *S, int rp_bits, hspmv_csrvi *C,
                      hspmv_error *err)
{
    int rc, rp_ok;
    memset(C, 0, sizeof(*C));
    rc = hspmv_rowptr_check("CSRVI", rp_bits, A->nnz, err);
    if (rc != HSPMV_OK) return rc;
    C->nrows = A->nrows;
    C->ncols = A->ncols;
    C->nnz = A->nnz;
    rp_ok = hspmv_rowptr_alloc(rp_bits, A->nrows, &C->rowptr32, &C->rowptr);
    C->colind = hspmv_alloc_array((size_t)A->nnz, sizeof(int32_t));
    C->code = hspmv_alloc_array((size_t)A->nnz, sizeof(uint8_t));
    C->tab = hspmv_alloc_array((size_t)(S->n > 0 ? S->n : 1), sizeof(hspmv_real));
    if (!rp_ok || !C->colind || !C->code || !C->tab) {
        hspmv_csrvi_free(C);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "CSRVI conversion: out of memory for %lld nonzeros",
                         (long long)A->nnz);
    }
    C->ntab = S->n;
    memcpy(C->tab, S->val, (size_t)S->n * sizeof(hspmv_real));
    return hspmv_ok(err);
}

void hspmv_csrvi_fill_rows(const hspmv_csr *A, const hspmv_csrvi_set *S, hspmv_csrvi *C, int64_t r0,
                           int64_t r1)
{
    const int64_t *rp = A->rowptr;
    const hspmv_real *v = A->val;
    int64_t k0 = rp[r0], k1 = rp[r1];
    uint64_t last = 0;
    int code = -1; /* code of the value with bits `last`; -1: none yet */
    if (k1 > k0) memcpy(C->colind + k0, A->colind + k0, (size_t)(k1 - k0) * sizeof(int32_t));
    for (int64_t k = k0; k < k1; k++) {
        uint64_t b = bits_of(v[k]);
        if (code < 0 || b != last) {
            code = hspmv_csrvi_set_find(S, v[k]);
            last = b;
        }
        C->code[k] = (uint8_t)code;
    }
    for (int64_t i = r0; i < r1; i++) hspmv_rowptr_set(C->rowptr32, C->rowptr, i + 1, rp[i + 1]);
}

int hspmv_csrvi_from_csr(const hspmv_csr *A, hspmv_csrvi *C, hspmv_error *err)
{
    hspmv_csrvi_set *S;
    int rc;
    memset(C, 0, sizeof(*C));
    S = hspmv_malloc(sizeof(*S));
    if (!S) return hspmv_err(err, HSPMV_ERR_NOMEM, "CSRVI conversion: out of memory");
    if (!hspmv_csrvi_values(A, S)) {
        hspmv_free(S);
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED,
                         "CSRVI: the matrix has more than %d distinct values", HSPMV_CSRVI_MAXTAB);
    }
    rc = hspmv_csrvi_alloc(A, S, hspmv_rowptr_bits(A->nnz), C, err);
    if (rc == HSPMV_OK) hspmv_csrvi_fill_rows(A, S, C, 0, A->nrows);
    hspmv_free(S);
    return rc == HSPMV_OK ? hspmv_ok(err) : rc;
}

double hspmv_csrvi_bytes(const hspmv_csrvi *C)
{
    double r = sizeof(hspmv_real), p = C->rowptr32 ? 4 : 8;
    return (double)C->nnz * (4 + 1) + (double)(C->nrows + 1) * p + (double)C->ntab * r +
           (double)C->ncols * r + (double)C->nrows * r;
}

void hspmv_csrvi_free(hspmv_csrvi *C)
{
    if (!C) return;
    hspmv_free(C->rowptr32);
    hspmv_free(C->rowptr);
    hspmv_free(C->colind);
    hspmv_free(C->code);
    hspmv_free(C->tab);
    memset(C, 0, sizeof(*C));
}
