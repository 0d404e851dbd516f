/* The demo without a display: an EGL surfaceless context, a scripted run through every setting and
 * camera, a screenshot per step and the stats. What `make run` does on a machine without a display,
 * and the native smoke test. Exit status 1 on a GL error, a blank frame or a HUD that does not tell
 * the truth (rasterised above submitted, shadow draws with shadows off, a camera setting that does
 * not follow a look-at, a frame time that is not the wall clock, an overlay that is not compact, on
 * the GPU path a submitted count that is not the GPU's own late one or exceeds the live count).
 * The scripted step (1/30 s) drives the simulation only; the printed frame times are measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "crowdbake/gl.h"
#include "demo/app.h"
#include "demo/bench.h" /* demo_app_pose_camera */
#include "gl/gl_api.h"
#include "gl_context.h"
#include "tool_support.h"

#define COUNT_AS_GIVEN -1.0  /* a step value: back to --count */
#define LOOK_AT -2.0         /* a DEMO_CAMERA step value: demo_look_at (the walk camera must follow) */
#define ASSET_MENAGERIE -3.0 /* a DEMO_ASSET step value: past the loaded assets, every asset a kind */
#define GRASS_AS_GIVEN -4.0  /* a DEMO_GRASS_BUDGET step value: back to --grass-density */
#define HUD_MAX_WIDTH 640    /* the compact overlay, in pixels; 1200 px wide and more, clear of the page's */
#define PANEL_WIDTH 266      /* panel on the right instead (250 px and a margin) */
#define HUD_MAX_HEIGHT 120
#define HUD_MAX_HEIGHT_DETAILS 280 /* hud = details: the plain lines and every figure under them */

typedef struct step {
    const char *shot; /* screenshot name, NULL for none */
    demo_setting setting;
    double value;
} step;

/* Every toggle and every scenario and camera, each held for a moment. */
static const step script[] = {
    {"wander", DEMO_HUD, 1},
    {"hud_details", DEMO_HUD, 2},
    {NULL, DEMO_HUD, 1},
    {"walk", DEMO_CAMERA, 1},
    {"tour", DEMO_CAMERA, 2},
    {NULL, DEMO_CAMERA, 0},
    {"look_at", DEMO_CAMERA, LOOK_AT},
    {NULL, DEMO_CAMERA, 0},
    {"fewer", DEMO_COUNT, 300},
    {NULL, DEMO_COUNT, COUNT_AS_GIVEN},
    {"msaa_2x", DEMO_MSAA, 1},
    {"msaa_4x", DEMO_MSAA, 2},
    {NULL, DEMO_MSAA, 0},
    {"path_cpu", DEMO_PATH, 1},
    {"path_gpu", DEMO_PATH, 2},
    {NULL, DEMO_PATH, 0},
    {"stampede", DEMO_SCENARIO, 1},
    {"parade", DEMO_SCENARIO, 2},
    {"mill", DEMO_SCENARIO, 3},
    {"gather", DEMO_SCENARIO, 4},
    {NULL, DEMO_SCENARIO, 0},
    {"bones", DEMO_MODE, 1},
    {NULL, DEMO_MODE, 0},
    {"no_cross_fade", DEMO_CROSS_FADE, 0},
    {NULL, DEMO_CROSS_FADE, 1},
    {"coverage_lod", DEMO_LOD_POLICY, 1},
    {"vertex_budget", DEMO_VERTEX_BUDGET, 300000},
    {NULL, DEMO_VERTEX_BUDGET, 0},
    {NULL, DEMO_LOD_POLICY, 0},
    {"lod_bias", DEMO_LOD_BIAS, 2.5},
    {NULL, DEMO_LOD_BIAS, 1},
    {"no_shadows", DEMO_SHADOWS, 0},
    {NULL, DEMO_SHADOWS, 1},
    {"shadow_max_lod", DEMO_SHADOW_MAX_LOD, 4},
    {"no_far_pool", DEMO_FAR_POOL, 0},
    {NULL, DEMO_FAR_POOL, 1},
    {"no_stride_matching", DEMO_STRIDE_MATCHING, 0},
    {NULL, DEMO_STRIDE_MATCHING, 1},
    {"no_separation", DEMO_SEPARATION, 0},
    {NULL, DEMO_SEPARATION, 1},
    {"fog", DEMO_FOG, 0.004},
    {NULL, DEMO_FOG, 0.0011},
    {"one_chunk", DEMO_CHUNK, 420},
    {NULL, DEMO_CHUNK, 24},
    {"asset", DEMO_ASSET, 1},
    {"menagerie", DEMO_ASSET, ASSET_MENAGERIE},
    {NULL, DEMO_ASSET, 0},
    {"paused", DEMO_PAUSED, 1},
    {NULL, DEMO_PAUSED, 0},
    {"motion_vectors", DEMO_MOTION, 1},
    {NULL, DEMO_MOTION, 0},
    {"compare", DEMO_COMPARE, 1},
    {NULL, DEMO_COMPARE, 0},
    {"no_grass", DEMO_GRASS, 0},
    {NULL, DEMO_GRASS, 1},
    {"grass_sparse", DEMO_GRASS_BUDGET, 0.1},
    {NULL, DEMO_GRASS_BUDGET, GRASS_AS_GIVEN},
    {"no_wind", DEMO_WIND, 0},
    {NULL, DEMO_WIND, 0.4},
};

