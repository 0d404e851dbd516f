/* Threads (crowd_desc.threads): the worker pool itself, and determinism: the same seed and calls
 * give the same records, draws and uploads bit for bit on every run with a given thread count;
 * binning and separation give the same whatever the count (a scenario without random decisions
 * matches across 1, 2 and 3 threads). Also the coverage policy's incremental ordering against the
 * full sort it replaced. Under ThreadSanitizer (make test's tsan step) this and the
 * threaded soak are the race checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/view_matrices.h"
#include "core/pool.h"
#include "crowd/crowd_testing.h" /* white box: whether the walk really was split, the reference sort */
#include "crowdbake/crowd.h"
#include "crowdbake/sim.h"
#include "test_support.h"

static crowd_bake_output baked;
static crowd_asset asset;

typedef struct sum_job {
    uint32_t *hits;
} sum_job;

static void count_task(void *context, uint32_t task)
{
    sum_job *job = context;
    job->hits[task]++; /* each task index is its own: no two tasks write one word */
}

static void pool_runs_every_task_once(void)
{
    const uint32_t sizes[] = {0, 1, 2, 3, 7};
    for (uint32_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        crowd_pool *pool = crowd_pool_create(sizes[s]);
        REQUIRE(pool);
        CHECK(crowd_pool_threads(pool) >= 1);
        if (sizes[s])
            CHECKF(crowd_pool_threads(pool) == sizes[s] || crowd_pool_cores() == 1, "%u threads asked, %u", sizes[s],
                   crowd_pool_threads(pool));
        uint32_t hits[300];
        for (uint32_t round = 0; round < 50; round++) {
            memset(hits, 0, sizeof hits);
            sum_job job = {hits};
            uint32_t tasks = 1 + round * 6;
            crowd_pool_run(pool, tasks, count_task, &job);
            uint32_t wrong = 0;
            for (uint32_t t = 0; t < 300; t++)
                wrong += hits[t] != (t < tasks);
            CHECKF(!wrong, "pool of %u, %u tasks: %u tasks not run exactly once", sizes[s], tasks, wrong);
        }
        crowd_pool_destroy(pool);
    }
    crowd_pool_destroy(NULL);
    uint32_t hit = 0;
    sum_job job = {&hit};
    crowd_pool_run(NULL, 1, count_task, &job); /* no pool: on the caller's thread */
    CHECK(hit == 1);
    CHECK(crowd_pool_cores() >= 1);
}

static void view_at(crowd_view *v, float ex, float ey, float ez)
{
    const float eye[3] = {ex, ey, ez}, target[3] = {0, 1.2f, 0}, up[3] = {0, 1, 0};
    cb_look_at(v->view, eye, target, up);
    cb_perspective(v->projection, 58.0f * 3.14159265f / 180.0f, 16.0f / 9.0f, 0.3f, 900.0f);
    v->viewport_height = 1080.0f;
}

static uint64_t fnv(uint64_t h, const void *data, size_t size)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Everything an update hands out that is defined: drawn records, draws, uploads, stats counts. */
static uint64_t frame_hash(uint64_t h, const crowd_frame *f)
{
    for (uint32_t d = 0; d < f->draw_count; d++) {
        h = fnv(h, &f->draws[d], sizeof f->draws[d]);
        h = fnv(h, f->records + f->draws[d].first, sizeof(crowd_record) * f->draws[d].count);
    }
    h = fnv(h, f->uploads, sizeof *f->uploads * f->upload_count);
    h = fnv(h, f->stats.lod_histogram, sizeof f->stats.lod_histogram);
    return fnv(h, &f->stats.fades_active, sizeof f->stats.fades_active);
}

/* A run: n agents of `scenario` (separation on), frames steps and updates with an orbiting
 * camera; with `setters`, no sim at all but every instance moved through the setters (binning in
 * crowd_update). Returns the hash of every frame and of every instance's final record. */
