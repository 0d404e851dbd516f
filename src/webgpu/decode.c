/* The record decode as one compute pass (decode.h). */
#include "decode.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "wgpu_binding.h"

extern const char crowd_wgsl_record_wgsl[];
extern const char crowd_wgsl_decode_wgsl[];

#define DECODE_MAX_ITEMS (1u << 20)
#define DECODE_WORKGROUP 64u /* decode.wgsl's @workgroup_size */

enum { PARAMS, RECORDS, TIMES, CLIPS, DECODED, BUFFERS };

struct crowd_webgpu_decode {
    uint32_t capacity, count;
    crowd_wgpu_handle shader, pipeline, group, readback;
    crowd_wgpu_handle args; /* the dispatch's workgroup counts (x, y, z) */
    crowd_wgpu_handle buffers[BUFFERS];
};

/* The device's reason, or WebGPU's newest error, after `what`. */
static crowd_result fail_with(crowd_error *error, crowd_result code, const char *what, bool device)
{
    char reason[256];
    if (device)
        crowd_wgpu_device_reason(reason, sizeof reason);
    else
        crowd_wgpu_last_error(reason, sizeof reason);
    return crowd_fail(error, code, "%s: %s", what, reason[0] ? reason : "no reason given");
}

static crowd_wgpu_handle make_shader(void)
{
    size_t a = strlen(crowd_wgsl_record_wgsl), b = strlen(crowd_wgsl_decode_wgsl);
    char *text = malloc(a + b + 2);
    if (!text)
        return 0;
    memcpy(text, crowd_wgsl_record_wgsl, a);
    text[a] = '\n';
    memcpy(text + a + 1, crowd_wgsl_decode_wgsl, b + 1);
    crowd_wgpu_handle shader = crowd_wgpu_shader_create(text);
    free(text);
    return shader;
}

static bool make_buffers(crowd_webgpu_decode *d, uint32_t clip_count)
{
    const uint32_t storage = CROWD_WGPU_STORAGE | CROWD_WGPU_COPY_DST;
    uint32_t decoded_bytes = d->capacity * CROWD_WEBGPU_DECODED_FLOATS * 4u;
    d->buffers[PARAMS] = crowd_wgpu_buffer_create(48, CROWD_WGPU_UNIFORM | CROWD_WGPU_COPY_DST);
    d->buffers[RECORDS] = crowd_wgpu_buffer_create(d->capacity * (uint32_t)sizeof(crowd_record), storage);
    d->buffers[TIMES] = crowd_wgpu_buffer_create(d->capacity * 4u, storage);
    d->buffers[CLIPS] = crowd_wgpu_buffer_create(clip_count * (uint32_t)sizeof(crowd_webgpu_clip), storage);
    d->buffers[DECODED] = crowd_wgpu_buffer_create(decoded_bytes, CROWD_WGPU_STORAGE | CROWD_WGPU_COPY_SRC);
    d->readback = crowd_wgpu_buffer_create(decoded_bytes, CROWD_WGPU_MAP_READ | CROWD_WGPU_COPY_DST);
    d->args = crowd_wgpu_buffer_create(12, CROWD_WGPU_INDIRECT | CROWD_WGPU_COPY_DST);
    for (int i = 0; i < BUFFERS; i++)
        if (!d->buffers[i])
            return false;
    return d->readback && d->args;
}

crowd_result crowd_webgpu_decode_create(const crowd_webgpu_clip *clips, uint32_t clip_count, uint32_t capacity,
                                        crowd_webgpu_decode **out, crowd_error *error)
{
    if (!out || !clips || clip_count == 0 || clip_count > CROWD_MAX_CLIPS || capacity == 0 ||
        capacity > DECODE_MAX_ITEMS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_webgpu_decode_create: %u clips, capacity %u (1..%u)",
                          clip_count, capacity, DECODE_MAX_ITEMS);
    *out = NULL;
    if (crowd_wgpu_device_state() != CROWD_WGPU_READY)
        return fail_with(error, CROWD_ERROR_UNSUPPORTED, "no WebGPU device", true);
    crowd_webgpu_decode *d = calloc(1, sizeof *d);
    if (!d)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "crowd_webgpu_decode_create: out of memory");
    d->capacity = capacity;
    const char *step = "the decode's buffers";
    if (!make_buffers(d, clip_count))
        goto fail;
    crowd_wgpu_buffer_write(d->buffers[CLIPS], 0, clips, clip_count * (uint32_t)sizeof *clips);
    step = "the decode's shader";
    if (!(d->shader = make_shader()))
        goto fail;
    step = "the decode's pipeline";
    if (!(d->pipeline = crowd_wgpu_compute_pipeline_create(d->shader, "decode_records")))
        goto fail;
    step = "the decode's bind group";
    if (!(d->group = crowd_wgpu_bind_group_create(d->pipeline, 0, d->buffers, BUFFERS)))
        goto fail;
    *out = d;
    return CROWD_OK;
