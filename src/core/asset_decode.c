/* Reading baked data back on the CPU with the exact arithmetic of the shaders (crowd_gl), so the
 * verifier and the tests measure what the GPU will show. */
#include "crowdbake/asset.h"

#include "core/error.h"
#include "core/half.h"
#include "core/octahedral.h"

static void decode_position_u16(const crowd_asset *a, const uint16_t *texel, float position[3])
{
    for (int i = 0; i < 3; i++) {
        /* shader: bmin + vec3(q) * (extent / 65535.0), scale precomputed as a uniform */
        float scale = (a->bounds_max[i] - a->bounds_min[i]) / 65535.0f;
        position[i] = a->bounds_min[i] + (float)texel[i] * scale;
    }
}

static void decode_position_f16(const crowd_asset *a, const uint16_t *texel, float position[3])
{
    for (int i = 0; i < 3; i++) {
        float extent = a->bounds_max[i] - a->bounds_min[i];
        position[i] = a->bounds_min[i] + crowd_half_to_float(texel[i]) * extent;
    }
}

static void decode_normal_f16(const uint16_t *texel, float normal[3])
{
    float square[2] = {crowd_half_to_float(texel[0]), crowd_half_to_float(texel[1])};
    crowd_oct_decode(square, normal);
}

crowd_result crowd_asset_decode_vertex(const crowd_asset *asset, uint32_t frame, uint32_t vertex, float position[3],
                                       float normal[3])
{
    if (!asset || !asset->positions.data || frame >= asset->frame_count || vertex >= asset->vertex_count)
        return crowd_fail(NULL, CROWD_ERROR_ARGUMENT, "decode: frame or vertex out of range");
    uint64_t texel = (uint64_t)frame * asset->vertex_count + vertex;
    const uint16_t *pos = (const uint16_t *)asset->positions.data + 4 * texel;

    if (asset->position_encoding == CROWD_POSITION_F16_BOX) {
        decode_position_f16(asset, pos, position);
        decode_normal_f16((const uint16_t *)asset->normals.data + 2 * texel, normal);
        return CROWD_OK;
    }
    decode_position_u16(asset, pos, position);
    if (asset->normal_encoding == CROWD_NORMAL_OCT8_IN_W) {
        uint16_t q[2] = {(uint16_t)(pos[3] & 0xFFu), (uint16_t)(pos[3] >> 8)};
        crowd_oct_dequantize(q, 8, normal);
    } else {
        crowd_oct_dequantize((const uint16_t *)asset->normals.data + 2 * texel, 16, normal);
    }
    return CROWD_OK;
}

crowd_result crowd_asset_bone_matrix(const crowd_asset *asset, uint32_t frame, uint32_t bone, float matrix[12])
{
    if (!asset || !asset->bones.data || frame >= asset->frame_count || bone >= asset->bone_count)
        return crowd_fail(NULL, CROWD_ERROR_ARGUMENT, "bone matrix: frame or bone out of range");
    const float *texels = (const float *)asset->bones.data + ((uint64_t)frame * asset->bone_count + bone) * 12u;
    for (int i = 0; i < 12; i++)
        matrix[i] = texels[i];
    return CROWD_OK;
}

uint32_t crowd_asset_vat_bytes_per_vertex_frame(const crowd_asset *asset)
{
    if (!asset)
        return 0;
    return asset->positions.texel_bytes + asset->normals.texel_bytes + asset->tangents.texel_bytes;
}

void crowd_asset_position_quantum(const crowd_asset *asset, float quantum[3])
{
    for (int i = 0; i < 3; i++) {
        float extent = asset->bounds_max[i] - asset->bounds_min[i];
        quantum[i] = asset->position_encoding == CROWD_POSITION_F16_BOX ? extent / 2048.0f : extent / 65535.0f;
    }
}
