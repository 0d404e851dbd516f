/* crowd_world (the menagerie): several kinds, one simulation. In a dense gather of three kinds
 * (the humanoid, a small humanoid and a baked critter) agents of different kinds keep their
 * distance with the separation across kinds on, and overlap freely with it off (so the check can
 * fail); a one-kind world steps exactly as its sim alone; the split adds up; bad descs are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowdbake/critters.h"
#include "crowdbake/crowd.h"
#include "crowdbake/sim.h"
#include "test_support.h"

static crowd_bake_output baked[2];
static crowd_asset assets[2]; /* the humanoid, a critter */

#define KINDS 3

typedef struct kind_setup {
    const crowd_asset *asset;
    float scale, radius;
} kind_setup;

/* 0: the humanoid; 1: the humanoid at 60 % with a 0.5 m radius; 2: the quadruped critter. */
static const kind_setup kind_of[KINDS] = {{&assets[0], 1.0f, 0.7f}, {&assets[0], 0.6f, 0.5f}, {&assets[1], 1.0f, 0.6f}};

typedef struct menagerie {
    crowd *crowds[KINDS];
    crowd_sim *sims[KINDS];
    crowd_world *world;
} menagerie;

static bool menagerie_make(menagerie *m, float world_size, uint32_t total, crowd_scenario scenario, int across)
{
    memset(m, 0, sizeof *m);
    for (int k = 0; k < KINDS; k++) {
        crowd_desc d = {.asset = kind_of[k].asset, .capacity = total, .world_size = world_size, .chunk_size = 8.0f};
        crowd_sim_desc sd = {.scenario = scenario,
                             .seed = 11u + (uint32_t)k,
                             .separation = 1,
                             .separation_radius = kind_of[k].radius,
                             .spawn = {.scale_min = kind_of[k].scale, .scale_max = kind_of[k].scale}};
        if (crowd_create(&d, &m->crowds[k], NULL) != CROWD_OK)
            return false;
        sd.target = m->crowds[k];
        if (crowd_sim_create(&sd, &m->sims[k], NULL) != CROWD_OK)
            return false;
    }
    crowd_world_desc wd = {.kinds = m->sims, .kind_count = KINDS, .separation = across};
    crowd_error err;
    if (crowd_world_create(&wd, &m->world, &err) != CROWD_OK) {
        fprintf(stderr, "%s\n", err.message);
        return false;
    }
    return crowd_world_spawn(m->world, total) == CROWD_OK;
}

static void menagerie_free(menagerie *m)
{
    crowd_world_destroy(m->world);
    for (int k = 0; k < KINDS; k++) {
        crowd_sim_destroy(m->sims[k]);
        crowd_destroy(m->crowds[k]);
    }
}

static void menagerie_run(menagerie *m, int steps, float dt)
{
    crowd_view view = {0};
    for (int f = 0; f < steps; f++) {
        crowd_world_step(m->world, dt);
        for (int k = 0; k < KINDS; k++)
            crowd_update(m->crowds[k], dt, &view);
    }
}

