/* io.h — private to src/io: the line source (plain or gzip, file or memory),
   the banner/size-line parser and (through mtx_number.h) the number
   scanners of the Matrix Market reader. */
#ifndef HSPMV_IO_H
#define HSPMV_IO_H

#include <stddef.h>
#include <stdint.h>
#include "util.h"
#include "matrix_files.h" /* hspmv_coo, HSPMV_GENERAL, HSPMV_FIELD_* */

#ifndef HSPMV_NO_ZLIB
#define ZLIB_CONST
#include <zlib.h>
#endif

/* ---- the line source ------------------------------------------------------ */

/* Bytes of text handed out per block (tests shrink it to cross block edges
   everywhere; it is a test hook, not a tuning knob). */
extern size_t hspmv_io_chunk_bytes;

/* Longest line accepted: a longer one is not Matrix Market. */
#define MTX_MAX_LINE ((size_t)64 << 20)

typedef struct mtx_source {
    const char *name;           /* file name for messages */
    hspmv_error *err;
    int fd;                     /* -1 for a buffer in memory */
    const unsigned char *mem;   /* buffer in memory, or NULL */
    size_t mem_len, mem_pos;
    unsigned char peek[2];      /* first bytes of an fd, read to detect gzip */
    size_t peek_len, peek_pos;
    int raw_eof;                /* raw input exhausted */
    int64_t raw_total;          /* raw bytes in all when they are the text, else -1 */
    int64_t raw_size;           /* raw bytes in all (compressed size for gzip), -1 if unknown */
    int gzip;                   /* 1: raw bytes are gzip, text comes from inflate */
#ifndef HSPMV_NO_ZLIB
    z_stream zs;
    int zs_live;                /* inflateInit2 done */
    int z_end;                  /* last gzip member ended */
    int z_failed;               /* a gzip fault found (reported by every later read) */
    char z_msg[512];            /* its message (hspmv_error.msg) */
    char z_text[400];           /* the same without the file and line */
    int64_t z_done;             /* text bytes of the gzip members before this one */
    unsigned char *zin;         /* compressed input from an fd */
#endif
    char *buf;                  /* text: [start, len) not yet handed out */
    size_t cap, len, start;
    int eof;                    /* text exhausted */
    int added_nl;               /* a newline was added after a last line without one */
    int64_t base;               /* stream offset of buf[0] */
    hspmv_progress_fn progress;
    void *progress_ctx;
    int64_t next_report;        /* stream offset of the next progress call */
    int reported_end;           /* the closing progress call was made */
    const int64_t *lines;       /* lines the reader has finished (messages name the next), or NULL */
    /* a byte range of a plain file (hspmv_mtx_source_open_range): raw bytes come by pread */
    int borrowed_fd;            /* 1: fd belongs to the caller (not closed here) */
    int pread_mode;             /* 1: raw bytes by pread at pos */
    int64_t pos;                /* pread_mode: file offset of the next raw read */
    int64_t range_cut;          /* >= 0: the text handed out ends at the first newline at or after this
                                   offset (the last line that starts in the range); -1: no range */
} mtx_source;

/* Opens a file (plain or gzip by magic bytes) / a buffer. On failure the
   source is closed and err says why. */
int hspmv_mtx_source_open_path(mtx_source *s, const char *path, const hspmv_read_opts *opts,
                         hspmv_error *err);
int hspmv_mtx_source_open_mem(mtx_source *s, const char *name, const void *buf, size_t len,
                        hspmv_error *err);
/* Opens the lines of a plain file that start in [begin, end): from the
   first line start at or after begin (begin itself when at_line_start) to
   the newline of the line that holds byte end-1. fd stays the caller's;
   file_size is the file's length (it sizes the blocks as a whole-file read
   does, so a line is refused as too long at the same length). */
int hspmv_mtx_source_open_range(mtx_source *s, const char *name, int fd, int64_t begin, int64_t end,
                          int at_line_start, int64_t file_size, hspmv_error *err);
/* Next run of whole lines: [*p, *end), with end[-1] == '\n' (a last line
   without newline gets one). *p == *end at the end of the text. */
int hspmv_mtx_source_next(mtx_source *s, const char **p, const char **end);
/* A gzip source whose text failed to parse: the rest is inflated (into a
   scratch buffer, to its end or 256 MiB of text) and a fault of the gzip data found on the way
   (corrupt, truncated, trailing garbage) is returned with its message, as
   the text's error is most likely its effect; HSPMV_OK for a plain source
   or an intact stream. Only after a failure: the text read stops there. */
