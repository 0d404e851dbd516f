/* crowd_view.culling: when a GPU pass culls, the crowd's update skips its levels and draw list,
 * and what such a pass reads stays exact. A "GPU" copy of the records and of slot_instances, kept
 * only through the frames' upload ranges (as crowd_gl_upload keeps its buffers), must hold every
 * live instance exactly once, byte for byte crowd_get's record, under a wandering simulation,
 * removals, a count change, fades and a moving camera, on both LOD policies; and switching back
 * gives a draw list again. No GL here: tests/test_gpu_cull holds the GPU pass to the CPU's choice. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/crowd_testing.h" /* the work counters */
#include "crowdbake/crowd.h"
#include "crowdbake/sim.h"
#include "test_support.h"

static crowd_bake_output baked;
static crowd_asset asset;

/* What a GPU pass sees: records and owners, written only through upload ranges. */
typedef struct gpu_copy {
    crowd_record *records;
    uint32_t *owners;
    uint8_t *seen;
    uint32_t capacity, indices;
    uint32_t span; /* the record_count of the last frame */
    bool uploaded;
} gpu_copy;

/* Applies the frame's uploads (and, as crowd_gl_upload does, the owners of slots that joined the span
 * in use: the crowd reports owner changes only inside its span), then returns how many live instances are not held exactly once with
 * crowd_get's bytes (0 when the copy is exact). */
static uint32_t gpu_copy_check(gpu_copy *g, const crowd *c, const crowd_frame *f)
{
    if (f->record_count > g->capacity)
        return UINT32_MAX;
    if (!g->uploaded) {
        memcpy(g->records, f->records, f->record_count * sizeof(crowd_record));
        memcpy(g->owners, f->slot_instances, f->record_count * sizeof(uint32_t));
        g->uploaded = true;
    } else if (f->record_count > g->span) {
        memcpy(g->owners + g->span, f->slot_instances + g->span, (f->record_count - g->span) * sizeof(uint32_t));
    }
    g->span = f->record_count;
    for (uint32_t u = 0; u < f->upload_count; u++) {
        crowd_range r = f->uploads[u];
        if (r.first + r.count > f->record_count)
            return UINT32_MAX;
        memcpy(g->records + r.first, f->records + r.first, r.count * sizeof(crowd_record));
        memcpy(g->owners + r.first, f->slot_instances + r.first, r.count * sizeof(uint32_t));
    }
    uint32_t count = crowd_count(c), bad = 0;
    memset(g->seen, 0, g->indices);
    for (uint32_t s = 0; s < f->record_count; s++) {
        uint32_t owner = g->owners[s];
        if (owner >= count)
            continue; /* slack or parked: the pass skips it */
        crowd_record r;
        crowd_get(c, owner, &r);
        bad += g->seen[owner]++ > 0 || memcmp(&r, &g->records[s], sizeof r) != 0;
    }
    for (uint32_t i = 0; i < count; i++)
        bad += !g->seen[i];
    return bad;
}

/* One run of the scripted frames; gpu_driven from the first. Returns the crowd (its sim in *sim). */
typedef struct run_result {
    uint32_t bad, drawn, rasterised, max_fades;
    uint64_t reorders;
    uint32_t fades[150];
    crowd_record *final; /* crowd_get of every index at the end */
    uint32_t count;
} run_result;

static crowd *run_frames(crowd_lod_policy policy, bool gpu_driven, crowd_sim **sim, crowd_view *v, gpu_copy *g,
                         run_result *out)
{
    const uint32_t n = 6000;
    crowd_desc d = {
        .asset = &asset, .capacity = n + 7, .world_size = 420.0f, .chunk_size = 24.0f, .lod_policy = policy};
    crowd *c = NULL;
    if (crowd_create(&d, &c, NULL) != CROWD_OK)
        exit(1);
    crowd_sim_desc sd = {.target = c, .scenario = CROWD_SCENARIO_WANDER, .seed = 11};
    if (crowd_sim_create(&sd, sim, NULL) != CROWD_OK || crowd_sim_spawn(*sim, n) != CROWD_OK)
        exit(1);
    uint32_t capacity = crowd_record_capacity(c);
    *g = (gpu_copy){calloc(capacity, sizeof(crowd_record)),
                    calloc(capacity, sizeof(uint32_t)),
                    calloc(n + 7, 1),
                    capacity,
                    n + 7,
                    0,
                    false};
    if (!g->records || !g->owners || !g->seen)
        exit(1);
    test_view_at(v, 28.0f, 16.0f, 44.0f, 0.0f, 1.2f, 0.0f);
    v->culling = gpu_driven ? CROWD_CULLING_GPU : CROWD_CULLING_CPU;
    memset(out, 0, sizeof *out);
    uint64_t seed = 3, reorders = c->work.coverage_sorts + c->work.coverage_moves;
    for (int frame = 0; frame < 150; frame++) {
        if (frame % 5 == 4)
            crowd_remove(c, (uint32_t)(test_uniform(&seed) * crowd_count(c)));
        if (frame == 40)
            crowd_set_count(c, crowd_count(c) + 7);
        if (frame == 60)
            for (uint32_t i = 0; i < 200; i++)
                crowd_play(c, i * 7, 0, 1.0f, 0.3f);
        if (frame >= 80) /* a moving camera: levels change under the coverage policy */
            test_view_at(v, 28.0f - 0.5f * (float)(frame - 80), 16.0f, 44.0f - 0.3f * (float)(frame - 80), 0.0f, 1.2f,
                         0.0f);
        crowd_sim_step(*sim, 1.0f / 60.0f);
        const crowd_frame *f = crowd_update(c, 1.0f / 60.0f, v);
        out->bad += gpu_copy_check(g, c, f);
        out->drawn += f->draw_count + f->stats.submitted;
        out->rasterised += crowd_count_visible(c, v);
        out->fades[frame] = f->stats.fades_active;
        out->max_fades = f->stats.fades_active > out->max_fades ? f->stats.fades_active : out->max_fades;
    }
    out->reorders = c->work.coverage_sorts + c->work.coverage_moves - reorders;
    out->count = crowd_count(c);
    out->final = calloc(out->count, sizeof(crowd_record));
    if (!out->final)
        exit(1);
    for (uint32_t i = 0; i < out->count; i++)
        crowd_get(c, i, &out->final[i]);
    return c;
}

