/* gpu_timing.cu — device-side clocks: products timed with CUDA events, and
   the device-to-device copy rate that the benchmark quotes as its yardstick. */
#include <stdlib.h>
#include "gpu_internal.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* reps+1 events recorded between back-to-back products: no host gaps inside. */
int hspmv_gpu_spmv_time(hspmv_gpu_csr *A, int kernel, const hspmv_real *x, hspmv_real *y,
                        int warmup, int reps, double *ms, hspmv_error *err)
{
    cudaEvent_t *ev = NULL;
    int rc = HSPMV_OK, made = 0;
    if (!A || reps < 1 || warmup < 0 || !ms) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_spmv_time");
    for (int r = 0; r < warmup; r++)
        if ((rc = hspmv_gpu_spmv(A, kernel, x, y, err))) return rc;
    ev = (cudaEvent_t *)hspmv_calloc((size_t)reps + 1, sizeof(*ev));
    if (!ev) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_gpu_spmv_time");
    for (; made <= reps; made++)
        if ((rc = hspmv_cuda_err(cudaEventCreate(&ev[made]), "cudaEventCreate", err))) goto out;
    if ((rc = hspmv_cuda_err(cudaEventRecord(ev[0]), "cudaEventRecord", err))) goto out;
    for (int r = 0; r < reps; r++) {
        if ((rc = hspmv_gpu_spmv(A, kernel, x, y, err))) goto out;
        if ((rc = hspmv_cuda_err(cudaEventRecord(ev[r + 1]), "cudaEventRecord", err))) goto out;
    }
    if ((rc = hspmv_cuda_err(cudaEventSynchronize(ev[reps]), "cudaEventSynchronize", err))) goto out;
    for (int r = 0; r < reps; r++) {
        float t = 0;
        if ((rc = hspmv_cuda_err(cudaEventElapsedTime(&t, ev[r], ev[r + 1]), "cudaEventElapsedTime", err)))
            goto out;
        ms[r] = t;
    }
out:
    for (int r = 0; r < made; r++) cudaEventDestroy(ev[r]);
    hspmv_free(ev);
    return rc;
}

int hspmv_gpu_copy_rate(size_t bytes, int reps, double *gbs, hspmv_error *err)
{
    void *a = NULL, *b = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *t = NULL;
    int rc;
    if (bytes == 0 || reps < 1 || !gbs) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_copy_rate");
    t = (double *)hspmv_calloc((size_t)reps, sizeof(*t));
    if (!t) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_gpu_copy_rate");
    if ((rc = hspmv_cuda_err(cudaMalloc(&a, bytes), "cudaMalloc copy source", err)) ||
        (rc = hspmv_cuda_err(cudaMalloc(&b, bytes), "cudaMalloc copy target", err)) ||
        (rc = hspmv_cuda_err(cudaMemset(a, 1, bytes), "cudaMemset copy source", err)) ||
        (rc = hspmv_cuda_err(cudaEventCreate(&e0), "cudaEventCreate", err)) ||
        (rc = hspmv_cuda_err(cudaEventCreate(&e1), "cudaEventCreate", err)) ||
        (rc = hspmv_cuda_err(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy warm-up", err)))
        goto out;
    for (int r = 0; r < reps; r++) {
        float ms = 0;
        if ((rc = hspmv_cuda_err(cudaEventRecord(e0), "cudaEventRecord", err)) ||
            (rc = hspmv_cuda_err(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync", err)) ||
            (rc = hspmv_cuda_err(cudaEventRecord(e1), "cudaEventRecord", err)) ||
            (rc = hspmv_cuda_err(cudaEventSynchronize(e1), "cudaEventSynchronize", err)) ||
            (rc = hspmv_cuda_err(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime", err)))
            goto out;
        t[r] = ms;
    }
    qsort(t, (size_t)reps, sizeof(*t), cmp_double);
    *gbs = 2.0 * (double)bytes / (t[reps / 2] * 1e-3) / 1e9;
out:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    hspmv_free(t);
    return rc;
}
