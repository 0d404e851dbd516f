#include "gl_context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "crowdbake/bake.h"

/* stb_image_write's implementation is compiled once, in crowd_bake (src/gltf/stb_image_impl.c). */
#include <stb/stb_image_write.h>

crowd_result tool_gl_create(tool_gl *gl, int width, int height, bool es, crowd_error *error)
{
    return tool_gl_create_samples(gl, width, height, es, 4, error);
}

crowd_result tool_gl_create_samples(tool_gl *gl, int width, int height, bool es, int samples, crowd_error *error)
{
    memset(gl, 0, sizeof *gl);
    const crowd_gl_headless_desc desc = {width, height, samples, es};
    crowd_result r = crowd_gl_headless_create(&desc, &gl->headless, error);
    if (r != CROWD_OK)
        return r;
    gl->fbo = crowd_gl_headless_framebuffer(gl->headless);
    gl->width = width;
    gl->height = height;
    gl->es = es;
    snprintf(gl->renderer, sizeof gl->renderer, "%s", crowd_gl_headless_renderer(gl->headless));
    return CROWD_OK;
}

void tool_gl_destroy(tool_gl *gl)
{
    crowd_gl_headless_destroy(gl->headless);
    memset(gl, 0, sizeof *gl);
}

void tool_gl_read_rgb(tool_gl *gl, uint8_t *rgb)
{
    uint8_t *rgba = malloc((size_t)gl->width * gl->height * 4);
    if (rgba && crowd_gl_headless_read_rgba(gl->headless, rgba, NULL) == CROWD_OK)
        for (size_t i = 0, n = (size_t)gl->width * gl->height; i < n; i++)
            memcpy(rgb + i * 3, rgba + i * 4, 3);
    free(rgba);
}

/* The PNG is encoded in memory and written through crowd_write_file_atomic: a failed shot never
 * leaves half a file, never deletes what the path held before, and never replaces a device. */
typedef struct png_sink {
    uint8_t *bytes;
    size_t size, capacity;
    bool ok;
} png_sink;

static void write_chunk(void *context, void *data, int size)
{
    png_sink *sink = context;
    if (!sink->ok || size <= 0)
        return;
    if (sink->size + (size_t)size > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 1u << 16;
        while (capacity < sink->size + (size_t)size)
            capacity *= 2;
        uint8_t *grown = realloc(sink->bytes, capacity);
        if (!grown) {
            sink->ok = false;
            return;
        }
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->size, data, (size_t)size);
    sink->size += (size_t)size;
}

crowd_result tool_write_png(const char *path, const uint8_t *rgb, int width, int height, crowd_error *error)
{
    png_sink sink = {NULL, 0, 0, true};
    int ok = stbi_write_png_to_func(write_chunk, &sink, width, height, 3, rgb, width * 3);
    crowd_result r;
    if (!ok || !sink.ok)
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: cannot encode the PNG (out of memory)", path);
    else
        r = crowd_write_file_atomic(path, sink.bytes, sink.size, error);
    free(sink.bytes);
    return r;
}
