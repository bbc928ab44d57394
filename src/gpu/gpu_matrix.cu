/* gpu_matrix.cu — the device side's bookkeeping: CUDA errors as status codes,
   device selection, CSR upload and planning, device vectors. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "gpu_internal.h"

int hspmv_cuda_err(cudaError_t e, const char *what, hspmv_error *err)
{
    if (e == cudaSuccess) return HSPMV_OK;
    return hspmv_err(err, HSPMV_ERR_CUDA, "%s: %s (%s)", what, cudaGetErrorString(e),
                     cudaGetErrorName(e));
}

int hspmv_cuda_launch_err(const char *what, hspmv_error *err)
{
    return hspmv_cuda_err(cudaGetLastError(), what, err);
}

static const char *const kernel_names[HSPMV_GPU_NKERNELS] = {
    "auto", "naive", "stream", "light", "light2", "light4", "light8", "light16", "light32",
    "cusparse", "cusparse-alg2",
};

const char *hspmv_gpu_kernel_name(int kernel)
{
    if (kernel == HSPMV_GPU_AUTO_SHORT) return "auto-short";
    if (kernel == HSPMV_GPU_AUTO_LONG) return "auto-long";
    return kernel >= 0 && kernel < HSPMV_GPU_NKERNELS ? kernel_names[kernel] : "?";
}

int hspmv_gpu_kernel_parse(const char *name)
{
    for (int k = 0; k < HSPMV_GPU_NKERNELS; k++)
        if (name && !strcmp(name, kernel_names[k])) return k;
    if (name && !strcmp(name, "auto-short")) return HSPMV_GPU_AUTO_SHORT;
    if (name && !strcmp(name, "auto-long")) return HSPMV_GPU_AUTO_LONG;
    return -1;
}

int hspmv_gpu_init(int device, hspmv_gpu_info *info, hspmv_error *err)
{
    int n = 0, rc;
    cudaDeviceProp p;
    if ((rc = hspmv_cuda_err(cudaGetDeviceCount(&n), "cudaGetDeviceCount", err))) return rc;
    if (device < 0 || device >= n)
        return hspmv_err(err, HSPMV_ERR_CUDA, "no CUDA device %d (%d present)", device, n);
    if ((rc = hspmv_cuda_err(cudaSetDevice(device), "cudaSetDevice", err))) return rc;
    if ((rc = hspmv_cuda_err(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties", err)))
        return rc;
    if (info) {
        memset(info, 0, sizeof(*info));
        snprintf(info->name, sizeof(info->name), "%s", p.name);
        info->sm_count = p.multiProcessorCount;
        info->cc_major = p.major;
        info->cc_minor = p.minor;
        info->l2_bytes = p.l2CacheSize;
        info->mem_bytes = (int64_t)p.totalGlobalMem;
        cudaRuntimeGetVersion(&info->runtime_version);
        cudaDriverGetVersion(&info->driver_version);
    }
    return hspmv_ok(err);
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* cudaMalloc of at least one element, counted in A->device_bytes. */
static int dev_alloc(hspmv_gpu_csr *A, void **p, int64_t n, size_t size, const char *what,
                     hspmv_error *err)
{
    size_t bytes = hspmv_bytes((size_t)(n > 0 ? n : 1), size);
    if (bytes == 0) return hspmv_err(err, HSPMV_ERR_NOMEM, "%s: size overflow", what);
    A->device_bytes += (int64_t)bytes;
    return hspmv_cuda_err(cudaMalloc(p, bytes), what, err);
}

static void free_chunks(hspmv_gpu_csr *A)
{
    cudaFree(A->chunk_row);
    cudaFree(A->chunk_beg);
    cudaFree(A->chunk_end);
    A->chunk_row = NULL;
    A->chunk_beg = A->chunk_end = NULL;
    A->nchunks = A->long_rows = 0;
}

