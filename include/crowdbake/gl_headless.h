/* crowdbake/gl_headless.h — a GL context with no window, for offline rendering and tests.
 *
 * A convenience, not part of the renderer: an engine brings its own context and never needs this.
 * It is what crowdbake's own tools and tests render with: EGL's surfaceless platform (Mesa: any
 * GPU driver, or llvmpipe on a machine with no GPU and no display), one offscreen framebuffer with
 * depth, optionally multisampled, read back as RGBA8. Native builds only (not in the browser build).
 *
 * A first picture without a window:
 *     crowd_gl_headless_desc hd = {.width = 640, .height = 360, .samples = 4};
 *     crowd_gl_headless *gl;
 *     if (crowd_gl_headless_create(&hd, &gl, &error) != CROWD_OK) ... error.message says why
 *     crowd_gl_create(...)   // the context is current and its framebuffer bound
 *     ... crowd_update, crowd_gl_upload, crowd_gl_render_shadows, crowd_gl_draw ...
 *     crowd_gl_headless_read_rgba(gl, pixels, &error);   // width * height * 4 bytes, top row first
 *     crowd_gl_destroy(renderer); crowd_gl_headless_destroy(gl);
 *
 * crowd_gl_create's renderer remembers the framebuffer bound when it was created as the one its
 * shadow pass returns to: create the renderer after the headless context (as above), or give it
 * crowd_gl_headless_framebuffer through crowd_gl_set_target. */
#ifndef CROWDBAKE_GL_HEADLESS_H
#define CROWDBAKE_GL_HEADLESS_H

#include <stdbool.h>
#include <stdint.h>
#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crowd_gl_headless crowd_gl_headless;

typedef struct crowd_gl_headless_desc {
    int width, height; /* the framebuffer's pixels, 1..16384 each */
    /* 0 or 1: single-sampled; 2..16: multisampled, resolved when read back (the driver may give
     * more samples than asked, never fewer) */
    int samples;
    /* OpenGL ES 3.0 (what WebGL2 is), else desktop OpenGL 3.3 core (Mesa gives its newest core
     * version, which has the compute shaders of crowd_gl's GPU path) */
    bool es;
} crowd_gl_headless_desc;

/* Creates the context, makes it current on the calling thread and binds its framebuffer (viewport
 * the whole of it). CROWD_ERROR_ARGUMENT for a size or sample count out of range; CROWD_ERROR_GL
 * with what failed when EGL has no surfaceless display (no Mesa EGL installed), no config or
 * context of the kind asked, or the framebuffer is incomplete. Nothing to free on failure. */
CROWD_API crowd_result crowd_gl_headless_create(const crowd_gl_headless_desc *desc, crowd_gl_headless **out,
                                                crowd_error *error);

/* Releases the context (made current again first, so its objects can be deleted) and leaves no
 * context current on the calling thread. NULL is allowed. */
CROWD_API void crowd_gl_headless_destroy(crowd_gl_headless *headless);

/* The framebuffer object to draw into (multisampled when asked). */
CROWD_API uint32_t crowd_gl_headless_framebuffer(const crowd_gl_headless *headless);

/* The GL_RENDERER string of the context ("llvmpipe (LLVM ...)" on a machine without a GPU). */
CROWD_API const char *crowd_gl_headless_renderer(const crowd_gl_headless *headless);

/* Reads the framebuffer (resolving it first when multisampled) into `rgba`: width * height * 4
 * bytes, the top row first. Waits for the GPU (glReadPixels): for shots and tests, not for frames.
 * Leaves crowd_gl_headless_framebuffer bound for further drawing. CROWD_ERROR_ARGUMENT for NULL;
 * CROWD_ERROR_GL when the read failed (the driver's error). */
CROWD_API crowd_result crowd_gl_headless_read_rgba(crowd_gl_headless *headless, uint8_t *rgba, crowd_error *error);

#ifdef __cplusplus
}
#endif
#endif
