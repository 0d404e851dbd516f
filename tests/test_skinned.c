/* Classic skinning at run time against the baked crowd: the runtime poser reproduces the bake's
 * bone texture, and a character skinned per draw (GPU or CPU) renders as its VAT instance does
 * (Mesa llvmpipe through EGL, lit, shadowed and fogged). Screenshots in shots/. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "common/view_matrices.h"
#include "crowdbake/gl.h"
#include "crowdbake/rig.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "gl_fixture.h"
#include "test_support.h"

#define W 480
#define H 320
#define CHARACTERS 3

static crowd_bake_output baked;
static crowd_asset asset;
static tool_gl gl;
static uint8_t pixels[3 * W * H], pixels2[3 * W * H]; /* RGB frames */

static const char *const clip_names[CHARACTERS] = {"walk", "wave", "run"};
static const uint32_t frame_of[CHARACTERS] = {5, 13, 9};

/* Every baked frame of every clip: the poser's palette against the bake's bone texture (which the
 * bake wrote from the same sampler, in double-checked float). */
static void poser_matches_the_bone_texture(void)
{
    crowd_rig_poser *p = NULL;
    crowd_error err;
    REQUIRE(crowd_rig_poser_create(humanoid(), &asset, &p, &err) == CROWD_OK);
    float *rows = malloc(sizeof(float) * 12 * asset.bone_count);
    REQUIRE(rows != NULL);
    const float *texels = asset.bones.data;
    double worst = 0.0;
    uint32_t frames = 0;
    for (uint32_t c = 0; c < asset.clip_count; c++) {
        const crowd_clip *cl = &asset.clips[c];
        bool loops = (cl->flags & CROWD_CLIP_LOOP) != 0;
        for (uint32_t f = 0; f < cl->frame_count; f++, frames++) {
            float phase = (float)f / (float)(loops ? cl->frame_count : (cl->frame_count > 1 ? cl->frame_count - 1 : 1));
            CHECK(crowd_rig_pose_phase(p, c, phase, rows));
            const float *baked_rows = texels + (size_t)(cl->first_frame + f) * asset.bone_count * 12;
            for (uint32_t i = 0; i < 12 * asset.bone_count; i++)
                worst = fmax(worst, fabs((double)rows[i] - baked_rows[i]));
        }
    }
    /* float phase vs the bake's double frame time: a few ULP of a unit-sized matrix entry */
    CHECKF(worst < 1e-4, "poser vs bone texture: worst matrix entry off by %g", worst);
    printf("     poser vs bone texture: %u frames x %u bones, worst entry %.2g\n", frames, asset.bone_count, worst);
    CHECK(!crowd_rig_pose_phase(p, asset.clip_count, 0.0f, rows));
    free(rows);
    crowd_rig_poser_destroy(p);

    /* a rig the asset was not baked from */
    crowd_rig tiny;
    REQUIRE(tiny_rig_build(&tiny, &err) == CROWD_OK);
    CHECK(crowd_rig_poser_create(&tiny, &asset, &p, &err) == CROWD_ERROR_ARGUMENT && p == NULL);
    CHECKF(strstr(err.message, "not baked from this rig") != NULL, "%s", err.message);
    crowd_rig_free(&tiny);
}

static void look(crowd_gl_scene *s)
{
    const float eye[3] = {0.0f, 1.6f, 4.6f}, target[3] = {0.0f, 0.95f, 0.0f}, up[3] = {0, 1, 0};
    cb_look_at(s->view, eye, target, up);
    cb_perspective(s->projection, 50.0f * 3.14159265f / 180.0f, (float)W / H, 0.1f, 200.0f);
}

static void save(const char *name, const uint8_t *rgb)
{
    char path[256];
    mkdir("shots", 0755);
    snprintf(path, sizeof path, "shots/%s.png", name);
    tool_write_png(path, rgb, W, H, NULL);
}

static uint8_t empty[3 * W * H]; /* the scene without characters (ground, sky, fog): what is not a character */

static bool near(const uint8_t *p, const uint8_t *q)
{
    return abs(p[0] - q[0]) < 6 && abs(p[1] - q[1]) < 6 && abs(p[2] - q[2]) < 6;
}

