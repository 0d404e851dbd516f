/* Internal: checking UTF-8, header-only. Names in our files are UTF-8; a reader that passes bytes
 * on unchecked makes every later consumer (JSON output, a browser) meet invalid text. */
#ifndef CROWD_COMMON_UTF8_H
#define CROWD_COMMON_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* The length (1..4) of the well-formed UTF-8 sequence at s[0..n), or 0 when it is not one: a stray
 * continuation byte, a truncated sequence, an overlong form, a surrogate or a code point past
 * U+10FFFF (RFC 3629). */
static inline size_t cb_utf8_sequence(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    /* the second byte's range is narrower after these leads: no overlongs, surrogates or > U+10FFFF */
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return len;
}

/* True when s[0..n) is well-formed UTF-8 throughout. */
static inline bool cb_utf8_valid(const void *text, size_t n)
{
    const unsigned char *s = text;
    for (size_t at = 0; at < n;) {
        size_t len = cb_utf8_sequence(s + at, n - at);
        if (!len)
            return false;
        at += len;
    }
    return true;
}

#endif
