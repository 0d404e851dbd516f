/* The record decode test's browser half (web build only): the vectors record_vectors.c wrote are
 * decoded on the GPU by the WGSL decode (record.wgsl, through our WebGPU binding, driven from
 * here) and held to the C decode's values the file carries. The page (web/webgpu-check.html) hands
 * over the file's bytes and reads the report; everything else happens here, one step a frame.
 *
 * Bounds, from the float32 arithmetic of the two sides (the GPU may fuse a multiply and an add,
 * or round its exp differently: the terms differ by a rounding or two of their magnitudes):
 *  - position: 1e-6 of the magnitude of the terms summed, |p0| + (|v0| + |d|) |dt| + 1 m (about 8
 *    ulp of the largest), plus for a turn the exp's: |v0 - d| 1e-6 / k (crowd.h's stated bound);
 *  - yaw: 1e-5 rad (the atan2 polynomial's few roundings), plus for a turn the exp's error in the
 *    velocity over its speed, |v0 - d| 1e-6 / |v|; compared around the circle. A turning record
 *    whose speed squared is within 1e-5 of the 0.0025 threshold may fall either side: not compared;
 *  - phase: 1e-6 plus one rounding of offset + time rate, 2^-23 (|offset| + |time rate|) (an
 *    FMA skips it); a looping phase around the circle;
 *  - frames: the frame position (row - first + t) within the phase's bound times the frame count;
 *  - fade weight 1e-6; band random exact (integer hash, a 24-bit float); band card equal unless the
 *    random is within 1e-4 of the blend factor. */
#include <emscripten.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_vectors.h"
#include "webgpu/decode.h"
#include "webgpu/wgpu_binding.h"

/* The page's calls (web/webgpu-check.html). */
int check_start(const uint8_t *bytes, uint32_t size);
int check_status(void);
const char *check_report(void);

enum { FIELD_POSITION, FIELD_YAW, FIELD_WEIGHT, FIELD_BAND, FIELD_PHASE, FIELD_FRAMES, FIELD_CARD, FIELDS };
static const char *const field_names[FIELDS] = {"position", "yaw",    "weight",   "band_random",
                                                "phase",    "frames", "band_card"};

static struct {
    int status; /* 0 running, 1 passed, 2 failed */
    const record_vectors_header *header;
    const record_vectors_clip *clips;
    const record_vector *vectors;
    crowd_record *records;
    float *times, *decoded;
    crowd_webgpu_decode *decode;
    double started_ms;
    double worst[FIELDS], worst_ratio[FIELDS]; /* largest error, and largest error / its bound */
    uint32_t worst_index[FIELDS], failures[FIELDS], skipped_yaw, kinds[VECTOR_KINDS];
    int first_field; /* the first value past its bound: its field (-1: none yet) and vector */
    uint32_t first_index;
    char report[4096];
} check;

static void finish(int status, const char *message)
{
    check.status = status;
    if (message)
        snprintf(check.report, sizeof check.report, "{\"passed\":false,\"error\":\"%s\"}", message);
    emscripten_cancel_main_loop();
}

/* One error against its bound (0: exact); the worst kept per field. A NaN counts as infinite. */
static void note(int field, uint32_t index, double error, double bound)
{
    if (isnan(error))
        error = INFINITY;
    double ratio = error == 0.0 ? 0.0 : error / bound;
    if (ratio > 1.0 && check.failures[field]++ == 0 && check.first_field < 0) {
        check.first_field = field;
        check.first_index = index;
    }
    if (ratio > check.worst_ratio[field]) {
        check.worst_ratio[field] = ratio;
        check.worst_index[field] = index;
    }
    if (error > check.worst[field])
        check.worst[field] = error;
}

/* JSON has no infinity: past any bound reads as 1e300. */
static double finite(double x)
{
    return isfinite(x) ? x : 1e300;
}

static double around(double a, double b, double period)
{
    double d = fmod(fabs(a - b), period);
    return d < period - d ? d : period - d;
}

static void velocity_at(const crowd_record *r, float t, float v0[2], float v[2])
{
    crowd_record_velocity(r, v0);
    float e = expf(-r->fade_start * (t - r->ref_time));
    v[0] = r->offset_b + (v0[0] - r->offset_b) * e;
    v[1] = r->rate_b + (v0[1] - r->rate_b) * e;
}