static void gpu_copy_free(gpu_copy *g)
{
    free(g->records);
    free(g->owners);
    free(g->seen);
}

static void frames_feed_a_gpu_pass(void)
{
    for (int policy = 0; policy < 2; policy++) {
        const char *name = policy ? "coverage" : "distance";
        crowd_sim *sim = NULL, *cpu_sim = NULL;
        crowd_view v = {0};
        gpu_copy g, cpu_g;
        run_result gpu, cpu;
        crowd *c = run_frames((crowd_lod_policy)policy, true, &sim, &v, &g, &gpu);
        crowd *cpu_c = run_frames((crowd_lod_policy)policy, false, &cpu_sim, &v, &cpu_g, &cpu);
        CHECKF(gpu.bad == 0 && cpu.bad == 0,
               "%s: %u (CPU culling: %u) live instances missing, twice or stale in "
               "the GPU's copy",
               name, gpu.bad, cpu.bad);
        CHECKF(gpu.drawn == 0 && gpu.rasterised == 0,
               "%s: %u draws + submitted, %u counted visible with a GPU pass culling", name, gpu.drawn, gpu.rasterised);
        CHECKF(gpu.reorders == 0, "%s: %llu level sorts or moves while a GPU pass picks the levels", name,
               (unsigned long long)gpu.reorders);
        if (policy) /* the run with the CPU's levels did sort: the check above can fail */
            CHECKF(cpu.reorders > 0, "coverage: no level sorts or moves with CPU culling either");
        /* The 0.3 s fades of frame 60 began and were folded by the binning that still runs
         * (measured: 178 -> 0 distance, 186 -> 10 coverage, where wander decisions start fades). */
        CHECKF(gpu.fades[65] >= 170 && gpu.fades[85] <= 20, "%s: %u fades running at frame 65, %u at 85", name,
               gpu.fades[65], gpu.fades[85]);
        /* Distance: nothing else changes (the same region layout): the same fades frame by frame and
         * every instance in the same state. Coverage keeps its slots unsorted, and the simulation's
         * far agents re-plan by slot (s % lod_interval), so the two runs part after a while there. */
        if (!policy) {
            uint32_t differ = 0;
            for (uint32_t i = 0; i < gpu.count && gpu.count == cpu.count; i++)
                differ += memcmp(&gpu.final[i], &cpu.final[i], sizeof(crowd_record)) != 0;
            CHECKF(!memcmp(gpu.fades, cpu.fades, sizeof gpu.fades), "distance: fades differ from the CPU-culled run's");
            CHECKF(gpu.count == cpu.count && differ == 0, "distance: %u of %u records differ from the CPU-culled run's",
                   differ, gpu.count);
        }

        /* back to the CPU's culling: a draw list again, the coverage policy sorting by level first */
        v.culling = CROWD_CULLING_CPU;
        uint64_t before = c->work.coverage_sorts + c->work.coverage_moves;
        const crowd_frame *f = crowd_update(c, 1.0f / 60.0f, &v);
        CHECK(f->culling == CROWD_CULLING_CPU);
        uint32_t bad = gpu_copy_check(&g, c, f), histogram = 0;
        for (uint32_t l = 0; l < CROWD_MAX_LODS; l++)
            histogram += f->stats.lod_histogram[l];
        CHECKF(bad == 0 && f->draw_count > 0 && f->stats.submitted > 1000 && histogram == f->stats.submitted,
               "%s, CPU culling again: %u bad, %u draws, %u submitted, histogram %u", name, bad, f->draw_count,
               f->stats.submitted, histogram);
        if (policy)
            CHECKF(c->work.coverage_sorts + c->work.coverage_moves > before,
                   "coverage: the slots were not re-ordered by level");
        free(gpu.final);
        free(cpu.final);
        gpu_copy_free(&g);
        gpu_copy_free(&cpu_g);
        crowd_sim_destroy(sim);
        crowd_sim_destroy(cpu_sim);
        crowd_destroy(c);
        crowd_destroy(cpu_c);
    }
}

int main(void)
{
    humanoid_asset_or_die((crowd_bake_desc){0}, &baked, &asset);
    RUN_TEST(frames_feed_a_gpu_pass);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
