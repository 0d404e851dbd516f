/* crowd-shot: renders a crowd to a PNG without a display (EGL surfaceless): the seed benchmark's
 * scene by default, after a few seconds of simulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/camera.h"
#include "crowdbake/gl.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "scene/scene.h"
#include "tool_support.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: crowd-shot [asset.crowd] [options]\n"
            "\n"
            "Renders a crowd to a PNG headless (EGL surfaceless, e.g. Mesa llvmpipe). Without an asset,\n"
            "bakes the built-in humanoid first.\n"
            "\n"
            "  --out <file.png>      output (default shot.png)\n"
            "  --size <w>x<h>        image size (default 1280x720)\n"
            "  --count <n>           instances (default 5000)\n"
            "  --scenario <name>     wander, stampede, parade, mill, gather (default wander)\n"
            "  --seconds <s>         simulated time before the shot (default 3)\n"
            "  --eye x,y,z           camera position (default 28,16,44)\n"
            "  --target x,y,z        camera target (default 0,1.2,0)\n"
            "  --mode vat|bones      animation path (default vat)\n"
            "  --no-shadows          skip the shadow pass\n"
            "  --path cpu|gpu|auto   culling and LOD on the CPU (default) or in a compute pass with\n"
            "                        indirect draws (desktop GL 4.3; implies --desktop)\n"
            "  --desktop             OpenGL 3.3 core instead of OpenGL ES 3.0\n");
}

static bool parse_vec3(const char *text, float out[3])
{
    return text && sscanf(text, "%f,%f,%f", &out[0], &out[1], &out[2]) == 3;
}

typedef struct shot_options {
    const char *asset, *out;
    int width, height;
    uint32_t count;
    crowd_scenario scenario;
    float seconds, eye[3], target[3];
    crowd_gl_mode mode;
    bool shadows, desktop;
    crowd_gl_path path;
} shot_options;

static int parse(int argc, char **argv, shot_options *o)
{
    *o = (shot_options){NULL, "shot.png", 1280, 720, 5000, CROWD_SCENARIO_WANDER, 3.0f,
                        {28, 16, 44}, {0, 1.2f, 0}, CROWD_GL_VAT, true, false};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--out") && v) {
            o->out = argv[++i];
        } else if (!strcmp(a, "--size") && v) {
            ok = sscanf(argv[++i], "%dx%d", &o->width, &o->height) == 2 && o->width >= 16 && o->height >= 16 &&
                 o->width <= 8192 && o->height <= 8192;
        } else if (!strcmp(a, "--count") && v) {
            ok = tool_parse_u32(argv[++i], 0, 1u << 22, &o->count);
        } else if (!strcmp(a, "--seconds") && v) {
            ok = tool_parse_float(argv[++i], 0.0f, 600.0f, &o->seconds);
        } else if (!strcmp(a, "--eye") && v) {
            ok = parse_vec3(argv[++i], o->eye);
        } else if (!strcmp(a, "--target") && v) {
            ok = parse_vec3(argv[++i], o->target);
        } else if (!strcmp(a, "--scenario") && v) {
            ok = false;
            for (int s = 0; s < CROWD_SCENARIO_COUNT; s++)
                if (!strcmp(argv[i + 1], crowd_scenario_name((crowd_scenario)s))) {
                    o->scenario = (crowd_scenario)s;
                    ok = true;
                }
            i++;
        } else if (!strcmp(a, "--mode") && v) {
            ok = !strcmp(v, "vat") || !strcmp(v, "bones");
            o->mode = !strcmp(argv[++i], "bones") ? CROWD_GL_BONES : CROWD_GL_VAT;
        } else if (!strcmp(a, "--no-shadows")) {
            o->shadows = false;
        } else if (!strcmp(a, "--path") && v) {
            ++i;
            ok = !strcmp(v, "cpu") || !strcmp(v, "gpu") || !strcmp(v, "auto");
            o->path = !strcmp(v, "gpu") ? CROWD_GL_PATH_GPU : !strcmp(v, "auto") ? CROWD_GL_PATH_AUTO : CROWD_GL_PATH_CPU;
            o->desktop |= o->path != CROWD_GL_PATH_CPU;
        } else if (!strcmp(a, "--desktop")) {
            o->desktop = true;
        } else if (a[0] != '-' && !o->asset) {
            o->asset = a;
        } else {
            fprintf(stderr, "crowd-shot: unknown option or missing value: %s (see --help)\n", a);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "crowd-shot: bad value for %s (see --help)\n", a);
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    shot_options o;
    int status = parse(argc, argv, &o);
    if (status)
        return status == 1 ? 0 : 2;

    crowd_error err = {0};
    crowd_asset asset = {0};
    uint8_t *pixels = NULL;
    crowd_bake_output baked = {0};
    tool_gl gl = {0};
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    crowd_gl_renderer *r = NULL;
    status = 1;
    crowd_result res = o.asset ? crowd_asset_load_file(&asset, o.asset, &err) : tool_bake_humanoid(&baked, &err);
    if (res == CROWD_OK && !o.asset)
        res = crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err);
    if (res != CROWD_OK || tool_gl_create(&gl, o.width, o.height, !o.desktop, &err) != CROWD_OK)
        goto done;
    crowd_obstacle obstacles[CROWD_SCENE_OBSTACLES];
    crowd_scene_obstacles(obstacles);
    uint32_t capacity = o.count ? o.count : 1;
    crowd_desc cd = {.asset = &asset, .capacity = capacity};
    crowd_sim_desc sd = {.scenario = o.scenario, .obstacles = obstacles, .obstacle_count = CROWD_SCENE_OBSTACLES, .seed = 1};
    crowd_gl_desc gd = {.asset = &asset, .mode = o.mode, .es = !o.desktop, .path = o.path};
    if (crowd_create(&cd, &c, &err) != CROWD_OK || (sd.target = c, crowd_sim_create(&sd, &sim, &err)) != CROWD_OK ||
        crowd_sim_spawn(sim, o.count) != CROWD_OK ||
        (gd.capacity = crowd_record_capacity(c), crowd_gl_create(&gd, &r, &err)) != CROWD_OK ||
        crowd_scene_setup(r, &asset, obstacles, CROWD_SCENE_OBSTACLES, cd.world_size ? cd.world_size : 420.0f,
                          &err) != CROWD_OK)
        goto done;

    crowd_gl_scene scene = {0};
    crowd_scene_lighting(&scene, 0.0011f);
    scene.shadows = o.shadows;
    const float up[3] = {0, 1, 0};
    cb_look_at(scene.view, o.eye, o.target, up);
    cb_perspective(scene.projection, 58.0f * 3.14159265f / 180.0f, (float)o.width / (float)o.height, 0.3f, 900.0f);
    crowd_view view = {.viewport_height = (float)o.height};
    memcpy(view.view, scene.view, sizeof view.view);
    memcpy(view.projection, scene.projection, sizeof view.projection);
    const crowd_frame *frame = NULL;
    int steps = (int)(o.seconds * 60.0f);
    for (int i = 0; i <= steps; i++) {
        crowd_sim_step(sim, 1.0f / 60.0f);
        frame = crowd_update(c, 1.0f / 60.0f, &view);
    }
    if (crowd_gl_upload(r, frame, &err) != CROWD_OK)
        goto done;
    float light[16];
    crowd_gl_fit_shadow(r, scene.sun_direction, o.target, 60.0f, light);
    crowd_gl_set_lod(r, crowd_settings(c), 0.0f);
    crowd_gl_cull(r, frame, &view, o.shadows ? light : NULL);
    if (o.shadows)
        crowd_gl_render_shadows(r, frame, light);
    float sky[3];
    crowd_scene_sky(sky);
    glClearColor(sky[0], sky[1], sky[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    crowd_gl_draw(r, frame, &scene);
    if (crowd_gl_check("crowd-shot", &err) != CROWD_OK)
        goto done;
    pixels = malloc((size_t)o.width * o.height * 3);
    if (!pixels) {
        snprintf(err.message, sizeof err.message, "out of memory");
        goto done;
    }
    tool_gl_read_rgb(&gl, pixels);
    if (tool_write_png(o.out, pixels, o.width, o.height, &err) != CROWD_OK)
        goto done;
    const crowd_stats *st = &frame->stats;
    const crowd_gl_stats *gs = crowd_gl_get_stats(r);
    printf("wrote %s (%dx%d, %s on %s)\n", o.out, o.width, o.height, o.desktop ? "GL 3.3 core" : "GLES 3.0", gl.renderer);
    printf("  %u instances, %u submitted in %u draws (+%u shadow draws), %.2f M triangles, LODs", st->simulated,
           st->submitted, gs->draws, gs->shadow_draws, (double)gs->triangles / 1e6);
    for (uint32_t l = 0; l < asset.lod_count; l++)
        printf(" %u", st->lod_histogram[l]);
    printf("\n");
    if (crowd_gl_get_path(r) == CROWD_GL_PATH_GPU) {
        glFinish(); /* a one-shot tool may wait; the counters then arrive with the next polls */
        for (int i = 0; i < 4; i++)
            crowd_gl_cull(r, frame, &view, o.shadows ? light : NULL);
        const crowd_gl_gpu_stats *g = crowd_gl_get_gpu_stats(r);
        printf("  GPU path (counters read back %u passes late): %.2f M triangles, %u shadow casters, LODs",
               g->frames_late, (double)g->triangles / 1e6, g->shadow_casters);
        for (uint32_t l = 0; l < asset.lod_count; l++)
            printf(" %u", g->submitted[l]);
        printf("\n");
    }
    status = 0;
done:
    if (status)
        fprintf(stderr, "crowd-shot: %s\n", err.message);
    free(pixels);
    crowd_gl_destroy(r);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    if (gl.context)
        tool_gl_destroy(&gl);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    return status;
}
