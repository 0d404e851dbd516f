/* A long random soak of the runtime: 100k agents under the simulation, thousands of frames of
 * random accepted and refused calls (every setter, play and play_once, remove, set_count,
 * configure, scenario, separation and stride-matching changes, respawns, sim steps and updates
 * with odd dt), with hostile values among them (NaN, inf, huge, negative, denormal). After every
 * frame: every live record finite, the draw list consistent with the records (ranges inside
 * record_count, counts summing to what stats report, every live instance drawn at most once and
 * every one whose own sphere meets the frustum drawn), upload ranges inside the records. At the
 * end: resident memory flat since the warm-up. Deterministic: same seed, same run.
 *
 * Usage: test_soak [frames] [seed] [threads]. ctest runs the default size in Release, half of it under
 * ASan+UBSan, and a shorter run with two worker threads (crowd_desc.threads) in every tree, ThreadSanitizer's too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/view_matrices.h"
#include "crowdbake/crowd.h"
#include "crowdbake/sim.h"
#include "test_support.h"

#define AGENTS 100000u
#define DEFAULT_FRAMES 1600u /* about 37 s in Release on the 2-core machine (ctest gives 800 under ASan+UBSan) */

static crowd_bake_output baked;
static crowd_asset asset;
static uint64_t rng;

enum {
    OP_TRANSFORM,
    OP_SCALE,
    OP_VARIANT,
    OP_PLAY,
    OP_PLAY_ONCE,
    OP_PHASE,
    OP_SPEED,
    OP_REMOVE,
    OP_COUNT,
    OP_CONFIGURE,
    OP_SCENARIO,
    OP_SEPARATION,
    OP_STRIDE,
    OP_SPAWN,
    OP_GET,
    OP_VELOCITY,
    OP_KINDS
};
static const char *const op_names[OP_KINDS] = {"set_transform",   "set_scale", "set_variant",  "play",
                                               "play_once",       "set_phase", "set_speed",    "remove",
                                               "set_count",       "configure", "set_scenario", "set_separation",
                                               "stride_matching", "sim_spawn", "get",          "set_velocity"};
static uint32_t accepted[OP_KINDS], refused[OP_KINDS];

static uint32_t below(uint32_t n)
{
    return n ? (uint32_t)(test_rand(&rng) % n) : 0;
}

static float uniform(float lo, float hi)
{
    return lo + (hi - lo) * (float)test_uniform(&rng);
}

/* Mostly ordinary values in [lo, hi], sometimes one of the nasty ones. */
static float value(float lo, float hi)
{
    static const float nasty[] = {NAN,  INFINITY, -INFINITY, 3e38f,  -3e38f, 1e-40f, -1e-40f, 1e-44f,
                                  0.0f, -0.0f,    1e20f,     -1e12f, 1e9f,   1e-3f,  1e3f,    -1.0f};
    if (below(8) == 0)
        return nasty[below(sizeof nasty / sizeof nasty[0])];
    return uniform(lo, hi);
}

/* An index: mostly live, sometimes just past the count or absurd. */
static uint32_t pick_index(const crowd *c)
{
    uint32_t n = crowd_count(c), k = below(40);
    if (k == 0)
        return n;
    if (k == 1)
        return UINT32_MAX;
    return below(n ? n : 1);
}

static bool record_finite(const crowd_record *r)
{
    const float *f = (const float *)(const void *)r;
    for (int k = 0; k < 12;
         k++) /* position, yaw, clip a, offset a, rate a, scale, clip b, offset b, rate b, fade start */
        if (!isfinite(f[k]))
            return false;
    /* flags: HOLD_A, HOLD_B, TURN (and a turning record runs no fade and has a positive rate) */
    bool turn_ok = !(r->clips & CROWD_RECORD_TURN) || (r->fade_rate == 0.0f && r->fade_start > 0.0f);
    return isfinite(r->fade_rate) && (r->clips & 0xF8000000u) == 0 && turn_ok && r->scale > 0.0f;
}

