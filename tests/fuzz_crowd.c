/* libFuzzer target for the .crowd loader: any bytes must load into an asset whose every decode is
 * finite (and inside the decode box), or be refused with a message; never a crash, a leak, an
 * out-of-bounds read or a NaN. Built by `make build-fuzz` (clang, -fsanitize=fuzzer,address,undefined
 * in build-fuzz/); `make fuzz-crowd` runs it long, `make test` for 30 s. The seeds are real bakes
 * made at build time (`make fuzz-crowd-seeds`), never committed.
 *
 * Each input is loaded twice: as it is (the container's checks: CRCs, layout), and with every CRC
 * re-sealed (so a mutation inside a section reaches the semantic checks instead of dying at the
 * checksum). After a successful load every decoder runs: crowd_asset_decode_vertex on every vertex
 * of the first, a middle and the last frame, crowd_asset_bone_matrix for every bone there, the
 * position quantum, the find_* lookups, and a small crowd playing every clip (and a one-shot)
 * through two updates with marker events on; any non-finite output, or an event naming something
 * the asset lacks, aborts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/view_matrices.h"
#include "core/crc32.h"
#include "core/format.h"
#include "crowdbake/asset.h"
#include "crowdbake/crowd.h"

#define CHECK_FINITE(cond, ...)                          \
    do {                                                 \
        if (!(cond)) {                                   \
            fprintf(stderr, "fuzz_crowd: " __VA_ARGS__); \
            fputc('\n', stderr);                         \
            abort();                                     \
        }                                                \
    } while (0)

static bool finite_n(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static void check_frame_decodes(const crowd_asset *a, uint32_t frame)
{
    for (uint32_t v = 0; v < a->vertex_count; v++) {
        float p[3], n[3];
        CHECK_FINITE(crowd_asset_decode_vertex(a, frame, v, p, n) == CROWD_OK, "decode refused frame %u vertex %u",
                     frame, v);
        CHECK_FINITE(finite_n(p, 3) && finite_n(n, 3), "frame %u vertex %u: position (%g %g %g) normal (%g %g %g)",
                     frame, v, (double)p[0], (double)p[1], (double)p[2], (double)n[0], (double)n[1], (double)n[2]);
        for (int k = 0; k < 3; k++) {
            /* inside the box, up to float rounding of min + q * (extent / 65535) */
            float lo = a->bounds_min[k], hi = a->bounds_max[k];
            float slack = 1e-5f * (hi - lo) + 1e-6f * (fabsf(lo) + fabsf(hi)) + 1e-30f;
            CHECK_FINITE(p[k] >= lo - slack && p[k] <= hi + slack, "frame %u vertex %u: %c = %g outside %g .. %g",
                         frame, v, "xyz"[k], (double)p[k], (double)lo, (double)hi);
        }
        float len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        CHECK_FINITE(len2 > 0.99f && len2 < 1.01f, "frame %u vertex %u: normal length^2 %g", frame, v, (double)len2);
    }
    for (uint32_t b = 0; a->bones.data && b < a->bone_count; b++) {
        float m[12];
        CHECK_FINITE(crowd_asset_bone_matrix(a, frame, b, m) == CROWD_OK, "bone matrix refused");
        CHECK_FINITE(finite_n(m, 12), "frame %u bone %u: matrix not finite", frame, b);
    }
}

static void check_lookups(const crowd_asset *a)
{
    uint32_t found;
    for (uint32_t c = 0; c < a->clip_count && c < 8; c++)
        CHECK_FINITE(crowd_asset_find_clip(a, a->clips[c].name, &found) && found < a->clip_count,
                     "clip %u not found by name", c);
    for (uint32_t s = 0; s < a->socket_count && s < 8; s++)
        CHECK_FINITE(crowd_asset_find_socket(a, a->sockets[s].name, &found) && found < a->socket_count,
                     "socket %u not found by name", s);
    for (uint32_t g = 0; g < a->region_count && g < 8; g++)
        CHECK_FINITE(crowd_asset_find_region(a, a->regions_info[g].name, &found) && found < a->region_count,
                     "region %u not found by name", g);
    (void)crowd_asset_find_clip(a, "no such clip \x01", &found);
    (void)crowd_asset_find_socket(a, "", &found);
    (void)crowd_asset_find_region(a, "no such region", &found);
    float q[3];
    crowd_asset_position_quantum(a, q);
    CHECK_FINITE(finite_n(q, 3) && q[0] >= 0.0f && q[1] >= 0.0f && q[2] >= 0.0f, "position quantum not finite");
    (void)crowd_asset_vat_bytes_per_vertex_frame(a);
}

