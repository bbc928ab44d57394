/* settings.h — the one environment variable the library reads, a test-only switch; settings.c is
   the only file of src/ that reads the environment (a test checks it:
   tests/scripts/test_sources.sh).

   HSPMV_TEST=...   TEST ONLY, never for users: a comma-separated list of
                    key=value pairs that force a plan's choice or cut a size
                    so that small test matrices reach every code path (the
                    keys are listed in settings.c). An unknown key or a bad
                    value is an error of the create call that reads it. A
                    distributed matrix takes rank 0's string for every rank
                    (hspmv_dist_agree_test in src/mpi), so ranks never plan
                    differently. */
#ifndef HSPMV_SETTINGS_H
#define HSPMV_SETTINGS_H

#include "hspmv.h"

/* This process's HSPMV_TEST string ("" when unset). */
const char *hspmv_test_spec(void);

/* HSPMV_OK when every key=value of spec is known and its value in range;
   else HSPMV_ERR_ARG naming the pair ("HSPMV_TEST: 'gather=sideways': ...
   expected direct|copy|share"). */
int hspmv_test_check(const char *spec, hspmv_error *err);

/* The value of key in spec (checked by hspmv_test_check), or def when the
   key is absent or the value is bad. Keys with named values (gather=copy)
   give the name's 1-based place in the key's list. */
long hspmv_test_int(const char *spec, const char *key, long def);

/* The text after "key=" in spec, up to the next comma, into buf (at most
   n-1 characters); NULL when the key is absent. For values such as
   share_delay=RANK:MICROSECONDS. */
const char *hspmv_test_str(const char *spec, const char *key, char *buf, size_t n);

#endif