int hspmv_mtx_source_gzip_verdict(mtx_source *s);
/* Raw bytes after the text position q (in the last block), -1 if unknown (gzip). */
int64_t hspmv_mtx_source_left(const mtx_source *s, const char *q);
/* Text bytes handed out so far. */
int64_t hspmv_mtx_source_bytes(const mtx_source *s);
void hspmv_mtx_source_close(mtx_source *s);

/* ---- banner and size line -------------------------------------------------- */

typedef struct mtx_header {
    int array;            /* 1: array (dense, column-major) format */
    int field;            /* HSPMV_FIELD_* */
    int symmetry;         /* HSPMV_GENERAL, ... */
    int64_t nrows, ncols;
    int64_t nnz;          /* entries the file must hold */
} mtx_header;

/* Line without its newline, for parsing header lines. */
typedef struct mtx_line {
    const char *s, *e;    /* [s, e), e points at '\n' */
    int64_t no;           /* 1-based line number */
} mtx_line;

/* 1 when the line is a banner (%%MatrixMarket or %MatrixMarket, any case). */
int hspmv_mtx_is_banner(const mtx_line *ln);
/* Parses the banner into h (format, field, symmetry). */
int hspmv_mtx_parse_banner(const char *name, const mtx_line *ln, mtx_header *h, hspmv_error *err);
/* Parses the size line into h (sizes and entry count). */
int hspmv_mtx_parse_size(const char *name, const mtx_line *ln, mtx_header *h, hspmv_error *err);
/* Writes at most ~40 chars of [s, e) into out (size >= 64), quoting-safe. */
void hspmv_mtx_quote(char *out, const char *s, const char *e);

/* ---- the reader (mtx_read.c), shared with the range reader (mtx_range.c) ---- */

enum { MTX_AT_BANNER, MTX_AT_SIZE, MTX_AT_ENTRIES };

typedef struct mtx_reader {
    const char *name;
    hspmv_error *err;
    mtx_source src;
    mtx_header h;
    int state;          /* MTX_AT_BANNER, MTX_AT_SIZE, MTX_AT_ENTRIES */
    int64_t line;       /* number of the line being (or last) read */
    int64_t k, cap;     /* entries stored, room in the arrays */
    int64_t limit;      /* most entries that may be stored: the declared count, or
                           what is left of it for a byte range */
    int32_t *row, *col;
    hspmv_real *val;
    int64_t ai, aj;     /* array format: 0-based place of the next value */
    int64_t short_left; /* >= 0: bytes after the size line, too few for the declared count */
    int header_only;    /* stop after the size line (hspmv_mtx_read_prologue) */
    int64_t data_offset; /* header_only: file offset just after the size line's newline */
} mtx_reader;

/* Zeroes R and names the file for messages. */
void hspmv_mtx_reader_init(mtx_reader *R, const char *name, hspmv_error *err);
/* Reads R->src to its end: header lines (unless R->state is already
   MTX_AT_ENTRIES) and entry lines; with end_checks, the faults only the
   end of the whole text shows (no banner, no size line, too few entries). */
int hspmv_mtx_read_text(mtx_reader *R, int end_checks);
/* Room for cap entries (the k stored ones kept). */
int hspmv_mtx_reader_alloc(mtx_reader *R, int64_t cap);
/* The file ended after k entries and `lines` lines, fewer than h declares:
   the message the whole-file read gives (short_left >= 0: the bytes after
   the size line could never hold the count). */
int hspmv_mtx_fault_too_few(const char *name, const mtx_header *h, int64_t k, int64_t lines, int64_t short_left,
                      hspmv_error *err);
/* Shortest entry line of the kind in bytes, its newline included. */
int hspmv_mtx_min_entry_bytes(const mtx_header *h);

/* Refuses (HSPMV_ERR_NOMEM with both figures, naming name:line) a matrix of
   h's shape with nnz entries when this process cannot be given what reading
   it takes: triplets, the CSR (symmetric kinds mirrored), x and y. */
int hspmv_mtx_check_memory(const mtx_header *h, int64_t nnz, const char *name, int64_t line, hspmv_error *err);

/* ---- byte ranges of one plain file (mtx_range.c) ------------------------------ */

