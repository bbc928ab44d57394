/* spmv_cusparse.cu — cuSPARSE's CSR SpMV on the same device arrays, the
   yardstick for the kernels here. cuSPARSE wants row offsets and column
   indices of one index type, so it gets a 32-bit copy of the row pointers. */
#include <cusparse.h>
#include "gpu_internal.h"

#ifdef HSPMV_SINGLE
#define SP_REAL CUDA_R_32F
#else
#define SP_REAL CUDA_R_64F
#endif

struct hspmv_cusparse_state {
    cusparseHandle_t handle;
    int32_t *rp32;                      /* nrows+1, device */
    cusparseConstSpMatDescr_t mat[2];   /* one per algorithm: each keeps its own preprocessing */
    cusparseConstDnVecDescr_t vx[2];
    cusparseDnVecDescr_t vy[2];
    const void *x[2];
    void *y[2];
    void *buf[2];
};

static int sp_err(cusparseStatus_t s, const char *what, hspmv_error *err)
{
    if (s == CUSPARSE_STATUS_SUCCESS) return HSPMV_OK;
    return hspmv_err(err, HSPMV_ERR_CUDA, "%s: %s", what, cusparseGetErrorString(s));
}

__global__ void rowptr_to_32(int64_t n, const int64_t *__restrict__ rp, int32_t *__restrict__ rp32)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) rp32[i] = (int32_t)rp[i];
}

void hspmv_gpu_cusparse_free(hspmv_gpu_csr *A)
{
    struct hspmv_cusparse_state *s = A->sp;
    if (!s) return;
    for (int a = 0; a < 2; a++) {
        if (s->mat[a]) cusparseDestroySpMat(s->mat[a]);
        if (s->vx[a]) cusparseDestroyDnVec(s->vx[a]);
        if (s->vy[a]) cusparseDestroyDnVec(s->vy[a]);
        cudaFree(s->buf[a]);
    }
    cudaFree(s->rp32);
    if (s->handle) cusparseDestroy(s->handle);
    hspmv_free(s);
    A->sp = NULL;
}

static int state_create(hspmv_gpu_csr *A, hspmv_error *err)
{
    struct hspmv_cusparse_state *s;
    int rc;
    int64_t n = A->nrows;
    if (A->nnz > INT32_MAX)
        return hspmv_err(err, HSPMV_ERR_UNSUPPORTED, "cuSPARSE path: nnz %lld needs 64-bit indices",
                         (long long)A->nnz);
    s = (struct hspmv_cusparse_state *)hspmv_calloc(1, sizeof(*s));
    if (!s) return hspmv_err(err, HSPMV_ERR_NOMEM, "cuSPARSE state");
    A->sp = s;
    if ((rc = sp_err(cusparseCreate(&s->handle), "cusparseCreate", err))) goto fail;
    if ((rc = hspmv_cuda_err(cudaMalloc((void **)&s->rp32, (size_t)(n + 1) * sizeof(int32_t)),
                             "cudaMalloc rowptr32", err)))
        goto fail;
    A->device_bytes += (n + 1) * (int64_t)sizeof(int32_t);
    rowptr_to_32<<<(unsigned)((n + 256) / 256), 256>>>(n, A->rp, s->rp32);
    if ((rc = hspmv_cuda_launch_err("rowptr_to_32", err))) goto fail;
    for (int a = 0; a < 2; a++)
        if ((rc = sp_err(cusparseCreateConstCsr(&s->mat[a], n, A->ncols, A->nnz, s->rp32, A->ci, A->v,
                                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                CUSPARSE_INDEX_BASE_ZERO, SP_REAL),
                         "cusparseCreateConstCsr", err)))
            goto fail;
    return HSPMV_OK;
fail:
    hspmv_gpu_cusparse_free(A);
    return rc;
}

/* Descriptors and buffer for (alg, x, y), made on first use and kept. */
static int bind(hspmv_gpu_csr *A, int a, const hspmv_real *x, hspmv_real *y, hspmv_error *err)
{
    struct hspmv_cusparse_state *s = A->sp;
    cusparseSpMVAlg_t alg = a ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_ALG_DEFAULT;
    const hspmv_real one = 1, zero = 0;
    size_t bytes = 0;
    int rc, fresh = !s->vx[a];
    if (s->x[a] != x) {
        if (s->vx[a]) cusparseDestroyDnVec(s->vx[a]);
        s->vx[a] = NULL;
        if ((rc = sp_err(cusparseCreateConstDnVec(&s->vx[a], A->ncols, x, SP_REAL), "cusparseCreateConstDnVec", err)))
            return rc;
        s->x[a] = x;
    }
    if (s->y[a] != y) {
        if (s->vy[a]) cusparseDestroyDnVec(s->vy[a]);
        s->vy[a] = NULL;
        if ((rc = sp_err(cusparseCreateDnVec(&s->vy[a], A->nrows, y, SP_REAL), "cusparseCreateDnVec", err)))
            return rc;
        s->y[a] = y;
    }
    if (!fresh) return HSPMV_OK;
    if ((rc = sp_err(cusparseSpMV_bufferSize(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat[a],
                                             s->vx[a], &zero, s->vy[a], SP_REAL, alg, &bytes),
                     "cusparseSpMV_bufferSize", err)))
        return rc;
    if ((rc = hspmv_cuda_err(cudaMalloc(&s->buf[a], bytes ? bytes : 1), "cudaMalloc cuSPARSE buffer", err)))
        return rc;
    A->device_bytes += (int64_t)bytes;
    return sp_err(cusparseSpMV_preprocess(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat[a],
                                          s->vx[a], &zero, s->vy[a], SP_REAL, alg, s->buf[a]),
                  "cusparseSpMV_preprocess", err);
}

int hspmv_gpu_cusparse_spmv(hspmv_gpu_csr *A, int alg2, const hspmv_real *x, hspmv_real *y,
                            hspmv_error *err)
{
    const hspmv_real one = 1, zero = 0;
    int a = alg2 ? 1 : 0, rc;
    if (A->nrows == 0) return hspmv_ok(err);
    if (A->nnz == 0)
        return hspmv_cuda_err(cudaMemsetAsync(y, 0, (size_t)A->nrows * sizeof(*y)), "cudaMemsetAsync y", err);
    if (!A->sp && (rc = state_create(A, err))) return rc;
    if ((rc = bind(A, a, x, y, err))) return rc;
    return sp_err(cusparseSpMV(A->sp->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A->sp->mat[a],
                               A->sp->vx[a], &zero, A->sp->vy[a], SP_REAL,
                               a ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_ALG_DEFAULT, A->sp->buf[a]),
                  "cusparseSpMV", err);
}
