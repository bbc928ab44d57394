/* csrp_from_csr.c — CSR to CSRP: the rows' column patterns (offsets from the
   row) go to a table, each row keeps a 1-byte id, each slice of G rows its
   values (interleaved when its rows share one pattern). */
#include <string.h>
#include "csrp.h"
#include "util.h"

/* Hash of row i's pattern (FNV-1a over the offsets). */
static uint64_t row_hash(const hspmv_csr *A, int64_t i)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)(A->rowptr[i + 1] - A->rowptr[i]);
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        h = (h ^ (uint32_t)(A->colind[k] - (int32_t)i)) * 0x100000001b3ull;
    return h;
}

/* 1 when pattern p of S is row i's. */
static int same_row(const hspmv_csrp_set *S, int p, const hspmv_csr *A, int64_t i)
{
    int64_t k0 = A->rowptr[i], n = A->rowptr[i + 1] - k0;
    const int32_t *o = S->ofs + S->start[p];
    if (S->start[p + 1] - S->start[p] != n) return 0;
    for (int64_t j = 0; j < n; j++)
        if (o[j] != (int64_t)A->colind[k0 + j] - i) return 0;
    return 1;
}

static inline unsigned slot_of(uint64_t h) { return (unsigned)(h >> 40) & (HSPMV_CSRP_SLOTS - 1); }

/* Index of the pattern with hash h equal to row i's (A, i) or to offsets o
   of length n (A NULL); -1 when absent, *slot the empty slot where it goes. */
static int lookup(const hspmv_csrp_set *S, uint64_t h, const hspmv_csr *A, int64_t i, const int32_t *o,
                  int32_t n, unsigned *slot)
{
    unsigned s = slot_of(h);
    for (; S->slot[s] >= 0; s = (s + 1) & (HSPMV_CSRP_SLOTS - 1)) {
        int p = S->slot[s];
        if (S->hash[p] != h) continue;
        if (A ? same_row(S, p, A, i)
              : S->start[p + 1] - S->start[p] == n && !memcmp(S->ofs + S->start[p], o, (size_t)n * sizeof(*o)))
            return p;
    }
    *slot = s;
    return -1;
}

/* Appends the pattern o[0..n) (o NULL: already at ofs + nofs) with hash h
   at slot; -1 when it does not fit. */
static int append(hspmv_csrp_set *S, uint64_t h, unsigned slot, const int32_t *o, int64_t n)
{
    if (S->n == HSPMV_CSRP_MAXPAT || n > HSPMV_CSRP_MAXOFS - S->nofs) return -1;
    if (o) memcpy(S->ofs + S->nofs, o, (size_t)n * sizeof(*o));
    S->hash[S->n] = h;
    S->slot[slot] = (int16_t)S->n;
    S->nofs += (int32_t)n;
    S->start[++S->n] = S->nofs;
    return S->n - 1;
}

void hspmv_csrp_set_clear(hspmv_csrp_set *S)
{
    S->n = 0;
    S->nofs = 0;
    S->last = -1;
    S->start[0] = 0;
    memset(S->slot, 0xff, sizeof(S->slot)); /* every slot -1 */
}

int hspmv_csrp_set_find_row(const hspmv_csrp_set *S, const hspmv_csr *A, int64_t i)
{
    unsigned slot = 0;
    return lookup(S, row_hash(A, i), A, i, NULL, 0, &slot);
}

int hspmv_csrp_set_add_row(hspmv_csrp_set *S, const hspmv_csr *A, int64_t i)
{
    int64_t k0 = A->rowptr[i], n = A->rowptr[i + 1] - k0;
    uint64_t h;
    unsigned slot = 0;
    int p;
    if (S->last >= 0 && same_row(S, S->last, A, i)) return S->last; /* runs of one pattern skip the hash */
    h = row_hash(A, i);
    p = lookup(S, h, A, i, NULL, 0, &slot);
    if (p < 0) {
        if (S->n == HSPMV_CSRP_MAXPAT || n > HSPMV_CSRP_MAXOFS - S->nofs) return -1;
        for (int64_t j = 0; j < n; j++) S->ofs[S->nofs + j] = (int32_t)((int64_t)A->colind[k0 + j] - i);
        p = append(S, h, slot, NULL, n);
    }
    S->last = p;
    return p;
}

