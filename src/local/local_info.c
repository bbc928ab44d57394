/* local_info.c — what a prepared matrix chose (format, kernels, threads)
   and the bytes a product moves by the format's stated model. */
#include <string.h>
#include "local.h"
#include "local_reorder.h"

void hspmv_local_get_info(const hspmv_local *L, hspmv_local_info *info)
{
    static const char *names[] = {"auto", "csr", "csrl", "bcoo", "csr16", "csrvi", "csrp", "csrdu", "panels"};
    if (!L || !info) {
        if (info) memset(info, 0, sizeof(*info));
        return;
    }
    double r = sizeof(hspmv_real), xy = (double)L->ncols * r + (double)L->nrows * r;
    memset(info, 0, sizeof(*info));
    info->format = L->format;
    info->format_name = names[L->format];
    info->isa = L->ks->isa;
    info->threads = L->threads;
    info->nrows = L->nrows;
    info->ncols = L->ncols;
    info->nnz = L->nnz;
    info->nseg = L->nseg;
    info->seg_ratio = L->nnz > 0 ? (double)L->nseg / (double)L->nnz : 0;
    info->npanels = L->format == HSPMV_FORMAT_PANELS ? L->panels.npanels : 1;
    info->stream_y = L->format == HSPMV_FORMAT_CSRP && L->csrp.stream_y;
    info->xpf = L->format == HSPMV_FORMAT_PANELS ? L->panels.xpf : L->format == HSPMV_FORMAT_BCOO ? L->bcoo.xpf : 0;
    if (L->ord) { /* reorder asked for */
        const hspmv_order_choice *C = &L->ord->choice;
        info->reorder_asked = C->asked;
        info->reorder = C->used;
        info->reorder_name = hspmv_order_name(C->used);
        info->bandwidth_before = C->before.bandwidth;
        info->bandwidth_after = C->after.bandwidth;
        info->local_before = C->before.local_frac;
        info->local_after = C->after.local_frac;
        info->reorder_window = C->before.window;
        info->reorder_s = C->seconds;
        info->row_perm = C->rp;
        info->col_perm = C->cp;
    } else info->reorder_name = "none";
    info->symmetric = L->symmetric;
    info->sym_halo = L->sym_halo;
    info->sym_check_s = L->sym_check_s;
    if (L->symmetric) {
        info->bytes = hspmv_sym_bytes(&L->sym, L->sym_halo);
        info->bytes_formula = L->sym.index == HSPMV_SYM_PAT
                                  ? "lower*real + rows*(1+real) + (rows/64)*8 + cols*real + 2*rows*real "
                                    "+ 3*private*real"
                              : L->sym.index == HSPMV_SYM_IDX16
                                  ? "lower*(real+2) + rows*real + (rows+1)*(4|8) + cols*real + 2*rows*real "
                                    "+ 3*private*real"
                                  : "lower*(real+4) + rows*real + (rows+1)*(4|8) + cols*real + 2*rows*real "
                                    "+ 3*private*real";
        return;
    }
    switch (L->format) {
    case HSPMV_FORMAT_CSR:
        info->bytes = (double)L->nnz * (r + 4) + (double)(L->nrows + 1) * 8 + xy;
        info->bytes_formula = "nnz*(real+4) + (rows+1)*8 + cols*real + rows*real";
        break;
    case HSPMV_FORMAT_CSRL:
        info->bytes = (double)L->nnz * r + (double)L->nseg * 8 + (double)(L->nrows + 1) * 16 + xy;
        info->bytes_formula = "nnz*real + nseg*(4+4) + (rows+1)*(8+8) + cols*real + rows*real";
        break;
    case HSPMV_FORMAT_CSR16:
        info->bytes = hspmv_csr16_bytes(&L->csr16);
        info->bytes_formula = L->csr16.rowptr32 ? "nnz*(real+2) + (rows+1)*4 + cols*real + rows*real"
                                                : "nnz*(real+2) + (rows+1)*8 + cols*real + rows*real";
        break;
    case HSPMV_FORMAT_CSRVI:
        info->bytes = hspmv_csrvi_bytes(&L->csrvi);
        info->bytes_formula = L->csrvi.rowptr32
                                  ? "nnz*(4+1) + (rows+1)*4 + ntab*real + cols*real + rows*real"
                                  : "nnz*(4+1) + (rows+1)*8 + ntab*real + cols*real + rows*real";
        break;
    case HSPMV_FORMAT_CSRP:
        info->bytes = hspmv_csrp_bytes(&L->csrp);
        info->bytes_formula = "nnz*real + (rows of mixed slices)*1 + slices*(8+2) + 4*(offsets+patterns) "
                              "+ cols*real + rows*real";
        break;
    case HSPMV_FORMAT_CSRDU:
        info->bytes = hspmv_csrdu_bytes(&L->csrdu);
        info->bytes_formula = "nnz*(real+1) + rows*1 + escapes*4 + (rows/128)*24 + cols*real + rows*real";
        break;
    case HSPMV_FORMAT_PANELS:
        info->bytes = hspmv_panels_bytes(&L->panels);
        info->bytes_formula = L->panels.rowptr32
                                  ? "nnz*(real+4) + panels*(rows+1)*4 + cols*real + rows*real*(2*panels-1)"
                                  : "nnz*(real+4) + panels*(rows+1)*8 + cols*real + rows*real*(2*panels-1)";
        break;
    default:
        info->bytes = (double)L->nnz * r + (double)hspmv_bcoo_index_bytes(&L->bcoo) + xy;
        info->bytes_formula = "nnz*real + index (2 or 4 per entry, 25 per tile, 8 per tile row) "
                              "+ cols*real + rows*real";
        break;
    }
}
