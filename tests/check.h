/* check.h — the tests' tiny harness: CHECK inside test functions, RUN in main,
   and a closing "N passed, N failed[, N skipped]" line that tests/run.sh adds up. */
#ifndef HSPMV_CHECK_H
#define HSPMV_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int check_passed, check_failed, check_skipped;
static int check_cur_failed, check_cur_skipped;
static const char *check_cur_name;

/* Seconds on a monotonic clock: each test's time goes on its result line. */
static inline double check_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Fails the current test (and keeps going) when cond is false. */
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            check_cur_failed++;                                                \
            fprintf(stderr, "  FAIL %s (%s:%d): %s: ", check_cur_name,         \
                    __FILE__, __LINE__, #cond);                                \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

/* Marks the current test skipped with a reason (e.g. no MPI, no GPU). */
#define SKIP(...)                                                              \
    do {                                                                       \
        check_cur_skipped = 1;                                                 \
        fprintf(stderr, "  skip %s: ", check_cur_name);                        \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
    } while (0)

#define RUN(fn)                                                                \
    do {                                                                       \
        check_cur_name = #fn;                                                  \
        check_cur_failed = 0;                                                  \
        check_cur_skipped = 0;                                                 \
        double t_ = check_now();                                               \
        fn();                                                                  \
        t_ = check_now() - t_;                                                 \
        if (check_cur_failed) {                                                \
            check_failed++;                                                    \
            printf("FAIL %s (%.2f s)\n", #fn, t_);                             \
        } else if (check_cur_skipped) {                                        \
            check_skipped++;                                                   \
            printf("skip %s (%.2f s)\n", #fn, t_);                             \
        } else {                                                               \
            check_passed++;                                                    \
            printf("ok   %s (%.2f s)\n", #fn, t_);                             \
        }                                                                      \
        fflush(stdout);                                                        \
    } while (0)

/* fn on every matrix of a folder (tl_each_mtx of testlib.h): failed when the
   folder is missing (both are in the repository), held none, or some could
   not be read. */
#define CHECK_EACH_MTX(dir, shared, fn)                                        \
    do {                                                                       \
        int unread_, done_ = tl_each_mtx(dir, shared, fn, &unread_);           \
        if (done_ < 0) CHECK(done_ >= 0, "%s is missing (%s)", dir, tl_missing_hint(shared)); \
        else CHECK(done_ > 0 && unread_ == 0, "%s: %d matrices read, %d could not be", \
                   dir, done_, unread_);                                       \
    } while (0)

/* Ends main: prints the summary line and returns the exit status. */
#define CHECK_DONE()                                                           \
    do {                                                                       \
        printf("%d passed, %d failed, %d skipped\n", check_passed,             \
               check_failed, check_skipped);                                   \
        return check_failed ? 1 : 0;                                           \
    } while (0)

#endif
