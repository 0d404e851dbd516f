/* The GL tests' common start and end: a surfaceless context and the humanoid baked with bones. */
#ifndef CROWD_TESTS_GL_FIXTURE_H
#define CROWD_TESTS_GL_FIXTURE_H

#include <stdbool.h>

#include "crowdbake/bake.h"
#include "crowdbake/gl.h"
#include "gl_context.h"
#include "showcase/stage.h"

/* Opens a width x height context (OpenGL ES 3.0, or desktop OpenGL 3.3 core when argv[1] is
 * "--desktop"), prints which, then bakes the humanoid with bones into *baked and loads it into
 * *asset. Returns whether the desktop context was asked for; on any failure prints why and exits
 * with status 1 (a test without its context has nothing to check). */
bool gl_fixture_open(int argc, char **argv, int width, int height, tool_gl *gl, crowd_bake_output *baked,
                     crowd_asset *asset);

/* The same with the desktop context whatever the arguments (the GPU-driven path's tests: llvmpipe's
 * core profile has GL 4.5 and compute); prints "desktop GL on <renderer>". */
void gl_fixture_open_desktop(int width, int height, tool_gl *gl, crowd_bake_output *baked, crowd_asset *asset);

/* A renderer for `desc`, and the tests' ground (120, 130, 110 sRGB, a square ground_size metres wide
 * centred on the origin; 0: none) on the fixture's stage (showcase/stage.h), which gl_fixture_draw draws under it;
 * prints why and exits with status 1 when either cannot be created. */
crowd_gl_renderer *gl_fixture_renderer(const crowd_gl_desc *desc, float ground_size);

/* The fixture's stage (the ground gl_fixture_renderer set), for a test's own passes. */
showcase_stage *gl_fixture_stage(void);

/* The colour pass of a test frame: clears to the tests' sky (0.9, 0.92, 0.95), draws `frame` and the
 * stage's ground with the crowd's far shadows on it, checks for a GL error (a failed CHECK) and reads
 * the RGB pixels (gl's size) into `out`. */
void gl_fixture_draw(tool_gl *gl, crowd_gl_renderer *renderer, const crowd_frame *frame, const crowd_gl_scene *scene,
                     uint8_t *out);

/* Frees what gl_fixture_open and gl_fixture_renderer made (not the renderers), the context last. */
void gl_fixture_close(tool_gl *gl, crowd_bake_output *baked, crowd_asset *asset);

#endif
