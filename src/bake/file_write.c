/* Atomic file output: write a sibling temporary file, flush it, rename it over the target.
 *
 * rename() replaces whatever the target path names, so the target is looked at first: only a
 * regular file (or nothing) may be replaced. A device, a FIFO, a socket or a directory is refused
 * with the target untouched (`--out /dev/null` must not turn the device into a file). A symbolic
 * link is followed: the file it points to is replaced (the temporary file goes next to that file,
 * so the rename stays inside one directory) and the link stays a link, as `>` in a shell would
 * write through it; a dangling link is refused. Between the check and the rename another process
 * could swap the path; that race is out of scope for an offline tool. */
/* POSIX for lstat, fsync, getpid and open, XSI for realpath */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/error.h"
#include "crowdbake/bake.h"

/* Creates a new sibling of `path` that no one else has; 0666 so the umask decides, like fopen. */
static int create_temp(const char *path, char *temp, size_t temp_size)
{
    static atomic_uint counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(temp, temp_size, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&counter, 1u));
        int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* Where the bytes may go for `path`: NULL and *resolved = NULL for the path itself (absent, or a
 * regular file), a malloc'd real path for a link to a regular file, or an error. */
static crowd_result resolve_target(const char *path, char **resolved, crowd_error *error)
{
    *resolved = NULL;
    struct stat link_info, info;
    if (lstat(path, &link_info) != 0) {
        if (errno == ENOENT)
            return CROWD_OK;
        return crowd_fail(error, CROWD_ERROR_IO, "%s: cannot look at the target: %s", path, strerror(errno));
    }
    if (S_ISREG(link_info.st_mode))
        return CROWD_OK;
    if (!S_ISLNK(link_info.st_mode))
        return crowd_fail(error, CROWD_ERROR_IO, "%s: is %s; refusing to replace it (write to a regular file)", path,
                          file_kind(link_info.st_mode));
    if (stat(path, &info) != 0)
        return crowd_fail(error, CROWD_ERROR_IO, "%s: is a symbolic link that leads nowhere usable: %s", path,
                          strerror(errno));
    if (!S_ISREG(info.st_mode))
        return crowd_fail(error, CROWD_ERROR_IO, "%s: is a symbolic link to %s; refusing to replace it", path,
                          file_kind(info.st_mode));
    char *real = realpath(path, NULL);
    if (!real)
        return crowd_fail(error, CROWD_ERROR_IO, "%s: cannot resolve the symbolic link: %s", path, strerror(errno));
    /* realpath() allocates with malloc; hand the library's allocator its own copy */
    size_t n = strlen(real) + 1;
    *resolved = crowd_malloc(n);
    if (*resolved)
        memcpy(*resolved, real, n);
    free(real);
    if (!*resolved)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "write: out of memory");
    return CROWD_OK;
}

crowd_result crowd_write_file_atomic(const char *path, const void *data, size_t size, crowd_error *error)
{
    if (!path || (!data && size))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "write: NULL path or data");
    char *resolved = NULL;
    crowd_result r = resolve_target(path, &resolved, error);
    if (r != CROWD_OK)
        return r;
    if (resolved) {
        r = crowd_write_file_atomic(resolved, data, size, error);
        crowd_free(resolved);
        if (r != CROWD_OK)
            crowd_error_prefix(error, "%s -> ", path);
        return r;
    }
    size_t temp_size = strlen(path) + 48;
    char *temp = crowd_malloc(temp_size);
    if (!temp)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "write: out of memory");

    int fd = create_temp(path, temp, temp_size);
    if (fd < 0) {
        r = crowd_fail(error, CROWD_ERROR_IO, "%s: cannot create a file next to it: %s", path, strerror(errno));
        crowd_free(temp);
        return r;
    }
    const char *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        p += n;
        left -= (size_t)n;
    }
    bool ok = left == 0 && fsync(fd) == 0;
    int saved = errno;
    ok = close(fd) == 0 && ok;
    if (!ok) {
        r = crowd_fail(error, CROWD_ERROR_IO, "%s: write failed: %s", path, strerror(saved ? saved : errno));
        goto fail;
    }
    if (rename(temp, path) != 0) {
        r = crowd_fail(error, CROWD_ERROR_IO, "%s: cannot move the finished file into place: %s", path,
                       strerror(errno));
        goto fail;
    }
    crowd_free(temp);
    return CROWD_OK;

fail:
    remove(temp);
    crowd_free(temp);
    return r;
}
