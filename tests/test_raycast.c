/* crowd_raycast against brute force over every instance: the same first hit (index and distance,
 * bit for bit) for thousands of random rays, at a small fraction of the cylinders tested. kill
 * and the respawn (crowd_set_count): every other instance's state bit for bit, the fallen back where
 * they fell, no round ever hitting a dead one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowdbake/crowd.h"
#include "crowdbake/hits.h"
#include "crowdbake/sim.h"
#include "sim/sim_testing.h" /* the simulation's per-slot state, to compare it bit for bit */
#include "test_support.h"

static crowd_bake_output baked;
static crowd_asset asset;

static void random_ray(uint64_t *rng, float world, float o[3], float d[3], float *max_distance)
{
    double kind = test_uniform(rng), half = 0.5 * world;
    for (int k = 0; k < 3; k += 2)
        o[k] = (float)((test_uniform(rng) * 2.0 - 1.0) * half * 1.1); /* some start outside the world */
    double yaw = test_uniform(rng) * 6.283185307, pitch;
    if (kind < 0.4) { /* eye level, nearly horizontal: through the crowd */
        o[1] = (float)(0.3 + 1.5 * test_uniform(rng));
        pitch = (test_uniform(rng) - 0.5) * 0.2;
    } else if (kind < 0.8) { /* from the air, down into it (the gun's strafing runs) */
        o[1] = (float)(3.0 + 80.0 * test_uniform(rng));
        pitch = -(0.05 + 1.4 * test_uniform(rng));
    } else { /* anything */
        o[1] = (float)(-2.0 + 10.0 * test_uniform(rng));
        pitch = (test_uniform(rng) - 0.5) * 3.1;
    }
    d[0] = (float)(cos(pitch) * sin(yaw));
    d[1] = (float)sin(pitch);
    d[2] = (float)(cos(pitch) * cos(yaw));
    *max_distance = test_uniform(rng) < 0.1 ? INFINITY : (float)(5.0 + 600.0 * test_uniform(rng));
}

/* One crowd: `count` wandering agents, some giants, some outside the world, some parked. */
static void against_brute_force(float world, float chunk, uint32_t count, uint32_t rays)
{
    crowd_desc d = {.asset = &asset, .capacity = count + 16, .world_size = world, .chunk_size = chunk};
    crowd *c = NULL;
    REQUIRE(crowd_create(&d, &c, NULL) == CROWD_OK);
    crowd_sim_desc sd = {.target = c, .seed = 3, .separation = -1};
    crowd_sim *sim = NULL;
    REQUIRE(crowd_sim_create(&sd, &sim, NULL) == CROWD_OK);
    REQUIRE(crowd_sim_spawn(sim, count + 16) == CROWD_OK);
    crowd_view view = {0};
    for (int f = 0; f < 5; f++) {
        crowd_sim_step(sim, 1.0f / 30.0f);
        crowd_update(c, 1.0f / 30.0f, &view);
    }
    crowd_set_count(c, count); /* 16 parked: never hit */
    for (uint32_t i = 0; i < 8; i++) {
        crowd_set_scale(c, i * 7, 6.0f + 10.0f * (float)i); /* wider than a cell: the short list */
        crowd_set_transform(c, 100 + i, 0.5f * world + 3.0f * (float)i, 0.0f, 0.1f * world, 0.0f); /* outside */
    }
    crowd_update(c, 1.0f / 30.0f, &view);
    crowd_hits *h = NULL;
    crowd_error err;
    REQUIRE(crowd_hits_create(c, &h, &err) == CROWD_OK);
    crowd_hits_update(h);
    uint64_t rng = 12345 + count;
    uint32_t mismatched = 0, hits = 0, worst = 0;
    double tested = 0.0;
    for (uint32_t i = 0; i < rays; i++) {
        float o[3], dir[3], max_distance;
        random_ray(&rng, world, o, dir, &max_distance);
        crowd_ray_hit a, b;
        bool ha = crowd_raycast(h, o, dir, max_distance, &a), hb = crowd_raycast_brute(h, o, dir, max_distance, &b);
        if (ha != hb || a.index != b.index || (ha && a.distance != b.distance)) {
            if (mismatched++ < 5)
                fprintf(stderr, "ray %u: grid %u at %.6f, brute %u at %.6f\n", i, a.index, (double)a.distance, b.index,
                        (double)b.distance);
        }
        CHECK(!ha || a.index < count);
        hits += ha;
        tested += a.tested;
        worst = a.tested > worst ? a.tested : worst;
        CHECK(b.tested == count);
    }
    CHECKF(mismatched == 0, "%u of %u rays disagree with brute force", mismatched, rays);
    CHECKF(hits > rays / 10 && hits < rays, "%u of %u rays hit: the test lost its teeth", hits, rays);
    double mean = tested / rays;
    CHECKF(mean < 64.0, "%.1f cylinders tested per ray on average", mean);
    CHECKF(worst < count / 4, "a ray tested %u of %u cylinders", worst, count);
    printf("     %u instances, world %g m, chunks %g m: %u rays, %u hits, same first hit as brute force; "
           "tested %.1f per ray (worst %u)\n",
           count, (double)world, (double)chunk, rays, hits, mean, worst);

    /* a ray from inside a cylinder hits it at 0; bad rays hit nothing */
    crowd_record rec;
    REQUIRE(crowd_get(c, 5, &rec) == CROWD_OK);
    float inside[3], up[3] = {0, 1, 0};
    crowd_record_position(&rec, crowd_time(c), inside);
    inside[1] += 1.0f;
    crowd_ray_hit hit;
    CHECK(crowd_raycast(h, inside, up, 10.0f, &hit) && hit.distance == 0.0f);
    float zero[3] = {0, 0, 0}, nan_origin[3] = {NAN, 0, 0};
    CHECK(!crowd_raycast(h, inside, zero, 10.0f, &hit) && hit.index == UINT32_MAX);
    CHECK(!crowd_raycast(h, nan_origin, up, 10.0f, &hit));
    CHECK(!crowd_raycast(h, inside, up, -1.0f, &hit));
    crowd_hits_destroy(h);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
}

