/* test_gpu_spmv.c — every GPU kernel (naive, stream, LightSpMV V=2..32, the
   hybrid with and without the long-row split, cuSPARSE) against the
   long-double reference with the docs/design.md bound. Without a usable GPU every
   test is skipped with the reason. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "testlib.h"
#include "hspmv_gpu.h"
#include "csr.h"

static int have_gpu;
static char no_gpu_why[600];

static const int all_kernels[] = {
    HSPMV_GPU_NAIVE, HSPMV_GPU_STREAM, HSPMV_GPU_LIGHT, HSPMV_GPU_LIGHT2, HSPMV_GPU_LIGHT4,
    HSPMV_GPU_LIGHT8, HSPMV_GPU_LIGHT16, HSPMV_GPU_LIGHT32, HSPMV_GPU_AUTO, HSPMV_GPU_CUSPARSE,
    HSPMV_GPU_CUSPARSE_ALG2,
};
#define NKERN ((int)(sizeof(all_kernels) / sizeof(all_kernels[0])))

#define NEED_GPU()                                                             \
    do {                                                                       \
        if (!have_gpu) { SKIP("%s", no_gpu_why); return; }                     \
    } while (0)

/* Runs one kernel on the uploaded matrix with y poisoned to NaN first;
   returns 1 when y matches the reference. */
static int run_one(const hspmv_csr *A, hspmv_gpu_csr *dA, int kernel, const hspmv_real *x,
                   const hspmv_real *dx, hspmv_real *dy, hspmv_real *y, const char *what)
{
    hspmv_error e;
    char label[400];
    int rc = hspmv_gpu_vec_fill_bytes(dy, 0xff, A->nrows, &e);
    if (!rc) rc = hspmv_gpu_spmv(dA, kernel, dx, dy, &e);
    if (!rc) rc = hspmv_gpu_sync(&e);
    if (!rc) rc = hspmv_gpu_vec_download(y, dy, A->nrows, &e);
    if (rc) {
        fprintf(stderr, "    %s, %s: %s\n", what, hspmv_gpu_kernel_name(kernel), e.msg);
        return 0;
    }
    snprintf(label, sizeof(label), "%s, kernel %s", what, hspmv_gpu_kernel_name(kernel));
    return tl_matches_ref(A, x, y, label);
}

/* Every kernel on A; then the hybrid again with long rows split at long_min
   (when > 0), so the split path is exercised on small matrices too. */