/* Long rows: one block per HSPMV_LONG_CHUNK entries, listed on the host, copied over. */
int hspmv_gpu_plan_long(hspmv_gpu_csr *A, const int64_t *rp, hspmv_error *err)
{
    int64_t nrows = A->nrows, nch = 0, nlong = 0, q = 0;
    int32_t *row = NULL;
    int64_t *beg = NULL, *end = NULL;
    int rc = HSPMV_OK;
    free_chunks(A);
    for (int64_t i = 0; i < nrows; i++) {
        int64_t len = rp[i + 1] - rp[i];
        if (len >= A->long_min) {
            nlong++;
            nch += (len + HSPMV_LONG_CHUNK - 1) / HSPMV_LONG_CHUNK;
        }
    }
    A->long_rows = nlong;
    if (nch == 0) return hspmv_ok(err);
    row = (int32_t *)hspmv_alloc_array((size_t)nch, sizeof(*row));
    beg = (int64_t *)hspmv_alloc_array((size_t)nch, sizeof(*beg));
    end = (int64_t *)hspmv_alloc_array((size_t)nch, sizeof(*end));
    if (!row || !beg || !end) {
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "long-row plan: %lld chunks", (long long)nch);
        goto out;
    }
    for (int64_t i = 0; i < nrows; i++) {
        if (rp[i + 1] - rp[i] < A->long_min) continue;
        for (int64_t k = rp[i]; k < rp[i + 1]; k += HSPMV_LONG_CHUNK) {
            row[q] = (int32_t)i;
            beg[q] = k;
            end[q++] = k + HSPMV_LONG_CHUNK < rp[i + 1] ? k + HSPMV_LONG_CHUNK : rp[i + 1];
        }
    }
    A->nchunks = nch;
    if ((rc = dev_alloc(A, (void **)&A->chunk_row, nch, sizeof(*row), "cudaMalloc chunk rows", err)) ||
        (rc = dev_alloc(A, (void **)&A->chunk_beg, nch, sizeof(*beg), "cudaMalloc chunk begins", err)) ||
        (rc = dev_alloc(A, (void **)&A->chunk_end, nch, sizeof(*end), "cudaMalloc chunk ends", err)))
        goto out;
    if ((rc = hspmv_cuda_err(cudaMemcpy(A->chunk_row, row, (size_t)nch * sizeof(*row), cudaMemcpyHostToDevice), "copy chunk rows", err)) ||
        (rc = hspmv_cuda_err(cudaMemcpy(A->chunk_beg, beg, (size_t)nch * sizeof(*beg), cudaMemcpyHostToDevice), "copy chunk begins", err)) ||
        (rc = hspmv_cuda_err(cudaMemcpy(A->chunk_end, end, (size_t)nch * sizeof(*end), cudaMemcpyHostToDevice), "copy chunk ends", err)))
        goto out;
out:
    if (rc) free_chunks(A);
    hspmv_free(row);
    hspmv_free(beg);
    hspmv_free(end);
    return rc;
}

/* The current device's L2 size (the H100's 50 MB if it cannot be asked). */
static double l2_bytes(void)
{
    int dev = 0, l2 = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess)
        l2 = 50 << 20;
    return l2;
}

/* Cache hints pay off only where gathers from x miss the caches: x larger
   than a quarter of L2 and most entries (a sample of up to 65536) farther
   than 65536 columns from the diagonal (random and power-law matrices, not
   stencils or bands). */
static int scattered_columns(const hspmv_csr *A)
{
    int64_t far = 0, n = A->nnz < 65536 ? A->nnz : 65536, row = 0;
    double l2 = l2_bytes();
    if (n == 0 || (double)A->ncols * sizeof(hspmv_real) < 0.25 * l2) return 0;
    for (int64_t t = 0; t < n; t++) {
        int64_t k = (int64_t)((double)t * (double)A->nnz / (double)n), d;
        while (A->rowptr[row + 1] <= k) row++; /* k only grows */
        d = (int64_t)A->colind[k] - row;
        far += d > 65536 || d < -65536;
    }
    return far * 2 > n;
}

