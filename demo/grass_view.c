/* The demo's ground: the grass field and the HUD's frame-time window (see grass_view.h). */
#include "demo/grass_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 1024              /* frames kept: a second at up to 1 kHz */
#define GROUND_HALF_SIZE 4000.0f /* the field's ground, around the camera: out to the horizon */

struct demo_grass {
    crowd_grass *field;
    double ms[WINDOW]; /* ring of frame times */
    double at[WINDOW]; /* each frame's end, ms since the first */
    uint32_t next, count;
    double clock;
    float mower_at[2]; /* where the mower's last disc was cut */
    bool mower_valid;
};

crowd_result demo_grass_create(bool es, crowd_grass_path path, bool timers, demo_grass **out, crowd_error *error)
{
    *out = NULL;
    demo_grass *g = calloc(1, sizeof *g);
    if (!g)
        return CROWD_ERROR_OUT_OF_MEMORY;
    crowd_grass_desc d = {.es = es, .path = path, .timers = timers, .ground_size = GROUND_HALF_SIZE};
    crowd_result r = crowd_grass_create(&d, &g->field, error);
    if (r != CROWD_OK) {
        free(g);
        return r;
    }
    *out = g;
    return CROWD_OK;
}

void demo_grass_destroy(demo_grass *g)
{
    if (!g)
        return;
    crowd_grass_destroy(g->field);
    free(g);
}

void demo_grass_ground(const demo_grass *g, showcase_stage *stage, bool on)
{
    if (g)
        showcase_stage_show_ground(stage, !on);
}

void demo_grass_fields(demo_grass *g, const crowd_gl_renderer *renderer, const crowd_gl_scene *scene, bool on,
                       const crowd_frame *agents, float dt, const float focus[2], bool trample, bool mower,
                       const float *impacts, uint32_t impact_count, uint32_t paint, float paint_world)
{
    if (!g || !on)
        return;
    crowd_grass_set_paint(g->field, paint, paint_world);
    /* the mower follows the focus: a disc every 0.5 m of its path (and where it stops), so a fast
       camera still leaves a closed swath */
    float cuts[2 * 64];
    uint32_t n = 0;
    if (mower) {
        float from[2] = {g->mower_at[0], g->mower_at[1]};
        if (!g->mower_valid)
            from[0] = focus[0], from[1] = focus[1];
        float dx = focus[0] - from[0], dz = focus[1] - from[1], len = sqrtf(dx * dx + dz * dz);
        uint32_t steps = len > 32.0f ? 1 : (uint32_t)(len / 0.5f) + 1;
        for (uint32_t k = 1; k <= steps && n < 64; k++, n++) {
            cuts[2 * n] = from[0] + dx * (float)k / (float)steps;
            cuts[2 * n + 1] = from[1] + dz * (float)k / (float)steps;
        }
        g->mower_at[0] = focus[0], g->mower_at[1] = focus[1];
    }
    g->mower_valid = mower;
    for (uint32_t k = 0; k < impact_count && n < 64; k++, n++) /* the gun's rounds cut where they strike */
        cuts[2 * n] = impacts[2 * k], cuts[2 * n + 1] = impacts[2 * k + 1];
    crowd_grass_fields f = {.dt = dt,
                            .focus_set = true,
                            .focus = {focus[0], focus[1]},
                            .crowd = trample ? agents : NULL,
                            .cuts = cuts,
                            .cut_count = n};
    crowd_grass_update_fields(g->field, renderer, scene, &f);
}

void demo_grass_frame(demo_grass *g, showcase_stage *stage, const crowd_gl_renderer *renderer,
                      const crowd_gl_scene *scene, bool on, double time, float budget, float distance, float wind)
{
    if (!g || !on)
        return;
    /* a gust that turns slowly: the draws change every frame, the culling key does not */
    float a = 0.6f + 0.25f * sinf((float)time * 0.13f);
    crowd_grass_frame f = {.time = (float)time,
                           .wind = {wind * 0.45f * cosf(a), wind * 0.45f * sinf(a)},
                           .budget = budget,
                           .draw_distance = distance};
    if (crowd_grass_draw(g->field, renderer, scene, &f) == CROWD_OK)
        showcase_stage_ground_drawn(stage, GROUND_HALF_SIZE, scene);
}

