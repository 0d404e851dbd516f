/* crowd-bench --menagerie (bench_world.c): several kinds in one world against one kind. */
#ifndef CROWD_TOOLS_BENCH_WORLD_H
#define CROWD_TOOLS_BENCH_WORLD_H

#include "crowdbake/asset.h"
#include "crowdbake/sim.h"

/* For each total: one kind (asset) with every instance, against asset + two baked critters in a
 * crowd_world sharing it (with and without the separation across kinds); prints a table, non-zero
 * on failure. `warmup`: simulated frames before the measured ones (crowd-bench --warmup). */
int bench_world(const crowd_asset *asset, const uint32_t *counts, uint32_t n, uint32_t warmup, uint32_t frames);

#endif
