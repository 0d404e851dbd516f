/* Internal: the record decode on the GPU through WebGPU (record.wgsl + decode.wgsl, one compute
 * pass): records and shader times in, the decoded values out, read back without waiting. The
 * WebGPU backend's first compute work, and what the record decode test compares with the C
 * decode (crowd_record_position, crowd_record_yaw, crowd_record_phase, crowd_record_sample).
 * The web build only. */
#ifndef CROWD_WEBGPU_DECODE_H
#define CROWD_WEBGPU_DECODE_H

#include <stdint.h>

#include "crowdbake/crowd.h"

/* A clip as the decode needs it: record.wgsl's clip_info (16 bytes). */
typedef struct crowd_webgpu_clip {
    uint32_t first_frame, frame_count, loops, pad;
} crowd_webgpu_clip;

/* Floats per decoded item: position xyz, yaw | fade weight, band random, phase A, phase B |
 * clip A's row0, row1, blend t, band card (1 or 0) | clip B's row0, row1, blend t, 0. */
#define CROWD_WEBGPU_DECODED_FLOATS 16u

typedef struct crowd_webgpu_decode crowd_webgpu_decode;

/* Builds the pipeline and buffers for up to `capacity` items over the asset's clips (copied).
 * Needs the device (crowd_wgpu_device_state READY): CROWD_ERROR_UNSUPPORTED otherwise, with the
 * device's reason in the message; CROWD_ERROR_ARGUMENT for no clips or capacity 0 or past 1M. */
crowd_result crowd_webgpu_decode_create(const crowd_webgpu_clip *clips, uint32_t clip_count, uint32_t capacity,
                                        crowd_webgpu_decode **out, crowd_error *error);
void crowd_webgpu_decode_destroy(crowd_webgpu_decode *decode);

/* Uploads `count` records and their times, records the pass and the copy into the read-back
 * buffer, submits, and starts the read-back. band: near, far, mode (record_band_card); camera:
 * xyz. CROWD_ERROR_ARGUMENT for count past the capacity or a read-back still pending. */
crowd_result crowd_webgpu_decode_start(crowd_webgpu_decode *decode, const crowd_record *records, const float *times,
                                       uint32_t count, const float band[3], const float camera[3], crowd_error *error);

/* Polls the read-back: CROWD_WGPU_PENDING, CROWD_WGPU_READY (out has count x
 * CROWD_WGPU_DECODED_FLOATS floats), or CROWD_WGPU_FAILED (WebGPU's reason in *error). */
int crowd_webgpu_decode_poll(crowd_webgpu_decode *decode, float *out, crowd_error *error);

#endif
