/* error.c — status codes to words, and filling the per-call error record. */
#include <stdio.h>
#include <string.h>
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

int hspmv_err_file(hspmv_error *err, int code, const char *name, int64_t line, const char *fmt, ...)
{
    char text[sizeof(err->msg)], where[32] = "";
    size_t n, used, room;
    va_list ap;
    if (!err) return code;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (!name) name = "?";
    if (line > 0) snprintf(where, sizeof(where), ":%lld", (long long)line);
    /* room for the name once "WHERE: TEXT" and the NUL are placed; at least
       a short tail of the name is always shown */
    n = strlen(name);
    used = strlen(where) + 2 + strlen(text) + 1;
    room = used < sizeof(err->msg) ? sizeof(err->msg) - used : 0;
    if (room < 24) room = 24;
    err->code = code;
    if (n > room) n = room - 3;
    /* a text longer than the record is cut at its end (the return value is
       looked at so that the compiler takes the cut as meant) */
    if (snprintf(err->msg, sizeof(err->msg), "%s%s%s: %s", n < strlen(name) ? "..." : "",
                 name + strlen(name) - n, where, text) < 0)
        err->msg[0] = '\0';
    return code;
}
