/* core_double.c — the extension module hspmv._core_double: core.c built against libhspmv (double). */
#define HSPMV_PY_MODULE _core_double
#include "core.c"
