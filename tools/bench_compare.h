/* crowd-bench --compare (bench_compare.c): classic skinning vs the VAT crowd, CPU ms per frame. */
#ifndef CROWD_TOOLS_BENCH_COMPARE_H
#define CROWD_TOOLS_BENCH_COMPARE_H

#include "crowdbake/asset.h"

/* Runs both paths on the benchmark scene for each count and prints a table; non-zero on failure
 * (the asset's rig cannot be rebuilt, no GL context). */
int bench_compare(const crowd_asset *asset, const uint32_t *counts, uint32_t n, uint32_t frames);

#endif
