/* core_single.c — the extension module hspmv._core_single: core.c built against libhspmv_single (float). */
#define HSPMV_PY_MODULE _core_single
#include "core.c"
