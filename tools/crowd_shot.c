/* crowd-shot: renders a crowd to a PNG without a display (EGL surfaceless): the seed benchmark's
 * scene by default, after a few seconds of simulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/view_matrices.h"
#include "crowdbake/gl.h"
#include "crowdbake/grass.h"
#include "crowdbake/sim.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "showcase/looks.h"
#include "showcase/scene.h"
#include "tool_support.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: crowd-shot [asset.crowd] [options]\n"
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
                 "  --desktop             OpenGL 3.3 core instead of OpenGL ES 3.0\n"
                 "  --path cpu|gpu|auto   culling and LOD on the CPU (default) or in a compute pass with\n"
                 "                        indirect draws (desktop GL 4.3; implies --desktop)\n"
                 "  --msaa 0|2|4          samples per pixel of the offscreen target (default 4)\n"
                 "  --upload orphan|ring|in-place   how changed records reach the GPU (default ring)\n"
                 "  --frames <n>          after the shot, draw n more frames (simulating at 60 Hz, no glFinish\n"
                 "                        between them) and print the medians: CPU ms of the upload and of the\n"
                 "                        whole frame, and the wall ms per frame over the run (a bench loop)\n"
                 "  --gl-debug            check GL errors after every upload and pass\n"
                 "  --gl-timers           GPU time per pass from timer queries (printed with --frames)\n"
                 "  --grass on|off        the grass field as the ground (default on); --path picks its path too\n"
                 "  --fields on|off|compute|fragment  the crowd tramples the field each frame (default on: compute\n"
                 "                        passes on desktop GL 4.3, fragment passes elsewhere)\n"
                 "  --sky on|off          the analytic sky and sun disc behind the scene (default on)\n"
                 "  --tone aces|gamma     ACES tone mapping + sRGB output, or the plain gamma 2.2 (default aces)\n"

                 "  --far-shadow none|blob  what the cards and the levels past shadow_max_lod cast: nothing, or a\n"
                 "                        soft blob on the ground (crowd_gl_far_shadow; default none)\n"
                 "  --imposters on|off    the imposter level of an asset baked with --imposters (default on)\n"
                 "  --imposter-distance <m>  where the cards take over (default: the asset's LOD chain)\n");
}

/* Camera coordinates: three finite numbers, each within 1e5 m of the origin (the world is 420 m). */
static bool parse_vec3(const char *text, float out[3])
{
    return tool_parse_floats(text, 3, -1e5f, 1e5f, out);
}

typedef struct shot_options {
    const char *asset, *out;
    uint32_t width, height;
    uint32_t count;
    crowd_scenario scenario;
    float seconds, eye[3], target[3];
    crowd_gl_mode mode;
    bool shadows, desktop, gl_debug, gl_timers;
    uint32_t msaa, frames;
    crowd_gl_upload_mode upload;
    crowd_gl_path path;
    bool grass;
    int imposters;
    float imposter_distance;
} shot_options;

static showcase_stage *shot_stage;                 /* ground, pillars and sky */
static crowd_grass *shot_grass;                    /* the field, when --grass on */
static bool shot_fields = true;                    /* --fields: the crowd tramples the field every frame */
static crowd_grass_field_passes shot_field_passes; /* --fields compute|fragment (on: the default) */
static bool shot_sky = true;                       /* --sky */
static bool shot_aces = true;                      /* --tone aces|gamma */
static float shot_focus[2];                        /* the trample window follows the camera's target */
static crowd_gl_far_shadow shot_far_shadow;        /* --far-shadow none|blob (NONE unless given) */

static void update_fields(const crowd_gl_renderer *r, const crowd_gl_scene *scene, const crowd_frame *frame)
{
    crowd_grass_fields f = {
        .dt = 1.0f / 60.0f, .focus_set = true, .focus = {shot_focus[0], shot_focus[1]}, .crowd = frame};
    if (shot_grass && shot_fields)
        crowd_grass_update_fields(shot_grass, r, scene, &f);
}