int hspmv_csrp_set_merge(hspmv_csrp_set *S, const hspmv_csrp_set *T)
{
    for (int p = 0; p < T->n; p++) {
        const int32_t *o = T->ofs + T->start[p];
        int32_t n = T->start[p + 1] - T->start[p];
        unsigned slot = 0;
        if (lookup(S, T->hash[p], NULL, 0, o, n, &slot) < 0 && append(S, T->hash[p], slot, o, n) < 0) return 0;
    }
    return 1;
}

/* Order of patterns a and b of S: by length, then offsets. */
static int pat_less(const hspmv_csrp_set *S, int a, int b)
{
    int32_t na = S->start[a + 1] - S->start[a], nb = S->start[b + 1] - S->start[b];
    if (na != nb) return na < nb;
    for (int32_t j = 0; j < na; j++) {
        int32_t oa = S->ofs[S->start[a] + j], ob = S->ofs[S->start[b] + j];
        if (oa != ob) return oa < ob;
    }
    return 0;
}

int hspmv_csrp_set_sort(hspmv_csrp_set *S)
{
    int order[HSPMV_CSRP_MAXPAT];
    hspmv_csrp_set *T = hspmv_malloc(sizeof(*T));
    int n = S->n;
    if (!T) return 0;
    for (int i = 0; i < n; i++) { /* insertion sort of indices: at most 256, once per matrix */
        int t = i, j = i;
        for (; j > 0 && pat_less(S, t, order[j - 1]); j--) order[j] = order[j - 1];
        order[j] = t;
    }
    memcpy(T, S, sizeof(*T));
    hspmv_csrp_set_clear(S);
    for (int i = 0; i < n; i++) {
        int p = order[i];
        unsigned slot = 0;
        const int32_t *o = T->ofs + T->start[p];
        int32_t len = T->start[p + 1] - T->start[p];
        (void)lookup(S, T->hash[p], NULL, 0, o, len, &slot);
        (void)append(S, T->hash[p], slot, o, len);
    }
    hspmv_free(T);
    return 1;
}

int hspmv_csrp_patterns(const hspmv_csr *A, hspmv_csrp_set *S)
{
    hspmv_csrp_set_clear(S);
    for (int64_t i = 0; i < A->nrows; i++)
        if (hspmv_csrp_set_add_row(S, A, i) < 0) return 0;
    return hspmv_csrp_set_sort(S) ? 1 : -1;
}

int hspmv_csrp_alloc(const hspmv_csr *A, const hspmv_csrp_set *S, hspmv_csrp *P, hspmv_error *err)
{
    memset(P, 0, sizeof(*P));
    P->nrows = A->nrows;
    P->ncols = A->ncols;
    P->nnz = A->nnz;
    P->nslices = (A->nrows + HSPMV_CSRP_G - 1) / HSPMV_CSRP_G;
    P->start = hspmv_alloc_array((size_t)S->n + 1, sizeof(int32_t));
    P->ofs = hspmv_alloc_array((size_t)(S->nofs > 0 ? S->nofs : 1), sizeof(int32_t));
    P->pid = hspmv_alloc_array((size_t)(A->nrows > 0 ? A->nrows : 1), 1);
    P->sp = hspmv_alloc_array((size_t)P->nslices + 1, sizeof(int64_t));
    P->spat = hspmv_alloc_array((size_t)(P->nslices > 0 ? P->nslices : 1), sizeof(uint16_t));
    P->val = hspmv_alloc_array((size_t)(A->nnz > 0 ? A->nnz : 1), sizeof(hspmv_real));
    if (!P->start || !P->ofs || !P->pid || !P->sp || !P->spat || !P->val) {
        hspmv_csrp_free(P);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "CSRP conversion: out of memory for %lld nonzeros",
                         (long long)A->nnz);
    }
    P->npat = S->n;
    memcpy(P->start, S->start, ((size_t)S->n + 1) * sizeof(int32_t));
    if (S->nofs > 0) memcpy(P->ofs, S->ofs, (size_t)S->nofs * sizeof(int32_t));
    P->sp[P->nslices] = A->nnz;
    return hspmv_ok(err);
}

