/* The windowless context of the installed package (crowdbake/gl_headless.h), and what creating a
 * renderer or a grass field does with no context current: an error that names the helper, where
 * the GL loader used to abort the process. Public API only, as an engine would use it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/view_matrices.h"
#include "crowdbake/gl.h"
#include "crowdbake/gl_headless.h"
#include "crowdbake/grass.h"
#include "gl/gl_api.h"
#include "test_support.h"

enum { W = 160, H = 120 };
static const uint8_t clear_rgb[3] = {51, 102, 153}; /* 0.2, 0.4, 0.6 */

/* With nothing current, both GL creators refuse and say how to get a context. */
static void refused_without_context(const crowd_asset *asset, const char *when)
{
    crowd_gl_renderer *renderer = (crowd_gl_renderer *)1;
    crowd_error err = {0};
    crowd_result r = crowd_gl_create(&(crowd_gl_desc){.asset = asset, .es = true}, &renderer, &err);
    CHECKF(r == CROWD_ERROR_GL && renderer == NULL, "%s: crowd_gl_create gave %d", when, (int)r);
    CHECKF(strstr(err.message, "no GL context is current") && strstr(err.message, "crowd_gl_headless_create"),
           "%s: crowd_gl_create said '%s'", when, err.message);
    crowd_grass *grass = (crowd_grass *)1;
    crowd_grass_desc grass_desc = crowd_grass_resolve(NULL);
    r = crowd_grass_create(&grass_desc, &grass, &err);
    CHECKF(r == CROWD_ERROR_GL && grass == NULL, "%s: crowd_grass_create gave %d", when, (int)r);
    CHECKF(strstr(err.message, "crowd_grass_create: no GL context"), "%s: crowd_grass_create said '%s'", when,
           err.message);
}

static void bad_descs_refused(void)
{
    const crowd_gl_headless_desc bad[] = {
        {0, 10, 0, true}, {10, 16385, 0, false}, {10, 10, -1, true}, {10, 10, 17, false}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        crowd_gl_headless *h = (crowd_gl_headless *)1;
        crowd_error err = {0};
        CHECKF(crowd_gl_headless_create(&bad[i], &h, &err) == CROWD_ERROR_ARGUMENT && h == NULL, "desc %zu accepted",
               i);
        CHECKF(strstr(err.message, "out of") != NULL, "desc %zu: '%s'", i, err.message);
    }
    crowd_error err = {0};
    CHECK(crowd_gl_headless_create(NULL, NULL, &err) == CROWD_ERROR_ARGUMENT);
    CHECK(crowd_gl_headless_read_rgba(NULL, NULL, &err) == CROWD_ERROR_ARGUMENT);
    crowd_gl_headless_destroy(NULL);
}

