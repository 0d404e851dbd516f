/* Internal: the library's allocation functions, routed through the crowd_allocator hooks
 * (base.h). Every file of crowd_core, crowd_bake and crowd_gl allocates through these, never
 * through malloc/free directly. */
#ifndef CROWD_CORE_ALLOC_H
#define CROWD_CORE_ALLOC_H

#include <stddef.h>

void *crowd_malloc(size_t size);
void *crowd_calloc(size_t count, size_t size); /* NULL when count * size overflows */
/* Grows (or shrinks) a crowd_malloc block of `old_size` bytes: allocate, copy, release. NULL on
 * failure, the old block untouched. */
void *crowd_realloc_sized(void *pointer, size_t old_size, size_t size);
void crowd_free(void *pointer);

/* `alignment` a power of two up to 4096; release with crowd_aligned_free (never crowd_free). */
void *crowd_aligned_alloc(size_t alignment, size_t size);
void crowd_aligned_free(void *pointer);

/* Plain function pointers for third-party libraries that take a malloc/free pair (cJSON,
 * meshoptimizer): they call the hooks installed at the time of each call. */
void *crowd_malloc_hook(size_t size);
void crowd_free_hook(void *pointer);

#endif
