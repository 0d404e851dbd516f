/* The allocation hooks. A plain allocation is the hook's block as it is; an aligned one
 * over-allocates and keeps the hook's pointer just before the aligned address, so it needs no
 * aligned_alloc (which MSVC lacks) and works with any hook that aligns like malloc. */
#include "core/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crowdbake/base.h"

static void *libc_allocate(void *user, size_t size)
{
    (void)user;
    return malloc(size);
}

static void libc_release(void *user, void *pointer)
{
    (void)user;
    free(pointer);
}

static crowd_allocator hooks = {libc_allocate, libc_release, NULL};

void crowd_set_allocator(const crowd_allocator *allocator)
{
    if (allocator && allocator->allocate && allocator->release)
        hooks = *allocator;
    else
        hooks = (crowd_allocator){libc_allocate, libc_release, NULL};
}

void *crowd_malloc(size_t size)
{
    return hooks.allocate(hooks.user, size ? size : 1);
}

void *crowd_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    void *p = crowd_malloc(bytes);
    if (p && bytes)
        memset(p, 0, bytes);
    return p;
}

void *crowd_realloc_sized(void *pointer, size_t old_size, size_t size)
{
    void *grown = crowd_malloc(size);
    if (grown && pointer) {
        memcpy(grown, pointer, old_size < size ? old_size : size);
        crowd_free(pointer);
    }
    return grown;
}

void crowd_free(void *pointer)
{
    if (pointer)
        hooks.release(hooks.user, pointer);
}

void *crowd_aligned_alloc(size_t alignment, size_t size)
{
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) || alignment > 4096 ||
        size > SIZE_MAX - alignment - sizeof(void *))
        return NULL;
    unsigned char *raw = crowd_malloc(size + alignment + sizeof(void *));
    if (!raw)
        return NULL;
    uintptr_t aligned = ((uintptr_t)(raw + sizeof(void *)) + alignment - 1) & ~(uintptr_t)(alignment - 1);
    memcpy((unsigned char *)aligned - sizeof(void *), &raw, sizeof raw);
    return (void *)aligned;
}

void crowd_aligned_free(void *pointer)
{
    if (!pointer)
        return;
    void *raw;
    memcpy(&raw, (unsigned char *)pointer - sizeof(void *), sizeof raw);
    crowd_free(raw);
}

void *crowd_malloc_hook(size_t size)
{
    return crowd_malloc(size);
}

void crowd_free_hook(void *pointer)
{
    crowd_free(pointer);
}
