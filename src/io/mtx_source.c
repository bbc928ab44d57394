/* mtx_source.c — text of a Matrix Market file in blocks of whole lines, from
   a file descriptor or a buffer, plain or gzip (told by the magic bytes). */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC under a strict -std=c11 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io.h"

size_t hspmv_io_chunk_bytes = (size_t)1 << 20;

#define ZIN_BYTES ((size_t)256 << 10)
#define PROGRESS_STEP ((int64_t)16 << 20)
#define GZIP_VERDICT_BYTES ((int64_t)256 << 20) /* text hspmv_mtx_source_gzip_verdict inflates at most */
#define MTX_FIFO_WAIT_S 2.0 /* seconds a FIFO without a writer is given to get one */

/* "NAME:LINE: text" with LINE the line where the text stops: the reader
   has finished *lines lines and parsed nothing of buf[0, len) yet, to
   which `extra` new bytes were just added. Every fault says where. */
__attribute__((cold, noinline, format(printf, 4, 5)))
static int src_fail(mtx_source *s, size_t extra, int code, const char *fmt, ...)
{
    char text[400];
    int64_t line = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
#ifndef HSPMV_NO_ZLIB
    memcpy(s->z_text, text, sizeof(text));
#endif
    if (s->lines) {
        line = *s->lines + 1;
        for (size_t k = 0; s->buf && k < s->len + extra; k++) line += s->buf[k] == '\n';
    }
    return hspmv_err_file(s->err, code, s->name, line, "%s", text);
}

/* Raw (maybe compressed) bytes into dst; 0 at the end, -1 on a read error. */
static ptrdiff_t raw_read(mtx_source *s, unsigned char *dst, size_t n)
{
    size_t got = 0;
    if (s->mem) {
        size_t left = s->mem_len - s->mem_pos;
        if (n > left) n = left;
        memcpy(dst, s->mem + s->mem_pos, n);
        s->mem_pos += n;
        return (ptrdiff_t)n;
    }
    while (s->peek_pos < s->peek_len && got < n) dst[got++] = s->peek[s->peek_pos++];
    while (got < n) {
        size_t want = n - got > ((size_t)1 << 30) ? (size_t)1 << 30 : n - got;
        ssize_t r = s->pread_mode ? pread(s->fd, dst + got, want, (off_t)s->pos) : read(s->fd, dst + got, want);
        if (r > 0 && s->pread_mode) s->pos += r;
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno; /* the text read into buf so far counts for the line number */
            src_fail(s, s->buf && dst == (unsigned char *)s->buf + s->len ? got : 0, HSPMV_ERR_IO, "read failed: %s",
                     strerror(e));
            return -1;
        }
        if (r == 0) break;
        got += (size_t)r;
        if (got > 0) break; /* hand out what a read gave; the caller loops */
    }
    return (ptrdiff_t)got;
}

#ifndef HSPMV_NO_ZLIB
static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    (void)opaque;
    return hspmv_alloc_array(items, size);
}

static void z_free(voidpf opaque, voidpf p)
{
    (void)opaque;
    hspmv_free(p);
}

/* Feeds zs more compressed input, keeping the avail_in bytes not yet used
   in front (a gzip magic split across two reads); sets raw_eof when no
   more comes. */
static int z_feed(mtx_source *s)
{
    size_t keep = s->zs.avail_in;
    if (s->mem) {
        size_t left = s->mem_len - s->mem_pos;
        if (left > ((size_t)1 << 30)) left = (size_t)1 << 30;
        s->zs.next_in = s->mem + s->mem_pos - keep;
        s->zs.avail_in = (uInt)(left + keep);
        s->mem_pos += left;
        if (left == 0) s->raw_eof = 1;
        return HSPMV_OK;
    }
    if (keep) memmove(s->zin, s->zs.next_in, keep);
    ptrdiff_t r = raw_read(s, s->zin + keep, ZIN_BYTES - keep);
    if (r < 0) return HSPMV_ERR_IO;
    s->zs.next_in = s->zin;
    s->zs.avail_in = (uInt)(keep + (size_t)r);
    if (r == 0) s->raw_eof = 1;
    return HSPMV_OK;
}

