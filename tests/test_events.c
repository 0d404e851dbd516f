/* Events from crowd_update (crowd.h, "Events"): markers crossed and one-shots finished, checked
 * against phases computed here from the records (fract and clamp, as the shaders do), over small
 * and long steps, backwards, through fades, across the time's rebase, after removals, and with
 * too little room. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crowdbake/crowd.h"
#include "crowdbake/sim.h"
#include "test_support.h"

static crowd_bake_output baked;
static crowd_asset asset;
static uint32_t walk, run, wave;

/* The markers the tests read, named at bake time (crowd_bake_desc.markers, footsteps off): two on
 * the walk, one on the run, one on the wave, at phases no step lands on exactly (there float
 * rounding would decide the frame either way). Times are phase x the humanoid's durations. */
static const crowd_bake_marker named_markers[] = {{"walk", "step_a", 0.2137f * 1.05f},
                                                  {"walk", "step_b", 0.7071f * 1.05f},
                                                  {"run", "run_x", 0.4519f * 0.70f},
                                                  {"wave", "wave_top", 0.5113f * 1.6f}};

static uint32_t marker_index(const char *name)
{
    for (uint32_t m = 0; m < asset.marker_count; m++)
        if (strcmp(asset.markers[m].name, name) == 0)
            return m;
    abort();
}

static crowd *make_crowd(uint32_t count, int marker_events, uint32_t event_capacity)
{
    crowd_desc d = {.asset = &asset,
                    .capacity = 1024,
                    .marker_events = marker_events,
                    .event_capacity = event_capacity,
                    .threads = 1};
    crowd *c = NULL;
    crowd_error error;
    if (crowd_create(&d, &c, &error) != CROWD_OK) {
        fprintf(stderr, "crowd_create: %s\n", error.message);
        abort();
    }
    crowd_set_count(c, count);
    return c;
}

static const crowd_frame *step(crowd *c, float dt)
{
    crowd_view v;
    memset(&v, 0, sizeof v);
    test_view_at(&v, 28, 16, 44, 0, 1.2f, 0);
    return crowd_update(c, dt, &v);
}

/* A looping clip's phase at t: fract(offset + t rate) (in double: the shader's float rounding would
 * make a phase that lands on a marker ambiguous by an ulp). */
static double shown_phase(const crowd_record *r, float t)
{
    double p = r->offset_a + (double)t * r->rate_a;
    return p - floor(p);
}

/* Did the phase pass m going from p0 to p1 forwards, less than one cycle (with a wrap)? */
static bool passed(double p0, double p1, double m)
{
    return p1 >= p0 ? (p0 < m && m <= p1) : (m > p0 || m <= p1);
}

/* Small steps: each instance's two walk markers fire exactly in the frames where the shown phase
 * passes them, and nowhere else. */
static void loop_markers_small_steps(void)
{
    const uint32_t n = 50;
    crowd *c = make_crowd(n, 1, 0);
    for (uint32_t i = 0; i < n; i++) {
        crowd_play(c, i, walk, 0.8f + 0.0107f * (float)i, 0.0f);
        crowd_set_phase(c, i, (float)i / (float)n);
    }
    uint32_t a = marker_index("step_a"), b = marker_index("step_b"), expected = 0, seen = 0, wrong = 0;
    crowd_record before[50];
    for (int frame = 0; frame < 240; frame++) {
        float t0 = crowd_time(c);
        for (uint32_t i = 0; i < n; i++)
            crowd_get(c, i, &before[i]);
        const crowd_frame *f = step(c, 1.0f / 60.0f);
        float t1 = f->time;
        bool got[50][2] = {{false}};
        for (uint32_t e = 0; e < f->event_count; e++) {
            const crowd_event *ev = &f->events[e];
            bool ok = ev->kind == CROWD_EVENT_MARKER && ev->instance < n && ev->clip == walk &&
                      (ev->detail == a || ev->detail == b) && ev->time >= t0 && ev->time <= t1;
            wrong += !ok;
            if (ok)
                got[ev->instance][ev->detail == b] = true;
            seen += ok;
        }
        for (uint32_t i = 0; i < n; i++) {
            double p0 = shown_phase(&before[i], t0), p1 = shown_phase(&before[i], t1);
            for (int k = 0; k < 2; k++) {
                bool want = passed(p0, p1, asset.markers[k ? b : a].phase);
                expected += want;
                if (want != got[i][k] && wrong < 10)
                    fprintf(stderr, "frame %d instance %u marker %d: phase %.6f -> %.6f, event %d\n", frame, i, k,
                            (double)p0, (double)p1, got[i][k]);
                wrong += want != got[i][k];
            }
        }
    }
    printf("     %u marker events over 240 frames of 50 walkers (%u expected), %u wrong\n", seen, expected, wrong);
    CHECK(wrong == 0 && seen == expected && expected > 0);
    crowd_destroy(c);
}

