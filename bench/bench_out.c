/* bench_out.c — output files written under a temporary name and renamed
   over the target when complete; the same file as an input refused. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef HSPMV_NO_ZLIB
#include <zlib.h>
#endif
#include "bench_out.h"

/* The outputs still open: their temporary files go at exit or on a fatal
   signal (a run stopped half-way leaves neither a partial target nor a stray file). */
enum { MAX_OPEN = 8 };
static bo_file *opened[MAX_OPEN];

static void forget(bo_file *o)
{
    for (int k = 0; k < MAX_OPEN; k++)
        if (opened[k] == o) opened[k] = NULL;
}

static void remove_temps(void)
{
    for (int k = 0; k < MAX_OPEN; k++)
        if (opened[k] && opened[k]->tmp[0]) unlink(opened[k]->tmp); /* async-signal-safe */
}

static void on_signal(int sig)
{
    remove_temps();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* once: at exit, and for the signals that end a run, where nobody else (MPI) handles them */
static void arm_cleanup(void)
{
    static int armed;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ};
    /* past ulimit -f a write fails with EFBIG and is reported, instead of a SIGXFSZ death */
    if (armed) return;
    armed = 1;
    atexit(remove_temps);
    for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
        struct sigaction old, sa;
        if (sigaction(sigs[k], NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = sigs[k] == SIGXFSZ ? SIG_IGN : on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[k], &sa, NULL);
    }
}

static int refuse(char *msg, size_t n, const bo_file *o, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int refuse(char *msg, size_t n, const bo_file *o, const char *path, const char *fmt, ...)
{
    char why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (o->label[0]) snprintf(msg, n, "%s %.300s: %s", o->label, path, why);
    else snprintf(msg, n, "%.300s: %s", path, why);
    return BO_REFUSED;
}

/* Copies the file at src to fd (BO_APPEND); 0 or an errno. */
static int copy_into(const char *src, int fd)
{
    char buf[1 << 16];
    int in = open(src, O_RDONLY);
    if (in < 0) return errno;
    for (;;) {
        ssize_t r = read(in, buf, sizeof(buf));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(in);
            return e;
        }
        if (r == 0) break;
        for (ssize_t w = 0; w < r;) {
            ssize_t k = write(fd, buf + w, (size_t)(r - w));
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) {
                int e = errno;
                close(in);
                return e;
            }
            w += k;
        }
    }
    close(in);
    return 0;
}

int bo_open(bo_file *o, const char *label, const char *path, const char *const *inputs, int nin, int flags,
            char *msg, size_t n)
{
    struct stat st, ls;
    memset(o, 0, sizeof(*o));
    o->label = label ? label : "";
    o->name = path;
#ifdef HSPMV_NO_ZLIB
    if (flags & BO_GZIP)
        return refuse(msg, n, o, path, "this build has no zlib (NO_ZLIB=1): give a name without .gz");
#endif
    if (!path[0]) return refuse(msg, n, o, "''", "an empty file name");
    if (!strcmp(path, "-"))
        return refuse(msg, n, o, path,
                      "'-' is not taken for standard output: give a file name (./- for a file named '-')");
    if (strlen(path) >= BO_PATH_MAX - 16) return refuse(msg, n, o, path, "the name is too long");
    int exists = stat(path, &st) == 0;
    if (!exists && lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode))
        return refuse(msg, n, o, path, "a symbolic link to a file that does not exist (%s)", strerror(errno));
    for (int k = 0; exists && k < nin; k++) {
        struct stat si;
        if (inputs[k] && stat(inputs[k], &si) == 0 && si.st_dev == st.st_dev && si.st_ino == st.st_ino)
            return refuse(msg, n, o, path, "the same file as the input %.300s: writing it would destroy the input; "
                          "give another name", inputs[k]);
    }
    if (exists && S_ISDIR(st.st_mode)) return refuse(msg, n, o, path, "a folder, not a file");
    if (exists && !S_ISREG(st.st_mode)) { /* a device, a pipe, a socket: written in place, never removed */
        snprintf(o->path, sizeof(o->path), "%s", path);
        o->tmp[0] = 0;
        if (flags & BO_STREAM) {
            int fd = open(path, O_WRONLY | O_CLOEXEC | ((flags & BO_APPEND) ? O_APPEND : O_TRUNC));
            if (fd < 0) return refuse(msg, n, o, path, "cannot open for writing: %s", strerror(errno));
#ifndef HSPMV_NO_ZLIB
            if (flags & BO_GZIP) o->gz = gzdopen(fd, "wb6");
            else
#endif
                o->f = fdopen(fd, "w");
            if (!o->f && !o->gz) {
                close(fd);
                return refuse(msg, n, o, path, "out of memory for the stream");
            }
        }
        o->open = 1;
        return 0;
    }
    /* a regular file or none yet: the target, a symbolic link followed, and a temporary name beside it */
    if (exists) {
        char *real = realpath(path, NULL);
        if (!real) return refuse(msg, n, o, path, "cannot resolve the name: %s", strerror(errno));
        snprintf(o->path, sizeof(o->path), "%s", real);
        free(real);
        if (access(o->path, W_OK) != 0) return refuse(msg, n, o, path, "cannot write: %s", strerror(errno));
    } else snprintf(o->path, sizeof(o->path), "%s", path);
    const char *slash = strrchr(o->path, '/');
    int dlen = slash ? (int)(slash - o->path) + 1 : 0;
    if (snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX", dlen, o->path, o->path + dlen) >= (int)sizeof(o->tmp))
        return refuse(msg, n, o, path, "the name is too long");
    mode_t mode;
    if (exists) mode = st.st_mode & 07777;
    else {
        mode_t um = umask(022);
        umask(um);
        mode = 0666 & ~um;
    }
    int fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        o->tmp[0] = 0;
        if (exists) /* the file is there: it is the folder that refuses a new name */
            return refuse(msg, n, o, path, "cannot create a temporary file beside it (%s): the folder must be writable",
                          strerror(e));
        if (o->label[0]) return refuse(msg, n, o, path, "cannot create: %s", strerror(e));
        snprintf(msg, n, "cannot create %.300s: %s", path, strerror(e));
        return BO_REFUSED;
    }
    for (int k = 0; k < MAX_OPEN; k++)
        if (!opened[k]) {
            opened[k] = o;
            break;
        }
    arm_cleanup();
    int e = fchmod(fd, mode) != 0 ? errno : 0;
    if (!e && exists && (flags & BO_APPEND)) e = copy_into(o->path, fd);
    if (e) {
        close(fd);
        bo_abort(o);
        return refuse(msg, n, o, path, "cannot create: %s", strerror(e));
    }
    o->open = 1;
    if (!(flags & BO_STREAM)) {
        close(fd); /* the caller writes the temporary file by name */
        return 0;
    }