static double wall_ms(void)
{
    return tool_now_ms(); /* monotonic (tool_support.c) */
}

/* A count as the plain HUD writes it ("20,000"), read from `text`; false when there is none. */
static bool grouped_count(const char *text, unsigned *out)
{
    unsigned v = 0;
    int digits = 0;
    for (; *text == ',' || (*text >= '0' && *text <= '9'); text++)
        if (*text != ',')
            v = v * 10 + (unsigned)(*text - '0'), digits++;
    *out = v;
    return digits > 0;
}

/* The plain HUD (hud = simple, what a visitor meets): words, not jargon, and counts that agree with
 * the stats. Returns a complaint or NULL. */
static const char *plain_lies(demo_app *app, const demo_stats *s, char *why, size_t size)
{
    const char *status = demo_status(app), *people = strstr(status, " characters simulated, ");
    unsigned simulated = 0, drawn = 0, meshes = 0, cards = 0;
    const char *first = people; /* the count before the words */
    while (first && first > status && (first[-1] == ',' || (first[-1] >= '0' && first[-1] <= '9')))
        first--;
    bool main_crowd = people != NULL; /* compare mode and the menagerie have lines of their own */
    if (strncmp(status, "frame ", 6) || !strstr(status, " fps)"))
        snprintf(why, size, "plain HUD: no frame time and fps first: %.60s", status);
    else if (demo_get(app, DEMO_HUD) < 1.5 && (strstr(status, "submitted") || strstr(status, "LOD ")))
        snprintf(why, size, "plain HUD: jargon (submitted, LOD) in the simple HUD");
    else if (!strstr(status, "grass ") ||
             !strstr(status, demo_get(app, DEMO_SHADOWS) > 0.5 ? "sun shadows" : "no shadows"))
        snprintf(why, size, "plain HUD: the grass or the shadows not in words");
    else if (!strstr(status, "F2 ") || !strstr(status, demo_get(app, DEMO_GUN) > 0.5 ? "left button" : "F1 all keys"))
        snprintf(why, size, "plain HUD: no line of keys");
    else if (main_crowd && (!grouped_count(first, &simulated) || simulated != s->instances))
        snprintf(why, size, "plain HUD: %u characters simulated, the stats say %u", simulated, s->instances);
    else if (main_crowd && grouped_count(people + 23, &drawn) && strstr(people, " meshes + ") &&
             (!grouped_count(strchr(people, '(') + 1, &meshes) || !grouped_count(strstr(people, " + ") + 3, &cards) ||
              meshes + cards != drawn || drawn > simulated))
        snprintf(why, size, "plain HUD: %u drawn = %u meshes + %u cards of %u", drawn, meshes, cards, simulated);
    else
        return NULL;
    return why;
}

static uint32_t gpu_steps_checked; /* steps whose submitted count was checked against the GPU's stats */

/* The HUD's claims after a step, against what the step did. Returns a complaint or NULL. */
static const char *hud_lies(demo_app *app, const step *st, int width, double measured_ms, double reported_ms, char *why,
                            size_t size)
{
    demo_stats s;
    demo_get_stats(app, &s);
    /* the GPU path reports what its own pass drew (read back late), not the per-chunk draw list */
    const crowd_gl_renderer *r = demo_renderer(app);
    uint32_t gpu_submitted = r ? demo_gpu_submitted(crowd_gl_get_gpu_stats(r)) : 0;
    gpu_steps_checked += s.gpu_frames_late >= 0;
    int max_height = demo_get(app, DEMO_HUD) > 1.5 ? HUD_MAX_HEIGHT_DETAILS : HUD_MAX_HEIGHT;
    int max_width = width >= 1200 ? width - PANEL_WIDTH : HUD_MAX_WIDTH;
    if (s.rasterised > s.submitted)
        snprintf(why, size, "rasterised %u > submitted %u", s.rasterised, s.submitted);
    else if (s.gpu_frames_late >= 0 && (s.submitted != gpu_submitted || s.submitted > s.instances))
        snprintf(why, size, "GPU path: submitted %u, the GPU's late stats %u, %u live", s.submitted, gpu_submitted,
                 s.instances);
    else if (demo_get(app, DEMO_SHADOWS) < 0.5 && (s.shadow_draws || s.shadow_triangles || s.shadow_casters))
        snprintf(why, size, "shadows off but %u shadow draws, %u casters", s.shadow_draws, s.shadow_casters);
    else if (st->value == LOOK_AT &&
             (demo_get(app, DEMO_CAMERA) != 1 || !strstr(demo_status_details(app), "camera walk")))
        snprintf(why, size, "look-at: camera setting %g, status without \"camera walk\"", demo_get(app, DEMO_CAMERA));
    else if (demo_get(app, DEMO_HUD) > 0.5 && (s.hud_width > max_width || s.hud_height > max_height))
        snprintf(why, size, "overlay %d x %d px (compact: <= %d x %d)", s.hud_width, s.hud_height, max_width,
                 max_height);
    else if (plain_lies(app, &s, why, size))
        return why;
    else if (!(reported_ms >= 0.9 * measured_ms - 0.5 && reported_ms <= 1.1 * measured_ms + 0.5))
        snprintf(why, size, "frame times sum to %.2f ms, the wall clock says %.2f ms", reported_ms, measured_ms);
    else if ((demo_get(app, DEMO_GRASS) > 0.5) !=
             (strstr(demo_status_details(app), "grass GPU") || strstr(demo_status_details(app), "grass CPU")))
        snprintf(why, size, "grass %s but the status says otherwise", demo_get(app, DEMO_GRASS) > 0.5 ? "on" : "off");
    else if (s.gl_errors)
        snprintf(why, size, "%d GL errors", s.gl_errors);
    else
        return NULL;
    return why;
}

