/* Adding the imposter atlas to a baked image: the image's sections are re-laid out with an IMPS
 * section after them (the container raises its version to 2 for it). */
#include <stdlib.h>
#include <string.h>

#include "bake/container_write.h"
#include "core/alloc.h"
#include "core/asset_imposters.h"
#include "core/container_read.h"
#include "core/error.h"
#include "crowdbake/bake.h"

static void fill_imps(uint8_t *d, const crowd_imposters *m)
{
    crowd_imps_layout l = crowd_imps_layout_of(m->clip_count, m->albedo.width, m->albedo.height);
    memset(d, 0, (size_t)l.size);
    crowd_wr32(d + CROWD_IMPS_FRAMES, m->frames);
    crowd_wr32(d + CROWD_IMPS_VIEWS, m->views);
    crowd_wr32(d + CROWD_IMPS_ELEVATIONS, m->elevations);
    crowd_wr32(d + CROWD_IMPS_TILE, m->tile);
    crowd_wr32(d + CROWD_IMPS_WIDTH, m->albedo.width);
    crowd_wr32(d + CROWD_IMPS_HEIGHT, m->albedo.height);
    crowd_wr32(d + CROWD_IMPS_CLIP_COUNT, m->clip_count);
    for (uint32_t e = 0; e < m->elevations; e++)
        crowd_wrf32(d + CROWD_IMPS_ELEVATION + 4 * e, m->elevation[e]);
    for (uint32_t c = 0; c < m->clip_count; c++) {
        uint8_t *rec = d + l.clips + (size_t)c * CROWD_IMPS_CLIP_BYTES;
        for (int i = 0; i < 3; i++) {
            crowd_wrf32(rec + 4 * i, m->clips[c].box_min[i]);
            crowd_wrf32(rec + 12 + 4 * i, m->clips[c].box_max[i]);
        }
        crowd_wr32(rec + 24, m->clips[c].first_tile);
    }
    memcpy(d + l.albedo, m->albedo.data, (size_t)m->albedo.bytes);
    memcpy(d + l.normals, m->normals.data, (size_t)m->normals.bytes);
}

crowd_result crowd_bake_add_imposters(const uint8_t *image, size_t size, const crowd_imposters *imposters,
                                      uint8_t **out, size_t *out_size, crowd_error *error)
{
    if (!image || !imposters || !out || !out_size || !imposters->clips || !imposters->albedo.data ||
        !imposters->normals.data ||
        imposters->albedo.bytes != (uint64_t)imposters->albedo.width * imposters->albedo.height * 4u ||
        imposters->normals.bytes != imposters->albedo.bytes)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_add_imposters: NULL or inconsistent argument");
    *out = NULL;
    *out_size = 0;
    crowd_container_view view;
    crowd_result r = crowd_container_read(image, size, &view, error);
    if (r != CROWD_OK)
        return r;
    crowd_container_builder b;
    memset(&b, 0, sizeof b);
    for (uint32_t i = 0; i < view.count; i++)
        if (view.sections[i].tag != CROWD_TAG_IMPS) /* a re-bake replaces the old atlas */
            crowd_container_add(&b, view.sections[i].tag, view.sections[i].data, view.sections[i].size);
    crowd_imps_layout l =
        crowd_imps_layout_of(imposters->clip_count, imposters->albedo.width, imposters->albedo.height);
    uint32_t imps = b.count;
    if (!crowd_container_add(&b, CROWD_TAG_IMPS, NULL, l.size))
        return crowd_fail(error, CROWD_ERROR_LIMIT, "too many sections for an IMPS section");
    if ((r = crowd_container_allocate(&b, error)) != CROWD_OK)
        return r;
    fill_imps(crowd_container_payload(&b, imps), imposters);
    crowd_container_seal(&b, out, out_size);
    return CROWD_OK;
}

void crowd_bake_image_free(uint8_t *image)
{
    crowd_aligned_free(image);
}