static void compare_motion(uint32_t i, const record_vector *x, const float *g)
{
    const crowd_record *r = &x->record;
    bool turning = (r->clips & CROWD_RECORD_TURN) != 0;
    float v0[2], v[2];
    velocity_at(r, x->time, v0, v);
    double dt = fabs((double)x->time - r->ref_time);
    const float d[2] = {turning ? r->offset_b : 0.0f, turning ? r->rate_b : 0.0f};
    for (int k = 0; k < 3; k++) {
        int c = k == 2 ? 1 : 0; /* the velocity component of x and z */
        double size = 1.0 + fabs(r->position[k]) + (k == 1 ? 0.0 : (fabs(v0[c]) + fabs(d[c])) * dt);
        double bound = 1e-6 * size + (turning && k != 1 ? fabs(v0[c] - d[c]) * 1e-6 / r->fade_start : 0.0);
        note(FIELD_POSITION, i, fabs((double)g[k] - x->expected[k]), bound);
    }
    float speed2 = v[0] * v[0] + v[1] * v[1];
    if (turning && fabsf(speed2 - 0.0025f) < 1e-5f) {
        check.skipped_yaw++;
        return;
    }
    double bound = 1e-5 + (turning ? hypot(v0[0] - d[0], v0[1] - d[1]) * 1e-6 / sqrt(speed2) : 0.0);
    note(FIELD_YAW, i, around(g[3], x->expected[3], 2.0 * 3.14159265358979323846), bound);
}

/* Phase, then the frames clip_sample picks from it, for clip A (0) or B (1). */
static void compare_clip(uint32_t i, const record_vector *x, const float *g, int which)
{
    const crowd_record *r = &x->record;
    bool turning = (r->clips & CROWD_RECORD_TURN) != 0;
    int w = turning ? 0 : which;
    uint32_t clip = crowd_record_clip(r, w);
    bool hold = r->clips & (w ? CROWD_RECORD_HOLD_B : CROWD_RECORD_HOLD_A);
    float offset = w ? r->offset_b : r->offset_a, rate = w ? r->rate_b : r->rate_a;
    double phase_bound = 1e-6 + ldexp(fabs(offset) + fabs((double)x->time * rate), -23);
    double e =
        hold ? fabs((double)g[6 + which] - x->expected[6 + which]) : around(g[6 + which], x->expected[6 + which], 1.0);
    note(FIELD_PHASE, i, e, phase_bound);
    if (clip >= check.header->clip_count)
        return;
    const record_vectors_clip *c = &check.clips[clip];
    const float *gs = g + 8 + 4 * which, *cs = x->expected + 8 + 4 * which;
    double n = c->frame_count, first = c->first_frame;
    double gpos = gs[0] - first + gs[2], cpos = cs[0] - first + cs[2];
    bool wraps = c->loops && !hold;
    double err = wraps ? around(gpos, cpos, n) : fabs(gpos - cpos);
    note(FIELD_FRAMES, i, err, phase_bound * n + 1e-5);
}

static void compare_one(uint32_t i)
{
    const record_vector *x = &check.vectors[i];
    const float *g = check.decoded + (size_t)i * CROWD_WEBGPU_DECODED_FLOATS;
    compare_motion(i, x, g);
    note(FIELD_WEIGHT, i, fabs((double)g[4] - x->expected[4]), 1e-6);
    note(FIELD_BAND, i, fabs((double)g[5] - x->expected[5]), 0.0);
    compare_clip(i, x, g, 0);
    compare_clip(i, x, g, 1);
    if (g[11] != x->expected[11]) { /* the rule flips only where the random meets the blend factor */
        const float *p = x->expected, *cam = check.header->camera, *band = check.header->band;
        double f = (hypot(hypot(cam[0] - p[0], cam[1] - p[1]), cam[2] - p[2]) - band[0]) / (band[1] - band[0]);
        note(FIELD_CARD, i, fabs(x->expected[5] - (f < 0 ? 0 : f > 1 ? 1 : f)) < 1e-4 ? 0.0 : 1.0, 0.0);
    }
    for (int k = 0; k < VECTOR_KINDS; k++)
        check.kinds[k] += (x->kinds >> k) & 1u;
}

static void write_report(void)
{
    uint32_t failed = 0;
    size_t n = (size_t)snprintf(check.report, sizeof check.report, "{\"vectors\":%u,\"ms\":%.1f,\"fields\":{",
                                check.header->count, emscripten_get_now() - check.started_ms);
    for (int f = 0; f < FIELDS; f++) {
        failed += check.failures[f];
        n += (size_t)snprintf(check.report + n, sizeof check.report - n,
                              "%s\"%s\":{\"worst\":%.3g,\"worst_of_bound\":%.3g,\"at\":%u,\"failures\":%u}",
                              f ? "," : "", field_names[f], finite(check.worst[f]), finite(check.worst_ratio[f]),
                              check.worst_index[f], check.failures[f]);
    }
    static const char *const kind_names[VECTOR_KINDS] = {"turning", "fading",  "one_shot",
                                                         "held",    "rebased", "straight"};
    n += (size_t)snprintf(check.report + n, sizeof check.report - n, "},\"skipped_yaw\":%u,\"kinds\":{",
                          check.skipped_yaw);
    for (int k = 0; k < VECTOR_KINDS; k++)
        n += (size_t)snprintf(check.report + n, sizeof check.report - n, "%s\"%s\":%u", k ? "," : "", kind_names[k],
                              check.kinds[k]);
    n += (size_t)snprintf(check.report + n, sizeof check.report - n, "}");
    if (check.first_field >= 0) { /* the values of the first vector past a bound, both sides */
        const record_vector *x = &check.vectors[check.first_index];
        const float *g = check.decoded + (size_t)check.first_index * CROWD_WEBGPU_DECODED_FLOATS;
        n += (size_t)snprintf(check.report + n, sizeof check.report - n,
                              ",\"first_failure\":{\"field\":\"%s\",\"at\":%u,\"kinds\":%u,\"time\":%.9g,\"gpu\":[",
                              field_names[check.first_field], check.first_index, x->kinds, x->time);
        for (int k = 0; k < 2 * RECORD_VECTOR_VALUES; k++)
            n += (size_t)snprintf(check.report + n, sizeof check.report - n, "%s%.9g",
                                  k == RECORD_VECTOR_VALUES ? "],\"c\":["
                                  : k                       ? ","
                                                            : "",
                                  finite(k < RECORD_VECTOR_VALUES ? g[k] : x->expected[k - RECORD_VECTOR_VALUES]));
        n += (size_t)snprintf(check.report + n, sizeof check.report - n, "]}");
    }
    snprintf(check.report + n, sizeof check.report - n, ",\"passed\":%s}", failed ? "false" : "true");
    check.status = failed ? 2 : 1;
}