/* Text bytes inflated so far (members before this one, and this one's). */
static int64_t z_text_at(const mtx_source *s) { return s->z_done + (int64_t)s->zs.total_out; }

/* After a member's end: another member, or only zero bytes (padding, which
   gzip(1) skips too) to the end; anything else is refused, not dropped. */
static int z_after_member(mtx_source *s, size_t extra)
{
    for (;;) {
        if (s->zs.avail_in < 2 && !s->raw_eof && z_feed(s) != HSPMV_OK) return HSPMV_ERR_IO;
        if (s->zs.avail_in >= 2 && s->zs.next_in[0] == 0x1f && s->zs.next_in[1] == 0x8b) {
            s->z_done += (int64_t)s->zs.total_out;
            inflateReset(&s->zs);
            return HSPMV_OK;
        }
        for (uInt i = 0; i < s->zs.avail_in; i++)
            if (s->zs.next_in[i])
                return src_fail(s, extra, HSPMV_ERR_FORMAT,
                                "corrupt gzip data: trailing bytes after the gzip data ends (%lld bytes of text), "
                                "neither another gzip member nor zero padding", (long long)z_text_at(s));
        s->zs.avail_in = 0;
        if (s->raw_eof) {
            s->z_end = 1;
            return HSPMV_OK;
        }
    }
}

/* Inflates into dst until it is full or the text ends; *got bytes. */
static int z_inflate(mtx_source *s, unsigned char *dst, size_t n, size_t *got)
{
    int rc = HSPMV_OK;
    *got = 0;
    if (s->z_failed) { /* the fault found before, message and all */
        if (s->err) hspmv_err(s->err, s->z_failed, "%s", s->z_msg);
        return s->z_failed;
    }
    if (n > ((size_t)1 << 30)) n = (size_t)1 << 30;
    s->zs.next_out = dst;
    s->zs.avail_out = (uInt)n;
    while (s->zs.avail_out > 0 && !s->z_end) {
        if (s->zs.avail_in == 0 && !s->raw_eof && (rc = z_feed(s)) != HSPMV_OK) break;
        rc = inflate(&s->zs, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            /* another member may follow (concatenated gzip) */
            if ((rc = z_after_member(s, n - s->zs.avail_out)) != HSPMV_OK) break;
        } else if (rc == Z_MEM_ERROR) {
            rc = src_fail(s, n - s->zs.avail_out, HSPMV_ERR_NOMEM, "out of memory inflating gzip data");
            break;
        } else if (rc == Z_BUF_ERROR || rc == Z_OK) {
            /* no more input will come and the member has not ended */
            rc = HSPMV_OK;
            if (s->zs.avail_in == 0 && s->raw_eof && s->zs.avail_out > 0) {
                rc = src_fail(s, n - s->zs.avail_out, HSPMV_ERR_FORMAT,
                              "gzip data ends early (truncated file?) after %lld bytes of text",
                              (long long)z_text_at(s));
                break;
            }
        } else {
            rc = src_fail(s, n - s->zs.avail_out, HSPMV_ERR_FORMAT, "corrupt gzip data after %lld bytes of text: %s",
                          (long long)z_text_at(s), s->zs.msg ? s->zs.msg : "inflate failed");
            break;
        }
        rc = HSPMV_OK;
    }
    *got = n - s->zs.avail_out;
    if (rc != HSPMV_OK) {
        s->z_failed = rc;
        if (s->err) snprintf(s->z_msg, sizeof(s->z_msg), "%s", s->err->msg);
    }
    return rc;
}

