/* crowdbake/bake.h — baking a rig into a .crowd asset.
 *
 * crowd_bake samples every selected clip at a fixed rate, skins the mesh on the CPU at each frame
 * (linear blend skinning of positions, normals and optionally tangents, morph targets first),
 * encodes the results into vertex animation textures, optionally bakes a bone-matrix texture,
 * builds index-only LOD levels that share the one animation texture, measures each locomotion
 * clip's stride from the baked frames, and packs it all into one .crowd image in memory.
 *
 * Two bakes of the same rig with the same desc are byte-identical.
 */
#ifndef CROWDBAKE_BAKE_H
#define CROWDBAKE_BAKE_H

#include <stdbool.h>
#include "asset.h"
#include "rig.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called between stages and every few frames during skinning; `fraction` runs 0..1. */
typedef void (*crowd_bake_progress_fn)(void *user, float fraction, const char *stage);

/* Zeroed fields take the defaults listed on each line. */
typedef struct crowd_bake_desc {
    const crowd_rig *rig;             /* required; borrowed */
    float fps;                        /* samples per second per clip; 0 = 30. Range 1..240 */
    uint32_t frames;                  /* fixed frames per clip, overriding fps; 0 = from fps */
    const char *const *clip_names;    /* clips to bake, in this order; NULL = all, in rig order */
    uint32_t clip_name_count;
    uint32_t lod_count;               /* levels including full detail; 0 = 5. Range 1..CROWD_MAX_LODS */
    const float *lod_ratios;          /* lod_count triangle ratios in (0, 1], first 1, decreasing;
                                         NULL = 1, 0.4, 0.15, 0.05, 0.012 (the humanoid's last <= 60) */
    bool bones;                       /* also bake the bone texture and 4-influence skin streams */
    bool tangents;                    /* also bake per-frame tangents (RG16UI octahedral) */
    bool compact;                     /* 8 bytes/vertex/frame: no normal texture, 8+8-bit normal in
                                         the position texel's w */
    bool fp16;                        /* half-float positions and normals (12 bytes, ~60x coarser);
                                         for comparison with fp16 bakers */
    float scale;                      /* unit scale applied to everything the bake measures (positions,
                                         bone translations, sockets, bounds, strides): 0.01 turns a
                                         centimetre asset into metres. 0 = 1. Range 0.0001..10000 */
    uint32_t tex_width;               /* animation texture width; 0 = 4096. Doubled automatically
                                         while the height would exceed CROWD_MAX_TEXTURE_DIM */
    crowd_bake_progress_fn progress;  /* optional */
    void *progress_user;
} crowd_bake_desc;

typedef struct crowd_bake_stats {
    uint32_t vertex_count, triangle_count, bone_count, clip_count, frame_count;
    uint32_t tex_width, tex_height, bone_tex_width, bone_tex_height;
    uint64_t bytes_positions, bytes_normals, bytes_tangents, bytes_bones, bytes_other, bytes_total;
    uint32_t bytes_per_vertex_frame;
    uint32_t lod_count;
    uint32_t lod_triangles[CROWD_MAX_LODS];
    double ms_skin, ms_encode, ms_lod, ms_stride, ms_pack, ms_total;
} crowd_bake_stats;

typedef struct crowd_bake_output {
    uint8_t *bytes;                   /* the .crowd image, 16-byte aligned; free with crowd_bake_output_free */
    size_t size;
    crowd_bake_stats stats;
} crowd_bake_output;

/* Bakes `desc->rig` (which must pass crowd_rig_validate). On failure nothing is allocated and
 * `output` is zeroed. Peak memory is about 28 bytes per vertex-frame for the float frames plus
 * the textures. Single-threaded; the rig's sampler is called once per frame. */
CROWD_API crowd_result crowd_bake(const crowd_bake_desc *desc, crowd_bake_output *output, crowd_error *error);

CROWD_API void crowd_bake_output_free(crowd_bake_output *output);

/* ---- verification ---------------------------------------------------------------------------- */

typedef struct crowd_verify_clip {
    const char *name;             /* points into the asset */
    float manifest_stride;        /* what the bake recorded */
    double decoded_stride;        /* re-measured from the decoded texture */
    double truth;                 /* the rig's exact stride, NAN when unknown */
    double max_relative_error;    /* of both strides against truth; 0 when truth is unknown */
    double position_max_mm;       /* worst VAT position error in this clip */
} crowd_verify_clip;

typedef struct crowd_verify_report {
    uint64_t vertex_frames;
    /* VAT mode: decoded exactly as the shader does vs double-precision skinning of the source. */
    double position_max_mm, position_mean_mm;
    double position_bound_mm;     /* the encoding's bound: half a quantum (u16), half an ulp (f16) */
    double quantum_mm;            /* largest per-axis quantum */
    double normal_max_deg, normal_mean_deg, normal_bound_deg;
    /* Bone mode (when baked): 4 unorm16 weights and the bone texture vs the same truth. */
    bool bones_checked;
    double bone_position_max_mm, bone_position_mean_mm, bone_normal_max_deg;
    double bone_bound_mm;         /* NAN when bone mode cannot match exactly (>4 influences, morphs) */
    uint32_t clip_count;
    crowd_verify_clip *clips;     /* owned; crowd_verify_report_free */
    double stride_tolerance;      /* relative, 1e-3, for the manifest stride; the stride re-measured
                                     from decoded frames may also be off by the encoding's error */
    bool passed;
    char failure[256];            /* the first broken bound, when !passed */
} crowd_verify_report;

/* Checks a loaded asset against the rig it was baked from: every vertex of every frame, decoded
 * exactly as the shaders decode it, against fresh double-precision skinning (all influences,
 * morphs included); the bone texture the same way; strides re-measured from the decoded frames
 * against the manifest and against the rig's truth where known. `report->passed` says whether
 * every bound held. Errors are only for unusable input (clip names that do not match the rig,
 * vertex counts that differ, out of memory). */
CROWD_API crowd_result crowd_verify(const crowd_asset *asset, const crowd_rig *rig, crowd_verify_report *report,
                          crowd_error *error);
CROWD_API void crowd_verify_report_free(crowd_verify_report *report);

/* Writes `size` bytes to `path` through a temporary file in the same directory and a rename, so
 * a reader never sees a half-written file and a failed write leaves nothing behind. */
CROWD_API crowd_result crowd_write_file_atomic(const char *path, const void *data, size_t size, crowd_error *error);

#ifdef __cplusplus
}
#endif
#endif
