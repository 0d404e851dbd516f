/* Change tracking (src/crowd/crowd_changes.c): every public call that changes a crowd is seen by the
 * next update. Each call is made on a settled crowd, one whose update reuses its grid instead of
 * binning (the state most caches hold), with a client attached (crowd_client.h); after the next
 * update:
 *  - every chunk's count and bounds hold its instances as they are (ground truth: the records);
 *  - every instance whose own sphere is in view is drawn (brute force over the records);
 *  - a mirror of the GPU's record buffer fed only by the frame's upload ranges holds every drawn
 *    record, and the called instance's record is crowd_get's;
 *  - the client heard of it (crowd_client_changes grew) where the call changed a record or a slot.
 * Both LOD policies, binning on one thread and on two. And every change in turn on one crowd: a copy
 * of every slot's record and owner fed only by the upload ranges is right at every live slot (slack
 * and parked slots may change outside the ranges, as crowd.h says). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowd/crowd_testing.h"
#include "crowdbake/crowd.h"
#include "test_support.h"

static crowd_bake_output baked;
static crowd_asset asset;

enum { COUNT = 9000, TARGET = 17 }; /* (past the size at which binning splits over threads) */

typedef struct change {
    const char *what;
    void (*call)(crowd *c);
    bool tells_client; /* it changes records or slots */
} change;

static void set_transform(crowd *c)
{
    crowd_set_transform(c, TARGET, 1.0f, 0.0f, 2.0f, 0.5f); /* where the camera looks */
}
static void set_velocity(crowd *c)
{
    crowd_set_velocity(c, TARGET, 2.0f, -1.0f);
}
static void set_scale(crowd *c)
{
    crowd_set_scale(c, TARGET, 2.5f);
}
static void set_variant(crowd *c)
{
    crowd_variant v = {{10, 200, 30}, {1, 2, 3, 4, 5, 6}, 1};
    crowd_set_variant(c, TARGET, &v);
}
static void play_cut(crowd *c)
{
    crowd_play(c, TARGET, 1, 1.5f, 0.0f);
}
static void play_fade(crowd *c)
{
    crowd_play(c, TARGET, 2, 1.0f, 0.4f);
}
static void play_once(crowd *c)
{
    crowd_play_once(c, TARGET, 1, 1.0f, 0.0f);
}
static void set_phase(crowd *c)
{
    crowd_set_phase(c, TARGET, 0.7f);
}
static void set_speed(crowd *c)
{
    crowd_play(c, TARGET, clip_or_die(&asset, "walk"), 1.0f, 0.0f);
    crowd_set_speed(c, TARGET, 1.9f);
}
static void grow(crowd *c)
{
    crowd_set_count(c, COUNT + 40); /* new ones at the origin, in view */
}
static void shrink(crowd *c)
{
    crowd_set_count(c, COUNT - 40);
}
static void remove_one(crowd *c)
{
    crowd_remove(c, TARGET);
}
static void configure_same(crowd *c)
{
    crowd_desc d = *crowd_settings(c);
    d.lod_bias = 2.0f;
    crowd_configure(c, &d, NULL);
}
static void configure_other(crowd *c)
{
    crowd_desc d = *crowd_settings(c);
    d.lod_policy = d.lod_policy == CROWD_LOD_DISTANCE ? CROWD_LOD_SCREEN_COVERAGE : CROWD_LOD_DISTANCE;
    crowd_configure(c, &d, NULL);
}
static void stride_off(crowd *c)
{
    crowd_set_stride_matching(c, false);
}

static const change changes[] = {
    {"crowd_set_transform", set_transform, true},
    {"crowd_set_velocity", set_velocity, true},
    {"crowd_set_scale", set_scale, true},
    {"crowd_set_variant", set_variant, true},
    {"crowd_play (a cut)", play_cut, true},
    {"crowd_play (a fade)", play_fade, true},
    {"crowd_play_once", play_once, true},
    {"crowd_set_phase", set_phase, true},
    {"crowd_set_speed", set_speed, true},
    {"crowd_set_count (more)", grow, true},
    {"crowd_set_count (fewer)", shrink, true},
    {"crowd_remove", remove_one, true},
    {"crowd_configure (the same policy)", configure_same, true},
    {"crowd_configure (the other policy)", configure_other, true},
    {"crowd_set_stride_matching", stride_off, false},
};

/* A crowd of standing instances scattered around the camera's view, settled. */
static crowd *settled(crowd_lod_policy policy, uint32_t threads)
{
    crowd_desc d = {.asset = &asset,
                    .capacity = COUNT + 64,
                    .world_size = 200.0f,
                    .chunk_size = 16.0f,
                    .lod_policy = policy,
                    .threads = threads};
    crowd *c = NULL;
    if (crowd_create(&d, &c, NULL) != CROWD_OK || crowd_set_count(c, COUNT) != CROWD_OK)
        exit(1);
    uint64_t seed = 5;
    for (uint32_t i = 0; i < COUNT; i++) {
        float x = (float)(test_uniform(&seed) * 120.0 - 60.0), z = (float)(test_uniform(&seed) * 120.0 - 60.0);
        crowd_set_transform(c, i, x, 0.0f, z, (float)test_uniform(&seed) * 6.28f);
    }
    return c;
}

