/* csr_read.c — Matrix Market file straight to CSR; the triplets are freed
   as soon as the CSR exists, so the peak is COO (16 B/entry) + CSR (12 B).
   A PETSc binary file goes to its own reader. */
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "petsc_bin.h"

int hspmv_csr_read(const char *path, hspmv_csr *A, const hspmv_read_opts *opts,
                   hspmv_read_info *info, hspmv_error *err)
{
    hspmv_coo coo;
    if (!A) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_csr_read: csr must not be NULL");
    memset(A, 0, sizeof(*A)); /* what the caller passes may be uninitialised: never free it */
    if (hspmv_petsc_is_matrix_file(path)) return hspmv_petsc_read_opts(path, A, opts, info, err);
    int rc = hspmv_mtx_read(path, &coo, opts, info, err);
    if (rc != HSPMV_OK) return rc;
    rc = hspmv_csr_from_coo(&coo, A, err);
    hspmv_coo_free(&coo);
    if (rc == HSPMV_ERR_FORMAT && err) { /* a fault of the file's values: name the file */
        char why[sizeof(err->msg)];
        snprintf(why, sizeof(why), "%s", err->msg);
        hspmv_err_file(err, rc, path, 0, "%s", why);
    }
    return rc;
}
