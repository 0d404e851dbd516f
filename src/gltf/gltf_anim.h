/* Internal: animations as read from a document, and their evaluation. They outlive the document
 * (the rig's sampler owns them), so nothing here points into the JSON except during reading. */
#ifndef CROWD_GLTF_ANIM_H
#define CROWD_GLTF_ANIM_H

#include <stdbool.h>
#include <stdint.h>

enum { GLTF_LINEAR, GLTF_STEP, GLTF_CUBICSPLINE };
enum { GLTF_PATH_TRANSLATION, GLTF_PATH_ROTATION, GLTF_PATH_SCALE, GLTF_PATH_WEIGHTS };

typedef struct gltf_sampler {
    uint32_t interpolation;
    uint32_t output; /* accessor, while reading */
    uint32_t key_count;
    uint32_t width;      /* values per key: 3, 4, or the node's morph target count */
    bool implicit_times; /* input accessor without bytes (zeros): unusable beyond one key */
    float *times;        /* key_count, strictly increasing, >= 0 */
    float *values;       /* key_count x width (x3 for CUBICSPLINE: in-tangent, value, out-tangent) */
} gltf_sampler;

typedef struct gltf_channel {
    int32_t node; /* -1: no node target (ignored) */
    uint8_t path; /* GLTF_PATH_* */
    uint32_t sampler;
} gltf_channel;

typedef struct gltf_animation {
    const char *name;  /* borrowed from the JSON while reading; NULL when unnamed */
    double start, end; /* first and last key over its node channels */
    uint32_t sampler_count, channel_count;
    gltf_sampler *samplers;
    gltf_channel *channels;
} gltf_animation;

/* The sampler's value at time t (clamped to its keys) into out[width]; rotations normalised. */
void gltf_sampler_eval(const gltf_sampler *s, double t, bool rotation, float *out);

void gltf_animations_free(gltf_animation *anims, uint32_t count);

#endif