void demo_grass_record_frame(demo_grass *g, double ms)
{
    if (!g || !(ms > 0.0))
        return;
    g->clock += ms;
    g->ms[g->next] = ms;
    g->at[g->next] = g->clock;
    g->next = (g->next + 1) % WINDOW;
    g->count += g->count < WINDOW;
}

static int by_time_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The seed's definitions over the most recent second: FPS = frames / their total time, average frame
 * time, 1 % low = the mean of the slowest 1 % of frames (at least one) and its FPS. From the first
 * frame on (the window fills from real frames, no waiting for a second). */
static void window_stats(const demo_grass *g, double *fps, double *avg, double *low)
{
    static double sorted[WINDOW];
    uint32_t n = 0;
    double total = 0.0;
    for (uint32_t k = 0; k < g->count; k++) {
        uint32_t i = (g->next + WINDOW - 1 - k) % WINDOW;
        if (g->clock - g->at[i] >= 1000.0)
            break;
        sorted[n++] = g->ms[i];
        total += g->ms[i];
    }
    if (!n) {
        *fps = *avg = *low = 0.0;
        return;
    }
    qsort(sorted, n, sizeof sorted[0], by_time_desc);
    uint32_t worst = n / 100 ? n / 100 : 1;
    double sum = 0.0;
    for (uint32_t k = 0; k < worst; k++)
        sum += sorted[k];
    *avg = total / n;
    *fps = 1e3 / *avg;
    *low = sum / worst;
}

int demo_grass_status(const demo_grass *g, bool on, const char *extra, char *out, size_t size)
{
    if (!g)
        return snprintf(out, size, "grass n/a%s\n", extra);
    double fps, avg, low;
    window_stats(g, &fps, &avg, &low);
    const crowd_grass_stats *s = crowd_grass_get_stats(g->field);
    int n = snprintf(out, size, "1 s: %.1f fps  avg %.1f ms  1%% low %.1f ms (%.0f fps)", fps, avg, low,
                     low > 0 ? 1e3 / low : 0.0);
    if (on)
        n += snprintf(out + n, size - (size_t)n, "  trample %u  cut %llu", s->trample_stamps,
                      (unsigned long long)s->cut_stamps);
    n += snprintf(out + n, size - (size_t)n, "%s\n", extra);
    if (!on)
        return n + snprintf(out + n, size - (size_t)n, "grass off [I]\n");
    n += snprintf(out + n, size - (size_t)n, "grass %s %u chunks  n/m/f %u/%u/%u (%s)  cull %s %llu/%llu",
                  s->path == CROWD_GRASS_PATH_GPU ? "GPU" : "CPU", s->chunks_visible, s->tier_blades[0],
                  s->tier_blades[1], s->tier_blades[2], s->late ? "late" : "est.", s->last_skipped ? "skip" : "ran",
                  (unsigned long long)s->passes_run, (unsigned long long)s->passes_skipped);
    if (s->gpu_cull_ms >= 0.0) /* GPU ms by timer query (3 frames late): culling, then per tier, g the ground */
        n += snprintf(out + n, size - (size_t)n, " gpu %.1f", s->gpu_cull_ms);
    if (s->gpu_draw_ms >= 0.0) /* short: the overlay stays within the compact 640 px */
        n += snprintf(out + n, size - (size_t)n, " n/m/f %.1f/%.1f/%.1f g %.1f", s->gpu_tier_ms[0], s->gpu_tier_ms[1],
                      s->gpu_tier_ms[2], s->gpu_ground_ms);
    if (s->gpu_cull_ms >= 0.0)
        n += snprintf(out + n, size - (size_t)n, " ms");
    return n + snprintf(out + n, size - (size_t)n, "\n");
}