/* One character 4 m in front of the camera, drawn and read back: how many pixels it covers. */
static uint32_t covered_pixels(crowd_gl_headless *h, const crowd_asset *asset, bool es)
{
    crowd_error err = {0};
    crowd_gl_renderer *renderer = NULL;
    CHECKF(
        crowd_gl_create(&(crowd_gl_desc){.asset = asset, .es = es, .path = CROWD_GL_PATH_CPU, .shadow_map_size = 256},
                        &renderer, &err) == CROWD_OK,
        "crowd_gl_create in the headless context: %s", err.message);
    crowd *c = NULL;
    CHECKF(crowd_create(&(crowd_desc){.asset = asset, .capacity = 4}, &c, &err) == CROWD_OK, "%s", err.message);
    CHECK(crowd_set_count(c, 1) == CROWD_OK);
    crowd_gl_scene scene = {.sun_direction = {0.3f, 0.9f, 0.3f},
                            .sun_color = {1, 1, 1},
                            .sky_color = {0.4f, 0.4f, 0.4f},
                            .ground_color = {0.2f, 0.2f, 0.2f}};
    const float eye[3] = {0, 1, 4}, target[3] = {0, 0.9f, 0}, up[3] = {0, 1, 0};
    cb_look_at(scene.view, eye, target, up);
    cb_perspective(scene.projection, 0.8f, (float)W / H, 0.1f, 100.0f);
    crowd_view view;
    crowd_gl_view(renderer, scene.view, scene.projection, H, &view);
    const crowd_frame *frame = crowd_update(c, 0.1f, &view);
    CHECK(frame != NULL && crowd_gl_upload(renderer, frame, &err) == CROWD_OK);
    glClearColor(0.2f, 0.4f, 0.6f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    CHECK(crowd_gl_draw(renderer, frame, &scene) == CROWD_OK);
    static uint8_t rgba[W * H * 4];
    CHECKF(crowd_gl_headless_read_rgba(h, rgba, &err) == CROWD_OK, "%s", err.message);
    uint32_t covered = 0, corners_clear = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = rgba + ((size_t)y * W + x) * 4;
            bool clear =
                abs(p[0] - clear_rgb[0]) <= 1 && abs(p[1] - clear_rgb[1]) <= 1 && abs(p[2] - clear_rgb[2]) <= 1;
            covered += !clear;
            corners_clear += clear && (x == 0 || x == W - 1) && (y == 0 || y == H - 1);
        }
    /* the top rows are sky, the character stands in the middle: the rows came back top first */
    const uint8_t *top_middle = rgba + (size_t)(W / 2) * 4, *middle = rgba + ((size_t)(H / 2) * W + W / 2) * 4;
    CHECKF(abs(top_middle[2] - clear_rgb[2]) <= 1, "top middle pixel %u %u %u is not the clear colour", top_middle[0],
           top_middle[1], top_middle[2]);
    CHECKF(abs(middle[2] - clear_rgb[2]) > 1 || abs(middle[0] - clear_rgb[0]) > 1, "nothing drawn at the centre");
    CHECKF(corners_clear == 4, "%u of 4 corners are the clear colour", corners_clear);
    crowd_destroy(c);
    crowd_gl_destroy(renderer);
    return covered;
}

static void draws_and_reads(const crowd_asset *asset, bool es)
{
    crowd_gl_headless *h = NULL;
    crowd_error err = {0};
    CHECKF(crowd_gl_headless_create(&(crowd_gl_headless_desc){W, H, 4, es}, &h, &err) == CROWD_OK, "%s: %s",
           es ? "ES" : "desktop", err.message);
    if (!h)
        return;
    CHECK(crowd_gl_headless_framebuffer(h) != 0);
    printf("     %s on %s\n", es ? "OpenGL ES 3.0" : "desktop OpenGL", crowd_gl_headless_renderer(h));
    uint32_t covered = covered_pixels(h, asset, es);
    printf("     the character covers %u of %d pixels\n", covered, W * H);
    CHECKF(covered > 500 && covered < W * H / 2, "covered %u pixels", covered);
    crowd_gl_headless_destroy(h);
}

static crowd_bake_output baked;
static crowd_asset asset;

/* (crowd_gl_create and crowd_grass_create, before any context) */
static void refused_before_any_context(void)
{
    refused_without_context(&asset, "before any context");
}

/* An ES 3.0 and a desktop context: a renderer draws one character, read back top row first. */
static void draws_and_reads_es_and_desktop(void)
{
    draws_and_reads(&asset, true);
    draws_and_reads(&asset, false);
}

/* EGL is loaded now but nothing is current. */
static void refused_after_destroy(void)
{
    refused_without_context(&asset, "after destroy");
}

int main(void)
{
    humanoid_asset_or_die((crowd_bake_desc){0}, &baked, &asset);
    RUN_TEST(refused_before_any_context);
    RUN_TEST(bad_descs_refused);
    RUN_TEST(draws_and_reads_es_and_desktop);
    RUN_TEST(refused_after_destroy);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
