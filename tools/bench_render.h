/* crowd-bench --render (bench_render.c): the render path per frame through EGL. */
#ifndef CROWD_TOOLS_BENCH_RENDER_H
#define CROWD_TOOLS_BENCH_RENDER_H

#include <stdbool.h>

#include "crowdbake/gl.h"

/* Draws every frame of the benchmark scene for each count and prints a table; returns non-zero on
 * failure. `imposter_distance` > 0: the imposter level from that distance (the asset's atlas, or one
 * baked here with the defaults when it has none; earlier level ends clamped to it); 0: none.
 * `gl_debug`: crowd_gl_desc.debug, and a GL error check after each frame's cull pass (a round trip
 * per call: the timings are then not the release path's); the first error fails the run. */
int bench_render(const crowd_asset *asset, const uint32_t *counts, uint32_t n, crowd_gl_path path, uint32_t frames,
                 bool sim_on, bool still, float imposter_distance, bool gl_debug);

#endif