/* Inflates into dst; *got bytes (0 at the end of the last member). A fault
   found after some text was inflated is reported on the next call, so the
   text before it is always parsed first, however the blocks fall. */
static int z_read(mtx_source *s, unsigned char *dst, size_t n, size_t *got)
{
    int rc = z_inflate(s, dst, n, got);
    return rc != HSPMV_OK && *got > 0 ? HSPMV_OK : rc; /* z_failed keeps it for the next call */
}
#endif

int hspmv_mtx_source_gzip_verdict(mtx_source *s)
{
#ifndef HSPMV_NO_ZLIB
    unsigned char scratch[16384];
    size_t got;
    int rc;
    if (!s->gzip || !s->zs_live) return HSPMV_OK;
    s->lines = NULL; /* the text inflated here is not in buf: no line to count */
    if (s->z_failed) /* found while the text was read: where the blocks ended decided its line, so none is named */
        return hspmv_err_file(s->err, s->z_failed, s->name, 0, "%s", s->z_text);
    int64_t left = GZIP_VERDICT_BYTES; /* a true text error early in a huge file is not held up for long */
    do {
        rc = z_inflate(s, scratch, sizeof(scratch), &got);
        left -= (int64_t)got;
    } while (rc == HSPMV_OK && got > 0 && left > 0);
    return rc;
#else
    (void)s;
    return HSPMV_OK;
#endif
}

/* Decides plain or gzip from the first two raw bytes and sets up the buffers. */
static int source_start(mtx_source *s)
{
    int gz = 0;
    if (s->mem) {
        gz = s->mem_len >= 2 && s->mem[0] == 0x1f && s->mem[1] == 0x8b;
    } else {
        while (s->peek_len < 2) {
            ssize_t r = read(s->fd, s->peek + s->peek_len, 2 - s->peek_len);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                if (errno == EISDIR) return hspmv_err_file(s->err, HSPMV_ERR_IO, s->name, 0, "is a directory");
                return hspmv_err_file(s->err, HSPMV_ERR_IO, s->name, 0, "read failed: %s", strerror(errno));
            }
            if (r == 0) break;
            s->peek_len += (size_t)r;
        }
        gz = s->peek_len == 2 && s->peek[0] == 0x1f && s->peek[1] == 0x8b;
    }
    /* Blocks of hspmv_io_chunk_bytes, less for a small input (the buffer
       grows if a line needs more). */
    s->raw_size = s->raw_total;
    s->cap = hspmv_io_chunk_bytes ? hspmv_io_chunk_bytes : 1;
    if (s->raw_size >= 0) {
        uint64_t guess = gz ? 4 * (uint64_t)s->raw_size : (uint64_t)s->raw_size + 1;
        if (guess < 4096) guess = 4096;
        if (guess < s->cap) s->cap = (size_t)guess;
    }
    s->buf = hspmv_malloc(s->cap + 1); /* +1: room for a closing newline */
    if (!s->buf) return hspmv_err_file(s->err, HSPMV_ERR_NOMEM, s->name, 0, "out of memory for the read buffer");
    if (!gz) return HSPMV_OK;
#ifdef HSPMV_NO_ZLIB
    return hspmv_err_file(s->err, HSPMV_ERR_UNSUPPORTED, s->name, 0, "gzip support not built in");
#else
    s->gzip = 1;
    s->raw_total = -1;
    if (!s->mem && !(s->zin = hspmv_malloc(ZIN_BYTES)))
        return hspmv_err_file(s->err, HSPMV_ERR_NOMEM, s->name, 0, "out of memory for the gzip buffer");
    s->zs.zalloc = z_alloc;
    s->zs.zfree = z_free;
    s->zs.opaque = Z_NULL;
    s->zs.next_in = Z_NULL;
    s->zs.avail_in = 0;
    int rc = inflateInit2(&s->zs, 15 + 16); /* gzip wrapper only */
    if (rc == Z_MEM_ERROR)
        return hspmv_err_file(s->err, HSPMV_ERR_NOMEM, s->name, 0, "out of memory starting gzip");
    if (rc != Z_OK) return hspmv_err_file(s->err, HSPMV_ERR_IO, s->name, 0, "cannot start gzip decoding");
    s->zs_live = 1;
    return HSPMV_OK;
