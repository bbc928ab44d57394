/* convert.c — Matrix Market (plain or gzip) and PETSc binary into each
   other: the input's format comes from its first bytes, the output's from
   its name (.mtx, .mtx.gz, .petsc, .bin) or from --to. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "bench_out.h"
#include "bench_util.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s in out [--to mtx|petsc|petsc64] [--index64] [--progress auto|on|off]\n"
            "  Reads in (a PETSc binary matrix, told by its class id, or Matrix Market, plain or\n"
            "  gzip; symmetric files are expanded) and writes out in the format its name says:\n"
            "    .mtx      Matrix Market, coordinate real general, every value in the fewest digits\n"
            "              that read back to the same bits\n"
            "    .mtx.gz   the same, gzip-compressed\n"
            "    .petsc or .bin  PETSc binary (what MatLoad reads), 4-byte integers\n"
            "  Any other name needs --to. --to forces the format (Matrix Market output is\n"
            "  compressed when the name ends in .gz); petsc64 and --index64 write 8-byte integers\n"
            "  (PETSc built --with-64-bit-indices). --progress: lines on stderr for the read and the\n"
            "  write (auto: on a terminal after 2 s, elsewhere every 5 s; on: every 2 s and when\n"
            "  each step ends; off).\n"
            "  out is tried before in is read, written under a temporary name beside it and renamed\n"
            "  over it when complete; the input's own file (a link too) and '-' are refused.\n",
            bu_invoked_name());
}

static double file_mb(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* The gzip writer: what the Matrix Market writer puts into a pipe goes
   compressed into the output's stream; after a failed write it still
   drains the pipe (the writer must not block); bo_write keeps the first error. */
typedef struct gz_job {
    int fd;       /* the pipe's reading end */
    bo_file *out; /* opened with BO_GZIP */
} gz_job;