/* A camera at (6, 3, 10) looking at the origin: 60 degrees, 16:9, near 0.1, far 500. */
static void fuzz_view(crowd_view *view)
{
    memset(view, 0, sizeof *view);
    const float eye[3] = {6, 3, 10}, target[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    cb_look_at(view->view, eye, target, up);
    cb_perspective(view->projection, 1.0472f, 16.0f / 9.0f, 0.1f, 500.0f);
    view->viewport_height = 720.0f;
}

static void check_record(const crowd_record *r, const char *what, uint32_t i)
{
    float velocity[2];
    crowd_record_velocity(r, velocity);
    const float fields[] = {r->position[0], r->position[1], r->position[2], r->yaw,      r->ref_time,
                            r->offset_a,    r->rate_a,      r->scale,       velocity[0], r->offset_b,
                            r->rate_b,      r->fade_start,  r->fade_rate,   velocity[1]};
    CHECK_FINITE(finite_n(fields, (int)(sizeof fields / sizeof fields[0])),
                 "%s %u not finite (rate_a %g rate_b %g fade_rate %g)", what, i, (double)r->rate_a, (double)r->rate_b,
                 (double)r->fade_rate);
}

/* Every drawn record and every live instance's record (slack slots between chunks are undefined
 * by contract and not looked at). */
static void check_records(const crowd *c, const crowd_frame *frame, uint32_t count)
{
    CHECK_FINITE(frame != NULL, "crowd_update returned NULL");
    for (uint32_t d = 0; d < frame->draw_count; d++) {
        const crowd_draw *draw = &frame->draws[d];
        CHECK_FINITE(draw->first + (uint64_t)draw->count <= frame->record_count, "draw %u past the records", d);
        for (uint32_t i = draw->first; i < draw->first + draw->count; i++)
            check_record(&frame->records[i], "drawn record", i);
    }
    for (uint32_t i = 0; i < count; i++) {
        crowd_record r;
        if (crowd_get(c, i, &r) == CROWD_OK)
            check_record(&r, "instance", i);
    }
}

/* The frame's events name live instances, the asset's clips and markers, at finite times. */
static void check_events(const crowd_asset *a, const crowd_frame *frame, uint32_t count)
{
    for (uint32_t e = 0; e < frame->event_count; e++) {
        const crowd_event *ev = &frame->events[e];
        bool marker = ev->kind == CROWD_EVENT_MARKER;
        CHECK_FINITE(ev->instance < count && ev->clip < a->clip_count && isfinite(ev->time) &&
                         (marker ? ev->detail < a->marker_count && a->markers[ev->detail].clip == ev->clip
                                 : ev->kind == CROWD_EVENT_FINISHED),
                     "event %u: kind %d instance %u clip %u detail %u", e, (int)ev->kind, ev->instance, ev->clip,
                     ev->detail);
    }
}

static void check_crowd(const crowd_asset *a)
{
    crowd_desc desc = {.asset = a, .capacity = 8, .marker_events = 1, .event_capacity = 16};
    crowd *c = NULL;
    crowd_error err = {0};
    if (crowd_create(&desc, &c, &err) != CROWD_OK) {
        CHECK_FINITE(err.message[0], "crowd_create refused a loaded asset without a message");
        return;
    }
    uint32_t count = 6;
    CHECK_FINITE(crowd_set_count(c, count) == CROWD_OK, "crowd_set_count");
    for (uint32_t i = 0; i < count; i++) {
        crowd_set_transform(c, i, (float)i - 2.5f, 0.0f, (float)(i % 3), 0.5f * (float)i);
        crowd_play(c, i, i % a->clip_count, i == 3 ? 2.5f : 1.0f, 0.0f);
    }
    crowd_set_speed(c, 4, 1.4f);
    crowd_view view = {0};
    fuzz_view(&view);
    crowd_play_once(c, 5, a->clip_count - 1, 1.0f, 0.0f);
    const crowd_frame *frame = crowd_update(c, 1.0f / 60.0f, &view);
    check_records(c, frame, count);
    check_events(a, frame, count);
    crowd_play(c, 1, (1 + 1) % a->clip_count, 1.0f, 0.25f); /* a cross-fade */
    crowd_set_scale(c, 2, 0.5f);
    frame = crowd_update(c, 3.0f, &view); /* cycles of every clip: its markers and the one-shot's end */
    check_records(c, frame, count);
    check_events(a, frame, count);
    crowd_destroy(c);
}

static void exercise(const crowd_asset *a)
{
    check_lookups(a);
    check_frame_decodes(a, 0);
    if (a->frame_count > 2)
        check_frame_decodes(a, a->frame_count / 2);
    if (a->frame_count > 1)
        check_frame_decodes(a, a->frame_count - 1);
    check_crowd(a);
}

/* Recomputes the section CRCs and the table CRC, as far as the table's own fields allow. */
static void reseal(uint8_t *bytes, size_t size)
{
    if (size < CROWD_FILE_HEADER_BYTES)
        return;
    uint32_t count = crowd_rd32(bytes + 12);
    if (count > CROWD_MAX_SECTIONS || CROWD_FILE_HEADER_BYTES + (uint64_t)count * CROWD_SECTION_ENTRY_BYTES > size)
        return;
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *entry = bytes + CROWD_FILE_HEADER_BYTES + CROWD_SECTION_ENTRY_BYTES * i;
        uint64_t offset = crowd_rd64(entry + 8), length = crowd_rd64(entry + 16);
        if (offset <= size && length <= size - offset)
            crowd_wr32(entry + 24, crowd_crc32(0, bytes + offset, (size_t)length));
    }
    crowd_wr32(bytes + 24, 0);
    crowd_wr32(bytes + 24, crowd_crc32(0, bytes, CROWD_FILE_HEADER_BYTES + CROWD_SECTION_ENTRY_BYTES * (size_t)count));
}

static void load_and_exercise(const uint8_t *bytes, size_t size)
{
    crowd_asset a;
    crowd_error err = {0};
    crowd_result r = crowd_asset_load_memory(&a, bytes, size, &err);
    if (r != CROWD_OK) {
        CHECK_FINITE(err.message[0], "refused (%s) without a message", crowd_result_name(r));
        return;
    }
    exercise(&a);
    crowd_asset_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the loader wants 16-byte aligned data, as any malloc'd file image is */
    uint8_t *copy = aligned_alloc(16, (size + 16) & ~(size_t)15);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    load_and_exercise(copy, size);
    reseal(copy, size);
    if (memcmp(copy, data, size) != 0)
        load_and_exercise(copy, size);
    free(copy);
    return 0;
}
