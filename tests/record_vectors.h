/* The record decode test's vector file: records built through the public crowd API, the shader
 * times to decode them at and the C decode's values there, written natively by record_vectors.c
 * and checked in the browser by webgpu_decode_check.c against the WGSL decode (record.wgsl). One
 * little-endian file: a header, the asset's clips, then the vectors. */
#ifndef CROWD_TESTS_RECORD_VECTORS_H
#define CROWD_TESTS_RECORD_VECTORS_H

#include <stdint.h>

#include "crowdbake/crowd.h"

#define RECORD_VECTORS_MAGIC 0x56574243u /* "CBWV" */
#define RECORD_VECTORS_VERSION 1u
#define RECORD_VECTORS_MAX 65536u

typedef struct record_vectors_header {
    uint32_t magic, version, count, clip_count;
    float band[4];   /* near, far, mode (2: a band), 0: record_band_card's band */
    float camera[4]; /* xyz: where record_band_card measures from */
} record_vectors_header;

/* A clip as record.wgsl's clip_info takes it: first row, frames, loops (1 or 0), 0. */
typedef struct record_vectors_clip {
    uint32_t first_frame, frame_count, loops, pad;
} record_vectors_clip;

/* What a vector covers (record_vector.kinds), counted by both programs. */
enum {
    VECTOR_TURN = 1u << 0,     /* a turning record (CROWD_RECORD_TURN) */
    VECTOR_FADE = 1u << 1,     /* a cross-fade mid-way at its time: weight strictly inside (0, 1) */
    VECTOR_ONE_SHOT = 1u << 2, /* a one-shot still playing (a held clip's raw phase inside (0, 1)) */
    VECTOR_HELD = 1u << 3,     /* a one-shot held on its last frame (raw phase past 1) */
    VECTOR_REBASED = 1u << 4,  /* taken after the crowd's time was rebased */
    VECTOR_MOVING = 1u << 5,   /* a straight walker (velocity, no turn) */
    VECTOR_KINDS = 6
};

/* Floats of a vector's expected values, in the order decode.wgsl writes them (decode.h). */
#define RECORD_VECTOR_VALUES 16

typedef struct record_vector {
    crowd_record record;
    float time; /* the shader time to decode at */
    uint32_t kinds;
    uint32_t pad[2];
    float expected[RECORD_VECTOR_VALUES];
} record_vector;

#endif
