/* Loading the CBND section: one bounding sphere per clip, each checked to be finite and inside
 * the asset sphere before the culling code trusts it. */
#include "core/asset_clip_bounds.h"

#include <stdio.h>

#include "core/error.h"

void crowd_asset_default_clip_bounds(const crowd_asset *a, crowd_clip *clips)
{
    for (uint32_t c = 0; c < a->clip_count; c++) {
        crowd_clip *k = &clips[c];
        k->bound_center[0] = k->bound_center[2] = 0.0f;
        k->bound_center[1] = k->cull_center_y = a->sphere_center_y;
        k->bound_radius = k->cull_radius = a->sphere_radius;
    }
}

/* The yaw-invariant sphere: turning the bound about +Y sweeps its centre round a circle of radius
 * hypot(x, z), so widening by that holds every turn. Where that is no better than the asset sphere
 * (a bound far off the axis), the asset sphere is kept. */
static void derive_cull_sphere(const crowd_asset *a, crowd_clip *k)
{
    float r = k->bound_radius + hypotf(k->bound_center[0], k->bound_center[2]);
    bool tighter = r < a->sphere_radius;
    k->cull_center_y = tighter ? k->bound_center[1] : a->sphere_center_y;
    k->cull_radius = tighter ? r : a->sphere_radius;
}

crowd_result crowd_asset_check_clip_bounds(crowd_asset *a, const uint8_t *d, uint64_t size, uint32_t version,
                                           crowd_clip *clips, crowd_error *error)
{
    if (version < CROWD_VERSION_CLIP_BOUNDS)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "CBND section in a version-%u file (per-clip bounds need version %u)", version,
                          CROWD_VERSION_CLIP_BOUNDS);
    if (size < CROWD_CBND_HEADER_BYTES)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED, "CBND: %llu bytes, shorter than its %u-byte header",
                          (unsigned long long)size, CROWD_CBND_HEADER_BYTES);
    uint32_t count = crowd_rd32(d);
    if (count != a->clip_count)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "CBND: clip_count %u, the asset has %u clips", count,
                          a->clip_count);
    for (int k = 1; k < 4; k++)
        if (crowd_rd32(d + 4 * k))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "CBND: reserved word %d is not zero", k);
    uint64_t need = CROWD_CBND_HEADER_BYTES + (uint64_t)count * CROWD_CBND_CLIP_BYTES;
    if (size != need)
        return crowd_fail(error, CROWD_ERROR_OVERFLOW, "CBND: %llu bytes; %u clips need %llu", (unsigned long long)size,
                          count, (unsigned long long)need);
    const uint8_t *rec = d + CROWD_CBND_HEADER_BYTES;
    for (uint32_t c = 0; c < count; c++, rec += CROWD_CBND_CLIP_BYTES) {
        crowd_clip *k = &clips[c];
        for (int i = 0; i < 3; i++)
            k->bound_center[i] = crowd_rdf32(rec + 4 * i);
        k->bound_radius = crowd_rdf32(rec + 12);
        bool finite = true;
        for (int i = 0; i < 3; i++)
            finite = finite && fabsf(k->bound_center[i]) <= CROWD_MAX_COORDINATE; /* false for NaN */
        if (!finite || !(k->bound_radius >= 0.0f && k->bound_radius <= 4.0f * CROWD_MAX_COORDINATE))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "CBND: clips[%u] \"%s\": centre (%g, %g, %g) radius %g not finite or out of range", c,
                              k->name, (double)k->bound_center[0], (double)k->bound_center[1],
                              (double)k->bound_center[2], (double)k->bound_radius);
        if (!crowd_clip_sphere_inside(k->bound_center, k->bound_radius, a->sphere_center_y, a->sphere_radius))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "CBND: clips[%u] \"%s\": sphere (%g, %g, %g) radius %g is not inside the asset sphere "
                              "(0, %g, 0) radius %g",
                              c, k->name, (double)k->bound_center[0], (double)k->bound_center[1],
                              (double)k->bound_center[2], (double)k->bound_radius, (double)a->sphere_center_y,
                              (double)a->sphere_radius);
        derive_cull_sphere(a, k);
    }
    a->has_clip_bounds = true;
    return CROWD_OK;
}