/* Copies A to the device and plans it (no panels). */
static int upload_plain(const hspmv_csr *A, hspmv_gpu_csr **dA, hspmv_error *err)
{
    hspmv_gpu_csr *G = NULL;
    int rc;
    double t0;
    if (!dA) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_csr_upload: dA is NULL");
    *dA = NULL;
    if (!A || A->nrows < 0 || A->ncols < 0 || A->nrows > INT32_MAX || A->ncols > INT32_MAX ||
        !A->rowptr || (A->nnz > 0 && (!A->colind || !A->val)) || A->rowptr[A->nrows] != A->nnz)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_csr_upload: not a CSR matrix");
    G = (hspmv_gpu_csr *)hspmv_calloc(1, sizeof(*G));
    if (!G) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_gpu_csr_upload");
    G->nrows = A->nrows;
    G->ncols = A->ncols;
    G->nnz = A->nnz;
    if ((rc = dev_alloc(G, (void **)&G->rp, A->nrows + 1, sizeof(int64_t), "cudaMalloc rowptr", err)) ||
        (rc = dev_alloc(G, (void **)&G->ci, A->nnz, sizeof(int32_t), "cudaMalloc colind", err)) ||
        (rc = dev_alloc(G, (void **)&G->v, A->nnz, sizeof(hspmv_real), "cudaMalloc val", err)) ||
        (rc = dev_alloc(G, (void **)&G->counter, 2, sizeof(unsigned), "cudaMalloc counters", err)))
        goto fail;
    t0 = now_seconds();
    if ((rc = hspmv_cuda_err(cudaMemcpy(G->rp, A->rowptr, (size_t)(A->nrows + 1) * sizeof(int64_t), cudaMemcpyHostToDevice), "copy rowptr", err)) ||
        (rc = hspmv_cuda_err(cudaMemcpy(G->ci, A->colind, (size_t)A->nnz * sizeof(int32_t), cudaMemcpyHostToDevice), "copy colind", err)) ||
        (rc = hspmv_cuda_err(cudaMemcpy(G->v, A->val, (size_t)A->nnz * sizeof(hspmv_real), cudaMemcpyHostToDevice), "copy val", err)))
        goto fail;
    G->upload_seconds = now_seconds() - t0;

    /* The seed's rule picks by the mean row length. AUTO splits long rows
       off, so it picks by the mean of the rows that stay (one refinement). */
    G->mean_row = A->nrows ? (double)A->nnz / (double)A->nrows : 0;
    G->light_kernel = hspmv_gpu_rule(G->mean_row, 0);
    {
        int k = hspmv_gpu_rule(G->mean_row, 1);
        int64_t lm = hspmv_gpu_long_min(k, G->mean_row), nlong = 0, nnz_long = 0;
        for (int64_t i = 0; i < A->nrows; i++) {
            int64_t len = A->rowptr[i + 1] - A->rowptr[i];
            if (len > G->max_row) G->max_row = len;
            if (len >= lm) { nlong++; nnz_long += len; }
        }
        double mean_short = A->nrows > nlong ? (double)(A->nnz - nnz_long) / (double)(A->nrows - nlong) : 0;
        G->auto_kernel = nlong ? hspmv_gpu_rule(mean_short, 1) : k;
        G->long_min = G->long_min_default = nlong ? hspmv_gpu_long_min(G->auto_kernel, mean_short) : lm;
        G->auto_cusparse = hspmv_gpu_rule_cusparse(G->mean_row, G->max_row, nlong, A->nnz);
    }
    G->hints = G->hints_default = scattered_columns(A) ? 1 : 0;
    if ((rc = hspmv_gpu_light_grid(G, err))) goto fail;
    if (G->max_row >= G->long_min && (rc = hspmv_gpu_plan_long(G, A->rowptr, err))) goto fail;
    *dA = G;
    return hspmv_ok(err);
fail:
    hspmv_gpu_csr_destroy(&G);
    return rc;
}