static void draw_grass(const crowd_gl_renderer *r, const crowd_gl_scene *scene, float time)
{
    crowd_grass_frame f = {.time = time, .wind = {0.15f, 0.08f}};
    if (shot_grass)
        crowd_grass_draw(shot_grass, r, scene, &f);
}

/* The crowd's shadow pass, then the pillars into the same map. */
static crowd_result shadow_pass(crowd_gl_renderer *r, const crowd_frame *frame, const float light[16])
{
    crowd_result result = crowd_gl_render_shadows(r, frame, light);
    if (result == CROWD_OK)
        showcase_stage_render_shadows(shot_stage, r);
    return result;
}

/* The colour passes in the order stage.h gives: the crowd, the stage, the field, the far shadows on
 * whichever ground drew, the sky last. */
static crowd_result colour_pass(crowd_gl_renderer *r, const crowd_frame *frame, const crowd_gl_scene *scene, float time)
{
    crowd_result result = crowd_gl_draw(r, frame, scene);
    showcase_stage_draw(shot_stage, r, scene);
    draw_grass(r, scene, time);
    crowd_gl_draw_far_shadows(r, frame, scene);
    if (shot_sky)
        showcase_stage_draw_sky(shot_stage, scene);
    return result;
}

static int parse(int argc, char **argv, shot_options *o)
{
    *o = (shot_options){NULL,
                        "shot.png",
                        1280,
                        720,
                        5000,
                        CROWD_SCENARIO_WANDER,
                        3.0f,
                        {28, 16, 44},
                        {0, 1.2f, 0},
                        CROWD_GL_VAT,
                        true,
                        false,
                        false,
                        false,
                        4,
                        0,
                        CROWD_GL_UPLOAD_DEFAULT,
                        CROWD_GL_PATH_CPU,
                        true};
    static const char *const valued[] = {
        "--out",       "--size",   "--count", "--seconds", "--eye",       "--target",
        "--scenario",  "--mode",   "--msaa",  "--frames",  "--upload",    "--path",
        "--grass",     "--fields", "--sky",   "--tone",    "--imposters", "--imposter-distance",
        "--far-shadow"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !v; k++)
            if (!strcmp(a, valued[k]))
                return tool_missing_value("crowd-shot", a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--out")) {
            o->out = argv[++i];
        } else if (!strcmp(a, "--size")) {
            ok = tool_parse_size(argv[++i], 16, 8192, &o->width, &o->height);
        } else if (!strcmp(a, "--count")) {
            ok = tool_parse_u32(argv[++i], 0, 1u << 22, &o->count);
        } else if (!strcmp(a, "--seconds")) {
            ok = tool_parse_float(argv[++i], 0.0f, 600.0f, &o->seconds);
        } else if (!strcmp(a, "--eye")) {
            ok = parse_vec3(argv[++i], o->eye);
        } else if (!strcmp(a, "--target")) {
            ok = parse_vec3(argv[++i], o->target);
        } else if (!strcmp(a, "--scenario")) {
            ok = false;
            for (int s = 0; s < CROWD_SCENARIO_COUNT; s++)
                if (!strcmp(argv[i + 1], crowd_scenario_name((crowd_scenario)s))) {
                    o->scenario = (crowd_scenario)s;
                    ok = true;
                }
            i++;
        } else if (!strcmp(a, "--mode")) {
            ok = !strcmp(v, "vat") || !strcmp(v, "bones");
            o->mode = !strcmp(argv[++i], "bones") ? CROWD_GL_BONES : CROWD_GL_VAT;
        } else if (!strcmp(a, "--imposters")) {
            v = argv[++i];
            ok = !strcmp(v, "on") || !strcmp(v, "off");
            o->imposters = !strcmp(v, "off") ? -1 : 0;
        } else if (!strcmp(a, "--imposter-distance")) {
            ok = tool_parse_float(argv[++i], 0.1f, 1e5f, &o->imposter_distance);
        } else if (!strcmp(a, "--no-shadows")) {
            o->shadows = false;
        } else if (!strcmp(a, "--path")) {
            ++i;
            ok = !strcmp(v, "cpu") || !strcmp(v, "gpu") || !strcmp(v, "auto");
            o->path = !strcmp(v, "gpu")    ? CROWD_GL_PATH_GPU
                      : !strcmp(v, "auto") ? CROWD_GL_PATH_AUTO
                                           : CROWD_GL_PATH_CPU;
            o->desktop |= o->path != CROWD_GL_PATH_CPU;
        } else if (!strcmp(a, "--sky")) {
            ok = !strcmp(v, "on") || !strcmp(v, "off");
            shot_sky = !strcmp(argv[++i], "on");
        } else if (!strcmp(a, "--far-shadow")) {
            ok = !strcmp(v, "none") || !strcmp(v, "blob");
            shot_far_shadow = !strcmp(argv[++i], "blob") ? CROWD_GL_FAR_SHADOW_BLOB : CROWD_GL_FAR_SHADOW_NONE;
        } else if (!strcmp(a, "--tone")) {
            ok = !strcmp(v, "aces") || !strcmp(v, "gamma");
            shot_aces = !strcmp(argv[++i], "aces");
        } else if (!strcmp(a, "--fields")) {
            ok = !strcmp(v, "on") || !strcmp(v, "off") || !strcmp(v, "compute") || !strcmp(v, "fragment");
            shot_fields = strcmp(v, "off") != 0;
            shot_field_passes = !strcmp(v, "compute")    ? CROWD_GRASS_FIELDS_COMPUTE
                                : !strcmp(v, "fragment") ? CROWD_GRASS_FIELDS_FRAGMENT
                                                         : CROWD_GRASS_FIELDS_DEFAULT;
            i++;
        } else if (!strcmp(a, "--grass")) {
            ok = !strcmp(v, "on") || !strcmp(v, "off");
            o->grass = !strcmp(argv[++i], "on");
        } else if (!strcmp(a, "--desktop")) {
            o->desktop = true;
        } else if (!strcmp(a, "--gl-debug")) {
            o->gl_debug = true;
        } else if (!strcmp(a, "--gl-timers")) {
            o->gl_timers = true;
        } else if (!strcmp(a, "--msaa")) {
            ok = tool_parse_u32(argv[++i], 0, 4, &o->msaa) && o->msaa != 1 && o->msaa != 3;
        } else if (!strcmp(a, "--frames")) {
            ok = tool_parse_u32(argv[++i], 1, 100000, &o->frames);
        } else if (!strcmp(a, "--upload")) {
            i++;
            o->upload = !strcmp(v, "orphan")     ? CROWD_GL_UPLOAD_ORPHAN
                        : !strcmp(v, "ring")     ? CROWD_GL_UPLOAD_RING
                        : !strcmp(v, "in-place") ? CROWD_GL_UPLOAD_IN_PLACE
                                                 : CROWD_GL_UPLOAD_DEFAULT;
            ok = o->upload != CROWD_GL_UPLOAD_DEFAULT;
        } else if (a[0] == '-') {
            fprintf(stderr, "crowd-shot: unknown option %s (see --help)\n", a);
            return 2;
        } else if (o->asset) {
            fprintf(stderr, "crowd-shot: more than one input (%s and %s)\n", o->asset, a);
            return 2;
        } else {
            o->asset = a;
        }
        if (!ok) {
            fprintf(stderr, "crowd-shot: bad value for %s: %s (see --help)\n", a, argv[i]);
            return 2;
        }
    }
    /* the camera must look somewhere: an eye on its target has no view direction */
    if (o->eye[0] == o->target[0] && o->eye[1] == o->target[1] && o->eye[2] == o->target[2]) {
        fprintf(stderr, "crowd-shot: --eye and --target are the same point\n");
        return 2;
    }
    return 0;
}