static void all_match(const hspmv_csr *A, const char *what, int64_t long_min)
{
    hspmv_error e;
    hspmv_gpu_csr *dA = NULL;
    hspmv_real *dx = NULL, *dy = NULL;
    hspmv_real *x = hspmv_malloc((size_t)(A->ncols + 1) * sizeof(hspmv_real));
    hspmv_real *y = hspmv_malloc((size_t)(A->nrows + 1) * sizeof(hspmv_real));
    int rc;
    CHECK(x && y, "out of memory");
    if (!x || !y) goto out;
    tl_fill(x, A->ncols, 7);
    rc = hspmv_gpu_csr_upload(A, &dA, &e);
    if (!rc) rc = hspmv_gpu_vec_create(A->ncols, &dx, &e);
    if (!rc) rc = hspmv_gpu_vec_create(A->nrows, &dy, &e);
    if (!rc) rc = hspmv_gpu_vec_upload(dx, x, A->ncols, &e);
    CHECK(rc == HSPMV_OK, "%s: setup: %s", what, e.msg);
    if (rc) goto out;
    /* every cache-hint mode of our kernels; cuSPARSE takes none, so once */
    for (int h = 0; h < 3; h++) {
        rc = hspmv_gpu_csr_set_hints(dA, h, &e);
        CHECK(rc == HSPMV_OK, "%s: set_hints %d: %s", what, h, e.msg);
        for (int t = 0; t < NKERN; t++) {
            int k = all_kernels[t];
            if (h > 0 && (k == HSPMV_GPU_CUSPARSE || k == HSPMV_GPU_CUSPARSE_ALG2)) continue;
            CHECK(run_one(A, dA, k, x, dx, dy, y, what), "%s: kernel %s, hints %d, off the reference", what,
                  hspmv_gpu_kernel_name(k), h);
        }
    }
    if (long_min > 0) {
        hspmv_gpu_stats st;
        rc = hspmv_gpu_csr_set_long_min(dA, long_min, &e);
        CHECK(rc == HSPMV_OK, "%s: set_long_min: %s", what, e.msg);
        hspmv_gpu_csr_stats(dA, &st);
        for (int h = 0; h < 3; h++) {
            hspmv_gpu_csr_set_hints(dA, h, &e);
            CHECK(run_one(A, dA, HSPMV_GPU_AUTO, x, dx, dy, y, what),
                  "%s: auto with long rows >= %lld split (%lld rows, %lld chunks), hints %d, off the reference",
                  what, (long long)long_min, (long long)st.long_rows, (long long)st.long_chunks, h);
        }
    }
    /* column panels (the upload makes them only for big scattered matrices):
       auto panel by panel, the first panel writing y, the others adding */
    if (A->ncols > 1) {
        int64_t widths[3] = {A->ncols / 1000 + 97, A->ncols / 3 + 1, A->ncols - 1};
        for (int w = 0; w < 3; w++) {
            hspmv_gpu_stats st;
            int64_t want = (A->ncols + widths[w] - 1) / widths[w];
            rc = hspmv_gpu_csr_set_panels(dA, A, widths[w], &e);
            CHECK(rc == HSPMV_OK, "%s: set_panels %lld: %s", what, (long long)widths[w], e.msg);
            hspmv_gpu_csr_stats(dA, &st);
            CHECK(st.panels == (want > 1 && A->nnz > 0 ? want : 0), "%s: %d panels of %lld columns, want %lld",
                  what, st.panels, (long long)widths[w], (long long)want);
            for (int h = 0; h < 3; h++) {
                hspmv_gpu_csr_set_hints(dA, h, &e);
                CHECK(run_one(A, dA, HSPMV_GPU_AUTO, x, dx, dy, y, what),
                      "%s: auto in %d column panels of %lld, hints %d, off the reference", what, st.panels,
                      (long long)widths[w], h);
            }
        }
        rc = hspmv_gpu_csr_set_panels(dA, A, -1, &e);
        CHECK(rc == HSPMV_OK, "%s: set_panels -1: %s", what, e.msg);
    }
    rc = hspmv_gpu_csr_set_hints(dA, -1, &e);
    CHECK(rc == HSPMV_OK, "%s: set_hints -1: %s", what, e.msg);
    /* the benchmark's timing hooks: auto's two parts, one after the other, are auto */
    rc = hspmv_gpu_vec_fill_bytes(dy, 0xff, A->nrows, &e);
    if (!rc) rc = hspmv_gpu_spmv(dA, HSPMV_GPU_AUTO_SHORT, dx, dy, &e);
    if (!rc) rc = hspmv_gpu_spmv(dA, HSPMV_GPU_AUTO_LONG, dx, dy, &e);
    if (!rc) rc = hspmv_gpu_sync(&e);
    if (!rc) rc = hspmv_gpu_vec_download(y, dy, A->nrows, &e);
    CHECK(rc == HSPMV_OK, "%s: auto-short + auto-long: %s", what, e.msg);
    if (!rc) CHECK(tl_matches_ref(A, x, y, "auto-short then auto-long"), "%s: auto's parts off the reference", what);
out:
    hspmv_gpu_vec_destroy(&dx);
    hspmv_gpu_vec_destroy(&dy);
    hspmv_gpu_csr_destroy(&dA);
    hspmv_free(x);
    hspmv_free(y);
}

static void every_kernel_matches_ref_on_shared_matrices(void)
{
    char **paths;
    int n, used = 0;
    NEED_GPU();
    n = tl_list_mtx(tl_shared_dir(), &paths);
    if (n <= 0) {
        CHECK(n > 0, "no .mtx files in %s (%s)", tl_shared_dir(), tl_missing_hint(1));
        if (n == 0) tl_free_list(paths, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        hspmv_csr A;
        if (tl_is_unsupported_shared(paths[i])) continue;
        if (tl_read_csr(paths[i], &A) != HSPMV_OK) {
            CHECK(0, "could not read %s", paths[i]);
            continue;
        }
        all_match(&A, paths[i], 8);
        hspmv_csr_free(&A);
        used++;
    }
    printf("     (%d shared matrices from %s)\n", used, tl_shared_dir());
    tl_free_list(paths, n);
}

static void every_kernel_matches_ref_on_empty_rows(void)
{
    int64_t n = 3000, *len = malloc((size_t)n * sizeof(*len));
    hspmv_csr A;
    NEED_GPU();
    for (int64_t i = 0; i < n; i++) len[i] = i % 3 ? 0 : 1 + i % 37; /* two rows in three empty */
    for (int64_t i = 1000; i < 1100; i++) len[i] = 0;                 /* and a run of 100 empty rows */
    CHECK(tl_csr_random(&A, n, 2000, len, 0, 0, 11) == HSPMV_OK, "tl_csr_random");
    all_match(&A, "empty rows", 16);
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 500, 500, NULL, 0, 0, 12) == HSPMV_OK, "tl_csr_random");
    all_match(&A, "all rows empty (nnz = 0)", 0);
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, 0, 10, NULL, 0, 0, 13) == HSPMV_OK, "tl_csr_random");
    all_match(&A, "no rows", 0);
    hspmv_csr_free(&A);
    free(len);
}

