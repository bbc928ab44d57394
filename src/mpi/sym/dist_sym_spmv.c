/* dist_sym_spmv.c — y = A x on a distributed matrix stored once (dist_sym.h):
   begin the exchange (x up, the mirrored contributions down), multiply
   the owned block, end the exchange, add the ghost block and what came. */
#include <string.h>
#include "dist_sym.h"
#include "local_part.h"
#include "node.h"
#include "util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

enum { TAG_SYM_X = 21, TAG_SYM_C = 22 };

/* c = s G^T x_own: thread t's rows of G into its own copy of c (t = 0:
   S->cout), the copies summed after; one thread when G is small. */
static void contributions(const hspmv_dist *D, const hspmv_real *x)
{
    const hspmv_dist_sym *S = D->sym;
    int64_t ng = D->nghost;
    hspmv_real *c = S->cout, s = (hspmv_real)S->sign;
    if (S->cthreads <= 1) {
        memset(c, 0, sizeof(*c) * (size_t)ng);
        for (int64_t r = 0; r < S->nrows; r++) {
            hspmv_real xi = s * x[S->row[r]];
            for (int64_t k = S->rowptr[r]; k < S->rowptr[r + 1]; k++) c[S->colind[k]] += S->val[k] * xi;
        }
        return;
    }
    int T = S->cthreads;
#pragma omp parallel num_threads(T)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        hspmv_real *ct = t == 0 ? c : S->cpriv[t];
        int64_t r0 = S->nrows * t / T, r1 = S->nrows * (t + 1) / T;
        memset(ct, 0, sizeof(*ct) * (size_t)ng);
        for (int64_t r = r0; r < r1; r++) {
            hspmv_real xi = s * x[S->row[r]];
            for (int64_t k = S->rowptr[r]; k < S->rowptr[r + 1]; k++) ct[S->colind[k]] += S->val[k] * xi;
        }
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t j = 0; j < ng; j++) {
            hspmv_real v = c[j];
            for (int u = 1; u < T; u++) v += S->cpriv[u][j];
            c[j] = v;
        }
    }
}

/* Receives posted (x from the lower ranks, c from the higher), x packed and
   sent up, c computed and sent down. */
static int begin(hspmv_dist *D, const hspmv_real *x)
{
    hspmv_dist_sym *S = D->sym;
    int rc = HSPMV_OK, n = 0, m = 0;
    int64_t ns = D->send_ptr[D->nsend];
    for (int r = 0; r < D->nrecv; r++)
        if (MPI_Irecv(D->xg + D->recv_ptr[r], (int)(D->recv_ptr[r + 1] - D->recv_ptr[r]), HSPMV_MPI_REAL,
                      D->recv_rank[r], TAG_SYM_X, D->comm, &D->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    for (int s = 0; s < D->nsend; s++)
        if (MPI_Irecv(S->cin + D->send_ptr[s], (int)(D->send_ptr[s + 1] - D->send_ptr[s]), HSPMV_MPI_REAL,
                      D->send_rank[s], TAG_SYM_C, D->comm, &S->req[m++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    const int32_t *si = D->send_idx;
    hspmv_real *sb = D->sendbuf;
#pragma omp parallel for num_threads(D->threads) schedule(static) if (ns > 32768)
    for (int64_t k = 0; k < ns; k++) sb[k] = x[si[k]];
    for (int s = 0; s < D->nsend; s++)
        if (MPI_Isend(sb + D->send_ptr[s], (int)(D->send_ptr[s + 1] - D->send_ptr[s]), HSPMV_MPI_REAL,
                      D->send_rank[s], TAG_SYM_X, D->comm, &D->req[n++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    contributions(D, x);
    for (int r = 0; r < D->nrecv; r++)
        if (MPI_Isend(S->cout + D->recv_ptr[r], (int)(D->recv_ptr[r + 1] - D->recv_ptr[r]), HSPMV_MPI_REAL,
                      D->recv_rank[r], TAG_SYM_C, D->comm, &S->req[m++]) != MPI_SUCCESS)
            rc = HSPMV_ERR_MPI;
    return rc;
}

/* y += G x_ghost (rows of G are distinct local rows), then the
   contributions, one neighbour after another (two may name the same row). */
static void rest(hspmv_dist *D, hspmv_real *y)
{
    const hspmv_dist_sym *S = D->sym;
    const hspmv_real *xg = D->xg, *cin = S->cin;
    const int32_t *si = D->send_idx;
    int64_t nr = S->nrows;
#pragma omp parallel for num_threads(D->threads) schedule(static) if (S->nnz > 32768)
    for (int64_t r = 0; r < nr; r++) {
        hspmv_real v = 0;
        for (int64_t k = S->rowptr[r]; k < S->rowptr[r + 1]; k++) v += S->val[k] * xg[S->colind[k]];
        y[S->row[r]] += v;
    }
    for (int s = 0; s < D->nsend; s++) {
        int64_t a = D->send_ptr[s], b = D->send_ptr[s + 1];
#pragma omp parallel for num_threads(D->threads) schedule(static) if (b - a > 32768)
        for (int64_t k = a; k < b; k++) y[si[k]] += cin[k];
    }
}

int hspmv_dist_sym_spmv(hspmv_dist *D, const hspmv_real *x, hspmv_real *y)
{
    hspmv_dist_sym *S = D->sym;
    int n = D->nrecv + D->nsend, rc;
    double t0 = MPI_Wtime(), t1, t2, t3;
    rc = begin(D, x);
    t1 = MPI_Wtime();
    if (!D->Lo && D->nrows_local > 0) memset(y, 0, sizeof(*y) * (size_t)D->nrows_local);
    for (int c = 0; D->Lo && c < D->npieces; c++) {
        hspmv_local_spmv_part(D->Lo, c, D->npieces, x, y, 0);
        if (c + 1 < D->npieces) hspmv_halo_progress(D); /* the x messages; the c ones go with them */
    }
    t2 = MPI_Wtime();
    if (n && hspmv_dist_waitall(D, n, D->req)) rc = HSPMV_ERR_MPI;
    if (n && hspmv_dist_waitall(D, n, S->req)) rc = HSPMV_ERR_MPI;
    t3 = MPI_Wtime();
    rest(D, y);
    D->timing.post_s += t1 - t0;
    D->timing.owned_s += t2 - t1;
    D->timing.wait_s += t3 - t2;
    D->timing.ghost_s += MPI_Wtime() - t3;
    return rc;
}