/* What is read once, before the ranges: the banner, the comments and the size line. */
typedef struct mtx_prologue {
    mtx_header h;
    int64_t data_offset;  /* file offset just after the size line (file_size + 1 when the size
                             line is the last line and has no newline) */
    int64_t lines;        /* lines up to and including the size line */
    int64_t file_size;    /* bytes in the file */
    int splittable;       /* 1: a plain regular file, read in ranges; 0: read it whole */
    const char *whole_why; /* splittable 0: "gzip" (a compressed stream cannot be split),
                              "not a regular file" */
} mtx_prologue;

/* Reads the prologue of path. A path that is not a plain regular file (gzip,
   a pipe, missing) gives HSPMV_OK with splittable 0 and nothing read beyond
   two bytes, so the whole-file reader can take it and give its own errors.
   A fault in the prologue is the whole-file reader's message. */
int hspmv_mtx_read_prologue(const char *path, mtx_prologue *pr, hspmv_error *err);

/* Byte range [begin, end) of piece i of n (0 <= i < n) of [lo, hi): even
   shares, or every `chunk` bytes when chunk > 0 (the last piece takes the
   rest; a test knob, HSPMV_TEST's read_chunk, that puts the cuts where tests want). */
void hspmv_mtx_split(int64_t lo, int64_t hi, int64_t chunk, int i, int n, int64_t *begin, int64_t *end);
/* HSPMV_TEST's read_chunk (bytes per range, tests; settings.h), 0 when unset. */
int64_t hspmv_mtx_read_chunk_env(void);

/* One range's entries, in file order. */
typedef struct mtx_piece {
    int32_t *row, *col;   /* 0-based (array files: placed by hspmv_mtx_array_place) */
    hspmv_real *val;
    int64_t nnz;          /* entries stored (up to the fault when rc != OK) */
    int64_t lines;        /* lines that start in the range (all of them when rc == OK) */
    int64_t bytes;        /* text bytes of the lines it read */
    int rc;               /* HSPMV_OK or the first fault's status */
} mtx_piece;

/* Called now and then with the file offset a range has read up to (and the
   file size); the hspmv_progress_fn signature. */
typedef hspmv_progress_fn mtx_range_progress_fn;

/* Parses the lines that start in [begin, end) of fd (the file the prologue
   was read from; begin == pr->data_offset is a line start), counting lines
   from first_line (lines before the range) and storing at most cap entries
   (the (cap+1)-th is the "found one more" fault). With first_line wrong the
   entries and counts are still right, only a message's line is not: the
   callers parse every range with a guess, then re-parse the one whose fault
   comes first with its true first line (hspmv_mtx_decide). Returns p->rc; err
   holds the fault. p's arrays are freed on failure unless keep_on_fault. */
int hspmv_mtx_read_range(const char *name, int fd, const mtx_prologue *pr, int64_t begin, int64_t end,
                   int64_t first_line, int64_t cap, int keep_on_fault, mtx_range_progress_fn progress,
                   void *progress_ctx, mtx_piece *p, hspmv_error *err);
void hspmv_mtx_piece_free(mtx_piece *p);

/* Array files: row and col of the n values that follow the k0 values before them. */
void hspmv_mtx_array_place(const mtx_header *h, int64_t k0, int32_t *row, int32_t *col, int64_t n);

/* What each range gave, in file order, for hspmv_mtx_decide. */
typedef struct mtx_outcome {
    int64_t lines, nnz;
    int failed;
} mtx_outcome;

/* The fault a whole-file read reports first, from the ranges' outcomes:
   kind MTX_FIRST_NONE (the file is good), MTX_FIRST_PIECE (re-parse range
   `piece` from line first_line with cap entries: it gives the message), or
   MTX_FIRST_END (too few entries: hspmv_mtx_fault_too_few with the totals).
   first_line and entries_before are also set for every range (arrays of n
   when not NULL: exclusive scans of lines and entries). */
enum { MTX_FIRST_NONE = 0, MTX_FIRST_PIECE, MTX_FIRST_END };
typedef struct mtx_first {
    int kind;
    int64_t piece, first_line, cap;
    int64_t total_lines, total_nnz;
} mtx_first;
void hspmv_mtx_decide(const mtx_prologue *pr, const mtx_outcome *o, int64_t n, mtx_first *f);
/* MTX_FIRST_END's message. */
int hspmv_mtx_fault_end(const char *name, const mtx_prologue *pr, const mtx_first *f, hspmv_error *err);

/* ---- numbers: the scanners (mtx_number.h) --------------------------------- */

#include "mtx_number.h"

#endif