static uint64_t run(uint32_t threads, crowd_scenario scenario, bool setters, uint32_t n, uint32_t frames, bool *split)
{
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    crowd_error err;
    crowd_obstacle obstacles[3] = {{0, 0, 3}, {40, -30, 5}, {-60, 80, 2}};
    crowd_desc d = {.asset = &asset, .capacity = n, .world_size = 420.0f, .chunk_size = 24.0f, .threads = threads};
    if (crowd_create(&d, &c, &err) != CROWD_OK) {
        fprintf(stderr, "crowd_create: %s\n", err.message);
        exit(1);
    }
    if (setters) {
        uint64_t rng = 11;
        crowd_set_count(c, n);
        for (uint32_t i = 0; i < n; i++) {
            float x = (float)(test_uniform(&rng) * 400.0 - 200.0), z = (float)(test_uniform(&rng) * 400.0 - 200.0);
            crowd_set_transform(c, i, x, 0.0f, z, (float)(test_uniform(&rng) * 6.0));
        }
    } else if (crowd_sim_create(&(crowd_sim_desc){.target = c,
                                                  .scenario = scenario,
                                                  .obstacles = obstacles,
                                                  .obstacle_count = 3,
                                                  .separation = 1,
                                                  .seed = 9},
                                &sim, &err) != CROWD_OK ||
               crowd_sim_spawn(sim, n) != CROWD_OK) {
        fprintf(stderr, "sim: %s\n", err.message);
        exit(1);
    }
    uint64_t h = 14695981039346656037ull;
    *split = false;
    for (uint32_t f = 0; f < frames; f++) {
        if (sim) {
            crowd_sim_step(sim, 1.0f / 60.0f);
        } else {
            for (uint32_t i = f % 7; i < n; i += 7) { /* a seventh walks east a little, some change chunk */
                crowd_record r;
                if (crowd_get(c, i, &r) != CROWD_OK)
                    continue;
                float x = r.position[0] + 0.9f;
                crowd_set_transform(c, i, x > 205.0f ? x - 410.0f : x, r.position[1], r.position[2], r.yaw);
            }
        }
        crowd_view view = {0};
        float a = 0.05f * (float)f;
        view_at(&view, 60.0f * cosf(a), 20.0f, 60.0f * sinf(a));
        const crowd_frame *fr = crowd_update(c, 1.0f / 60.0f, &view);
        h = frame_hash(h, fr);
        *split |= crowd_tasks_enabled(c);
    }
    for (uint32_t i = 0; i < crowd_count(c); i++) {
        crowd_record r;
        if (crowd_get(c, i, &r) == CROWD_OK)
            h = fnv(h, &r, sizeof r);
    }
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    return h;
}

/* --small (ThreadSanitizer's tree, where everything runs ~40x slower): fewer agents and frames, and
 * only the tests that run worker threads. */
static bool small;

