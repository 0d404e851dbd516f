/* crowdbake/hits.h — rays against a crowd's instances: hit tests for gameplay (picking, a shot, a
 * line of sight), from the records of the crowd's last update. Part of the runtime (crowdbake::core). */
#ifndef CROWDBAKE_HITS_H
#define CROWDBAKE_HITS_H

#include <stdbool.h>
#include "crowd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every live instance is a vertical cylinder derived from its record and the asset's baked bounds
 * (the box of every vertex of every frame): axis through the record's position, radius scale x
 * (half the box's larger XZ extent + the distance of the box's XZ centre from the model's axis),
 * from y + scale * bounds_min.y to y + scale * bounds_max.y. It holds the box under any yaw, so
 * every pose the asset can show (and the yaw costs no trigonometry).
 *
 * The broadphase is the crowd's chunk grid refined: each chunk split into k x k cells (k chosen at
 * crowd_hits_update so that a cell holds a few instances and is at least one cylinder wide), each
 * cylinder listed in the (at most 2 x 2) cells its footprint meets; cylinders wider than a cell or
 * reaching outside the world go to a short list every ray tests. A ray is clipped to the slab of
 * heights the cylinders span and to the world, then walks the cells along its XZ track in order
 * (a 2D DDA), testing the candidates listed there, and stops at the first cell that starts beyond
 * the nearest hit so far: a round tests a few dozen cylinders, never all of them.
 *
 * crowd_hits_update snapshots the crowd's last update (positions read from the records): rays
 * see the instances as they were then, whatever setters or steps did since. Memory: reserved by
 * crowd_hits_create, about 48 bytes per instance of capacity plus 4 per cell; nothing allocates
 * after it. Not thread-safe against crowd_hits_update; concurrent crowd_raycast calls on one
 * index are fine (they only read). */
typedef struct crowd_hits crowd_hits;

typedef struct crowd_ray_hit {
    uint32_t index;  /* the instance (dense index, as crowd_get takes), UINT32_MAX for no hit */
    float distance;  /* metres along the (normalised) ray */
    float point[3];  /* where the ray enters the cylinder */
    uint32_t tested; /* cylinders tested (the cost; brute force: every live instance) */
} crowd_ray_hit;

/* Reserves the index for `crowd` (borrowed; must outlive it) at its capacity. */
CROWD_API crowd_result crowd_hits_create(const crowd *crowd, crowd_hits **out, crowd_error *error);
CROWD_API void crowd_hits_destroy(crowd_hits *hits);

/* Re-buckets the live instances of the crowd's last crowd_update: O(live instances), two passes of
 * a counting sort. Call after crowd_update on frames that cast rays. */
CROWD_API void crowd_hits_update(crowd_hits *hits);

/* The first cylinder along the ray from `origin` in `direction` (any non-zero length: it is
 * normalised) within `max_distance` metres. True and *hit filled on a hit; false (hit->index
 * UINT32_MAX) otherwise or for a non-finite ray. Ties between cylinders go to the lower index.
 * A ray starting inside a cylinder hits it at distance 0. */
CROWD_API bool crowd_raycast(const crowd_hits *hits, const float origin[3], const float direction[3],
                             float max_distance, crowd_ray_hit *hit);

/* The same answer by testing every live instance of the snapshot: the reference the tests hold
 * crowd_raycast to, O(live instances). */
CROWD_API bool crowd_raycast_brute(const crowd_hits *hits, const float origin[3], const float direction[3],
                                   float max_distance, crowd_ray_hit *hit);

/* Mirrors crowd_remove(crowd, index) in the snapshot: call it right after crowd_remove on the same
 * index, so the rest of the frame's rays never hit the removed instance and report the one that
 * took its index (the last live one) under its new index, without a crowd_hits_update. O(1).
 * CROWD_ERROR_ARGUMENT (changing nothing) for a NULL index or an index the snapshot does not hold
 * (past its count). */
CROWD_API crowd_result crowd_hits_remove(crowd_hits *hits, uint32_t index);

#ifdef __cplusplus
}
#endif
#endif