static void raycast_matches_brute_force(void)
{
    against_brute_force(420.0f, 24.0f, 20000, 4000); /* the demo's world */
    against_brute_force(100.0f, 200.0f, 5000, 3000); /* one chunk: refined all the same */
    against_brute_force(60.0f, 8.0f, 3000, 3000);    /* dense */
}

/* Everything the crowd keeps per instance: the record and the simulation's state. */
typedef struct instance_state {
    crowd_record record;
    sim_agent agent;
    sim_drift drift;
} instance_state;

static instance_state state_of(crowd *c, crowd_sim *sim, uint32_t index)
{
    instance_state st;
    memset(&st, 0, sizeof st); /* padding compares too */
    crowd_get(c, index, &st.record);
    sim_testing_agent(sim, index, &st.agent, &st.drift);
    return st;
}

/* A round hit instance `index`: it leaves the crowd (crowd_remove) and the hit index the same way. */
static crowd_result kill_instance(crowd *c, crowd_hits *h, uint32_t index)
{
    crowd_result r = crowd_remove(c, index);
    return r == CROWD_OK ? crowd_hits_remove(h, index) : r;
}

/* Kills by rounds fired into a wandering, separating crowd; who[i] follows which original agent each
 * index holds (mirroring the documented swap), so every check is by identity. */
