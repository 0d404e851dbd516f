/* Internal: the IMPS section (the imposter atlas, format version 2): its byte layout, shared by the
 * loader (asset_imposters.c) and the writer (src/bake/imposters_write.c). docs/format.md, "IMPS". */
#ifndef CROWD_CORE_ASSET_IMPOSTERS_H
#define CROWD_CORE_ASSET_IMPOSTERS_H

#include "core/format.h"
#include "crowdbake/asset.h"

/* Byte offsets of the clip records and of the two atlases inside an IMPS section, and its size. */
typedef struct crowd_imps_layout {
    uint64_t clips, albedo, normals, size;
} crowd_imps_layout;

static inline crowd_imps_layout crowd_imps_layout_of(uint32_t clip_count, uint32_t width, uint32_t height)
{
    crowd_imps_layout l;
    uint64_t atlas = (uint64_t)width * height * 4u;
    l.clips = CROWD_IMPS_HEADER_BYTES;
    l.albedo = crowd_align16(l.clips + (uint64_t)clip_count * CROWD_IMPS_CLIP_BYTES);
    l.normals = crowd_align16(l.albedo + atlas);
    l.size = l.normals + atlas;
    return l;
}

/* Validates an IMPS section against the asset (clip count) and the file's version and fills
 * asset->imposters, with its clip table in `clips` (asset->clip_count entries). */
crowd_result crowd_asset_check_imposters(crowd_asset *asset, const uint8_t *data, uint64_t size, uint32_t version,
                                         crowd_imposter_clip *clips, crowd_error *error);

#endif
