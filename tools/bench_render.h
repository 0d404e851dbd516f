/* crowd-bench --render (bench_render.c): the render path per frame through EGL. */
#ifndef CROWD_TOOLS_BENCH_RENDER_H
#define CROWD_TOOLS_BENCH_RENDER_H

#include <stdbool.h>

#include "crowdbake/gl.h"

/* Draws every frame of the benchmark scene for each count and prints a table; returns non-zero on
 * failure. */
int bench_render(const crowd_asset *asset, const uint32_t *counts, uint32_t n, crowd_gl_path path, uint32_t frames,
                 bool sim_on, bool still);

#endif
