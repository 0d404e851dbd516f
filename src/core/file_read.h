/* Internal: opening and sizing a file for reading, shared by the .crowd loader, the glTF reader,
 * the frames-dump reader and the tools. Opening refuses anything but a regular file before a read
 * can block (file_open.c); sizing uses nothing but C11 stdio.
 *
 * fopen() succeeds on a directory on Linux and glibc's ftell() then reports LONG_MAX, which a
 * careless reader takes as a size and answers with "out of memory" (or an allocator abort under
 * ASan). So: read one byte first (a directory fails there with EISDIR, a FIFO or device shows up
 * as unseekable), then check the size against the caller's limit before anything is allocated. */
#ifndef CROWD_CORE_FILE_READ_H
#define CROWD_CORE_FILE_READ_H

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

/* Opens `path` for binary reading; NULL with the error filled ("PATH: cannot open: ...") when it
 * cannot be opened or is not a regular file ("PATH: is a FIFO (named pipe), not a regular file"):
 * a FIFO with no writer would block fopen() forever, a device would read without end. */
FILE *crowd_file_open_read(const char *path, crowd_error *error);

/* Sizes `f` (opened by crowd_file_open_read or fopen "rb" from `path`) and rewinds it. Refuses a directory ("is a directory"), a
 * file that cannot be read or sized, and one over `limit` bytes (CROWD_ERROR_LIMIT). Messages
 * start with `path`. */
static inline crowd_result crowd_file_size(FILE *f, const char *path, uint64_t limit, uint64_t *size,
                                           crowd_error *error)
{
    errno = 0;
    int first = fgetc(f);
    if (first == EOF && ferror(f)) {
        int e = errno;
#ifdef EISDIR
        if (e == EISDIR)
            return crowd_fail(error, CROWD_ERROR_IO, "%s: is a directory", path);
#endif
        return crowd_fail(error, CROWD_ERROR_IO, "%s: cannot read: %s", path, e ? strerror(e) : "read error");
    }
    long n = -1;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        return crowd_fail(error, CROWD_ERROR_IO, "%s: cannot determine the size (not a regular file?)", path);
    /* LONG_MAX is what a directory or some special files report where the first read did not fail */
    if (n == LONG_MAX)
        return crowd_fail(error, CROWD_ERROR_IO, "%s: is not a regular file (its size reads as %ld)", path, n);
    if (first != EOF && n == 0)
        return crowd_fail(error, CROWD_ERROR_IO, "%s: is not a regular file (it reads but has no size)", path);
    if ((uint64_t)n > limit || (uint64_t)n > (uint64_t)SIZE_MAX - 64u)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "%s: %ld bytes, more than the %llu a reader accepts", path, n,
                          (unsigned long long)limit);
    *size = (uint64_t)n;
    return CROWD_OK;
}

/* Reads exactly `size` bytes of `f` into `bytes`; a short read (the file shrank, an I/O error) is
 * an error naming `path`. */
static inline crowd_result crowd_file_read_all(FILE *f, const char *path, void *bytes, uint64_t size,
                                               crowd_error *error)
{
    errno = 0;
    size_t got = size ? fread(bytes, 1, (size_t)size, f) : 0;
    if (got != (size_t)size) {
        int e = errno;
        if (ferror(f))
            return crowd_fail(error, CROWD_ERROR_IO, "%s: read failed: %s", path, e ? strerror(e) : "read error");
        return crowd_fail(error, CROWD_ERROR_IO, "%s: read %zu of %llu bytes (did the file change?)", path, got,
                          (unsigned long long)size);
    }
    return CROWD_OK;
}

#endif
