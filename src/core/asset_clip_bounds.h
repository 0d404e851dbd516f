/* Internal: the CBND section (per-clip bounding spheres, format version 3), shared by the loader
 * (asset_clip_bounds.c) and the baker (src/bake/bake.c, bake_pack.c). docs/format.md, "CBND". */
#ifndef CROWD_CORE_ASSET_CLIP_BOUNDS_H
#define CROWD_CORE_ASSET_CLIP_BOUNDS_H

#include <math.h>
#include <stdbool.h>

#include "core/format.h"
#include "crowdbake/asset.h"

/* Slack of "inside the asset sphere": both spheres are float32, rounded separately, so a clip
 * sphere the baker computed in double as touching the asset sphere from inside may poke out by a
 * few ulps of the larger length. */
static inline float crowd_clip_sphere_slack(float asset_center_y, float asset_radius)
{
    return 1e-5f * (asset_radius + fabsf(asset_center_y)) + 1e-6f;
}

/* Whether sphere (c, r) lies inside the asset sphere ((0, cy, 0), R) within that slack. */
static inline bool crowd_clip_sphere_inside(const float c[3], float r, float cy, float R)
{
    double dy = (double)c[1] - cy, d = sqrt((double)c[0] * c[0] + dy * dy + (double)c[2] * c[2]);
    return d + r <= (double)R + crowd_clip_sphere_slack(cy, R);
}

/* Validates a CBND section against the asset (clip count, the asset sphere) and the file's
 * version, and fills every clip's bound_* and cull_* fields and asset->has_clip_bounds. */
crowd_result crowd_asset_check_clip_bounds(crowd_asset *asset, const uint8_t *data, uint64_t size, uint32_t version,
                                           crowd_clip *clips, crowd_error *error);

/* Fills every clip's bound_* and cull_* fields with the asset sphere (files without CBND). */
void crowd_asset_default_clip_bounds(const crowd_asset *asset, crowd_clip *clips);

#endif