#ifndef HSPMV_NO_ZLIB
    if (flags & BO_GZIP) o->gz = gzdopen(fd, "wb6");
    else
#endif
        o->f = fdopen(fd, "a");
    if (!o->f && !o->gz) {
        close(fd);
        bo_abort(o);
        return refuse(msg, n, o, path, "out of memory for the stream");
    }
    return 0;
}

const char *bo_name(const bo_file *o) { return o->tmp[0] ? o->tmp : o->path; }

int bo_write(bo_file *o, const void *buf, size_t len)
{
    if (o->err) return -1;
    if (!len) return 0;
    errno = 0;
#ifndef HSPMV_NO_ZLIB
    if (o->gz) {
        const char *p = buf;
        while (len) { /* gzwrite takes an unsigned count */
            unsigned k = len > (1u << 30) ? 1u << 30 : (unsigned)len;
            if (gzwrite(o->gz, p, k) != (int)k) {
                int ze;
                gzerror(o->gz, &ze);
                o->err = ze == Z_ERRNO && errno ? errno : EIO;
                return -1;
            }
            p += k;
            len -= k;
        }
        return 0;
    }
#endif
    if (!o->f || fwrite(buf, 1, len, o->f) != len) {
        o->err = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

int bo_printf(bo_file *o, const char *fmt, ...)
{
    char b[1024], *p = b;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(b, sizeof(b), fmt, ap);
    va_end(ap);
    if (len < 0) return o->err = EINVAL, -1;
    if ((size_t)len >= sizeof(b)) {
        if (!(p = malloc((size_t)len + 1))) return o->err = ENOMEM, -1;
        va_start(ap, fmt);
        vsnprintf(p, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    int rc = bo_write(o, p, (size_t)len);
    if (p != b) free(p);
    return rc;
}

int bo_commit(bo_file *o, char *msg, size_t n)
{
    int e = o->err;
    errno = 0;
#ifndef HSPMV_NO_ZLIB
    if (o->gz) {
        int rc = gzclose(o->gz);
        if (rc != Z_OK && !e) e = rc == Z_ERRNO && errno ? errno : EIO;
        o->gz = NULL;
    }
#endif
    if (o->f) {
        if ((fflush(o->f) != 0 || ferror(o->f)) && !e) e = errno ? errno : EIO;
        if (o->tmp[0] && !e && fsync(fileno(o->f)) != 0) e = errno; /* a full disk may only say so here */
        if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
        o->f = NULL;
    }
    if (!e && o->tmp[0] && rename(o->tmp, o->path) != 0) e = errno;
    if (e) {
        bo_abort(o);
        snprintf(msg, n, "writing %.300s: %s", o->name, strerror(e));
        return 1;
    }
    o->tmp[0] = 0;
    o->open = 0;
    forget(o);
    return 0;
}

void bo_abort(bo_file *o)
{
#ifndef HSPMV_NO_ZLIB
    if (o->gz) gzclose(o->gz);
    o->gz = NULL;
#endif
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->tmp[0]) unlink(o->tmp); /* the temporary file only: never the target, never a device */
    o->tmp[0] = 0;
    o->open = 0;
    forget(o);
}