static crowd_result expect(crowd *c, int op, crowd_result r, bool must_refuse, bool must_accept, uint32_t index,
                           const crowd_record *before)
{
    if (r == CROWD_OK) {
        accepted[op]++;
        CHECKF(!must_refuse, "%s accepted a value it must refuse (instance %u)", op_names[op], index);
    } else {
        refused[op]++;
        CHECKF(!must_accept, "%s refused a valid call: %s", op_names[op], crowd_last_error(c)->message);
        CHECKF(r == CROWD_ERROR_ARGUMENT && crowd_last_error(c)->code == CROWD_ERROR_ARGUMENT &&
                   crowd_last_error(c)->message[0],
               "%s: refusal without a reason (%d)", op_names[op], (int)r);
        crowd_record after;
        if (before && crowd_get(c, index, &after) == CROWD_OK)
            CHECKF(!memcmp(before, &after, sizeof after), "%s: a refused call changed instance %u", op_names[op],
                   index);
    }
    return r;
}

static void random_desc(crowd *c, crowd_desc *d)
{
    *d = *crowd_settings(c);
    switch (below(10)) {
    case 0:
        d->lod_bias = value(0.1f, 4.0f);
        break;
    case 1:
        d->hysteresis = below(4) == 0 ? CROWD_HYSTERESIS_NONE : value(0.0f, 0.5f);
        break;
    case 2:
        memset(d->lod_distances, 0, sizeof d->lod_distances);
        d->lod_distances[0] = value(1.0f, 30.0f);
        if (below(2))
            d->lod_distances[1] = value(1.0f, 60.0f);
        break;
    case 3:
        d->min_coverage = value(0.0f, 0.01f);
        break;
    case 4:
        d->shadow_max_lod = below(3) == 0 ? CROWD_MAX_LOD_ZERO : below(3) == 0 ? CROWD_MAX_LOD_ALL : below(12);
        d->cross_fade_max_lod = below(3) == 0 ? CROWD_MAX_LOD_ZERO : below(6);
        break;
    case 5:
        d->lod_policy = below(2) ? CROWD_LOD_SCREEN_COVERAGE : CROWD_LOD_DISTANCE;
        d->vertex_budget = below(2) ? 0 : below(50000000);
        break;
    case 6:
        for (uint32_t l = 0; l < CROWD_MAX_LODS; l++)
            d->screen_coverage[l] = below(3) ? 0.0f : value(0.0f, 0.3f);
        break;
    case 7:
        d->far_pool = (int)below(3) - 1;
        d->shadows = (int)below(3) - 1;
        d->lod_pivot = below(2) ? CROWD_PIVOT_NEAR_EDGE : CROWD_PIVOT_CENTRE;
        break;
    case 8:
        d->capacity = below(2) ? d->capacity : d->capacity + 1; /* fixed at creation: refused */
        break;
    default:
        *d = (crowd_desc){.asset = &asset, .capacity = AGENTS}; /* back to the defaults */
        break;
    }
}

