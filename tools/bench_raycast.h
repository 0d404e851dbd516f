/* crowd-bench --raycast (bench_raycast.c): the cost of crowd_raycast per round. */
#ifndef CROWD_TOOLS_BENCH_RAYCAST_H
#define CROWD_TOOLS_BENCH_RAYCAST_H

#include "crowdbake/asset.h"
#include "crowdbake/hits.h"

/* For each count: a wandering crowd on the benchmark scene, crowd_hits_update's cost and the cost
 * per ray of crowd_raycast (and of brute force, on fewer rays); prints a table, non-zero on failure. */
int bench_raycast(const crowd_asset *asset, const uint32_t *counts, uint32_t n);

#endif