/* Gun mode: a scripted burst from the seed's camera (trigger held for `frames` + 10 frames of 1/30 s
 * at 20 rounds a second, aimed at an instance each frame), then R. Fails when nothing is killed or
 * painted, or when the live count does not drop by the kills, or the respawn
 * does not bring back `count` instances. */
static int gun_burst(demo_app *app, tool_gl *gl, uint8_t *pixels, int width, int height, uint32_t frames,
                     uint32_t count, const char *out_dir)
{
    const float eye[3] = {28, 16, 44}, target[3] = {0, 0.9f, 0};
    demo_look_at(app, eye, target);
    if (demo_set(app, DEMO_GUN, 1) != CROWD_OK) {
        fprintf(stderr, "crowd-demo-headless: gun mode refused: %s\n", demo_last_error(app));
        return 1;
    }
    demo_input trigger = {.fire = true};
    for (uint32_t f = 0; f < frames + 10; f++) { /* at whoever holds index 0 now: a kill moves another there */
        demo_aim_at_instance(app, 0);
        demo_frame(app, 1.0 / 30.0, width, height, &trigger);
    }
    for (uint32_t f = 0; f < 45; f++) /* the last droplets land */
        demo_frame(app, 1.0 / 30.0, width, height, NULL);
    unsigned rounds = 0, kills = 0;
    unsigned long long splats = 0;
    const char *g = strstr(demo_status_details(app), "gun: ");
    if (!g || sscanf(g, "gun: %u rounds, %u kills, %llu splats", &rounds, &kills, &splats) != 3 || !kills || !splats) {
        fprintf(stderr, "crowd-demo-headless: gun: %u rounds, %u kills, %llu splats (status: %.80s)\n", rounds, kills,
                splats, g ? g : "no gun line");
        return 1;
    }
    demo_stats before;
    demo_get_stats(app, &before);
    tool_gl_read_rgb(gl, pixels);
    char path[512];
    crowd_error err = {0};
    snprintf(path, sizeof path, "%s/demo_gun.png", out_dir);
    if (tool_write_png(path, pixels, width, height, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-demo-headless: %s: %s\n", path, err.message);
        return 1;
    }
    demo_key(app, 'R', false);
    demo_frame(app, 1.0 / 30.0, width, height, NULL);
    demo_stats after;
    demo_get_stats(app, &after);
    printf("  %-20s %u rounds, %u kills (%u -> %u live), %llu splats; R: %u live\n", "gun", rounds, kills, count,
           before.instances, splats, after.instances);
    if (after.instances != count || before.instances != count - kills) {
        fprintf(stderr, "crowd-demo-headless: gun: %u kills left %u of %u live, respawn %u\n", kills, before.instances,
                count, after.instances);
        return 1;
    }
    demo_set(app, DEMO_GUN, 0);
    return 0;
}

/* The gun's running totals from the status (0, 0 before gun mode has been entered). */
static void gun_tally(demo_app *app, unsigned *rounds, unsigned *kills)
{
    const char *g = strstr(demo_status_details(app), "gun: ");
    *rounds = *kills = 0;
    if (g && sscanf(g, "gun: %u rounds, %u kills", rounds, kills) != 2)
        *rounds = *kills = 0;
}

/* Pixels of `now` that are vivid (a saturated colour: the beams' and the paint's rainbow hues)
 * and were not so in `before`. */
static unsigned vivid_new(const uint8_t *before, const uint8_t *now, size_t pixels)
{
    unsigned n = 0;
    for (size_t i = 0; i < 3 * pixels; i += 3) {
        const uint8_t *a = before + i, *b = now + i;
        int lo = b[0] < b[1] ? (b[0] < b[2] ? b[0] : b[2]) : (b[1] < b[2] ? b[1] : b[2]);
        int hi = b[0] > b[1] ? (b[0] > b[2] ? b[0] : b[2]) : (b[1] > b[2] ? b[1] : b[2]);
        n += hi - lo >= 150 && abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]) > 90;
    }
    return n;
}