/* Chunk counts and bounds against the records (at the binning's time). */
static uint32_t chunk_errors(const crowd *c)
{
    uint32_t *count = calloc(c->cell_count, sizeof *count), errors = 0;
    crowd_grid_map grid = crowd_grid_of(c);
    for (uint32_t s = 0; s < c->slots; s++) {
        if (c->index_of_slot[s] >= c->count)
            continue;
        float p[3];
        crowd_record_position(&c->records[s], c->bin_time, p);
        uint32_t k = crowd_chunk_at(&grid, p);
        count[k]++;
        for (int a = 0; a < 3; a++)
            errors += p[a] < c->cells[k].min[a] - 1e-4f || p[a] > c->cells[k].max[a] + 1e-4f;
    }
    for (uint32_t k = 0; k < c->cell_count; k++)
        errors += count[k] != c->cells[k].count;
    free(count);
    return errors;
}

/* Instances whose own sphere meets the frustum but that no draw holds. */
static uint32_t missed(const crowd_frame *f, const crowd_view *v)
{
    float planes[6][4];
    crowd_frustum_planes(v->view, v->projection, planes);
    uint8_t *drawn = calloc(f->stats.simulated + 1, 1);
    for (uint32_t d = 0; d < f->draw_count; d++)
        for (uint32_t s = f->draws[d].first; s < f->draws[d].first + f->draws[d].count; s++)
            drawn[f->slot_instances[s]] = 1;
    uint32_t miss = 0;
    for (uint32_t s = 0; s < f->record_count; s++) {
        uint32_t i = f->slot_instances[s];
        if (i >= f->stats.simulated || drawn[i])
            continue;
        float centre[3], radius;
        test_cull_sphere(&asset, &f->records[s], f->time, centre, &radius);
        miss += test_sphere_in(planes, centre, radius);
    }
    free(drawn);
    return miss;
}

/* The GPU's copy: the frame's upload ranges into the mirror; returns the drawn records it lacks. */
static uint32_t stale_uploads(const crowd_frame *f, crowd_record *mirror)
{
    for (uint32_t u = 0; u < f->upload_count; u++)
        memcpy(mirror + f->uploads[u].first, f->records + f->uploads[u].first, sizeof *mirror * f->uploads[u].count);
    uint32_t stale = 0;
    for (uint32_t d = 0; d < f->draw_count; d++)
        for (uint32_t s = f->draws[d].first; s < f->draws[d].first + f->draws[d].count; s++)
            stale += memcmp(&mirror[s], &f->records[s], sizeof mirror[s]) != 0;
    return stale;
}

static void every_change_is_seen(crowd_lod_policy policy, uint32_t threads)
{
    crowd_view v = {0};
    test_view_at(&v, 30, 14, 40, 0, 1.2f, 0);
    for (size_t k = 0; k < sizeof changes / sizeof changes[0]; k++) {
        crowd *c = settled(policy, threads);
        REQUIRE(crowd_client_attach(c, &(crowd_client){0}));
        crowd_record *mirror = calloc(crowd_record_capacity(c), sizeof *mirror);
        for (int frame = 0; frame < 3; frame++)
            stale_uploads(crowd_update(c, 0.05f, &v), mirror);
        uint32_t reused = crowd_testing_work(c).bins_reused;
        stale_uploads(crowd_update(c, 0.05f, &v), mirror);
        CHECKF(crowd_testing_work(c).bins_reused == reused + 1, "the settled crowd did not reuse its grid");
        uint64_t told = crowd_client_changes(c);
        changes[k].call(c);
        const crowd_frame *f = crowd_update(c, 0.05f, &v);
        uint32_t chunks = chunk_errors(c), miss = missed(f, &v), stale = stale_uploads(f, mirror);
        crowd_record got, in_frame;
        bool record_ok = TARGET >= crowd_count(c) ||
                         (crowd_get(c, TARGET, &got) == CROWD_OK &&
                          (in_frame = f->records[crowd_slot_of(c, TARGET)], !memcmp(&got, &in_frame, sizeof got)));
        CHECKF(chunks == 0 && miss == 0 && stale == 0 && record_ok,
               "%s (policy %d, %u threads): %u chunk errors, %u visible not drawn, %u drawn records not uploaded%s",
               changes[k].what, (int)policy, threads, chunks, miss, stale,
               record_ok ? "" : ", the frame's record is old");
        CHECKF(!changes[k].tells_client || crowd_client_changes(c) > told, "%s: the client was not told",
               changes[k].what);
        free(mirror);
        crowd_client_detach(c);
        crowd_destroy(c);
    }
}