static void free_panels(hspmv_gpu_csr *G)
{
    for (int p = 0; p < G->npanels; p++) hspmv_gpu_csr_destroy(&G->panel[p]);
    hspmv_free(G->panel);
    G->panel = NULL;
    G->npanels = 0;
    G->panel_cols = 0;
}

/* Panel width for AUTO: where columns are scattered (the upload's hint test)
   and x is larger than HSPMV_PANEL_L2_SHARE of L2, the fewest equal panels
   whose piece of x fits in that share; else 0 (no panels). */
static int64_t default_panel_cols(const hspmv_gpu_csr *G)
{
    double xb = (double)G->ncols * sizeof(hspmv_real), target = HSPMV_PANEL_L2_SHARE * l2_bytes();
    if (!G->hints_default || G->nnz == 0) return 0;
    if (xb <= target) return 0;
    int64_t P = (int64_t)(xb / target) + 1;
    return (G->ncols + P - 1) / P;
}

/* Splits A into column panels of w columns (the last may be narrower) and
   uploads each as a planned matrix of its own under G. Entries keep their
   order within a row. w <= 0 or w >= ncols: no panels. Skipped (no panels,
   no error) when the device lacks room for a second copy of the matrix. */
static int build_panels(hspmv_gpu_csr *G, const hspmv_csr *A, int64_t w, hspmv_error *err)
{
    int64_t P, n = A->nrows;
    hspmv_csr *S = NULL;
    size_t free_b = 0, total_b = 0;
    int rc = HSPMV_OK;
    free_panels(G);
    if (w <= 0 || w >= A->ncols || A->nnz == 0) return hspmv_ok(err);
    P = (A->ncols + w - 1) / w;
    if (P > 1024) return hspmv_err(err, HSPMV_ERR_ARG, "column panels: %lld panels of %lld columns (at most 1024)",
                                   (long long)P, (long long)w);
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess ||
        (double)free_b < 1.25 * ((double)A->nnz * (sizeof(int32_t) + sizeof(hspmv_real)) +
                                 (double)P * (double)(n + 1) * sizeof(int64_t)))
        return hspmv_ok(err);
    S = (hspmv_csr *)hspmv_calloc((size_t)P, sizeof(*S));
    G->panel = (hspmv_gpu_csr **)hspmv_calloc((size_t)P, sizeof(*G->panel));
    if (!S || !G->panel) {
        rc = hspmv_err(err, HSPMV_ERR_NOMEM, "column panels: out of host memory");
        goto out;
    }
    G->npanels = (int)P;
    G->panel_cols = w;
    for (int64_t p = 0; p < P; p++) {
        S[p].nrows = n;
        S[p].ncols = A->ncols;
        S[p].rowptr = (int64_t *)hspmv_calloc((size_t)n + 1, sizeof(int64_t));
        if (!S[p].rowptr) {
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "column panels: out of host memory");
            goto out;
        }
    }
    /* entries per panel and row; then each row fills its own places, so
       both passes run in parallel over rows (one pass each over A) */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) S[A->colind[k] / w].rowptr[i + 1]++;
    for (int64_t p = 0; p < P; p++) {
        for (int64_t i = 0; i < n; i++) S[p].rowptr[i + 1] += S[p].rowptr[i];
        S[p].nnz = S[p].rowptr[n];
        S[p].colind = (int32_t *)hspmv_alloc_array((size_t)(S[p].nnz ? S[p].nnz : 1), sizeof(int32_t));
        S[p].val = (hspmv_real *)hspmv_alloc_array((size_t)(S[p].nnz ? S[p].nnz : 1), sizeof(hspmv_real));
        if (!S[p].colind || !S[p].val) {
            rc = hspmv_err(err, HSPMV_ERR_NOMEM, "column panels: out of host memory");
            goto out;
        }
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) /* entries keep their order within each panel's row */
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t p = A->colind[k] / w, q = S[p].rowptr[i]++;
            S[p].colind[q] = A->colind[k];
            S[p].val[q] = A->val[k];
        }
    for (int64_t p = 0; p < P; p++) { /* the fill moved each row start to the next row's: back */
        for (int64_t i = n; i > 0; i--) S[p].rowptr[i] = S[p].rowptr[i - 1];
        S[p].rowptr[0] = 0;
    }
    for (int64_t p = 0; p < P && !rc; p++) {
        rc = upload_plain(&S[p], &G->panel[p], err);
        if (!rc) G->device_bytes += G->panel[p]->device_bytes;
        /* a panel's rows are short (mean/P), but one thread per row reads
           v and ci uncoalesced, and evict-first drops those lines between
           its iterations: stream won in every panel measured, 1.3-2.6x */
        if (!rc && G->panel[p]->auto_kernel == HSPMV_GPU_NAIVE) G->panel[p]->auto_kernel = HSPMV_GPU_STREAM;
        hspmv_csr_free(&S[p]); /* host copy no longer needed */
    }
