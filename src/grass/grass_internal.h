/* Internal: the grass field's CPU side (no GL): defaults, blade generation, the chunk test and the
 * rules both paths share. grass_gl.c is its GL renderer; tests use these as the reference
 * (grass_testing.h adds what only the tests call). */
#ifndef CROWD_GRASS_INTERNAL_H
#define CROWD_GRASS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "crowdbake/grass.h"

/* A blade record: x, z (world), r (the fixed tier random value, [0, 1)), v (variation, [0, 1):
 * cluster rotation and height). 16 bytes; the GPU holds the same four floats. */
typedef struct grass_blade {
    float x, z, r, v;
} grass_blade;

/* The per-pass camera: what the chunk test and the tier rule read. Both paths compute it the same
 * way from the view and projection (grass_eye_of). */
typedef struct grass_eye {
    float x, y, z;     /* camera position */
    float hx, hz;      /* heading: the view direction in the ground plane, unit length */
    float half_angle;  /* the wedge's half angle around the heading (radians), valid at any pitch */
    float near_radius; /* chunks within this horizontal radius are kept in every direction */
    float draw_distance;
    float budget;
} grass_eye;

/* The skip key: what a pass depends on. Pitch and roll are deliberately not in it (grass.h). */
typedef struct grass_key {
    float x, y, z, hx, hz, draw_distance, budget, half_angle;
} grass_key;

typedef struct grass_layout {
    uint32_t per_axis, chunks, blades, base, extra; /* chunk c holds base + (c < extra) blades */
    float origin, chunk;                            /* the field's -x/-z corner and the chunk size */
} grass_layout;

grass_layout grass_layout_of(const crowd_grass_desc *resolved);
crowd_result grass_check_desc(const crowd_grass_desc *resolved, crowd_error *error);

static inline uint32_t grass_chunk_first(const grass_layout *l, uint32_t c)
{
    return c * l->base + (c < l->extra ? c : l->extra);
}
static inline uint32_t grass_chunk_count(const grass_layout *l, uint32_t c)
{
    return l->base + (c < l->extra ? 1u : 0u);
}

/* Writes chunk c's blades (grass_chunk_count of them) in their stored order. */
void grass_generate_chunk(const crowd_grass_desc *resolved, const grass_layout *l, uint32_t c, grass_blade *out);

/* The noise texture (crowd_grass_noise_texture): GRASS_NOISE_SIZE^2 RGBA8 texels, tiling, over
 * CROWD_GRASS_NOISE_TILE metres (grass_color.glsl); deterministic for a seed on every platform. */
#define GRASS_NOISE_SIZE CROWD_GRASS_NOISE_SIZE
void grass_noise_generate(uint32_t seed, uint8_t *rgba);

/* The camera of a pass from a view and projection (column-major) and the frame's settings. */
grass_eye grass_eye_of(const crowd_grass_desc *resolved, const float view[16], const float projection[16],
                       float draw_distance, float budget);

/* Chunk c against the eye: false when culled; else its prefix length (blades drawn) and its
 * nearest / farthest horizontal distance. */
bool grass_chunk_test(const crowd_grass_desc *resolved, const grass_layout *l, const grass_eye *e, uint32_t c,
                      uint32_t *prefix, float *dmin, float *dmax);

/* Horizontal distance as the shaders compute it: sqrt(dx * dx + dz * dz), no fused multiply-add. */
float grass_distance(float x, float z, const grass_eye *e);

#endif
