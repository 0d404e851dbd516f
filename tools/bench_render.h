/* crowd-bench --render (bench_render.c): the render path per frame through EGL. */
#ifndef CROWD_TOOLS_BENCH_RENDER_H
#define CROWD_TOOLS_BENCH_RENDER_H

#include <stdbool.h>

#include "crowdbake/gl.h"
#include "crowdbake/sim.h"

typedef struct bench_render_options {
    crowd_gl_path path; /* CPU or GPU */
    uint32_t frames;
    bool sim_on;             /* the wander simulation steps every frame (else a static crowd: no step) */
    bool still;              /* the camera does not orbit */
    bool coverage;           /* the screen-coverage LOD policy (per-instance levels) instead of distance */
    bool gl_debug;           /* crowd_gl_desc.debug, and a GL error check after each frame's cull pass (a round
                       trip per call: the timings are then not the release path's) */
    float imposter_distance; /* > 0: the imposter level from there (the asset's atlas, or one baked
                                here with the defaults), earlier level ends clamped to it; 0: none */
    bool velocity;           /* the colour pass with motion vectors off and on instead (bench_velocity.c) */
} bench_render_options;

/* The benchmark scene's simulation: wander among the showcase's pillars, seed 7, the demo's looks;
 * the caller sets .target. Its obstacles live in static storage (crowd_sim_create copies them). */
crowd_sim_desc bench_scene_sim(const crowd_asset *asset);

/* Draws every frame of the benchmark scene for each count and prints a table; returns non-zero on
 * failure (the first GL error under gl_debug fails the run). */
int bench_render(const crowd_asset *asset, const uint32_t *counts, uint32_t n, const bench_render_options *o);

#endif
