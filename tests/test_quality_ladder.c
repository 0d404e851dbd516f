/* The page's quality ladder (demo/quality_ladder.c), driven by frame-time models in place of a GPU: the
 * display's refresh quantises every frame to whole 60 Hz intervals (vsync), each step of the ladder
 * costs its share. It must climb to the top where every step fits the refresh, fall to the bottom
 * where none does, settle below the first step that does not fit without flapping, and ignore a rare
 * spike and nonsense times. */
#include <math.h>

#include "check.h"
#include "demo/quality_ladder.h"

int check_failures;

#define REFRESH_MS (1000.0 / 60.0)

typedef struct frame_model {
    double base_ms, per_step_ms;
    int spike_every; /* every n-th frame takes 500 ms (0: never) */
} frame_model;

static double frame_ms(const frame_model *m, int step, int frame)
{
    if (m->spike_every && frame % m->spike_every == m->spike_every - 1)
        return 500.0;
    double work = m->base_ms + m->per_step_ms * step;
    return ceil(work / REFRESH_MS - 1e-9) * REFRESH_MS; /* vsync: the next refresh after the work */
}

/* Runs `frames` frames from `start`; returns the final step, the number of changes in the last
 * `tail` frames through *late_changes. */
static int run(const frame_model *m, int start, int frames, int tail, int *late_changes)
{
    demo_quality_ladder q;
    demo_quality_ladder_init(&q, start);
    *late_changes = 0;
    for (int f = 0; f < frames; f++)
        if (demo_quality_ladder_record(&q, frame_ms(m, q.step, f)) && f >= frames - tail)
            (*late_changes)++;
    return q.step;
}

static void climbs_where_everything_fits(void)
{
    const frame_model gpu = {4.0, 0.5, 0}; /* the top step: 8.5 ms, inside one refresh */
    int late;
    /* each climb after at least 500 ms: 30 frames apiece at 60 Hz */
    CHECK(run(&gpu, 0, (DEMO_QUALITY_STEPS - 1) * 31 + 1, 0, &late) == DEMO_QUALITY_STEPS - 1);
    CHECK(run(&gpu, 0, 20000, 19000, &late) == DEMO_QUALITY_STEPS - 1 && late == 0);
}

static void falls_where_nothing_fits(void)
{
    const frame_model software = {60.0, 10.0, 0}; /* SwiftShader-like: 60 ms before any grass */
    int late;
    CHECK(run(&software, DEMO_QUALITY_STEPS - 1, 20000, 19000, &late) == 0 && late == 0);
    CHECK(run(&software, 0, 20000, 20000, &late) == 0 && late == 0);
}

/* Steps 0-4 fit (8 + 2 x 4 = 16 ms); step 5 takes 18 ms, two refreshes. The ladder may try 5 again
 * once the ceiling expires (every 20 s), never more often. */
static void settles_below_the_first_step_that_does_not_fit(void)
{
    const frame_model mid = {8.0, 2.0, 0};
    int late;
    int step = run(&mid, 0, 60 * 120, 60 * 60, &late);
    printf("     mid-range GPU: step %d, %d changes in the last 60 s\n", step, late);
    CHECK(step == 4 || step == 5);
    CHECK(late <= 2 * (60 / 20) + 1);
    step = run(&mid, DEMO_QUALITY_STEPS - 1, 60 * 120, 60 * 60, &late);
    CHECK((step == 4 || step == 5) && late <= 2 * (60 / 20) + 1);
}

static void ignores_a_rare_spike_and_nonsense(void)
{
    const frame_model spiky = {4.0, 0.5, 40}; /* a 500 ms hitch every 40 frames */
    int late;
    CHECK(run(&spiky, DEMO_QUALITY_STEPS - 1, 20000, 19000, &late) == DEMO_QUALITY_STEPS - 1 && late == 0);
    demo_quality_ladder q;
    demo_quality_ladder_init(&q, 3);
    const double nonsense[] = {NAN, -5.0, 0.0, INFINITY, 1e9};
    for (int k = 0; k < 200; k++)
        CHECK(!demo_quality_ladder_record(&q, nonsense[k % 5]));
    CHECK(q.step == 3);
    demo_quality_ladder_init(&q, 99);
    demo_quality top = demo_quality_ladder_get(&q);
    CHECK(q.step == DEMO_QUALITY_STEPS - 1 && top.grass_density == 1.0f && top.grass_distance == 220.0f &&
          top.lod_bias == 1.0f);
    demo_quality_ladder_init(&q, -4);
    demo_quality bottom = demo_quality_ladder_get(&q);
    CHECK(q.step == 0 && bottom.grass_density > 0.0f && bottom.grass_distance >= 60.0f && bottom.lod_bias == 0.5f);
}

/* Every step asks for at least what the one below asks for, and for more of something. */
static void the_ladder_is_monotonic(void)
{
    demo_quality_ladder q;
    demo_quality_ladder_init(&q, 0);
    demo_quality below = demo_quality_ladder_get(&q);
    for (int s = 1; s < DEMO_QUALITY_STEPS; s++) {
        demo_quality_ladder_init(&q, s);
        demo_quality at = demo_quality_ladder_get(&q);
        CHECK(at.grass_density >= below.grass_density && at.grass_distance >= below.grass_distance &&
              at.lod_bias >= below.lod_bias);
        CHECK(at.grass_density > below.grass_density || at.grass_distance > below.grass_distance ||
              at.lod_bias > below.lod_bias);
        CHECK(at.grass_density <= 1.0f && at.grass_distance <= 220.0f && at.lod_bias <= 1.0f);
        below = at;
    }
}

int main(void)
{
    RUN_TEST(climbs_where_everything_fits);
    RUN_TEST(falls_where_nothing_fits);
    RUN_TEST(settles_below_the_first_step_that_does_not_fit);
    RUN_TEST(ignores_a_rare_spike_and_nonsense);
    RUN_TEST(the_ladder_is_monotonic);
    return check_failures ? 1 : 0;
}
