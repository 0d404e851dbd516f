/* The demo, independent of windows: one crowd on the showcase scene, its settings, cameras, HUD
 * and scripted benchmark. main_glfw.c drives it natively and in the browser, main_headless.c
 * drives it through EGL without a display. Every call expects the GL context to be current. */
#ifndef CROWD_DEMO_APP_H
#define CROWD_DEMO_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "crowdbake/asset.h"
#include "crowdbake/base.h"

struct crowd_gl_renderer;
struct crowd_gl_gpu_stats;

typedef struct demo_app demo_app;

/* Settings, addressed by name from the web panel and by key from the native overlay. */
typedef enum demo_setting {
    DEMO_COUNT,           /* instances, 0..250000 */
    DEMO_CHUNK,           /* chunk size, metres, 4..420 (>= world: one draw) */
    DEMO_MODE,            /* 0 VAT, 1 bones */
    DEMO_CROSS_FADE,      /* 0/1 */
    DEMO_LOD_POLICY,      /* 0 distance, 1 screen coverage */
    DEMO_LOD_BIAS,        /* 0.25..4 */
    DEMO_VERTEX_BUDGET,   /* submitted indices, 0 = unlimited (screen coverage policy) */
    DEMO_SHADOWS,         /* 0/1 */
    DEMO_SHADOW_MAX_LOD,  /* 1..4: chunks past it cast no shadow */
    DEMO_FAR_POOL,        /* 0/1 */
    DEMO_STRIDE_MATCHING, /* 0/1: off plays clips at their authored rate (the skating baseline) */
    DEMO_SEPARATION,      /* 0/1 */
    DEMO_FOG,             /* exp2 density, 0..0.01 */
    DEMO_SCENARIO,        /* 0 wander, 1 stampede, 2 parade, 3 mill, 4 gather */
    DEMO_ASSET,           /* index into the loaded assets */
    DEMO_CAMERA,          /* 0 orbit, 1 walk, 2 tour */
    DEMO_HUD,             /* 0 off, 1 simple (plain words), 2 details (every figure too) */
    DEMO_PAUSED,          /* 0/1: simulation and animation stand still (the camera still moves) */
    DEMO_MSAA,            /* 0 off, 1 2x, 2 4x: the demo's own multisampled target, resolved by a blit */
    DEMO_PATH,            /* 0 auto, 1 cpu, 2 gpu: the renderer's crowd_gl_path */
    DEMO_COMPARE,         /* 0/1: classic skinning (left half) vs VAT (right half), demo/compare.c */
    DEMO_GRASS,           /* 0/1: the grass field as the ground (demo/grass_view.c) */
    DEMO_GRASS_BUDGET,    /* 0.05..1: the field's density multiplier */
    DEMO_GRASS_DISTANCE,  /* metres: no blade past this (the field's own 220 at most) */
    DEMO_AUTO_QUALITY,    /* 0/1: grass density and distance and the LOD bias follow the frame rate
                             (demo/quality_ladder.h); setting any of them by hand turns it off */
    DEMO_WIND,            /* 0..1 */
    DEMO_GUN,             /* 0/1: the paint minigun (demo/gun.c): walk camera, LMB fires, R respawns */
    DEMO_TRAMPLE,         /* 0/1: the crowd tramples the grass (crowd_grass_update_fields) */
    DEMO_MOWER,           /* 0/1: the mower cuts the grass under the camera's focus */
    DEMO_TONE,            /* 0 gamma 2.2, 1 ACES + sRGB (crowd_gl_scene.output), with the sky either way */
    DEMO_IMPOSTERS,       /* 0/1: cards past the last mesh level, for an asset with an atlas (demo/cards.c) */
    DEMO_CARD_DISTANCE,   /* metres the cards start at, 0..400; 0 = where a tile spans its pixels */
    DEMO_FAR_SHADOW,      /* 0 none, 1 blob: what cards and levels past shadow_max_lod cast (crowd_gl_far_shadow) */
    DEMO_MOTION, /* 0/1 ("motion_vectors"): the motion-vector debug view (crowd_gl_desc.velocity, demo/motion_view.c) */
    DEMO_SETTING_COUNT
} demo_setting;