fail:
    crowd_webgpu_decode_destroy(d);
    return fail_with(error, CROWD_ERROR_GL, step, false);
}

void crowd_webgpu_decode_destroy(crowd_webgpu_decode *d)
{
    if (!d)
        return;
    crowd_wgpu_release(d->group);
    crowd_wgpu_release(d->pipeline);
    crowd_wgpu_release(d->shader);
    crowd_wgpu_release(d->readback);
    crowd_wgpu_release(d->args);
    for (int i = 0; i < BUFFERS; i++)
        crowd_wgpu_release(d->buffers[i]);
    free(d);
}

/* The pass and the copy into the read-back buffer, in one encoder. The dispatch is indirect, its
 * counts written from here: the GPU-driven passes to come write theirs on the GPU, and this way the
 * record decode test runs the binding's indirect path too. */
static bool encode(crowd_webgpu_decode *d)
{
    crowd_wgpu_handle encoder = crowd_wgpu_encoder_create();
    crowd_wgpu_handle pass = crowd_wgpu_pass_begin(encoder);
    if (!pass)
        return false;
    crowd_wgpu_pass_set_pipeline(pass, d->pipeline);
    crowd_wgpu_pass_set_bind_group(pass, 0, d->group);
    crowd_wgpu_pass_dispatch_indirect(pass, d->args, 0);
    crowd_wgpu_pass_end(pass);
    uint32_t bytes = d->count * CROWD_WEBGPU_DECODED_FLOATS * 4u;
    crowd_wgpu_encoder_copy_buffer(encoder, d->buffers[DECODED], 0, d->readback, 0, bytes);
    return crowd_wgpu_encoder_submit(encoder) && crowd_wgpu_readback_start(d->readback, 0, bytes);
}

crowd_result crowd_webgpu_decode_start(crowd_webgpu_decode *d, const crowd_record *records, const float *times,
                                       uint32_t count, const float band[3], const float camera[3], crowd_error *error)
{
    if (!d || !records || !times || !band || !camera || count == 0 || count > d->capacity)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_webgpu_decode_start: %u items (capacity %u)", count,
                          d ? d->capacity : 0u);
    if (crowd_wgpu_readback_state(d->readback) == CROWD_WGPU_PENDING)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_webgpu_decode_start: the last read-back is pending");
    struct {
        float band[4], camera[4];
        uint32_t count[4];
    } params = {{band[0], band[1], band[2], 0.0f}, {camera[0], camera[1], camera[2], 0.0f}, {count, 0, 0, 0}};
    const uint32_t groups[3] = {(count + DECODE_WORKGROUP - 1) / DECODE_WORKGROUP, 1, 1};
    d->count = count;
    crowd_wgpu_buffer_write(d->args, 0, groups, sizeof groups);
    crowd_wgpu_buffer_write(d->buffers[PARAMS], 0, &params, sizeof params);
    crowd_wgpu_buffer_write(d->buffers[RECORDS], 0, records, count * (uint32_t)sizeof *records);
    crowd_wgpu_buffer_write(d->buffers[TIMES], 0, times, count * 4u);
    if (!encode(d))
        return fail_with(error, CROWD_ERROR_GL, "the decode's commands", false);
    return CROWD_OK;
}

int crowd_webgpu_decode_poll(crowd_webgpu_decode *d, float *out, crowd_error *error)
{
    if (!d || !out) {
        crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_webgpu_decode_poll: no decode or no output");
        return CROWD_WGPU_FAILED;
    }
    int state = crowd_wgpu_readback_state(d->readback);
    if (state == CROWD_WGPU_READY) {
        crowd_wgpu_readback_take(d->readback, out, d->count * CROWD_WEBGPU_DECODED_FLOATS * 4u);
        return CROWD_WGPU_READY;
    }
    if (state == CROWD_WGPU_FAILED || state == CROWD_WGPU_NONE) {
        fail_with(error, CROWD_ERROR_GL, "the decode's read-back", false);
        return CROWD_WGPU_FAILED;
    }
    return CROWD_WGPU_PENDING;
}
