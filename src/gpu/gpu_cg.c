/* gpu_cg.c — conjugate gradients with every vector on the GPUs: the product
   queued without waiting for it (hspmv_gpu_dist_spmv_nowait), each dot
   product summed on the device in double and then across ranks by one
   MPI_Allreduce, which is the only wait for the device and the only
   message between ranks besides the halo (two per iteration; a failed
   launch rides along to the next one); p'q summed inside the product
   where its kernel can; x, r and r'r updated in one pass;
   the time split into the product, the vector kernels, the waits for the
   device and the reductions; the stopping rule of hspmv_solve's CG
   (recurrence residual, then the true one). */
#include <math.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "dist.h"
#include "gpu_dist.h"
#include "gpu_dev.h"
#include "util.h"

static const char *who = "hspmv_gpu_cg";

typedef struct cg_ws {
    hspmv_gpu_dist *G;
    int64_t n;
    double *partial, *d_out; /* device scratch of the dot products */
    double *wdot;            /* the fused product's warp sums of p'q (hspmv_gpu_dist_dot_fusable), or NULL */
    double spmv_s, vec_ms, wait_s, reduce_s;
    cudaEvent_t ev[8];       /* begin and end of the vector kernels queued since the last wait */
    int nev, timed;          /* pairs queued; events made */
} cg_ws;

/* Marks the start and the end of vector kernels on the legacy default
   stream; their device time is read at the next wait (vec_flush). */
static void vec_begin(cg_ws *w)
{
    if (w->timed && w->nev < 4) cudaEventRecord(w->ev[2 * w->nev], 0);
}

static void vec_end(cg_ws *w)
{
    if (w->timed && w->nev < 4) cudaEventRecord(w->ev[2 * w->nev++ + 1], 0);
}

static void vec_flush(cg_ws *w)
{
    for (int k = 0; k < w->nev; k++) {
        float ms = 0;
        if (cudaEventElapsedTime(&ms, w->ev[2 * k], w->ev[2 * k + 1]) == cudaSuccess) w->vec_ms += ms;
    }
    w->nev = 0;
}

/* s[j] = the sums over all ranks of out[j] (m = 1 or 2) of the kernels just
   queued: the wait for the device, then one MPI_Allreduce; fail: a local
   failure so far. Collective; every rank gets the same status. */
