/* fuzz_mtx.c — libFuzzer entry for the Matrix Market reader: any bytes must
   give OK or an error code with a message, never a crash or a leak; the
   result must not depend on where the read blocks end, and what loads must
   respect the size line and the symmetric-kind triangle. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hspmv.h"
#include "io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_loaded(const hspmv_coo *c)
{
    for (int64_t k = 0; k < c->nnz; k++) {
        if (c->row[k] < 0 || c->row[k] >= c->nrows || c->col[k] < 0 || c->col[k] >= c->ncols)
            __builtin_trap();
        if (c->symmetry != HSPMV_GENERAL && c->row[k] < c->col[k]) __builtin_trap();
        if (c->symmetry == HSPMV_SKEW_SYMMETRIC && c->row[k] == c->col[k]) __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hspmv_coo a, b;
    hspmv_error ea, eb;
    size_t saved = hspmv_io_chunk_bytes;
    int ra = hspmv_mtx_read_mem("fuzz.mtx", data, size, &a, NULL, &ea);
    hspmv_io_chunk_bytes = 1 + size % 13; /* the same bytes in tiny blocks */
    int rb = hspmv_mtx_read_mem("fuzz.mtx", data, size, &b, NULL, &eb);
    hspmv_io_chunk_bytes = saved;
    if (ra != rb) __builtin_trap();
    if (ra == HSPMV_OK) {
        check_loaded(&a);
        if (a.nnz != b.nnz || a.nrows != b.nrows || a.ncols != b.ncols) __builtin_trap();
        if (a.nnz && (memcmp(a.row, b.row, (size_t)a.nnz * sizeof(int32_t)) ||
                      memcmp(a.col, b.col, (size_t)a.nnz * sizeof(int32_t)) ||
                      memcmp(a.val, b.val, (size_t)a.nnz * sizeof(hspmv_real))))
            __builtin_trap();
    } else {
        if (ea.msg[0] == '\0' || strcmp(ea.msg, eb.msg) != 0) __builtin_trap();
        if (a.row || a.col || a.val || a.nnz) __builtin_trap();
    }
    hspmv_coo_free(&a);
    hspmv_coo_free(&b);
    return 0;
}