static void every_kernel_matches_ref_on_one_huge_row(void)
{
    int64_t n = 4000, *len = malloc((size_t)n * sizeof(*len));
    hspmv_csr A;
    NEED_GPU();
    for (int64_t i = 0; i < n; i++) len[i] = 1 + i % 5;
    len[1234] = 150000; /* 18 chunks of the long-row kernel under auto */
    CHECK(tl_csr_random(&A, n, 200000, len, 0, 0, 21) == HSPMV_OK, "tl_csr_random");
    all_match(&A, "one huge row", 0);
    hspmv_csr_free(&A);
    len[0] = 200000; /* a full dense first row and a huge last row */
    len[n - 1] = 99999;
    CHECK(tl_csr_random(&A, n, 200000, len, 0, 0, 22) == HSPMV_OK, "tl_csr_random");
    all_match(&A, "huge first, middle and last rows", 0);
    hspmv_csr_free(&A);
    free(len);
}

static void every_kernel_matches_ref_on_rows_of_every_length_0_to_70(void)
{
    int64_t n = 71 * 40, *len = malloc((size_t)n * sizeof(*len));
    hspmv_csr A;
    NEED_GPU();
    for (int64_t i = 0; i < n; i++) len[i] = (i * 7) % 71; /* every length, shuffled order */
    CHECK(tl_csr_random(&A, n, 900, len, 0, 0, 31) == HSPMV_OK, "tl_csr_random");
    all_match(&A, "rows of every length 0..70", 40);
    hspmv_csr_free(&A);
    CHECK(tl_csr_random(&A, n, 900, len, 0, 9, 32) == HSPMV_OK, "tl_csr_random");
    all_match(&A, "rows of every length 0..70 in runs of up to 9 columns", 0);
    hspmv_csr_free(&A);
    free(len);
}

static void every_kernel_matches_ref_on_power_law(void)
{
    int64_t n = 30000, *len = malloc((size_t)n * sizeof(*len)), nnz = 0;
    uint64_t s = 41;
    hspmv_csr A;
    NEED_GPU();
    for (int64_t i = 0; i < n; i++) { /* Pareto, alpha 2.1, mean about 8, capped at n */
        double u = tl_uniform(&s, 0, 1), l = 8 * 1.1 / 2.1 / pow(1 - u, 1 / 1.1);
        len[i] = l > (double)n ? n : (int64_t)l;
        nnz += len[i];
    }
    CHECK(tl_csr_random(&A, n, n, len, 0, 0, 42) == HSPMV_OK, "tl_csr_random");
    printf("     (power law: %lld rows, %lld entries)\n", (long long)n, (long long)nnz);
    all_match(&A, "power law", 64);
    hspmv_csr_free(&A);
    free(len);
}

/* Uniform row lengths around each threshold of the rules: "light" picks
   every vector width, the hybrid at least three different kernels. */
static void hybrid_picks_every_vector_width_and_matches_ref(void)
{
    static const int64_t lens[] = {1, 5, 7, 8, 9, 16, 17, 33, 64, 65, 128, 129, 300};
    int picked[HSPMV_GPU_NKERNELS] = {0}, light[HSPMV_GPU_NKERNELS] = {0}, distinct = 0;
    NEED_GPU();
    for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
        hspmv_csr A;
        hspmv_gpu_csr *dA = NULL;
        hspmv_gpu_stats st;
        hspmv_error e;
        char what[64];
        snprintf(what, sizeof(what), "%lld entries per row", (long long)lens[t]);
        CHECK(tl_csr_random(&A, 2500, 3000, NULL, lens[t], 0, 50 + t) == HSPMV_OK, "tl_csr_random");
        if (hspmv_gpu_csr_upload(&A, &dA, &e) == HSPMV_OK) {
            hspmv_gpu_csr_stats(dA, &st);
            distinct += !picked[st.auto_kernel]++;
            light[st.light_kernel]++;
            CHECK(st.long_rows == 0, "%s: uniform rows must not be split (%lld long)", what, (long long)st.long_rows);
        }
        hspmv_gpu_csr_destroy(&dA);
        all_match(&A, what, 0);
        hspmv_csr_free(&A);
    }
    for (int k = HSPMV_GPU_LIGHT2; k <= HSPMV_GPU_LIGHT32; k++)
        CHECK(light[k] > 0, "the light rule never picked %s", hspmv_gpu_kernel_name(k));
    CHECK(distinct >= 3, "the hybrid rule picked only %d kernels", distinct);
}

