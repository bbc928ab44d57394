/* bench_out.h — the programs' output files: each is written under a
   temporary name in the target's folder and renamed over the target only
   when complete, so that a failed run never leaves half a file or loses the
   one that was there; an output that is one of the inputs is refused first. */
#ifndef HSPMV_BENCH_OUT_H
#define HSPMV_BENCH_OUT_H

#include <stddef.h>
#include <stdio.h>

enum { BO_PATH_MAX = 4096 };

/* Exit statuses bo_open returns: 2 for an output refused before any work
   (the same file as an input, a folder, '-', a path that cannot be
   created), as for a bad argument. */
enum { BO_REFUSED = 2 };

/* How an output is opened. */
enum {
    BO_STREAM = 1, /* a stream for bo_write/bo_printf (else the caller writes bo_name(o) by name) */
    BO_GZIP = 2,   /* the stream is gzip-compressed (a build without zlib refuses) */
    BO_APPEND = 4  /* the temporary file starts as a copy of the target (CSV files) */
};

typedef struct bo_file {
    const char *label;     /* how messages name it: "--out", "-o", "--csv", "" */
    const char *name;      /* the path as given (messages) */
    char path[BO_PATH_MAX];/* the target, a symbolic link followed */
    char tmp[BO_PATH_MAX]; /* the temporary name; "" when written in place (a device, a pipe) */
    FILE *f;               /* the stream (BO_STREAM without BO_GZIP) */
    void *gz;              /* the gzip stream (BO_GZIP) */
    int err;               /* errno of the first failed write, 0 when none */
    int open;              /* 1 between bo_open and bo_commit/bo_abort */
} bo_file;

/* Opens the output PATH before any work. inputs[0..nin) are the files the
   run reads (NULL or unreadable entries are skipped): PATH naming the same
   file (same device and inode, whatever the spelling: a hard or symbolic
   link, ./name) is refused. A regular file (or no file yet) is written
   under a temporary name beside it (".NAME.XXXXXX", the target's mode, or
   0666 less the umask for a new file); a device, a pipe or a socket is
   written in place and never removed. "-" is refused (a file named '-' is
   ./-). Returns 0, or BO_REFUSED with "LABEL PATH: why" in msg. */
int bo_open(bo_file *o, const char *label, const char *path, const char *const *inputs, int nin, int flags,
            char *msg, size_t n);

/* The name to write by name (no BO_STREAM): the temporary one, or the
   target itself when written in place. */
const char *bo_name(const bo_file *o);

/* Writes to the stream; a failure is kept (o->err) and reported by
   bo_commit. Return 0 or -1. */
int bo_write(bo_file *o, const void *buf, size_t len);
int bo_printf(bo_file *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Flushes, syncs and closes the stream and renames the temporary file over
   the target. Returns 0, or 1 with "writing PATH: why" in msg, the
   temporary file removed and the target as it was. */
int bo_commit(bo_file *o, char *msg, size_t n);

/* Closes and removes the temporary file only (never the target). */
void bo_abort(bo_file *o);

#endif