#endif
}

static void source_init(mtx_source *s, const char *name, hspmv_error *err)
{
    memset(s, 0, sizeof(*s));
    s->name = name;
    s->err = err;
    s->fd = -1;
    s->raw_total = -1;
    s->next_report = PROGRESS_STEP;
    s->range_cut = -1;
}

/* What a path names when it is neither a regular file nor a pipe. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* One non-blocking read of a FIFO's first bytes into the peek buffer:
   > 0 bytes, 0 when no process writes to it, -1 with errno (EAGAIN: a
   writer that has sent nothing yet). */
static ssize_t fifo_peek(mtx_source *s)
{
    ssize_t r;
    do r = read(s->fd, s->peek + s->peek_len, sizeof(s->peek) - s->peek_len);
    while (r < 0 && errno == EINTR);
    if (r > 0) s->peek_len += (size_t)r;
    return r;
}

/* Opens what can be read to its end without waiting on nobody: a regular
   file, or a pipe (FIFO) some process is writing. The open never blocks
   (O_NONBLOCK: a FIFO without a writer would otherwise wait in open()
   forever); anything else is refused before it is opened. */
static int open_input(mtx_source *s, const char *path, hspmv_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) return hspmv_err_file(err, HSPMV_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return hspmv_err_file(err, HSPMV_ERR_IO, path, 0, "is %s; only a regular file or a pipe is read",
                              file_kind(st.st_mode));
    s->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (s->fd < 0) return hspmv_err_file(err, HSPMV_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    if (fstat(s->fd, &st) != 0)
        return hspmv_err_file(err, HSPMV_ERR_IO, path, 0, "cannot stat: %s", strerror(errno));
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) /* replaced since the stat() */
        return hspmv_err_file(err, HSPMV_ERR_IO, path, 0, "is %s; only a regular file or a pipe is read",
                              file_kind(st.st_mode));
    if (S_ISREG(st.st_mode)) s->raw_total = (int64_t)st.st_size;
    if (S_ISFIFO(st.st_mode)) {
        /* With O_NONBLOCK a read returns 0 only while no process has the
           FIFO open for writing (one still waiting in its own open() counts
           as a writer), and fails with EAGAIN while a writer has sent
           nothing yet. A writer that starts a moment after us is waited for
           (poll wakes up when it writes), a bounded time. */
        ssize_t r = fifo_peek(s);
        if (r == 0) {
            struct pollfd pf = {s->fd, POLLIN, 0};
            double left = MTX_FIFO_WAIT_S;
            while (left > 0 && poll(&pf, 1, 100) == 0) left -= 0.1;
            r = fifo_peek(s);
        }
        if (r == 0)
            return hspmv_err_file(err, HSPMV_ERR_IO, path, 0,
                                  "a FIFO (named pipe) that no process wrote to within %g s: nothing to read",
                                  MTX_FIFO_WAIT_S);
        if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return hspmv_err_file(err, HSPMV_ERR_IO, path, 0, "read failed: %s", strerror(errno));
    }
    /* from here on reads wait for the writer, as reading a pipe does */
    int fl = fcntl(s->fd, F_GETFL);
    if (fl < 0 || fcntl(s->fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
        return hspmv_err_file(err, HSPMV_ERR_IO, path, 0, "fcntl failed: %s", strerror(errno));
    return HSPMV_OK;
}

int hspmv_mtx_source_open_path(mtx_source *s, const char *path, const hspmv_read_opts *opts,
                         hspmv_error *err)
{
    int rc;
    source_init(s, path, err);
    if (opts) {
        s->progress = opts->progress;
        s->progress_ctx = opts->progress_ctx;
    }
    if ((rc = open_input(s, path, err)) != HSPMV_OK) goto fail;
    if ((rc = source_start(s)) != HSPMV_OK) goto fail;
    return HSPMV_OK;
fail:
    hspmv_mtx_source_close(s);
    return rc;
}

int hspmv_mtx_source_open_mem(mtx_source *s, const char *name, const void *buf, size_t len,
                        hspmv_error *err)
{
    static const unsigned char none[1] = {0};
    int rc;
    source_init(s, name, err);
    s->mem = buf ? buf : none;
    s->mem_len = buf ? len : 0;
    s->raw_total = (int64_t)s->mem_len;
    if ((rc = source_start(s)) != HSPMV_OK) hspmv_mtx_source_close(s);
    return rc;
}

void hspmv_mtx_source_close(mtx_source *s)
{
#ifndef HSPMV_NO_ZLIB
    if (s->zs_live) inflateEnd(&s->zs);
    s->zs_live = 0;
    hspmv_free(s->zin);
    s->zin = NULL;
#endif
    hspmv_free(s->buf);
    s->buf = NULL;
    if (s->fd >= 0 && !s->borrowed_fd) close(s->fd);
    s->fd = -1;
}

/* Offset of the first line that starts at or after `at` (at > 0): just
   after the first newline at or after at-1; file_size when there is none.
   -1 after a read error (err says why). */
static int64_t next_line_start(mtx_source *s, int64_t at, int64_t file_size)
{
    char blk[1 << 16];
    int64_t off = at - 1;
    while (off < file_size) {
        ssize_t r = pread(s->fd, blk, sizeof(blk), (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            hspmv_err_file(s->err, HSPMV_ERR_IO, s->name, 0, "read failed: %s", strerror(errno));
            return -1;
        }
        if (r == 0) break;
        const char *nl = memchr(blk, '\n', (size_t)r);
        if (nl) return off + (nl - blk) + 1;
        off += r;
    }
    return file_size;
}

int hspmv_mtx_source_open_range(mtx_source *s, const char *name, int fd, int64_t begin, int64_t end,
                          int at_line_start, int64_t file_size, hspmv_error *err)
{
    source_init(s, name, err);
    s->fd = fd;
    s->borrowed_fd = 1;
    s->pread_mode = 1;
    s->raw_total = s->raw_size = file_size;
    if (end > file_size) end = file_size;
    int64_t start = begin;
    if (!at_line_start && begin > 0 && begin < end && (start = next_line_start(s, begin, file_size)) < 0) {
        hspmv_mtx_source_close(s);
        return HSPMV_ERR_IO;
    }
    s->pos = s->base = start;
    s->range_cut = end - 1;
    if (start >= end) s->eof = 1; /* no line starts in the range */
    s->next_report = start + PROGRESS_STEP;
    /* blocks as a whole-file read of this file makes them, so that a line is
       too long at the same length */
    s->cap = hspmv_io_chunk_bytes ? hspmv_io_chunk_bytes : 1;
    uint64_t guess = (uint64_t)file_size + 1;
    if (guess < 4096) guess = 4096;
    if (guess < s->cap) s->cap = (size_t)guess;
    s->buf = hspmv_malloc(s->cap + 1);
    if (!s->buf) {
        hspmv_mtx_source_close(s);
        return hspmv_err_file(err, HSPMV_ERR_NOMEM, name, 0, "out of memory for the read buffer");
    }
    return HSPMV_OK;
}

/* Appends text to buf[len, cap); sets eof when there is no more. */
static int source_fill(mtx_source *s)
{
    size_t got = 0;
    if (s->gzip) {
#ifndef HSPMV_NO_ZLIB
        int rc = z_read(s, (unsigned char *)s->buf + s->len, s->cap - s->len, &got);
        if (rc != HSPMV_OK) return rc;
#endif
    } else {
        ptrdiff_t r = raw_read(s, (unsigned char *)s->buf + s->len, s->cap - s->len);
        if (r < 0) return HSPMV_ERR_IO;
        got = (size_t)r;
    }
    if (got == 0) s->eof = 1;
    s->len += got;
    return HSPMV_OK;
}

/* The last '\n' in [b, e), or NULL (memrchr is not standard C or POSIX). */
static char *last_newline(char *b, char *e)
{
    while (e > b)
        if (*--e == '\n') return e;
    return NULL;
}

int hspmv_mtx_source_next(mtx_source *s, const char **p, const char **end)
{
    char *nl = NULL;
    int rc;
    /* Move the unfinished line to the front, then read until a newline. */
    if (s->start > 0) {
        memmove(s->buf, s->buf + s->start, s->len - s->start);
        s->base += (int64_t)s->start;
        s->len -= s->start;
        s->start = 0;
    }
    for (;;) {
        size_t scanned = s->len;
        if (!s->eof && s->len < s->cap && (rc = source_fill(s)) != HSPMV_OK) return rc;
        /* the carried-over tail holds no newline: look in the new text only */
        if (s->len > scanned) nl = last_newline(s->buf + scanned, s->buf + s->len);
        if (nl && s->range_cut >= 0 && s->base + (nl - s->buf) >= s->range_cut) {
            /* a range ends with the line that holds byte range_cut: hand out
               up to its newline and nothing after it (base <= range_cut: the
               lines handed out so far all ended before it) */
            char *from = s->buf + (s->range_cut - s->base);
            nl = memchr(from, '\n', (size_t)(s->buf + s->len - from));
            s->len = (size_t)(nl + 1 - s->buf);
            s->eof = 1;
        }
        if (nl) break;
        if (s->eof) {
            if (s->len > 0) { /* a last line without newline */
                s->buf[s->len++] = '\n';
                s->added_nl = 1;
                nl = s->buf + s->len - 1;
            }
            break;
        }
        if (s->len == s->cap) { /* a line longer than the buffer: grow it */
            size_t ncap = s->cap * 2;
            char *nb;
            if (s->cap >= MTX_MAX_LINE)
                return src_fail(s, 0, HSPMV_ERR_FORMAT, "line longer than %zu MB (it starts at byte %lld)%s",
                                MTX_MAX_LINE >> 20, (long long)s->base,
                                memchr(s->buf, '\r', s->len) ? "; the text holds CR but no LF: lines that end with a "
                                                               "lone CR (classic Mac) are not Matrix Market" : "");
            if (!(nb = hspmv_malloc(ncap + 1)))
                return src_fail(s, 0, HSPMV_ERR_NOMEM, "out of memory for a line longer than %zu MB", s->cap >> 20);
            memcpy(nb, s->buf, s->len);
            hspmv_free(s->buf);
            s->buf = nb;
            s->cap = ncap;
        }
    }
    *p = s->buf;
    *end = nl ? nl + 1 : s->buf;
    s->start = (size_t)(*end - s->buf);
    if (s->progress && (s->base + (int64_t)s->start >= s->next_report ||
                        (s->eof && s->start == s->len && !s->reported_end))) {
        s->reported_end = s->eof && s->start == s->len;
        s->progress(s->base + (int64_t)s->start, s->gzip ? -1 : s->raw_total, s->progress_ctx);
        while (s->next_report <= s->base + (int64_t)s->start) s->next_report += PROGRESS_STEP;
    }
    return HSPMV_OK;
}

int64_t hspmv_mtx_source_left(const mtx_source *s, const char *q)
{
    if (s->gzip || s->raw_total < 0) return -1;
    return s->raw_total - (s->base + (int64_t)(q - s->buf));
}

int64_t hspmv_mtx_source_bytes(const mtx_source *s)
{
    return s->base + (int64_t)s->start - (s->added_nl && s->start == s->len);
}
