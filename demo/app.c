/* The demo app: assets, the crowd and its simulation, the renderer and the showcase scene, the
 * settings that the native keys and the web panel share, and the frame loop. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "demo/app.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "crowdbake/gl.h"
#include "crowdbake/sim.h"
#include "demo/bench.h"
#include "demo/camera.h"
#include "demo/cards.h"
#include "demo/compare.h"
#include "demo/grass_view.h"
#include "demo/gun.h"
#include "demo/hud.h"
#include "demo/menagerie.h"
#include "demo/motion_view.h"
#include "demo/quality_ladder.h"
#include "gl/gl_api.h"
#include "showcase/looks.h"
#include "showcase/scene.h"

#define MAX_ASSETS 16
/* MSAA off by default: on a software rasteriser (SwiftShader WebGL2) 4x doubles the frame
 * (web/bench.mjs; figures in docs/performance.md). */
#define DEMO_MSAA_DEFAULT 0
/* Far shadows (crowd_gl_far_shadow) for the cards and the levels past shadow_max_lod, on by default: at
 * the page's settings (lod_bias 0.5, shadow_max_lod 2) the seed camera sees almost nobody at a casting
 * level, so without blobs the crowd casts no shadow at all; the blobs cost less than the rounds'
 * spread on SwiftShader (web/bench.mjs; docs/performance.md). */
#define DEMO_FAR_SHADOW_DEFAULT 1
#define WORLD_SIZE 420.0f
/* The page's LOD bias: a lower bias cut SwiftShader's frame by a tenth at 20k and a quarter at 100k
 * (web/bench.mjs; docs/performance.md). SwiftShader is bound by the VAT vertex work of the middle
 * levels; natively the defaults stay the library's chain. shadow_max_lod stays 2 on both: at 1 the
 * smoke's close view (no LOD 0-1 instance in it) lost every crowd shadow. */
#ifdef __EMSCRIPTEN__
#define DEMO_LOD_BIAS_DEFAULT 0.5
#else
#define DEMO_LOD_BIAS_DEFAULT 1
#endif

/* GLFW key codes (printable keys are their ASCII upper case). */
enum { KEY_TAB = 258, KEY_F1 = 290, KEY_F2 = 291 };

/* ---- the render path (setting "path": auto | cpu | gpu) -------------------------------------- */

static crowd_gl_path path_of(double setting)
{
    return setting > 1.5 ? CROWD_GL_PATH_GPU : setting > 0.5 ? CROWD_GL_PATH_CPU : CROWD_GL_PATH_AUTO;
}