out:
    if (S)
        for (int64_t p = 0; p < P; p++) hspmv_csr_free(&S[p]);
    hspmv_free(S);
    if (rc) free_panels(G);
    return rc;
}

int hspmv_gpu_csr_upload(const hspmv_csr *A, hspmv_gpu_csr **dA, hspmv_error *err)
{
    int rc = upload_plain(A, dA, err);
    if (rc) return rc;
    rc = build_panels(*dA, A, default_panel_cols(*dA), err);
    if (rc) hspmv_gpu_csr_destroy(dA);
    return rc;
}

int hspmv_gpu_csr_set_panels(hspmv_gpu_csr *G, const hspmv_csr *A, int64_t panel_cols, hspmv_error *err)
{
    int64_t before = 0;
    int rc;
    if (!G || !A || A->nrows != G->nrows || A->ncols != G->ncols || A->nnz != G->nnz || panel_cols < -1)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_csr_set_panels: not the uploaded matrix, or width %lld",
                         (long long)panel_cols);
    for (int p = 0; p < G->npanels; p++) before += G->panel[p]->device_bytes;
    G->device_bytes -= before;
    rc = build_panels(G, A, panel_cols < 0 ? default_panel_cols(G) : panel_cols, err);
    for (int p = 0; p < G->npanels; p++) G->panel[p]->hints = G->hints;
    return rc;
}

void hspmv_gpu_csr_destroy(hspmv_gpu_csr **dA)
{
    hspmv_gpu_csr *G;
    if (!dA || !*dA) return;
    G = *dA;
    free_panels(G);
    hspmv_gpu_cusparse_free(G);
    free_chunks(G);
    cudaFree(G->rp);
    cudaFree(G->ci);
    cudaFree(G->v);
    cudaFree(G->counter);
    hspmv_free(G);
    *dA = NULL;
}

void hspmv_gpu_csr_stats(const hspmv_gpu_csr *G, hspmv_gpu_stats *st)
{
    memset(st, 0, sizeof(*st));
    if (!G) return;
    st->nrows = G->nrows;
    st->ncols = G->ncols;
    st->nnz = G->nnz;
    st->mean_row = G->mean_row;
    st->max_row = G->max_row;
    st->auto_kernel = G->auto_cusparse && !G->npanels ? HSPMV_GPU_CUSPARSE : G->auto_kernel;
    st->light_kernel = G->light_kernel;
    st->long_min = G->long_min;
    st->long_rows = G->long_rows;
    st->long_chunks = G->nchunks;
    st->device_bytes = G->device_bytes;
    st->upload_seconds = G->upload_seconds;
    st->hints = G->hints;
    st->panels = G->npanels;
    st->panel_kernel = G->npanels ? G->panel[0]->auto_kernel : -1;
    st->panel_cols = G->panel_cols;
}

