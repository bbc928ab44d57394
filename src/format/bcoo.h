/* bcoo.h — blocked COO: tiles with 8- or 16-bit local row/column offsets.

   Layout. Rows are cut into tile rows of tile_h rows (tile row r covers rows
   [r*tile_h, min((r+1)*tile_h, nrows))), columns into blocks of tile_w
   columns; a tile is one nonempty (tile row, column block) pair. Tiles are
   stored tile row by tile row, blocks ascending, so a thread that owns a range
   of tile rows owns a disjoint range of y. tile_h and tile_w are at most
   65536, so every offset fits 16 bits.

   A tile's origin (trow0, tcol0) is the smallest row and the smallest column
   among its entries. Its width flag twidth is 1 when every entry lies in the
   256 x 256 box from the origin (uint8 offsets), else 2 (uint16 offsets).
   Its index bytes start at idx + toff[t] (even): n local rows, then n local
   columns, each twidth bytes, n = tptr[t+1] - tptr[t] >= 1. Entries are
   sorted by row, then column; their values are val[tptr[t] .. tptr[t+1]).

   Bytes per nonzero: sizeof(hspmv_real) for the value plus 2 (uint8 tile) or
   4 (uint16 tile) of offsets, plus 25 bytes per tile and 8 per tile row
   (hspmv_bcoo_index_bytes counts all but the values). CSR needs 4 + 8/k
   index bytes for k nonzeros per row. */
#ifndef HSPMV_BCOO_H
#define HSPMV_BCOO_H

#include "hspmv.h"

#define HSPMV_BCOO_MAX_TILE 65536
#define HSPMV_BCOO_MAX_XPF 1024

typedef struct hspmv_bcoo {
    int64_t nrows, ncols; /* matrix size */
    int64_t nnz;          /* stored values */
    int32_t tile_h;       /* rows per tile row, 1..65536 */
    int32_t tile_w;       /* columns per column block, 1..65536 */
    int xpf;              /* x prefetch distance of the kernels in entries, 0 (none, as
                             converted) .. HSPMV_BCOO_MAX_XPF: the caller sets it */
    int64_t ntr;          /* tile rows, ceil(nrows / tile_h) */
    int64_t ntiles;       /* nonempty tiles */
    int64_t nidx;         /* bytes in idx (without the 64 bytes of padding) */
    int64_t *trptr;       /* ntr+1 entries: first tile of each tile row, starts at 0 */
    int64_t *tptr;        /* ntiles+1 entries: first value of each tile, starts at 0 */
    int64_t *toff;        /* ntiles entries: byte offset of the tile's offsets in idx, even */
    int32_t *trow0;       /* ntiles entries: tile origin row, 0-based, absolute */
    int32_t *tcol0;       /* ntiles entries: tile origin column, 0-based, absolute */
    uint8_t *twidth;      /* ntiles entries: 1 (uint8 offsets) or 2 (uint16 offsets) */
    uint8_t *idx;         /* nidx+64 bytes: per tile, n local rows then n local columns */
    hspmv_real *val;      /* nnz entries, tile by tile, row then column within a tile */
} hspmv_bcoo;

/* Builds the blocked COO form of A (a copy; A is unchanged), choosing the
   tile shape that moves the fewest index bytes among a few candidates
   (see hspmv_bcoo_choose_shape). Not collective. */
int hspmv_bcoo_from_csr(const hspmv_csr *A, hspmv_bcoo *B, hspmv_error *err);

/* The same with a given tile shape: tile_h rows by tile_w columns, each in
   1..65536. HSPMV_ERR_ARG for a shape out of range. */
int hspmv_bcoo_from_csr_shape(const hspmv_csr *A, int32_t tile_h, int32_t tile_w, hspmv_bcoo *B,
                              hspmv_error *err);

/* The shape hspmv_bcoo_from_csr uses for A: the candidate (16384 x 65536,
   4096 x 4096, 256 x 256) with the fewest index bytes, ties to the larger;
   tile rows are first cut to at most max(256, nrows/256) rows (a power of
   two) so that there are ~256 tile rows to share among threads. */
void hspmv_bcoo_choose_shape(const hspmv_csr *A, int32_t *tile_h, int32_t *tile_w);

/* Index bytes the shape would take for A (as hspmv_bcoo_index_bytes would
   report after the conversion); -1 when out of memory. */
int64_t hspmv_bcoo_shape_bytes(const hspmv_csr *A, int32_t tile_h, int32_t tile_w);

/* Bytes of everything but the values that one product reads: offsets,
   tile origins, pointers and width flags. For the benchmark's bytes formula
   (bytes = index + nnz*sizeof(hspmv_real) + x and y traffic). */
int64_t hspmv_bcoo_index_bytes(const hspmv_bcoo *B);

/* Splits the tile rows into nchunks ranges balanced by nonzeros: chunk c is
   tile rows [start[c], start[c+1]), start has nchunks+1 entries, start[0] = 0,
   start[nchunks] = ntr. Chunks may be empty. */
void hspmv_bcoo_chunks(const hspmv_bcoo *B, int nchunks, int64_t *start);

/* Rows covered by tile rows [t0, t1): [*r0, *r1). */
void hspmv_bcoo_rows(const hspmv_bcoo *B, int64_t t0, int64_t t1, int64_t *r0, int64_t *r1);

/* Frees the arrays of *B and zeroes it; accepts a zeroed B. */
void hspmv_bcoo_free(hspmv_bcoo *B);

#endif