static int reduce(cg_ws *w, int m, int fail, double *s, hspmv_error *err)
{
    double loc[3] = {0, 0, 0}, sum[3];
    int rc = fail;
    double t = MPI_Wtime();
    if (!rc && cudaMemcpy(loc, w->d_out, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess)
        rc = hspmv_err(err, HSPMV_ERR_CUDA, "rank %d: %s: the product or a dot product failed on the device",
                       w->G->rank, who);
    w->wait_s += MPI_Wtime() - t;
    if (!rc) w->spmv_s += hspmv_gpu_dist_count(w->G) * 1e-3; /* the product before, now done */
    if (!rc) vec_flush(w);
    loc[2] = rc ? 1 : 0;
    t = MPI_Wtime();
    if (MPI_Allreduce(loc, sum, 3, MPI_DOUBLE, MPI_SUM, w->G->comm) != MPI_SUCCESS && !rc)
        rc = hspmv_err(err, HSPMV_ERR_MPI, "rank %d: %s: MPI_Allreduce failed", w->G->rank, who);
    w->reduce_s += MPI_Wtime() - t;
    if (sum[2] > 0 || rc) return hspmv_dist_agree(w->G->comm, rc, err);
    s[0] = sum[0];
    s[1] = sum[1];
    return HSPMV_OK;
}

/* s[j] = sum over all ranks of a_j . b_j (m = 1 or 2); fail: a local failure
   so far. Collective; every rank gets the same status. */
static int dots(cg_ws *w, int m, const hspmv_real *a0, const hspmv_real *b0, const hspmv_real *a1,
                const hspmv_real *b1, int fail, double *s, hspmv_error *err)
{
    const hspmv_real *a[2] = {a0, a1}, *b[2] = {b0, b1};
    int rc = fail;
    if (!rc) {
        vec_begin(w);
        rc = hspmv_gpu_dots(m, a, b, w->n, w->partial, w->d_out, err);
        vec_end(w);
    }
    return reduce(w, m, rc, s, err);
}

/* q = A*x queued; its device time is counted by the next dot product. */
static int spmv(cg_ws *w, const hspmv_real *x, hspmv_real *y, hspmv_error *err)
{
    return hspmv_gpu_dist_spmv_nowait(w->G, x, y, err);
}

/* r = b - A x and *rr = r'r (all ranks); fail: a local failure so far. */
static int residual(cg_ws *w, const hspmv_real *b, const hspmv_real *x, hspmv_real *r, hspmv_real *q, double *rr,
                    int fail, hspmv_error *err)
{
    double s[2] = {0, 0};
    int rc = fail ? fail : spmv(w, x, q, err);
    if (!rc) {
        vec_begin(w);
        rc = hspmv_gpu_sub(w->n, b, q, r, err);
        vec_end(w);
    }
    if ((rc = dots(w, 1, r, r, NULL, NULL, rc, s, err))) return rc;
    *rr = s[0];
    return HSPMV_OK;
}

int hspmv_gpu_cg(hspmv_gpu_dist *G, const hspmv_real *b, hspmv_real *x, double tol, int64_t maxit,
                 hspmv_gpu_cg_result *res, hspmv_error *err)
{
    cg_ws w;
    hspmv_real *r = NULL, *p = NULL, *q = NULL;
    hspmv_gpu_cg_result out;
    double s[2] = {0, 0}, bnorm = 0, rz, relres, rr = 0, t0 = MPI_Wtime();
    int64_t it = 0;
    int rc = HSPMV_OK, f = 0;
    memset(&out, 0, sizeof(out));
    memset(&w, 0, sizeof(w));
    if (!G) return hspmv_err(err, HSPMV_ERR_ARG, "%s: no matrix", who);
    if (G->info.nrows != G->info.ncols) /* agreed values: the same refusal everywhere */
        return hspmv_err(err, HSPMV_ERR_ARG, "%s: the matrix is %lld x %lld, not square", who,
                         (long long)G->info.nrows, (long long)G->info.ncols);
    if (!(tol > 0) || maxit < 0) return hspmv_err(err, HSPMV_ERR_ARG, "%s: tol %g, maxit %lld", who, tol, (long long)maxit);
    w.G = G;
    w.n = G->info.nrows_local;
    if (hspmv_gpu_vec_create(w.n, &r, err) || hspmv_gpu_vec_create(w.n, &p, err) || hspmv_gpu_vec_create(w.n, &q, err) ||
        cudaMalloc((void **)&w.partial, (size_t)hspmv_gpu_dot_scratch() * sizeof(double)) != cudaSuccess ||
        cudaMalloc((void **)&w.d_out, 2 * sizeof(double)) != cudaSuccess ||
        cudaMemset(w.partial, 0, (size_t)hspmv_gpu_dot_scratch() * sizeof(double)) != cudaSuccess)
        rc = hspmv_err(err, HSPMV_ERR_CUDA, "rank %d: %s: no device memory for 3 vectors of %lld entries", G->rank,
                       who, (long long)w.n);
    w.timed = 1; /* without events the phases are not split, the solve goes on */
    for (int k = 0; k < 8; k++)
        if (w.timed && cudaEventCreate(&w.ev[k]) != cudaSuccess) {
            for (int j = 0; j < k; j++) cudaEventDestroy(w.ev[j]);
            w.timed = 0;
            cudaGetLastError();
        }
    /* p'q inside the product where this rank's kernel can (else, or without the scratch, a dot kernel) */
    if (!rc && hspmv_gpu_dist_dot_fusable(G) &&
        cudaMalloc((void **)&w.wdot, (size_t)hspmv_gpu_dot_rows_scratch(w.n) * sizeof(double)) != cudaSuccess) {
        w.wdot = NULL;
        cudaGetLastError();
    }
    {
        int fused = w.wdot != NULL, all = 0;
        MPI_Allreduce(&fused, &all, 1, MPI_INT, MPI_MIN, G->comm);
        out.vector_passes = all ? 9 : 11; /* p'q 2 (0 inside the product), x r r'r 6, p 3 */
    }
    if (!rc && w.n > 0 && (!b || !x)) rc = hspmv_err(err, HSPMV_ERR_ARG, "rank %d: %s: b or x is NULL", G->rank, who);
    if ((rc = hspmv_dist_agree(G->comm, rc, err))) goto release;
    t0 = MPI_Wtime();
    if ((rc = dots(&w, 1, b, b, NULL, NULL, 0, s, err))) goto done;
    bnorm = sqrt(s[0]);
    if (!isfinite(bnorm)) {
        rc = hspmv_err(err, HSPMV_ERR_ARG, "%s: b holds an inf or nan", who);
        goto done;
    }
    if (bnorm == 0) { /* A*0 = 0 */
        f = w.n > 0 && cudaMemset(x, 0, (size_t)w.n * sizeof(hspmv_real)) != cudaSuccess;
        rc = hspmv_dist_agree(G->comm, f ? hspmv_err(err, HSPMV_ERR_CUDA, "rank %d: cudaMemset x", G->rank) : 0, err);
        goto done;
    }
    if ((rc = residual(&w, b, x, r, q, &rr, 0, err))) goto done;
    for (;;) { /* (re)start from the true residual in r */
        f = w.n > 0 && cudaMemcpy(p, r, (size_t)w.n * sizeof(hspmv_real), cudaMemcpyDeviceToDevice) != cudaSuccess;
        if ((rc = hspmv_dist_agree(G->comm, f ? hspmv_err(err, HSPMV_ERR_CUDA, "rank %d: %s: copy on the device",
                                                          G->rank, who) : 0, err)))
            goto done;
        rz = rr;
        relres = sqrt(rr) / bnorm;
        for (;;) {
            if (relres <= tol) { /* confirmed by the true residual, or it replaces the recurrence's */
                if ((rc = residual(&w, b, x, q, p, &rr, f, err))) goto done;
                out.relres = sqrt(rr) / bnorm;
                if (out.relres <= tol) goto done;
                hspmv_real *t = r;
                r = q;
                q = t;
                out.restarts++;
                break;
            }
            if ((it >= maxit || !(rz > 0)) && (rc = hspmv_dist_agree(G->comm, f, err))) goto done; /* the last xpby's */
            if (it >= maxit) {
                rc = hspmv_err(err, HSPMV_ERR_NOCONV, "%s: no convergence in %lld iterations: relative residual "
                               "%.3e > tol %.3e", who, (long long)it, relres, tol);
                goto done;
            }
            if (!(rz > 0)) {
                rc = hspmv_err(err, HSPMV_ERR_BREAKDOWN, "%s: breakdown at iteration %lld: r'r = %.3e", who,
                               (long long)it + 1, rz);
                goto done;
            }
            if (w.wdot) { /* the warps' sums of p_i*q_i as q is made, then their sum */
                if (!f) f = hspmv_gpu_dist_spmv_dot_nowait(G, p, q, w.wdot, err);
                if (!f) {
                    vec_begin(&w);
                    f = hspmv_gpu_sum(w.wdot, hspmv_gpu_dot_rows_scratch(w.n), w.partial, w.d_out, err);
                    vec_end(&w);
                }
                if ((rc = reduce(&w, 1, f, s, err))) goto done;
            } else {
                if (!f) f = spmv(&w, p, q, err);
                if ((rc = dots(&w, 1, p, q, NULL, NULL, f, s, err))) goto done;
            }
            if (!(s[0] > 0)) {
                rc = hspmv_err(err, HSPMV_ERR_BREAKDOWN, "%s: breakdown at iteration %lld: p'Ap = %.3e <= 0 "
                               "(matrix not symmetric positive definite)", who, (long long)it + 1, s[0]);
                goto done;
            }
            double alpha = rz / s[0];
            vec_begin(&w);
            f = hspmv_gpu_cg_update(w.n, alpha, p, q, x, r, w.partial, w.d_out, err);
            vec_end(&w);
            if ((rc = reduce(&w, 1, f, s, err))) goto done;
            rr = s[0];
            relres = sqrt(rr) / bnorm;
            it++;
            if (!isfinite(relres)) {
                rc = hspmv_err(err, HSPMV_ERR_BREAKDOWN, "%s: breakdown at iteration %lld: residual is not finite",
                               who, (long long)it);
                goto done;
            }
            vec_begin(&w);
            f = hspmv_gpu_xpby(w.n, r, rr / rz, p, err); /* a failure agreed by the next dot product */
            vec_end(&w);
            rz = rr;
        }
    }
done:
    if (rc == HSPMV_ERR_NOCONV || rc == HSPMV_ERR_BREAKDOWN) { /* the true residual of what is left */
        hspmv_error e2;
        if (!residual(&w, b, x, q, p, &rr, 0, &e2)) out.relres = sqrt(rr) / bnorm;
    }
    {
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(&t, &out.seconds, 1, MPI_DOUBLE, MPI_MAX, G->comm);
    }
release:
    out.iterations = it;
    out.spmv_seconds = w.spmv_s;
    out.vector_seconds = w.vec_ms * 1e-3;
    out.wait_seconds = w.wait_s;
    out.reduce_seconds = w.reduce_s;
    if (res) *res = out;
    if (w.timed)
        for (int k = 0; k < 8; k++) cudaEventDestroy(w.ev[k]);
    hspmv_gpu_vec_destroy(&r);
    hspmv_gpu_vec_destroy(&p);
    hspmv_gpu_vec_destroy(&q);
    cudaFree(w.partial);
    cudaFree(w.d_out);
    cudaFree(w.wdot);
    return rc;
}
