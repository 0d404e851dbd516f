/* crowd-bench --render (bench_render.c): the render path per frame through EGL. */
#ifndef CROWD_TOOLS_BENCH_RENDER_H
#define CROWD_TOOLS_BENCH_RENDER_H

#include <stdbool.h>

#include "crowdbake/gl.h"

/* Draws every frame of the benchmark scene for each count and prints a table; returns non-zero on
 * failure. `imposter_distance` > 0: the imposter level from that distance (the asset's atlas, or one
 * baked here with the defaults when it has none; earlier level ends clamped to it); 0: none. */
int bench_render(const crowd_asset *asset, const uint32_t *counts, uint32_t n, crowd_gl_path path, uint32_t frames,
                 bool sim_on, bool still, float imposter_distance);

#endif
