#include "bake/encode.h"

#include <math.h>

#include "core/half.h"
#include "core/octahedral.h"

uint16_t crowd_quantize_unorm16(float value, float min, float extent)
{
    if (!(extent > 0.0f))
        return 0;
    float q = (value - min) / extent * 65535.0f;
    if (!(q > 0.0f))
        return 0;
    if (q >= 65535.0f)
        return 65535;
    return (uint16_t)(q + 0.5f); /* round half up: the same half-quantum bound, and no libm call */
}

void crowd_encode_positions_u16(const float *positions, const float *normals, size_t count, const float box_min[3],
                                const float box_max[3], uint16_t *texels)
{
    float extent[3] = {box_max[0] - box_min[0], box_max[1] - box_min[1], box_max[2] - box_min[2]};
    for (size_t i = 0; i < count; i++) {
        const float *p = positions + 3 * i;
        uint16_t *t = texels + 4 * i;
        /* the expression of crowd_quantize_unorm16, inlined: this loop runs per vertex-frame */
        for (int k = 0; k < 3; k++) {
            float q = extent[k] > 0.0f ? (p[k] - box_min[k]) / extent[k] * 65535.0f : 0.0f;
            t[k] = q > 0.0f ? (q < 65535.0f ? (uint16_t)(q + 0.5f) : 65535u) : 0u;
        }
        t[3] = 0;
        if (normals) {
            uint16_t q[2];
            crowd_oct_quantize_precise(normals + 3 * i, 8, q);
            t[3] = (uint16_t)(q[0] | q[1] << 8);
        }
    }
}

void crowd_encode_normals_oct16(const float *normals, size_t count, uint16_t *texels)
{
    for (size_t i = 0; i < count; i++)
        crowd_oct_quantize(normals + 3 * i, 16, texels + 2 * i);
}

void crowd_encode_positions_f16(const float *positions, size_t count, const float box_min[3], const float box_max[3],
                                uint16_t *texels)
{
    for (size_t i = 0; i < count; i++) {
        for (int k = 0; k < 3; k++) {
            float extent = box_max[k] - box_min[k];
            float unit = extent > 0.0f ? (positions[3 * i + k] - box_min[k]) / extent : 0.0f;
            texels[4 * i + k] = crowd_half_from_float(unit);
        }
        texels[4 * i + 3] = 0;
    }
}

void crowd_encode_normals_f16(const float *normals, size_t count, uint16_t *texels)
{
    for (size_t i = 0; i < count; i++) {
        float s[2];
        crowd_oct_encode(normals + 3 * i, s);
        texels[2 * i] = crowd_half_from_float(s[0]);
        texels[2 * i + 1] = crowd_half_from_float(s[1]);
    }
}

void crowd_encode_tangents(const float *tangents, const float *normals, const float *bind_tangents,
                           uint32_t vertex_count, size_t count, uint16_t *texels)
{
    for (size_t i = 0; i < count; i++) {
        const float *raw = normals + 3 * i; /* skinned normals are not unit length */
        float nl = sqrtf(raw[0] * raw[0] + raw[1] * raw[1] + raw[2] * raw[2]);
        float n[3] = {0.0f, 1.0f, 0.0f};
        if (nl > 0.0f)
            n[0] = raw[0] / nl, n[1] = raw[1] / nl, n[2] = raw[2] / nl;
        float t[3] = {tangents[3 * i], tangents[3 * i + 1], tangents[3 * i + 2]};
        float d = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
        for (int k = 0; k < 3; k++)
            t[k] -= d * n[k];
        float len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        if (len > 1e-12f)
            for (int k = 0; k < 3; k++)
                t[k] /= len;
        else
            t[0] = 1.0f, t[1] = t[2] = 0.0f;
        uint16_t q[2];
        crowd_oct_quantize(t, 16, q);
        bool negative = bind_tangents[4 * (i % vertex_count) + 3] < 0.0f;
        texels[2 * i] = q[0];
        texels[2 * i + 1] = (uint16_t)((q[1] & 0xFFFEu) | (negative ? 1u : 0u));
    }
}