/* One step spanning several cycles: each marker fires floor(u1 - m) - floor(u0 - m) times, each at
 * a distinct time where the phase equals the marker; backwards too. */
static void loop_markers_long_steps(void)
{
    crowd *c = make_crowd(3, 1, 0);
    const float rates[3] = {1.0f, 2.3f, -1.7f};
    for (uint32_t i = 0; i < 3; i++)
        crowd_play(c, i, walk, rates[i], 0.0f);
    step(c, 0.1f);
    crowd_record r[3];
    for (uint32_t i = 0; i < 3; i++)
        crowd_get(c, i, &r[i]);
    double t0 = crowd_time(c);
    const crowd_frame *f = step(c, 3.9f);
    double t1 = f->time;
    uint32_t count[3][2] = {{0}}, off_phase = 0;
    for (uint32_t e = 0; e < f->event_count; e++) {
        const crowd_event *ev = &f->events[e];
        REQUIRE(ev->kind == CROWD_EVENT_MARKER && ev->instance < 3);
        int k = asset.markers[ev->detail].phase > 0.5f;
        count[ev->instance][k]++;
        double p = r[ev->instance].offset_a + (double)ev->time * r[ev->instance].rate_a;
        double d = fabs((p - floor(p)) - asset.markers[ev->detail].phase);
        off_phase += fmin(d, 1.0 - d) > 1e-3;
    }
    uint32_t mismatched = 0;
    for (uint32_t i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) {
            double m = asset.markers[marker_index(k ? "step_b" : "step_a")].phase;
            double u0 = r[i].offset_a + t0 * r[i].rate_a, u1 = r[i].offset_a + t1 * r[i].rate_a;
            double want = rates[i] > 0 ? floor(u1 - m) - floor(u0 - m) : ceil(u0 - m) - ceil(u1 - m);
            printf("     rate %+.1f marker %.4f: %u crossings in a 3.9 s step (%.0f expected)\n", (double)rates[i], m,
                   count[i][k], want);
            mismatched += count[i][k] != (uint32_t)want;
        }
    CHECK(mismatched == 0);
    CHECKF(off_phase == 0, "%u events at a time where the phase is not the marker's", off_phase);
    crowd_destroy(c);
}

/* A one-shot's finish fires once, in the frame where offset + t rate reaches 1, holding; replaced
 * before its end (a cut to a loop, a completed fade away) it never fires; fading out at its end it
 * fires as FADING_OUT. */
static void one_shot_finishes(void)
{
    crowd *c = make_crowd(4, -1, 0);
    float rate = 1.0f / asset.clips[wave].duration;
    for (uint32_t i = 0; i < 4; i++)
        crowd_play_once(c, i, wave, rate, 0.0f);
    crowd_record r0;
    crowd_get(c, 0, &r0);
    uint32_t finishes[4] = {0}, wrong_frame = 0, details[4] = {0};
    for (int frame = 0; frame < 200; frame++) {
        float t0 = crowd_time(c);
        if (frame == 30) {
            crowd_play(c, 1, walk, 1.0f, 0.0f); /* replaced by a cut */
            crowd_play(c, 2, walk, 1.0f, 0.2f); /* replaced by a fade that ends well before */
        }
        if (frame == 90) /* 0.1 s before its end: fading out at the end */
            crowd_play(c, 3, walk, 1.0f, 0.5f);
        const crowd_frame *f = step(c, 1.0f / 60.0f);
        for (uint32_t e = 0; e < f->event_count; e++) {
            const crowd_event *ev = &f->events[e];
            REQUIRE(ev->kind == CROWD_EVENT_FINISHED && ev->instance < 4 && ev->clip == wave);
            finishes[ev->instance]++;
            details[ev->instance] = ev->detail;
            double u0 = r0.offset_a + (double)t0 * r0.rate_a, u1 = r0.offset_a + (double)f->time * r0.rate_a;
            wrong_frame += !(u0 < 1.0 && u1 >= 1.0);
        }
    }
    printf("     finishes: held %u, cut %u, faded away %u, fading out %u (detail %u)\n", finishes[0], finishes[1],
           finishes[2], finishes[3], details[3]);
    CHECK(finishes[0] == 1 && details[0] == CROWD_FINISHED_HOLDING);
    CHECK(finishes[1] == 0 && finishes[2] == 0);
    CHECK(finishes[3] == 1 && details[3] == CROWD_FINISHED_FADING_OUT);
    CHECK(wrong_frame == 0);
    crowd_destroy(c);
}

