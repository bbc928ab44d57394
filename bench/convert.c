/* convert.c — Matrix Market (plain or gzip) to PETSc binary and back; the
   direction comes from the input's first bytes, not from its name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "bench_util.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: convert in out [--to petsc|mtx] [--index64]\n"
            "  A PETSc binary matrix (told by its class id) becomes Matrix Market (coordinate real\n"
            "  general, every value in the fewest digits that read back to the same bits); anything\n"
            "  else is read as Matrix Market (.mtx or .mtx.gz; symmetric files are expanded) and\n"
            "  written as a PETSc binary matrix (what MatLoad reads). --to forces the output format;\n"
            "  --index64 writes 8-byte integers (PETSc built --with-64-bit-indices).\n");
}

static double file_mb(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0;
}

int main(int argc, char **argv)
{
    const char *prog = "convert", *in = NULL, *out = NULL, *to = NULL;
    int isz = 4;
    hspmv_error e = {0, ""};
    hspmv_csr A = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--to") && i + 1 < argc && (!strcmp(argv[i + 1], "petsc") || !strcmp(argv[i + 1], "mtx"))) {
            to = argv[++i];
        } else if (!strcmp(a, "--index64")) {
            isz = 8;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "%s: error: unknown option or bad value '%s'\n", prog, a);
            usage(stderr);
            return 2;
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            fprintf(stderr, "%s: error: more than two files given ('%s')\n", prog, a);
            return 2;
        }
    }
    if (!in || !out) {
        fprintf(stderr, "%s: error: %s\n", prog, in ? "no output file given" : "no input file given");
        usage(stderr);
        return 2;
    }
    int from_petsc = hspmv_petsc_is_matrix_file(in);
    int to_petsc = to ? !strcmp(to, "petsc") : !from_petsc;
    if (!to_petsc && isz == 8) {
        fprintf(stderr, "%s: error: --index64 applies to PETSc output only (the output here is Matrix Market)\n", prog);
        return 2;
    }
    double t0 = bu_now();
    if (hspmv_csr_read(in, &A, NULL, NULL, &e)) bu_die(prog, &e);
    double t_read = bu_now() - t0;
    t0 = bu_now();
    int rc = hspmv_csr_write(out, &A, to_petsc ? (isz == 8 ? HSPMV_FILE_PETSC64 : HSPMV_FILE_PETSC) : HSPMV_FILE_MTX, &e);
    double t_write = bu_now() - t0;
    if (rc) {
        hspmv_csr_free(&A);
        bu_die(prog, &e);
    }
    printf("%s (%s, %.1f MB) -> %s (%s, %.1f MB): %lld x %lld, %lld entries; read_s=%.3f write_s=%.3f\n", in,
           from_petsc ? "PETSc binary" : "Matrix Market", file_mb(in), out,
           to_petsc ? (isz == 8 ? "PETSc binary, 64-bit indices" : "PETSc binary") : "Matrix Market", file_mb(out),
           (long long)A.nrows, (long long)A.ncols, (long long)A.nnz, t_read, t_write);
    hspmv_csr_free(&A);
    return 0;
}