void hspmv_csrp_fill_slices(const hspmv_csr *A, const hspmv_csrp_set *S, hspmv_csrp *P, int64_t s0,
                            int64_t s1)
{
    const int64_t *rp = A->rowptr;
    int last = -1; /* the pattern of the row before, to skip the hash on runs */
    for (int64_t s = s0; s < s1; s++) {
        int64_t a = s * HSPMV_CSRP_G, b = a + HSPMV_CSRP_G < A->nrows ? a + HSPMV_CSRP_G : A->nrows;
        int uniform = b - a == HSPMV_CSRP_G;
        for (int64_t i = a; i < b; i++) {
            int p = last >= 0 && same_row(S, last, A, i) ? last : hspmv_csrp_set_find_row(S, A, i);
            P->pid[i] = (uint8_t)p;
            uniform &= p == P->pid[a];
            last = p;
        }
        P->sp[s] = rp[a];
        P->spat[s] = uniform ? P->pid[a] : HSPMV_CSRP_MIXED;
        if (uniform) { /* entry j of row a+r at sp + j*G + r */
            int64_t len = rp[a + 1] - rp[a];
            for (int64_t r = 0; r < HSPMV_CSRP_G; r++)
                for (int64_t j = 0; j < len; j++) P->val[rp[a] + j * HSPMV_CSRP_G + r] = A->val[rp[a + r] + j];
        } else if (rp[b] > rp[a]) {
            memcpy(P->val + rp[a], A->val + rp[a], (size_t)(rp[b] - rp[a]) * sizeof(hspmv_real));
        }
    }
}

void hspmv_csrp_count_mixed(hspmv_csrp *P)
{
    int64_t m = 0;
    for (int64_t s = 0; s < P->nslices; s++) m += P->spat[s] == HSPMV_CSRP_MIXED;
    P->nmixed = m;
}

int hspmv_csrp_from_csr(const hspmv_csr *A, hspmv_csrp *P, hspmv_error *err)
{
    hspmv_csrp_set *S;
    int rc;
    memset(P, 0, sizeof(*P));
    S = hspmv_malloc(sizeof(*S));
    if (!S) return hspmv_err(err, HSPMV_ERR_NOMEM, "CSRP conversion: out of memory");
    rc = hspmv_csrp_patterns(A, S);
    if (rc < 0) {
        hspmv_free(S);
        return hspmv_err(err, HSPMV_ERR_NOMEM, "CSRP conversion: out of memory");
    }
    if (rc == 0) {
        hspmv_free(S);
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED,
                         "CSRP: the matrix has more than %d row patterns or %d offsets in them",
                         HSPMV_CSRP_MAXPAT, HSPMV_CSRP_MAXOFS);
    }
    rc = hspmv_csrp_alloc(A, S, P, err);
    if (rc == HSPMV_OK) {
        hspmv_csrp_fill_slices(A, S, P, 0, P->nslices);
        hspmv_csrp_count_mixed(P);
    }
    hspmv_free(S);
    return rc == HSPMV_OK ? hspmv_ok(err) : rc;
}

double hspmv_csrp_bytes(const hspmv_csrp *P)
{
    double r = sizeof(hspmv_real);
    double mixed_rows = (double)P->nmixed * HSPMV_CSRP_G;
    if (mixed_rows > (double)P->nrows) mixed_rows = (double)P->nrows;
    return (double)P->nnz * r + mixed_rows + (double)P->nslices * (8 + 2) +
           (double)(P->npat > 0 ? P->start[P->npat] : 0) * 4 + (double)(P->npat + 1) * 4 +
           (double)P->ncols * r + (double)P->nrows * r;
}

void hspmv_csrp_free(hspmv_csrp *P)
{
    if (!P) return;
    hspmv_free(P->start);
    hspmv_free(P->ofs);
    hspmv_free(P->pid);
    hspmv_free(P->sp);
    hspmv_free(P->spat);
    hspmv_free(P->val);
    memset(P, 0, sizeof(*P));
}