static int save_shot(tool_gl *gl, uint8_t *pixels, int width, int height, const char *out_dir, const char *name)
{
    char path[512];
    crowd_error err = {0};
    tool_gl_read_rgb(gl, pixels);
    snprintf(path, sizeof path, "%s/demo_%s.png", out_dir, name);
    if (tool_write_png(path, pixels, width, height, &err) == CROWD_OK)
        return 0;
    fprintf(stderr, "crowd-demo-headless: %s: %s\n", path, err.message);
    return 1;
}

/* Vivid pixels new in the frame after `frames` frames of `input` (NULL: none), against the frame
 * before them; the frame is saved as demo_<name>.png. */
static unsigned vivid_after(demo_app *app, tool_gl *gl, uint8_t *quiet, uint8_t *pixels, int width, int height,
                            const demo_input *input, int frames, const char *out_dir, const char *name)
{
    tool_gl_read_rgb(gl, quiet);
    for (int f = 0; f < frames; f++)
        demo_frame(app, 1.0 / 30.0, width, height, input);
    if (save_shot(gl, pixels, width, height, out_dir, name))
        return 0;
    return vivid_new(quiet, pixels, (size_t)width * height);
}

/* The beams alone, the crowd paused so that only the rounds change the frame: two frames of fire
 * into the sky from where G stood the visitor. Returns the vivid pixels new over the sky; a beam of
 * 3 px or more from the muzzle to the crosshair has at least half the frame's height of them. */
static unsigned gun_beams(demo_app *app, tool_gl *gl, uint8_t *quiet, uint8_t *pixels, int width, int height,
                          const char *out_dir)
{
    const demo_input up = {.look = {0.0f, -150.0f}}, down = {.look = {0.0f, 150.0f}}, trigger = {.fire = true};
    demo_set(app, DEMO_PAUSED, 1);
    demo_frame(app, 1.0 / 30.0, width, height, &up);
    unsigned beam = vivid_after(app, gl, quiet, pixels, width, height, &trigger, 2, out_dir, "gun_beam");
    demo_frame(app, 1.0 / 30.0, width, height, &down);
    demo_set(app, DEMO_PAUSED, 0);
    return beam;
}

/* Rounds into the crowd, paused, from where G stands a visitor anew (out and in again): the beams
 * and a fountain of droplets, then, once the droplets have landed, the paint on the floor for good.
 * Returns the vivid pixels new with each through fountain and paint. */
static void gun_fountain(demo_app *app, tool_gl *gl, uint8_t *quiet, uint8_t *pixels, int width, int height,
                         const char *out_dir, unsigned *fountain, unsigned *paint)
{
    const demo_input trigger = {.fire = true};
    demo_set(app, DEMO_PAUSED, 1);
    demo_key(app, 'G', false);
    demo_frame(app, 1.0 / 30.0, width, height, NULL);
    demo_key(app, 'G', false);
    for (int f = 0; f < 5; f++) /* the last beams fade */
        demo_frame(app, 1.0 / 30.0, width, height, NULL);
    *fountain = vivid_after(app, gl, quiet, pixels, width, height, &trigger, 3, out_dir, "gun_fountain");
    demo_frame(app, 1.0 / 30.0, width, height, NULL);
    *paint = vivid_after(app, gl, quiet, pixels, width, height, NULL, 45, out_dir, "gun_paint"); /* they land */
    demo_set(app, DEMO_PAUSED, 0);
}

/* Gun mode as a visitor meets it: the page's first view (the default orbit camera over the default
 * crowd of GUN_SWEEP_COUNT) and G; the beams into the sky (gun_beams); then the trigger held for
 * GUN_SWEEP_FRAMES frames of 1/30 s while the view turns slowly to the right, aimed at no one; then
 * a fountain and its paint (gun_fountain). Prints the rounds, the hits and their ratio and the
 * effects' pixels; fails when fewer than GUN_SWEEP_MIN_HITS of the rounds hit someone or an effect
 * has fewer vivid pixels than half the frame's height. Saves demo_gun_beam.png,
 * demo_gun_fountain.png and demo_gun_paint.png. The count comes back after. */
