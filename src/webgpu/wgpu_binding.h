/* Internal: the C side of our own WebGPU binding (wgpu_binding.js, an Emscripten --js-library; the
 * web build only). It covers exactly the calls the WebGPU backend makes, named as today's WebGPU
 * names them (dispatchWorkgroups, not the pre-2022 dispatch of Emscripten 3.1.6's bindings).
 *
 * Handles: every GPU object is a small integer (crowd_wgpu_handle) naming an object JavaScript
 * holds; 0 is never a handle and is what a call returns when it cannot make its object (no device,
 * a handle that names nothing, or a descriptor the browser refused: crowd_wgpu_last_error then
 * says why). Release what you create with crowd_wgpu_release; encoders and passes release
 * themselves at submit and end.
 *
 * Nothing here waits. The device is acquired asynchronously (crowd_wgpu_request_device, then poll
 * crowd_wgpu_device_state once a frame); a read-back starts mapAsync and is polled
 * (crowd_wgpu_readback_state) until its bytes can be taken, a frame or more later. GPU-side
 * validation errors arrive asynchronously too: crowd_wgpu_error_count counts them and
 * crowd_wgpu_last_error keeps the newest. */
#ifndef CROWD_WGPU_BINDING_H
#define CROWD_WGPU_BINDING_H

#include <stdint.h>

typedef uint32_t crowd_wgpu_handle;

/* The device's state, and a read-back's (CROWD_WGPU_NONE: no read-back started on that buffer). */
enum {
    CROWD_WGPU_PENDING = 0,
    CROWD_WGPU_READY = 1,
    CROWD_WGPU_FAILED = 2,
    CROWD_WGPU_NONE = 3,
};

/* GPUBufferUsage's bits, as the WebGPU specification numbers them. */
enum {
    CROWD_WGPU_MAP_READ = 0x0001,
    CROWD_WGPU_MAP_WRITE = 0x0002,
    CROWD_WGPU_COPY_SRC = 0x0004,
    CROWD_WGPU_COPY_DST = 0x0008,
    CROWD_WGPU_INDEX = 0x0010,
    CROWD_WGPU_VERTEX = 0x0020,
    CROWD_WGPU_UNIFORM = 0x0040,
    CROWD_WGPU_STORAGE = 0x0080,
    CROWD_WGPU_INDIRECT = 0x0100,
};

/* Starts acquiring the adapter and device (navigator.gpu); later calls do nothing. */
void crowd_wgpu_request_device(void);
/* CROWD_WGPU_PENDING until the device is there (READY) or will not be (FAILED, for good). */
int crowd_wgpu_device_state(void);
/* Why there is no device ("navigator.gpu missing: not a secure context", "no adapter", the
 * browser's own text for a refused or lost device), as UTF-8 into out (size bytes, terminated);
 * returns the reason's full length in bytes (0 while there is a device or none was refused). */
uint32_t crowd_wgpu_device_reason(char *out, uint32_t size);
/* The newest error WebGPU reported (validation, out of memory, a refused call), as the reason. */
uint32_t crowd_wgpu_last_error(char *out, uint32_t size);
uint32_t crowd_wgpu_error_count(void);
/* Frees a handle (a buffer's GPU memory at once); 0 and unknown handles are ignored. */
void crowd_wgpu_release(crowd_wgpu_handle handle);

/* A buffer of `size` bytes (a multiple of 4) with CROWD_WGPU_* usage bits. */
crowd_wgpu_handle crowd_wgpu_buffer_create(uint32_t size, uint32_t usage);
/* Queues `size` bytes (a multiple of 4) from wasm memory at `data` into the buffer at `offset`;
 * the bytes are copied once, by the browser, before this returns: `data` may change at once.
 * 1 when queued, 0 when refused. */
int crowd_wgpu_buffer_write(crowd_wgpu_handle buffer, uint32_t offset, const void *data, uint32_t size);

/* A shader module from WGSL text (compile errors arrive asynchronously: crowd_wgpu_last_error). */
crowd_wgpu_handle crowd_wgpu_shader_create(const char *wgsl);
/* A compute pipeline of the module's entry point, its bind group layouts derived from the shader. */
crowd_wgpu_handle crowd_wgpu_compute_pipeline_create(crowd_wgpu_handle shader, const char *entry);
/* A bind group for `group` of the pipeline's layout: binding i is the whole of buffers[i]. */
crowd_wgpu_handle crowd_wgpu_bind_group_create(crowd_wgpu_handle pipeline, uint32_t group,
                                               const crowd_wgpu_handle *buffers, uint32_t count);

/* Command encoding: an encoder records copies and compute passes; submit finishes and queues it. */
crowd_wgpu_handle crowd_wgpu_encoder_create(void);
int crowd_wgpu_encoder_copy_buffer(crowd_wgpu_handle encoder, crowd_wgpu_handle source, uint32_t source_offset,
                                   crowd_wgpu_handle target, uint32_t target_offset, uint32_t size);
int crowd_wgpu_encoder_submit(crowd_wgpu_handle encoder);
crowd_wgpu_handle crowd_wgpu_pass_begin(crowd_wgpu_handle encoder);
void crowd_wgpu_pass_set_pipeline(crowd_wgpu_handle pass, crowd_wgpu_handle pipeline);
void crowd_wgpu_pass_set_bind_group(crowd_wgpu_handle pass, uint32_t index, crowd_wgpu_handle group);
void crowd_wgpu_pass_dispatch(crowd_wgpu_handle pass, uint32_t x, uint32_t y, uint32_t z);
/* The three workgroup counts are u32 words at `offset` of an INDIRECT buffer (written on the GPU). */
void crowd_wgpu_pass_dispatch_indirect(crowd_wgpu_handle pass, crowd_wgpu_handle buffer, uint32_t offset);
void crowd_wgpu_pass_end(crowd_wgpu_handle pass);

/* Read-back from a MAP_READ | COPY_DST buffer: start mapping [offset, offset + size) (0 when one
 * is already pending), poll the state once a frame, then take the bytes (copied into wasm memory at
 * `out`, at most `size`; the buffer is unmapped for its next use) once it is CROWD_WGPU_READY. */
int crowd_wgpu_readback_start(crowd_wgpu_handle buffer, uint32_t offset, uint32_t size);
int crowd_wgpu_readback_state(crowd_wgpu_handle buffer);
uint32_t crowd_wgpu_readback_take(crowd_wgpu_handle buffer, void *out, uint32_t size);

#endif
