/* What the wasm build of crowdbake exports beyond the public C API (web/module/crowdbake.mjs is its
 * only caller): struct layouts, an asset's description as JSON, bulk setters over typed arrays, and
 * the heap's size for leak checks. Every function here is a thin loop or a formatter over the
 * public API; none holds state between calls except the returned text. */
#ifndef CROWD_WASM_MODULE_H
#define CROWD_WASM_MODULE_H

#include <stdint.h>

#include "crowdbake/crowd.h"

const char *cbw_layouts_json(void);
/* Clips (name, role, frames, duration, stride, loop), sockets, bones, LODs, regions, bounds and
 * the bake's notes, as JSON; valid until the next call. */
const char *cbw_asset_json(const crowd_asset *asset);

/* Bulk setters: instances first .. first + count - 1 from packed arrays (xyz and yaw; clip, rate
 * and fade; one float each). Stop at the first refusal: CROWD_OK, or the result of the failing
 * call with its instance in *failed (the crowd's last error says why). */
crowd_result cbw_set_transforms(crowd *crowd, uint32_t first, uint32_t count, const float *xyz, const float *yaw,
                                uint32_t *failed);
crowd_result cbw_play(crowd *crowd, uint32_t first, uint32_t count, const uint32_t *clips, const float *rates,
                      float fade_seconds, int once, uint32_t *failed);
crowd_result cbw_set_speeds(crowd *crowd, uint32_t first, uint32_t count, const float *speeds, uint32_t *failed);
crowd_result cbw_set_scales(crowd *crowd, uint32_t first, uint32_t count, const float *scales, uint32_t *failed);
crowd_result cbw_set_velocities(crowd *crowd, uint32_t first, uint32_t count, const float *xz, uint32_t *failed);
crowd_result cbw_set_phases(crowd *crowd, uint32_t first, uint32_t count, const float *phases, uint32_t *failed);
/* Positions (xyz) and yaws of every live instance at the crowd's time, in instance order: one call
 * to read a crowd for game logic or a minimap. Writes crowd_count() entries. */
void cbw_get_transforms(const crowd *crowd, float *xyz, float *yaw);
/* The Renderer's renderer option (0 auto, 1 webgpu, 2 webgl2; wasm_renderer.c): start asks for a
 * WebGPU device unless WebGL2 is chosen (0, or -1 for another value); the label says what draws
 * and why ("renderer: WebGL2 (WebGPU unavailable: no adapter)"), valid until the next call. */
int cbw_renderer_start(int choice);
const char *cbw_renderer_label(int choice);

/* The baker (bake-worker.mjs; only in the bake module): `source` is a glTF file in the worker's file
 * system or "critter:KIND:SEED", options are crowd_bake_desc's fields as JSON. On CROWD_OK the .crowd
 * (size bytes) and a JSON summary (the asset as cbw_asset_json describes it, sizes, LOD triangles)
 * stay valid until the next call. Progress and warnings reach Module.onBakeProgress / onBakeWarning. */
crowd_result cbw_bake(const char *source, const char *options_json, uint32_t *size, crowd_error *error);
const uint8_t *cbw_bake_bytes(void);
const char *cbw_bake_summary(void);
/* The critter kinds bake() takes ({ critter: name, seed }): [{"name", "plan", "summary"}, ...]. */
const char *cbw_critter_kinds_json(void);

/* Bytes the wasm heap's allocator has handed out and not had back. */
uint32_t cbw_heap_in_use(void);

#endif