int demo_path_parse(const char *name)
{
    static const char *const names[3] = {"auto", "cpu", "gpu"};
    for (int i = 0; name && i < 3; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

const crowd_gl_gpu_stats *demo_late_gpu_stats(const crowd_gl_renderer *r)
{
    if (!r || crowd_gl_get_path(r) != CROWD_GL_PATH_GPU)
        return NULL;
    const crowd_gl_gpu_stats *g = crowd_gl_get_gpu_stats(r);
    return g->valid ? g : NULL;
}

uint32_t demo_gpu_submitted(const crowd_gl_gpu_stats *late)
{
    uint32_t n = 0;
    for (uint32_t l = 0; late && l < CROWD_MAX_LODS; l++)
        n += late->submitted[l];
    return n;
}

/* One HUD line: the resolved path and, on the GPU path, its passes run and skipped. */
static int path_status(const crowd_gl_renderer *r, char *out, size_t size)
{
    if (!r || crowd_gl_get_path(r) != CROWD_GL_PATH_GPU)
        return snprintf(out, size, "path cpu\n");
    const crowd_gl_gpu_stats *g = crowd_gl_get_gpu_stats(r);
    return snprintf(out, size, "path gpu: %llu passes run, %llu skipped\n", (unsigned long long)g->passes_run,
                    (unsigned long long)g->passes_skipped);
}

static const demo_setting_info settings_table[DEMO_SETTING_COUNT] = {
    [DEMO_COUNT] = {"count", "instances", 0, 250000, 1000, NULL, '='},
    [DEMO_CHUNK] = {"chunk", "chunk size (m)", 4, 420, 4, NULL, 'C'},
    [DEMO_MODE] = {"mode", "playback", 0, 1, 1, "vat|bones", 'M'},
    [DEMO_CROSS_FADE] = {"cross_fade", "cross-fade", 0, 1, 1, NULL, 'X'},
    [DEMO_LOD_POLICY] = {"lod_policy", "LOD policy", 0, 1, 1, "distance|screen coverage", 'L'},
    [DEMO_LOD_BIAS] = {"lod_bias", "LOD bias", 0.25, 4, 0.05, NULL, ']'},
    [DEMO_VERTEX_BUDGET] = {"vertex_budget", "vertex budget", 0, 20000000, 100000, NULL, 'V'},
    [DEMO_SHADOWS] = {"shadows", "shadows", 0, 1, 1, NULL, 'H'},
    [DEMO_SHADOW_MAX_LOD] = {"shadow_max_lod", "shadow max LOD", 1, 4, 1, NULL, 'J'},
    [DEMO_FAR_POOL] = {"far_pool", "far pool", 0, 1, 1, NULL, 'P'},
    [DEMO_STRIDE_MATCHING] = {"stride_matching", "stride matching", 0, 1, 1, NULL, 'K'},
    [DEMO_SEPARATION] = {"separation", "separation", 0, 1, 1, NULL, 'N'},
    [DEMO_FOG] = {"fog", "fog density", 0, 0.01, 0.0001, NULL, 'F'},
    [DEMO_SCENARIO] = {"scenario", "scenario", 0, 4, 1, "wander|stampede|parade|mill|gather", 'Z'},
    /* past the loaded assets (two or more): the menagerie, every asset a kind (demo/menagerie.c) */
    [DEMO_ASSET] = {"asset", "asset", 0, MAX_ASSETS, 1, NULL, '0'},
    [DEMO_CAMERA] = {"camera", "camera", 0, 2, 1, "orbit|walk|tour", KEY_TAB},
    [DEMO_HUD] = {"hud", "HUD", 0, 2, 1, "off|simple|details", KEY_F2},
    [DEMO_PAUSED] = {"paused", "paused", 0, 1, 1, NULL, ' '},
    [DEMO_MSAA] = {"msaa", "MSAA", 0, 2, 1, "off|2x|4x", 'O'},
    [DEMO_PATH] = {"path", "render path", 0, 2, 1, "auto|cpu|gpu", 'U'},
    [DEMO_COMPARE] = {"compare", "classic | VAT", 0, 1, 1, NULL, 'Y'},
    [DEMO_GRASS] = {"grass", "grass", 0, 1, 1, NULL, 'I'},
    [DEMO_GRASS_BUDGET] = {"grass_budget", "grass density", 0.02, 1, 0.02, NULL, 0},
    [DEMO_GRASS_DISTANCE] = {"grass_distance", "grass distance (m)", 20, 220, 10, NULL, 0},
    [DEMO_AUTO_QUALITY] = {"auto_quality", "quality follows frame rate", 0, 1, 1, NULL, 0},
    [DEMO_WIND] = {"wind", "wind", 0, 1, 0.05, NULL, 0},
    [DEMO_GUN] = {"gun", "paint minigun", 0, 1, 1, NULL, 'G'},
    [DEMO_TRAMPLE] = {"trample", "trample", 0, 1, 1, NULL, '8'},
    [DEMO_MOWER] = {"mower", "mower", 0, 1, 1, NULL, '9'},
    [DEMO_TONE] = {"tone", "tone mapping", 0, 1, 1, "gamma|aces", '7'},
    [DEMO_IMPOSTERS] = {"imposters", "imposters", 0, 1, 1, NULL, '6'},
    [DEMO_CARD_DISTANCE] = {"card_distance", "cards from (m, 0 auto)", 0, 400, 5, NULL, 0},
    [DEMO_FAR_SHADOW] = {"far_shadow", "far shadow", 0, 1, 1, "none|blob", ';'},
    [DEMO_MOTION] = {"motion_vectors", "motion vectors (debug view)", 0, 1, 1, NULL, '/'},
};

const demo_setting_info *demo_setting_table(void)
{
    return settings_table;
}

int demo_setting_find(const char *name)
{
    for (int i = 0; name && i < DEMO_SETTING_COUNT; i++)
        if (!strcmp(settings_table[i].name, name))
            return i;
    return -1;
}

typedef struct demo_asset {
    char name[64];
    uint8_t *bytes;
    crowd_asset asset;
} demo_asset;

struct demo_app {
    demo_desc desc;
    double settings[DEMO_SETTING_COUNT];
    demo_asset assets[MAX_ASSETS];
    uint32_t asset_count, active;
    crowd *crowd;
    crowd_sim *sim;
    crowd_gl_renderer *renderer;
    demo_hud *hud;
    demo_motion *motion; /* made the first time the motion view is asked for */
    crowd_obstacle obstacles[SHOWCASE_OBSTACLES];
    demo_camera camera;
    crowd_gl_scene scene;
    const crowd_frame *frame;
    double fps, frame_ms, cpu_ms, main_ms, last_frame_ms, last_main_ms, last_entry;
    uint32_t frames, rasterised, sampled_submitted;
    bool sample_now; /* a setting changed: sample rasterised on the next frame */
    bool help;
    /* the multisampled target (MSAA on), resolved into desc.framebuffer */
    GLuint msaa_fbo, msaa_color, msaa_depth;
    int msaa_width, msaa_height, msaa_samples, max_samples;
    /* what the renderer was last told about the target (crowd_gl_set_target) */
    GLuint target_fbo;
    int target_width, target_height;
    bool target_valid;
    int hud_width, hud_height, gl_errors;
    char gl_renderer[96];
    demo_bench bench;
    demo_compare *compare;       /* DEMO_COMPARE on: both halves live there */
    demo_menagerie *menagerie;   /* DEMO_ASSET == asset_count: every kind lives there; the main crowd waits */
    demo_grass *grass;           /* NULL when the field could not be made (the error says why) */
    demo_quality_ladder quality; /* auto_quality's step */
    demo_gun *gun;               /* made the first time gun mode is entered; its paint stays after */
    showcase_stage *stage;       /* ground, obstacles and sky: shared by every mode */
    int gun_left_camera;         /* the camera mode gun mode was entered from, -1 outside it */
    /* the shadow map is re-rendered at most at 30 Hz and only while something moves (the seed's
       SHADOW_UPDATE_INTERVAL): the crowd stepping, or the light's fit following the camera */
    double shadow_wait;     /* seconds since the last shadow pass */
    float shadow_light[16]; /* the light matrix of that pass */
    bool shadow_valid;      /* a pass ran since shadows were switched on */
    uint64_t shadow_passes, shadow_frames;
    double grass_time;
    char status[4096];   /* the HUD: plain words (and the details with hud = details) */
    char details[2048];  /* every figure, always written (demo_status_details) */
    size_t plain_length; /* where the plain words end in status */
    char error[256];
    char renderer_line[256]; /* which renderer draws, and why (demo_set_renderer_line); "" natively */
};

static void release_msaa(demo_app *app);

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- building the crowd for the active asset --------------------------------------------------- */

static void release_crowd(demo_app *app)
{
    demo_gun_forget_crowd(app->gun);
    demo_compare_destroy(app->compare);
    app->compare = NULL;
    app->settings[DEMO_COMPARE] = 0;
    crowd_gl_destroy(app->renderer);
    crowd_sim_destroy(app->sim);
    crowd_destroy(app->crowd);
    app->renderer = NULL;
    app->sim = NULL;
    app->crowd = NULL;
    app->frame = NULL;
}

static crowd_desc crowd_settings_of(const demo_app *app, const crowd_asset *asset)
{
    const double *s = app->settings;
    crowd_desc d = {
        .asset = asset, .capacity = app->desc.capacity, .world_size = WORLD_SIZE, .chunk_size = (float)s[DEMO_CHUNK]};
    d.lod_policy = s[DEMO_LOD_POLICY] > 0.5 ? CROWD_LOD_SCREEN_COVERAGE : CROWD_LOD_DISTANCE;
    d.lod_bias = (float)s[DEMO_LOD_BIAS];
    d.vertex_budget = (uint32_t)s[DEMO_VERTEX_BUDGET];
    d.shadow_max_lod = (uint32_t)s[DEMO_SHADOW_MAX_LOD];
    d.far_pool = s[DEMO_FAR_POOL] > 0.5 ? 1 : -1;
    d.shadows = s[DEMO_SHADOWS] > 0.5 ? 1 : -1;
    demo_cards_apply(&d, asset, s[DEMO_IMPOSTERS] > 0.5, s[DEMO_CARD_DISTANCE]);
    return d;
}

static crowd_result build_crowd(demo_app *app, crowd_error *error)
{
    release_crowd(app);
    const crowd_asset *asset = &app->assets[app->active].asset;
    crowd_desc cd = crowd_settings_of(app, asset);
    crowd_sim_desc sd = {.scenario = (crowd_scenario)app->settings[DEMO_SCENARIO],
                         .obstacles = app->obstacles,
                         .obstacle_count = SHOWCASE_OBSTACLES,
                         .seed = 7,
                         .separation = app->settings[DEMO_SEPARATION] > 0.5 ? 0 : -1,
                         .spawn = showcase_spawn_look(asset)};
    if (crowd_gl_check_mode(asset, CROWD_GL_BONES, NULL) != CROWD_OK) /* no bone texture, or morph targets */
        app->settings[DEMO_MODE] = 0;
    crowd_gl_desc gd = {.asset = asset,
                        .es = app->desc.es,
                        .debug = app->desc.gl_debug,
                        .timers = app->desc.gl_timers,
                        .upload = (crowd_gl_upload_mode)app->desc.gl_upload,
                        .path = path_of(app->settings[DEMO_PATH]),
                        .mode = app->settings[DEMO_MODE] > 0.5 ? CROWD_GL_BONES : CROWD_GL_VAT,
                        .velocity = app->settings[DEMO_MOTION] > 0.5 ? CROWD_GL_VELOCITY_MRT : CROWD_GL_VELOCITY_NONE};
    crowd_result r = crowd_create(&cd, &app->crowd, error);
    if (r == CROWD_OK) {
        sd.target = app->crowd;
        r = crowd_sim_create(&sd, &app->sim, error);
    }
    gd.sizing_crowd = app->crowd; /* sizes the instance buffer (it would grow on upload anyway) */
    app->target_valid = false;
    if (r == CROWD_OK)
        r = crowd_gl_create(&gd, &app->renderer, error);
    if (r == CROWD_OK)
        r = showcase_scene_dress(app->renderer, asset, error);
    if (r == CROWD_OK)
        r = crowd_sim_spawn(app->sim, (uint32_t)app->settings[DEMO_COUNT]);
    if (r != CROWD_OK) {
        release_crowd(app);
        return r;
    }
    crowd_set_stride_matching(app->crowd, app->settings[DEMO_STRIDE_MATCHING] > 0.5);
    crowd_gl_set_cross_fade(app->renderer, app->settings[DEMO_CROSS_FADE] > 0.5);
    return CROWD_OK;
}

/* ---- lifetime --------------------------------------------------------------------------------- */

/* auto_quality: the ladder's step becomes the grass and LOD bias settings (which the HUD and the
 * panel show); set by hand, any of them turns auto_quality off (demo_set). */
static void follow_quality(demo_app *app)
{
    demo_quality q = demo_quality_ladder_get(&app->quality);
    app->settings[DEMO_GRASS_BUDGET] = q.grass_density;
    app->settings[DEMO_GRASS_DISTANCE] = q.grass_distance;
    if (app->settings[DEMO_LOD_BIAS] == q.lod_bias)
        return;
    app->settings[DEMO_LOD_BIAS] = q.lod_bias;
    if (app->crowd) {
        crowd_desc d = crowd_settings_of(app, &app->assets[app->active].asset);
        crowd_configure(app->crowd, &d, NULL);
    }
}

crowd_result demo_create(const demo_desc *desc, demo_app **out, crowd_error *error)
{
    demo_app *app = calloc(1, sizeof *app);
    if (!app)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "demo: out of memory");
    app->desc = *desc;
    if (!app->desc.capacity)
        app->desc.capacity = 250000;
    double defaults[DEMO_SETTING_COUNT] = {[DEMO_COUNT] = desc->initial_count ? desc->initial_count : 20000,
                                           [DEMO_CHUNK] = 24,
                                           [DEMO_MODE] = 0,
                                           [DEMO_CROSS_FADE] = 1,
                                           [DEMO_LOD_POLICY] = 0,
                                           [DEMO_LOD_BIAS] = DEMO_LOD_BIAS_DEFAULT,
                                           [DEMO_VERTEX_BUDGET] = 0,
                                           [DEMO_SHADOWS] = 1,
                                           [DEMO_SHADOW_MAX_LOD] = 2,
                                           [DEMO_FAR_POOL] = 1,
                                           [DEMO_STRIDE_MATCHING] = 1,
                                           [DEMO_SEPARATION] = 1,
                                           [DEMO_FOG] = 0.0011,
                                           [DEMO_SCENARIO] = 0,
                                           [DEMO_ASSET] = 0,
                                           [DEMO_CAMERA] = 0,
                                           [DEMO_HUD] = 1,
                                           [DEMO_PAUSED] = 0,
                                           [DEMO_MSAA] = DEMO_MSAA_DEFAULT,
                                           [DEMO_PATH] = desc->gl_path,

                                           [DEMO_GRASS] = 1,
                                           /* WebGL2 on SwiftShader: 5.5 s a frame at 1 vs 0.7 s without grass
                                              (20k crowd, 960x540); the field's vertex work dominates */
                                           [DEMO_GRASS_BUDGET] = desc->es ? 0.25 : 1,
                                           [DEMO_GRASS_DISTANCE] = 220,
                                           [DEMO_AUTO_QUALITY] = desc->auto_quality,
                                           [DEMO_WIND] = 0.4,
                                           [DEMO_TRAMPLE] = 1,
                                           [DEMO_TONE] = 1,
                                           [DEMO_IMPOSTERS] = 1,
                                           [DEMO_FAR_SHADOW] = DEMO_FAR_SHADOW_DEFAULT};
    memcpy(app->settings, defaults, sizeof defaults);
    demo_quality_ladder_init(&app->quality, desc->es ? 0 : DEMO_QUALITY_STEPS - 1);
    if (desc->auto_quality)
        follow_quality(app);
    showcase_scene_obstacles(app->obstacles);
    demo_camera_init(&app->camera);
    app->gun_left_camera = -1;
    showcase_scene_lighting(&app->scene, (float)app->settings[DEMO_FOG]);
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    snprintf(app->gl_renderer, sizeof app->gl_renderer, "%s", renderer ? renderer : "unknown GL");
    glGetIntegerv(GL_MAX_SAMPLES, &app->max_samples); /* creation: the one time the demo asks */
    app->sample_now = true;
    crowd_result r = demo_hud_create(desc->es, &app->hud, error);
    if (r == CROWD_OK)
        r = showcase_stage_create(desc->es, &app->stage, error);
    if (r == CROWD_OK)
        r = showcase_scene_stage(app->stage, app->obstacles, SHOWCASE_OBSTACLES, WORLD_SIZE, error);
    if (r != CROWD_OK) {
        demo_destroy(app);
        return r;
    }
    crowd_error grass_error = {0}; /* the demo runs on without its field, and says why */
    if (demo_grass_create(desc->es, (crowd_grass_path)desc->grass_path, desc->gl_timers, &app->grass, &grass_error) !=
        CROWD_OK)
        snprintf(app->error, sizeof app->error, "grass: %.200s", grass_error.message);
    *out = app;
    return CROWD_OK;
}

void demo_destroy(demo_app *app)
{
    if (!app)
        return;
    release_crowd(app);
    demo_menagerie_destroy(app->menagerie);
    demo_gun_destroy(app->gun);
    demo_grass_destroy(app->grass);
    showcase_stage_destroy(app->stage);
    demo_hud_destroy(app->hud);
    demo_motion_destroy(app->motion);
    release_msaa(app);
    for (uint32_t i = 0; i < app->asset_count; i++) {
        crowd_asset_free(&app->assets[i].asset);
        free(app->assets[i].bytes);
    }
    free(app);
}

crowd_result demo_add_asset(demo_app *app, const void *bytes, size_t size, const char *name, uint32_t *index,
                            crowd_error *error)
{
    if (app->asset_count == MAX_ASSETS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "demo: at most %d assets", MAX_ASSETS);
    demo_asset *a = &app->assets[app->asset_count];
    memset(a, 0, sizeof *a);
    a->bytes = aligned_alloc(16, (size + 16) & ~(size_t)15);
    if (!a->bytes)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "demo: out of memory for %s", name);
    memcpy(a->bytes, bytes, size);
    crowd_result r = crowd_asset_load_memory(&a->asset, a->bytes, size, error);
    if (r != CROWD_OK) {
        crowd_error_prefix(error, "%s: ", name);
        free(a->bytes);
        return r;
    }
    snprintf(a->name, sizeof a->name, "%s", name);
    if (index)
        *index = app->asset_count;
    if (app->asset_count++ == 0) {
        app->active = 0;
        r = build_crowd(app, error);
    }
    return r;
}

