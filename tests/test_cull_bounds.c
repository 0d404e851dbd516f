/* Per-clip culling spheres (CBND, crowd_clip.cull_*): every decoded vertex of every frame of a clip
 * lies in its sphere, and per-instance culling with them (coverage policy, crowd_count_visible) never
 * hides an instance a vertex of which is inside the view, fades and turns included. The GPU path
 * does the same sums (cull.comp) and is held to the CPU's choice slot by slot in test_gpu_cull. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/view_matrices.h"
#include "crowd/crowd_internal.h" /* crowd_frustum_planes */
#include "crowdbake/crowd.h"
#include "test_support.h"

static crowd_bake_output baked;
static crowd_asset asset;

/* Every vertex of every frame of each clip, decoded as the shader does, inside the clip's sphere
 * (and its yaw-invariant culling sphere, and that inside the asset sphere). */
static void clip_spheres_hold_every_vertex(void)
{
    CHECK(asset.has_clip_bounds);
    for (uint32_t k = 0; k < asset.clip_count; k++) {
        const crowd_clip *clip = &asset.clips[k];
        double worst = 0.0, worst_cull = 0.0; /* largest distance / radius */
        for (uint32_t f = 0; f < clip->frame_count; f++)
            for (uint32_t v = 0; v < asset.vertex_count; v++) {
                float p[3], n[3];
                REQUIRE(crowd_asset_decode_vertex(&asset, clip->first_frame + f, v, p, n) == CROWD_OK);
                double dx = p[0] - clip->bound_center[0], dy = p[1] - clip->bound_center[1],
                       dz = p[2] - clip->bound_center[2];
                worst = fmax(worst, sqrt(dx * dx + dy * dy + dz * dz) / clip->bound_radius);
                double cy = p[1] - clip->cull_center_y;
                worst_cull =
                    fmax(worst_cull, sqrt((double)p[0] * p[0] + cy * cy + (double)p[2] * p[2]) / clip->cull_radius);
            }
        CHECKF(worst <= 1.0 && worst_cull <= 1.0, "clip %s: a vertex at %.6f / %.6f of the radius", clip->name, worst,
               worst_cull);
        CHECKF(clip->cull_radius <= asset.sphere_radius, "clip %s: culling radius %g past the asset's %g", clip->name,
               (double)clip->cull_radius, (double)asset.sphere_radius);
        printf("     %-8s culling sphere %.3f m around y %.3f (%.1f %% of the asset's %.3f m), farthest vertex at "
               "%.4f of it\n",
               clip->name, (double)clip->cull_radius, (double)clip->cull_center_y,
               100.0 * clip->cull_radius / asset.sphere_radius, (double)asset.sphere_radius, worst_cull);
    }
}

/* Where the instance's record puts vertex v of its pose at shader time t (crowd.vert: pose, fade,
 * place). */
static void placed_vertex(const crowd_record *r, float t, uint32_t v, float out[3])
{
    crowd_clip_sample a, b;
    float p[3], q[3], n[3], pa[3];
    crowd_record_sample(&asset, r, 0, t, &a);
    crowd_asset_decode_vertex(&asset, a.frame0, v, p, n);
    crowd_asset_decode_vertex(&asset, a.frame1, v, q, n);
    for (int i = 0; i < 3; i++)
        pa[i] = p[i] + (q[i] - p[i]) * a.t;
    if (r->fade_rate > 0.0f && !(r->clips & CROWD_RECORD_TURN)) {
        float w = fminf(fmaxf((t - r->fade_start) * r->fade_rate, 0.0f), 1.0f);
        crowd_record_sample(&asset, r, 1, t, &b);
        crowd_asset_decode_vertex(&asset, b.frame0, v, p, n);
        crowd_asset_decode_vertex(&asset, b.frame1, v, q, n);
        for (int i = 0; i < 3; i++) {
            float pb = p[i] + (q[i] - p[i]) * b.t;
            pa[i] += (pb - pa[i]) * w;
        }
    }
    float yaw = crowd_record_yaw(r, t), s = sinf(yaw), c = cosf(yaw), at[3];
    crowd_record_position(r, t, at);
    for (int i = 0; i < 3; i++)
        pa[i] *= r->scale;
    out[0] = c * pa[0] + s * pa[2] + at[0];
    out[1] = pa[1] + at[1];
    out[2] = -s * pa[0] + c * pa[2] + at[2];
}

static void view_look(crowd_view *v, float ex, float ey, float ez, float tx, float ty, float tz, float fov_deg)
{
    const float eye[3] = {ex, ey, ez}, target[3] = {tx, ty, tz}, up[3] = {0, 1, 0};
    cb_look_at(v->view, eye, target, up);
    cb_perspective(v->projection, fov_deg * 3.14159265f / 180.0f, 16.0f / 9.0f, 0.3f, 900.0f);
    v->viewport_height = 1080.0f;
}

/* Inside every plane by more than `margin` metres (the planes are normalised). */
static bool inside(const float planes[6][4], const float p[3], float margin)
{
    for (int i = 0; i < 6; i++)
        if (planes[i][0] * p[0] + planes[i][1] * p[1] + planes[i][2] * p[2] + planes[i][3] < margin)
            return false;
    return true;
}

/* A crowd of every clip, scale, yaw and phase, a third of it fading between clips, seen by narrow
 * and wide views from inside and above: no instance culled per instance (coverage policy, culled
 * means not in any draw) has a vertex inside the view, and crowd_count_visible counts exactly those
 * whose culling sphere meets it. The instances the asset sphere keeps but the clip's sphere culls
 * are the gain, and each of them is checked vertex by vertex. */