/* A consumer's copy of every slot, record and owner (slot_instances), fed only by upload ranges: what
 * the GPU path keeps. */
typedef struct slot_copy {
    crowd_record *records;
    uint32_t *owners;
} slot_copy;

static void copy_ranges(slot_copy *k, const crowd_frame *f)
{
    for (uint32_t u = 0; u < f->upload_count; u++) {
        uint32_t first = f->uploads[u].first, n = f->uploads[u].count;
        memcpy(k->records + first, f->records + first, (size_t)n * sizeof *k->records);
        memcpy(k->owners + first, f->slot_instances + first, (size_t)n * sizeof *k->owners);
    }
}

/* Slots where the copy is wrong about a live instance: a slot holding one whose record or owner the
 * copy lacks, or a slot the copy says holds one that does not. Slack and parked slots (never drawn)
 * that differ are counted in *not_live: crowd.h allows them to change outside the ranges. */
static uint32_t copy_errors(const slot_copy *k, const crowd_frame *f, uint32_t *not_live)
{
    uint32_t errors = 0, live = f->stats.simulated;
    for (uint32_t s = 0; s < f->record_count; s++) {
        bool same = k->owners[s] == f->slot_instances[s] && !memcmp(&k->records[s], &f->records[s], sizeof *k->records);
        if (f->slot_instances[s] < live || k->owners[s] < live)
            errors += !same;
        else
            *not_live += !same;
    }
    return errors;
}

/* Every change of the table in turn on one crowd (each count change after the other, re-layouts,
 * the other policy): a copy fed only by the upload ranges stays right at every live slot. */
static void upload_ranges_keep_every_live_slot(void)
{
    crowd_view v = {0};
    test_view_at(&v, 30, 14, 40, 0, 1.2f, 0);
    for (int policy = 0; policy < 2; policy++) {
        crowd *c = settled(policy ? CROWD_LOD_SCREEN_COVERAGE : CROWD_LOD_DISTANCE, 1);
        slot_copy k = {calloc(crowd_record_capacity(c), sizeof *k.records),
                       calloc(crowd_record_capacity(c), sizeof *k.owners)};
        REQUIRE(k.records && k.owners);
        memset(k.owners, 0xFF, crowd_record_capacity(c) * sizeof *k.owners); /* no slot holds anyone yet */
        const crowd_frame *f = crowd_update(c, 0.05f, &v);
        memcpy(k.records, f->records, (size_t)f->record_count * sizeof *k.records);
        memcpy(k.owners, f->slot_instances, (size_t)f->record_count * sizeof *k.owners);
        uint32_t errors = 0, not_live = 0;
        for (int round = 0; round < 2; round++)
            for (size_t n = 0; n < sizeof changes / sizeof changes[0]; n++) {
                changes[n].call(c);
                f = crowd_update(c, 0.05f, &v);
                copy_ranges(&k, f);
                uint32_t wrong = copy_errors(&k, f, &not_live);
                CHECKF(wrong == 0, "policy %d, after %s: the copy is wrong at %u live slots", policy, changes[n].what,
                       wrong);
                errors += wrong;
            }
        printf("     policy %d: %u live slots wrong in the copy; %u slack or parked slots changed outside the ranges\n",
               policy, errors, not_live);
        free(k.records), free(k.owners);
        crowd_destroy(c);
    }
}

/* The table: each kind of change makes stale at least what its callers rely on. */
static void table_covers_the_kinds(void)
{
    for (int k = 0; k < CROWD_CHANGE_KINDS; k++)
        CHECKF(crowd_change_effects((crowd_change)k) & CROWD_STALE_CLIENT, "change kind %d does not tell the client",
               k);
    CHECK(crowd_change_effects(CROWD_CHANGED_PLACE) & CROWD_STALE_BINNING);
    CHECK(crowd_change_effects(CROWD_CHANGED_COUNT) & CROWD_STALE_LAYOUT);
    CHECK(crowd_change_effects(CROWD_CHANGED_ORDER) & CROWD_STALE_INDEX_MAP);
    CHECK(crowd_change_effects(CROWD_CHANGE_KINDS) == 0);
}

static void changes_distance(void)
{
    every_change_is_seen(CROWD_LOD_DISTANCE, 1);
    every_change_is_seen(CROWD_LOD_DISTANCE, 2);
}

static void changes_coverage(void)
{
    every_change_is_seen(CROWD_LOD_SCREEN_COVERAGE, 1);
    every_change_is_seen(CROWD_LOD_SCREEN_COVERAGE, 2);
}

int main(void)
{
    humanoid_asset_or_die((crowd_bake_desc){0}, &baked, &asset);
    RUN_TEST(table_covers_the_kinds);
    RUN_TEST(changes_distance);
    RUN_TEST(changes_coverage);
    RUN_TEST(upload_ranges_keep_every_live_slot);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