static void *gz_pump(void *arg)
{
    gz_job *j = arg;
    static char buf[1 << 16];
    for (;;) {
        ssize_t n = read(j->fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        bo_write(j->out, buf, (size_t)n);
    }
    return NULL;
}

/* Writes A as Matrix Market into o's gzip stream (through a pipe: the writer takes a name). */
static int write_mtx_gz(bo_file *o, const char *out, const hspmv_csr *A, hspmv_error *e)
{
    int fds[2];
    char dev[64];
    pthread_t th;
    if (pipe(fds) != 0) {
        e->code = HSPMV_ERR_IO;
        snprintf(e->msg, sizeof(e->msg), "%s: cannot make a pipe: %s", out, strerror(errno));
        return e->code;
    }
    gz_job j = {fds[0], o};
    if (pthread_create(&th, NULL, gz_pump, &j) != 0) {
        close(fds[0]);
        close(fds[1]);
        e->code = HSPMV_ERR_NOMEM;
        snprintf(e->msg, sizeof(e->msg), "%s: cannot start the compressing thread", out);
        return e->code;
    }
    snprintf(dev, sizeof(dev), "/dev/fd/%d", fds[1]);
    int rc = hspmv_csr_write(dev, A, HSPMV_FILE_MTX, e);
    close(fds[1]);
    pthread_join(th, NULL);
    close(fds[0]);
    if (rc) { /* the message names the pipe: name the file */
        char m[sizeof(e->msg)];
        const char *rest = strstr(e->msg, dev);
        snprintf(m, sizeof(m), "%s%s", out, rest ? rest + strlen(dev) : "");
        if (!rest) snprintf(m, sizeof(m), "%s: %s", out, e->msg);
        snprintf(e->msg, sizeof(e->msg), "%s", m);
    }
    return rc;
}

/* The library's message names the temporary file: name the output instead. */
static void name_output(char *msg, size_t n, const char *tmp, const char *out)
{
    char m[1024];
    const char *at = tmp[0] ? strstr(msg, tmp) : NULL;
    if (!at) return;
    snprintf(m, sizeof(m), "%.*s%s%s", (int)(at - msg), msg, out, at + strlen(tmp));
    size_t k = strlen(m) < n - 1 ? strlen(m) : n - 1;
    memcpy(msg, m, k);
    msg[k] = 0;
}

int main(int argc, char **argv)
{
    bu_version(argc, argv, "convert"); /* --version: prints it and exits 0 */
    const char *prog = "convert", *in = NULL, *out = NULL, *to = NULL;
    int isz = 4;
    hspmv_error e = {0, ""};
    hspmv_csr A = {0};
    bu_set_prog(prog);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--to")) {
            to = bu_value(argc, argv, &i);
            if (strcmp(to, "mtx") && strcmp(to, "petsc") && strcmp(to, "petsc64"))
                bu_fail("--to takes mtx, petsc or petsc64, not '%.40s'", to);
        } else if (!strcmp(a, "--index64")) {
            isz = 8;
        } else if (!strcmp(a, "--progress")) {
            bu_progress_set(bu_parse_progress(a, bu_value(argc, argv, &i)));
        } else if (a[0] == '-' && a[1]) {
            bu_fail("unknown option '%.60s' (see %s --help)", a, bu_invoked_name());
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            bu_fail("more than two files given ('%.60s')", a);
        }
    }
    if (!in || !out) bu_fail("%s (usage: %s in out [--to mtx|petsc|petsc64]; see --help)",
                             in ? "no output file given" : "no input file given", bu_invoked_name());
    if (!strcmp(in, "-") || !strcmp(out, "-"))
        bu_fail("'-' is not taken for standard %s: give a file name (./- for a file named '-')",
                !strcmp(in, "-") ? "input" : "output");
    /* the output format: --to, else the name */
    int to_petsc, gz = 0;
    if (to) to_petsc = strcmp(to, "mtx") != 0;
    else if (ends_with(out, ".mtx") || ends_with(out, ".mtx.gz")) to_petsc = 0;
    else if (ends_with(out, ".petsc") || ends_with(out, ".bin")) to_petsc = 1;
    else
        bu_fail("%.200s: the name does not say the output format (.mtx or .mtx.gz: Matrix Market; .petsc or .bin: "
                "PETSc binary); give --to mtx, petsc or petsc64", out);
    if (to && !strcmp(to, "petsc64")) isz = 8;
    if (!to_petsc) gz = ends_with(out, ".gz");
    if (!to_petsc && isz == 8) bu_fail("--index64 applies to PETSc output only (the output here is Matrix Market)");
    /* the output is tried before the read: a temporary name beside it, renamed over it when complete */
    bo_file o;
    char m[1024];
    int st = bo_open(&o, "", out, &in, 1, gz ? BO_STREAM | BO_GZIP : 0, m, sizeof(m));
    if (st) bu_fail_status(st, "%s", m);
    int from_petsc = hspmv_petsc_is_matrix_file(in);

    hspmv_read_opts ro = bu_progress_opts(in);
    double t0 = bu_now();
    if (hspmv_csr_read(in, &A, &ro, NULL, &e)) bu_die(prog, &e);
    bu_step_end();
    double t_read = bu_now() - t0;
    char step[600];
    snprintf(step, sizeof(step), "writing %s", out);
    bu_step_begin(step, 0, out);
    t0 = bu_now();
    int rc = gz ? write_mtx_gz(&o, out, &A, &e)
                : hspmv_csr_write(bo_name(&o), &A,
                                  to_petsc ? (isz == 8 ? HSPMV_FILE_PETSC64 : HSPMV_FILE_PETSC) : HSPMV_FILE_MTX, &e);
    if (rc) {
        name_output(e.msg, sizeof(e.msg), o.tmp, out);
        bo_abort(&o);
    } else if (bo_commit(&o, e.msg, sizeof(e.msg))) e.code = rc = HSPMV_ERR_IO;
    if (rc) bu_step_abort(); /* no "done" for a failed write */
    else bu_step_end();
    double t_write = bu_now() - t0;
    if (rc) {
        hspmv_csr_free(&A);
        bu_die(prog, &e);
    }
    const char *fmt_out = to_petsc ? (isz == 8 ? "petsc64" : "petsc") : gz ? "mtx.gz" : "mtx";
    printf("%s (%s, %.1f MB) -> %s (%s, %.1f MB): %lld x %lld, %lld entries; read_s=%.3f write_s=%.3f\n", in,
           from_petsc ? "PETSc binary" : "Matrix Market", file_mb(in), out,
           to_petsc ? (isz == 8 ? "PETSc binary, 64-bit indices" : "PETSc binary")
                    : gz ? "Matrix Market, gzip" : "Matrix Market",
           file_mb(out), (long long)A.nrows, (long long)A.ncols, (long long)A.nnz, t_read, t_write);
#ifdef _OPENMP
    int threads = omp_get_max_threads();
#else
    int threads = 1;
#endif
    printf("bench=convert in=%s out=%s from=%s to=%s rows=%lld cols=%lld nnz=%lld in_mb=%.3f out_mb=%.3f read_s=%.4f "
           "write_s=%.4f", in, out, from_petsc ? "petsc" : "mtx", fmt_out, (long long)A.nrows, (long long)A.ncols,
           (long long)A.nnz, file_mb(in), file_mb(out), t_read, t_write);
    bu_meta_kv(stdout, 1, threads);
    printf("\n");
    hspmv_csr_free(&A);
    bu_check_stdout();
    return 0;
}