typedef struct agent_at {
    float x, z;
    int kind;
} agent_at;

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* For every agent, the nearest agent of another kind (or of its own: same_kind) over the pair's
 * radius (the mean of the kinds' radii); the fraction-th percentile of that ratio. */
static float nearest_percentile(const menagerie *m, bool same_kind, float fraction, float *closest)
{
    uint32_t n = 0;
    for (int k = 0; k < KINDS; k++)
        n += crowd_count(m->crowds[k]);
    agent_at *a = malloc(sizeof *a * n);
    float *ratio = malloc(sizeof(float) * n);
    if (!a || !ratio)
        exit(1);
    n = 0;
    for (int k = 0; k < KINDS; k++)
        for (uint32_t i = 0; i < crowd_count(m->crowds[k]); i++) {
            crowd_record r;
            float p[3];
            crowd_get(m->crowds[k], i, &r);
            crowd_record_position(&r, crowd_time(m->crowds[k]), p);
            a[n++] = (agent_at){p[0], p[2], k};
        }
    uint32_t rated = 0;
    for (uint32_t i = 0; i < n; i++) {
        float best = INFINITY;
        for (uint32_t j = 0; j < n; j++) {
            if (j == i || (a[j].kind == a[i].kind) != same_kind)
                continue;
            float ex = a[i].x - a[j].x, ez = a[i].z - a[j].z;
            float q = sqrtf(ex * ex + ez * ez) / (0.5f * (kind_of[a[i].kind].radius + kind_of[a[j].kind].radius));
            best = q < best ? q : best;
        }
        if (isfinite(best))
            ratio[rated++] = best;
    }
    qsort(ratio, rated, sizeof(float), compare_float);
    float p = rated ? ratio[(uint32_t)(fraction * (float)(rated - 1))] : NAN;
    *closest = rated ? ratio[0] : NAN;
    free(a);
    free(ratio);
    return p;
}

/* The dense gather: 900 agents of three kinds walk onto one plaza (sized for all of them) in a
 * 60 m world. Off, the kinds pass through each other; on, the nearest agent of another kind stays
 * near the pair's radius, as a kind's own do. */
static void gather_keeps_kinds_apart(void)
{
    float p1[2], p5[2], closest[2], own_p1 = 0.0f, own_closest;
    for (int across = 0; across < 2; across++) {
        menagerie m;
        REQUIRE(menagerie_make(&m, 60.0f, 900, CROWD_SCENARIO_GATHER, across ? 0 : -1));
        menagerie_run(&m, 600, 1.0f / 15.0f); /* 40 s: the farthest walk in and settle */
        const crowd_world_stats *st = crowd_world_get_stats(m.world);
        CHECK(across ? st->agents == 900 : st->agents == 0);
        p1[across] = nearest_percentile(&m, false, 0.01f, &closest[across]);
        p5[across] = nearest_percentile(&m, false, 0.05f, &closest[across]);
        if (across)
            own_p1 = nearest_percentile(&m, true, 0.01f, &own_closest);
        printf("  across kinds %s: nearest other kind / pair radius: 1st percentile %.3f, 5th %.3f, least %.3f; "
               "contacts %u, cross pass %.3f ms of %.3f\n",
               across ? "on " : "off", (double)p1[across], (double)p5[across], (double)closest[across],
               st->cross_contacts, st->ms_cross, st->ms_step);
        menagerie_free(&m);
    }
    printf("  own kind (on): 1st percentile %.3f, least %.3f\n", (double)own_p1, (double)own_closest);
    CHECKF(p1[1] >= 0.9f, "across on: 1st percentile of the nearest other kind %.3f of the pair radius (>= 0.9)",
           (double)p1[1]);
    CHECKF(p1[0] < 0.3f, "across off: 1st percentile %.3f; without the pass the kinds should overlap (< 0.3)",
           (double)p1[0]);
}

/* One kind at the default radius: the world adds nothing (no other kind to push, the plaza the
 * sim's own), so its records are the sim's alone, bit for bit. */
static void one_kind_is_the_sim(void)
{
    for (int scenario = 0; scenario < CROWD_SCENARIO_COUNT; scenario += CROWD_SCENARIO_GATHER) {
        crowd_record ra, rb;
        crowd *c[2];
        crowd_sim *s[2];
        for (int run = 0; run < 2; run++) {
            crowd_desc d = {.asset = &assets[0], .capacity = 500, .world_size = 50.0f, .chunk_size = 8.0f};
            REQUIRE(crowd_create(&d, &c[run], NULL) == CROWD_OK);
            crowd_sim_desc sd = {.target = c[run], .scenario = (crowd_scenario)scenario, .seed = 4, .separation = 1};
            REQUIRE(crowd_sim_create(&sd, &s[run], NULL) == CROWD_OK);
        }
        crowd_world *w = NULL;
        crowd_world_desc wd = {.kinds = &s[1], .kind_count = 1};
        REQUIRE(crowd_world_create(&wd, &w, NULL) == CROWD_OK);
        REQUIRE(crowd_sim_spawn(s[0], 500) == CROWD_OK);
        REQUIRE(crowd_world_spawn(w, 500) == CROWD_OK);
        crowd_view view = {0};
        for (int f = 0; f < 90; f++) {
            crowd_sim_step(s[0], 1.0f / 30.0f);
            crowd_world_step(w, 1.0f / 30.0f);
            crowd_update(c[0], 1.0f / 30.0f, &view);
            crowd_update(c[1], 1.0f / 30.0f, &view);
        }
        uint32_t differ = 0;
        for (uint32_t i = 0; i < 500; i++) {
            crowd_get(c[0], i, &ra);
            crowd_get(c[1], i, &rb);
            differ += memcmp(&ra, &rb, sizeof ra) != 0;
        }
        CHECKF(differ == 0, "%s: %u of 500 records differ from the sim alone", crowd_scenario_name(scenario), differ);
        crowd_world_destroy(w);
        for (int run = 0; run < 2; run++) {
            crowd_sim_destroy(s[run]);
            crowd_destroy(c[run]);
        }
    }
}

/* Shares split the total exactly, capacities hand the excess on, bad descs say why. */
static void split_and_refusals(void)
{
    crowd *c[3];
    crowd_sim *s[3];
    const uint32_t caps[3] = {100, 1000, 1000};
    for (int k = 0; k < 3; k++) {
        crowd_desc d = {.asset = &assets[k == 2], .capacity = caps[k], .world_size = k == 2 ? 80.0f : 60.0f};
        REQUIRE(crowd_create(&d, &c[k], NULL) == CROWD_OK);
        crowd_sim_desc sd = {.target = c[k]};
        REQUIRE(crowd_sim_create(&sd, &s[k], NULL) == CROWD_OK);
    }
    crowd_world *w = NULL;
    crowd_error err = {0};
    float shares[2] = {1.0f, 2.0f};
    crowd_world_desc wd = {.kinds = s, .kind_count = 2, .shares = shares};
    REQUIRE(crowd_world_create(&wd, &w, &err) == CROWD_OK);
    uint32_t counts[2];
    crowd_world_split(w, 301, counts);
    CHECKF(counts[0] == 100 && counts[1] == 201, "301 by 1:2 gave %u + %u", counts[0], counts[1]);
    crowd_world_split(w, 600, counts); /* kind 0 holds 100: its other 100 go to kind 1 */
    CHECKF(counts[0] == 100 && counts[1] == 500, "600 by 1:2 (cap 100) gave %u + %u", counts[0], counts[1]);
    crowd_world_split(w, 5000, counts);
    CHECK(counts[0] == 100 && counts[1] == 1000);
    CHECK(crowd_world_spawn(w, 301) == CROWD_OK && crowd_count(c[0]) == 100 && crowd_count(c[1]) == 201);
    crowd_world_destroy(w);

    crowd_sim *same[2] = {s[0], s[0]}, *none[2] = {s[0], NULL}, *sizes[2] = {s[0], s[2]};
    float zero[2] = {0.0f, 0.0f}, nan_share[2] = {1.0f, NAN};
    const crowd_world_desc bad[] = {{.kinds = NULL, .kind_count = 2},
                                    {.kinds = s, .kind_count = 0},
                                    {.kinds = s, .kind_count = CROWD_WORLD_MAX_KINDS + 1},
                                    {.kinds = same, .kind_count = 2},
                                    {.kinds = none, .kind_count = 2},
                                    {.kinds = sizes, .kind_count = 2},
                                    {.kinds = s, .kind_count = 2, .shares = zero},
                                    {.kinds = s, .kind_count = 2, .shares = nan_share},
                                    {.kinds = s, .kind_count = 2, .separation = 2}};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        err.message[0] = '\0';
        w = (crowd_world *)&err; /* must come back NULL */
        CHECKF(crowd_world_create(&bad[b], &w, &err) == CROWD_ERROR_ARGUMENT && !w && err.message[0],
               "bad desc %zu accepted", b);
    }
    CHECK(crowd_world_create(NULL, &w, &err) == CROWD_ERROR_ARGUMENT);
    crowd_world_step(NULL, 0.1f);
    CHECK(crowd_world_get_stats(NULL) == NULL);
    for (int k = 0; k < 3; k++) {
        crowd_sim_destroy(s[k]);
        crowd_destroy(c[k]);
    }
}