/* One frame's step: the device, then the pass, then polling its read-back, then the comparison. */
static void step(void)
{
    static crowd_error error;
    int device = crowd_wgpu_device_state();
    if (device == CROWD_WGPU_FAILED) {
        char reason[256];
        crowd_wgpu_device_reason(reason, sizeof reason);
        snprintf(error.message, sizeof error.message, "WebGPU unavailable: %s", reason);
        finish(2, error.message);
        return;
    }
    if (device == CROWD_WGPU_PENDING)
        return;
    if (!check.decode) {
        const uint32_t count = check.header->count;
        if (crowd_webgpu_decode_create((const crowd_webgpu_clip *)check.clips, check.header->clip_count, count,
                                       &check.decode, &error) != CROWD_OK ||
            crowd_webgpu_decode_start(check.decode, check.records, check.times, count, check.header->band,
                                      check.header->camera, &error) != CROWD_OK)
            finish(2, error.message);
        return;
    }
    int state = crowd_webgpu_decode_poll(check.decode, check.decoded, &error);
    if (state == CROWD_WGPU_FAILED || crowd_wgpu_error_count() > 0) {
        if (state != CROWD_WGPU_FAILED)
            crowd_wgpu_last_error(error.message, sizeof error.message);
        finish(2, error.message);
    } else if (state == CROWD_WGPU_READY) {
        for (uint32_t i = 0; i < check.header->count; i++)
            compare_one(i);
        write_report();
        emscripten_cancel_main_loop();
    }
}

/* The vector file's bytes (kept by the caller until the check ends): 0 when it starts, 2 when the
 * file is refused (the report says why). */
EMSCRIPTEN_KEEPALIVE int check_start(const uint8_t *bytes, uint32_t size)
{
    const record_vectors_header *h = (const record_vectors_header *)bytes;
    check.header = h;
    check.first_field = -1;
    check.started_ms = emscripten_get_now();
    if (size < sizeof *h || h->magic != RECORD_VECTORS_MAGIC || h->version != RECORD_VECTORS_VERSION || h->count == 0 ||
        h->count > RECORD_VECTORS_MAX || h->clip_count == 0 || h->clip_count > CROWD_MAX_CLIPS ||
        size != sizeof *h + h->clip_count * sizeof(record_vectors_clip) + h->count * sizeof(record_vector)) {
        snprintf(check.report, sizeof check.report, "{\"passed\":false,\"error\":\"not a vector file of this build\"}");
        return check.status = 2;
    }
    check.clips = (const record_vectors_clip *)(h + 1);
    check.vectors = (const record_vector *)(check.clips + h->clip_count);
    check.records = malloc(h->count * sizeof *check.records);
    check.times = malloc(h->count * sizeof *check.times);
    check.decoded = malloc(h->count * CROWD_WEBGPU_DECODED_FLOATS * sizeof *check.decoded);
    if (!check.records || !check.times || !check.decoded) {
        snprintf(check.report, sizeof check.report, "{\"passed\":false,\"error\":\"out of memory\"}");
        return check.status = 2;
    }
    for (uint32_t i = 0; i < h->count; i++) {
        check.records[i] = check.vectors[i].record;
        check.times[i] = check.vectors[i].time;
    }
    crowd_wgpu_request_device();
    emscripten_set_main_loop(step, 0, 0);
    return 0;
}

/* 0 while running, 1 passed, 2 failed. */
EMSCRIPTEN_KEEPALIVE int check_status(void)
{
    return check.status;
}

/* The report, JSON: worst error per field and against its bound, failures, kinds covered. */
EMSCRIPTEN_KEEPALIVE const char *check_report(void)
{
    return check.report;
}
