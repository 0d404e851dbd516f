/* A settled crowd (no simulation, nobody moving, no fade running) is not binned again every update:
 * the grid of the last binning holds for any time (crowd.grid_settled). Each reused frame must be
 * what a fresh binning gives: a twin crowd, poked every frame with a setter that changes nothing
 * (so it bins every time), draws the same ranges at the same levels with the same stats; and
 * whatever changes the grid (a velocity, a moved instance, a fade, a count change, new settings)
 * bins again, on both LOD policies, with binning on one thread and on two. Every frame also draws every instance whose own sphere is in
 * view (a brute-force test that knows nothing of the grid). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/crowd_testing.h" /* the work counters */
#include "crowdbake/crowd.h"
#include "test_support.h"

static crowd_bake_output baked;
static crowd_asset asset;

static crowd *scattered(crowd_lod_policy policy, uint32_t n, uint32_t threads)
{
    crowd_desc d = {.asset = &asset,
                    .capacity = n + 10,
                    .world_size = 420.0f,
                    .chunk_size = 24.0f,
                    .lod_policy = policy,
                    .threads = threads};
    crowd *c = NULL;
    if (crowd_create(&d, &c, NULL) != CROWD_OK || crowd_set_count(c, n) != CROWD_OK)
        exit(1);
    uint64_t seed = 9;
    for (uint32_t i = 0; i < n; i++) {
        float x = (float)(test_uniform(&seed) * 300.0 - 150.0), z = (float)(test_uniform(&seed) * 300.0 - 150.0);
        crowd_set_transform(c, i, x, 0.0f, z, (float)test_uniform(&seed) * 6.28f);
        crowd_play(c, i, (uint32_t)(test_uniform(&seed) * asset.clip_count), 1.0f, 0.0f);
    }
    return c;
}

/* The frames agree on what is drawn: draws (ranges, levels, flags), the records in them, the stats
 * that do not count time or uploads. */
static bool same_frame(const crowd_frame *a, const crowd_frame *b)
{
    if (a->draw_count != b->draw_count || a->stats.submitted != b->stats.submitted ||
        a->stats.triangles != b->stats.triangles || a->stats.chunks_visible != b->stats.chunks_visible ||
        a->stats.chunks_total != b->stats.chunks_total || a->stats.extrapolating != b->stats.extrapolating ||
        a->stats.fades_active != b->stats.fades_active ||
        memcmp(a->stats.lod_histogram, b->stats.lod_histogram, sizeof a->stats.lod_histogram))
        return false;
    for (uint32_t d = 0; d < a->draw_count; d++) {
        if (memcmp(&a->draws[d], &b->draws[d], sizeof a->draws[d]))
            return false;
        for (uint32_t s = a->draws[d].first; s < a->draws[d].first + a->draws[d].count; s++)
            if (memcmp(&a->records[s], &b->records[s], sizeof a->records[s]))
                return false;
    }
    return true;
}

/* Ground truth, independent of the grid: instances whose own sphere (their clip's, extrapolated to
 * the frame) meets the frustum but that no draw holds. */
static uint32_t missed(crowd *c, const crowd_frame *f, const crowd_view *v)
{
    float planes[6][4];
    crowd_frustum_planes(v->view, v->projection, planes);
    uint8_t *drawn = calloc(crowd_count(c) + 1, 1);
    if (!drawn)
        exit(1);
    for (uint32_t d = 0; d < f->draw_count; d++)
        for (uint32_t s = f->draws[d].first; s < f->draws[d].first + f->draws[d].count; s++)
            if (crowd_index_of_slot(c, s) < crowd_count(c))
                drawn[crowd_index_of_slot(c, s)] = 1;
    uint32_t misses = 0;
    for (uint32_t i = 0; i < crowd_count(c); i++) {
        crowd_record r;
        crowd_get(c, i, &r);
        float centre[3], radius;
        test_cull_sphere(&asset, &r, f->time, centre, &radius);
        misses += test_sphere_in(planes, centre, radius) && !drawn[i];
    }
    free(drawn);
    return misses;
}

