/* crowd-bench's scene in the demo's build (scene_probe.h): the same crowd, simulation and camera as
 * tools/crowd_bench.c's run_count, timed the same way (one step and one update per frame). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "demo/scene_probe.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "crowdbake/sim.h"
#include "showcase/scene.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double demo_measure_scene(const crowd_asset *asset, uint32_t count, uint32_t warmup, uint32_t frames)
{
    if (!asset || !count || !frames || count > 4000000 || warmup > 100000 || frames > 100000)
        return NAN;
    crowd_desc desc = {.asset = asset, .capacity = count, .world_size = 420.0f, .chunk_size = 24.0f, .threads = 1};
    crowd_obstacle obstacles[SHOWCASE_OBSTACLES];
    showcase_scene_obstacles(obstacles);
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    double *t = malloc(sizeof(double) * frames), median = NAN;
    if (!t || crowd_create(&desc, &c, NULL) != CROWD_OK)
        goto done;
    crowd_sim_desc sd = {.target = c,
                         .scenario = CROWD_SCENARIO_WANDER,
                         .obstacles = obstacles,
                         .obstacle_count = SHOWCASE_OBSTACLES,
                         .seed = 7};
    if (crowd_sim_create(&sd, &sim, NULL) != CROWD_OK || crowd_sim_spawn(sim, count) != CROWD_OK)
        goto done;
    crowd_view view = {0};
    showcase_scene_bench_view(&view);
    for (uint32_t f = 0; f < warmup + frames; f++) {
        double t0 = now_ms();
        crowd_sim_step(sim, 1.0f / 60.0f);
        crowd_update(c, 1.0f / 60.0f, &view);
        if (f >= warmup)
            t[f - warmup] = now_ms() - t0;
    }
    qsort(t, frames, sizeof *t, by_value);
    median = frames % 2 ? t[frames / 2] : 0.5 * (t[frames / 2 - 1] + t[frames / 2]);
done:
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    free(t);
    return median;
}