/* Removing an instance forgets its one-shot; the last instance moved into its index reports under
 * the new index, at its own end; instances parked by crowd_set_count report nothing. */
static void removed_instances_are_silent(void)
{
    crowd *c = make_crowd(6, 1, 0);
    float rate = 1.0f / asset.clips[wave].duration;
    for (uint32_t i = 0; i < 6; i++)
        crowd_play_once(c, i, wave, rate * (1.0f + 0.1f * (float)i), 0.0f);
    step(c, 0.1f);
    crowd_remove(c, 1);    /* instance 5 (the fastest) becomes 1 */
    crowd_set_count(c, 4); /* instance 4 parked */
    uint32_t by_index[6] = {0}, fast_time_ok = 0, marker_wrong = 0;
    double start = crowd_time(c) - 0.1;
    for (int frame = 0; frame < 150; frame++) {
        const crowd_frame *f = step(c, 1.0f / 60.0f);
        for (uint32_t e = 0; e < f->event_count; e++) {
            const crowd_event *ev = &f->events[e];
            if (ev->kind == CROWD_EVENT_MARKER) {
                marker_wrong += ev->instance >= 4;
                continue;
            }
            REQUIRE(ev->instance < 6);
            by_index[ev->instance]++;
            if (ev->instance == 1) /* the former instance 5: its end, 1 / (1.5 rate) after the start */
                fast_time_ok += fabs(ev->time - (start + 1.0 / (1.5 * rate))) < 1e-3;
        }
    }
    printf("     finishes per index after removing 1 and parking 4: %u %u %u %u %u %u\n", by_index[0], by_index[1],
           by_index[2], by_index[3], by_index[4], by_index[5]);
    CHECK(by_index[0] == 1 && by_index[1] == 1 && by_index[2] == 1 && by_index[3] == 1);
    CHECK(by_index[4] == 0 && by_index[5] == 0);
    CHECK(fast_time_ok == 1 && marker_wrong == 0);
    crowd_destroy(c);
}

/* During a fade only the clip that shows more reports: walk's markers until half way, run's after. */
static void fades_report_the_clip_that_shows(void)
{
    crowd *c = make_crowd(20, 1, 0);
    for (uint32_t i = 0; i < 20; i++) {
        crowd_play(c, i, walk, 1.0f, 0.0f);
        crowd_set_phase(c, i, 0.05f * (float)i);
    }
    step(c, 0.05f);
    for (uint32_t i = 0; i < 20; i++)
        crowd_play(c, i, run, 1.4f, 1.0f);
    crowd_record r;
    crowd_get(c, 0, &r);
    double half = r.fade_start + 0.5 / r.fade_rate;
    uint32_t before_half[2] = {0}, after_half[2] = {0};
    for (int frame = 0; frame < 120; frame++) {
        const crowd_frame *f = step(c, 1.0f / 60.0f);
        for (uint32_t e = 0; e < f->event_count; e++) {
            const crowd_event *ev = &f->events[e];
            uint32_t *bin = ev->time <= half ? before_half : after_half;
            bin[ev->clip == run]++;
        }
    }
    printf("     before half way: %u walk, %u run; after: %u walk, %u run\n", before_half[0], before_half[1],
           after_half[0], after_half[1]);
    CHECK(before_half[0] > 0 && before_half[1] == 0 && after_half[0] == 0 && after_half[1] > 0);
    crowd_destroy(c);
}

