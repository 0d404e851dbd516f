/* Writes the record decode test's vectors (record_vectors.h): real records, made through the
 * public crowd API and the simulation, and the C decode's values for them at a few shader times
 * (crowd_record_position, crowd_record_yaw, crowd_record_phase, crowd_record_sample, the fade
 * weight, crowd_band_random). webgpu_decode_check.c holds the WGSL decode to them in Chromium.
 *
 * Two crowds of the same asset go through the same time: one the simulation drives (wander
 * without separation, every agent far, so turns are records the shaders extrapolate and gaits
 * change), one driven by setters (walkers, cross-fades, one-shots playing and held, fades and
 * one-shots that span the rebase). Time jumps to just before the rebase (2048 s), steps across
 * it, and records are taken before and after it.
 *
 *   record_vectors humanoid.crowd vectors.bin
 * Fails (exit 1) when a kind of vector the test exists for is missing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdbake/sim.h"
#include "record_vectors.h"
#include "test_support.h"

#define HAND_COUNT 48u
#define SIM_COUNT 400u
#define STEP (1.0f / 30.0f)

static crowd_asset asset;
static record_vectors_header header = {RECORD_VECTORS_MAGIC,       RECORD_VECTORS_VERSION,     0, 0,
                                       {30.0f, 90.0f, 2.0f, 0.0f}, {12.0f, 1.7f, -20.0f, 0.0f}};
static record_vector *vectors;
static uint32_t kind_counts[VECTOR_KINDS];

static crowd *make_crowd(uint32_t capacity)
{
    crowd_desc desc = {0};
    desc.asset = &asset;
    desc.capacity = capacity;
    crowd *c = NULL;
    crowd_error err;
    if (crowd_create(&desc, &c, &err) != CROWD_OK) {
        fprintf(stderr, "record_vectors: crowd_create: %s\n", err.message);
        exit(1);
    }
    return c;
}

/* The hand-driven crowd at time 0: everyone walks its clip, a third of them with a velocity. */
static void hand_spawn(crowd *c)
{
    uint32_t walk = clip_or_die(&asset, "walk");
    crowd_set_count(c, HAND_COUNT);
    for (uint32_t i = 0; i < HAND_COUNT; i++) {
        float a = 0.37f * (float)i;
        crowd_set_transform(c, i, 150.0f * sinf(a), 0.0f, 140.0f * cosf(1.3f * a), a);
        crowd_set_scale(c, i, 0.9f + 0.01f * (float)(i % 20));
        crowd_variant v = {{(uint8_t)(40 * i), (uint8_t)(200 - 13 * i), (uint8_t)(90 + 31 * i)}, {0}, 0};
        crowd_set_variant(c, i, &v);
        crowd_play(c, i, walk, 1.0f / asset.clips[walk].duration, 0.0f);
        crowd_set_phase(c, i, 0.1f * (float)(i % 10));
        if (i % 3 == 0)
            crowd_set_velocity(c, i, 1.4f * sinf(a), -1.2f * cosf(a));
    }
}

/* Changes by setters at time `t`: batch 0 a little before the snapshot before the rebase, batch 1
 * late enough that its fades and one-shots are still running when the rebase comes. */
static void hand_changes(crowd *c, int batch)
{
    uint32_t run_clip = clip_or_die(&asset, "run"), cheer = clip_or_die(&asset, "cheer");
    float run_rate = 1.0f / asset.clips[run_clip].duration, cheer_rate = 1.0f / asset.clips[cheer].duration;
    for (uint32_t i = (uint32_t)batch; i < HAND_COUNT; i += 2) {
        switch ((i / 2) % 6) {
        case 0:
            crowd_play(c, i, run_clip, run_rate, batch ? 3.0f : 2.0f);
            break;
        case 1:
            crowd_play_once(c, i, cheer, cheer_rate * 0.3f, 0.0f);
            break;
        case 2:
            crowd_play_once(c, i, cheer, cheer_rate * 4.0f, 0.0f);
            break;
        case 3:
            crowd_play_once(c, i, cheer, cheer_rate * 0.5f, 1.5f);
            break;
        case 4:
            crowd_set_speed(c, i, 1.1f + 0.05f * (float)i);
            break;
        default:
            crowd_set_velocity(c, i, -0.8f, 1.9f);
            break;
        }
    }
}

