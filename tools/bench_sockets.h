/* crowd-bench --sockets (bench_sockets.c): the cost of the CPU socket and bone queries per instance. */
#ifndef CROWD_TOOLS_BENCH_SOCKETS_H
#define CROWD_TOOLS_BENCH_SOCKETS_H

#include "crowdbake/asset.h"

/* For each count: a crowd in mixed states (loops, cross-fades, held one-shots, walkers), the "head"
 * socket (or socket 0) of every live instance through crowd_socket_transforms (all, and a shuffled
 * index list), one at a time through crowd_socket_transform, and its bone through
 * crowd_bone_transforms; medians of repeats, ns per instance. Prints a table; non-zero on failure
 * (an asset without bones or sockets included). */
int bench_sockets(const crowd_asset *asset, const uint32_t *counts, uint32_t n);

#endif