/* Across the time's rebase (at 2048 s) no crossing is lost or doubled: per instance and marker,
 * the events over a window around it equal the crossings of the phase over the window's length,
 * and a one-shot started 0.5 s before the rebase finishes once. */
static void rebase_keeps_events(void)
{
    const uint32_t n = 40;
    crowd *c = make_crowd(n, 1, 1u << 16);
    step(c, 1000.0f);
    step(c, 1000.0f);
    step(c, 47.0f);
    for (uint32_t i = 0; i < n; i++) {
        crowd_play(c, i, walk, 0.9f + 0.013f * (float)i, 0.0f);
        crowd_set_phase(c, i, (float)i / (float)n);
    }
    crowd_play_once(c, n - 1, wave, 1.0f / asset.clips[wave].duration, 0.0f);
    step(c, 0.5f);
    crowd_record r[40];
    for (uint32_t i = 0; i < n; i++)
        crowd_get(c, i, &r[i]);
    double t0 = crowd_time(c), elapsed = 0.0;
    uint32_t count[40][2] = {{0}}, finished = 0, outside = 0;
    for (int frame = 0; frame < 180; frame++) {
        double previous = crowd_time(c);
        const crowd_frame *f = step(c, 1.0f / 60.0f);
        elapsed += 1.0f / 60.0f;
        if (f->time < previous) /* rebased in this update: the events' times are in the new base */
            previous -= 1024.0;
        for (uint32_t e = 0; e < f->event_count; e++) {
            const crowd_event *ev = &f->events[e];
            outside += !(ev->time >= previous - 1e-3 && ev->time <= f->time + 1e-3);
            if (ev->kind == CROWD_EVENT_FINISHED)
                finished++;
            else if (ev->clip == walk)
                count[ev->instance][asset.markers[ev->detail].phase > 0.5f]++;
        }
    }
    CHECKF(crowd_time(c) < 1100.0f, "time %g: no rebase happened", (double)crowd_time(c));
    uint32_t wrong = 0, total = 0;
    for (uint32_t i = 0; i + 1 < n; i++)
        for (int k = 0; k < 2; k++) {
            double m = asset.markers[marker_index(k ? "step_b" : "step_a")].phase;
            double u0 = r[i].offset_a + t0 * r[i].rate_a, u1 = u0 + elapsed * r[i].rate_a;
            uint32_t want = (uint32_t)(floor(u1 - m) - floor(u0 - m));
            wrong += count[i][k] != want;
            total += count[i][k];
        }
    printf("     %u marker events over 3 s through the rebase, %u (instance, marker) counts wrong; %u finish; %u "
           "outside their frame's step\n",
           total, wrong, finished, outside);
    CHECK(wrong == 0 && total > 0 && finished == 1 && outside == 0);
    crowd_destroy(c);
}

/* Nothing is asked: no events and no one-shots followed; markers off: no marker events; too little
 * room: the first events kept, the rest counted. */
static void off_and_overflow(void)
{
    crowd *c = make_crowd(100, 0, 8);
    for (uint32_t i = 0; i < 100; i++)
        crowd_play(c, i, walk, 1.0f, 0.0f);
    const crowd_frame *f = step(c, 2.0f);
    CHECK(f->event_count == 0 && f->stats.events_dropped == 0 && f->stats.one_shots == 0);
    crowd_desc d = *crowd_settings(c);
    d.marker_events = 1;
    crowd_error error;
    REQUIRE(crowd_configure(c, &d, &error) == CROWD_OK);
    f = step(c, 2.0f); /* 2 cycles x 2 markers x 100 = 400 crossings */
    printf("     room for 8: %u events, %u dropped\n", f->event_count, f->stats.events_dropped);
    CHECK(f->event_count == 8 && f->stats.events_dropped == 392);
    d.event_capacity = 9;
    CHECK(crowd_configure(c, &d, &error) == CROWD_ERROR_ARGUMENT);
    d.event_capacity = 8;
    d.marker_events = 2;
    CHECK(crowd_configure(c, &d, &error) == CROWD_ERROR_ARGUMENT);
    crowd_destroy(c);
}

