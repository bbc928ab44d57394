/* error.c — status codes to words, and filling the per-call error record. */
#include <stdio.h>
#include "util.h"

const char *hspmv_strerror(int code)
{
    static const char *const words[HSPMV_NSTATUS] = {
        "success", "invalid argument", "out of memory", "I/O error",
        "malformed input", "not supported", "MPI error", "CUDA error",
        "did not converge", "solver breakdown",
    };
    if (code < 0 || code >= HSPMV_NSTATUS) return "unknown status";
    return words[code];
}

int hspmv_err(hspmv_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

int hspmv_ok(hspmv_error *err)
{
    if (err) {
        err->code = HSPMV_OK;
        err->msg[0] = '\0';
    }
    return HSPMV_OK;
}