static void same_records_for_a_thread_count(void)
{
    const uint32_t n = 30000, frames = small ? 10 : 40; /* fewer agents would not split the walk */
    uint64_t wander[3], gather[3], moved[3];
    const uint32_t counts[3] = {1, 2, 3};
    for (int t = 0; t < 3; t++) {
        bool split = false, split_again = false;
        /* wander decisions come 2-6 s apart: 160 frames see many (--small: one run per count) */
        wander[t] = run(counts[t], CROWD_SCENARIO_WANDER, false, 10000, 160, &split);
        if (!small) {
            uint64_t again = run(counts[t], CROWD_SCENARIO_WANDER, false, 10000, 160, &split_again);
            CHECKF(wander[t] == again, "wander, %u threads: two runs differ", counts[t]);
        }
        CHECKF(split == (counts[t] > 1), "%u threads: walk split %d", counts[t], split);
        gather[t] = run(counts[t], CROWD_SCENARIO_GATHER, false, n, frames, &split);
        moved[t] = run(counts[t], CROWD_SCENARIO_WANDER, true, n, frames, &split);
        CHECKF(split == (counts[t] > 1), "setters, %u threads: walk split %d", counts[t], split);
    }
    /* Without random decisions (gather) the simulation, its separation and the binning are the
     * same whatever the split; setters only: binning alone. */
    for (int t = 1; t < 3; t++) {
        CHECKF(gather[t] == gather[0], "gather: %u threads differ from 1", counts[t]);
        CHECKF(moved[t] == moved[0], "setters: %u threads differ from 1", counts[t]);
    }
    CHECKF(wander[1] != wander[0] || wander[2] != wander[0], "wander: every count the same (decisions not split?)");
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The coverage policy moves only the instances that changed level (crowd_update.c, move_buckets);
 * the old policy sorted every slot whenever the order broke. Against it, frame by frame: the same
 * instances in each level's draw, the same stats, the same records per instance. */
static void coverage_moves_match_the_full_sort(void)
{
    const uint32_t n = 20000, frames = 90;
    crowd *c[2] = {NULL, NULL};
    static const struct crowd_test_hooks reference = {.coverage_full_sort = true};
    for (int k = 0; k < 2; k++) {
        crowd_desc d = {.asset = &asset,
                        .capacity = n,
                        .world_size = 420.0f,
                        .chunk_size = 24.0f,
                        .lod_policy = CROWD_LOD_SCREEN_COVERAGE,
                        .vertex_budget = 3000000};
        REQUIRE(crowd_create(&d, &c[k], NULL) == CROWD_OK);
        crowd_testing_set_hooks(c[k], k == 1 ? &reference : NULL);
        uint64_t rng = 5;
        crowd_set_count(c[k], n);
        for (uint32_t i = 0; i < n; i++) {
            float x = (float)(test_uniform(&rng) * 200.0 - 100.0), z = (float)(test_uniform(&rng) * 200.0 - 100.0);
            crowd_set_transform(c[k], i, x, 0.0f, z, 0.0f);
        }
    }
    uint32_t *lists[2] = {malloc(sizeof(uint32_t) * n), malloc(sizeof(uint32_t) * n)};
    REQUIRE(lists[0] && lists[1]);
    uint64_t moved_bytes[2] = {0, 0};
    uint32_t bad_frames = 0;
    for (uint32_t f = 0; f < frames; f++) {
        crowd_view view = {0};
        float a = 0.04f * (float)f, r = 20.0f + 0.8f * (float)f;
        view_at(&view, r * cosf(a), 4.0f + 0.2f * (float)f, r * sinf(a));
        const crowd_frame *fr[2];
        for (int k = 0; k < 2; k++) {
            for (uint32_t i = f % 5; i < n; i += 5) { /* a fifth moves: some change chunk */
                crowd_record rec;
                crowd_get(c[k], i, &rec);
                crowd_set_transform(c[k], i, rec.position[0] + 0.7f, 0.0f, rec.position[2], rec.yaw);
            }
            fr[k] = crowd_update(c[k], 1.0f / 60.0f, &view);
            moved_bytes[k] += fr[k]->stats.bytes_uploaded;
        }
        bool same =
            fr[0]->draw_count == fr[1]->draw_count &&
            !memcmp(fr[0]->stats.lod_histogram, fr[1]->stats.lod_histogram, sizeof fr[0]->stats.lod_histogram) &&
            fr[0]->stats.submitted == fr[1]->stats.submitted && fr[0]->stats.demoted == fr[1]->stats.demoted &&
            fr[0]->stats.budget_satisfied == fr[1]->stats.budget_satisfied;
        for (uint32_t d = 0; same && d < fr[0]->draw_count; d++) {
            const crowd_draw *x = &fr[0]->draws[d], *y = &fr[1]->draws[d];
            same = x->lod == y->lod && x->count == y->count && x->flags == y->flags;
            for (int k = 0; same && k < 2; k++) {
                const crowd_draw *dk = &fr[k]->draws[d];
                for (uint32_t s = 0; s < dk->count; s++)
                    lists[k][s] = c[k]->index_of_slot[dk->first + s];
                qsort(lists[k], dk->count, sizeof(uint32_t), compare_u32);
            }
            same = same && !memcmp(lists[0], lists[1], sizeof(uint32_t) * x->count);
        }
        bad_frames += !same;
    }
    CHECKF(!bad_frames, "%u of %u frames differ from the full sort's", bad_frames, frames);
    uint32_t differ = 0;
    for (uint32_t i = 0; i < n; i++) {
        crowd_record x, y;
        crowd_get(c[0], i, &x);
        crowd_get(c[1], i, &y);
        differ += memcmp(&x, &y, sizeof x) != 0;
    }
    CHECKF(!differ, "%u records differ", differ);
    CHECKF(c[0]->work.coverage_moves > frames / 2 && c[1]->work.coverage_moves == 0,
           "%u updates moved slots, %u sorted", c[0]->work.coverage_moves, c[0]->work.coverage_sorts);
    printf("     coverage policy, %u frames: %.1f MB uploaded moving the changed (full sort: %.1f MB)\n", frames,
           (double)moved_bytes[0] / 1048576.0, (double)moved_bytes[1] / 1048576.0);
    free(lists[0]);
    free(lists[1]);
    crowd_destroy(c[0]);
    crowd_destroy(c[1]);
}

static void threads_setting(void)
{
    crowd *c = NULL;
    crowd_error err;
    crowd_desc d = {.asset = &asset, .capacity = 100, .threads = CROWD_MAX_THREADS + 1};
    CHECK(crowd_create(&d, &c, &err) == CROWD_ERROR_ARGUMENT && !c && strstr(err.message, "threads"));
    d.threads = 0;
    REQUIRE(crowd_create(&d, &c, &err) == CROWD_OK);
    CHECK(crowd_settings(c)->threads == 0);
    crowd_desc changed = *crowd_settings(c);
    changed.threads = 2;
    CHECK(crowd_configure(c, &changed, &err) == CROWD_ERROR_ARGUMENT); /* fixed at creation */
    crowd_destroy(c);
}

int main(int argc, char **argv)
{
    small = argc > 1 && !strcmp(argv[1], "--small");
    baked = bake_or_die(humanoid(), (crowd_bake_desc){.bones = true});
    if (crowd_asset_load_memory(&asset, baked.bytes, baked.size, NULL) != CROWD_OK)
        return 1;
    RUN_TEST(pool_runs_every_task_once);
    RUN_TEST(threads_setting);
    RUN_TEST(same_records_for_a_thread_count);
    if (!small) /* one thread: nothing for ThreadSanitizer to see */
        RUN_TEST(coverage_moves_match_the_full_sort);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