/* One random call. */
static void random_call(crowd *c, crowd_sim *sim)
{
    uint32_t roll = below(1000), index = pick_index(c), clips = asset.clip_count;
    crowd_record before;
    const crowd_record *kept = crowd_get(c, index, &before) == CROWD_OK ? &before : NULL;
    if (roll < 200) {
        float x = below(50) ? uniform(-220, 220) : value(-1e3f, 1e3f), z = uniform(-220, 220);
        float y = below(20) ? 0.0f : value(-2, 2), yaw = value(-7, 7);
        bool ok = isfinite(x) && isfinite(y) && isfinite(z) && isfinite(yaw) && kept;
        expect(c, OP_TRANSFORM, crowd_set_transform(c, index, x, y, z, yaw), !ok, ok, index, kept);
    } else if (roll < 320) {
        float s = value(0.3f, 3.0f);
        bool out = !(s >= 0.001f && s <= 1000.0f) || !kept;
        expect(c, OP_SCALE, crowd_set_scale(c, index, s), out, false, index, kept);
    } else if (roll < 360) {
        crowd_variant v = {{(uint8_t)below(256), (uint8_t)below(256), (uint8_t)below(256)},
                           {(uint8_t)below(256), 0, 0, 0, 0, 0},
                           (uint8_t)below(256)};
        expect(c, OP_VARIANT, crowd_set_variant(c, index, &v), !kept, kept != NULL, index, kept);
    } else if (roll < 520) {
        bool once = below(4) == 0;
        uint32_t clip = below(12) ? below(clips) : clips + below(3);
        float rate = value(-2, 3), fade = below(3) ? 0.0f : value(0, 1);
        bool bad = !kept || clip >= clips || !(fabsf(rate) <= CROWD_MAX_RATE) ||
                   !(fade == 0.0f || (fade >= CROWD_MIN_FADE && fade <= 60.0f));
        crowd_result r = once ? crowd_play_once(c, index, clip, rate, fade) : crowd_play(c, index, clip, rate, fade);
        expect(c, once ? OP_PLAY_ONCE : OP_PLAY, r, bad, !bad, index, kept);
    } else if (roll < 560) {
        float p = value(0, 1);
        bool ok = kept && p >= 0.0f && p <= 1.0f;
        expect(c, OP_PHASE, crowd_set_phase(c, index, p), !ok, ok, index, kept);
    } else if (roll < 700) {
        float vx = value(-8, 8), vz = below(10) ? uniform(-3, 3) : value(-2e4f, 2e4f);
        bool ok = kept && fabsf(vx) <= CROWD_MAX_SPEED && fabsf(vz) <= CROWD_MAX_SPEED;
        expect(c, OP_VELOCITY, crowd_set_velocity(c, index, vx, vz), !ok, ok, index, kept);
    } else if (roll < 760) {
        float v = value(0, 8);
        bool out = !kept || !(v >= 0.0f && v <= 10000.0f);
        expect(c, OP_SPEED, crowd_set_speed(c, index, v), out, false, index, kept); /* no stride: refused too */
    } else if (roll < 800) {
        expect(c, OP_REMOVE, crowd_remove(c, index), !kept, kept != NULL, index, NULL);
    } else if (roll < 806) {
        uint32_t n = below(6) == 0 ? AGENTS + 1 + below(10) : AGENTS - below(AGENTS / 4);
        expect(c, OP_COUNT, crowd_set_count(c, n), n > AGENTS, n <= AGENTS, 0, NULL);
    } else if (roll < 816) {
        crowd_desc d;
        random_desc(c, &d);
        crowd_error err;
        crowd_result r = crowd_configure(c, &d, &err);
        if (r == CROWD_OK)
            accepted[OP_CONFIGURE]++;
        else
            refused[OP_CONFIGURE]++;
        CHECKF(r == CROWD_OK || (err.message[0] && !strcmp(err.message, crowd_last_error(c)->message)),
               "configure refused without its reason");
    } else if (roll < 822) {
        crowd_sim_set_scenario(sim, (crowd_scenario)below(CROWD_SCENARIO_COUNT + 1)); /* COUNT: ignored */
        accepted[OP_SCENARIO]++;
    } else if (roll < 826) {
        crowd_sim_set_separation(sim, (int)below(3) - 1);
        accepted[OP_SEPARATION]++;
    } else if (roll < 830) {
        crowd_set_stride_matching(c, below(2));
        accepted[OP_STRIDE]++;
    } else if (roll < 831) {
        if (below(20) == 0) { /* a respawn is a whole frame's work at this size: rare */
            uint32_t n = below(4) == 0 ? AGENTS + 5 : AGENTS - below(1000);
            expect(c, OP_SPAWN, crowd_sim_spawn(sim, n), n > AGENTS, n <= AGENTS, 0, NULL);
        }
    } else {
        crowd_record r;
        crowd_result got = crowd_get(c, index, &r);
        CHECK((got == CROWD_OK) == (index < crowd_count(c)));
        (got == CROWD_OK ? accepted : refused)[OP_GET]++;
    }
}

static void view_at(crowd_view *v, const float eye[3], const float target[3])
{
    const float up[3] = {0, 1, 0};
    cb_look_at(v->view, eye, target, up);
    cb_perspective(v->projection, 58.0f * 3.14159265f / 180.0f, 16.0f / 9.0f, 0.3f, 900.0f);
    v->viewport_height = 1080.0f;
}