static void settled_grid_is_reused(void)
{
    for (int run = 0; run < 4; run++) { /* both policies, binning on one thread and on a pool of two */
        int policy = run & 1;
        uint32_t threads = 1 + (uint32_t)(run >> 1);
        const char *name = policy ? (threads > 1 ? "coverage, 2 threads" : "coverage")
                                  : (threads > 1 ? "distance, 2 threads" : "distance");
        const uint32_t n = threads > 1 ? 9000 : 4000; /* the pool bins from 8,192 live instances up */
        crowd *c = scattered((crowd_lod_policy)policy, n, threads),
              *twin = scattered((crowd_lod_policy)policy, n, threads);
        crowd_view v = {0};
        test_view_at(&v, 28.0f, 16.0f, 44.0f, 0.0f, 1.2f, 0.0f);
        uint32_t differ = 0, twin_reused = twin->work.bins_reused;
        for (int frame = 0; frame < 40; frame++) {
            if (frame >= 20) /* the camera moves: culling and levels change, the grid does not */
                test_view_at(&v, 28.0f + 2.0f * (float)(frame - 20), 16.0f, 44.0f - (float)(frame - 20), 0.0f, 1.2f,
                             0.0f);
            crowd_set_scale(twin, 5, 1.0f); /* a write of the same bytes: the twin bins again */
            const crowd_frame *f = crowd_update(c, 1.0f / 60.0f, &v);
            differ += !same_frame(f, crowd_update(twin, 1.0f / 60.0f, &v)) || missed(c, f, &v);
        }
        uint32_t reused = c->work.bins_reused;
        if (threads > 1 && !policy) /* the pool did the binning here (a region layout, enough instances) */
            CHECKF(crowd_tasks_enabled(c), "%s: binning never ran on the pool", name);
        CHECKF(differ == 0, "%s: %u of 40 frames differ from a crowd binned every frame", name, differ);
        /* the first update bins (the instances were placed); the 39 after it reuse the grid */
        CHECKF(reused == 39 && twin->work.bins_reused == twin_reused, "%s: grid reused %u times (twin %u)", name,
               reused, twin->work.bins_reused - twin_reused);

        /* each of these bins again, and the frame after still matches the twin */
        struct {
            const char *what;
            int step;
        } changes[] = {{"a velocity", 0}, {"stopped again", 1},  {"a transform", 2},
                       {"a fade", 3},     {"a count change", 4}, {"new settings", 5}};
        for (uint32_t k = 0; k < sizeof changes / sizeof changes[0]; k++) {
            for (int side = 0; side < 2; side++) {
                crowd *x = side ? twin : c;
                switch (changes[k].step) {
                case 0:
                    crowd_set_velocity(x, 17, 3.0f, 0.0f);
                    break;
                case 1:
                    crowd_set_velocity(x, 17, 0.0f, 0.0f);
                    break;
                case 2:
                    crowd_set_transform(x, 18, 0.0f, 0.0f, 0.0f, 1.0f);
                    break; /* where the camera looks */
                case 3:
                    crowd_play(x, 19, 1, 1.0f, 0.25f);
                    break;
                case 4:
                    crowd_set_count(x, n + 3);
                    break;
                default: {
                    crowd_desc d = *crowd_settings(x);
                    d.lod_bias = 1.5f;
                    crowd_configure(x, &d, NULL);
                }
                }
            }
            uint32_t before = c->work.bins_reused;
            const crowd_frame *f = crowd_update(c, 0.1f, &v);
            bool same = same_frame(f, crowd_update(twin, 0.1f, &v)) && !missed(c, f, &v);
            CHECKF(c->work.bins_reused == before && same, "%s, %s: %s, %s", name, changes[k].what,
                   c->work.bins_reused == before ? "binned" : "the grid was reused",
                   same ? "same frame" : "frames differ or a visible instance is not drawn");
            /* a moving instance or a running fade keeps it binning; then it settles again */
            uint32_t binned_while = 0;
            for (int frame = 0; frame < 6; frame++) {
                before = c->work.bins_reused;
                f = crowd_update(c, 0.1f, &v);
                same = same_frame(f, crowd_update(twin, 0.1f, &v)) && !missed(c, f, &v);
                binned_while += c->work.bins_reused == before;
                CHECKF(same, "%s, %s: frame %d after differs", name, changes[k].what, frame);
            }
            if (changes[k].step == 0) /* walking on: never settled */
                CHECKF(binned_while == 6, "%s: a walker's crowd reused its grid %d times", name, 6 - (int)binned_while);
            else if (changes[k].step == 3) /* the 0.25 s fade folds within 3 updates, then it settles */
                CHECKF(binned_while >= 2 && binned_while <= 4, "%s: binned %u of 6 updates after a fade", name,
                       binned_while);
            else
                CHECKF(binned_while == 0, "%s, %s: binned %u of 6 updates after", name, changes[k].what, binned_while);
        }
        crowd_destroy(c);
        crowd_destroy(twin);
    }
}

int main(void)
{
    humanoid_asset_or_die((crowd_bake_desc){0}, &baked, &asset);
    RUN_TEST(settled_grid_is_reused);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
