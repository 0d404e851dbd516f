/* crowd_raycast against brute force over every instance: the same first hit (index and distance,
 * bit for bit) for thousands of random rays, at a small fraction of the cylinders tested. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowdbake/crowd.h"
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
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    crowd_rig_free(&rig);
    TEST_MAIN_END();
}