static void clip_table(record_vectors_clip *clips)
{
    for (uint32_t i = 0; i < asset.clip_count; i++) {
        const crowd_clip *cl = &asset.clips[i];
        clips[i] = (record_vectors_clip){cl->first_frame, cl->frame_count, (cl->flags & CROWD_CLIP_LOOP) ? 1u : 0u, 0};
    }
}

/* record_band_card's rule from the C decode's position: float arithmetic as the shader's. */
static float band_card(const float p[3], float random)
{
    const float *cam = header.camera, *band = header.band;
    float dx = cam[0] - p[0], dy = cam[1] - p[1], dz = cam[2] - p[2];
    float span = band[1] - band[0] > 1e-6f ? band[1] - band[0] : 1e-6f;
    float f = (sqrtf(dx * dx + dy * dy + dz * dz) - band[0]) / span;
    f = f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f;
    return band[2] >= 0.5f && random < f ? 1.0f : 0.0f;
}

static void sample(const crowd_record *r, int which, float t, float *out)
{
    crowd_clip_sample s;
    if (crowd_record_sample(&asset, r, which, t, &s) != CROWD_OK) {
        fprintf(stderr, "record_vectors: crowd_record_sample refused a record the crowd wrote\n");
        exit(1);
    }
    out[0] = (float)s.frame0, out[1] = (float)s.frame1, out[2] = s.t, out[3] = 0.0f;
}

/* What the vector covers, from the record and its time. */
static uint32_t kinds_of(const crowd_record *r, float t, bool rebased)
{
    uint32_t kinds = rebased ? VECTOR_REBASED : 0u;
    if (r->clips & CROWD_RECORD_TURN)
        kinds |= VECTOR_TURN;
    else if (r->velocity)
        kinds |= VECTOR_MOVING;
    float w = test_fade_weight(r, t);
    if (w > 0.0f && w < 1.0f)
        kinds |= VECTOR_FADE;
    for (int which = 0; which < 2; which++) {
        if (!(r->clips & (which ? CROWD_RECORD_HOLD_B : CROWD_RECORD_HOLD_A)) || (r->clips & CROWD_RECORD_TURN))
            continue;
        float raw = which ? r->offset_b + t * r->rate_b : r->offset_a + t * r->rate_a;
        kinds |= raw >= 1.0f ? VECTOR_HELD : raw > 0.0f ? VECTOR_ONE_SHOT : 0u;
    }
    return kinds;
}

static void add_vector(const crowd_record *r, float t, bool rebased)
{
    if (header.count >= RECORD_VECTORS_MAX)
        return;
    record_vector *v = &vectors[header.count++];
    memset(v, 0, sizeof *v);
    v->record = *r;
    v->time = t;
    v->kinds = kinds_of(r, t, rebased);
    float *e = v->expected;
    crowd_record_position(r, t, e);
    e[3] = crowd_record_yaw(r, t);
    e[4] = test_fade_weight(r, t);
    e[5] = crowd_band_random(r);
    e[6] = crowd_record_phase(r, 0, t);
    e[7] = crowd_record_phase(r, 1, t);
    sample(r, 0, t, e + 8);
    e[11] = band_card(e, e[5]);
    sample(r, 1, t, e + 12);
    for (int k = 0; k < VECTOR_KINDS; k++)
        kind_counts[k] += (v->kinds >> k) & 1u;
}

/* Every live record of the crowd, at its time plus each offset. */
static void snapshot(const crowd *c, const float *offsets, int offset_count, bool rebased)
{
    float now = crowd_time(c);
    for (uint32_t i = 0; i < crowd_count(c); i++) {
        crowd_record r;
        crowd_get(c, i, &r);
        for (int k = 0; k < offset_count; k++)
            add_vector(&r, now + offsets[k], rebased);
    }
}

/* Both crowds `seconds` on, in steps; the simulation steps its crowd each time. */
static void run(crowd *hand, crowd *sim_crowd, crowd_sim *sim, const crowd_view *view, float seconds)
{
    for (float done = 0.0f; done < seconds; done += STEP) {
        crowd_sim_step(sim, STEP);
        crowd_update(sim_crowd, STEP, view);
        crowd_update(hand, STEP, view);
    }
}