/* ---- the menagerie (demo/menagerie.c) ---------------------------------------------------------- */

/* The asset setting's value past the loaded assets: every asset a kind in one world. */
static bool has_menagerie(const demo_app *app)
{
    return app->asset_count >= 2;
}

static crowd_result menagerie_toggle(demo_app *app, bool on, crowd_error *error)
{
    demo_menagerie_destroy(app->menagerie);
    app->menagerie = NULL;
    if (!on)
        return CROWD_OK;
    const double *s = app->settings;
    demo_menagerie_desc d = {.kind_count = app->asset_count < DEMO_MENAGERIE_MAX_KINDS ? app->asset_count
                                                                                       : DEMO_MENAGERIE_MAX_KINDS,
                             .crowd = crowd_settings_of(app, &app->assets[0].asset),
                             .sim = {.scenario = (crowd_scenario)s[DEMO_SCENARIO],
                                     .obstacles = app->obstacles,
                                     .obstacle_count = SHOWCASE_OBSTACLES,
                                     .seed = 7,
                                     .separation = s[DEMO_SEPARATION] > 0.5 ? 0 : -1},
                             .gl = {.es = app->desc.es,
                                    .debug = app->desc.gl_debug,
                                    .timers = app->desc.gl_timers,
                                    .upload = (crowd_gl_upload_mode)app->desc.gl_upload,
                                    .path = path_of(s[DEMO_PATH])},
                             .world_size = WORLD_SIZE,
                             .stage = app->stage,
                             .total = (uint32_t)s[DEMO_COUNT]};
    for (uint32_t k = 0; k < d.kind_count; k++) {
        d.assets[k] = &app->assets[k].asset;
        d.names[k] = app->assets[k].name;
        d.spawn[k] = showcase_spawn_look(d.assets[k]);
    }
    crowd_result r = demo_menagerie_create(&d, &app->menagerie, error);
    if (r == CROWD_OK) {
        demo_menagerie_set_stride_matching(app->menagerie, s[DEMO_STRIDE_MATCHING] > 0.5);
        demo_menagerie_set_cross_fade(app->menagerie, s[DEMO_CROSS_FADE] > 0.5);
        app->settings[DEMO_MODE] = 0; /* VAT: critters have no bones */
    }
    return r;
}

/* ---- gun mode (demo/gun.c) -------------------------------------------------------------------- */

/* On: the walk camera; from above, at a standing eye height facing the crowd (demo_gun_vantage), else
 * where the camera is now, looking where it looks. */
static crowd_result gun_toggle(demo_app *app, bool on, crowd_error *error)
{
    if (!on) { /* back to the camera it was entered from */
        if (app->gun_left_camera >= 0) {
            app->camera.mode = (demo_camera_mode)app->gun_left_camera;
            app->settings[DEMO_CAMERA] = app->gun_left_camera;
        }
        app->gun_left_camera = -1;
        return CROWD_OK;
    }
    if (!app->gun) {
        crowd_result r = demo_gun_create(app->desc.es, WORLD_SIZE, &app->gun, error);
        if (r != CROWD_OK)
            return r;
    }
    float eye[3], target[3];
    if (!demo_gun_vantage(app->crowd, app->obstacles, SHOWCASE_OBSTACLES, app->camera.eye, app->camera.target, eye,
                          target)) {
        memcpy(eye, app->camera.eye, sizeof eye);
        memcpy(target, app->camera.target, sizeof target);
    }
    if (app->gun_left_camera < 0)
        app->gun_left_camera = (int)app->camera.mode;
    demo_camera_look_at(&app->camera, eye, target);
    app->settings[DEMO_CAMERA] = CAMERA_WALK;
    return CROWD_OK;
}

bool demo_aim_at_instance(demo_app *app, uint32_t index)
{
    crowd_record r;
    if (!app->crowd || crowd_get(app->crowd, index, &r) != CROWD_OK)
        return false;
    float eye[3], target[3];
    memcpy(eye, app->camera.eye, sizeof eye);
    crowd_record_position(&r, crowd_time(app->crowd), target);
    target[1] += r.scale; /* about the chest */
    demo_look_at(app, eye, target);
    return true;
}

/* ---- compare mode (demo/compare.c) ------------------------------------------------------------ */

/* Each half's count from the instances setting: the count itself up to the seed's pair (300
 * classic, 5,000 VAT), so a small setting compares like with like and the default shows the pair;
 * T's budget search then sets each half on its own. */
#define COMPARE_CLASSIC_MAX 300u
#define COMPARE_VAT_MAX 5000u

static uint32_t compare_count(const demo_app *app, int half)
{
    uint32_t n = (uint32_t)app->settings[DEMO_COUNT], cap = half ? COMPARE_VAT_MAX : COMPARE_CLASSIC_MAX;
    return n < 1 ? 1 : n > cap ? cap : n;
}

static crowd_result compare_toggle(demo_app *app, bool on, crowd_error *error)
{
    demo_compare_destroy(app->compare);
    app->compare = NULL;
    if (!on)
        return CROWD_OK;
    const crowd_asset *asset = &app->assets[app->active].asset;
    demo_compare_desc d = {.asset = asset,
                           .crowd = crowd_settings_of(app, asset),
                           .sim = {.scenario = (crowd_scenario)app->settings[DEMO_SCENARIO],
                                   .seed = 7,
                                   .separation = app->settings[DEMO_SEPARATION] > 0.5 ? 0 : -1,
                                   .spawn = showcase_spawn_look(asset)},
                           .gl = {.es = app->desc.es,
                                  .debug = app->desc.gl_debug,
                                  .timers = app->desc.gl_timers,
                                  .upload = (crowd_gl_upload_mode)app->desc.gl_upload},
                           .obstacles = app->obstacles,
                           .obstacle_count = SHOWCASE_OBSTACLES,
                           .world_size = WORLD_SIZE,
                           .stage = app->stage,
                           .classic_count = compare_count(app, 0),
                           .vat_count = compare_count(app, 1)};
    return demo_compare_create(&d, &app->compare, error);
}

/* ---- settings --------------------------------------------------------------------------------- */

crowd_result demo_set(demo_app *app, demo_setting s, double value)
{
    if (!app || (unsigned)s >= DEMO_SETTING_COUNT || !isfinite(value))
        return CROWD_ERROR_ARGUMENT;
    const demo_setting_info *info = &settings_table[s];
    value = value < info->min ? info->min : value > info->max ? info->max : value;
    if (info->choices || info->step == 1)
        value = round(value);
    if (s == DEMO_ASSET && (value > app->asset_count || (value == app->asset_count && !has_menagerie(app))))
        return CROWD_ERROR_ARGUMENT;
    if (s == DEMO_MODE && value > 0.5 && app->menagerie) {
        snprintf(app->error, sizeof app->error, "bone mode unavailable in the menagerie (critters have no skeleton)");
        return CROWD_ERROR_ARGUMENT;
    }
    if (s == DEMO_MODE && value > 0.5 && app->crowd && !app->assets[app->active].asset.bones.data) {
        /* vertex frames (critters, dumps) have no skeleton at all: --bones cannot help there */
        snprintf(app->error, sizeof app->error, "%s",
                 app->assets[app->active].asset.source_kind == CROWD_SOURCE_FRAMES
                     ? "bone mode unavailable: this asset was baked from vertex frames (no skeleton)"
                     : "this asset has no bone texture (bake with --bones)");
        return CROWD_ERROR_ARGUMENT;
    }
    double previous = app->settings[s];
    app->settings[s] = value;
    if (s == DEMO_GRASS_BUDGET || s == DEMO_GRASS_DISTANCE || s == DEMO_LOD_BIAS) /* the user wins */
        app->settings[DEMO_AUTO_QUALITY] = 0;
    else if (s == DEMO_AUTO_QUALITY && value > 0.5)
        follow_quality(app);
    app->error[0] = '\0';
    app->sample_now = true; /* the HUD's rasterised count must describe the new state at once */
    if (!app->crowd && s != DEMO_ASSET)
        return CROWD_OK;
    crowd_error err = {0};
    crowd_result r = CROWD_OK;
    if (app->menagerie) { /* the settings the kinds share (the rest apply when it is next built) */
        if (s == DEMO_COUNT)
            demo_menagerie_set_count(app->menagerie, (uint32_t)value);
        else if (s == DEMO_SCENARIO)
            demo_menagerie_set_scenario(app->menagerie, (crowd_scenario)value);
        else if (s == DEMO_SEPARATION)
            demo_menagerie_set_separation(app->menagerie, value > 0.5);
        else if (s == DEMO_STRIDE_MATCHING)
            demo_menagerie_set_stride_matching(app->menagerie, value > 0.5);
        else if (s == DEMO_CROSS_FADE)
            demo_menagerie_set_cross_fade(app->menagerie, value > 0.5);
        else if (s == DEMO_COMPARE && value > 0.5) { /* compare takes the active asset: leave the menagerie */
            menagerie_toggle(app, false, NULL);
            app->settings[DEMO_ASSET] = app->active;
        }
    }
    switch (s) {
    case DEMO_COUNT:
        r = crowd_sim_spawn(app->sim, (uint32_t)value);
        for (int h = 0; h < 2 && app->compare && r == CROWD_OK; h++)
            r = demo_compare_set_count(app->compare, h, compare_count(app, h));
        break;
    case DEMO_COMPARE:
        r = compare_toggle(app, value > 0.5, &err);
        break;
    case DEMO_GUN:
        r = gun_toggle(app, value > 0.5, &err);
        break;
    case DEMO_MOTION: /* the renderer's colour programs are built with or without velocity */
        if (value > 0.5 && !app->motion)
            r = demo_motion_create(app->desc.es, &app->motion, &err);
        if (r == CROWD_OK)
            r = build_crowd(app, &err);
        break;
    case DEMO_CHUNK:
    case DEMO_PATH:
        r = build_crowd(app, &err);
        break;
    case DEMO_ASSET:
        if (value == app->asset_count) { /* the menagerie: the main crowd stays as it is, unseen */
            compare_toggle(app, false, NULL);
            app->settings[DEMO_COMPARE] = 0;
            r = menagerie_toggle(app, true, &err);
            break;
        }
        menagerie_toggle(app, false, NULL);
        app->active = (uint32_t)value;
        r = build_crowd(app, &err);
        break;
    case DEMO_MODE:
        r = crowd_gl_check_mode(&app->assets[app->active].asset, value > 0.5 ? CROWD_GL_BONES : CROWD_GL_VAT, &err);
        if (r == CROWD_OK) /* (the check's message is the one the panel shows) */
            r = crowd_gl_set_mode(app->renderer, value > 0.5 ? CROWD_GL_BONES : CROWD_GL_VAT);
        break;
    case DEMO_CROSS_FADE:
        crowd_gl_set_cross_fade(app->renderer, value > 0.5);
        break;
    case DEMO_LOD_POLICY:
    case DEMO_LOD_BIAS:
    case DEMO_VERTEX_BUDGET:
    case DEMO_SHADOWS:
    case DEMO_SHADOW_MAX_LOD:
    case DEMO_IMPOSTERS:
    case DEMO_CARD_DISTANCE:
    case DEMO_FAR_POOL: {
        crowd_desc d = crowd_settings_of(app, &app->assets[app->active].asset);
        r = crowd_configure(app->crowd, &d, &err);
        break;
    }
    case DEMO_STRIDE_MATCHING:
        crowd_set_stride_matching(app->crowd, value > 0.5);
        break;
    case DEMO_SEPARATION:
        crowd_sim_set_separation(app->sim, value > 0.5 ? 0 : -1);
        break;
    case DEMO_FOG:
        app->scene.fog_density = (float)value;
        break;
    case DEMO_SCENARIO:
        crowd_sim_set_scenario(app->sim, (crowd_scenario)value);
        break;
    case DEMO_CAMERA:
        app->camera.mode = (demo_camera_mode)value;
        break;
    default:
        break;
    }
    if (r != CROWD_OK) {
        snprintf(app->error, sizeof app->error, "%s: %.200s", info->name, err.message[0] ? err.message : "refused");
        app->settings[s] = previous;
        if (s == DEMO_PATH || s == DEMO_MOTION) /* not available here (the GPU path in a browser): back as it was */
            build_crowd(app, &err);
    }
    return r;
}

