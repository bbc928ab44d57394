/* panels.h — PANELS: CSR for scattered columns, cut into column panels
   whose piece of x fits in the last-level cache, with x prefetched ahead
   of its gathers.

   Random and power-law matrices read x at random: every gather misses its
   own cache line, and a row-by-row kernel waits on one miss after another.
   Two things help: the kernels prefetch x[colind[k + xpf]] while they
   multiply entry k (the column indices are known ahead: the prefetches turn
   a chain of latencies into overlapping requests), and when x is larger
   than half the last-level cache (hspmv_local_panel_count: all threads
   read the same panel's piece at about the same time) the columns are
   split into npanels panels of width columns, multiplied one after another
   (y += the panel's part), so that each panel's piece of x stays in cache
   while all rows use it (the GPU path's column panels, src/gpu, are the
   same idea).

   Layout. Entries are stored panel by panel; panel p is a CSR over all
   rows: row i's entries of columns [p*width, (p+1)*width) at positions
   rp[p*(nrows+1) + i] .. rp[p*(nrows+1) + i + 1] of colind (absolute
   columns) and val, in column order. Row pointers are 32-bit (rowptr32)
   when nnz <= UINT32_MAX, else 64-bit (rowptr), as CSR16's. colind has
   HSPMV_PANELS_PAD zeros after its nnz entries, so the prefetches ahead of
   the last entries read nothing outside it.

   Bytes per product (hspmv_panels_bytes): nnz*(real+4) +
   npanels*(rows+1)*(4|8) + cols*real + rows*real*(2*npanels - 1) (every
   panel after the first reads and writes y again). */
#ifndef HSPMV_PANELS_H
#define HSPMV_PANELS_H

#include "hspmv.h"

#define HSPMV_PANELS_PAD 1024  /* zero columns after colind's entries */
#define HSPMV_PANELS_MAX 256   /* most panels */
#define HSPMV_PANELS_XPF 64    /* default prefetch distance of x, in entries */
#define HSPMV_PANELS_RBLOCK 8192 /* default rows per row block when npanels > 1 */

typedef struct hspmv_panels {
    int64_t nrows, ncols; /* matrix size */
    int64_t nnz;          /* stored values */
    int npanels;          /* 1..HSPMV_PANELS_MAX */
    int64_t width;        /* columns per panel (the last may have fewer) */
    int xpf;              /* x prefetch distance in entries, 0 (none) .. PAD - 64 */
    int64_t rblock;       /* rows multiplied through every panel before the next rows (0: all) */
    uint32_t *rowptr32;   /* npanels*(nrows+1) entries when nnz <= UINT32_MAX, else NULL */
    int64_t *rowptr;      /* the same in 64 bits when rowptr32 is NULL, else NULL */
    int32_t *colind;      /* nnz + HSPMV_PANELS_PAD entries */
    hspmv_real *val;      /* nnz entries (at least 1 allocated) */
} hspmv_panels;

/* Allocates P for A in npanels panels (1..HSPMV_PANELS_MAX; the width is
   ceil(ncols/npanels)) with prefetch distance xpf (clamped to 0..PAD-64),
   without filling it; then the entries of ranges of rows that cover
   [0, nrows) are placed by hspmv_panels_fill_rows, e.g. one range per
   thread, each first-touching its own rows. HSPMV_ERR_ARG for a bad count. */
int hspmv_panels_alloc(const hspmv_csr *A, int npanels, int xpf, hspmv_panels *P, hspmv_error *err);

/* cnt[p] += the entries of rows [r0, r1) of A in panel p of P. */
void hspmv_panels_count(const hspmv_csr *A, const hspmv_panels *P, int64_t r0, int64_t r1, int64_t *cnt);

/* Places rows [r0, r1) of A: at[p] is where row r0 starts in panel p (the
   entries of all panels before p, plus panel p's entries of rows before
   r0). Writes the row pointers r0..r1-1 of every panel (and entry nrows
   when r1 == nrows), columns and values. */
void hspmv_panels_fill_rows(const hspmv_csr *A, hspmv_panels *P, int64_t r0, int64_t r1, const int64_t *at);

/* Builds the panel form of A (a copy) with npanels panels and distance xpf. */
int hspmv_panels_from_csr(const hspmv_csr *A, int npanels, int xpf, hspmv_panels *P, hspmv_error *err);

/* 1 when most of A's entries (a sample of up to 65536) lie more than 65536
   columns from their row: random and power-law matrices, not stencils or
   bands, whose x is read in streams the hardware prefetches. */
int hspmv_panels_scattered(const hspmv_csr *A);

/* Bytes one y = A*x moves by the model above. */
double hspmv_panels_bytes(const hspmv_panels *P);

/* Frees the arrays of *P and zeroes it; accepts a zeroed P. */
void hspmv_panels_free(hspmv_panels *P);

#endif
