/* bench_progress.c — progress lines for the programs' long steps: a step's
   bytes come from a read callback or a growing file, and a timer thread
   prints them, so that a step the library runs without callbacks still
   shows it is alive (with mpirun's piped stderr too). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "bench_progress.h"
#include "bench_util.h"

/* the timings of the modes (docs/programs.md states them) */
#define TTY_FIRST 2.0  /* auto on a terminal: first update after */
#define TTY_EVERY 1.0  /*   and then every */
#define PLAIN_EVERY 5.0 /* auto elsewhere: a line every (the first after as long) */
#define ON_EVERY 2.0   /* on: a line every */

static int mode = BU_PROGRESS_AUTO, quiet;

/* The one step running (the programs run one at a time). */
static struct step {
    char what[600];
    const char *grow;   /* file whose size is the bytes done, or NULL */
    double start, last; /* seconds (bu_now) */
    double done, total; /* bytes; total 0: unknown */
    int tty, shown, open_line; /* \r updates; lines printed; a \r line waiting for its newline */
    int line_len;       /* that line's length (the closing line covers it) */
    int running, stop;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} S = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

int bu_parse_progress(const char *opt, const char *s)
{
    if (!strcmp(s, "auto")) return BU_PROGRESS_AUTO;
    if (!strcmp(s, "on")) return BU_PROGRESS_ON;
    if (!strcmp(s, "off")) return BU_PROGRESS_OFF;
    bu_fail("%s takes auto, on or off, not '%.40s'", opt, s);
}

void bu_progress_set(int m) { mode = m; }
int bu_progress_mode(void) { return mode; }
void bu_progress_rank(int rank) { quiet = rank != 0; }

const char *bu_progress_name(int m)
{
    return m == BU_PROGRESS_OFF ? "off" : m == BU_PROGRESS_ON ? "on" : "auto";
}

/* "123 of 456 MB (27%), 80 MB/s" or "123 MB, 80 MB/s"; "" without bytes. */
static void amount(char *b, size_t n, double done, double total, double t)
{
    b[0] = 0;
    if (done <= 0 && total <= 0) return;
    if (total > 0 && done > 0)
        snprintf(b, n, ", %.0f of %.0f MB (%.0f%%), %.0f MB/s", done / 1e6, total / 1e6, 100.0 * done / total,
                 t > 0 ? done / 1e6 / t : 0.0);
    else if (done > 0) snprintf(b, n, ", %.0f MB, %.0f MB/s", done / 1e6, t > 0 ? done / 1e6 / t : 0.0);
    else snprintf(b, n, " (%.0f MB)", total / 1e6);
}

/* With S.mu held: the bytes done of a growing file. */
static void poll_grow(void)
{
    struct stat st;
    if (S.grow && stat(S.grow, &st) == 0) S.done = (double)st.st_size;
}

/* With S.mu held: one update line (a \r line on a terminal). */
static void print_update(double now)
{
    char b[160];
    double t = now - S.start;
    poll_grow();
    amount(b, sizeof(b), S.done, S.total, t);
    if (S.tty) {
        S.line_len = fprintf(stderr, "\r%s: %s: %.0f s%s", bu_prog(), S.what, t, b) - 1;
        S.open_line = 1;
    } else fprintf(stderr, "%s: %s: %.0f s%s\n", bu_prog(), S.what, t, b);
    fflush(stderr);
    S.shown = 1;
    S.last = now;
}

/* The timer: an update whenever the mode's interval has passed. */
static void *tick(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&S.mu);
    while (!S.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 250000000L; /* a quarter second: the step's end is not held up */
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&S.cv, &S.mu, &ts);
        if (S.stop) break;
        double now = bu_now(), t = now - S.start, since = now - (S.shown ? S.last : S.start);
        if (mode == BU_PROGRESS_ON ? since >= ON_EVERY
                                   : S.tty ? t >= TTY_FIRST && (!S.shown || since >= TTY_EVERY) : since >= PLAIN_EVERY)
            print_update(now);
    }
    pthread_mutex_unlock(&S.mu);
    return NULL;
}

void bu_step_begin(const char *what, double bytes, const char *grow)
{
    bu_step_end();
    if (mode == BU_PROGRESS_OFF || quiet) return;
    pthread_mutex_lock(&S.mu);
    snprintf(S.what, sizeof(S.what), "%s", what);
    S.grow = grow;
    S.start = S.last = bu_now();
    S.done = 0;
    S.total = bytes > 0 ? bytes : 0;
    S.tty = mode == BU_PROGRESS_AUTO && isatty(2);
    S.shown = S.open_line = S.stop = 0;
    S.running = pthread_create(&S.thread, NULL, tick, NULL) == 0;
    pthread_mutex_unlock(&S.mu);
}

/* Stops the timer thread; 1 when one ran. */
static int stop_timer(void)
{
    if (!S.running) return 0;
    pthread_mutex_lock(&S.mu);
    S.stop = 1;
    pthread_cond_signal(&S.cv);
    pthread_mutex_unlock(&S.mu);
    pthread_join(S.thread, NULL);
    S.running = 0;
    return 1;
}

void bu_step_abort(void)
{
    if (stop_timer() && S.open_line) fputc('\n', stderr);
    S.open_line = 0;
}

void bu_step_end(void)
{
    if (!stop_timer()) return;
    /* the closing line: always with "on", after any update otherwise */
    if (mode == BU_PROGRESS_ON || S.shown) {
        char b[160];
        double t = bu_now() - S.start;
        poll_grow();
        if (S.done <= 0) S.done = S.total; /* a step without a count of its own */
        b[0] = 0;
        if (S.done > 0) snprintf(b, sizeof(b), ", %.1f MB, %.0f MB/s", S.done / 1e6, t > 0 ? S.done / 1e6 / t : 0.0);
        int n = fprintf(stderr, "%s%s: %s: done in %.2f s%s", S.open_line ? "\r" : "", bu_prog(), S.what, t, b);
        if (S.open_line) n--; /* the \r */
        fprintf(stderr, "%*s\n", S.open_line && S.line_len > n ? S.line_len - n : 0, "");
        fflush(stderr);
    }
    S.open_line = 0;
}

/* The read's callback: stores the count for the timer. */
static void read_progress(int64_t done, int64_t total, void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&S.mu);
    S.done = (double)done;
    if (total > 0) S.total = (double)total;
    pthread_mutex_unlock(&S.mu);
}

hspmv_read_opts bu_progress_opts(const char *path)
{
    hspmv_read_opts o = {NULL, NULL, 0};
    char what[600];
    snprintf(what, sizeof(what), "reading %s", path);
    bu_step_begin(what, 0, NULL);
    if (!S.running) return o;
    o.progress = read_progress;
    o.progress_ctx = NULL;
    return o;
}