static double now_ms(void)
{
    return tool_now_ms(); /* monotonic (tool_support.c) */
}

/* The bench loop: frames as an application draws them (no glFinish between them, so an upload that
 * has to wait for the GPU shows up), then one glFinish; medians of the CPU times. */
static crowd_result bench_loop(const shot_options *o, crowd *c, crowd_sim *sim, crowd_gl_renderer *r,
                               crowd_gl_scene *scene, const crowd_view *view, const float light[16], crowd_error *err)
{
    double *upload = malloc(sizeof(double) * o->frames), *cpu = malloc(sizeof(double) * o->frames);
    if (!upload || !cpu) {
        free(upload);
        free(cpu);
        snprintf(err->message, sizeof err->message, "out of memory");
        return CROWD_ERROR_OUT_OF_MEMORY;
    }
    crowd_result result = CROWD_OK;
    uint64_t bytes = 0;
    double start = now_ms();
    for (uint32_t f = 0; f < o->frames && result == CROWD_OK; f++) {
        double t0 = now_ms();
        crowd_sim_step(sim, 1.0f / 60.0f);
        const crowd_frame *frame = crowd_update(c, 1.0f / 60.0f, view);
        double t1 = now_ms();
        result = crowd_gl_upload(r, frame, err);
        upload[f] = now_ms() - t1;
        bytes += crowd_gl_get_stats(r)->bytes_uploaded;
        if (result == CROWD_OK)
            crowd_gl_cull(r, frame, view, o->shadows ? light : NULL); /* GPU path only */
        update_fields(r, scene, frame);
        if (result == CROWD_OK && o->shadows)
            result = shadow_pass(r, frame, light);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        if (result == CROWD_OK)
            result = colour_pass(r, frame, scene, (float)f / 60.0f);
        glFlush();
        cpu[f] = now_ms() - t0;
    }
    glFinish();
    double wall = (now_ms() - start) / o->frames;
    if (result != CROWD_OK && !err->message[0])
        snprintf(err->message, sizeof err->message, "%s", crowd_gl_last_error(r));
    const crowd_gl_stats *gs = crowd_gl_get_stats(r);
    static const char *const modes[] = {"ring", "orphan", "ring", "in-place"};
    if (result == CROWD_OK) {
        printf("  %u frames, upload %s, msaa %u: upload %.3f ms, frame cpu %.3f ms (medians), wall %.2f ms per frame, "
               "%.2f MB uploaded per frame\n",
               o->frames, modes[o->upload], o->msaa, tool_median(upload, o->frames), tool_median(cpu, o->frames), wall,
               (double)bytes / o->frames / 1e6);
        if (gs->timers)
            printf("  gpu: shadow %.2f ms, colour %.2f ms (timer queries, read %d frames late)\n", gs->gpu_shadow_ms,
                   gs->gpu_color_ms, CROWD_GL_TIMER_LATENCY);
    }
    free(upload);
    free(cpu);
    return result;
}