#define GUN_SWEEP_COUNT 20000
#define GUN_SWEEP_FRAMES 45
#define GUN_SWEEP_MIN_HITS 0.8
static int gun_sweep(demo_app *app, tool_gl *gl, uint8_t *pixels, int width, int height, const char *out_dir)
{
    uint8_t *quiet = malloc((size_t)width * height * 3);
    double count = demo_get(app, DEMO_COUNT);
    if (!quiet)
        return 1;
    demo_set(app, DEMO_COUNT, GUN_SWEEP_COUNT);
    demo_set(app, DEMO_CAMERA, 0);
    demo_app_pose_camera(app, 0.55f, 0.32f, 55.0f); /* demo_camera_init's orbit */
    demo_frame(app, 1.0 / 30.0, width, height, NULL);
    demo_key(app, 'G', false);
    demo_frame(app, 1.0 / 30.0, width, height, NULL);
    unsigned beam = gun_beams(app, gl, quiet, pixels, width, height, out_dir), rounds0, kills0, rounds, kills;
    gun_tally(app, &rounds0, &kills0);
    demo_input trigger = {.fire = true, .look = {4.0f, 0.0f}};
    for (int f = 0; f < GUN_SWEEP_FRAMES; f++)
        demo_frame(app, 1.0 / 30.0, width, height, &trigger);
    gun_tally(app, &rounds, &kills);
    rounds -= rounds0, kills -= kills0;
    double ratio = rounds ? (double)kills / rounds : 0.0;
    unsigned fountain, paint, least = (unsigned)height / 2;
    gun_fountain(app, gl, quiet, pixels, width, height, out_dir, &fountain, &paint);
    free(quiet);
    printf("  %-20s %u rounds, %u hits (%.0f %%) from the default view, sweeping, %d characters\n", "gun as a visitor",
           rounds, kills, 100.0 * ratio, GUN_SWEEP_COUNT);
    printf("  %-20s vivid pixels new: %u with beams into the sky, %u with a fountain, %u of paint landed\n",
           "gun effects", beam, fountain, paint);
    demo_key(app, 'R', false);
    demo_set(app, DEMO_GUN, 0);
    demo_set(app, DEMO_CAMERA, 0);
    demo_set(app, DEMO_COUNT, count);
    if (!rounds || ratio < GUN_SWEEP_MIN_HITS || beam < least || fountain < least || paint < least) {
        fprintf(stderr,
                "crowd-demo-headless: gun as a visitor: %u of %u rounds hit someone (want %.0f %%); vivid pixels %u "
                "(beams), %u (fountain), %u (paint) (want %u+)\n",
                kills, rounds, 100.0 * GUN_SWEEP_MIN_HITS, beam, fountain, paint, least);
        return 1;
    }
    return 0;
}

/* The two halves' instance counts and whether each is searching, from compare mode's HUD lines. */
static bool compare_halves(demo_app *app, unsigned count[2], bool searching[2])
{
    const char *status = demo_status_details(app),
               *line[2] = {strstr(status, "left: classic"), strstr(status, "right: VAT")};
    for (int h = 0; h < 2; h++) {
        if (!line[h] || sscanf(line[h], h ? "right: VAT %u inst" : "left: classic %u inst", &count[h]) != 1)
            return false;
        const char *end = strchr(line[h], '\n'), *mark = strstr(line[h], "[searching");
        searching[h] = mark && (!end || mark < end);
    }
    return true;
}

/* Compare mode's T, end to end: the search starts both halves at one character, steps move them
 * (doubling while a half's CPU time fits 16.7 ms, else ending), and T stops a search under way. What
 * count fits is a measurement of this machine and is not asserted (tests/test_budget_search.c
 * checks the search's arithmetic against cost models). */
static int compare_search(demo_app *app, int width, int height)
{
    if (demo_set(app, DEMO_COMPARE, 1) != CROWD_OK) {
        fprintf(stderr, "crowd-demo-headless: compare mode refused: %s\n", demo_last_error(app));
        return 1;
    }
    unsigned start[2] = {0, 0}, later[2] = {0, 0};
    bool start_searching[2] = {false, false}, searching[2] = {false, false}, stopped = true;
    demo_key(app, 'T', false);
    demo_frame(app, 1.0 / 30.0, width, height, NULL);
    bool ok = compare_halves(app, start, start_searching);
    for (int f = 0; f < 3 * 10; f++)
        demo_frame(app, 1.0 / 30.0, width, height, NULL);
    ok = ok && compare_halves(app, later, searching);
    if (searching[0] || searching[1]) {
        demo_key(app, 'T', false);
        demo_frame(app, 1.0 / 30.0, width, height, NULL);
        bool after[2];
        unsigned counts[2];
        ok = ok && compare_halves(app, counts, after);
        stopped = !after[0] && !after[1];
    }
    printf("  %-20s started at %u / %u; 30 frames later classic %u%s, VAT %u%s; %s\n", "compare budget (T)", start[0],
           start[1], later[0], searching[0] ? " (searching)" : " (done)", later[1],
           searching[1] ? " (searching)" : " (done)", stopped ? "stopped" : "T did not stop it");
    for (int h = 0; h < 2; h++) /* started at one, then moved: a step went up, or the search ended */
        ok = ok && start[h] == 1 && start_searching[h] && (!searching[h] || later[h] > 1);
    demo_set(app, DEMO_COMPARE, 0);
    if (!ok || !stopped) {
        fprintf(stderr, "crowd-demo-headless: compare's budget search did not run as T says (status: %.400s)\n",
                demo_status_details(app));
        return 1;
    }
    return 0;
}

