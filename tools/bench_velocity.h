/* crowd-bench --render cpu|gpu --velocity (bench_velocity.c): the colour pass with motion vectors
 * off and on. */
#ifndef CROWD_TOOLS_BENCH_VELOCITY_H
#define CROWD_TOOLS_BENCH_VELOCITY_H

#include "bench_render.h"

/* For each count, prints the colour pass's median GPU ms without and with crowd_gl_desc.velocity
 * (o: path, frames, sim_on, still, coverage); non-zero on failure. */
int bench_velocity(const crowd_asset *asset, const uint32_t *counts, uint32_t n, const bench_render_options *o);

#endif
