/* How far an attachment's mesh gets past the body's culling spheres (crowd_gl_attachment_reach), so
 * that culling on both render paths can hold what the renderer draws on a socket. Plain arithmetic
 * on the asset: no GL call. */
#include <math.h>

#include "gl/renderer_internal.h"

/* Float rounding of the shaders' placement and of the sphere tests, relative to the distance. */
#define REACH_SLACK 1e-5

/* The model-space point attachment.vert makes of mesh vertex v on a frame: the bone's skinning
 * matrix b after the socket offset o (both 3x4, row-major), before yaw, scale and position. */
static void place(const float b[12], const float o[12], const float *v, double out[3])
{
    double local[3];
    for (int i = 0; i < 3; i++)
        local[i] = (double)o[4 * i] * v[0] + (double)o[4 * i + 1] * v[1] + (double)o[4 * i + 2] * v[2] + o[4 * i + 3];
    for (int i = 0; i < 3; i++)
        out[i] = b[4 * i] * local[0] + b[4 * i + 1] * local[1] + b[4 * i + 2] * local[2] + b[4 * i + 3];
}

/* Distance of p from (0, y, 0): the same under any yaw, and the spheres are centred on that axis. */
static double from_axis(const double p[3], float y)
{
    double dy = p[1] - y;
    return sqrt(p[0] * p[0] + dy * dy + p[2] * p[2]);
}

/* Every vertex on every frame of every clip. Enough for what the shader draws between frames and
 * over triangles: a frame blend and a cross-fade mix matrices linearly, so a drawn point is a convex
 * combination of placed vertices, and the distance from a centre is convex, so the farthest drawn
 * point is a vertex on a baked frame (a fade's two clips are held by the sphere spanning both). */
void crowd_gl_measure_reach(const crowd_asset *a, const crowd_socket *socket, const float *positions,
                            uint32_t vertex_count, float *reach)
{
    double asset_far = 0.0;
    for (uint32_t k = 0; k < a->clip_count; k++) {
        const crowd_clip *clip = &a->clips[k];
        double far = 0.0;
        for (uint32_t f = 0; f < clip->frame_count; f++) {
            float b[12];
            if (crowd_asset_bone_matrix(a, clip->first_frame + f, socket->bone, b) != CROWD_OK)
                continue; /* the loader checked every clip's frames against the bone texture */
            for (uint32_t v = 0; v < vertex_count; v++) {
                double p[3];
                place(b, socket->offset, positions + 3 * (size_t)v, p);
                far = fmax(far, from_axis(p, clip->cull_center_y));
                asset_far = fmax(asset_far, from_axis(p, a->sphere_center_y));
            }
        }
        reach[k] = fmaxf(reach[k], (float)(far * (1.0 + REACH_SLACK) - clip->cull_radius));
    }
    reach[a->clip_count] = fmaxf(reach[a->clip_count], (float)(asset_far * (1.0 + REACH_SLACK) - a->sphere_radius));
}

void crowd_gl_attachment_box(const crowd_asset *a, const crowd_socket *socket, const float *positions,
                             uint32_t vertex_count, uint32_t clip, float box_min[3], float box_max[3])
{
    const crowd_clip *c = &a->clips[clip];
    for (uint32_t f = 0; f < c->frame_count; f++) {
        float b[12];
        if (crowd_asset_bone_matrix(a, c->first_frame + f, socket->bone, b) != CROWD_OK)
            continue;
        for (uint32_t v = 0; v < vertex_count; v++) {
            double p[3];
            place(b, socket->offset, positions + 3 * (size_t)v, p);
            for (int i = 0; i < 3; i++)
                box_min[i] = fminf(box_min[i], (float)p[i]), box_max[i] = fmaxf(box_max[i], (float)p[i]);
        }
    }
}

float crowd_gl_attachment_reach(const crowd_gl_renderer *r)
{
    float most = 0.0f;
    if (!r || !r->attachment_reach)
        return 0.0f;
    for (uint32_t k = 0; k <= r->asset->clip_count; k++)
        most = fmaxf(most, r->attachment_reach[k]);
    return most;
}