static void kill_and_respawn(void)
{
    enum { EDITOR = 3000, KILLS = 400 };
    const float world = 60.0f;
    crowd_desc d = {.asset = &asset, .capacity = EDITOR, .world_size = world, .chunk_size = 8.0f};
    crowd *c = NULL, *other = NULL;
    REQUIRE(crowd_create(&d, &c, NULL) == CROWD_OK);
    REQUIRE(crowd_create(&d, &other, NULL) == CROWD_OK);
    crowd_sim_desc sd = {.target = c, .seed = 11, .separation = 1};
    crowd_sim *sim = NULL;
    REQUIRE(crowd_sim_create(&sd, &sim, NULL) == CROWD_OK);
    REQUIRE(crowd_sim_spawn(sim, EDITOR) == CROWD_OK);
    crowd_view view = {0};
    for (int f = 0; f < 10; f++) {
        crowd_sim_step(sim, 1.0f / 30.0f);
        crowd_update(c, 1.0f / 30.0f, &view);
    }
    crowd_hits *h = NULL, *h_other = NULL;
    REQUIRE(crowd_hits_create(c, &h, NULL) == CROWD_OK);
    REQUIRE(crowd_hits_create(other, &h_other, NULL) == CROWD_OK);
    crowd_hits_update(h);

    static instance_state before[EDITOR], at_kill[EDITOR];
    static uint32_t who[EDITOR];
    static bool dead[EDITOR];
    float fell[EDITOR][3];
    for (uint32_t i = 0; i < EDITOR; i++) {
        before[i] = state_of(c, sim, i);
        who[i] = i;
        dead[i] = false;
    }
    float t_kill = crowd_time(c);

    /* bad input: nothing changes */
    CHECK(crowd_remove(NULL, 0) == CROWD_ERROR_ARGUMENT);
    CHECK(crowd_remove(c, EDITOR) == CROWD_ERROR_ARGUMENT);
    CHECK(strstr(crowd_last_error(c)->message, "crowd_remove") != NULL);
    CHECK(crowd_hits_remove(NULL, 0) == CROWD_ERROR_ARGUMENT);
    CHECK(crowd_hits_remove(h_other, EDITOR + 1) == CROWD_ERROR_ARGUMENT); /* past the count it had */
    CHECK(crowd_count(c) == EDITOR);

    uint64_t rng = 99;
    uint32_t kills = 0, rounds = 0, refire_dead = 0, mismatched = 0;
    while (kills < KILLS && rounds < 100000) {
        float o[3], dir[3], max_distance;
        random_ray(&rng, world, o, dir, &max_distance);
        rounds++;
        crowd_ray_hit a, b;
        bool ha = crowd_raycast(h, o, dir, max_distance, &a), hb = crowd_raycast_brute(h, o, dir, max_distance, &b);
        mismatched += ha != hb || a.index != b.index;
        if (!ha)
            continue;
        uint32_t count = crowd_count(c), victim = who[a.index];
        CHECK(a.index < count && !dead[victim]);
        at_kill[victim] = state_of(c, sim, a.index);
        crowd_record_position(&at_kill[victim].record, t_kill, fell[victim]);
        REQUIRE(kill_instance(c, h, a.index) == CROWD_OK);
        CHECK(kill_instance(c, h, count - 1) == CROWD_ERROR_ARGUMENT); /* the dead one's index is past the count */
        dead[victim] = true;
        who[a.index] = who[count - 1];
        kills++;
        /* the same round again: never the dead one */
        if (crowd_raycast(h, o, dir, max_distance, &a)) {
            refire_dead += a.index >= crowd_count(c) || dead[who[a.index]];
            crowd_raycast_brute(h, o, dir, max_distance, &b);
            mismatched += a.index != b.index;
        }
    }
    CHECKF(kills == KILLS, "%u kills in %u rounds", kills, rounds);
    CHECKF(refire_dead == 0, "%u rounds hit a dead instance", refire_dead);
    CHECKF(mismatched == 0, "%u rounds disagree with brute force after kills", mismatched);
    CHECK(crowd_count(c) == EDITOR - KILLS);
    /* indices stay dense, every survivor bit for bit what it was */
    uint32_t changed = 0;
    for (uint32_t i = 0; i < crowd_count(c); i++) {
        instance_state now = state_of(c, sim, i);
        changed += dead[who[i]] || memcmp(&now, &before[who[i]], sizeof now) != 0;
    }
    CHECKF(changed == 0, "%u survivors changed state when others were killed", changed);

    /* time goes on: the survivors walk, the dead lie where they fell */
    for (int f = 0; f < 30; f++) {
        crowd_sim_step(sim, 1.0f / 30.0f);
        crowd_update(c, 1.0f / 30.0f, &view);
        crowd_hits_update(h);
    }
    uint32_t parked_hits = 0;
    for (uint32_t r = 0; r < 4000; r++) {
        float o[3], dir[3], max_distance;
        random_ray(&rng, world, o, dir, &max_distance);
        crowd_ray_hit a;
        if (crowd_raycast(h, o, dir, max_distance, &a))
            parked_hits += a.index >= crowd_count(c) || dead[who[a.index]];
    }
    CHECKF(parked_hits == 0, "%u rounds hit the dead after an update", parked_hits);

    /* respawn to the editor count: the survivors untouched, the fallen back where they fell, as they were */
    uint32_t survivors = crowd_count(c);
    for (uint32_t i = 0; i < survivors; i++)
        before[who[i]] = state_of(c, sim, i);
    REQUIRE(crowd_set_count(c, EDITOR) == CROWD_OK);
    changed = 0;
    for (uint32_t i = 0; i < survivors; i++) {
        instance_state now = state_of(c, sim, i);
        changed += memcmp(&now, &before[who[i]], sizeof now) != 0;
    }
    CHECKF(changed == 0, "%u survivors changed state at the respawn", changed);
    uint32_t revived = 0, displaced = 0, altered = 0;
    float now_t = crowd_time(c), worst = 0.0f;
    for (uint32_t i = survivors; i < EDITOR; i++) {
        /* the last killed comes back first (index survivors), the first killed last */
        instance_state now = state_of(c, sim, i);
        uint32_t id = UINT32_MAX;
        for (uint32_t k = 0; k < EDITOR && id == UINT32_MAX; k++)
            if (dead[k] && memcmp(&now.agent, &at_kill[k].agent, sizeof now.agent) == 0 &&
                now.record.tint == at_kill[k].record.tint && now.record.variant == at_kill[k].record.variant &&
                now.record.scale == at_kill[k].record.scale)
                id = k;
        if (id == UINT32_MAX) {
            altered++;
            continue;
        }
        revived++;
        float p[3];
        crowd_record_position(&now.record, now_t, p);
        float e = fabsf(p[0] - fell[id][0]) + fabsf(p[1] - fell[id][1]) + fabsf(p[2] - fell[id][2]);
        worst = e > worst ? e : worst;
        displaced += e > 1e-4f;
        /* all but the anchoring (position, ref_time) as it was when it fell */
        crowd_record x = now.record, y = at_kill[id].record;
        x.position[0] = y.position[0], x.position[1] = y.position[1], x.position[2] = y.position[2];
        x.ref_time = y.ref_time;
        altered += memcmp(&x, &y, sizeof x) != 0 || memcmp(&now.drift, &at_kill[id].drift, sizeof now.drift) != 0;
    }
    CHECKF(revived == KILLS && altered == 0, "%u of %u revived as they fell, %u altered", revived, (unsigned)KILLS,
           altered);
    CHECKF(displaced == 0, "%u revived away from where they fell (worst %g m)", displaced, (double)worst);
    printf("     %u kills by %u rounds into %u agents: survivors bit-identical through kills and respawn, "
           "no round hit the dead, the fallen revived within %g m of where they fell\n",
           (unsigned)KILLS, rounds, (unsigned)EDITOR, (double)worst);
    crowd_update(c, 1.0f / 30.0f, &view); /* the respawn's re-layout runs */
    CHECK(crowd_count(c) == EDITOR);
    crowd_hits_destroy(h);
    crowd_hits_destroy(h_other);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    crowd_destroy(other);
}

int main(void)
{
    crowd_rig rig;
    crowd_humanoid_desc hd = {.density = 0.25f};
    crowd_error err;
    if (crowd_rig_build_humanoid(&hd, &rig, &err) != CROWD_OK)
        return 1;
    crowd_bake_desc desc = {.frames = 4};
    baked = bake_or_die(&rig, desc);
    if (crowd_asset_load_memory(&asset, baked.bytes, baked.size, &err) != CROWD_OK)
        return 1;
    RUN_TEST(raycast_matches_brute_force);
    RUN_TEST(kill_and_respawn);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    crowd_rig_free(&rig);
    TEST_MAIN_END();
}
