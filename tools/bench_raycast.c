/* crowd-bench --raycast: rounds fired from the benchmark camera's eye (28, 16, 44) at random points
 * of the ground within 120 m of the world's centre, against a wandering crowd (the benchmark scene:
 * 420 m world, 24 m chunks, obstacles). Reports crowd_hits_update (the per-frame re-bucketing, once
 * per frame that fires), the grid raycast per round (median of 5 batches of 20,000 rounds), the
 * cylinders it tested, and brute force over every instance on 200 rounds. Then kills (crowd_remove and crowd_hits_remove) on 1 % of the
 * crowd (random live indices, the hit index kept in step), the respawn (crowd_set_count back to the
 * count) and the crowd_update after it, which lays the records out afresh. */
#include "bench_raycast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "crowdbake/crowd.h"
#include "crowdbake/hits.h"
#include "crowdbake/sim.h"
#include "showcase/scene.h"
#include "tool_support.h"

#define RAYS 20000u
#define BATCHES 5
#define BRUTE_RAYS 200u

static void round_ray(uint64_t *state, float d[3])
{
    static const float eye[3] = {28.0f, 16.0f, 44.0f};
    float p[3];
    for (int k = 0; k < 3; k += 2) {
        *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
        p[k] = (float)((double)((*state * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 240.0 - 120.0);
    }
    p[1] = 0.9f;
    for (int k = 0; k < 3; k++)
        d[k] = p[k] - eye[k];
}

typedef struct kill_figures {
    uint32_t killed;
    double kill_us;                /* crowd_remove and crowd_hits_remove, per kill */
    double respawn_ms;             /* crowd_set_count back to the editor count */
    double update_ms, relayout_ms; /* crowd_update before the kills, and the one after the respawn */
} kill_figures;

/* 1 % of the crowd killed by index (random live ones, the hit index kept in step), then respawned. */
static void bench_kills(crowd *c, crowd_sim *sim, crowd_hits *h, uint32_t count, kill_figures *f)
{
    crowd_view view = {0};
    crowd_sim_step(sim, 1.0f / 60.0f);
    double t0 = tool_now_ms();
    crowd_update(c, 1.0f / 60.0f, &view);
    f->update_ms = tool_now_ms() - t0;
    crowd_hits_update(h);
    uint64_t state = 77;
    f->killed = count / 100 ? count / 100 : 1;
    t0 = tool_now_ms();
    for (uint32_t i = 0; i < f->killed; i++) {
        state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
        uint32_t victim = (uint32_t)((state * 2685821657736338717ull) >> 33) % crowd_count(c);
        crowd_remove(c, victim);
        crowd_hits_remove(h, victim);
    }
    f->kill_us = (tool_now_ms() - t0) * 1e3 / f->killed;
    t0 = tool_now_ms();
    crowd_set_count(c, count);
    f->respawn_ms = tool_now_ms() - t0;
    crowd_sim_step(sim, 1.0f / 60.0f);
    t0 = tool_now_ms();
    crowd_update(c, 1.0f / 60.0f, &view);
    f->relayout_ms = tool_now_ms() - t0;
}

int bench_raycast(const crowd_asset *asset, const uint32_t *counts, uint32_t n)
{
    kill_figures kills[16] = {{0}};
    n = n < 16 ? n : 16;
    static const float eye[3] = {28.0f, 16.0f, 44.0f};
    printf("crowd-bench --raycast: rounds from (28, 16, 44) at random ground points within 120 m, wander crowd\n");
    printf("%9s %12s | %10s %9s %7s | %10s %9s\n", "instances", "hits update", "ns / round", "tested", "hit %",
           "brute ns", "speed-up");
    int status = 0;
    // cppcheck-suppress knownConditionTrueFalse ; false positive: n is the caller's row count (1..16)
    for (uint32_t k = 0; k < n && !status; k++) {
        uint32_t count = counts[k];
        crowd_desc d = {.asset = asset, .capacity = count, .world_size = 420.0f, .chunk_size = 24.0f};
        crowd_obstacle obstacles[SHOWCASE_OBSTACLES];
        showcase_scene_obstacles(obstacles);
        crowd_sim_desc sd = {.obstacles = obstacles, .obstacle_count = SHOWCASE_OBSTACLES, .seed = 7};
        crowd *c = NULL;
        crowd_sim *sim = NULL;
        crowd_hits *h = NULL;
        crowd_error err = {0};
        if (crowd_create(&d, &c, &err) != CROWD_OK || (sd.target = c, crowd_sim_create(&sd, &sim, &err)) != CROWD_OK ||
            crowd_sim_spawn(sim, count) != CROWD_OK || crowd_hits_create(c, &h, &err) != CROWD_OK) {
            fprintf(stderr, "crowd-bench: %s\n", err.message);
            status = 1;
        }
        double update[BATCHES], per_ray[BATCHES], tested = 0;
        uint32_t hit_count = 0;
        crowd_view view = {0};
        for (int b = 0; b < BATCHES && !status; b++) {
            crowd_sim_step(sim, 1.0f / 60.0f);
            crowd_update(c, 1.0f / 60.0f, &view);
            double t0 = tool_now_ms();
            crowd_hits_update(h);
            update[b] = tool_now_ms() - t0;
            uint64_t state = 0x9E3779B97F4A7C15ull + (uint64_t)b;
            t0 = tool_now_ms();
            for (uint32_t i = 0; i < RAYS; i++) {
                float dir[3];
                crowd_ray_hit hit;
                round_ray(&state, dir);
                hit_count += crowd_raycast(h, eye, dir, 1000.0f, &hit);
                tested += hit.tested;
            }
            per_ray[b] = (tool_now_ms() - t0) * 1e6 / RAYS;
        }
        if (!status) {
            uint64_t state = 1;
            double t0 = tool_now_ms();
            for (uint32_t i = 0; i < BRUTE_RAYS; i++) {
                float dir[3];
                crowd_ray_hit hit;
                round_ray(&state, dir);
                crowd_raycast_brute(h, eye, dir, 1000.0f, &hit);
            }
            double brute = (tool_now_ms() - t0) * 1e6 / BRUTE_RAYS;
            bench_kills(c, sim, h, count, &kills[k]);
            qsort(update, BATCHES, sizeof update[0], tool_compare_double);
            qsort(per_ray, BATCHES, sizeof per_ray[0], tool_compare_double);
            double ns = per_ray[BATCHES / 2];
            printf("%9u %9.3f ms | %10.0f %9.1f %6.1f%% | %10.0f %8.0fx\n", count, update[BATCHES / 2], ns,
                   tested / (BATCHES * (double)RAYS), 100.0 * hit_count / (BATCHES * (double)RAYS), brute, brute / ns);
        }
        crowd_hits_destroy(h);
        crowd_sim_destroy(sim);
        crowd_destroy(c);
    }
    printf("hits update: crowd_hits_update (medians of %d frames); ns / round: crowd_raycast, median of %d batches\n"
           "of %u rounds; tested: cylinders per round; brute: every instance, %u rounds.\n",
           BATCHES, BATCHES, RAYS, BRUTE_RAYS);
    printf(
        "\nkills (crowd_remove and crowd_hits_remove, 1 %% of the crowd at random) and the respawn (crowd_set_count\n"
        "back to the editor count; the next crowd_update lays the records out afresh):\n");
    printf("%9s %8s %10s %12s %12s %14s\n", "instances", "killed", "us / kill", "respawn ms", "update ms",
           "next update ms");
    // cppcheck-suppress knownConditionTrueFalse ; false positive: n is the caller's row count (1..16)
    for (uint32_t k = 0; k < n && !status; k++)
        printf("%9u %8u %10.3f %12.3f %12.3f %14.3f\n", counts[k], kills[k].killed, kills[k].kill_us,
               kills[k].respawn_ms, kills[k].update_ms, kills[k].relayout_ms);
    return status;
}
