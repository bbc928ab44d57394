/* version.c — hspmv_version(): the library's version, from hspmv.h's macros. */
#include "hspmv.h"

#define HSPMV_STR_(x) #x
#define HSPMV_STR(x) HSPMV_STR_(x)

const char *hspmv_version(void)
{
    return HSPMV_STR(HSPMV_VERSION_MAJOR) "." HSPMV_STR(HSPMV_VERSION_MINOR) "." HSPMV_STR(HSPMV_VERSION_PATCH);
}