double demo_get(const demo_app *app, demo_setting s)
{
    return app && (unsigned)s < DEMO_SETTING_COUNT ? app->settings[s] : NAN;
}

/* One key press: enumerations and toggles cycle, numbers step through useful values. */
static double stepped(const demo_app *app, demo_setting s, bool back)
{
    const demo_setting_info *info = &settings_table[s];
    double v = app->settings[s];
    static const double chunks[] = {8, 16, 24, 48, 96, 420}, budgets[] = {0, 100000, 300000, 1000000, 3000000};
    static const double fogs[] = {0, 0.0006, 0.0011, 0.002, 0.004};
    static const double grass_budgets[] = {0.1, 0.25, 0.5, 1}, winds[] = {0, 0.2, 0.4, 0.7, 1};
    const double *list = NULL;
    int n = 0;
    switch (s) {
    case DEMO_COUNT:
        return back ? floor(v / 2) : (v < 1000 ? 1000 : v * 2);
    case DEMO_LOD_BIAS:
        return back ? v / 1.25 : v * 1.25;
    case DEMO_CHUNK:
        list = chunks, n = 6;
        break;
    case DEMO_VERTEX_BUDGET:
        list = budgets, n = 5;
        break;
    case DEMO_FOG:
        list = fogs, n = 5;
        break;
    case DEMO_GRASS_BUDGET:
        list = grass_budgets, n = 4;
        break;
    case DEMO_WIND:
        list = winds, n = 5;
        break;
    case DEMO_ASSET: { /* the loaded assets, then the menagerie */
        double choices = app->asset_count + (has_menagerie(app) ? 1 : 0);
        return fmod(v + (back ? choices - 1 : 1), choices > 0 ? choices : 1);
    }
    default: {
        double span = info->max - info->min + 1;
        return info->min + fmod(v - info->min + (back ? span - 1 : 1), span);
    }
    }
    int at = 0;
    for (int i = 0; i < n; i++)
        if (fabs(list[i] - v) < fabs(list[at] - v))
            at = i;
    return list[(at + (back ? n - 1 : 1)) % n];
}

bool demo_key(demo_app *app, int key, bool shift)
{
    if (key == 'B') {
        demo_start_benchmark(app);
        return true;
    }
    if (key == KEY_F1) {
        app->help = !app->help;
        return true;
    }
    if (key == 'R' && app->gun && app->settings[DEMO_GUN] > 0.5) { /* the fallen stand up where they fell */
        demo_gun_respawn(app->gun, app->crowd, (uint32_t)app->settings[DEMO_COUNT]);
        return true;
    }
    if (key == 'R') {
        demo_set(app, DEMO_COUNT, app->settings[DEMO_COUNT]);
        return true;
    }
    if (key == 'T' && app->compare) {
        demo_compare_find_budget(app->compare);
        return true;
    }
    if (key == '-' || key == '[') {
        demo_setting s = key == '-' ? DEMO_COUNT : DEMO_LOD_BIAS;
        demo_set(app, s, stepped(app, s, true));
        return true;
    }
    if (key >= '1' && key <= '5') {
        demo_set(app, DEMO_SCENARIO, key - '1');
        return true;
    }
    for (int s = 0; s < DEMO_SETTING_COUNT; s++)
        if (settings_table[s].key && settings_table[s].key == key) {
            demo_set(app, (demo_setting)s, stepped(app, (demo_setting)s, shift));
            return true;
        }
    return false;
}

/* ---- the frame -------------------------------------------------------------------------------- */

static const char *choice_name(demo_setting s, double v, char *buffer, size_t size)
{
    const char *choices = settings_table[s].choices;
    int index = (int)v;
    while (choices && index-- > 0) {
        const char *bar = strchr(choices, '|');
        choices = bar ? bar + 1 : NULL;
    }
    if (!choices)
        return "?";
    const char *end = strchr(choices, '|');
    snprintf(buffer, size, "%.*s", end ? (int)(end - choices) : (int)strlen(choices), choices);
    return buffer;
}

/* ---- the HUD's text ---------------------------------------------------------------------------- */

/* A bounded text being written: appends never run past the buffer (the tail is cut instead). */
typedef struct text_out {
    char *s;
    size_t size, n;
} text_out;

#if defined(__GNUC__)
static void put(text_out *t, const char *format, ...) __attribute__((format(printf, 2, 3)));
#endif
static void put(text_out *t, const char *format, ...)
{
    if (t->n + 1 >= t->size)
        return;
    va_list args;
    va_start(args, format);
    int written = vsnprintf(t->s + t->n, t->size - t->n, format, args);
    va_end(args);
    if (written > 0)
        t->n = t->n + (size_t)written < t->size - 1 ? t->n + (size_t)written : t->size - 1;
}

/* 20000 -> "20,000": counts a visitor reads at a glance. */
static const char *grouped(uint32_t v, char out[16])
{
    if (v < 1000)
        snprintf(out, 16, "%u", v);
    else if (v < 1000000)
        snprintf(out, 16, "%u,%03u", v / 1000, v % 1000);
    else
        snprintf(out, 16, "%u,%03u,%03u", v / 1000000, v / 1000 % 1000, v % 1000);
    return out;
}

/* The details: every figure the HUD has, in the terse form tools and tests parse (F2 twice). */
static void details_gpu_crowd(const demo_app *app, const crowd_stats *st, const crowd_gl_stats *gs, text_out *t)
{
    /* what the GPU's pass drew, a few frames old: the crowd makes no draw list here */
    const crowd_gl_gpu_stats *late = demo_late_gpu_stats(app->renderer);
    const double *s = app->settings;
    if (!late) {
        put(t, "%u live  gpu: no stats read back yet  draws %u (+%u shadow)\n", st->simulated, gs->draws,
            gs->shadow_draws);
        return;
    }
    bool shadows = s[DEMO_SHADOWS] > 0.5; /* casters: the last shadow pass's (at most 30 Hz), none with shadows off */
    put(t,
        "%u live  gpu, %u frames late: submitted %u  draws %u (+%u shadow)  %.2f M tri (+%.2f M shadow, %u casters)\n"
        "LOD",
        st->simulated, late->frames_late, demo_gpu_submitted(late), gs->draws, gs->shadow_draws,
        (double)late->triangles / 1e6, shadows ? (double)late->shadow_triangles / 1e6 : 0.0,
        shadows ? late->shadow_casters : 0);
    const crowd_asset *a = &app->assets[app->active].asset;
    for (uint32_t l = 0; l < a->lod_count; l++)
        put(t, " %u", late->submitted[l]);
    if (a->lod_count < CROWD_MAX_LODS && late->submitted[a->lod_count]) /* the cards' level */
        put(t, " +%u cards", late->submitted[a->lod_count]);
    if (s[DEMO_VERTEX_BUDGET] > 0 && s[DEMO_LOD_POLICY] > 0.5)
        put(t, "  budget %s, %u demoted", late->budget_satisfied ? "met" : "NOT met", late->demoted);
    put(t, "\n");
}