/* The bake's footsteps on the humanoid (its gait plants the left foot, +X, at phase 0 and the right
 * at 0.5): two per locomotion clip, one per foot, near those phases; over 5 whole cycles of the walk
 * each walker reports 5 x 2 footsteps, each in the frame where its phase passes the marker's. */
static void footsteps_once_per_foot_per_cycle(void)
{
    crowd_bake_output steps_baked;
    crowd_asset steps;
    humanoid_asset_or_die((crowd_bake_desc){0}, &steps_baked, &steps);
    uint32_t steps_walk = clip_or_die(&steps, "walk"), first = 0;
    REQUIRE(crowd_asset_clip_markers(&steps, steps_walk, &first) == 2);
    for (uint32_t m = first; m < first + 2; m++) {
        const crowd_marker *k = &steps.markers[m];
        bool left = !strcmp(k->name, "footstep_l");
        double d = fabs(k->phase - (left ? 0.0 : 0.5));
        d = fmin(d, 1.0 - d);
        printf("     walk %s at phase %.4f (%.4f from the gait's touchdown)\n", k->name, (double)k->phase, d);
        CHECK((left || !strcmp(k->name, "footstep_r")) && d < 0.05);
    }
    CHECK(strcmp(steps.markers[first].name, steps.markers[first + 1].name) != 0);
    CHECK(crowd_asset_clip_markers(&steps, clip_or_die(&steps, "run"), NULL) == 2);
    CHECK(crowd_asset_clip_markers(&steps, clip_or_die(&steps, "wave"), NULL) == 0);

    const uint32_t n = 30;
    crowd_desc d = {.asset = &steps, .capacity = 64, .marker_events = 1, .threads = 1};
    crowd *c = NULL;
    crowd_error error;
    REQUIRE(crowd_create(&d, &c, &error) == CROWD_OK);
    crowd_set_count(c, n);
    float duration = steps.clips[steps_walk].duration;
    for (uint32_t i = 0; i < n; i++) {
        crowd_play(c, i, steps_walk, 1.0f / duration, 0.0f);
        crowd_set_phase(c, i, (float)i / (float)n + 0.0123f);
    }
    uint32_t per_instance[30] = {0}, wrong = 0, frames = (uint32_t)lround(5.0 * duration * 60.0);
    for (uint32_t frame = 0; frame < frames; frame++) {
        float t0 = crowd_time(c);
        crowd_record before[30];
        for (uint32_t i = 0; i < n; i++)
            crowd_get(c, i, &before[i]);
        const crowd_frame *f = step(c, 1.0f / 60.0f);
        for (uint32_t e = 0; e < f->event_count; e++) {
            const crowd_event *ev = &f->events[e];
            REQUIRE(ev->kind == CROWD_EVENT_MARKER && ev->instance < n && ev->clip == steps_walk);
            per_instance[ev->instance]++;
            double m = steps.markers[ev->detail].phase;
            wrong += !passed(shown_phase(&before[ev->instance], t0), shown_phase(&before[ev->instance], f->time), m);
        }
    }
    uint32_t off = 0;
    for (uint32_t i = 0; i < n; i++)
        off += per_instance[i] != 10;
    printf("     %u frames (5 walk cycles): %u of %u walkers without exactly 10 footsteps, %u in a wrong frame\n",
           frames, off, n, wrong);
    CHECK(off == 0 && wrong == 0);
    crowd_destroy(c);
    crowd_asset_free(&steps);
    crowd_bake_output_free(&steps_baked);
}

/* Crossings of every marker of clip A by record r over (t0, t1], counted from its phase as the
 * shaders compute it (a step of less than a cycle, no fade running). */
static uint32_t expected_crossings(const crowd_asset *a, const crowd_record *r, float t0, float t1)
{
    uint32_t clip = crowd_record_clip(r, 0), first = 0, n = crowd_asset_clip_markers(a, clip, &first), count = 0;
    if (r->rate_a == 0.0f)
        return 0;
    double p0 = shown_phase(r, t0), p1 = shown_phase(r, t1);
    for (uint32_t m = first; m < first + n; m++)
        count += r->rate_a > 0.0f ? passed(p0, p1, a->markers[m].phase) : passed(p1, p0, a->markers[m].phase);
    return count;
}

