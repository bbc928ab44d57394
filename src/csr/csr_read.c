/* csr_read.c — Matrix Market file straight to CSR: a plain file in byte
   ranges by the process's threads (csr_read_threads.c), anything else (one
   thread, gzip, a pipe) whole, the triplets freed as soon as the CSR exists,
   so the peak is COO (16 B/entry) + CSR (12 B). A PETSc binary file goes to
   its own reader. */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include "csr_read_threads.h"
#include "petsc_bin.h"
#include "csr.h"

int hspmv_csr_read(const char *path, hspmv_csr *A, const hspmv_read_opts *opts,
                   hspmv_read_info *info, hspmv_error *err)
{
    hspmv_coo coo;
    if (!A) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_csr_read: csr must not be NULL");
    memset(A, 0, sizeof(*A)); /* what the caller passes may be uninitialised: never free it */
    if (!path) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_csr_read: path must not be NULL");
    int threads = opts && opts->threads > 0 ? opts->threads : omp_get_max_threads();
    if (opts && opts->threads < 0)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_csr_read: %d read threads (0 = omp_get_max_threads())",
                         opts->threads);
    if (threads > hspmv_max_threads())
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_csr_read: %d read threads%s, more than the %d allowed "
                         "(8 per processor, at least 256)", threads,
                         opts && opts->threads > 0 ? "" : " (omp_get_max_threads(), OMP_NUM_THREADS)",
                         hspmv_max_threads());
    if (hspmv_petsc_is_matrix_file(path)) return hspmv_petsc_read_opts(path, A, opts, info, err);
    int rc = hspmv_test_check(hspmv_test_spec(), err); /* a bad test switch is refused, not ignored */
    if (rc != HSPMV_OK) return rc;
    int64_t chunk = hspmv_mtx_read_chunk_env();
    if (threads > 1 || chunk > 0) {
        mtx_prologue pr;
        rc = hspmv_mtx_read_prologue(path, &pr, err);
        if (rc == HSPMV_OK && pr.splittable) { /* the whole-file reader's memory refusal, before any allocation */
            int64_t most = (pr.file_size - pr.data_offset + 1) / hspmv_mtx_min_entry_bytes(&pr.h);
            rc = hspmv_mtx_check_memory(&pr.h, most < pr.h.nnz ? most : pr.h.nnz, path, pr.lines, err);
        }
        if (rc != HSPMV_OK) {
            if (info) memset(info, 0, sizeof(*info));
            return rc;
        }
        if (pr.splittable) return hspmv_csr_read_ranges(path, &pr, threads, chunk, A, opts, info, err);
    }
    rc = hspmv_mtx_read(path, &coo, opts, info, err);
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
