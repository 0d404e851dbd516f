/* Internal (the showcase): the paint minigun's effects on the GPU (tracers, paint droplets, floor paint).
 *
 * Everything here is fire and forget. A tracer or a droplet is one record written once into a ring
 * buffer when it is spawned (one glBufferSubData of 32 or 36 bytes); the vertex shader evaluates
 * its flight from the time uniform alone (a tracer fades out in place, a droplet flies a ballistic
 * arc under gravity), so a screenful of spray costs no CPU per frame. The ring overwrites its
 * oldest record when full.
 *
 * A droplet's landing (where its arc meets the ground plane y = ground_height, and when) is solved
 * analytically at spawn and queued as a splat. showcase_paint_update draws the splats that have
 * landed by then into one world-covering paint texture: a splat is one soft blob quad drawn into it
 * once, after which it costs nothing, so ten thousand splats cost what one costs when the floor is
 * drawn. showcase_paint_draw draws the floor paint (one quad over the ground sampling the texture,
 * lit by one shade factor), then the droplets and the tracers.
 *
 * GL 3.3 core, GLES 3.0 and WebGL2 alike (no compute, no SSBOs, no wide lines: a tracer is a quad). No
 * GL query in update or draw; errors are checked at creation only. Every call expects the GL
 * context current. */
#ifndef CROWD_SHOWCASE_PAINT_H
#define CROWD_SHOWCASE_PAINT_H

#include <stdbool.h>
#include <stdint.h>

#include "crowdbake/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct showcase_paint_desc {
    bool es;                   /* GLSL ES 3.00 (GLES 3 / WebGL2) rather than GLSL 3.30 */
    float world_size;          /* metres: the paint covers [-size / 2, size / 2] in x and z; 0 = 420 */
    float ground_height;       /* y of the ground plane the droplets land on; default 0 */
    uint32_t resolution;       /* paint texels per side, 16..4096; 0 = 2048 (about 20 cm at 420 m) */
    uint32_t tracer_capacity;  /* tracers alive at once (the ring), 1..65536; 0 = 512 */
    uint32_t droplet_capacity; /* droplets in flight and splats waiting to land, 1..1,048,576; 0 = 32,768 */
    float gravity;             /* m/s^2, > 0; 0 = 9.81 */
    float tracer_life;         /* seconds a tracer shows, fading; 0 = 0.08 */
    float splat_radius;        /* metres, the blob a landing droplet leaves; 0 = 0.12 */
    float droplet_size;        /* metres across a droplet in flight (2.5 to 24 pixels on screen); 0 = 0.05 */
    float beam_width;          /* metres across a tracer (3 to 16 pixels on screen); 0 = 0.03 */
} showcase_paint_desc;

typedef struct showcase_paint showcase_paint;

typedef struct showcase_paint_stats {
    uint32_t pending;        /* droplets in flight whose splat is waiting for its landing time */
    uint64_t splats;         /* splats drawn into the paint texture so far */
    uint32_t last_update;    /* splats the last showcase_paint_update drew (one draw call) */
    uint64_t tracers, drops; /* spawned so far */
    uint32_t dropped;        /* splats lost because the queue was full (oldest kept) */
} showcase_paint_stats;

/* Creates the paint texture (RGBA8, cleared to transparent), its framebuffer, the rings and the
 * programs. Errors: bad desc values (CROWD_ERROR_ARGUMENT), out of memory, GL (a message with the
 * driver's log or the incomplete framebuffer). */
crowd_result showcase_paint_create(const showcase_paint_desc *desc, showcase_paint **out, crowd_error *error);
void showcase_paint_destroy(showcase_paint *paint);

/* One tracer, a straight flash from `from` to `to`, shown from `time` for the desc's tracer_life
 * seconds (time: the clock update and draw are given; any origin). Writes one record. */
void showcase_paint_tracer(showcase_paint *paint, float time, const float from[3], const float to[3],
                           const uint8_t rgba[4]);

/* A fountain of `count` droplets from `at` at `time`: up and outwards at random (from `seed`:
 * same seed, same fountain) at speeds of `speed` m/s (0 = 4) give or take half, in rgba give or take
 * a little. Each droplet's landing is solved there (a point `at` below the ground lands at once) and
 * its splat queued; `landings` (may be NULL; else count x 3 floats) receives the landing points.
 * Writes `count` records (one upload, two where the ring wraps). Returns the droplets queued. */
uint32_t showcase_paint_burst(showcase_paint *paint, float time, const float at[3], const uint8_t rgba[4],
                              uint32_t count, float speed, uint32_t seed, float *landings);

/* Draws every queued splat whose landing time is <= `time` into the paint texture (one instanced
 * draw; nothing when none is due). O(pending). Binds the paint framebuffer and its viewport, and
 * leaves framebuffer 0 bound: call it before binding the frame's own target. */
void showcase_paint_update(showcase_paint *paint, float time);

/* Draws the floor paint, the droplets in flight and the live tracers into the bound framebuffer
 * over an already drawn scene (depth tested against it, depth not written, alpha blended).
 * `pixels_per_metre`: a metre's size in pixels at 1 m (projection[5] x viewport height / 2);
 * `viewport`: its width and height in pixels (a tracer is a beam of pixels across); `shade`: the
 * floor paint's lighting factor (the ground's, about 0.6..1). Leaves blending off, depth writes on. */
void showcase_paint_draw(showcase_paint *paint, float time, const float view_projection[16], float pixels_per_metre,
                         const int viewport[2], float shade);

/* The same without the floor quad: the droplets in flight and the live tracers only, for a ground
 * that samples the paint texture itself (showcase_stage_set_ground_paint in showcase/stage.h: the paint then
 * takes the ground's light and shadows). Same state on return as showcase_paint_draw. */
void showcase_paint_draw_flight(showcase_paint *paint, float time, const float view_projection[16],
                                float pixels_per_metre, const int viewport[2]);

/* Clears the floor paint and forgets queued splats and flying droplets. */
void showcase_paint_clear(showcase_paint *paint);

/* Reads the paint texture back, RGBA8, row z = -size/2 first, x = -size/2 first in each row
 * (resolution^2 x 4 bytes). A synchronous GL round trip: for tests and tools, never per frame.
 * Leaves framebuffer 0 bound. */
crowd_result showcase_paint_read(showcase_paint *paint, uint8_t *rgba);

/* The paint texture's GL name (to sample it elsewhere, e.g. in a grass or ground shader). */
uint32_t showcase_paint_texture(const showcase_paint *paint);
const showcase_paint_stats *showcase_paint_get_stats(const showcase_paint *paint);

#ifdef __cplusplus
}
#endif
#endif