/* The field's numbers; with timers, GPU ms of culling over frames that move the eye by 1 cm each
 * (every one culls) and then over still frames (every one skips), read after a glFinish. */
static void print_grass(crowd_gl_scene *scene, const crowd_gl_renderer *r, bool timers, const crowd_frame *frame)
{
    const crowd_grass_stats *g = crowd_grass_get_stats(shot_grass);
    printf("  grass (%s path): %u of %u chunks, tiers near %u mid %u far %u (%s)\n",
           g->path == CROWD_GRASS_PATH_GPU ? "GPU" : "CPU", g->chunks_visible, g->chunks, g->tier_blades[0],
           g->tier_blades[1], g->tier_blades[2], g->late ? "GPU counters" : "CPU estimate");
    if (shot_fields) { /* the field update alone, each between two glFinish (a measuring tool may wait) */
        double ms[21];
        for (int k = 0; k < 21; k++) {
            glFinish();
            double t0 = now_ms();
            update_fields(r, scene, frame);
            glFinish();
            ms[k] = now_ms() - t0;
        }
        printf("  grass fields: %u trample discs (the crowd's agents in the window), update %.3f ms (median of 21, "
               "glFinish each side)\n",
               g->trample_stamps, tool_median(ms, 21));
    }
    if (!timers)
        return;
    double moving_cull = -1, moving_draw = -1, tiers[CROWD_GRASS_TIERS + 1] = {-1, -1, -1, -1};
    for (int phase = 0; phase < 2; phase++) {
        for (int f = 0; f < 12; f++) {
            if (phase == 0)
                scene->view[12] += (f & 1) ? 0.01f : -0.01f;
            glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
            draw_grass(r, scene, (float)f / 60.0f);
            glFinish(); /* a measuring tool may wait: the results are then there 4 frames on */
        }
        if (phase == 0) {
            moving_cull = g->gpu_cull_ms, moving_draw = g->gpu_draw_ms;
            memcpy(tiers, g->gpu_tier_ms, sizeof g->gpu_tier_ms);
            tiers[CROWD_GRASS_TIERS] = g->gpu_ground_ms;
        }
    }
    printf("  grass GPU ms (timer queries): moving camera: cull + classify %.3f, draw %.3f; still camera: cull %.3f "
           "(skipped: %s), draw %.3f; passes %llu run, %llu skipped\n",
           moving_cull, moving_draw, g->gpu_cull_ms, g->last_skipped ? "yes" : "no", g->gpu_draw_ms,
           (unsigned long long)g->passes_run, (unsigned long long)g->passes_skipped);
    printf("  grass GPU ms per tier (moving camera): near %.3f, mid %.3f, far %.3f, ground %.3f\n", tiers[0], tiers[1],
           tiers[2], tiers[3]);
}