static void details_cpu_crowd(const demo_app *app, const crowd_stats *st, const crowd_gl_stats *gs, text_out *t)
{
    put(t, "%u live  submitted %u  rasterised %u  draws %u (+%u shadow)  %.2f M tri (+%.2f M shadow)\nLOD",
        st->simulated, app->sampled_submitted, app->rasterised, gs->draws, gs->shadow_draws,
        (double)gs->triangles / 1e6, (double)gs->shadow_triangles / 1e6);
    const crowd_asset *a = &app->assets[app->active].asset;
    for (uint32_t l = 0; l < a->lod_count; l++)
        put(t, " %u", st->lod_histogram[l]);
    if (a->lod_count < CROWD_MAX_LODS && st->lod_histogram[a->lod_count]) /* the cards' level */
        put(t, " +%u cards", st->lod_histogram[a->lod_count]);
    if (app->settings[DEMO_VERTEX_BUDGET] > 0 && app->settings[DEMO_LOD_POLICY] > 0.5)
        put(t, "  budget %s, %u demoted", st->budget_satisfied ? "met" : "NOT met", st->demoted);
    put(t, "\n");
}

static void details_settings(const demo_app *app, text_out *t)
{
    const double *s = app->settings;
    char scenario[32], camera[32], mode[32], policy[32], msaa[16];
    put(t,
        "%s | %s | chunk %g | %s x%.2f | shadows %s <=L%g%s | pool %s\n"
        "stride %s | sep %s | fog %.4f | camera %s | msaa %s  [F1 keys]\n",
        choice_name(DEMO_SCENARIO, s[DEMO_SCENARIO], scenario, sizeof scenario),
        choice_name(DEMO_MODE, s[DEMO_MODE], mode, sizeof mode), s[DEMO_CHUNK],
        choice_name(DEMO_LOD_POLICY, s[DEMO_LOD_POLICY], policy, sizeof policy), s[DEMO_LOD_BIAS],
        s[DEMO_SHADOWS] > 0.5 ? "on" : "off", s[DEMO_SHADOW_MAX_LOD], s[DEMO_FAR_SHADOW] > 0.5 ? " +blobs" : "",
        s[DEMO_FAR_POOL] > 0.5 ? "on" : "off", s[DEMO_STRIDE_MATCHING] > 0.5 ? "matched" : "OFF (skating)",
        s[DEMO_SEPARATION] > 0.5 ? "on" : "off", s[DEMO_FOG],
        choice_name(DEMO_CAMERA, s[DEMO_CAMERA], camera, sizeof camera),
        choice_name(DEMO_MSAA, s[DEMO_MSAA], msaa, sizeof msaa));
}

/* Every number measured this frame or sampled together (submitted with rasterised). */
static void write_details(demo_app *app)
{
    const crowd_stats *st = app->frame ? &app->frame->stats : NULL;
    const crowd_gl_stats *gs = app->renderer ? crowd_gl_get_stats(app->renderer) : NULL;
    text_out t = {app->details, sizeof app->details, 0};
    char gpu[64] = "gpu n/a";
    if (gs && gs->timers)
        snprintf(gpu, sizeof gpu, "gpu shadow %.2f + colour %.2f ms", gs->gpu_shadow_ms, gs->gpu_color_ms);
    put(&t, "crowdbake  %s  %.40s\nframe %.1f ms (%.0f fps)  main %.2f ms (%.0f%%)  %s\n",
        app->menagerie     ? "menagerie"
        : app->asset_count ? app->assets[app->active].name
                           : "(no asset)",
        app->gl_renderer, app->frame_ms, app->fps, app->main_ms,
        app->frame_ms > 0 ? 100.0 * app->main_ms / app->frame_ms : 0.0, gpu);
    if (app->gun && app->settings[DEMO_GUN] > 0.5)
        put(&t, "%s", demo_gun_status(app->gun));
    if (app->compare) /* in place of the main crowd's lines: that crowd is not drawn */
        put(&t, "%s", demo_compare_status(app->compare));
    else if (app->menagerie)
        put(&t, "%s", demo_menagerie_status(app->menagerie));
    else if (st && gs && crowd_gl_get_path(app->renderer) == CROWD_GL_PATH_GPU)
        details_gpu_crowd(app, st, gs, &t);
    else if (st && gs)
        details_cpu_crowd(app, st, gs, &t);
    details_settings(app, &t);
    t.n += (size_t)path_status(app->renderer, t.s + t.n, t.size - t.n);
    char shadow[64] = ""; /* at most 30 Hz, only while something moves */
    if (app->settings[DEMO_SHADOWS] > 0.5)
        snprintf(shadow, sizeof shadow, "  shadow %llu/%llu frames", (unsigned long long)app->shadow_passes,
                 (unsigned long long)app->shadow_frames);
    int n = demo_grass_status(app->grass, app->settings[DEMO_GRASS] > 0.5, shadow, t.s + t.n, t.size - t.n);
    t.n = n > 0 && t.n + (size_t)n < t.size ? t.n + (size_t)n : t.size - 1;
    put(&t, "quality %s: grass %.0f %% density to %.0f m, LOD bias %.2f\n",
        app->settings[DEMO_AUTO_QUALITY] > 0.5 ? "follows the frame rate" : "as set",
        100.0 * app->settings[DEMO_GRASS_BUDGET], app->settings[DEMO_GRASS_DISTANCE], app->settings[DEMO_LOD_BIAS]);
}

/* The plain words (the HUD a visitor meets): what is on screen and how fast, what the grass and the
 * shadows are doing, and the keys that matter here. Every count is this frame's. */
static void plain_crowd(const demo_app *app, text_out *t)
{
    char a[16], b[16], c[16];
    if (app->menagerie) {
        demo_menagerie_totals m = demo_menagerie_get_totals(app->menagerie);
        uint32_t kinds = app->asset_count < DEMO_MENAGERIE_MAX_KINDS ? app->asset_count : DEMO_MENAGERIE_MAX_KINDS;
        put(t, "menagerie: %s characters of %u kinds simulated, %s drawn\n",
            grouped(demo_menagerie_instances(app->menagerie), a), kinds, grouped(m.submitted, b));
        return;
    }
    if (!app->frame || !app->renderer) {
        put(t, "no character loaded yet\n");
        return;
    }
    const crowd_asset *asset = &app->assets[app->active].asset;
    const crowd_gl_gpu_stats *late = demo_late_gpu_stats(app->renderer);
    bool gpu = crowd_gl_get_path(app->renderer) == CROWD_GL_PATH_GPU;
    const uint32_t *levels = late ? late->submitted : app->frame->stats.lod_histogram;
    uint32_t drawn = late ? demo_gpu_submitted(late) : app->frame->stats.submitted;
    uint32_t cards = asset->lod_count < CROWD_MAX_LODS ? levels[asset->lod_count] : 0;
    put(t, "%s: %s characters simulated", app->assets[app->active].name, grouped(app->frame->stats.simulated, a));
    if (gpu && !late)
        put(t, ", drawn on the GPU (its counts are not back yet)\n");
    else if (cards)
        put(t, ", %s drawn (%s meshes + %s cards)\n", grouped(drawn, b), grouped(drawn - cards, c), grouped(cards, a));
    else
        put(t, ", %s drawn\n", grouped(drawn, b));
    crowd_sim_gaits gaits; /* the fallback the simulation took for a character it cannot walk */
    if (!app->sim || crowd_sim_get_gaits(app->sim, &gaits) != CROWD_OK)
        return;
    if (gaits.gait_count == 0)
        put(t, "no walk or run clip: everyone stands on \"%s\" and turns in place (moving would glide)\n",
            asset->clips[gaits.idle_clip].name);
    else if (gaits.holds_pose)
        put(t, "no idle clip: standing ones hold \"%s\" still, feet planted (not running in place)\n",
            asset->clips[gaits.idle_clip].name);
}

/* Compare mode: the titles say what each half is and its CPU time; this line, what it draws with. */
static void plain_compare(const demo_app *app, text_out *t)
{
    uint32_t instances[2], draws[2];
    double cpu;
    for (int h = 0; h < 2; h++)
        demo_compare_half_stats(app->compare, h, &instances[h], &draws[h], &cpu);
    put(t, "draw calls a frame: %u classic (one a character), %u VAT (instanced)\n", draws[0], draws[1]);
}

static void plain_grass(const demo_app *app, text_out *t)
{
    const double *s = app->settings;
    double wind = s[DEMO_WIND];
    if (s[DEMO_GRASS] < 0.5) {
        put(t, "grass off (I brings it back)");
        return;
    }
    if (app->compare) { /* the halves have a renderer each: the field would be drawn, and paid for, twice */
        put(t, "grass paused while comparing (still on)");
        return;
    }
    if (!app->grass) {
        put(t, "no grass on this device (plain ground)");
        return;
    }
    put(t, "grass %s",
        wind <= 0.0  ? "standing still"
        : wind < 0.3 ? "swaying in a breeze"
        : wind < 0.7 ? "swaying in the wind"
                     : "tossed by a gale");
    if (s[DEMO_TRAMPLE] > 0.5)
        put(t, ", trampled where people walk");
    if (s[DEMO_MOWER] > 0.5)
        put(t, ", mown where you look");
}

static void plain_shadows(const demo_app *app, text_out *t)
{
    if (app->settings[DEMO_SHADOWS] < 0.5)
        put(t, "; no shadows (H)\n");
    else if (app->settings[DEMO_FAR_SHADOW] > 0.5)
        put(t, "; sun shadows near, soft blobs far\n");
    else
        put(t, "; sun shadows near, none far\n");
}

static void plain_keys(const demo_app *app, text_out *t)
{
    const char *more = app->settings[DEMO_HUD] > 1.5 ? "F2 hides this" : "F2 more figures";
    if (app->compare)
        put(t, "T fit both to %.1f ms   Y back   %s   F1 all keys\n", DEMO_COMPARE_BUDGET_MS, more);
    else if (app->gun && app->settings[DEMO_GUN] > 0.5)
        put(t, "hold the left button to fire   WASD walk   R revives   G puts the gun away   %s\n", more);
    else
        put(t, "G paint minigun   Y classic vs VAT   1-5 crowd moves   TAB camera   %s   F1 all keys\n", more);
}