/* One frame: the crowd (VAT) and, when given, the skinned characters, with shadows from both. */
static void render(crowd *c, crowd_gl_renderer *r, crowd_gl_skinned *sk, const crowd_gl_character *chars, uint32_t n,
                   const crowd_gl_scene *scene, uint8_t *out)
{
    crowd_view view = {.viewport_height = H};
    memcpy(view.view, scene->view, sizeof view.view);
    memcpy(view.projection, scene->projection, sizeof view.projection);
    const crowd_frame *f = crowd_update(c, 0.0f, &view);
    REQUIRE(crowd_gl_upload(r, f, NULL) == CROWD_OK);
    if (sk)
        REQUIRE(crowd_gl_skinned_upload(sk, chars, n, NULL) == CROWD_OK);
    float light[16], centre[3] = {0, 0, 0};
    crowd_gl_fit_shadow(r, scene->sun_direction, centre, 6.0f, light);
    crowd_gl_render_shadows(r, f, light);
    if (sk)
        crowd_gl_skinned_render_shadows(sk, light);
    glClearColor(0.9f, 0.92f, 0.95f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    crowd_gl_draw(r, f, scene);
    if (sk)
        crowd_gl_skinned_draw(sk, scene);
    showcase_stage_draw(gl_fixture_stage(), r, scene); /* the ground the shadows fall on */
    crowd_error e;
    CHECKF(crowd_gl_check("frame", &e) == CROWD_OK, "%s", e.message);
    tool_gl_read_rgb(&gl, out);
}

typedef struct diff {
    uint32_t drawn, silhouette, over; /* character pixels, silhouette mismatches, pixels off > tolerance */
    double mean;                      /* mean absolute difference over drawn pixels, levels */
} diff;

static diff compare(const uint8_t *a, const uint8_t *b, int tolerance)
{
    diff d = {0, 0, 0, 0.0};
    for (int i = 0; i < W * H; i++) {
        bool fa = !near(a + 3 * i, empty + 3 * i), fb = !near(b + 3 * i, empty + 3 * i);
        int worst = 0;
        for (int k = 0; k < 3; k++) {
            int e = abs(a[3 * i + k] - b[3 * i + k]);
            worst = e > worst ? e : worst;
            if (fa || fb)
                d.mean += e / 3.0;
        }
        d.drawn += fa || fb;
        d.silhouette += fa != fb;
        d.over += worst > tolerance;
    }
    d.mean /= d.drawn ? d.drawn : 1;
    return d;
}

/* Three instances on baked frames, yawed, scaled and dressed, drawn from the VAT; then the same
 * records posed by the runtime poser and drawn as classic skinned meshes (GPU, then CPU skinning).
 * Tolerance (stated): fewer than 1 % of the character pixels differ by more than 24 levels in any
 * channel, silhouettes differ in fewer than 0.5 %. A control posed one frame off must fail it. */
static void skinned_matches_vat(void)
{
    crowd_desc cd = {.asset = &asset, .capacity = CHARACTERS, .world_size = 100.0f, .chunk_size = 100.0f};
    crowd *c = NULL;
    REQUIRE(crowd_create(&cd, &c, NULL) == CROWD_OK);
    crowd_set_count(c, CHARACTERS);
    crowd_gl_desc rd = {.asset = &asset, .sizing_crowd = c, .es = gl.es, .shadow_map_size = 1024, .debug = true};
    crowd_gl_renderer *r = NULL;
    crowd_error err;
    REQUIRE(crowd_gl_create(&rd, &r, &err) == CROWD_OK);
    uint8_t ground[4] = {120, 130, 110, 255};
    showcase_stage_set_ground(gl_fixture_stage(), 40.0f, ground, NULL);
    const float x_of[CHARACTERS] = {-1.3f, 0.0f, 1.3f}, yaw_of[CHARACTERS] = {0.4f, 0.0f, -0.5f};
    const float scale_of[CHARACTERS] = {0.95f, 1.0f, 1.08f};
    for (uint32_t k = 0; k < CHARACTERS; k++) {
        uint32_t clip = clip_or_die(&asset, clip_names[k]);
        const crowd_clip *cl = &asset.clips[clip];
        crowd_set_transform(c, k, x_of[k], 0.0f, -0.3f * (float)k, yaw_of[k]);
        crowd_set_scale(c, k, scale_of[k]);
        crowd_variant v = {{(uint8_t)(60 + 70 * k), (uint8_t)(200 - 50 * k), 90}, {0}, 0};
        for (int g = 0; g < 6; g++)
            v.region_choice[g] = (uint8_t)(k + (uint32_t)g);
        crowd_set_variant(c, k, &v);
        crowd_play(c, k, clip, 1.0f / cl->duration, 0.0f);
        crowd_set_phase(c, k, (float)frame_of[k] / (float)cl->frame_count);
    }
    crowd_gl_scene s = test_default_scene();
    look(&s);
    crowd_set_count(c, 0);
    render(c, r, NULL, NULL, 0, &s, empty);
    crowd_set_count(c, CHARACTERS);
    render(c, r, NULL, NULL, 0, &s, pixels);
    save("skinned_vat", pixels);

    crowd_rig_poser *p = NULL;
    REQUIRE(crowd_rig_poser_create(humanoid(), &asset, &p, &err) == CROWD_OK);
    float *rows = malloc(sizeof(float) * 12 * asset.bone_count * CHARACTERS);
    REQUIRE(rows != NULL);
    crowd_gl_character chars[CHARACTERS];
    crowd_record rec[CHARACTERS];
    float time = crowd_time(c);
    for (uint32_t k = 0; k < CHARACTERS; k++) {
        REQUIRE(crowd_get(c, k, &rec[k]) == CROWD_OK);
        CHECK(test_pose_record(p, &rec[k], time, rows + 12 * asset.bone_count * k));
        chars[k] = (crowd_gl_character){{rec[k].position[0], rec[k].position[1], rec[k].position[2]},
                                        rec[k].yaw,
                                        rec[k].scale,
                                        rec[k].tint,
                                        rec[k].variant,
                                        rows + 12 * asset.bone_count * k};
    }
    crowd_set_count(c, 0);
    for (int cpu = 0; cpu < 2; cpu++) {
        crowd_gl_skinned_desc sd = {.renderer = r, .cpu_skinning = cpu != 0, .capacity = CHARACTERS};
        crowd_gl_skinned *sk = NULL;
        REQUIRE(crowd_gl_skinned_create(&sd, &sk, &err) == CROWD_OK);
        render(c, r, sk, chars, CHARACTERS, &s, pixels2);
        save(cpu ? "skinned_cpu" : "skinned_gpu", pixels2);
        const crowd_gl_skinned_stats *st = crowd_gl_skinned_get_stats(sk);
        CHECK(st->draws == CHARACTERS && st->shadow_draws == CHARACTERS);
        diff d = compare(pixels, pixels2, 24);
        CHECKF(d.drawn > 8000, "only %u character pixels", d.drawn);
        CHECKF(d.silhouette < d.drawn / 200, "%s skinning: silhouettes differ in %u of %u pixels", cpu ? "CPU" : "GPU",
               d.silhouette, d.drawn);
        CHECKF(d.over < d.drawn / 100, "%s skinning: %u of %u pixels off by more than 24", cpu ? "CPU" : "GPU", d.over,
               d.drawn);
        printf("     %s skinning vs VAT: %u character pixels, %u silhouette, %u beyond 24 levels, mean %.3f\n",
               cpu ? "CPU" : "GPU", d.drawn, d.silhouette, d.over, d.mean);
        if (!cpu) { /* the control: each character posed two baked frames later must not pass */
            float *late = malloc(sizeof(float) * 12 * asset.bone_count * CHARACTERS);
            REQUIRE(late != NULL);
            crowd_gl_character moved[CHARACTERS];
            for (uint32_t k = 0; k < CHARACTERS; k++) {
                uint32_t clip = clip_or_die(&asset, clip_names[k]);
                moved[k] = chars[k];
                moved[k].bone_rows = late + 12 * asset.bone_count * k;
                crowd_rig_pose_phase(p, clip, (float)(frame_of[k] + 2) / (float)asset.clips[clip].frame_count,
                                     late + 12 * asset.bone_count * k);
            }
            render(c, r, sk, moved, CHARACTERS, &s, pixels2);
            diff e = compare(pixels, pixels2, 24);
            CHECKF(e.silhouette >= e.drawn / 200 || e.over >= e.drawn / 100,
                   "two frames off still passes: %u silhouette, %u over of %u", e.silhouette, e.over, e.drawn);
            printf("     control (two frames later): %u silhouette, %u beyond 24 of %u pixels\n", e.silhouette, e.over,
                   e.drawn);
            free(late);
        }
        crowd_gl_skinned_destroy(sk);
    }
    /* too many characters for the CPU path's buffer: refused */
    crowd_gl_skinned_desc sd = {.renderer = r, .cpu_skinning = true, .capacity = 1};
    crowd_gl_skinned *sk = NULL;
    REQUIRE(crowd_gl_skinned_create(&sd, &sk, &err) == CROWD_OK);
    CHECK(crowd_gl_skinned_upload(sk, chars, 2, &err) == CROWD_ERROR_ARGUMENT);
    crowd_gl_skinned_destroy(sk);
    free(rows);
    crowd_rig_poser_destroy(p);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

/* A cross-fade: the poser's palette blend equals the shader's blend of two skinned poses. */
static void skinned_cross_fade_matches_vat(void)
{
    crowd_desc cd = {.asset = &asset, .capacity = 1, .world_size = 100.0f, .chunk_size = 100.0f};
    crowd *c = NULL;
    REQUIRE(crowd_create(&cd, &c, NULL) == CROWD_OK);
    crowd_set_count(c, 1);
    crowd_gl_desc rd = {.asset = &asset, .sizing_crowd = c, .es = gl.es, .shadow_map_size = 1024};
    crowd_gl_renderer *r = NULL;
    REQUIRE(crowd_gl_create(&rd, &r, NULL) == CROWD_OK);
    uint32_t walk = clip_or_die(&asset, "walk"), cheer = clip_or_die(&asset, "cheer");
    crowd_play(c, 0, walk, 0.0f, 0.0f); /* rate 0: held on a frame */
    crowd_set_phase(c, 0, 4.0f / (float)asset.clips[walk].frame_count);
    crowd_play(c, 0, cheer, 0.0f, 1.0f);
    crowd_view view = {0};
    crowd_update(c, 0.5f, &view); /* halfway through the fade */
    crowd_record rec;
    REQUIRE(crowd_get(c, 0, &rec) == CROWD_OK);
    crowd_gl_scene s = test_default_scene();
    look(&s);
    uint8_t ground[4] = {120, 130, 110, 255};
    showcase_stage_set_ground(gl_fixture_stage(), 40.0f, ground, NULL);
    crowd_set_count(c, 0);
    render(c, r, NULL, NULL, 0, &s, empty);
    crowd_set_count(c, 1);
    render(c, r, NULL, NULL, 0, &s, pixels);
    crowd_rig_poser *p = NULL;
    REQUIRE(crowd_rig_poser_create(humanoid(), &asset, &p, NULL) == CROWD_OK);
    float *rows = malloc(sizeof(float) * 12 * asset.bone_count);
    REQUIRE(rows != NULL);
    CHECK(test_pose_record(p, &rec, crowd_time(c), rows));
    crowd_gl_character ch = {
        {rec.position[0], rec.position[1], rec.position[2]}, rec.yaw, rec.scale, rec.tint, rec.variant, rows};
    crowd_set_count(c, 0);
    crowd_gl_skinned_desc sd = {.renderer = r};
    crowd_gl_skinned *sk = NULL;
    REQUIRE(crowd_gl_skinned_create(&sd, &sk, NULL) == CROWD_OK);
    render(c, r, sk, &ch, 1, &s, pixels2);
    save("skinned_fade_vat", pixels);
    save("skinned_fade_gpu", pixels2);
    diff d = compare(pixels, pixels2, 24);
    CHECKF(d.drawn > 2000, "only %u character pixels", d.drawn);
    CHECKF(d.silhouette < d.drawn / 200 && d.over < d.drawn / 100, "fade: %u silhouette, %u over of %u", d.silhouette,
           d.over, d.drawn);
    printf("     cross-fade halfway: %u pixels, %u silhouette, %u beyond 24\n", d.drawn, d.silhouette, d.over);
    crowd_gl_skinned_destroy(sk);
    free(rows);
    crowd_rig_poser_destroy(p);
    crowd_gl_destroy(r);
    crowd_destroy(c);
}

int main(int argc, char **argv)
{
    gl_fixture_open(argc, argv, W, H, &gl, &baked, &asset);
    RUN_TEST(poser_matches_the_bone_texture);
    RUN_TEST(skinned_matches_vat);
    RUN_TEST(skinned_cross_fade_matches_vat);
    gl_fixture_close(&gl, &baked, &asset);
    TEST_MAIN_END();
}
