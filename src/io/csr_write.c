/* csr_write.c — hspmv_csr_write: one entry point for both file formats,
   choosing the writer by the format asked for or by the file's name. */
#include <string.h>
#include "matrix_files.h"
#include "util.h"

/* 1 when name ends with suffix. */
static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n >= k && !strcmp(name + n - k, suffix);
}

/* The format a name asks for: HSPMV_FILE_MTX, _PETSC, or -1 for none. */
static int format_of_name(const char *path)
{
    if (ends_with(path, ".mtx")) return HSPMV_FILE_MTX;
    if (ends_with(path, ".petsc") || ends_with(path, ".bin")) return HSPMV_FILE_PETSC;
    return -1;
}

int hspmv_csr_write(const char *path, const hspmv_csr *A, int format, hspmv_error *err)
{
    if (!path) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_csr_write: no file name");
    if (!A) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_csr_write: %s: no matrix", path);
    if (format == HSPMV_FILE_AUTO && (format = format_of_name(path)) < 0)
        return hspmv_err(err, HSPMV_ERR_ARG,
                         "%s: not written: the name does not say the format (.mtx: Matrix Market; .petsc or "
                         ".bin: PETSc binary); name the format (HSPMV_FILE_MTX, _PETSC, _PETSC64) instead", path);
    switch (format) {
    case HSPMV_FILE_MTX: return hspmv_mtx_write(path, A, err);
    case HSPMV_FILE_PETSC: return hspmv_petsc_write(path, A, 4, err);
    case HSPMV_FILE_PETSC64: return hspmv_petsc_write(path, A, 8, err);
    default:
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: not written: format %d is none of HSPMV_FILE_AUTO, _MTX, _PETSC, "
                         "_PETSC64", path, format);
    }
}
