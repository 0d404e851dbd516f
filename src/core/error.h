/* Internal: filling a crowd_error. */
#ifndef CROWD_CORE_ERROR_H
#define CROWD_CORE_ERROR_H

#include "crowdbake/base.h"

#if defined(__GNUC__) || defined(__clang__)
#define CROWD_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define CROWD_PRINTF(fmt_index, first_arg)
#endif

/* Records `code` and a printf-style message in `error` (which may be NULL); returns `code` so
 * call sites read `return crowd_fail(err, CROWD_ERROR_X, "...", ...);`. */
crowd_result crowd_fail(crowd_error *error, crowd_result code, const char *fmt, ...) CROWD_PRINTF(3, 4);

/* Prefixes an existing message with context ("clips[2]: " + message). */
void crowd_error_prefix(crowd_error *error, const char *fmt, ...) CROWD_PRINTF(2, 3);

#endif