int main(int argc, char **argv)
{
    shot_options o;
    int status = parse(argc, argv, &o);
    if (status)
        return status == 1 ? tool_finish_stdout("crowd-shot", 0) : 2;

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
    if (res != CROWD_OK || tool_gl_create_samples(&gl, o.width, o.height, !o.desktop, (int)o.msaa, &err) != CROWD_OK)
        goto done;
    crowd_obstacle obstacles[SHOWCASE_OBSTACLES];
    showcase_scene_obstacles(obstacles);
    uint32_t capacity = o.count ? o.count : 1;
    crowd_desc cd = {.asset = &asset, .capacity = capacity, .imposters = o.imposters};
    if (o.imposter_distance > 0.0f && asset.lod_count >= 1) { /* the chain up to it, then the cards */
        for (uint32_t l = 0; l + 1 < asset.lod_count; l++)
            cd.lod_distances[l] = fminf(6.0f * powf(2.35f, (float)l), o.imposter_distance);
        cd.lod_distances[asset.lod_count - 1] = o.imposter_distance;
    }
    crowd_sim_desc sd = {.scenario = o.scenario,
                         .obstacles = obstacles,
                         .obstacle_count = SHOWCASE_OBSTACLES,
                         .seed = 1,
                         .spawn = showcase_spawn_look(&asset)};
    crowd_gl_desc gd = {.asset = &asset,
                        .mode = o.mode,
                        .es = !o.desktop,
                        .upload = o.upload,
                        .debug = o.gl_debug,
                        .timers = o.gl_timers,
                        .path = o.path};
    if (crowd_create(&cd, &c, &err) != CROWD_OK || (sd.target = c, crowd_sim_create(&sd, &sim, &err)) != CROWD_OK ||
        crowd_sim_spawn(sim, o.count) != CROWD_OK ||
        (gd.sizing_crowd = c, crowd_gl_create(&gd, &r, &err)) != CROWD_OK ||
        showcase_scene_dress(r, &asset, &err) != CROWD_OK ||
        showcase_stage_create(!o.desktop, &shot_stage, &err) != CROWD_OK ||
        showcase_scene_stage(shot_stage, obstacles, SHOWCASE_OBSTACLES, cd.world_size ? cd.world_size : 420.0f, &err) !=
            CROWD_OK)
        goto done;
    bool gpu_path = crowd_gl_get_path(r) == CROWD_GL_PATH_GPU; /* (then its pass culls: crowd_gl_view) */

    crowd_gl_scene scene = {0};
    showcase_scene_lighting(&scene, 0.0011f);
    scene.shadows = o.shadows;
    scene.output = shot_aces ? CROWD_GL_OUTPUT_ACES_SRGB : CROWD_GL_OUTPUT_GAMMA;
    scene.far_shadow = shot_far_shadow;
    shot_focus[0] = o.target[0], shot_focus[1] = o.target[2];
    const float up[3] = {0, 1, 0};
    cb_look_at(scene.view, o.eye, o.target, up);
    cb_perspective(scene.projection, 58.0f * 3.14159265f / 180.0f, (float)o.width / (float)o.height, 0.3f, 900.0f);
    crowd_view view = {0};
    crowd_gl_view(r, scene.view, scene.projection, (float)o.height, &view);
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
    crowd_gl_cull(r, frame, &view, o.shadows ? light : NULL);
    if (o.grass) {
        crowd_grass_desc grass_desc = {.es = !o.desktop,
                                       .path = o.path == CROWD_GL_PATH_GPU    ? CROWD_GRASS_PATH_GPU
                                               : o.path == CROWD_GL_PATH_AUTO ? CROWD_GRASS_PATH_AUTO
                                                                              : CROWD_GRASS_PATH_CPU,
                                       .timers = o.gl_timers,
                                       .field_passes = shot_field_passes,
                                       .debug = o.gl_debug};
        if (crowd_grass_create(&grass_desc, &shot_grass, &err) != CROWD_OK)
            goto done;
        showcase_stage_show_ground(shot_stage, false); /* the field's ground replaces the plane */
        update_fields(r, &scene, frame);               /* where the agents stand now */
    }
    if (o.shadows && shadow_pass(r, frame, light) != CROWD_OK) {
        snprintf(err.message, sizeof err.message, "%s", crowd_gl_last_error(r));
        goto done;
    }
    float sky[3];
    showcase_scene_sky(sky);
    glClearColor(sky[0], sky[1], sky[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (colour_pass(r, frame, &scene, o.seconds) != CROWD_OK) {
        snprintf(err.message, sizeof err.message, "%s", crowd_gl_last_error(r));
        goto done;
    }
    if (crowd_gl_check("crowd-shot", &err) != CROWD_OK) /* once, after the frame: not a per-frame query */
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
    printf("wrote %s (%ux%u, %s on %s)\n", o.out, o.width, o.height, o.desktop ? "GL 3.3 core" : "GLES 3.0",
           gl.renderer);
    if (!gpu_path) {
        printf("  %u instances, %u submitted in %u draws (+%u shadow draws), %.2f M triangles, LODs", st->simulated,
               st->submitted, gs->draws, gs->shadow_draws, (double)gs->triangles / 1e6);
        for (uint32_t l = 0; l < asset.lod_count; l++)
            printf(" %u", st->lod_histogram[l]);
        if (crowd_settings(c)->imposters > 0)
            printf(", cards %u", st->lod_histogram[asset.lod_count]);
        printf("\n");
    } else { /* the crowd made no draw list: what the GPU's pass drew */
        printf("  %u instances, %u draws (+%u shadow draws)\n", st->simulated, gs->draws, gs->shadow_draws);
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
    if (shot_grass)
        print_grass(&scene, r, o.gl_timers, frame);
    if (o.frames && bench_loop(&o, c, sim, r, &scene, &view, light, &err) != CROWD_OK)
        goto done;
    status = 0;
done:
    if (status)
        fprintf(stderr, "crowd-shot: %s\n", err.message);
    free(pixels);
    crowd_grass_destroy(shot_grass);
    showcase_stage_destroy(shot_stage);
    crowd_gl_destroy(r);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    if (gl.headless)
        tool_gl_destroy(&gl);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    return tool_finish_stdout("crowd-shot", status);
}
