/* Atomic file output: write a sibling temporary file, flush it, rename it over the target. */
#define _POSIX_C_SOURCE 200809L /* fsync, getpid, open */
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

crowd_result crowd_write_file_atomic(const char *path, const void *data, size_t size, crowd_error *error)
{
    if (!path || (!data && size))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "write: NULL path or data");
    size_t temp_size = strlen(path) + 48;
    char *temp = crowd_malloc(temp_size);
    if (!temp)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "write: out of memory");

    crowd_result r = CROWD_OK;
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