int main(void)
{
    crowd_rig rig;
    crowd_humanoid_desc hd = {.density = 0.25f};
    crowd_error err;
    if (crowd_rig_build_humanoid(&hd, &rig, &err) != CROWD_OK)
        return 1;
    baked[0] = bake_or_die(&rig, (crowd_bake_desc){.frames = 4});
    crowd_critter critter;
    crowd_critter_desc cd = {.kind = CROWD_CRITTER_QUAD, .seed = 1, .fps = 10};
    if (crowd_critter_capture(&cd, &critter, &err) != CROWD_OK ||
        crowd_bake_frames(&critter.frames, &(crowd_bake_desc){0}, &baked[1], &err) != CROWD_OK) {
        fprintf(stderr, "critter: %s\n", err.message);
        return 1;
    }
    for (int a = 0; a < 2; a++)
        if (crowd_asset_load_memory(&assets[a], baked[a].bytes, baked[a].size, &err) != CROWD_OK)
            return 1;
    RUN_TEST(split_and_refusals);
    RUN_TEST(one_kind_is_the_sim);
    RUN_TEST(gather_keeps_kinds_apart);
    for (int a = 0; a < 2; a++) {
        crowd_asset_free(&assets[a]);
        crowd_bake_output_free(&baked[a]);
    }
    crowd_critter_free(&critter);
    crowd_rig_free(&rig);
    TEST_MAIN_END();
}
