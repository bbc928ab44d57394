/* test_csr_write.c — hspmv_csr_write, the one writer of both file formats:
   the format told by the name (.mtx, .petsc, .bin) or asked for, each read
   back by hspmv_csr_read to the same bits, and the refusals (a name that
   says no format, an unknown format, bad arguments) with their message. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "testlib.h"
#include "matrix_files.h"

static char tmpdir[256];
static hspmv_csr A; /* the matrix every test writes */

/* A path in this test's temp folder. */
static const char *tpath(const char *name)
{
    static char p[4][400];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof(p[i]), "%s/%s", tmpdir, name);
    return p[i];
}

static int same_csr(const hspmv_csr *a, const hspmv_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz) return 0;
    if (memcmp(a->rowptr, b->rowptr, sizeof(int64_t) * (size_t)(a->nrows + 1))) return 0;
    return a->nnz == 0 || (!memcmp(a->colind, b->colind, sizeof(int32_t) * (size_t)a->nnz) &&
                           !memcmp(a->val, b->val, sizeof(hspmv_real) * (size_t)a->nnz));
}

/* Writes A to name in format, reads it back: 1 when it is A again and the
   file is of the kind expected (PETSc binary or not, its integer width by size). */
static int round_trip(const char *name, int format, int petsc, int index_bytes)
{
    hspmv_error e = {0, ""};
    hspmv_csr B = {0};
    const char *path = tpath(name);
    int rc = hspmv_csr_write(path, &A, format, &e);
    CHECK(rc == HSPMV_OK, "%s: %s", name, e.msg);
    if (rc) return 0;
    CHECK(hspmv_petsc_is_matrix_file(path) == petsc, "%s: PETSc binary: %d, wanted %d", name,
          hspmv_petsc_is_matrix_file(path), petsc);
    if (petsc) { /* header 4 ints, lengths, columns (index_bytes each), values (8 bytes) */
        struct stat st;
        long long want = (4 + A.nrows + A.nnz) * (long long)index_bytes + 8 * A.nnz;
        CHECK(stat(path, &st) == 0 && st.st_size == want, "%s: %lld bytes, wanted %lld", name,
              (long long)st.st_size, want);
    }
    rc = hspmv_csr_read(path, &B, NULL, NULL, &e);
    CHECK(rc == HSPMV_OK && same_csr(&A, &B), "%s: read back: %s", name, rc ? e.msg : "different matrix");
    int ok = rc == HSPMV_OK && same_csr(&A, &B);
    hspmv_csr_free(&B);
    return ok;
}

static void auto_takes_the_format_from_the_name(void)
{
    round_trip("a.mtx", HSPMV_FILE_AUTO, 0, 0);
    round_trip("a.petsc", HSPMV_FILE_AUTO, 1, 4);
    round_trip("a.bin", HSPMV_FILE_AUTO, 1, 4);
}

static void a_format_asked_for_wins_over_the_name(void)
{
    round_trip("b.petsc", HSPMV_FILE_MTX, 0, 0);
    round_trip("b.data", HSPMV_FILE_PETSC, 1, 4);
    round_trip("b.mtx", HSPMV_FILE_PETSC64, 1, 8);
}

static void a_name_without_a_known_ending_is_refused_naming_it(void)
{
    hspmv_error e = {0, ""};
    const char *names[] = {"c.txt", "c", "c.mtx.gz", "c.MTX", "c.petsc.old"};
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        const char *path = tpath(names[k]);
        e.msg[0] = 0;
        int rc = hspmv_csr_write(path, &A, HSPMV_FILE_AUTO, &e);
        CHECK(rc == HSPMV_ERR_ARG && e.code == HSPMV_ERR_ARG && strstr(e.msg, path) && strstr(e.msg, ".mtx") &&
                  strstr(e.msg, ".petsc") && strstr(e.msg, ".bin"),
              "%s: rc %d: %s", names[k], rc, e.msg);
        CHECK(access(path, F_OK) != 0, "%s: a file was left", names[k]);
    }
}

static void bad_arguments_are_refused(void)
{
    hspmv_error e = {0, ""};
    CHECK(hspmv_csr_write(tpath("d.mtx"), &A, 99, &e) == HSPMV_ERR_ARG && strstr(e.msg, "format 99"), "%s", e.msg);
    CHECK(hspmv_csr_write(tpath("d.mtx"), &A, -1, &e) == HSPMV_ERR_ARG, "%s", e.msg);
    CHECK(hspmv_csr_write(NULL, &A, HSPMV_FILE_MTX, &e) == HSPMV_ERR_ARG, "%s", e.msg);
    CHECK(hspmv_csr_write(tpath("d.mtx"), NULL, HSPMV_FILE_MTX, &e) == HSPMV_ERR_ARG && strstr(e.msg, "d.mtx"),
          "%s", e.msg);
    CHECK(hspmv_csr_write(tpath("d.mtx"), &A, HSPMV_FILE_MTX, NULL) == HSPMV_OK, "no err record");
    /* the writers' own refusals come through: a value that is not finite */
    hspmv_real keep = A.val[0];
    A.val[0] = (hspmv_real)HUGE_VAL;
    CHECK(hspmv_csr_write(tpath("e.petsc"), &A, HSPMV_FILE_AUTO, &e) != HSPMV_OK && strstr(e.msg, "e.petsc"), "%s",
          e.msg);
    A.val[0] = keep;
}

int main(void)
{
    const char *t = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmpdir, sizeof(tmpdir), "%s/hspmv_write_XXXXXX", t);
    if (!mkdtemp(tmpdir)) {
        printf("cannot make a temp folder in %s: %s\n0 passed, 1 failed\n", t, strerror(errno));
        return 1;
    }
    if (tl_csr_random(&A, 57, 43, NULL, 5, 0, 7)) {
        printf("out of memory\n0 passed, 1 failed\n");
        return 1;
    }
    RUN(auto_takes_the_format_from_the_name);
    RUN(a_format_asked_for_wins_over_the_name);
    RUN(a_name_without_a_known_ending_is_refused_naming_it);
    RUN(bad_arguments_are_refused);
    hspmv_csr_free(&A);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    CHECK_DONE();
}