/* The benchmark (B) in the menagerie: a short plan (two counts, 2 warm-up + 3 measured frames each)
 * must finish, report a row per count with instances submitted and draws, name the menagerie, and
 * put the count back. Fails when it never finishes (a plan that never ends would wait for good). */
static int menagerie_benchmark(demo_app *app, int width, int height, uint32_t asset_count)
{
    static const uint32_t counts[2] = {200, 400};
    double before = demo_get(app, DEMO_COUNT);
    if (demo_set(app, DEMO_ASSET, asset_count) != CROWD_OK) {
        fprintf(stderr, "crowd-demo-headless: menagerie refused: %s\n", demo_last_error(app));
        return 1;
    }
    demo_start_benchmark_plan(app, counts, 2, 2, 3);
    uint32_t f = 0;
    for (; f < 40 && demo_benchmark_running(app); f++)
        demo_frame(app, 1.0 / 30.0, width, height, NULL);
    const char *report = demo_benchmark_report(app);
    const char *row = strstr(report, "triangles\n");
    uint32_t n = 0, seen[2] = {0, 0}, draws[2] = {0, 0}, submitted[2] = {0, 0};
    for (row = row ? row + 10 : NULL; row && *row && n < 2; n++) {
        double frame_ms, fps, cpu_ms;
        if (sscanf(row, "%u %lf %lf %lf %u %u", &seen[n], &frame_ms, &fps, &cpu_ms, &draws[n], &submitted[n]) != 6)
            break;
        row = strchr(row, '\n');
        row = row ? row + 1 : NULL;
    }
    printf("  %-20s %u frames; %u inst: %u draws, %u submitted; %u inst: %u draws, %u submitted\n", "bench menagerie",
           f, seen[0], draws[0], submitted[0], seen[1], draws[1], submitted[1]);
    if (demo_benchmark_running(app) || !strstr(report, "menagerie") || n != 2 || seen[0] != counts[0] ||
        seen[1] != counts[1] || !draws[0] || !draws[1] || !submitted[0] || !submitted[1] ||
        demo_get(app, DEMO_COUNT) != before) {
        fprintf(
            stderr, "crowd-demo-headless: the benchmark in the menagerie (%s after %u frames, count %g of %g):\n%s\n",
            demo_benchmark_running(app) ? "still running" : "finished", f, demo_get(app, DEMO_COUNT), before, report);
        return 1;
    }
    demo_set(app, DEMO_ASSET, 0);
    return 0;
}

/* Compare mode's titles, drawn amber over each half (demo/app.c): the amber pixels in a half's top
 * third (that colour exactly: a shirt seldom is) and the rows from the first to the last of them. Large means at least twice the HUD's
 * glyphs (stb_easy_font's capitals are 7 px tall at the HUD's scale 1, a line 12 px): a title shorter
 * than TITLE_MIN_ROWS or lighter than TITLE_MIN_PIXELS fails. */
#define TITLE_MIN_ROWS 14
#define TITLE_MIN_PIXELS 500
static void title_pixels(const uint8_t *rgb, int width, int height, int x0, int x1, unsigned *pixels, int *rows)
{
    int first = -1, last = -1;
    *pixels = 0;
    for (int y = 0; y < height / 3; y++)
        for (int x = x0; x < x1 && x < width; x++) {
            const uint8_t *c = rgb + 3 * ((size_t)y * width + x);
            if (c[0] < 248 || abs(c[1] - 199) > 8 || abs(c[2] - 64) > 10) /* (1.0, 0.78, 0.25) */
                continue;
            ++*pixels;
            first = first < 0 ? y : first;
            last = y;
        }
    *rows = first < 0 ? 0 : last - first + 1;
}

static int compare_titles(demo_app *app, const uint8_t *rgb, int width, int height)
{
    unsigned pixels[2];
    int rows[2];
    title_pixels(rgb, width, height, 0, width / 2 - 1, &pixels[0], &rows[0]);
    title_pixels(rgb, width, height, width / 2 + 1, width, &pixels[1], &rows[1]);
    printf("  %-20s titles: %u amber pixels over %d rows (classic), %u over %d rows (VAT)\n", "compare", pixels[0],
           rows[0], pixels[1], rows[1]);
    bool paused = demo_get(app, DEMO_GRASS) < 0.5 || strstr(demo_status(app), "grass paused");
    for (int h = 0; h < 2; h++)
        if (pixels[h] < TITLE_MIN_PIXELS || rows[h] < TITLE_MIN_ROWS || !paused) {
            fprintf(stderr, "crowd-demo-headless: compare: %s title %u px over %d rows (want %d+ px, %d+ rows)%s\n",
                    h ? "the VAT" : "the classic", pixels[h], rows[h], TITLE_MIN_PIXELS, TITLE_MIN_ROWS,
                    paused ? "" : "; grass on but not said to be paused");
            return 1;
        }
    return 0;
}

