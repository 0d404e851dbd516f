/* The GL tests' common start and end: a surfaceless context and the humanoid baked with bones. */
#ifndef CROWD_TESTS_GL_FIXTURE_H
#define CROWD_TESTS_GL_FIXTURE_H

#include <stdbool.h>

#include "crowdbake/bake.h"
#include "gl_context.h"

/* Opens a width x height context (OpenGL ES 3.0, or desktop OpenGL 3.3 core when argv[1] is
 * "--desktop"), prints which, then bakes the humanoid with bones into *baked and loads it into
 * *asset. Returns whether the desktop context was asked for; on any failure prints why and exits
 * with status 1 (a test without its context has nothing to check). */
bool gl_fixture_open(int argc, char **argv, int width, int height, tool_gl *gl, crowd_bake_output *baked,
                     crowd_asset *asset);

/* Frees what gl_fixture_open made, the context last. */
void gl_fixture_close(tool_gl *gl, crowd_bake_output *baked, crowd_asset *asset);

#endif
