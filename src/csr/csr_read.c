/* csr_read.c — Matrix Market file straight to CSR; the triplets are freed
   as soon as the CSR exists, so the peak is COO (16 B/entry) + CSR (12 B).
   A PETSc binary file goes to its own reader. */
#include "util.h"
#include "petsc_bin.h"

int hspmv_csr_read(const char *path, hspmv_csr *A, const hspmv_read_opts *opts,
                   hspmv_read_info *info, hspmv_error *err)
{
    hspmv_coo coo;
    if (hspmv_petsc_is_matrix_file(path)) return hspmv_petsc_read_opts(path, A, opts, info, err);
    int rc = hspmv_mtx_read(path, &coo, opts, info, err);
    if (rc != HSPMV_OK) {
        hspmv_csr_free(A);
        return rc;
    }
    rc = hspmv_csr_from_coo(&coo, A, err);
    hspmv_coo_free(&coo);
    return rc;
}
