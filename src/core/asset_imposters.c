/* Loading the IMPS section: every count, size, box and tile range checked before use. */
#include "core/asset_imposters.h"

#include <math.h>

#include "core/error.h"

static crowd_result bad(crowd_error *error, const char *what)
{
    return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "IMPS: %s", what);
}

static crowd_result check_header(crowd_asset *a, const uint8_t *d, uint64_t size, crowd_error *error)
{
    crowd_imposters *m = &a->imposters;
    if (size < CROWD_IMPS_HEADER_BYTES)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED, "IMPS: %llu bytes, shorter than its %u-byte header",
                          (unsigned long long)size, CROWD_IMPS_HEADER_BYTES);
    m->frames = crowd_rd32(d + CROWD_IMPS_FRAMES);
    m->views = crowd_rd32(d + CROWD_IMPS_VIEWS);
    m->elevations = crowd_rd32(d + CROWD_IMPS_ELEVATIONS);
    m->tile = crowd_rd32(d + CROWD_IMPS_TILE);
    uint32_t width = crowd_rd32(d + CROWD_IMPS_WIDTH), height = crowd_rd32(d + CROWD_IMPS_HEIGHT);
    m->clip_count = crowd_rd32(d + CROWD_IMPS_CLIP_COUNT);
    if (m->frames < 1 || m->frames > CROWD_MAX_IMPOSTER_FRAMES || m->views < 1 || m->views > CROWD_MAX_IMPOSTER_VIEWS ||
        m->elevations < 1 || m->elevations > CROWD_MAX_IMPOSTER_ELEVATIONS)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "IMPS: %u frames x %u views x %u elevations outside 1..%u x 1..%u x 1..%u", m->frames,
                          m->views, m->elevations, CROWD_MAX_IMPOSTER_FRAMES, CROWD_MAX_IMPOSTER_VIEWS,
                          CROWD_MAX_IMPOSTER_ELEVATIONS);
    if (m->tile < 1 || m->tile > CROWD_MAX_IMPOSTER_TILE)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "IMPS: tile of %u texels outside 1..%u", m->tile,
                          CROWD_MAX_IMPOSTER_TILE);
    if (width < m->tile || height < m->tile || width > CROWD_MAX_TEXTURE_DIM || height > CROWD_MAX_TEXTURE_DIM ||
        width % m->tile || height % m->tile)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "IMPS: atlas %u x %u is not a whole number of %u-texel tiles within %u", width, height,
                          m->tile, CROWD_MAX_TEXTURE_DIM);
    if (m->clip_count != a->clip_count)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "IMPS: %u clips, the asset has %u", m->clip_count,
                          a->clip_count);
    if (crowd_rd32(d + CROWD_IMPS_FLAGS) != 0)
        return bad(error, "unknown flags");
    for (uint32_t i = 0; i < 4; i++)
        if (crowd_rd32(d + CROWD_IMPS_RESERVED + 4 * i) != 0)
            return bad(error, "reserved header field not zero");
    for (uint32_t e = 0; e < CROWD_MAX_IMPOSTER_ELEVATIONS; e++) {
        float v = crowd_rdf32(d + CROWD_IMPS_ELEVATION + 4 * e);
        if (e >= m->elevations) {
            if (crowd_rd32(d + CROWD_IMPS_ELEVATION + 4 * e) != 0)
                return bad(error, "unused elevation entry not zero");
            continue;
        }
        if (!(fabsf(v) <= 1.5708f) || (e > 0 && !(v > m->elevation[e - 1])))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "IMPS: elevation[%u] = %g is not an increasing angle within +-pi/2", e, (double)v);
        m->elevation[e] = v;
    }
    m->albedo = (crowd_texture){width, height, CROWD_TEXEL_RGBA8, 4, NULL, (uint64_t)width * height * 4u};
    m->normals = m->albedo;
    return CROWD_OK;
}

static crowd_result check_clips(crowd_asset *a, const uint8_t *rec, crowd_imposter_clip *clips, crowd_error *error)
{
    crowd_imposters *m = &a->imposters;
    uint64_t per_clip = (uint64_t)m->frames * m->views * m->elevations;
    uint64_t tiles = (uint64_t)(m->albedo.width / m->tile) * (m->albedo.height / m->tile);
    for (uint32_t c = 0; c < m->clip_count; c++, rec += CROWD_IMPS_CLIP_BYTES) {
        crowd_imposter_clip *k = &clips[c];
        for (int i = 0; i < 3; i++) {
            k->box_min[i] = crowd_rdf32(rec + 4 * i);
            k->box_max[i] = crowd_rdf32(rec + 12 + 4 * i);
            if (!(fabsf(k->box_min[i]) <= CROWD_MAX_COORDINATE) || !(fabsf(k->box_max[i]) <= CROWD_MAX_COORDINATE) ||
                !(k->box_min[i] <= k->box_max[i]))
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                                  "IMPS: clips[%u]: box axis %d is not a finite min <= max within +-%g", c, i,
                                  (double)CROWD_MAX_COORDINATE);
        }
        k->first_tile = crowd_rd32(rec + 24);
        if (crowd_rd32(rec + 28) != 0)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "IMPS: clips[%u]: reserved field not zero", c);
        if ((uint64_t)k->first_tile + per_clip > tiles)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "IMPS: clips[%u]: tiles %u + %llu outside the atlas's %llu", c, k->first_tile,
                              (unsigned long long)per_clip, (unsigned long long)tiles);
    }
    return CROWD_OK;
}

crowd_result crowd_asset_check_imposters(crowd_asset *a, const uint8_t *d, uint64_t size, uint32_t version,
                                         crowd_imposter_clip *clips, crowd_error *error)
{
    if (version < CROWD_VERSION_IMPOSTERS)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "IMPS section in a version-%u file (imposters need version %u)", version,
                          CROWD_VERSION_IMPOSTERS);
    crowd_result r = check_header(a, d, size, error);
    if (r != CROWD_OK)
        goto fail;
    crowd_imps_layout l =
        crowd_imps_layout_of(a->imposters.clip_count, a->imposters.albedo.width, a->imposters.albedo.height);
    if (size != l.size) {
        r = crowd_fail(error, CROWD_ERROR_OVERFLOW, "IMPS: %llu bytes; %u clips and two %u x %u atlases need %llu",
                       (unsigned long long)size, a->imposters.clip_count, a->imposters.albedo.width,
                       a->imposters.albedo.height, (unsigned long long)l.size);
        goto fail;
    }
    for (uint64_t i = l.clips + (uint64_t)a->imposters.clip_count * CROWD_IMPS_CLIP_BYTES; i < l.albedo; i++)
        if (d[i]) {
            r = bad(error, "padding after the clip records is not zero");
            goto fail;
        }
    for (uint64_t i = l.albedo + a->imposters.albedo.bytes; i < l.normals; i++)
        if (d[i]) {
            r = bad(error, "padding after the albedo atlas is not zero");
            goto fail;
        }
    if ((r = check_clips(a, d + l.clips, clips, error)) != CROWD_OK)
        goto fail;
    a->imposters.clips = clips;
    a->imposters.albedo.data = d + l.albedo;
    a->imposters.normals.data = d + l.normals;
    return CROWD_OK;
fail:
    memset(&a->imposters, 0, sizeof a->imposters);
    return r;
}
