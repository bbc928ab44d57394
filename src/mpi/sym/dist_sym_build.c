/* dist_sym_build.c — one-triangle storage of a distributed matrix: the
   ghost block cut to its lower columns (its rows with entries kept), and
   the buffers the contributions travel in. */
#include <string.h>
#include "dist_sym.h"
#include "util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Threads that compute c: one per 2^15 entries (private copies of c cost a
   pass over the ghosts each), at most the rank's. */
#define SYM_C_PER_THREAD ((int64_t)1 << 15)

int hspmv_dist_sym_keep_lower(hspmv_dist *D, hspmv_csr *Ag, int32_t *g, int64_t *ng, int sign, double check_s)
{
    hspmv_dist_sym *S = hspmv_calloc(1, sizeof(*S));
    int64_t rb = D->row_start[D->rank], nlow = 0, nnz = 0, rows = 0;
    if (!S) return HSPMV_ERR_NOMEM;
    D->sym = S;
    S->sign = sign;
    S->check_s = check_s;
    while (nlow < *ng && g[nlow] < rb) nlow++; /* g ascending: the lower ghosts come first */
    for (int64_t i = 0; i < Ag->nrows; i++) {
        int64_t n = 0;
        for (int64_t k = Ag->rowptr[i]; k < Ag->rowptr[i + 1]; k++) n += Ag->colind[k] < nlow;
        nnz += n;
        rows += n > 0;
    }
    S->nrows = rows;
    S->nnz = nnz;
    S->dropped = Ag->nnz - nnz;
    S->row = hspmv_alloc_array((size_t)(rows ? rows : 1), sizeof(int64_t));
    S->rowptr = hspmv_alloc_array((size_t)rows + 1, sizeof(int64_t));
    S->colind = hspmv_alloc_array((size_t)(nnz ? nnz : 1), sizeof(int32_t));
    S->val = hspmv_alloc_array((size_t)(nnz ? nnz : 1), sizeof(hspmv_real));
    if (!S->row || !S->rowptr || !S->colind || !S->val) return HSPMV_ERR_NOMEM;
    int64_t r = 0, z = 0;
    S->rowptr[0] = 0;
    for (int64_t i = 0; i < Ag->nrows; i++) {
        int64_t z0 = z;
        for (int64_t k = Ag->rowptr[i]; k < Ag->rowptr[i + 1]; k++)
            if (Ag->colind[k] < nlow) {
                S->colind[z] = Ag->colind[k];
                S->val[z++] = Ag->val[k];
            }
        if (z > z0) {
            S->row[r] = i;
            S->rowptr[++r] = z;
        }
    }
    /* the ghost block is now S's: nothing left for a prepared one */
    memset(Ag->rowptr, 0, sizeof(int64_t) * (size_t)(Ag->nrows + 1));
    Ag->nnz = 0;
    Ag->ncols = nlow;
    *ng = nlow;
    return HSPMV_OK;
}

int hspmv_dist_sym_buffers(hspmv_dist *D)
{
    hspmv_dist_sym *S = D->sym;
    int64_t nin = D->send_ptr[D->nsend], T = 1;
#ifdef _OPENMP
    T = omp_get_max_threads();
#endif
    if (D->threads > 0) T = D->threads;
    int64_t want = hspmv_test_int(D->test, "sym_cthreads", S->nnz / SYM_C_PER_THREAD); /* tests force the copies */
    S->cthreads = (int)(want < 1 ? 1 : want < T ? want : T);
    S->cout = hspmv_alloc_pages((size_t)(D->nghost ? D->nghost : 1), sizeof(hspmv_real));
    S->cin = hspmv_alloc_pages((size_t)(nin ? nin : 1), sizeof(hspmv_real));
    S->req = hspmv_alloc_array((size_t)(D->nrecv + D->nsend + 1), sizeof(MPI_Request));
    if (!S->cout || !S->cin || !S->req) return HSPMV_ERR_NOMEM;
    if (S->cthreads > 1) {
        S->cpriv = hspmv_calloc((size_t)S->cthreads, sizeof(hspmv_real *));
        if (!S->cpriv) return HSPMV_ERR_NOMEM;
        for (int t = 1; t < S->cthreads; t++)
            if (!(S->cpriv[t] = hspmv_alloc_pages((size_t)(D->nghost ? D->nghost : 1), sizeof(hspmv_real))))
                return HSPMV_ERR_NOMEM;
    }
    return HSPMV_OK;
}

void hspmv_dist_sym_free(hspmv_dist_sym *S)
{
    if (!S) return;
    for (int t = 1; S->cpriv && t < S->cthreads; t++) hspmv_free(S->cpriv[t]);
    hspmv_free(S->cpriv);
    hspmv_free(S->row);
    hspmv_free(S->rowptr);
    hspmv_free(S->colind);
    hspmv_free(S->val);
    hspmv_free(S->cout);
    hspmv_free(S->cin);
    hspmv_free(S->req);
    hspmv_free(S);
}
