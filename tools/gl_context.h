/* A headless GL context through EGL's surfaceless platform (Mesa llvmpipe on CI), drawing into an
 * offscreen framebuffer: what crowd-shot and the GL tests render with. No display needed. */
#ifndef CROWD_TOOLS_GL_CONTEXT_H
#define CROWD_TOOLS_GL_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "crowdbake/base.h"
#include "crowdbake/gl_headless.h"

/* A crowd_gl_headless context (crowdbake/gl_headless.h) as the tools and tests use it. */
typedef struct tool_gl {
    crowd_gl_headless *headless;
    unsigned fbo; /* crowd_gl_headless_framebuffer: the target to draw into */
    int width, height;
    bool es;
    char renderer[128];
} tool_gl;

/* Creates the context (OpenGL ES 3.0 when `es`, like WebGL2; else desktop 3.3 core), makes it
 * current and binds a width x height 4x multisampled framebuffer with depth. */
crowd_result tool_gl_create(tool_gl *gl, int width, int height, bool es, crowd_error *error);
/* The same with `samples` per pixel (0 = a single-sampled framebuffer, e.g. for a caller that
 * resolves its own multisampled target into it). */
crowd_result tool_gl_create_samples(tool_gl *gl, int width, int height, bool es, int samples, crowd_error *error);
void tool_gl_destroy(tool_gl *gl);

/* Resolves the framebuffer and reads it as top-down RGB8 (width * height * 3 bytes). Leaves the
 * multisampled framebuffer bound for further drawing. */
void tool_gl_read_rgb(tool_gl *gl, uint8_t *rgb);

/* Writes RGB8 pixels to a PNG file. */
crowd_result tool_write_png(const char *path, const uint8_t *rgb, int width, int height, crowd_error *error);

#endif
