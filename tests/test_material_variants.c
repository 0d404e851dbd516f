/* Material variants on screen: MorphStressTest with KHR_materials_variants (test_variants_gltf), one
 * instance per choice of the bars' region, drawn by crowd_gl. The pixels where the choices differ
 * are the bars: red over the grid texture for "painted" (another tile of the atlas, through its UV
 * transform), flat blue for "plain" (the white texel), the swatches' many colours for the own
 * material. Checked in ES 3.0 and desktop GL (VAT: the file animates by morph targets, so it has no
 * bone mode). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/view_matrices.h"
#include "crowdbake/gl.h"
#include "crowdbake/gltf.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "test_support.h"

enum { W = 320, H = 160, CHOICES = 3 };

static crowd_bake_output baked;
static crowd_asset asset;

/* One instance wearing `choice` on the bars, drawn from the front into rgb. */
static void draw_choice(tool_gl *gl, crowd_gl_renderer *renderer, crowd *c, uint8_t choice, uint8_t *rgb)
{
    crowd_variant look = {{255, 255, 255}, {0, choice, 0, 0, 0, 0}, 0};
    CHECK(crowd_set_variant(c, 0, &look) == CROWD_OK);
    crowd_gl_scene scene = {.sun_direction = {0.0f, 0.6f, 0.8f},
                            .sun_color = {1, 1, 1},
                            .sky_color = {0.5f, 0.5f, 0.5f},
                            .ground_color = {0.3f, 0.3f, 0.3f}};
    const float eye[3] = {0, 1.2f, 4.5f}, target[3] = {0, 0.3f, 0}, up[3] = {0, 1, 0};
    cb_look_at(scene.view, eye, target, up);
    cb_perspective(scene.projection, 0.7f, (float)W / H, 0.1f, 50.0f);
    crowd_view view;
    crowd_gl_view(renderer, scene.view, scene.projection, H, &view);
    const crowd_frame *frame = crowd_update(c, 0.0f, &view);
    crowd_error err;
    CHECK(frame && crowd_gl_upload(renderer, frame, &err) == CROWD_OK);
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    CHECK(crowd_gl_draw(renderer, frame, &scene) == CROWD_OK);
    tool_gl_read_rgb(gl, rgb);
}

typedef struct hue_count {
    uint32_t differing, red, blue, grey_or_mixed;
} hue_count;

/* Over the pixels where `a` and `b` differ (the bars), how many of `a`'s are red or blue dominant. */
static hue_count count_hues(const uint8_t *a, const uint8_t *b)
{
    hue_count n = {0, 0, 0, 0};
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = a + 3 * i, *q = b + 3 * i;
        if (abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) < 24)
            continue;
        n.differing++;
        if (p[0] > p[1] + 30 && p[0] > p[2] + 30)
            n.red++;
        else if (p[2] > p[0] + 30 && p[2] > p[1] + 30)
            n.blue++;
        else
            n.grey_or_mixed++;
    }
    return n;
}

static void choices_on_screen(bool es, crowd_gl_mode mode)
{
    tool_gl gl;
    crowd_error err;
    REQUIRE(tool_gl_create(&gl, W, H, es, &err) == CROWD_OK);
    crowd_gl_renderer *renderer = NULL;
    crowd *c = NULL;
    CHECKF(crowd_gl_create(
               &(crowd_gl_desc){
                   .asset = &asset, .es = es, .mode = mode, .path = CROWD_GL_PATH_CPU, .shadow_map_size = 256},
               &renderer, &err) == CROWD_OK,
           "%s", err.message);
    CHECK(crowd_create(&(crowd_desc){.asset = &asset, .capacity = 4}, &c, &err) == CROWD_OK);
    if (renderer && c) {
        CHECK(crowd_set_count(c, 1) == CROWD_OK);
        static uint8_t rgb[CHOICES][W * H * 3];
        for (int k = 0; k < CHOICES; k++)
            draw_choice(&gl, renderer, c, (uint8_t)k, rgb[k]);
        hue_count painted = count_hues(rgb[1], rgb[2]), plain = count_hues(rgb[2], rgb[1]),
                  own = count_hues(rgb[0], rgb[1]);
        printf("     %s %s: bars %u px; painted red %u (other %u), plain blue %u (other %u), own material: %u red, "
               "%u blue, %u other\n",
               es ? "ES 3.0" : "desktop", mode == CROWD_GL_BONES ? "bones" : "VAT", painted.differing, painted.red,
               painted.grey_or_mixed + painted.blue, plain.blue, plain.grey_or_mixed + plain.red, own.red, own.blue,
               own.grey_or_mixed);
        CHECK(painted.differing > 1000);
        CHECK(painted.red > painted.differing * 8 / 10 && plain.blue > plain.differing * 9 / 10);
        /* the swatches are many colours: no single hue takes the own material's pixels */
        CHECK(own.differing > 1000 && own.red < own.differing / 2 && own.blue < own.differing / 2);
    }
    crowd_destroy(c);
    crowd_gl_destroy(renderer);
    tool_gl_destroy(&gl);
}

static void es_vat(void)
{
    choices_on_screen(true, CROWD_GL_VAT);
}

static void desktop_vat(void)
{
    choices_on_screen(false, CROWD_GL_VAT);
}

int main(void)
{
    char *json = test_variants_gltf(CROWD_ASSET_DIR);
    crowd_rig rig;
    crowd_error err;
    if (!json ||
        crowd_gltf_read_memory(json, strlen(json), "variants", CROWD_ASSET_DIR "/gltf", NULL, &rig, &err) != CROWD_OK) {
        fprintf(stderr, "the variants file: %s\n", json ? err.message : "missing");
        return 1;
    }
    free(json);
    if (crowd_bake(&(crowd_bake_desc){.rig = &rig, .fps = 5}, &baked, &err) != CROWD_OK ||
        crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err) != CROWD_OK) {
        fprintf(stderr, "bake: %s\n", err.message);
        return 1;
    }
    crowd_rig_free(&rig);
    RUN_TEST(es_vat);
    RUN_TEST(desktop_vat);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