/* The frame against the crowd's records: see the top of the file. */
static void check_frame(crowd *c, const crowd_frame *f, const crowd_view *view, uint8_t *drawn, uint32_t frame)
{
    uint32_t n = crowd_count(c), submitted = 0, bad_draws = 0, strangers = 0, twice = 0;
    memset(drawn, 0, AGENTS);
    for (uint32_t d = 0; d < f->draw_count; d++) {
        const crowd_draw *draw = &f->draws[d];
        if (draw->first > f->record_count || draw->count > f->record_count - draw->first ||
            draw->lod >= asset.lod_count) {
            bad_draws++;
            continue;
        }
        submitted += draw->count;
        for (uint32_t s = draw->first; s < draw->first + draw->count; s++) {
            uint32_t index = crowd_index_of_slot(c, s);
            if (index >= n) {
                strangers++;
                continue;
            }
            twice += drawn[index]++ > 0;
        }
    }
    CHECKF(!bad_draws && !strangers && !twice,
           "frame %u: %u draws out of range, %u slots drawn without a live "
           "instance, %u instances drawn twice",
           frame, bad_draws, strangers, twice);
    CHECKF(submitted == f->stats.submitted, "frame %u: draws hold %u instances, stats say %u", frame, submitted,
           f->stats.submitted);
    CHECKF(f->stats.simulated == n && f->record_count <= crowd_record_capacity(c), "frame %u: simulated %u of %u",
           frame, f->stats.simulated, n);
    for (uint32_t u = 0; u < f->upload_count; u++)
        CHECKF(f->uploads[u].first + (uint64_t)f->uploads[u].count <= f->record_count,
               "frame %u: upload %u out of range", frame, u);
    float planes[6][4];
    crowd_frustum_planes(view->view, view->projection, planes);
    uint32_t not_finite = 0, missed = 0, live = 0;
    bool coverage = crowd_settings(c)->lod_policy == CROWD_LOD_SCREEN_COVERAGE;
    for (uint32_t s = 0; s < f->record_count; s++) {
        uint32_t index = crowd_index_of_slot(c, s);
        if (index >= n)
            continue; /* slack and parked slots are undefined */
        live++;
        const crowd_record *r = &f->records[s];
        if (!record_finite(r)) {
            if (not_finite++ < 3)
                fprintf(stderr,
                        "frame %u: instance %u: position (%g %g %g) @ %g velocity %08x yaw %g clips %08x offset "
                        "%g/%g rate %g/%g scale %g fade %g @ %g\n",
                        frame, index, (double)r->position[0], (double)r->position[1], (double)r->position[2],
                        (double)r->ref_time, r->velocity, (double)r->yaw, r->clips, (double)r->offset_a,
                        (double)r->offset_b, (double)r->rate_a, (double)r->rate_b, (double)r->scale,
                        (double)r->fade_rate, (double)r->fade_start);
            continue;
        }
        if (coverage && crowd_settings(c)->min_coverage > 0.0f)
            continue;            /* small ones are culled on purpose */
        float centre[3], radius; /* the brute-force reference: where the GPU draws it, at the frame's time */
        if (coverage)            /* per instance, by its clip's culling sphere */
            test_cull_sphere(&asset, r, f->time, centre, &radius);
        else { /* per chunk: every instance inside the asset sphere is drawn */
            crowd_record_position(r, f->time, centre);
            centre[1] += asset.sphere_center_y * r->scale;
            radius = asset.sphere_radius * r->scale;
        }
        bool in = true;
        for (int p = 0; p < 6; p++)
            in &= planes[p][0] * centre[0] + planes[p][1] * centre[1] + planes[p][2] * centre[2] + planes[p][3] >=
                  -radius;
        missed += in && !drawn[index];
    }
    CHECKF(live == n, "frame %u: %u live slots for %u instances", frame, live, n);
    CHECKF(!not_finite, "frame %u: %u live records not finite", frame, not_finite);
    CHECKF(!missed, "frame %u: %u visible instances not drawn", frame, missed);
}

static long resident_pages(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = -1;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident;
}