static bool write_file(const char *path)
{
    record_vectors_clip *clips = calloc(asset.clip_count, sizeof *clips);
    FILE *f = fopen(path, "wb");
    bool ok = clips && f;
    if (ok) {
        clip_table(clips);
        ok = fwrite(&header, sizeof header, 1, f) == 1 &&
             fwrite(clips, sizeof *clips, asset.clip_count, f) == asset.clip_count &&
             fwrite(vectors, sizeof *vectors, header.count, f) == header.count;
    }
    ok = (f && fclose(f) == 0) && ok;
    free(clips);
    return ok;
}

/* The two crowds through the rebase, snapshots before and after it. */
static void make_vectors(void)
{
    crowd *hand = make_crowd(HAND_COUNT), *sim_crowd = make_crowd(SIM_COUNT);
    crowd_sim *sim = NULL;
    crowd_sim_desc sd = {.target = sim_crowd, .separation = -1, .seed = 7, .lod_distance = 1.0f};
    crowd_error err;
    if (crowd_sim_create(&sd, &sim, &err) != CROWD_OK || crowd_sim_spawn(sim, SIM_COUNT) != CROWD_OK) {
        fprintf(stderr, "record_vectors: the simulation: %s\n", err.message);
        exit(1);
    }
    hand_spawn(hand);
    crowd_view view = {0};
    test_view_at(&view, 0.0f, 60.0f, 300.0f, 0.0f, 0.0f, 0.0f);
    crowd_update(hand, 1000.0f, &view), crowd_update(hand, 1000.0f, &view);
    crowd_update(sim_crowd, 1000.0f, &view), crowd_update(sim_crowd, 1000.0f, &view);
    run(hand, sim_crowd, sim, &view, 44.0f); /* turns planned, gaits settled: 2044 s */
    hand_changes(hand, 0);
    run(hand, sim_crowd, sim, &view, 2.5f);
    const float before[3] = {0.0f, 0.3f, 1.1f}, after[4] = {0.0f, 0.25f, 0.9f, 4.0f}, later[2] = {0.0f, 0.5f};
    snapshot(hand, before, 3, false), snapshot(sim_crowd, before, 3, false);
    hand_changes(hand, 1);
    while (crowd_time(hand) > 1500.0f) /* across the rebase */
        run(hand, sim_crowd, sim, &view, STEP);
    snapshot(hand, after, 4, true), snapshot(sim_crowd, after, 4, true);
    run(hand, sim_crowd, sim, &view, 1.5f);
    snapshot(hand, later, 2, true), snapshot(sim_crowd, later, 2, true);
    crowd_sim_destroy(sim);
    crowd_destroy(sim_crowd);
    crowd_destroy(hand);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: record_vectors ASSET.crowd OUT.bin\n");
        return 2;
    }
    crowd_error err;
    if (crowd_asset_load_file(&asset, argv[1], &err) != CROWD_OK) {
        fprintf(stderr, "record_vectors: %s: %s\n", argv[1], err.message);
        return 1;
    }
    header.clip_count = asset.clip_count;
    vectors = calloc(RECORD_VECTORS_MAX, sizeof *vectors);
    if (!vectors)
        return 1;
    make_vectors();
    static const char *names[VECTOR_KINDS] = {"turning", "fading", "one-shot playing", "held", "rebased", "straight"};
    int missing = 0;
    printf("record_vectors: %u vectors:", header.count);
    for (int k = 0; k < VECTOR_KINDS; k++) {
        printf(" %s %u%s", names[k], kind_counts[k], k + 1 < VECTOR_KINDS ? "," : "\n");
        missing += kind_counts[k] == 0;
    }
    /* the rebase meets each moving part: a turn, a fade and a one-shot taken after it */
    const uint32_t across[3] = {VECTOR_TURN, VECTOR_FADE, VECTOR_ONE_SHOT | VECTOR_HELD};
    for (int k = 0; k < 3; k++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < header.count; i++)
            n += (vectors[i].kinds & VECTOR_REBASED) && (vectors[i].kinds & across[k]);
        missing += n == 0;
    }
    if (missing || !write_file(argv[2])) {
        fprintf(stderr, "record_vectors: %s\n", missing ? "a kind of vector is missing" : "could not write the file");
        return 1;
    }
    free(vectors);
    crowd_asset_free(&asset);
    return 0;
}
