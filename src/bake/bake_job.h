/* Internal: the state of one bake, shared by bake.c (sampling, skinning, encoding, LODs, strides)
 * and bake_pack.c (writing it all into the container). */
#ifndef CROWD_BAKE_BAKE_JOB_H
#define CROWD_BAKE_BAKE_JOB_H

#include "bake/container_write.h"
#include "bake/lod.h"
#include "bake/stride.h"
#include "crowdbake/bake.h"

typedef struct baked_clip {
    uint32_t rig_clip; /* index into rig->clips */
    uint32_t first_frame;
    uint32_t frame_count;
    crowd_stride stride;
    crowd_clip_role role;
    crowd_clip_evidence evidence;
    double ground;   /* the clip's ground (25th percentile of per-frame lowest points) */
    double lowest;   /* lowest point of any frame */
    float sphere[4]; /* CBND: centre xyz, radius over the clip's frames (inside the asset sphere) */
} baked_clip;

/* A marker for the MARK section: a named one (its name borrowed from the desc) or a footstep. */
typedef struct job_marker {
    uint32_t clip; /* into bake_job.clips */
    float time;
    const char *name;
} job_marker;

typedef struct bake_job {
    const crowd_bake_desc *desc;
    const crowd_rig *rig;
    float fps;
    float unit_scale;    /* desc->scale, or the factor desc->height asks for; 1 when unset */
    float placement[16]; /* source model -> asset, column-major 4x4 (bake/place.c) */
    crowd_bake_notes notes;
    uint32_t clip_count;
    baked_clip *clips;
    uint32_t frame_count; /* all clips */

    /* Float frames: frame_count x vertex_count xyz (tangents only with desc->tangents). */
    float *positions, *normals, *tangents;
    float *bind_tangents; /* xyzw per vertex */
    float *bone_texels;   /* frame_count x bone_count x 12 (3x4 rows), with desc->bones */

    float box_min[3], box_max[3];
    float sphere_center_y, sphere_radius;

    uint32_t tex_width, tex_height, bone_width, bone_height;

    uint16_t *skin_joints, *skin_weights; /* 4 per vertex, with desc->bones */
    crowd_lod_chain lods;

    job_marker *markers; /* sorted by clip, then time (bake/markers.c) */
    uint32_t marker_count;
} bake_job;

/* bake/size_advice.c: the frames a clip gets at `fps` (or `fixed` each, when not 0); the file size
 * predicted for `frames` frames of the job's rig with the options given (textures exactly, mesh
 * streams and LOD indices estimated high; UINT64_MAX where a texture cannot hold them); and the
 * advice of a size refusal: the options that alone would bring it under `limit`, each with its
 * predicted size, else the closest combination (crowd_bake_desc field names, as messages use). */
typedef struct bake_size_options {
    bool compact, tangents, bones;
} bake_size_options;
uint32_t crowd_bake_clip_frames(const crowd_rig_clip *c, double fps, uint32_t fixed);
uint64_t crowd_bake_predict_bytes(const bake_job *job, uint64_t frames, bake_size_options o);
void crowd_bake_size_advice(const bake_job *job, uint64_t limit, char *out, size_t size);

/* bake/markers.c: the desc's named markers checked against the clips selected (before sampling),
 * then every marker of the bake, footsteps included, into job->markers (after placement). */
crowd_result crowd_bake_check_markers(const bake_job *job, crowd_error *error);
crowd_result crowd_bake_markers(bake_job *job, crowd_error *error);

/* bake/place.c: roles, orientation, scale and ground, on frames skinned without any of them. */
crowd_result crowd_bake_place(bake_job *job, crowd_error *error);

/* Bone mode's worst error against the float frames, and the mode it earns (after the skin streams). */
void crowd_bake_check_bones(bake_job *job);

/* Applies a 4x4 (rotation, uniform scale, translation) to a point / a direction. */
void crowd_place_point(const float m[16], const float in[3], float out[3]);
void crowd_place_direction(const float m[16], const float in[3], float out[3]);

/* The .crowd image under construction. Textures are encoded straight into it (no copy). */
typedef struct packed_image {
    crowd_container_builder builder;
    uint16_t *positions; /* RGBA16UI or RGBA16F, tex_width x tex_height */
    uint16_t *normals;   /* RG16UI or RG16F; NULL in compact mode */
    uint16_t *tangents;  /* RG16UI; NULL without tangents */
    float *bones;        /* RGBA32F, bone_width x bone_height; NULL without bones */
} packed_image;

/* Lays out the container for a job whose frames, LODs, strides and skin streams are done, copies
 * the manifest and mesh sections in, and returns where the texture payloads go. Every texel of
 * those payloads (padding included) must then be written before crowd_bake_pack_finish. */
crowd_result crowd_bake_pack_begin(const bake_job *job, packed_image *image, crowd_error *error);

/* Checksums the image and hands it over (free with free()). */
void crowd_bake_pack_finish(packed_image *image, uint8_t **bytes, size_t *size);

/* Releases an image that will not be finished. */
void crowd_bake_pack_abort(packed_image *image);

#endif
