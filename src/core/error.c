#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const result_names[CROWD_RESULT_COUNT] = {
    [CROWD_OK] = "CROWD_OK",
    [CROWD_ERROR_IO] = "CROWD_ERROR_IO",
    [CROWD_ERROR_OUT_OF_MEMORY] = "CROWD_ERROR_OUT_OF_MEMORY",
    [CROWD_ERROR_ARGUMENT] = "CROWD_ERROR_ARGUMENT",
    [CROWD_ERROR_BAD_MAGIC] = "CROWD_ERROR_BAD_MAGIC",
    [CROWD_ERROR_BAD_VERSION] = "CROWD_ERROR_BAD_VERSION",
    [CROWD_ERROR_TRUNCATED] = "CROWD_ERROR_TRUNCATED",
    [CROWD_ERROR_SECTION_RANGE] = "CROWD_ERROR_SECTION_RANGE",
    [CROWD_ERROR_SECTION_OVERLAP] = "CROWD_ERROR_SECTION_OVERLAP",
    [CROWD_ERROR_MISALIGNED] = "CROWD_ERROR_MISALIGNED",
    [CROWD_ERROR_CHECKSUM] = "CROWD_ERROR_CHECKSUM",
    [CROWD_ERROR_OVERFLOW] = "CROWD_ERROR_OVERFLOW",
    [CROWD_ERROR_MISSING] = "CROWD_ERROR_MISSING",
    [CROWD_ERROR_INVALID_DATA] = "CROWD_ERROR_INVALID_DATA",
    [CROWD_ERROR_LIMIT] = "CROWD_ERROR_LIMIT",
    [CROWD_ERROR_UNSUPPORTED] = "CROWD_ERROR_UNSUPPORTED",
    [CROWD_ERROR_GL] = "CROWD_ERROR_GL",
};

const char *crowd_result_name(crowd_result result)
{
    if ((unsigned)result >= CROWD_RESULT_COUNT || !result_names[result])
        return "CROWD_ERROR_UNKNOWN";
    return result_names[result];
}

crowd_result crowd_fail(crowd_error *error, crowd_result code, const char *fmt, ...)
{
    if (!error)
        return code;
    error->code = code;
    va_list args;
    va_start(args, fmt);
    vsnprintf(error->message, sizeof error->message, fmt, args);
    va_end(args);
    return code;
}

void crowd_error_prefix(crowd_error *error, const char *fmt, ...)
{
    if (!error)
        return;
    char prefix[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, args);
    va_end(args);

    /* Truncation is intended: the message keeps its first 511 bytes. */
    char joined[sizeof error->message];
    size_t n = strlen(prefix);
    if (n >= sizeof joined)
        n = sizeof joined - 1;
    memcpy(joined, prefix, n);
    const char *end = memchr(error->message, '\0', sizeof error->message); /* strnlen is POSIX */
    size_t rest = end ? (size_t)(end - error->message) : sizeof error->message;
    if (rest > sizeof joined - 1 - n)
        rest = sizeof joined - 1 - n;
    memcpy(joined + n, error->message, rest);
    joined[n + rest] = '\0';
    memcpy(error->message, joined, sizeof joined);
}
