/* The smallest crowdbake program: load a .crowd file (or bake the built-in humanoid in memory when
 * none is given), make a crowd, play clips, update a few frames and print the draw list that a
 * renderer would draw. No GL anywhere.   Usage: minimal [file.crowd] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "crowdbake/bake.h"
#include "crowdbake/crowd.h"

/* A camera at (0, 10, 30) looking at the origin: column-major view and projection matrices. */
static void camera(crowd_view *view)
{
    const float e[3] = {0, 10, 30}, len = sqrtf(10 * 10 + 30 * 30);
    const float f[3] = {0, -10 / len, -30 / len}; /* forward */
    const float s[3] = {1, 0, 0};                 /* side = forward x up */
    const float u[3] = {0, -f[2], f[1]};          /* up = side x forward */
    const float view_m[16] = {s[0],
                              u[0],
                              -f[0],
                              0,
                              s[1],
                              u[1],
                              -f[1],
                              0,
                              s[2],
                              u[2],
                              -f[2],
                              0,
                              -(s[0] * e[0] + s[1] * e[1] + s[2] * e[2]),
                              -(u[0] * e[0] + u[1] * e[1] + u[2] * e[2]),
                              f[0] * e[0] + f[1] * e[1] + f[2] * e[2],
                              1};
    const float n = 0.1f, far = 500.0f, t = 1.0f / tanf(0.5f * 0.87f), aspect = 16.0f / 9.0f;
    const float proj[16] = {
        t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (far + n) / (n - far), -1, 0, 0, 2 * far * n / (n - far), 0};
    memcpy(view->view, view_m, sizeof view_m);
    memcpy(view->projection, proj, sizeof proj);
    view->viewport_height = 720;
}

static uint32_t clip_named(const crowd_asset *asset, const char *name)
{
    for (uint32_t i = 0; i < asset->clip_count; i++)
        if (strcmp(asset->clips[i].name, name) == 0)
            return i;
    return 0; /* not there: the first clip */
}

int main(int argc, char **argv)
{
    crowd_asset asset;
    crowd_error err;
    crowd_bake_output baked = {0};
    crowd_rig rig;
    if (argc > 1) {
        if (crowd_asset_load_file(&asset, argv[1], &err) != CROWD_OK) {
            fprintf(stderr, "%s: %s\n", argv[1], err.message);
            return 1;
        }
    } else { /* bake the built-in humanoid, 10 frames a second, in memory */
        crowd_bake_desc bake = {0};
        bake.rig = &rig;
        bake.fps = 10;
        if (crowd_rig_build_humanoid(NULL, &rig, &err) != CROWD_OK || crowd_bake(&bake, &baked, &err) != CROWD_OK ||
            crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err) != CROWD_OK) {
            fprintf(stderr, "humanoid: %s\n", err.message);
            return 1;
        }
        crowd_rig_free(&rig);
    }
    printf("asset: %u vertices, %u clips, %u LODs\n", asset.vertex_count, asset.clip_count, asset.lod_count);

    crowd_desc desc = {0}; /* zeroed fields are defaults */
    desc.asset = &asset;
    desc.capacity = 1000;
    crowd *c = NULL;
    if (crowd_create(&desc, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd: %s\n", err.message);
        return 1;
    }
    crowd_set_count(c, 100);
    uint32_t walk = clip_named(&asset, "walk");
    for (uint32_t i = 0; i < 100; i++) { /* a 10 x 10 block, everyone walking */
        crowd_set_transform(c, i, 2.0f * (float)(i % 10) - 9.0f, 0.0f, 2.0f * (float)(i / 10) - 9.0f, 0.0f);
        crowd_play(c, i, walk, 1.0f, 0.0f);
        crowd_set_speed(c, i, 1.2f); /* stride-matched: the rate follows the speed (fails for clips in place) */
        crowd_set_velocity(c, i, 0.0f, 1.2f); /* and it walks (yaw 0 faces +Z): the GPU moves it, no CPU per frame */
    }
    crowd_set_velocity(c, 0, 0.0f, 0.0f);                      /* the one that waves stands */
    crowd_play(c, 0, clip_named(&asset, "wave"), 1.0f, 0.25f); /* instance 0 cross-fades to a wave */

    crowd_view view = {0};
    camera(&view);
    const crowd_frame *frame = NULL;
    for (int f = 0; f < 5; f++)
        frame = crowd_update(c, 1.0f / 60.0f, &view);

    printf("time %.4f s: %u draws, %u records, %u upload ranges\n", (double)frame->time, frame->draw_count,
           frame->record_count, frame->upload_count);
    for (uint32_t d = 0; d < frame->draw_count; d++) {
        const crowd_draw *draw = &frame->draws[d];
        printf("  draw %u: LOD %u, records %u..%u%s%s\n", d, draw->lod, draw->first, draw->first + draw->count - 1,
               draw->flags & CROWD_DRAW_SHADOW ? ", shadow" : "",
               draw->flags & CROWD_DRAW_CROSS_FADE ? ", cross-fade" : "");
    }
    crowd_record r;
    float at[3];
    crowd_get(c, 0, &r);
    crowd_record_position(&r, frame->time, at); /* where the GPU draws it: the record extrapolated */
    printf("instance 0: at (%.1f, %.1f), clip %u -> %u, fade rate %.1f/s\n", (double)at[0], (double)at[2],
           crowd_record_clip(&r, 0), crowd_record_clip(&r, 1), (double)r.fade_rate);

    crowd_destroy(c);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    return frame->draw_count > 0 ? 0 : 1;
}
