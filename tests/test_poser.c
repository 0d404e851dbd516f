/* The runtime poser (classic skinning's CPU side) against the bake: every baked frame of every clip
 * reproduces the bone texture, a record's fade is the blend of its two clips, bad input is refused.
 * No GL: runs under the sanitizers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowdbake/crowd.h"
#include "crowdbake/rig.h"
#include "test_support.h"

static crowd_rig rig;
static crowd_bake_output baked;
static crowd_asset asset;

static void poser_reproduces_the_bone_texture(void)
{
    crowd_rig_poser *p = NULL;
    crowd_error err;
    REQUIRE(crowd_rig_poser_create(&rig, &asset, &p, &err) == CROWD_OK);
    size_t n = 12 * (size_t)asset.bone_count;
    float *rows = malloc(sizeof(float) * n);
    REQUIRE(rows != NULL);
    const float *texels = asset.bones.data;
    double worst = 0.0;
    for (uint32_t c = 0; c < asset.clip_count; c++) {
        const crowd_clip *cl = &asset.clips[c];
        uint32_t steps =
            (cl->flags & CROWD_CLIP_LOOP) ? cl->frame_count : (cl->frame_count > 1 ? cl->frame_count - 1 : 1);
        for (uint32_t f = 0; f < cl->frame_count; f++) {
            CHECK(crowd_rig_pose_phase(p, c, (float)f / (float)steps, rows));
            const float *b = texels + (size_t)(cl->first_frame + f) * n;
            for (size_t i = 0; i < n; i++)
                worst = fmax(worst, fabs((double)rows[i] - b[i]));
        }
    }
    CHECKF(worst < 1e-4, "worst matrix entry off by %g", worst);
    printf("     poser vs bone texture: worst entry %.2g\n", worst);
    CHECK(!crowd_rig_pose_phase(p, asset.clip_count, 0.0f, rows));
    CHECK(!crowd_rig_pose_phase(p, 0, NAN, rows));
    free(rows);
    crowd_rig_poser_destroy(p);
}

/* A record halfway through a fade poses as the mix of its two clips' palettes. */
static void record_fade_is_the_blend(void)
{
    crowd_rig_poser *p = NULL;
    REQUIRE(crowd_rig_poser_create(&rig, &asset, &p, NULL) == CROWD_OK);
    size_t n = 12 * (size_t)asset.bone_count;
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n), *m = malloc(sizeof(float) * n);
    REQUIRE(a && b && m);
    crowd_record rec;
    memset(&rec, 0, sizeof rec);
    rec.clips = (asset.clip_count - 1) << 12, rec.offset_a = 0.25f, rec.scale = 1.0f; /* A 0, B the last */
    rec.offset_b = 0.5f;
    rec.fade_start = 1.0f, rec.fade_rate = 0.5f; /* at time 2: w = 0.5 */
    CHECK(test_pose_record(p, &rec, 2.0f, m));
    CHECK(crowd_rig_pose_phase(p, 0, 0.25f, a));
    CHECK(crowd_rig_pose_phase(p, asset.clip_count - 1, 0.5f, b));
    double worst = 0.0;
    for (size_t i = 0; i < n; i++)
        worst = fmax(worst, fabs(m[i] - 0.5 * (a[i] + b[i])));
    CHECKF(worst < 1e-5, "fade blend off by %g", worst);
    rec.clips = asset.clip_count; /* clip A: one the asset lacks */
    CHECK(!test_pose_record(p, &rec, 2.0f, m));
    free(a), free(b), free(m);
    crowd_rig_poser_destroy(p);

    crowd_rig tiny;
    crowd_error err;
    REQUIRE(tiny_rig_build(&tiny, &err) == CROWD_OK);
    CHECK(crowd_rig_poser_create(&tiny, &asset, &p, &err) == CROWD_ERROR_ARGUMENT && p == NULL);
    CHECK(crowd_rig_poser_create(&tiny, NULL, &p, &err) == CROWD_OK); /* rig clips as they are */
    crowd_rig_poser_destroy(p);
    crowd_rig_free(&tiny);
}

int main(void)
{
    crowd_humanoid_desc hd = {.density = 0.25f};
    crowd_error err;
    if (crowd_rig_build_humanoid(&hd, &rig, &err) != CROWD_OK)
        return 1;
    crowd_bake_desc desc = {.frames = 6, .bones = true};
    baked = bake_or_die(&rig, desc);
    if (crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err) != CROWD_OK)
        return 1;
    RUN_TEST(poser_reproduces_the_bone_texture);
    RUN_TEST(record_fade_is_the_blend);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    crowd_rig_free(&rig);
    TEST_MAIN_END();
}
