/* gen_rows.h — the generated test matrices (genmat's kinds) one row at a
   time: genmat writes them to a file, benchmark-mpi and solve (--gen) make
   each rank's own rows in place. A row depends only on the kind, the size,
   the options, the seed and its number, so any split into ranks gives the
   same matrix as the file. */
#ifndef HSPMV_GEN_ROWS_H
#define HSPMV_GEN_ROWS_H

#include <stdint.h>

typedef struct gen_spec {
    const char *kind; /* lap2d, lap3d, lap3d27, fem3d, banded, blocks, random, powerlaw */
    int64_t n;        /* SIZE: grid side, or rows */
    int64_t k, w, dof; /* random/powerlaw entries per row (mean), band half-width or block size, fem3d unknowns per node */
    double alpha;     /* powerlaw exponent */
    int sym;          /* lower triangle only (symmetric kinds) */
    int realv;        /* --values random */
    int stream;       /* random kinds: one generator stream through all rows in order (genmat --rng stream,
                         as genmat drew them before rows had their own seeds); 0: a seed per row */
    uint64_t seed;
    /* kept by gen_prepare / gen_row */
    uint64_t rng_state, val_state;
    int32_t *fem_num, *fem_node;
} gen_spec;

/* One row: columns ascending and their values; grown by gen_row as needed. */
typedef struct gen_buf {
    int64_t *cols;
    double *vals;
    int64_t cap;
} gen_buf;

/* genmat's defaults: k 8, width 32, dof 3, alpha 2.1, seed 42, stencil values, a seed per row. */
void gen_default(gen_spec *s);

/* The kind's class: 's' stencil (lap2d, lap3d, lap3d27), 'f' fem3d, 'b' banded or blocks,
   'r' random or powerlaw, 0 unknown. */
int gen_class(const char *kind);

/* Rows of the matrix (square), or -1 when more than 2^31-1. */
int64_t gen_rows(const gen_spec *s);

/* Before the first row, and again to replay the rows from the start (a
   count pass, then the write pass): resets the streams; fem3d's numbering
   is made on the first call. Returns 0, or -1 out of memory. */
int gen_prepare(gen_spec *s);
void gen_release(gen_spec *s);

/* Row i into b (cols ascending; vals left alone when want_vals is 0).
   Returns its entry count, or -1 out of memory. With s->stream rows must
   come in order from 0 after gen_prepare, and the call is not thread-safe;
   otherwise any row in any order, from any thread (s is only read). */
int64_t gen_row(gen_spec *s, int64_t i, gen_buf *b, int want_vals);

void gen_buf_free(gen_buf *b);

/* Room for rows of up to need entries in b; 0, or -1 out of memory. */
int gen_buf_reserve(gen_buf *b, int64_t need);

/* Significant digits genmat writes a value that is not an integer with:
   8 (the m/256 values are exact in 8), 9 with --values random. */
int gen_digits(const gen_spec *s);

/* v as it reads back from genmat's file: integers as they are, other
   values rounded to gen_digits decimal digits (printf, then strtod), so
   that rows made in place equal the file's. */
double gen_as_written(const gen_spec *s, double v);

#endif