/* The light kernels' row counter resets itself; many launches in a row, of
   different widths, must all see it at zero. */
static void light_counter_survives_many_launches(void)
{
    hspmv_csr A;
    hspmv_gpu_csr *dA = NULL;
    hspmv_real *dx = NULL, *dy = NULL, *x, *y;
    hspmv_error e;
    int ok = 1, rc;
    NEED_GPU();
    CHECK(tl_csr_random(&A, 20000, 20000, NULL, 12, 0, 61) == HSPMV_OK, "tl_csr_random");
    x = hspmv_malloc((size_t)A.ncols * sizeof(*x));
    y = hspmv_malloc((size_t)A.nrows * sizeof(*y));
    tl_fill(x, A.ncols, 62);
    rc = hspmv_gpu_csr_upload(&A, &dA, &e);
    if (!rc) rc = hspmv_gpu_vec_create(A.ncols, &dx, &e);
    if (!rc) rc = hspmv_gpu_vec_create(A.nrows, &dy, &e);
    if (!rc) rc = hspmv_gpu_vec_upload(dx, x, A.ncols, &e);
    CHECK(rc == HSPMV_OK, "setup: %s", e.msg);
    for (int r = 0; r < 200 && !rc; r++)
        rc = hspmv_gpu_spmv(dA, HSPMV_GPU_LIGHT2 + r % 5, dx, dy, &e);
    CHECK(rc == HSPMV_OK, "launches: %s", e.msg);
    for (int k = HSPMV_GPU_LIGHT2; k <= HSPMV_GPU_LIGHT32 && !rc; k++)
        ok &= run_one(&A, dA, k, x, dx, dy, y, "after 200 launches");
    CHECK(ok, "a LightSpMV kernel went wrong after many launches");
    hspmv_gpu_vec_destroy(&dx);
    hspmv_gpu_vec_destroy(&dy);
    hspmv_gpu_csr_destroy(&dA);
    hspmv_free(x);
    hspmv_free(y);
    hspmv_csr_free(&A);
}

/* The comparison can fail: one perturbed entry is caught. */
static void reference_check_catches_a_perturbed_result(void)
{
    hspmv_csr A;
    hspmv_gpu_csr *dA = NULL;
    hspmv_real *dx = NULL, *dy = NULL, *x, *y;
    hspmv_error e;
    int rc;
    NEED_GPU();
    CHECK(tl_csr_random(&A, 1000, 1000, NULL, 10, 0, 71) == HSPMV_OK, "tl_csr_random");
    x = hspmv_malloc((size_t)A.ncols * sizeof(*x));
    y = hspmv_malloc((size_t)A.nrows * sizeof(*y));
    tl_fill(x, A.ncols, 72);
    rc = hspmv_gpu_csr_upload(&A, &dA, &e);
    if (!rc) rc = hspmv_gpu_vec_create(A.ncols, &dx, &e);
    if (!rc) rc = hspmv_gpu_vec_create(A.nrows, &dy, &e);
    if (!rc) rc = hspmv_gpu_vec_upload(dx, x, A.ncols, &e);
    if (!rc) rc = hspmv_gpu_spmv(dA, HSPMV_GPU_AUTO, dx, dy, &e);
    if (!rc) rc = hspmv_gpu_vec_download(y, dy, A.nrows, &e);
    CHECK(rc == HSPMV_OK, "%s", e.msg);
    if (!rc) {
        CHECK(tl_matches_ref(&A, x, y, "unperturbed"), "unperturbed result should pass");
        y[500] += (hspmv_real)(1e5 * hspmv_eps() * (1 + fabs((double)y[500])));
        fprintf(stderr, "    (an offence is expected next)\n");
        CHECK(!tl_matches_ref(&A, x, y, "perturbed on purpose"), "perturbed result should fail");
    }
    hspmv_gpu_vec_destroy(&dx);
    hspmv_gpu_vec_destroy(&dy);
    hspmv_gpu_csr_destroy(&dA);
    hspmv_free(x);
    hspmv_free(y);
    hspmv_csr_free(&A);
}