typedef struct demo_setting_info {
    const char *name;  /* "count", "chunk", ... as the web panel and the URL use them */
    const char *label; /* for people */
    double min, max, step;
    const char *choices; /* "vat|bones" for enumerations, NULL for numbers and toggles */
    int key;             /* GLFW key that cycles or steps it on the native overlay */
} demo_setting_info;

const demo_setting_info *demo_setting_table(void);
int demo_setting_find(const char *name);

typedef struct demo_input {
    float move[3]; /* walk camera: right, up, forward, each -1..1 */
    bool fast;     /* move faster */
    float look[2]; /* mouse motion in pixels: yaw, pitch (walk), orbit (orbit) */
    float zoom;    /* wheel steps */
    bool fire;     /* gun mode: the trigger is held */
} demo_input;

typedef struct demo_desc {
    bool es;                /* GLES 3 / WebGL2 context (else desktop GL 3.3 core) */
    uint32_t capacity;      /* most instances ever shown; 0 = 250,000 */
    uint32_t initial_count; /* 0 = 20,000 */
    uint32_t framebuffer;   /* where frames end up (0 = the window's); single-sampled: MSAA is the demo's */
    bool gl_debug;          /* check GL errors after every pass of every frame (a round trip each) */
    bool gl_timers;         /* GPU time per pass through timer queries, where the context has them */
    int gl_upload;          /* a crowd_gl_upload_mode (0 = the renderer's default), for measuring */
    int gl_path;            /* the "path" setting's start: 0 auto, 1 cpu, 2 gpu */
    int grass_path;         /* a crowd_grass_path for the field (0 = AUTO: GPU on desktop GL 4.3+) */
    bool auto_quality;      /* auto_quality starts on, from the ladder's bottom on GLES, its top on
                               desktop GL */
} demo_desc;

crowd_result demo_create(const demo_desc *desc, demo_app **out, crowd_error *error);
void demo_destroy(demo_app *app);

/* Adds an asset (the bytes of a .crowd file, copied) under a display name; the first one added is
 * shown. Returns its index through `index`. */
crowd_result demo_add_asset(demo_app *app, const void *bytes, size_t size, const char *name, uint32_t *index,
                            crowd_error *error);

crowd_result demo_set(demo_app *app, demo_setting setting, double value);
double demo_get(const demo_app *app, demo_setting setting);

/* A key press on the native overlay (GLFW key codes): steps the setting bound to it, or runs an
 * action (B: benchmark, F1: toggle help). Returns whether it was used. */
bool demo_key(demo_app *app, int key, bool shift);

/* Advances the simulation by `seconds` (the wall-clock time since the last frame, or a scripted
 * step) and draws into desc.framebuffer (width x height pixels). The HUD's frame time is the wall
 * clock between calls, whatever `seconds` says. No GL query in release: errors are checked when the
 * size or MSAA changes, and every frame only with desc.gl_debug (then printed to stderr). */
void demo_frame(demo_app *app, double seconds, int width, int height, const demo_input *input);

/* The walk camera, where it is, turned to instance `index`'s chest (scripted gun bursts); false
 * when there is no such instance. */
bool demo_aim_at_instance(demo_app *app, uint32_t index);

/* Puts the walk camera at `eye` looking at `target` (scripted shots, tests). */
void demo_look_at(demo_app *app, const float eye[3], const float target[3]);

/* Starts the scripted benchmark (fixed camera path, fixed counts); the report prints to stdout
 * when done and stays in the HUD. */
void demo_start_benchmark(demo_app *app);
/* The same with its own counts (count_n of them, at most 4), warm-up and measured frames (1..90):
 * a short run for tests. It measures what is drawn: the crowd, or the menagerie's kinds. In
 * compare mode both start by leaving it (the halves keep counts of their own). */
void demo_start_benchmark_plan(demo_app *app, const uint32_t *counts, uint32_t count_n, uint32_t warmup,
                               uint32_t measure);