static bool blank(const uint8_t *rgb, int n)
{
    int differing = 0;
    for (int i = 1; i < n; i++)
        differing += memcmp(rgb + 3 * i, rgb, 3) != 0;
    return differing < n / 20;
}

int main(int argc, char **argv)
{
    const char *out_dir = "shots";
    uint32_t count = 20000, frames = 45;
    float grass_density = 1.0f;
    int width = 1280, height = 720, first_asset = 0;
    bool gl_debug = false, gl_timers = false;
    int gl_path = 0; /* auto */
    int asset_count = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out-dir") && i + 1 < argc)
            out_dir = argv[++i];
        else if (!strcmp(argv[i], "--count") && i + 1 < argc && tool_parse_u32(argv[i + 1], 0, 250000, &count))
            i++;
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc && tool_parse_u32(argv[i + 1], 1, 10000, &frames))
            i++;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &width, &height) == 2 &&
                 width >= 64 && height >= 64 && width <= 4096 && height <= 4096)
            i++;
        else if (!strcmp(argv[i], "--grass-density") && i + 1 < argc &&
                 tool_parse_float(argv[i + 1], 0.05f, 1.0f, &grass_density))
            i++;
        else if (!strcmp(argv[i], "--gl-debug"))
            gl_debug = true;
        else if (!strcmp(argv[i], "--gl-timers"))
            gl_timers = true;
        else if (!strcmp(argv[i], "--path") && i + 1 < argc && demo_path_parse(argv[i + 1]) >= 0)
            gl_path = demo_path_parse(argv[++i]);
        else if (argv[i][0] != '-' && !first_asset)
            first_asset = i;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: crowd-demo-headless asset.crowd [more.crowd ...] [--out-dir dir] [--count n] "
                            "[--frames n] [--size WxH] [--grass-density 0.05..1] [--gl-debug] [--gl-timers] "
                            "[--path auto|cpu|gpu]\n");
            return 2;
        }
    }
    if (!first_asset) {
        fprintf(stderr, "crowd-demo-headless: no asset given\n");
        return 2;
    }
    tool_gl gl;
    crowd_error err = {0};
    demo_app *app = NULL;
    /* single-sampled: MSAA is the demo's setting, resolved into this framebuffer */
    if (tool_gl_create_samples(&gl, width, height, false, 0, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-demo-headless: %s\n", err.message);
        return 1;
    }
    demo_desc desc = {.es = false,
                      .capacity = count > 100000 ? count : 100000,
                      .initial_count = count,
                      .framebuffer = gl.fbo,
                      .gl_debug = gl_debug,
                      .gl_timers = gl_timers,
                      .gl_path = gl_path};
    int status = 1;
    uint8_t *pixels = malloc((size_t)width * height * 3);
    if (!pixels || demo_create(&desc, &app, &err) != CROWD_OK)
        goto done;
    for (int i = first_asset; i < argc; i++) {
        if (argv[i][0] == '-') {
            i += strncmp(argv[i], "--gl-", 5) != 0; /* the flags without a value */
            continue;
        }
        size_t size = 0;
        uint8_t *bytes = tool_read_file(argv[i], &size, &err);
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        crowd_result r = bytes ? demo_add_asset(app, bytes, size, name, NULL, &err) : CROWD_ERROR_IO;
        asset_count++;
        free(bytes);
        if (r != CROWD_OK)
            goto done;
    }
    demo_set(app, DEMO_GRASS_BUDGET, grass_density);
    mkdir(out_dir, 0755);
    printf("crowd-demo-headless: %u instances, %u frames per step, on %s\n", count, frames, gl.renderer);
    status = 0;
    for (size_t s = 0; s < sizeof script / sizeof script[0] && !status; s++) {
        const step *st = &script[s];
        if (st->setting == DEMO_ASSET && (st->value >= 1 || st->value == ASSET_MENAGERIE) && asset_count < 2)
            continue; /* one asset: nothing to switch to */
        double value = st->value == COUNT_AS_GIVEN    ? count
                       : st->value == ASSET_MENAGERIE ? asset_count
                       : st->value == GRASS_AS_GIVEN  ? grass_density
                                                      : st->value;
        if (st->value == LOOK_AT) {
            const float eye[3] = {28, 16, 44}, target[3] = {0, 1.2f, 0}; /* the seed's camera */
            demo_look_at(app, eye, target);
        } else if (demo_set(app, st->setting, value) != CROWD_OK) {
            fprintf(stderr, "crowd-demo-headless: %s = %g refused: %s\n", demo_setting_table()[st->setting].name,
                    st->value, demo_last_error(app));
            status = 1;
            break;
        }
        double first_entry = 0.0, reported = 0.0;
        for (uint32_t f = 0; f < frames; f++) {
            if (f == 0)
                first_entry = wall_ms();
            demo_frame(app, 1.0 / 30.0, width, height, NULL);
            demo_stats fs;
            demo_get_stats(app, &fs);
            if (f >= 1)
                reported += fs.last_frame_ms;
        }
        double measured = frames > 1 ? wall_ms() - first_entry : 0.0;
        if (frames > 1) { /* frame f's time runs from entry f-1 to entry f (f >= 1): compare like with like */
            demo_stats fs;
            demo_get_stats(app, &fs);
            measured -= fs.last_main_ms; /* the last call's own time is after its entry */
        }
        char why[200];
        if (frames > 1 && hud_lies(app, st, width, measured, reported, why, sizeof why)) {
            fprintf(stderr, "crowd-demo-headless: %s: the HUD does not tell the truth: %s\n",
                    st->shot ? st->shot : demo_setting_table()[st->setting].name, why);
            status = 1;
            break;
        }
        if (crowd_gl_check(st->shot ? st->shot : "step", &err) != CROWD_OK) {
            fprintf(stderr, "crowd-demo-headless: %s\n", err.message);
            status = 1;
            break;
        }
        if (!st->shot)
            continue;
        tool_gl_read_rgb(&gl, pixels);
        char path[512];
        snprintf(path, sizeof path, "%s/demo_%s.png", out_dir, st->shot);
        if (tool_write_png(path, pixels, width, height, &err) != CROWD_OK || blank(pixels, width * height)) {
            fprintf(stderr, "crowd-demo-headless: %s: %s\n", path, err.message[0] ? err.message : "blank frame");
            status = 1;
            break;
        }
        if (st->setting == DEMO_COMPARE && st->value == 1 && compare_titles(app, pixels, width, height)) {
            status = 1;
            break;
        }
        const crowd_frame *frame = demo_current_frame(app);
        demo_stats ds;
        demo_get_stats(app, &ds);
        if (ds.gpu_frames_late >= 0) /* the GPU path: its own counts, read back late */
            printf("  %-20s %6u submitted %5u draws %7.2f M triangles  frame %7.1f ms (wall)  main %6.1f ms%s"
                   "  (GPU's, %d frames late; %u casters)\n",
                   st->shot, ds.submitted, ds.draws, (double)ds.triangles / 1e6, ds.frame_ms, ds.main_ms,
                   ds.gpu_color_ms >= 0 ? "" : "  gpu n/a", ds.gpu_frames_late, ds.shadow_casters);
        else
            printf("  %-20s %6u submitted %5u draws %7.2f M triangles  frame %7.1f ms (wall)  main %6.1f ms%s\n",
                   st->shot, frame ? frame->stats.submitted : 0, frame ? frame->stats.draws : 0,
                   frame ? (double)frame->stats.triangles / 1e6 : 0.0, ds.frame_ms, ds.main_ms,
                   ds.gpu_color_ms >= 0 ? "" : "  gpu n/a");
        if (ds.gpu_color_ms >= 0)
            printf("  %-20s gpu shadow %.2f ms, colour %.2f ms (timer queries, %d frames late)\n", "", ds.gpu_shadow_ms,
                   ds.gpu_color_ms, CROWD_GL_TIMER_LATENCY);
    }
    if (!status)
        status = gun_burst(app, &gl, pixels, width, height, frames, count, out_dir);
    if (!status)
        status = gun_sweep(app, &gl, pixels, width, height, out_dir);
    if (!status && asset_count >= 2)
        status = menagerie_benchmark(app, width, height, asset_count);
    if (!status)
        status = compare_search(app, width, height);
    if (!status && demo_get(app, DEMO_PATH) != 1.0) { /* auto or gpu: llvmpipe has the GPU path */
        printf("  %-20s submitted = the GPU's late stats (<= live) in %u steps\n", "gpu path stats", gpu_steps_checked);
        if (!gpu_steps_checked && crowd_gl_get_path(demo_renderer(app)) == CROWD_GL_PATH_GPU) {
            fprintf(stderr, "crowd-demo-headless: the GPU path's stats were never read back\n");
            status = 1;
        }
    }
    if (!status)
        printf("screenshots in %s/demo_*.png\n", out_dir);
done:
    if (status && err.message[0])
        fprintf(stderr, "crowd-demo-headless: %s\n", err.message);
    demo_destroy(app);
    free(pixels);
    tool_gl_destroy(&gl);
    return status;
}