int main(int argc, char **argv)
{
    uint32_t frames = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : DEFAULT_FRAMES;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261201u;
    uint32_t threads = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1u;
    rng = seed;
    baked = bake_or_die(humanoid(), (crowd_bake_desc){.bones = true});
    if (crowd_asset_load_memory(&asset, baked.bytes, baked.size, NULL) != CROWD_OK)
        return 1;
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    crowd_error err;
    crowd_obstacle obstacles[4] = {{0, 0, 3}, {40, -30, 5}, {-60, 80, 2}, {120, 120, 8}};
    if (crowd_create(&(crowd_desc){.asset = &asset, .capacity = AGENTS, .threads = threads}, &c, &err) != CROWD_OK ||
        crowd_sim_create(&(crowd_sim_desc){.target = c, .obstacles = obstacles, .obstacle_count = 4, .seed = 5}, &sim,
                         &err) != CROWD_OK ||
        crowd_sim_spawn(sim, AGENTS) != CROWD_OK) {
        fprintf(stderr, "soak: setup failed: %s\n", err.message);
        return 1;
    }
    uint8_t *drawn = malloc(AGENTS);
    if (!drawn)
        return 1;
    static const float odd_dt[] = {0.0f, -1.0f, NAN, INFINITY, 1e9f, 1e30f, 1e-40f, 0.5f, 3.0f, 1e-7f};
    const float eyes[4][3] = {{28, 16, 44}, {0, 1.7f, 0}, {-150, 60, -150}, {0, 300, 1}};
    const float targets[4][3] = {{0, 1.2f, 0}, {100, 1.7f, 0}, {0, 0, 0}, {0, 0, 0}};
    uint32_t calls_per_frame = 300, warmup = frames < 100 ? frames / 2 : 50;
    long rss_warm = -1;
    printf("soak: %u agents, %u frames, %u random calls per frame, seed %llu, %u threads\n", AGENTS, frames,
           calls_per_frame, (unsigned long long)seed, threads);
    for (uint32_t frame = 0; frame < frames && check_failures < 20; frame++) {
        for (uint32_t k = 0; k < calls_per_frame; k++)
            random_call(c, sim);
        float dt = below(10) ? 1.0f / 60.0f * uniform(0.5f, 2.0f) : odd_dt[below(sizeof odd_dt / sizeof odd_dt[0])];
        crowd_sim_step(sim, dt);
        crowd_view view = {0};
        uint32_t camera = (frame / 97) % 4;
        view_at(&view, eyes[camera], targets[camera]);
        float update_dt = below(20) ? dt : odd_dt[below(sizeof odd_dt / sizeof odd_dt[0])];
        const crowd_frame *f = crowd_update(c, update_dt, &view);
        if (!f) {
            fprintf(stderr, "frame %u: crowd_update returned NULL\n", frame);
            return 1;
        }
        check_frame(c, f, &view, drawn, frame);
        if (frame + 1 == warmup)
            rss_warm = resident_pages();
        if (frame % 500 == 499) {
            printf("     frame %u: %u live, %u draws, %u submitted, time %.1f s\n", frame + 1, crowd_count(c),
                   f->draw_count, f->stats.submitted, (double)f->time);
            fflush(stdout);
        }
    }
    long rss_end = resident_pages();
    printf("     calls accepted / refused:\n");
    for (int op = 0; op < OP_KINDS; op++)
        printf("       %-16s %7u / %u\n", op_names[op], accepted[op], refused[op]);
    if (rss_warm > 0 && rss_end > 0) {
        long grown_kb = (rss_end - rss_warm) * 4;
        printf("     resident memory after warm-up %ld kB, at the end %ld kB (%+ld kB)\n", rss_warm * 4, rss_end * 4,
               grown_kb);
        CHECKF(grown_kb < 4096, "resident memory grew by %ld kB after the warm-up", grown_kb);
    } else {
        printf("     (no /proc/self/statm: resident memory not checked)\n");
    }
    for (int op = 0; op < OP_KINDS; op++) /* the soak must really exercise both sides */
        if (op != OP_SCENARIO && op != OP_SEPARATION && op != OP_STRIDE && op != OP_SPAWN && op != OP_CONFIGURE)
            CHECKF(accepted[op] > 0 && refused[op] > 0, "%s: %u accepted, %u refused", op_names[op], accepted[op],
                   refused[op]);
    free(drawn);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    printf("%s soak\n", check_failures ? "FAIL" : "ok  ");
    TEST_MAIN_END();
}
