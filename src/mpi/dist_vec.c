/* dist_vec.c — vectors between the file ordering on rank 0 and the
   distributed layout (the METIS permutation stays inside), and allocation. */
#include <string.h>
#include "dist.h"
#include "node.h"
#include "util.h"
#include "local_calls.h"

/* The split and, on rank 0, the permutation that applies to a vector kind. */
static const int64_t *layout(const hspmv_dist *D, int which, const int64_t **perm)
{
    *perm = D->permuted ? D->perm : NULL; /* METIS: square, columns like rows */
    return which == HSPMV_VEC_ROWS ? D->row_start : D->col_start;
}

/* counts/displs for Scatterv/Gatherv (sizes are below 2^31 by construction). */
static int counts(const hspmv_dist *D, const int64_t *st, int **cnt, int **dsp)
{
    *cnt = hspmv_alloc_array((size_t)D->size, sizeof(int));
    *dsp = hspmv_alloc_array((size_t)D->size, sizeof(int));
    if (!*cnt || !*dsp) return HSPMV_ERR_NOMEM;
    for (int p = 0; p < D->size; p++) {
        (*cnt)[p] = (int)(st[p + 1] - st[p]);
        (*dsp)[p] = (int)st[p];
    }
    return HSPMV_OK;
}

static int check_which(const hspmv_dist *D, int which, hspmv_error *err)
{
    if (!D) return hspmv_err(err, HSPMV_ERR_ARG, "distributed matrix is NULL");
    if (which != HSPMV_VEC_COLS && which != HSPMV_VEC_ROWS)
        return hspmv_err(err, HSPMV_ERR_ARG, "which = %d is neither HSPMV_VEC_COLS nor HSPMV_VEC_ROWS", which);
    return HSPMV_OK;
}

/* What scatter and gather share: the layout, the vectors' presence, the
   counts and displacements, rank 0's buffer for a permuted layout; agreed. */
typedef struct vec_move {
    const int64_t *perm, *st;
    int *cnt, *dsp;
    hspmv_real *tmp;
    int64_t n, nl;
} vec_move;

static int move_prepare(const hspmv_dist *D, int which, const void *global, const void *local, vec_move *m,
                        hspmv_error *err)
{
    int rc;
    memset(m, 0, sizeof(*m));
    if ((rc = check_which(D, which, err))) return rc;
    m->st = layout(D, which, &m->perm);
    m->n = m->st[D->size];
    m->nl = m->st[D->rank + 1] - m->st[D->rank];
    if (D->rank == 0 && !global && m->n > 0) rc = hspmv_err(err, HSPMV_ERR_ARG, "rank 0: global vector is NULL");
    else if (!local && m->nl > 0) rc = hspmv_err(err, HSPMV_ERR_ARG, "rank %d: local vector is NULL", D->rank);
    else if (counts(D, m->st, &m->cnt, &m->dsp))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank %d: out of memory", D->rank);
    else if (D->rank == 0 && m->perm && !(m->tmp = hspmv_alloc_array((size_t)(m->n ? m->n : 1), sizeof(hspmv_real))))
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "rank 0: out of memory for a vector of %lld entries", (long long)m->n);
    return hspmv_dist_agree(D->comm, rc, err);
}

static void move_free(vec_move *m)
{
    hspmv_free(m->cnt);
    hspmv_free(m->dsp);
    hspmv_free(m->tmp);
}

int hspmv_dist_scatter(const hspmv_dist *D, int which, const hspmv_real *global, hspmv_real *local,
                       hspmv_error *err)
{
    vec_move m;
    int rc = move_prepare(D, which, global, local, &m, err);
    const int64_t *perm = m.perm, n = m.n, nl = m.nl;
    hspmv_real *tmp = m.tmp;
    if (rc) goto out;
    const hspmv_real *src = global;
    if (D->rank == 0 && perm) {
        for (int64_t k = 0; k < n; k++) tmp[k] = global[perm[k]];
        src = tmp;
    }
    if (MPI_Scatterv(src, m.cnt, m.dsp, HSPMV_MPI_REAL, local, (int)nl, HSPMV_MPI_REAL, 0, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Scatterv failed", D->rank);
    rc = hspmv_dist_agree(D->comm, rc, err);
out:
    move_free(&m);
    return rc;
}

int hspmv_dist_gather(const hspmv_dist *D, int which, const hspmv_real *local, hspmv_real *global,
                      hspmv_error *err)
{
    vec_move m;
    int rc = move_prepare(D, which, global, local, &m, err);
    const int64_t *perm = m.perm, n = m.n, nl = m.nl;
    hspmv_real *tmp = m.tmp;
    if (rc) goto out;
    hspmv_real *dst = D->rank == 0 && perm ? tmp : global;
    if (MPI_Gatherv(local, (int)nl, HSPMV_MPI_REAL, dst, m.cnt, m.dsp, HSPMV_MPI_REAL, 0, D->comm) != MPI_SUCCESS)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: MPI_Gatherv failed", D->rank);
    if (!rc && D->rank == 0 && perm)
        for (int64_t k = 0; k < n; k++) global[perm[k]] = tmp[k];
    rc = hspmv_dist_agree(D->comm, rc, err);
out:
    move_free(&m);
    return rc;
}

/* A vector of the node's window when it is an x-like one (or a y-like one
   of a square matrix split like its columns: solvers multiply those too);
   otherwise, or when the window's slots are all lent, private memory on
   huge pages. */
hspmv_real *hspmv_dist_vec_alloc(const hspmv_dist *D, int which, int k)
{
    if (!D || (which != HSPMV_VEC_COLS && which != HSPMV_VEC_ROWS) || k < 1) return NULL;
    int64_t n = which == HSPMV_VEC_ROWS ? D->nrows_local : D->ncols_local;
    int xlike = which == HSPMV_VEC_COLS ||
                (D->nrows == D->ncols && !memcmp(D->row_start, D->col_start, sizeof(int64_t) * (size_t)(D->size + 1)));
    hspmv_real *v = NULL;
    if (D->halo == HSPMV_HALO_NODE && xlike && n > 0 && k == 1) v = hspmv_node_vec_take(D->node);
    if (!v) v = hspmv_alloc_pages((size_t)(n ? n * k : 1), sizeof(hspmv_real));
    if (!v) return NULL;
    /* first touch by the threads that read (x: owned block) or write (y) it */
    if (D->Lo && n > 0) hspmv_local_touch(D->Lo, v, n * k);
    else memset(v, 0, sizeof(*v) * (size_t)(n ? n * k : 1));
    return v;
}
