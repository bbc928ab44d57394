/* csr_read_threads.h — private to src/csr: the threaded read of a plain file. */
#ifndef HSPMV_CSR_READ_THREADS_H
#define HSPMV_CSR_READ_THREADS_H

#include "io.h"

/* Reads the plain file whose prologue is pr into A with `threads` OpenMP
   threads, each parsing byte ranges (every `chunk` bytes when chunk > 0,
   else one range per thread). Same CSR and messages as a one-thread read. */
int hspmv_csr_read_ranges(const char *path, const mtx_prologue *pr, int threads, int64_t chunk, hspmv_csr *A,
                          const hspmv_read_opts *opts, hspmv_read_info *info, hspmv_error *err);

#endif
