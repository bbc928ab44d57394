/* csrp.h — CSRP: each row stored as a pattern id (its columns as offsets
   from the row, kept once in a small table) and its values, in slices of G
   rows whose values interleave when the G rows share one pattern.

   Stencil and structured-grid matrices have few distinct rows once columns
   are written relative to the row: a 3D 7-point stencil has 27 patterns
   (interior, faces, edges, corners) whatever its size, so its column
   indices cost well under a byte per nonzero, where CSR16 cannot hold its
   offsets of +-n^2 and CSR spends 4 bytes.

   Layout. Row i's columns are i + off[j] for the offsets of its pattern p =
   pid[i]: ofs[start[p] .. start[p+1]), ascending. The table holds npat <=
   256 patterns (HSPMV_CSRP_MAXPAT) with at most HSPMV_CSRP_MAXOFS offsets
   in all, sorted by length and then offsets, so ids do not depend on how
   many threads built them. Rows are cut into slices of G rows
   (HSPMV_CSRP_G: 8 in double, 16 in single, the widest SIMD width); slice s
   holds rows [s*G, min(s*G+G, nrows)) and its values start at sp[s] (=
   the CSR row pointer of its first row). A slice whose G rows all share
   pattern p is uniform, spat[s] = p, and stores its values entry-major:
   entry j of row s*G+r at val[sp[s] + j*G + r], so a kernel multiplies the
   G rows at once with contiguous loads of x at s*G + off[j] and no gathers
   or horizontal sums. Any other slice (a pattern change inside it, the last
   short slice) has spat[s] = HSPMV_CSRP_MIXED and stores its rows one after
   another as CSR does; only its rows' pid bytes are read.

   Bytes per product (hspmv_csrp_bytes): nnz*real + (rows of mixed slices)*1
   + slices*(8+2) + table (4 per offset, 4 per pattern) + cols*real +
   rows*real. 7-point stencil 200^3, double: about 73 B per row against
   CSR's 108 and a 32-bit CSR's 104. */
#ifndef HSPMV_CSRP_H
#define HSPMV_CSRP_H

#include "hspmv.h"

#define HSPMV_CSRP_MAXPAT 256    /* patterns a 1-byte id names */
#define HSPMV_CSRP_MAXOFS 16384  /* offsets of all patterns together (64 KiB: stays in L2) */
#define HSPMV_CSRP_SLOTS 1024    /* hash slots of a pattern set: a power of 2, >= 2*MAXPAT */
#define HSPMV_CSRP_MIXED 0xFFFF  /* spat of a slice that is not uniform */
#ifdef HSPMV_SINGLE
#define HSPMV_CSRP_G 16 /* rows per slice */
#else
#define HSPMV_CSRP_G 8
#endif

typedef struct hspmv_csrp {
    int64_t nrows, ncols; /* matrix size */
    int64_t nnz;          /* stored values */
    int64_t nslices;      /* ceil(nrows / G) */
    int64_t nmixed;       /* mixed slices */
    int npat;             /* patterns in the table, 0..256 */
    int32_t *start;       /* npat+1 entries: pattern p is ofs[start[p] .. start[p+1]) */
    int32_t *ofs;         /* start[npat] entries (at least 1 allocated): column - row */
    uint8_t *pid;         /* nrows entries: each row's pattern */
    int64_t *sp;          /* nslices+1 entries: first value of each slice, sp[nslices] = nnz */
    uint16_t *spat;       /* nslices entries: the slice's pattern, or HSPMV_CSRP_MIXED */
    hspmv_real *val;      /* nnz entries, slice by slice */
    int stream_y;         /* 1: y = A*x stores uniform slices' results with streaming stores
                             (0 from the conversion; the local layer sets it, local_compress.c) */
} hspmv_csrp;

/* A set of at most 256 row patterns: open addressing over hash slots, the
   offsets in one pool. About 70 KiB; one per thread when patterns are
   collected in parallel (local_build_csrp.c), merged afterwards. */
typedef struct hspmv_csrp_set {
    int n;                                /* patterns held, <= 256 */
    int32_t nofs;                         /* offsets held, <= MAXOFS */
    int last;                             /* the pattern found or added last (-1: none) */
    int16_t slot[HSPMV_CSRP_SLOTS];       /* -1: empty, else pattern index */
    uint64_t hash[HSPMV_CSRP_MAXPAT];     /* each pattern's hash */
    int32_t start[HSPMV_CSRP_MAXPAT + 1]; /* pattern p: ofs[start[p] .. start[p+1]) */
    int32_t ofs[HSPMV_CSRP_MAXOFS];
} hspmv_csrp_set;

/* Empties S. */
void hspmv_csrp_set_clear(hspmv_csrp_set *S);

/* The index of the pattern of row i of A (its columns minus i) in S, added
   when S lacks it; -1 when it would not fit (257th pattern or too many
   offsets; S is then unchanged). */
int hspmv_csrp_set_add_row(hspmv_csrp_set *S, const hspmv_csr *A, int64_t i);

/* The index of row i's pattern in S, or -1 when S lacks it. */
int hspmv_csrp_set_find_row(const hspmv_csrp_set *S, const hspmv_csr *A, int64_t i);

/* Adds T's patterns to S; 1, or 0 when the union does not fit. */
int hspmv_csrp_set_merge(hspmv_csrp_set *S, const hspmv_csrp_set *T);

/* Sorts S's patterns by length, then offsets, and renumbers. 1, or 0 when
   out of memory (S unchanged). */
int hspmv_csrp_set_sort(hspmv_csrp_set *S);

/* Collects the patterns of A's rows into S, sorted. Returns 1, 0 (S
   incomplete) when A has more than fits, -1 when out of memory. */
int hspmv_csrp_patterns(const hspmv_csr *A, hspmv_csrp_set *S);

/* Builds the CSRP form of A (a copy; A is unchanged). HSPMV_ERR_UNSUPPORTED
   when A's patterns do not fit the table. */
int hspmv_csrp_from_csr(const hspmv_csr *A, hspmv_csrp *P, hspmv_error *err);

/* Allocates the arrays of P for A without filling them and copies the table
   from S (every pattern of A, sorted); then hspmv_csrp_fill_slices on
   ranges of slices that cover [0, nslices) fills them, e.g. one range per
   thread so that each thread first-touches its own slices. */
int hspmv_csrp_alloc(const hspmv_csr *A, const hspmv_csrp_set *S, hspmv_csrp *P, hspmv_error *err);

/* Fills slices [s0, s1) of P from A (pattern ids, slice pointers and kinds,
   values); S is the set P's table came from. */
void hspmv_csrp_fill_slices(const hspmv_csr *A, const hspmv_csrp_set *S, hspmv_csrp *P, int64_t s0,
                            int64_t s1);

/* Counts the mixed slices into P->nmixed (after the fill). */
void hspmv_csrp_count_mixed(hspmv_csrp *P);

/* Bytes one y = A*x moves by the model above. */
double hspmv_csrp_bytes(const hspmv_csrp *P);

/* Frees the arrays of *P and zeroes it; accepts a zeroed P. */
void hspmv_csrp_free(hspmv_csrp *P);

#endif
