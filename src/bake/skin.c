#include "bake/skin.h"

#include "core/alloc.h"
#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Weighted sum of a vertex's skinning matrices (3x4 rows). Zero weights are skipped: most
 * vertices of a typical character have one or two real influences. */
static void blend_matrix(const crowd_rig *rig, uint32_t v, const float *rows, float m[12])
{
    memset(m, 0, 12 * sizeof(float));
    const uint16_t *joints = rig->joints + (size_t)v * rig->influence_count;
    const float *weights = rig->weights + (size_t)v * rig->influence_count;
    for (uint32_t k = 0; k < rig->influence_count; k++) {
        float w = weights[k];
        if (w == 0.0f)
            continue;
        const float *s = rows + 12 * (size_t)joints[k];
        for (int e = 0; e < 12; e++)
            m[e] += w * s[e];
    }
}

static void apply_morphs(const crowd_rig *rig, uint32_t v, const float *morph_weights, float p[3], float n[3])
{
    for (uint32_t t = 0; t < rig->morph_target_count; t++) {
        float w = morph_weights[t];
        if (w == 0.0f)
            continue;
        size_t i = ((size_t)t * rig->vertex_count + v) * 3;
        for (int k = 0; k < 3; k++) {
            p[k] += w * rig->morph_positions[i + k];
            if (rig->morph_normals)
                n[k] += w * rig->morph_normals[i + k];
        }
    }
}

void crowd_skin_frame(const crowd_rig *rig, const float *skin, float *rows, const float *morph_weights,
                      const float *bind_tangents, float *positions, float *normals, float *tangents)
{
    /* Contiguous rows make the per-vertex blend a straight 12-float multiply-add the compiler
     * vectorises; column-major 4x4s would be strided. */
    for (uint32_t b = 0; b < rig->bone_count; b++)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                rows[12 * b + 4 * r + c] = skin[16 * b + 4 * c + r];
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        float p[3], n[3], m[12];
        memcpy(p, rig->positions + 3 * (size_t)v, sizeof p);
        memcpy(n, rig->normals + 3 * (size_t)v, sizeof n);
        if (morph_weights && rig->morph_target_count)
            apply_morphs(rig, v, morph_weights, p, n);
        blend_matrix(rig, v, rows, m);

        float *op = positions + 3 * (size_t)v, *on = normals + 3 * (size_t)v;
        for (int r = 0; r < 3; r++) {
            op[r] = m[r * 4] * p[0] + m[r * 4 + 1] * p[1] + m[r * 4 + 2] * p[2] + m[r * 4 + 3];
            on[r] = m[r * 4] * n[0] + m[r * 4 + 1] * n[1] + m[r * 4 + 2] * n[2];
        }
        if (tangents) {
            const float *t = bind_tangents + 4 * (size_t)v;
            float *ot = tangents + 3 * (size_t)v;
            for (int r = 0; r < 3; r++)
                ot[r] = m[r * 4] * t[0] + m[r * 4 + 1] * t[1] + m[r * 4 + 2] * t[2];
        }
    }
}

static void any_perpendicular(const float n[3], float t[3])
{
    /* cross with the axis least aligned with n */
    float ax = fabsf(n[0]), ay = fabsf(n[1]), az = fabsf(n[2]);
    float a[3] = {0, 0, 0};
    a[(ax <= ay && ax <= az) ? 0 : (ay <= az ? 1 : 2)] = 1.0f;
    t[0] = a[1] * n[2] - a[2] * n[1];
    t[1] = a[2] * n[0] - a[0] * n[2];
    t[2] = a[0] * n[1] - a[1] * n[0];
}

crowd_result crowd_compute_tangents(const crowd_rig *rig, float *out, crowd_error *error)
{
    size_t vc = rig->vertex_count;
    float *bitangent = rig->uvs ? crowd_calloc(3 * vc, sizeof(float)) : NULL;
    if (rig->uvs && !bitangent)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "tangents: out of memory");
    memset(out, 0, 4 * vc * sizeof(float));
    if (bitangent) {
        for (uint32_t i = 0; i + 2 < rig->index_count; i += 3) {
            uint32_t id[3] = {rig->indices[i], rig->indices[i + 1], rig->indices[i + 2]};
            const float *p0 = rig->positions + 3 * id[0], *p1 = rig->positions + 3 * id[1],
                        *p2 = rig->positions + 3 * id[2];
            const float *w0 = rig->uvs + 2 * id[0], *w1 = rig->uvs + 2 * id[1], *w2 = rig->uvs + 2 * id[2];
            float e1[3], e2[3];
            for (int k = 0; k < 3; k++) {
                e1[k] = p1[k] - p0[k];
                e2[k] = p2[k] - p0[k];
            }
            float du1 = w1[0] - w0[0], dv1 = w1[1] - w0[1], du2 = w2[0] - w0[0], dv2 = w2[1] - w0[1];
            float det = du1 * dv2 - du2 * dv1;
            if (fabsf(det) < 1e-12f)
                continue;
            float r = 1.0f / det;
            for (int c = 0; c < 3; c++)
                for (int k = 0; k < 3; k++) {
                    out[4 * id[c] + k] += (e1[k] * dv2 - e2[k] * dv1) * r;
                    bitangent[3 * id[c] + k] += (e2[k] * du1 - e1[k] * du2) * r;
                }
        }
    }
    for (size_t v = 0; v < vc; v++) {
        const float *n = rig->normals + 3 * v;
        float *t = out + 4 * v;
        float d = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
        for (int k = 0; k < 3; k++)
            t[k] -= d * n[k]; /* Gram-Schmidt against the normal */
        float len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        if (!(len > 1e-8f)) {
            any_perpendicular(n, t);
            len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        }
        for (int k = 0; k < 3; k++)
            t[k] /= len;
        float w = 1.0f;
        if (bitangent) {
            const float *b = bitangent + 3 * v;
            float c[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]};
            w = (c[0] * b[0] + c[1] * b[1] + c[2] * b[2]) < 0.0f ? -1.0f : 1.0f;
        }
        t[3] = w;
    }
    crowd_free(bitangent);
    return CROWD_OK;
}
