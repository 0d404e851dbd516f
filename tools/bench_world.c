/* crowd-bench --menagerie: the CPU cost per frame of several kinds in one world (crowd_world: the
 * kinds' steps, the separation across kinds, one crowd_update per kind) against a single-kind
 * crowd of the same total, on the benchmark scene (420 m world, 24 m chunks, obstacles, the bench
 * camera, dt 1/60). Kinds: the given asset (or the humanoid) and the critters quad and tube
 * (seed 1, baked here), equal shares. Runs alternate single / menagerie / menagerie without the
 * pass across kinds, ROUNDS times, and the medians of each run's median frame are reported
 * (figures in docs/performance.md). The pass's fixed part is its grid (600 x 600 cells at 0.7 m,
 * cleared and prefix-summed every step). */
#include "bench_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/view_matrices.h"
#include "crowdbake/critters.h"
#include "crowdbake/crowd.h"
#include "crowdbake/sim.h"
#include "showcase/scene.h"
#include "tool_support.h"

#define KINDS 3
#define ROUNDS 3

typedef struct run_result {
    double total, cross; /* median ms per frame: the whole frame, the pass across kinds */
} run_result;

/* kinds 1: the first asset alone with every instance; else a world of `kinds` kinds. */
static int run(const crowd_asset *const *assets, uint32_t kinds, uint32_t total, int across, uint32_t warmup,
               uint32_t frames, run_result *out)
{
    crowd *crowds[KINDS] = {0};
    crowd_sim *sims[KINDS] = {0};
    crowd_world *world = NULL;
    crowd_error err = {0};
    crowd_obstacle obstacles[SHOWCASE_OBSTACLES];
    showcase_scene_obstacles(obstacles);
    double *t = calloc(frames, sizeof(double)), *cross = calloc(frames, sizeof(double));
    int status = t && cross ? 0 : 1;
    for (uint32_t k = 0; k < kinds && !status; k++) {
        crowd_desc d = {.asset = assets[k], .capacity = total, .world_size = 420.0f, .chunk_size = 24.0f, .threads = 1};
        crowd_sim_desc sd = {.scenario = CROWD_SCENARIO_WANDER,
                             .obstacles = obstacles,
                             .obstacle_count = SHOWCASE_OBSTACLES,
                             .seed = 7 + k};
        if (crowd_create(&d, &crowds[k], &err) != CROWD_OK ||
            (sd.target = crowds[k], crowd_sim_create(&sd, &sims[k], &err)) != CROWD_OK)
            status = 1;
    }
    if (!status && kinds > 1) {
        crowd_world_desc wd = {.kinds = sims, .kind_count = kinds, .separation = across};
        status = crowd_world_create(&wd, &world, &err) != CROWD_OK || crowd_world_spawn(world, total) != CROWD_OK;
    } else if (!status) {
        status = crowd_sim_spawn(sims[0], total) != CROWD_OK;
    }
    crowd_view view = {0};
    showcase_scene_bench_view(&view);
    for (uint32_t f = 0; f < warmup + frames && !status; f++) {
        double t0 = tool_now_ms();
        if (world)
            crowd_world_step(world, 1.0f / 60.0f);
        else
            crowd_sim_step(sims[0], 1.0f / 60.0f);
        for (uint32_t k = 0; k < kinds; k++)
            crowd_update(crowds[k], 1.0f / 60.0f, &view);
        if (f >= warmup) {
            t[f - warmup] = tool_now_ms() - t0;
            cross[f - warmup] = world ? crowd_world_get_stats(world)->ms_cross : 0.0;
        }
    }
    if (status)
        fprintf(stderr, "crowd-bench: %s\n", err.message[0] ? err.message : "menagerie set-up failed");
    else
        *out = (run_result){tool_median(t, frames), tool_median(cross, frames)};
    crowd_world_destroy(world);
    for (uint32_t k = 0; k < kinds; k++) {
        crowd_sim_destroy(sims[k]);
        crowd_destroy(crowds[k]);
    }
    free(t);
    free(cross);
    return status;
}

static crowd_result bake_critter(crowd_critter_kind kind, crowd_bake_output *out, crowd_asset *asset,
                                 crowd_error *error)
{
    crowd_critter critter;
    crowd_critter_desc cd = {.kind = kind, .seed = 1};
    crowd_result r = crowd_critter_capture(&cd, &critter, error);
    if (r != CROWD_OK)
        return r;
    r = crowd_bake_frames(&critter.frames, &(crowd_bake_desc){0}, out, error);
    crowd_critter_free(&critter);
    return r == CROWD_OK ? crowd_asset_load_memory(asset, out->bytes, out->size, error) : r;
}

int bench_world(const crowd_asset *asset, const uint32_t *counts, uint32_t n, uint32_t warmup, uint32_t frames)
{
    crowd_bake_output baked[2] = {{0}};
    crowd_asset critters[2];
    crowd_error err = {0};
    const crowd_critter_kind kinds[2] = {CROWD_CRITTER_QUAD, CROWD_CRITTER_TUBE};
    for (int k = 0; k < 2; k++)
        if (bake_critter(kinds[k], &baked[k], &critters[k], &err) != CROWD_OK) {
            fprintf(stderr, "crowd-bench: critter: %s\n", err.message);
            for (int j = 0; j < k; j++) {
                crowd_asset_free(&critters[j]);
                crowd_bake_output_free(&baked[j]);
            }
            crowd_bake_output_free(&baked[k]);
            return 1;
        }
    const crowd_asset *all[KINDS] = {asset, &critters[0], &critters[1]};
    printf("crowd-bench --menagerie: %s + critter quad + critter tube (equal shares) against %s alone, same total;\n"
           "wander, benchmark scene, 1 thread; ms per frame (world or sim step + every kind's update), medians of\n"
           "%u frames after %u warm-up, then the median of %d alternating rounds\n",
           asset->source_name, asset->source_name, frames, warmup, ROUNDS);
    printf("%9s | %9s %9s %9s | %7s %9s\n", "instances", "single", "menagerie", "no across", "ratio", "across ms");
    int status = 0;
    for (uint32_t i = 0; i < n && !status; i++) {
        double single[ROUNDS], mixed[ROUNDS], plain[ROUNDS], cross[ROUNDS];
        for (int r = 0; r < ROUNDS && !status; r++) {
            run_result a, b, c;
            status = run(all, 1, counts[i], 0, warmup, frames, &a) ||
                     run(all, KINDS, counts[i], 0, warmup, frames, &b) ||
                     run(all, KINDS, counts[i], -1, warmup, frames, &c);
            if (!status) {
                single[r] = a.total;
                mixed[r] = b.total;
                plain[r] = c.total;
                cross[r] = b.cross;
            }
        }
        if (status)
            break;
        double s = tool_median(single, ROUNDS), m = tool_median(mixed, ROUNDS);
        printf("%9u | %9.3f %9.3f %9.3f | %6.2fx %9.3f\n", counts[i], s, m, tool_median(plain, ROUNDS), m / s,
               tool_median(cross, ROUNDS));
    }
    for (int k = 0; k < 2; k++) {
        crowd_asset_free(&critters[k]);
        crowd_bake_output_free(&baked[k]);
    }
    return status;
}
