/* The one translation unit that compiles stb_image (Debian libstb-dev ships headers only). Only
 * the decoders glTF allows, with the reader's size limit built in; compiled without our warning
 * flags (third-party code). */
#include <stdbool.h>

#include "core/alloc.h"
#include "gltf/gltf_internal.h"

/* stb_image reports a failed allocation as "outofmem" on some paths and as "unknown image type" on
 * others (a format probe that could not allocate passes the data on), so the allocations are
 * watched here instead: gltf_image_allocation_failed() tells "no memory" from "not decodable". */
static _Thread_local bool allocation_failed;

static void *watched(void *p)
{
    if (!p)
        allocation_failed = true;
    return p;
}

void gltf_image_allocation_reset(void)
{
    allocation_failed = false;
}

bool gltf_image_allocation_failed(void)
{
    return allocation_failed;
}

#define STBI_MALLOC(size) watched(crowd_malloc(size))
#define STBI_REALLOC_SIZED(p, old_size, size) watched(crowd_realloc_sized(p, old_size, size))
#define STBI_FREE(p) crowd_free(p)
#define STBIW_MALLOC(size) watched(crowd_malloc(size))
#define STBIW_REALLOC_SIZED(p, old_size, size) watched(crowd_realloc_sized(p, old_size, size))
#define STBIW_FREE(p) crowd_free(p)

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#define STBI_MAX_DIMENSIONS 16384
#include <stb_image.h>

/* The writer embeds the albedo as PNG. */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb_image_write.h>