bool demo_benchmark_running(const demo_app *app);
const char *demo_benchmark_report(const demo_app *app);

/* The asset the crowd shows now (NULL before one is loaded): what demo_measure_scene (scene_probe.h)
 * measures in the browser. */
const crowd_asset *demo_active_asset(const demo_app *app);

/* "auto" / "cpu" / "gpu" (the --path flag) -> the path setting's value 0 / 1 / 2; -1 for anything else. */
int demo_path_parse(const char *name);
/* The GPU path's own counts (what its pass compacted, read back a few frames late), or NULL on the
 * CPU path and before the first copy has been read: the HUD reports these on that path, where the
 * crowd makes no draw list. */
const struct crowd_gl_gpu_stats *demo_late_gpu_stats(const struct crowd_gl_renderer *renderer);
/* Instances the GPU path's colour pass drew: every level's partition, the cards' included. */
uint32_t demo_gpu_submitted(const struct crowd_gl_gpu_stats *late);

/* Median CPU cost of one simulation step + crowd update at `count` instances over `frames`
 * frames (no drawing): the figure the browser reports for wasm. Restores the previous count. */
double demo_measure_update(demo_app *app, uint32_t count, uint32_t frames);

/* The HUD's text (window.crowd.status()): plain words a visitor reads (frame time and fps, the
 * characters simulated and drawn, meshes and cards, what the grass and the shadows do, the keys
 * that matter now), then with the "hud" setting at details every figure of demo_status_details. */
const char *demo_status(const demo_app *app);
/* A line the HUD shows with hud = details (before the figures) and the stats carry as "renderer" (the web page: which
 * renderer draws and why; no quotes or backslashes, it stands in JSON). "" or NULL: none. */
void demo_set_renderer_line(demo_app *app, const char *line);
/* Every figure, whatever the HUD shows (window.crowd.details()): frame, main and GPU ms, live,
 * submitted, rasterised, draws, triangles, the LOD histogram and cards, the settings, the render
 * path, the grass field's counters, compare mode's and the gun's tallies. For tools and tests. */
const char *demo_status_details(const demo_app *app);

/* The last frame the crowd produced (NULL before the first), and the smoothed CPU ms per frame. */
const struct crowd_frame *demo_current_frame(const demo_app *app);
/* The main crowd's renderer (NULL without an asset): for tests that check the stats against it. */
const struct crowd_gl_renderer *demo_renderer(const demo_app *app);
double demo_cpu_ms(const demo_app *app);

/* What the HUD reports, all measured: frame = wall clock between demo_frame calls, main = the time
 * demo_frame itself takes (simulation, update, GL submission, HUD), GPU per pass from timer queries
 * (negative: unavailable). Smoothed over about ten frames; `last_*` are the last frame's. */
typedef struct demo_stats {
    double frame_ms, main_ms, last_frame_ms, last_main_ms;
    double gpu_shadow_ms, gpu_color_ms;
    uint32_t instances, submitted, rasterised; /* submitted and rasterised come from one frame */
    /* GPU path: submitted is the GPU's own count, gpu_frames_late passes old (-1: the CPU path,
     * or nothing read back yet), and rasterised is not sampled (0); shadow_casters is the last
     * shadow pass's */
    int32_t gpu_frames_late;
    uint32_t shadow_casters;
    uint32_t draws, shadow_draws;
    uint64_t triangles, shadow_triangles;
    uint32_t msaa;             /* samples: 0, 2, 4 */
    int hud_width, hud_height; /* the overlay's panel in pixels (0 when hidden) */
    uint32_t frames;
    int gl_errors; /* seen in debug mode */
    /* compare mode: each half's live instances and draws (shadow pass included), 0 classic, 1 VAT */
    uint32_t compare_instances[2], compare_draws[2];
} demo_stats;
void demo_get_stats(const demo_app *app, demo_stats *stats);
/* The same as JSON (window.crowd.stats()); a static buffer. */
const char *demo_stats_json(const demo_app *app);

/* Last error (asset switch failures and the like), "" when none. */
const char *demo_last_error(const demo_app *app);

#endif