/* The simulation drives (wander: gaits, stride-matched rates, turns, through its own door): every
 * walker's footsteps come out exactly as its record, read after the step, says; a one-shot played
 * backwards starts at its end and reports it in the next update, once. */
static void whoever_drives(void)
{
    crowd_bake_output steps_baked;
    crowd_asset steps;
    humanoid_asset_or_die((crowd_bake_desc){0}, &steps_baked, &steps);
    const uint32_t n = 300;
    crowd_desc d = {.asset = &steps, .capacity = n, .marker_events = 1, .threads = 1};
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    crowd_error error;
    REQUIRE(crowd_create(&d, &c, &error) == CROWD_OK);
    crowd_sim_desc sd = {.target = c, .scenario = CROWD_SCENARIO_WANDER, .seed = 3};
    REQUIRE(crowd_sim_create(&sd, &sim, &error) == CROWD_OK && crowd_sim_spawn(sim, n) == CROWD_OK);
    static crowd_record before[300];
    uint32_t expected = 0, seen = 0, mismatched = 0, skipped = 0;
    for (int frame = 0; frame < 240; frame++) {
        crowd_sim_step(sim, 1.0f / 60.0f);
        float t0 = crowd_time(c);
        for (uint32_t i = 0; i < n; i++)
            crowd_get(c, i, &before[i]);
        const crowd_frame *f = step(c, 1.0f / 60.0f);
        uint32_t got[300] = {0};
        for (uint32_t e = 0; e < f->event_count; e++)
            if (f->events[e].kind == CROWD_EVENT_MARKER && f->events[e].instance < n)
                got[f->events[e].instance]++;
        seen += f->event_count;
        for (uint32_t i = 0; i < n; i++) {
            if (before[i].fade_rate > 0.0f && !(before[i].clips & CROWD_RECORD_TURN)) {
                skipped++; /* a fade: the half-way rule, tested above */
                continue;
            }
            uint32_t want = expected_crossings(&steps, &before[i], t0, f->time);
            expected += want;
            mismatched += want != got[i];
        }
    }
    printf("     wander, 300 agents, 240 frames: %u footstep events, %u expected, %u instance-frames differ (%u in "
           "fades)\n",
           seen, expected, mismatched, skipped);
    CHECK(seen > 0 && mismatched == 0);

    uint32_t steps_wave = clip_or_die(&steps, "wave"), finishes = 0, first_frame_finish = 0;
    crowd_play_once(c, 7, steps_wave, -1.0f, 0.0f);
    for (int frame = 0; frame < 60; frame++) {
        const crowd_frame *f = step(c, 1.0f / 60.0f);
        for (uint32_t e = 0; e < f->event_count; e++)
            if (f->events[e].kind == CROWD_EVENT_FINISHED) {
                finishes++;
                first_frame_finish += frame == 0 && f->events[e].instance == 7 && f->events[e].clip == steps_wave;
            }
    }
    printf("     a one-shot played backwards: %u finish (in the first update: %u)\n", finishes, first_frame_finish);
    CHECK(finishes == 1 && first_frame_finish == 1);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    crowd_asset_free(&steps);
    crowd_bake_output_free(&steps_baked);
}

int main(void)
{
    humanoid_asset_or_die((crowd_bake_desc){.markers = named_markers, .marker_count = 4, .footsteps = -1}, &baked,
                          &asset);
    walk = clip_or_die(&asset, "walk");
    run = clip_or_die(&asset, "run");
    wave = clip_or_die(&asset, "wave");
    if (asset.marker_count != 4) {
        fprintf(stderr, "the bake kept %u of 4 named markers\n", asset.marker_count);
        return 1;
    }
    RUN_TEST(loop_markers_small_steps);
    RUN_TEST(loop_markers_long_steps);
    RUN_TEST(one_shot_finishes);
    RUN_TEST(removed_instances_are_silent);
    RUN_TEST(fades_report_the_clip_that_shows);
    RUN_TEST(rebase_keeps_events);
    RUN_TEST(off_and_overflow);
    RUN_TEST(footsteps_once_per_foot_per_cycle);
    RUN_TEST(whoever_drives);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&baked);
    TEST_MAIN_END();
}
