/* Opening a file for reading (file_read.h). Beside pool.c this is the core's other POSIX file: it
 * asks for POSIX itself, and where there is none it is plain fopen.
 *
 * fopen() of a FIFO with no writer blocks in open() until a writer comes, which for a tool means
 * forever, and a character device such as /dev/zero reads without end. So the file is opened with
 * O_NONBLOCK (which makes open() of a FIFO return at once), checked with fstat() to be a regular
 * file, and only then made blocking again and handed to stdio. Checking the descriptor that was
 * opened, not the path, leaves no window in which the path could be swapped. */
#if defined(__unix__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/file_read.h"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

FILE *crowd_file_open_read(const char *path, crowd_error *error)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        crowd_fail(error, CROWD_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat info;
    if (fstat(fd, &info) != 0) {
        crowd_fail(error, CROWD_ERROR_IO, "%s: cannot read its type: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(info.st_mode)) {
        crowd_fail(error, CROWD_ERROR_IO, "%s: is %s, not a regular file", path, kind_of(info.st_mode));
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        crowd_fail(error, CROWD_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

#else

FILE *crowd_file_open_read(const char *path, crowd_error *error)
{
    errno = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        crowd_fail(error, CROWD_ERROR_IO, "%s: cannot open: %s", path, errno ? strerror(errno) : "fopen failed");
    return f;
}

#endif