static void write_plain(demo_app *app, text_out *t)
{
    put(t, "frame %.1f ms (%.0f fps)%s\n", app->frame_ms, app->fps,
        app->settings[DEMO_PAUSED] > 0.5 ? ", paused (space)" : "");
    if (app->compare)
        plain_compare(app, t);
    else
        plain_crowd(app, t);
    if (app->gun && app->settings[DEMO_GUN] > 0.5 && !app->compare)
        put(t, "%s", demo_gun_summary(app->gun));
    plain_grass(app, t);
    plain_shadows(app, t);
    if (app->settings[DEMO_GRASS] > 0.5 && app->grass && !app->compare)
        put(t, "quality %s: grass %.0f %% density to %.0f m\n",
            app->settings[DEMO_AUTO_QUALITY] > 0.5 ? "follows the frame rate" : "as set",
            100.0 * app->settings[DEMO_GRASS_BUDGET], app->settings[DEMO_GRASS_DISTANCE]);
    plain_keys(app, t);
    if (app->error[0])
        put(t, "! %s\n", app->error);
    if (demo_benchmark_running(app) || demo_benchmark_report(app)[0])
        put(t, "%s", demo_bench_text(&app->bench));
}

static const char help_text[] =
    "\nkeys: = / - instances x2 / /2   C chunk   M VAT/bones   X cross-fade   L LOD policy\n"
    "      ] / [ LOD bias   V vertex budget   H shadows   J shadow max LOD   P far pool\n"
    "      K stride matching   N separation   F fog   1-5 or Z scenario   0 asset (last: menagerie)\n"
    "      O MSAA   U path   ; far shadow (none / blobs)\n"
    "      I grass (density and wind: panel)  8 trample  9 mower  7 tone\n"
    "      TAB camera (orbit: drag + wheel; walk: WASD, Q/E, shift, drag to look)\n"
    "      B benchmark   R respawn   space pause   F2 HUD: simple, details, off   F1 this help\n"
    "      Y compare classic skinning | VAT   T find both counts at a 16.7 ms CPU budget\n"
    "      G paint minigun (click locks the pointer, hold LMB to fire, WASD, E/Q up/down, R respawns\n"
    "        the fallen where they fell, Esc frees the pointer; lock refused: LMB fires at the cross)\n";

/* The plain words, then with `hud` at details every figure, then F1's key list. */
static void write_status(demo_app *app)
{
    write_details(app);
    text_out t = {app->status, sizeof app->status, 0};
    write_plain(app, &t);
    app->plain_length = t.n;
    if (app->settings[DEMO_HUD] > 1.5 && app->renderer_line[0]) /* the plain words' panel is full */
        put(&t, "\n%s", app->renderer_line);
    if (app->settings[DEMO_HUD] > 1.5)
        put(&t, "\n%s", app->details);
    if (app->help)
        put(&t, "%s", help_text);
}

static void release_msaa(demo_app *app)
{
    glDeleteFramebuffers(1, &app->msaa_fbo);
    GLuint rb[2] = {app->msaa_color, app->msaa_depth};
    glDeleteRenderbuffers(2, rb);
    app->msaa_fbo = app->msaa_color = app->msaa_depth = 0;
    app->msaa_samples = app->msaa_width = app->msaa_height = 0;
}

/* The multisampled target for `samples` at this size: made (and checked: a resize may ask the
 * driver) only when the size or the setting changes. */
static bool ensure_msaa(demo_app *app, int samples, int width, int height)
{
    if (app->msaa_fbo && app->msaa_samples == samples && app->msaa_width == width && app->msaa_height == height)
        return true;
    release_msaa(app);
    glGenRenderbuffers(1, &app->msaa_color);
    glBindRenderbuffer(GL_RENDERBUFFER, app->msaa_color);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
    glGenRenderbuffers(1, &app->msaa_depth);
    glBindRenderbuffer(GL_RENDERBUFFER, app->msaa_depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, width, height);
    glGenFramebuffers(1, &app->msaa_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, app->msaa_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, app->msaa_color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, app->msaa_depth);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    crowd_error err = {0};
    if (status != GL_FRAMEBUFFER_COMPLETE || crowd_gl_check("MSAA target", &err) != CROWD_OK) {
        snprintf(app->error, sizeof app->error, "%dx MSAA unavailable (0x%04x %s): drawing without", samples,
                 (unsigned)status, err.message);
        release_msaa(app);
        glBindFramebuffer(GL_FRAMEBUFFER, app->desc.framebuffer);
        return false;
    }
    app->msaa_samples = samples;
    app->msaa_width = width;
    app->msaa_height = height;
    return true;
}

/* The motion view is on and has its program (the main crowd's renderer writes velocity then). */
static bool motion_on(const demo_app *app)
{
    return app->motion && app->settings[DEMO_MOTION] > 0.5;
}

/* Binds where the scene is drawn (the MSAA target or desc.framebuffer) and tells the renderer when
 * that changes, so the shadow pass returns there without asking the driver. */
static GLuint bind_scene_target(demo_app *app, int width, int height)
{
    static const int samples_of[3] = {0, 2, 4};
    int samples = samples_of[(int)app->settings[DEMO_MSAA] % 3];
    if (samples > app->max_samples)
        samples = app->max_samples >= 2 ? app->max_samples : 0;
    if (samples && !ensure_msaa(app, samples, width, height)) {
        app->settings[DEMO_MSAA] = 0;
        samples = 0;
    }
    if (!samples && app->msaa_fbo)
        release_msaa(app);
    GLuint fbo = samples ? app->msaa_fbo : app->desc.framebuffer;
    GLuint motion = motion_on(app) ? demo_motion_begin(app->motion, width, height) : 0;
    if (motion) { /* the motion view draws single-sampled into its own target */
        fbo = motion;
    } else if (motion_on(app)) {
        app->settings[DEMO_MOTION] = 0;
        snprintf(app->error, sizeof app->error, "motion_vectors: this context cannot render to an RG16F target");
    }
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    if (app->renderer &&
        (!app->target_valid || app->target_fbo != fbo || app->target_width != width || app->target_height != height)) {
        crowd_error err = {0};
        if (crowd_gl_set_target(app->renderer, fbo, 0, 0, width, height, &err) != CROWD_OK) {
            fprintf(stderr, "crowdbake: %s\n", err.message); /* the console: the smoke test fails on it */
            app->gl_errors++;
        }
        app->target_valid = true;
        app->target_fbo = fbo;
        app->target_width = width;
        app->target_height = height;
    }
    return fbo;
}

/* MSAA on: resolve into desc.framebuffer, where the HUD then draws. */
static void present(demo_app *app, GLuint scene_fbo, int width, int height)
{
    if (motion_on(app)) {
        demo_motion_present(app->motion, app->desc.framebuffer, width, height);
        return;
    }
    if (scene_fbo == app->desc.framebuffer)
        return;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, scene_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, app->desc.framebuffer);
    glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, app->desc.framebuffer);
}

static void debug_check(demo_app *app, crowd_result result, const char *where)
{
    if (!app->desc.gl_debug)
        return;
    crowd_error err = {0};
    if (result != CROWD_OK) {
        fprintf(stderr, "crowdbake: %s: %s\n", where, crowd_gl_last_error(app->renderer));
        app->gl_errors++;
    } else if (crowd_gl_check(where, &err) != CROWD_OK) {
        fprintf(stderr, "crowdbake: %s\n", err.message);
        app->gl_errors++;
    }
}

/* The HUD's glyphs, and compare mode's titles (a colour of their own, which tests look for). */
static const float hud_white[3] = {0.95f, 0.96f, 0.9f}, title_amber[3] = {1.0f, 0.78f, 0.25f};
#define TITLE_SCALE 3.0f   /* compare mode's titles: three times the HUD's glyphs where a half has room */
#define CAPTION_SCALE 1.5f /* the line under each title */

/* The largest scale up to `most` at which `text` fits `room` pixels; below `least` the text breaks
 * after its first ": " or ", " instead (once), so that it stays large on a narrow half. */
static float fit(char *text, float room, float most, float least)
{
    float w = demo_hud_text_width(text), scale = w > 0.0f && room / w < most ? room / w : most;
    char *at = strstr(text, ": ");
    at = at ? at : strstr(text, ", ");
    if (scale >= least || !at)
        return scale;
    at[1] = '\n';
    w = demo_hud_text_width(text);
    return w > 0.0f && room / w < most ? room / w : most;
}

/* Over each half of compare mode, what it shows and what it costs, large; returns the pixels the
 * titles take from the top. */
static int draw_compare_titles(demo_app *app, int width, int height)
{
    int left = width / 2, bottom = 0;
    for (int h = 0; h < 2; h++) {
        float room = 0.9f * (float)(h ? width - left : left), centre = h ? left + 0.5f * (width - left) : 0.5f * left;
        char title[96], caption[128];
        snprintf(title, sizeof title, "%s", demo_compare_title(app->compare, h));
        snprintf(caption, sizeof caption, "%s", demo_compare_caption(app->compare, h));
        demo_hud_style style = {centre, 12.0f, fit(title, room, TITLE_SCALE, 2.0f), true, {0}};
        memcpy(style.color, title_amber, sizeof style.color);
        int w, th, ch;
        demo_hud_draw(app->hud, title, &style, width, height, &w, &th);
        demo_hud_style under = {centre, 12.0f + (float)th, fit(caption, room, CAPTION_SCALE, 1.0f), true, {0}};
        memcpy(under.color, hud_white, sizeof under.color);
        demo_hud_draw(app->hud, caption, &under, width, height, &w, &ch);
        bottom = bottom > th + ch + 12 ? bottom : th + ch + 12;
    }
    return bottom;
}

/* The plain words at PLAIN_SCALE where the window has room for them beside the page's panel, every
 * figure (and F1's keys) at 1 under them: one reads at a glance, the other is there to be studied. */
#define PLAIN_SCALE 1.5f
#define PLAIN_SCALE_WIDTH 1200

static void draw_hud(demo_app *app, int width, int height)
{
    write_status(app);
    app->hud_width = app->hud_height = 0;
    if (app->settings[DEMO_HUD] < 0.5 && !app->help)
        return;
    int top = app->compare ? draw_compare_titles(app, width, height) + 8 : 0, w = 0, h = 0;
    demo_hud_style style = {8.0f, 8.0f + (float)top, width >= PLAIN_SCALE_WIDTH ? PLAIN_SCALE : 1.0f, false, {0}};
    memcpy(style.color, hud_white, sizeof style.color);
    char *rest = app->status + app->plain_length, kept = *rest;
    *rest = '\0';
    demo_hud_draw(app->hud, app->status, &style, width, height, &app->hud_width, &app->hud_height);
    *rest = kept;
    rest += *rest == '\n';
    if (!*rest)
        return;
    style.y += (float)app->hud_height, style.scale = 1.0f;
    demo_hud_draw(app->hud, rest, &style, width, height, &w, &h);
    app->hud_width = app->hud_width > w ? app->hud_width : w;
    app->hud_height += h;
}