static void culling_never_hides_a_visible_vertex(void)
{
    const uint32_t n = 400;
    crowd_desc d = {.asset = &asset,
                    .capacity = n,
                    .world_size = 200.0f,
                    .chunk_size = 8.0f,
                    .lod_policy = CROWD_LOD_SCREEN_COVERAGE};
    crowd *c = NULL;
    crowd_error err;
    REQUIRE(crowd_create(&d, &c, &err) == CROWD_OK);
    REQUIRE(crowd_set_count(c, n) == CROWD_OK);
    uint64_t seed = 20261203;
    for (uint32_t i = 0; i < n; i++) {
        float x = (float)(test_uniform(&seed) * 60.0 - 30.0), z = (float)(test_uniform(&seed) * 60.0 - 30.0);
        crowd_set_transform(c, i, x, 0.0f, z, (float)(test_uniform(&seed) * 6.283));
        crowd_set_scale(c, i, (float)(0.6 + test_uniform(&seed) * 0.9));
        uint32_t clip = (uint32_t)(test_uniform(&seed) * asset.clip_count) % asset.clip_count;
        crowd_play(c, i, clip, (float)(0.5 + test_uniform(&seed)), 0.0f);
        crowd_set_phase(c, i, (float)test_uniform(&seed));
    }
    crowd_view view = {0};
    view_look(&view, 0.0f, 40.0f, 60.0f, 0.0f, 0.0f, 0.0f, 58.0f);
    crowd_update(c, 0.5f, &view);
    for (uint32_t i = 0; i < n; i += 3) /* a third fades for a second to another clip */
        crowd_play(c, i, (i / 3) % asset.clip_count, 1.0f, 1.0f);
    uint8_t *submitted = calloc(n, 1);
    REQUIRE(submitted);
    uint32_t gained = 0, checked_views = 0, fading_gained = 0;
    for (int v = 0; v < 192; v++) {
        /* eyes inside the crowd at head height to above it, narrow to wide, aimed anywhere */
        float ex = (float)(test_uniform(&seed) * 70.0 - 35.0), ez = (float)(test_uniform(&seed) * 70.0 - 35.0);
        float ey = (float)(0.3 + test_uniform(&seed) * (v % 3 == 0 ? 30.0 : 3.0));
        float tx = (float)(test_uniform(&seed) * 60.0 - 30.0), tz = (float)(test_uniform(&seed) * 60.0 - 30.0);
        float ty = (float)(test_uniform(&seed) * 2.5), fov = (float)(10.0 + test_uniform(&seed) * 70.0);
        view_look(&view, ex, ey, ez, tx, ty, tz, fov);
        const crowd_frame *f = crowd_update(c, 0.3f / 192.0f, &view);
        memset(submitted, 0, n);
        for (uint32_t k = 0; k < f->draw_count; k++)
            for (uint32_t s = f->draws[k].first; s < f->draws[k].first + f->draws[k].count; s++) {
                uint32_t index = crowd_index_of_slot(c, s);
                if (index < n)
                    submitted[index] = 1;
            }
        float planes[6][4];
        crowd_frustum_planes(view.view, view.projection, planes);
        uint32_t hidden = 0, sphere_visible = 0;
        for (uint32_t i = 0; i < n; i++) {
            crowd_record r;
            crowd_get(c, i, &r);
            float centre[3], radius;
            test_cull_sphere(&asset, &r, f->time, centre, &radius);
            sphere_visible += test_sphere_in(planes, centre, radius);
            CHECKF(!submitted[i] || test_sphere_in(planes, centre, radius),
                   "view %d: instance %u submitted outside its culling sphere", v, i);
            float asset_centre[3];
            crowd_record_position(&r, f->time, asset_centre);
            asset_centre[1] += asset.sphere_center_y * r.scale;
            if (submitted[i] || !test_sphere_in(planes, asset_centre, asset.sphere_radius * r.scale))
                continue; /* drawn, or outside the asset sphere that holds every vertex of every clip */
            gained++;
            fading_gained += crowd_record_clip(&r, 0) != crowd_record_clip(&r, 1);
            for (uint32_t vtx = 0; vtx < asset.vertex_count; vtx++) {
                float p[3];
                placed_vertex(&r, f->time, vtx, p);
                if (inside((const float(*)[4])planes, p, 1e-4f)) {
                    hidden++;
                    break;
                }
            }
        }
        CHECKF(hidden == 0, "view %d: %u instances culled with a vertex in view", v, hidden);
        CHECKF(crowd_count_visible(c, &view) == sphere_visible, "view %d: count_visible %u, culling spheres in view %u",
               v, f->stats.rasterised, sphere_visible);
        checked_views++;
    }
    printf("     %u views: %u instances culled that the asset sphere kept (%u fading), none with a vertex in "
           "view\n",
           checked_views, gained, fading_gained);
    CHECKF(gained > 150 && fading_gained > 10, "only %u (%u fading) culled by the clip spheres: the test proves little",
           gained, fading_gained);
    free(submitted);
    crowd_destroy(c);
}

int main(void)
{
    humanoid_asset_or_die((crowd_bake_desc){0}, &baked, &asset);
    RUN_TEST(clip_spheres_hold_every_vertex);
    RUN_TEST(culling_never_hides_a_visible_vertex);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
