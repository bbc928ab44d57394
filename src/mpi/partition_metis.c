/* partition_metis.c — METIS k-way on the symmetrised graph of a square
   matrix; rows renumbered so each part is contiguous (no MPI). Built
   without METIS (make NO_METIS=1, where the machine lacks it) it refuses. */
#include <stdlib.h>
#include "dist.h"
#include "util.h"
#ifdef HSPMV_NO_METIS
int hspmv_partition_metis(const hspmv_csr *A, int P, int64_t *start, int64_t *perm, hspmv_error *err)
{
    (void)A, (void)P, (void)start, (void)perm;
    return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "this hspmv was built without METIS (make NO_METIS=1): "
                     "use --partition nnz or rows");
}
#else
#include <metis.h>

/* Graph of A + A^T without the diagonal, in METIS's CSR (xadj, adjncy). */
static int sym_graph(const hspmv_csr *A, idx_t **xadj_out, idx_t **adj_out, hspmv_error *err)
{
    int64_t n = A->nrows;
    const int64_t *rp = A->rowptr;
    const int32_t *ci = A->colind;
    idx_t *deg = calloc((size_t)n + 1, sizeof(idx_t)), *xadj = NULL, *adj = NULL, *fill = NULL;
    if (!deg) goto nomem;
    /* count A's off-diagonal entries and, for those without a mirror, the mirror */
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int64_t j = ci[k];
            if (j == i) continue;
            deg[i]++;
            /* is (j, i) stored? binary search row j */
            int64_t lo = rp[j], hi = rp[j + 1];
            while (lo < hi) {
                int64_t m = lo + (hi - lo) / 2;
                if (ci[m] < i) lo = m + 1;
                else hi = m;
            }
            if (lo == rp[j + 1] || ci[lo] != i) deg[j]++;
        }
    xadj = malloc(((size_t)n + 1) * sizeof(idx_t));
    fill = malloc(((size_t)n + 1) * sizeof(idx_t));
    if (!xadj || !fill) goto nomem;
    xadj[0] = 0;
    for (int64_t i = 0; i < n; i++) xadj[i + 1] = xadj[i] + deg[i];
    adj = malloc((size_t)(xadj[n] > 0 ? xadj[n] : 1) * sizeof(idx_t));
    if (!adj) goto nomem;
    for (int64_t i = 0; i <= n; i++) fill[i] = xadj[i];
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int64_t j = ci[k];
            if (j == i) continue;
            adj[fill[i]++] = (idx_t)j;
            int64_t lo = rp[j], hi = rp[j + 1];
            while (lo < hi) {
                int64_t m = lo + (hi - lo) / 2;
                if (ci[m] < i) lo = m + 1;
                else hi = m;
            }
            if (lo == rp[j + 1] || ci[lo] != i) adj[fill[j]++] = (idx_t)i;
        }
    free(deg);
    free(fill);
    *xadj_out = xadj;
    *adj_out = adj;
    return HSPMV_OK;
nomem:
    free(deg);
    free(xadj);
    free(adj);
    free(fill);
    return hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for the METIS graph of %lld rows",
                     (long long)n);
}

int hspmv_partition_metis(const hspmv_csr *A, int P, int64_t *start, int64_t *perm, hspmv_error *err)
{
    int64_t n = A->nrows;
    idx_t *xadj = NULL, *adj = NULL, *part = NULL, *vw = NULL;
    int rc;

    if (A->nrows != A->ncols)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED,
                         "METIS partitioning needs a square matrix, this one is %lld x %lld "
                         "(use --partition nnz or rows)", (long long)A->nrows, (long long)A->ncols);
    if (sizeof(idx_t) == 4 && A->nnz > (int64_t)(IDX_MAX / 2))
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED,
                         "METIS was built with 32-bit idx_t; %lld nonzeros are too many for its graph "
                         "(use --partition nnz)", (long long)A->nnz);
    if ((rc = sym_graph(A, &xadj, &adj, err))) return rc;
    part = calloc((size_t)n + 1, sizeof(idx_t));
    vw = malloc(((size_t)n + 1) * sizeof(idx_t));
    if (!part || !vw) {
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for the METIS partition");
        goto out;
    }
    /* balance nonzeros, not rows: vertex weight = row length (at least 1) */
    for (int64_t i = 0; i < n; i++) {
        int64_t k = A->rowptr[i + 1] - A->rowptr[i];
        vw[i] = (idx_t)(k > 0 ? k : 1);
    }
    if (P > 1 && n >= P && xadj[n] > 0) {
        idx_t nv = (idx_t)n, ncon = 1, np = P, objval = 0, opt[METIS_NOPTIONS];
        METIS_SetDefaultOptions(opt);
        opt[METIS_OPTION_SEED] = 1;                     /* reproducible */
        opt[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_VOL;  /* minimise the halo volume, not the edge cut */
        int mr = METIS_PartGraphKway(&nv, &ncon, xadj, adj, vw, NULL, NULL, &np, NULL, NULL, opt,
                                     &objval, part);
        if (mr != METIS_OK) {
            rc = hspmv_err(err, mr == METIS_ERROR_MEMORY ? HSPMV_ERR_NOMEM : HSPMV_ERR_UNSUPPORTED,
                           "rank 0: METIS_PartGraphKway failed (status %d) on %lld rows, %d parts",
                           mr, (long long)n, P);
            goto out;
        }
    } else {
        /* one part, fewer rows than parts, or no edges: METIS has nothing to
           cut; fall back to the nnz rule with the identity order */
        int64_t *s = start;
        hspmv_partition_nnz(A->rowptr, n, P, s);
        for (int p = 0; p < P; p++)
            for (int64_t i = s[p]; i < s[p + 1]; i++) part[i] = p;
    }
    /* counting sort of rows by part, stable: new order keeps file order inside a part */
    for (int p = 0; p <= P; p++) start[p] = 0;
    for (int64_t i = 0; i < n; i++) start[part[i] + 1]++;
    for (int p = 0; p < P; p++) start[p + 1] += start[p];
    {
        int64_t *pos = malloc(((size_t)P + 1) * sizeof(int64_t));
        if (!pos) {
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for the METIS permutation");
            goto out;
        }
        for (int p = 0; p < P; p++) pos[p] = start[p];
        for (int64_t i = 0; i < n; i++) perm[pos[part[i]]++] = i;
        free(pos);
    }
    rc = hspmv_ok(err);
out:
    free(xadj);
    free(adj);
    free(part);
    free(vw);
    return rc;
}
#endif /* HSPMV_NO_METIS */