/* After a frame, for the benchmark: what was drawn, the shadow pass's draws and triangles included. */
static void bench_record(demo_app *app, double seconds, double main_ms, uint32_t submitted, uint32_t draws,
                         uint64_t triangles)
{
    bool benchmarking = demo_bench_running(&app->bench);
    demo_bench_record(&app->bench, app->last_frame_ms > 0 ? app->last_frame_ms : seconds * 1e3, main_ms, submitted,
                      draws, triangles);
    if (benchmarking && !demo_bench_running(&app->bench)) /* just finished: back to the user's crowd */
        demo_set(app, DEMO_COUNT, app->bench.restore_count);
}

void demo_frame(demo_app *app, double seconds, int width, int height, const demo_input *input)
{
    static const demo_input still = {{0, 0, 0}, false, {0, 0}, 0, false};
    if (!input)
        input = &still;
    double entry = now_ms();
    if (app->last_entry > 0.0) { /* the HUD's frame time: the wall clock, never the scripted step */
        double ms = entry - app->last_entry;
        app->last_frame_ms = ms;
        app->frame_ms = app->frame_ms > 0.0 ? app->frame_ms * 0.9 + ms * 0.1 : ms;
        app->fps = 1e3 / app->frame_ms;
        demo_grass_record_frame(app->grass, ms);
        if (app->settings[DEMO_AUTO_QUALITY] > 0.5 && demo_quality_ladder_record(&app->quality, ms))
            follow_quality(app);
    }
    app->last_entry = entry;
    bool gun = app->gun && app->settings[DEMO_GUN] > 0.5 && !app->compare;
    demo_input gun_input;
    if (gun) { /* strafing runs need more than a stroll */
        gun_input = *input;
        gun_input.fast = true;
        input = &gun_input;
    }
    GLuint scene_fbo = bind_scene_target(app, width, height);
    glViewport(0, 0, width, height);
    float sky[3];
    showcase_scene_sky(sky);
    glClearColor(sky[0], sky[1], sky[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (!app->crowd) {
        present(app, scene_fbo, width, height);
        draw_hud(app, width, height);
        return;
    }
    demo_bench_step(&app->bench, app, seconds);
    /* the simulation's step is clamped so a long frame cannot teleport the crowd */
    float dt = seconds > 0.0 ? (float)(seconds < 0.05 ? seconds : 0.05) : 0.0f;
    demo_camera_update(&app->camera, input, dt, WORLD_SIZE);
    if (app->settings[DEMO_PAUSED] > 0.5)
        dt = 0.0f;
    demo_camera_matrices(&app->camera, (float)width / (float)(height ? height : 1), app->scene.view,
                         app->scene.projection);
    app->scene.output = app->settings[DEMO_TONE] > 0.5 ? CROWD_GL_OUTPUT_ACES_SRGB : CROWD_GL_OUTPUT_GAMMA;
    app->scene.far_shadow = app->settings[DEMO_FAR_SHADOW] > 0.5 ? CROWD_GL_FAR_SHADOW_BLOB : CROWD_GL_FAR_SHADOW_NONE;
    if (app->compare) { /* both halves are compare.c's; the main crowd waits */
        app->scene.shadows = app->settings[DEMO_SHADOWS] > 0.5;
        showcase_stage_show_ground(app->stage, true); /* no grass here (the HUD says so): the plain ground */
        demo_compare_frame(app->compare, dt, &app->camera, &app->scene, scene_fbo, width, height);
        present(app, scene_fbo, width, height);
        app->frames++;
        draw_hud(app, width, height);
        app->last_main_ms = now_ms() - entry;
        app->main_ms = app->main_ms > 0.0 ? app->main_ms * 0.9 + app->last_main_ms * 0.1 : app->last_main_ms;
        return;
    }

    if (app->menagerie) { /* every kind is menagerie.c's; the main crowd waits */
        app->scene.shadows = app->settings[DEMO_SHADOWS] > 0.5;
        double t_m = now_ms();
        bool grass_on = app->settings[DEMO_GRASS] > 0.5;
        demo_grass_ground(app->grass, app->stage, grass_on);
        demo_menagerie_frame(app->menagerie, dt, &app->camera, &app->scene, scene_fbo, width, height);
        app->grass_time += seconds > 0.0 && app->settings[DEMO_PAUSED] < 0.5 ? seconds : 0.0;
        demo_grass_frame(app->grass, app->stage, demo_menagerie_ground_renderer(app->menagerie), &app->scene, grass_on,
                         app->grass_time, (float)app->settings[DEMO_GRASS_BUDGET],
                         (float)app->settings[DEMO_GRASS_DISTANCE], (float)app->settings[DEMO_WIND]);
        demo_menagerie_far_shadows(app->menagerie, &app->scene); /* on the ground, stage's or field's */
        showcase_stage_draw_sky(app->stage, &app->scene);
        present(app, scene_fbo, width, height);
        double cpu = now_ms() - t_m;
        app->cpu_ms = app->frames ? app->cpu_ms * 0.9 + cpu * 0.1 : cpu;
        app->frames++;
        draw_hud(app, width, height);
        app->last_main_ms = now_ms() - entry;
        app->main_ms = app->main_ms > 0.0 ? app->main_ms * 0.9 + app->last_main_ms * 0.1 : app->last_main_ms;
        demo_menagerie_totals t = demo_menagerie_get_totals(app->menagerie);
        bench_record(app, seconds, app->last_main_ms, t.submitted, t.draws + t.shadow_draws,
                     t.triangles + t.shadow_triangles);
        return;
    }

    if (app->gun) { /* rounds from this frame's eye against the last update's snapshot, before the step */
        float forward[3];
        for (int k = 0; k < 3; k++)
            forward[k] = app->camera.target[k] - app->camera.eye[k];
        demo_gun_fire(app->gun, gun ? app->crowd : NULL, seconds, gun && input->fire, app->camera.eye, forward);
        glBindFramebuffer(GL_FRAMEBUFFER, scene_fbo); /* the splats went into the paint target */
        glViewport(0, 0, width, height);
    }
    double t0 = now_ms();
    crowd_sim_step(app->sim, dt);
    crowd_view view; /* who culls and the attachments' margin: the renderer's */
    crowd_gl_view(app->renderer, app->scene.view, app->scene.projection, (float)height, &view);
    app->frame = crowd_update(app->crowd, dt, &view);
    demo_gun_after_update(app->gun, app->crowd, gun);
    crowd_error upload_error = {0};
    if (crowd_gl_upload(app->renderer, app->frame, &upload_error) != CROWD_OK) {
        snprintf(app->error, sizeof app->error, "upload: %.200s", upload_error.message);
        app->gl_errors++;
    }
    bool grass = app->settings[DEMO_GRASS] > 0.5;
    demo_grass_ground(app->grass, app->stage, grass);
    app->scene.shadows = app->settings[DEMO_SHADOWS] > 0.5;
    float light[16];
    float centre[3], radius;
    demo_camera_shadow_focus(&app->camera, centre, &radius);
    const float focus[2] = {centre[0], centre[2]};
    float impacts[2 * 16];
    uint32_t impact_count = demo_gun_take_impacts(app->gun, impacts, 16);
    demo_grass_fields(app->grass, app->renderer, &app->scene, grass, app->frame, dt, focus,
                      app->settings[DEMO_TRAMPLE] > 0.5, app->settings[DEMO_MOWER] > 0.5, impacts, impact_count,
                      demo_gun_paint_texture(app->gun), WORLD_SIZE);
    if (app->scene.shadows) {
        crowd_gl_fit_shadow(app->renderer, app->scene.sun_direction, centre, radius, light);
    }
    bool shadow_pass = false;
    if (app->scene.shadows) {
        bool moved = dt > 0.0f || !app->shadow_valid || memcmp(light, app->shadow_light, sizeof light);
        app->shadow_wait += seconds > 0.0 ? seconds : 0.0;
        shadow_pass = moved && (!app->shadow_valid || app->shadow_wait >= 1.0 / 30.0 - 1e-4);
        app->shadow_frames++;
    } else {
        app->shadow_valid = false;
    }
    crowd_gl_cull(app->renderer, app->frame, &view, shadow_pass ? light : NULL); /* (the GPU path's; else nothing) */
    if (shadow_pass) {
        debug_check(app, crowd_gl_render_shadows(app->renderer, app->frame, light), "shadow pass");
        showcase_stage_render_shadows(app->stage, app->renderer);
        memcpy(app->shadow_light, light, sizeof light);
        app->shadow_valid = true;
        app->shadow_wait = 0.0;
        app->shadow_passes++;
    }
    /* the minigun's floor paint lies on the ground (or on the grass, which samples it itself) */
    showcase_stage_set_ground_paint(app->stage, demo_gun_paint_texture(app->gun), WORLD_SIZE);
    if (motion_on(app))
        demo_motion_crowd_begin(app->motion);
    debug_check(app, crowd_gl_draw(app->renderer, app->frame, &app->scene), "colour pass");
    if (motion_on(app))
        demo_motion_crowd_done(app->motion);
    showcase_stage_draw(app->stage, app->renderer, &app->scene); /* after the crowd: hidden ground fails early */
    /* paused: the wind stands still too */
    app->grass_time += seconds > 0.0 && app->settings[DEMO_PAUSED] < 0.5 ? seconds : 0.0;
    demo_grass_frame(app->grass, app->stage, app->renderer, &app->scene, grass, app->grass_time,
                     (float)app->settings[DEMO_GRASS_BUDGET], (float)app->settings[DEMO_GRASS_DISTANCE],
                     (float)app->settings[DEMO_WIND]);
    crowd_gl_draw_far_shadows(app->renderer, app->frame, &app->scene); /* onto whichever ground drew */
    /* the sky behind everything (fog at the horizon, so the world shows no edge), drawn last of the
       opaque passes: it shades only the pixels left uncovered (a full-screen pass on SwiftShader) */
    showcase_stage_draw_sky(app->stage, &app->scene);
    if (app->gun) { /* droplets and tracers over the scene (the floor paint is in the ground's pass) */
        glBindFramebuffer(GL_FRAMEBUFFER, scene_fbo);
        glViewport(0, 0, width, height);
        demo_gun_draw(app->gun, app->scene.view, app->scene.projection, width, height, gun);
    }
    present(app, scene_fbo, width, height);
    double cpu = now_ms() - t0;
    app->cpu_ms = app->frames ? app->cpu_ms * 0.9 + cpu * 0.1 : cpu;
    /* O(submitted): sampled, with the submitted count of the same frame so the two always agree; not
       on the GPU path, whose own per-instance test is what it submits (no CPU work per instance) */
    if (crowd_gl_get_path(app->renderer) != CROWD_GL_PATH_GPU && (app->sample_now || app->frames % 15 == 0)) {
        app->rasterised = crowd_count_visible(app->crowd, &view);
        app->sampled_submitted = app->frame->stats.submitted;
        app->sample_now = false;
    }
    app->frames++;
    draw_hud(app, width, height);
    debug_check(app, CROWD_OK, "HUD");
    double main_ms = now_ms() - entry;
    app->last_main_ms = main_ms;
    app->main_ms = app->main_ms > 0.0 ? app->main_ms * 0.9 + main_ms * 0.1 : main_ms;
    const crowd_gl_stats *gs = crowd_gl_get_stats(app->renderer);
    const crowd_gl_gpu_stats *late = demo_late_gpu_stats(app->renderer);
    bench_record(app, seconds, main_ms, late ? demo_gpu_submitted(late) : app->frame->stats.submitted,
                 gs->draws + gs->shadow_draws, gs->triangles + gs->shadow_triangles);
}

void demo_get_stats(const demo_app *app, demo_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!app)
        return;
    const crowd_gl_stats *gs = app->renderer ? crowd_gl_get_stats(app->renderer) : NULL;
    out->frame_ms = app->frame_ms;
    out->main_ms = app->main_ms;
    out->last_frame_ms = app->last_frame_ms;
    out->last_main_ms = app->last_main_ms;
    out->gpu_shadow_ms = gs && gs->timers ? gs->gpu_shadow_ms : -1.0;
    out->gpu_color_ms = gs && gs->timers ? gs->gpu_color_ms : -1.0;
    out->instances = app->menagerie ? demo_menagerie_instances(app->menagerie)
                     : app->frame   ? app->frame->stats.simulated
                                    : 0;
    out->submitted = app->sampled_submitted;
    out->rasterised = app->rasterised;
    out->gpu_frames_late = -1;
    bool main_crowd = app->renderer && !app->compare && !app->menagerie;
    const crowd_gl_gpu_stats *late = main_crowd ? demo_late_gpu_stats(app->renderer) : NULL;
    if (main_crowd && crowd_gl_get_path(app->renderer) == CROWD_GL_PATH_GPU) { /* the GPU's counts, late */
        out->submitted = late ? demo_gpu_submitted(late) : 0;
        out->rasterised = 0; /* not sampled: no CPU work per instance on this path */
    }
    if (late) {
        out->gpu_frames_late = (int32_t)late->frames_late;
        out->shadow_casters = app->settings[DEMO_SHADOWS] > 0.5 ? late->shadow_casters : 0;
    }
    if (gs) {
        out->draws = gs->draws;
        out->shadow_draws = gs->shadow_draws;
        out->triangles = gs->triangles;
        out->shadow_triangles = gs->shadow_triangles;
    }
    if (app->menagerie) { /* the kinds' renderers, not the waiting main crowd's */
        demo_menagerie_totals t = demo_menagerie_get_totals(app->menagerie);
        out->submitted = t.submitted;
        out->rasterised = 0; /* not sampled per kind */
        out->draws = t.draws;
        out->shadow_draws = t.shadow_draws;
        out->triangles = t.triangles;
        out->shadow_triangles = t.shadow_triangles;
    }
    if (app->compare) /* the halves, not the waiting main crowd */
        for (int h = 0; h < 2; h++) {
            double cpu;
            demo_compare_half_stats(app->compare, h, &out->compare_instances[h], &out->compare_draws[h], &cpu);
        }
    out->msaa = app->msaa_fbo ? (uint32_t)app->msaa_samples : 0; /* what is drawn with, not what was asked */
    out->hud_width = app->hud_width;
    out->hud_height = app->hud_height;
    out->frames = app->frames;
    out->gl_errors = app->gl_errors;
}

const char *demo_stats_json(const demo_app *app)
{
    static char json[1024];
    demo_stats st;
    demo_get_stats(app, &st);
    snprintf(json, sizeof json,
             "{\"frame_ms\":%.3f,\"main_ms\":%.3f,\"last_frame_ms\":%.3f,\"last_main_ms\":%.3f,"
             "\"main_fraction\":%.4f,\"gpu_shadow_ms\":%.3f,\"gpu_color_ms\":%.3f,\"instances\":%u,"
             "\"submitted\":%u,\"rasterised\":%u,\"draws\":%u,\"shadow_draws\":%u,\"triangles\":%llu,"
             "\"shadow_triangles\":%llu,\"msaa\":%u,\"hud_width\":%d,\"hud_height\":%d,\"frames\":%u,"
             "\"gl_errors\":%d,\"compare\":%d,\"classic_instances\":%u,\"classic_draws\":%u,"
             "\"vat_instances\":%u,\"vat_draws\":%u,\"gpu_frames_late\":%d,\"shadow_casters\":%u,"
             "\"renderer\":\"%s\"}",
             st.frame_ms, st.main_ms, st.last_frame_ms, st.last_main_ms,
             st.frame_ms > 0 ? st.main_ms / st.frame_ms : 0.0, st.gpu_shadow_ms, st.gpu_color_ms, st.instances,
             st.submitted, st.rasterised, st.draws, st.shadow_draws, (unsigned long long)st.triangles,
             (unsigned long long)st.shadow_triangles, st.msaa, st.hud_width, st.hud_height, st.frames, st.gl_errors,
             app && app->compare ? 1 : 0, st.compare_instances[0], st.compare_draws[0], st.compare_instances[1],
             st.compare_draws[1], st.gpu_frames_late, st.shadow_casters, app ? app->renderer_line : "");
    return json;
}

void demo_set_renderer_line(demo_app *app, const char *line)
{
    if (app)
        snprintf(app->renderer_line, sizeof app->renderer_line, "%s", line ? line : "");
}

const char *demo_status(const demo_app *app)
{
    return app ? app->status : "";
}

const char *demo_status_details(const demo_app *app)
{
    return app ? app->details : "";
}

const crowd_frame *demo_current_frame(const demo_app *app)
{
    return app ? app->frame : NULL;
}

const crowd_gl_renderer *demo_renderer(const demo_app *app)
{
    return app ? app->renderer : NULL;
}

double demo_cpu_ms(const demo_app *app)
{
    return app ? app->cpu_ms : 0.0;
}

const char *demo_last_error(const demo_app *app)
{
    return app ? app->error : "";
}

/* ---- benchmark hooks (demo/bench.c drives them) ------------------------------------------------ */

void demo_start_benchmark_plan(demo_app *app, const uint32_t *counts, uint32_t count_n, uint32_t warmup,
                               uint32_t measure)
{
    if (!app || !app->crowd)
        return;
    if (app->compare) /* the halves keep their own counts: the benchmark measures the crowd */
        demo_set(app, DEMO_COMPARE, 0);
    demo_bench_plan plan = {{0}, warmup, measure}, *p = NULL;
    for (uint32_t i = 0; counts && i < count_n && i < DEMO_BENCH_COUNTS; i++)
        plan.counts[i] = counts[i];
    if (counts && count_n)
        p = &plan;
    char label[sizeof app->bench.renderer];
    snprintf(label, sizeof label, "%.72s%s", app->gl_renderer, app->menagerie ? ", the menagerie" : "");
    demo_bench_start(&app->bench, app->settings[DEMO_COUNT], label, p);
}

void demo_start_benchmark(demo_app *app)
{
    demo_start_benchmark_plan(app, NULL, 0, 0, 0);
}

bool demo_benchmark_running(const demo_app *app)
{
    return app && demo_bench_running(&app->bench);
}

const char *demo_benchmark_report(const demo_app *app)
{
    return app ? demo_bench_report(&app->bench) : "";
}

void demo_look_at(demo_app *app, const float eye[3], const float target[3])
{
    if (app->gun_left_camera < 0)
        app->gun_left_camera = (int)app->camera.mode;
    demo_camera_look_at(&app->camera, eye, target);
    app->settings[DEMO_CAMERA] = CAMERA_WALK;
}

void demo_app_pose_camera(demo_app *app, float yaw, float pitch, float distance)
{
    app->camera.mode = CAMERA_ORBIT;
    app->settings[DEMO_CAMERA] = 0;
    app->camera.orbit_yaw = yaw;
    app->camera.orbit_pitch = pitch;
    app->camera.orbit_distance = distance;
}

const crowd_asset *demo_active_asset(const demo_app *app)
{
    return app && app->active < app->asset_count ? &app->assets[app->active].asset : NULL;
}

double demo_measure_update(demo_app *app, uint32_t count, uint32_t frames)
{
    if (!app || !app->crowd || !frames)
        return NAN;
    double previous = app->settings[DEMO_COUNT];
    demo_set(app, DEMO_COUNT, count);
    crowd_view view = {.viewport_height = 720};
    demo_camera_matrices(&app->camera, 16.0f / 9.0f, view.view, view.projection);
    double *t = malloc(sizeof(double) * frames);
    if (!t)
        return NAN;
    for (uint32_t f = 0; f < frames + 15; f++) {
        double t0 = now_ms();
        crowd_sim_step(app->sim, 1.0f / 60.0f);
        crowd_update(app->crowd, 1.0f / 60.0f, &view);
        if (f >= 15)
            t[f - 15] = now_ms() - t0;
    }
    double median = demo_bench_median(t, frames);
    free(t);
    demo_set(app, DEMO_COUNT, previous);
    return median;
}