static void bad_arguments_are_refused_with_status_codes(void)
{
    hspmv_csr A;
    hspmv_gpu_csr *dA = NULL;
    hspmv_real *dx = NULL, *dy = NULL;
    hspmv_error e;
    NEED_GPU();
    CHECK(hspmv_gpu_csr_upload(NULL, &dA, &e) == HSPMV_ERR_ARG && !dA, "NULL matrix accepted");
    CHECK(tl_csr_random(&A, 100, 100, NULL, 3, 0, 81) == HSPMV_OK, "tl_csr_random");
    CHECK(hspmv_gpu_csr_upload(&A, &dA, &e) == HSPMV_OK, "%s", e.msg);
    hspmv_gpu_vec_create(100, &dx, &e);
    hspmv_gpu_vec_create(100, &dy, &e);
    CHECK(hspmv_gpu_spmv(dA, 99, dx, dy, &e) == HSPMV_ERR_ARG, "unknown kernel accepted");
    CHECK(hspmv_gpu_csr_set_hints(dA, 3, &e) == HSPMV_ERR_ARG, "cache-hint mode 3 accepted");
    CHECK(hspmv_gpu_csr_set_hints(dA, -2, &e) == HSPMV_ERR_ARG, "cache-hint mode -2 accepted");
    CHECK(hspmv_gpu_csr_set_hints(NULL, 0, &e) == HSPMV_ERR_ARG, "NULL matrix accepted by set_hints");
    CHECK(hspmv_gpu_kernel_parse("auto-long") == HSPMV_GPU_AUTO_LONG, "part names");
    CHECK(hspmv_gpu_csr_set_panels(dA, &A, -2, &e) == HSPMV_ERR_ARG, "panel width -2 accepted");
    CHECK(hspmv_gpu_csr_set_panels(dA, NULL, 10, &e) == HSPMV_ERR_ARG, "panels from a NULL matrix accepted");
    A.ncols--;
    CHECK(hspmv_gpu_csr_set_panels(dA, &A, 10, &e) == HSPMV_ERR_ARG, "panels from another matrix accepted");
    A.ncols++;
    CHECK(hspmv_gpu_spmv(NULL, HSPMV_GPU_AUTO, dx, dy, &e) == HSPMV_ERR_ARG, "NULL matrix accepted");
    CHECK(hspmv_gpu_spmv(dA, HSPMV_GPU_NAIVE, NULL, dy, &e) == HSPMV_ERR_ARG, "NULL x accepted");
    CHECK(hspmv_gpu_kernel_parse("light16") == HSPMV_GPU_LIGHT16, "kernel names");
    CHECK(hspmv_gpu_kernel_parse("nope") == -1, "unknown kernel name");
    hspmv_gpu_vec_destroy(&dx);
    hspmv_gpu_vec_destroy(&dy);
    hspmv_gpu_csr_destroy(&dA);
    hspmv_gpu_csr_destroy(&dA); /* twice is fine */
    CHECK(dA == NULL, "destroy must clear the pointer");
    hspmv_csr_free(&A);
}

int main(void)
{
    hspmv_error e;
    hspmv_gpu_info gi;
    if (hspmv_gpu_init(0, &gi, &e) == HSPMV_OK) {
        have_gpu = 1;
        printf("GPU: %s (sm_%d%d, %d SMs), precision %s\n", gi.name, gi.cc_major, gi.cc_minor, gi.sm_count,
               sizeof(hspmv_real) == 8 ? "double" : "single");
    } else {
        snprintf(no_gpu_why, sizeof(no_gpu_why), "no usable GPU: %s", e.msg);
        printf("GPU tests skipped: %s\n", no_gpu_why);
    }
    RUN(every_kernel_matches_ref_on_shared_matrices);
    RUN(every_kernel_matches_ref_on_empty_rows);
    RUN(every_kernel_matches_ref_on_one_huge_row);
    RUN(every_kernel_matches_ref_on_rows_of_every_length_0_to_70);
    RUN(every_kernel_matches_ref_on_power_law);
    RUN(hybrid_picks_every_vector_width_and_matches_ref);
    RUN(light_counter_survives_many_launches);
    RUN(reference_check_catches_a_perturbed_result);
    RUN(bad_arguments_are_refused_with_status_codes);
    CHECK_DONE();
}
