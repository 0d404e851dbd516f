/* The page's quality ladder (demo/quality_ladder.h). */
#include "demo/quality_ladder.h"

#include <stdlib.h>
#include <string.h>

/* From sparse and near to the whole field. The lowest steps still reach 60-100 m, past the
 * crowd's middle seen from the default orbit (about 55 m). LOD bias 0.5 halves the library's LOD
 * distances: a software rasteriser is bound by the middle levels' vertex work; at 1 people 2-4 m
 * away are at LOD 0-1 instead of 2 (docs/performance.md, "Figures behind the defaults"). */
static const demo_quality ladder[DEMO_QUALITY_STEPS] = {
    {0.02f, 60.0f, 0.5f},  {0.03f, 80.0f, 0.5f},  {0.05f, 100.0f, 0.5f}, {0.08f, 140.0f, 0.5f},
    {0.12f, 180.0f, 0.5f}, {0.18f, 220.0f, 0.5f}, {0.25f, 220.0f, 0.5f}, {0.25f, 220.0f, 1.0f},
    {0.4f, 220.0f, 1.0f},  {0.65f, 220.0f, 1.0f}, {1.0f, 220.0f, 1.0f},
};

/* A step is judged on at least this many frames and this much time since the last change, so one
 * slow frame (a shader compile, a new crowd) does not move it. */
#define MIN_FRAMES 6
#define MIN_MS 500.0
/* Frames at the display's rate (60 Hz and up) leave room to climb; slower than 50 fps steps down.
 * Between the two the step holds (a display at 50-55 Hz never climbs, never falls). */
#define CLIMB_MS 18.0
#define FALL_MS 20.0
/* A step that had to be left is not retried for this long. */
#define CEILING_MS 20000.0

void demo_quality_ladder_init(demo_quality_ladder *q, int step)
{
    memset(q, 0, sizeof *q);
    q->step = step < 0 ? 0 : step >= DEMO_QUALITY_STEPS ? DEMO_QUALITY_STEPS - 1 : step;
    q->ceiling = DEMO_QUALITY_STEPS;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const demo_quality_ladder *q)
{
    int n = q->count < 16 ? q->count : 16;
    double v[16];
    memcpy(v, q->ms, sizeof(double) * (size_t)n);
    qsort(v, (size_t)n, sizeof v[0], by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void change(demo_quality_ladder *q, int step)
{
    q->step = step;
    q->count = 0;
    q->elapsed_ms = 0.0;
}

bool demo_quality_ladder_record(demo_quality_ladder *q, double frame_ms)
{
    if (!(frame_ms > 0.0) || frame_ms > 1e6) /* a paused tab or a clock jump says nothing */
        return false;
    q->ms[q->count % 16] = frame_ms;
    q->count++;
    q->elapsed_ms += frame_ms;
    q->ceiling_age_ms += frame_ms;
    if (q->ceiling < DEMO_QUALITY_STEPS && q->ceiling_age_ms > CEILING_MS)
        q->ceiling = DEMO_QUALITY_STEPS;
    if (q->count < MIN_FRAMES || q->elapsed_ms < MIN_MS)
        return false;
    double typical = median(q);
    if (typical > FALL_MS && q->step > 0) {
        q->ceiling = q->step;
        q->ceiling_age_ms = 0.0;
        change(q, q->step - 1);
        return true;
    }
    if (typical < CLIMB_MS && q->step + 1 < q->ceiling && q->step + 1 < DEMO_QUALITY_STEPS) {
        change(q, q->step + 1);
        return true;
    }
    return false;
}

demo_quality demo_quality_ladder_get(const demo_quality_ladder *q)
{
    return ladder[q->step];
}