int hspmv_gpu_csr_set_hints(hspmv_gpu_csr *G, int hints, hspmv_error *err)
{
    if (!G || hints < -1 || hints >= HSPMV_NHINTS)
        return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_csr_set_hints: %d (0..%d, or -1)", hints, HSPMV_NHINTS - 1);
    G->hints = hints < 0 ? G->hints_default : hints;
    for (int p = 0; p < G->npanels; p++) G->panel[p]->hints = hints < 0 ? G->panel[p]->hints_default : hints;
    return hspmv_ok(err);
}

int hspmv_gpu_csr_set_long_min(hspmv_gpu_csr *G, int64_t long_min, hspmv_error *err)
{
    int64_t *rp = NULL;
    int rc;
    if (!G || long_min < 0) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_csr_set_long_min");
    G->long_min = long_min ? long_min : G->long_min_default;
    if (G->max_row < G->long_min) {
        free_chunks(G);
        return hspmv_ok(err);
    }
    rp = (int64_t *)hspmv_alloc_array((size_t)G->nrows + 1, sizeof(*rp));
    if (!rp) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_gpu_csr_set_long_min");
    rc = hspmv_cuda_err(cudaMemcpy(rp, G->rp, (size_t)(G->nrows + 1) * sizeof(*rp), cudaMemcpyDeviceToHost),
                        "copy rowptr back", err);
    if (!rc) rc = hspmv_gpu_plan_long(G, rp, err);
    hspmv_free(rp);
    return rc;
}

/* ---- device vectors ---------------------------------------------------------- */

int hspmv_gpu_vec_create(int64_t n, hspmv_real **d, hspmv_error *err)
{
    size_t bytes;
    int rc;
    if (!d || n < 0) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_vec_create");
    *d = NULL;
    bytes = hspmv_bytes((size_t)(n > 0 ? n : 1), sizeof(hspmv_real));
    if (bytes == 0) return hspmv_err(err, HSPMV_ERR_NOMEM, "hspmv_gpu_vec_create: overflow");
    rc = hspmv_cuda_err(cudaMalloc((void **)d, bytes), "cudaMalloc vector", err);
    if (rc) *d = NULL;
    return rc;
}

void hspmv_gpu_vec_destroy(hspmv_real **d)
{
    if (!d || !*d) return;
    cudaFree(*d);
    *d = NULL;
}

int hspmv_gpu_vec_upload(hspmv_real *d, const hspmv_real *h, int64_t n, hspmv_error *err)
{
    if (n < 0 || (n > 0 && (!d || !h))) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_vec_upload");
    return hspmv_cuda_err(cudaMemcpy(d, h, (size_t)n * sizeof(*h), cudaMemcpyHostToDevice),
                          "copy vector to device", err);
}

int hspmv_gpu_vec_download(hspmv_real *h, const hspmv_real *d, int64_t n, hspmv_error *err)
{
    if (n < 0 || (n > 0 && (!d || !h))) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_vec_download");
    return hspmv_cuda_err(cudaMemcpy(h, d, (size_t)n * sizeof(*h), cudaMemcpyDeviceToHost),
                          "copy vector to host", err);
}

int hspmv_gpu_vec_fill_bytes(hspmv_real *d, int byte, int64_t n, hspmv_error *err)
{
    if (n < 0 || (n > 0 && !d)) return hspmv_err(err, HSPMV_ERR_ARG, "hspmv_gpu_vec_fill_bytes");
    return hspmv_cuda_err(cudaMemset(d, byte, (size_t)n * sizeof(*d)), "cudaMemset vector", err);
}

int hspmv_gpu_sync(hspmv_error *err)
{
    return hspmv_cuda_err(cudaDeviceSynchronize(), "cudaDeviceSynchronize", err);
}
