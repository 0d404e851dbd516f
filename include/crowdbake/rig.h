/* crowdbake/rig.h — the rig model: what a character is before it is baked.
 *
 * A crowd_rig is a skinned triangle mesh in its bind pose, a bone hierarchy, and animation clips
 * that can be sampled at any time. It is what the glTF reader and the procedural humanoid both
 * produce, and what the baker consumes. Clips are sampled (never evaluated at run time): a rig
 * carries a sampler callback that returns every bone's local transform at a time t.
 *
 * Conventions: metres, +Y up, characters face +Z, matrices column-major 4x4 (glTF's layout),
 * quaternions (x, y, z, w). Every pointer in a rig is owned by the rig; crowd_rig_free releases it.
 */
#ifndef CROWDBAKE_RIG_H
#define CROWDBAKE_RIG_H

#include <stdbool.h>
#include "asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A local transform: translation, rotation (unit quaternion x y z w), scale. */
typedef struct crowd_trs {
    float translation[3];
    float rotation[4];
    float scale[3];
} crowd_trs;

typedef struct crowd_rig_bone {
    char *name;
    int32_t parent;         /* -1 for a root; parents come before their children */
    crowd_trs rest;         /* local transform where no clip animates this bone */
    float inverse_bind[16]; /* model space -> bone space in the bind pose */
} crowd_rig_bone;

typedef struct crowd_rig_clip {
    char *name;
    double start;    /* seconds; the clip covers [start, start + duration] */
    double duration; /* > 0 */
    bool loop;       /* time start + duration equals time start */
    /* Metres travelled per cycle when known exactly (the procedural gaits): the ground truth the
     * stride extractor is tested against. NAN when unknown; 0 for an in-place clip. */
    double stride_truth;
    /* Most keyframes of any channel the clip drives (glTF); 0 when unknown (procedural clips).
     * The baker calls a clip of at most 2 keys a pose. */
    uint32_t key_count;
    /* Distance the root travels over one cycle of a root-motion cycle, in the rig's units; the
     * sampler takes that travel out (linearly over the cycle) so the clip plays in place and its
     * planted feet slide as an in-place walk's do. 0 for every other clip. */
    double root_travel;
    /* The travel the sampler takes out of a root-motion cycle (x, y, z in the rig's model space over
     * one cycle); zero for every other clip. root_travel is its length. */
    double root_motion[3];
    /* How far a cycle's last pose was from its first (a fraction of the rest pose's size) when the
     * sampler blends that seam away over the cycle's last quarter second (gltf.h, rule d); 0 for a
     * cycle that closes by itself and for every other clip. */
    double seam;
} crowd_rig_clip;

typedef struct crowd_rig_socket {
    char *name; /* "head", "hand_l", "hand_r", "back", ... */
    uint32_t bone;
    float offset[16]; /* socket transform in the bone's space */
} crowd_rig_socket;

/* A named part of the surface that instances may recolour ("shirt", "pants", "skin", "hair"). */
typedef struct crowd_rig_region {
    char *name;
    uint32_t palette_count; /* >= 1 */
    uint8_t (*palette)[4];  /* rgba8 choices; [0] is the default (a glTF base colour factor) */
    bool textured;          /* multiplied by the rig's albedo texture at the vertex UVs */
    /* Per palette choice, where it samples the albedo: uv * (t[0], t[1]) + (t[2], t[3]) (material
     * variants whose texture is another tile of the atlas; scale 0 samples a white texel). NULL:
     * every choice samples at the vertex UVs. */
    float (*uv_transforms)[4];
} crowd_rig_region;

typedef struct crowd_rig crowd_rig;

/* Writes the local transform of every bone (bone_count entries) at `time` seconds of `clip` into
 * `pose`. Bones a clip does not animate get their rest transform. `time` outside the clip is
 * clamped (or wrapped for looping clips). `morph_weights` receives morph_target_count weights
 * when the rig has morph targets, and may be NULL otherwise. Must be thread-safe (read-only). */
typedef void (*crowd_rig_sample_fn)(const crowd_rig *rig, uint32_t clip, double time, crowd_trs *pose,
                                    float *morph_weights);

typedef enum crowd_rig_source {
    CROWD_RIG_PROCEDURAL = 1,
    CROWD_RIG_GLTF = 2,
    CROWD_RIG_FRAMES = 3, /* crowd_rig_from_frames: no skeleton, one identity bone per part */
} crowd_rig_source;

struct crowd_rig {
    /* Mesh, bind pose, model space. */
    uint32_t vertex_count;
    uint32_t index_count; /* triangles: 3 per */
    float *positions;     /* xyz */
    float *normals;       /* xyz, unit */
    float *uvs;           /* uv, or NULL */
    uint8_t *colors;      /* rgba8, or NULL */
    uint8_t *regions;     /* region id per vertex, < region_count */
    uint32_t *indices;

    /* Skinning: `influence_count` joints and weights per vertex (weights sum to 1). Rigid parts
     * are bones too: their vertices have a single influence of weight 1. */
    uint32_t influence_count;
    uint16_t *joints;
    float *weights;

    /* Morph targets (blend shapes): position and normal deltas, target-major
     * (target * vertex_count + vertex) * 3. Count 0 and NULL when absent. */
    uint32_t morph_target_count;
    float *morph_positions;
    float *morph_normals;

    uint32_t bone_count;
    crowd_rig_bone *bones;
    uint32_t clip_count;
    crowd_rig_clip *clips;
    uint32_t socket_count;
    crowd_rig_socket *sockets;
    uint32_t region_count;
    crowd_rig_region *regions_info;

    /* Base-colour texture (sRGB rgba8, albedo_width x albedo_height), or NULL. Needs uvs. */
    uint32_t albedo_width, albedo_height;
    uint8_t *albedo;

    /* Authored levels of detail (glTF MSFT_lod), used by the baker instead of generated ones when
     * lod_level_count > 0. Level l is lod_index_count[l] indices from lod_first_index[l] in
     * lod_indices, referencing this rig's vertices; level 0 is normally `indices` again. */
    uint32_t lod_level_count;
    uint32_t *lod_indices;
    uint32_t lod_first_index[CROWD_MAX_LODS];
    uint32_t lod_index_count[CROWD_MAX_LODS];
    float lod_screen_coverage[CROWD_MAX_LODS];

    crowd_rig_sample_fn sample;
    void *sampler_data; /* owned: freed with sampler_free */
    void (*sampler_free)(void *sampler_data);

    crowd_rig_source source;
    char *source_name; /* file path, or the procedural parameters */
};

/* ---- the built-in procedural humanoid -------------------------------------------------------- */

typedef struct crowd_humanoid_desc {
    /* Tessellation multiplier; 0 means 1.0 (about 2,400 vertices). Range 0.25 .. 4. */
    float density;
} crowd_humanoid_desc;

/* Builds the deterministic procedural humanoid: 25 bones, regions skin/shirt/pants/shoes/hair,
 * sockets head/hand_l/hand_r/back, and six looping clips: idle, walk, jog, run, wave, cheer. The
 * gaits come from explicit foot trajectories solved with analytic two-bone IK, so each
 * locomotion clip's stride_truth is exact and a planted foot does not slip. The same desc always
 * gives the same rig, bit for bit. */
CROWD_API crowd_result crowd_rig_build_humanoid(const crowd_humanoid_desc *desc, crowd_rig *rig, crowd_error *error);

/* Parameters of the humanoid's gaits (also what the tests check the baked strides against). */
typedef struct crowd_gait {
    const char *name;
    double duration;      /* seconds per cycle (two steps) */
    double stride;        /* metres the body travels per cycle */
    double duty;          /* fraction of the cycle a foot is planted (< 0.5: airborne phase) */
    double lift;          /* peak foot lift during swing, metres */
    double pelvis_height; /* mean pelvis height, metres */
    double bob;           /* pelvis vertical amplitude, metres */
} crowd_gait;

/* The humanoid's gait table (walk, jog, run) and its length. */
CROWD_API const crowd_gait *crowd_humanoid_gaits(uint32_t *count);

/* Index of a named humanoid bone ("foot_l", ...) in rigs built by crowd_rig_build_humanoid, or -1. */
CROWD_API int crowd_rig_find_bone(const crowd_rig *rig, const char *name);
CROWD_API int crowd_rig_find_clip(const crowd_rig *rig, const char *name);

/* ---- posing ---------------------------------------------------------------------------------- */

/* Model-space matrices of every bone for a local pose (bone_count column-major 4x4 each). */
CROWD_API void crowd_rig_global_matrices(const crowd_rig *rig, const crowd_trs *pose, float *global);

/* Skinning matrices: global * inverse_bind, bone_count column-major 4x4. */
CROWD_API void crowd_rig_skin_matrices(const crowd_rig *rig, const float *global, float *skin);

/* ---- posing at run time: classic skinning ----------------------------------------------------
 *
 * The skinned-mesh way of animating a character, for comparison with (and beside) the baked crowd:
 * every frame, each character's skeleton is sampled from the rig's clips on the CPU (the very
 * sampler and matrix code the baker uses: rig->sample, crowd_rig_global_matrices,
 * crowd_rig_skin_matrices) and its skinning matrices go to the GPU as a bone palette (crowdbake/gl.h
 * crowd_gl_skinned_*). A poser ties a rig to the asset baked from it: asset clips map to rig clips
 * by name, and the palettes come out in the asset's space (the bake's placement P applied as
 * P * skin * P^-1, as the bake does to its bone texture), so a palette skins the asset's bind
 * positions (crowd_asset.bind_positions, joints, weights) exactly as bone mode does.
 *
 * Output: `rows` holds bone_count 3x4 row-major matrices (12 floats per bone, the bone texture's
 * layout: p' = M * (p, 1)). Cost: one sample of the rig's clip (the procedural humanoid: analytic
 * IK per leg) plus two 4x4 products per bone; about bone_count * 12 floats written. A poser holds
 * scratch memory: one thread per poser. */
typedef struct crowd_rig_poser crowd_rig_poser;

/* Creates a poser for `rig` (borrowed; must outlive the poser) and `asset` (borrowed, may be NULL:
 * then asset clip i is rig clip i and the placement is the identity). Errors: bone or vertex counts
 * that differ between rig and asset, an asset clip the rig lacks (by name), morph targets (a
 * palette cannot express them: CROWD_ERROR_UNSUPPORTED), out of memory. */
CROWD_API crowd_result crowd_rig_poser_create(const crowd_rig *rig, const crowd_asset *asset, crowd_rig_poser **out,
                                              crowd_error *error);
CROWD_API void crowd_rig_poser_destroy(crowd_rig_poser *poser);

/* Poses asset clip `clip` at `phase` of its cycle (wrapped into [0, 1) for a looping clip, clamped
 * to [0, 1] otherwise): rig time start + phase * duration, which is exactly where the bake sampled
 * frame f at phase f / n (looping) or f / (n - 1) (one-shot). False for a clip out of range. */
CROWD_API bool crowd_rig_pose_phase(crowd_rig_poser *poser, uint32_t clip, float phase, float *rows);

/* One moment of a cross-fade between two clips, as the runtime's vertex shader plays it. A crowd
 * record (crowdbake/crowd.h) decodes to one at shader time t: clip_a = crowd_record_clip(record, 0),
 * phase_a = offset_a + t * rate_a, hold_a = the record's CROWD_RECORD_HOLD_A flag, clip B likewise,
 * and weight = (t - fade_start) * fade_rate while a fade runs (fade_rate > 0), else 0. */
typedef struct crowd_rig_blend {
    uint32_t clip_a; /* asset clip index, < the asset's clip_count */
    float phase_a;   /* cycles since the clip's start: wrapped into [0, 1) (fract), or clamped to
                        [0, 1] when hold_a, whatever the clip's own loop flag says */
    bool hold_a;     /* the clip plays once and holds its last pose */
    uint32_t clip_b; /* the clip faded to; checked like clip_a even while weight is 0 */
    float phase_b;
    bool hold_b;
    float weight; /* clip B's share, clamped to [0, 1]; 0 poses clip A alone (clip B is not sampled) */
} crowd_rig_blend;

/* Poses a blend: clip A at its wrapped (or held) phase, and while weight > 0 clip B likewise, the
 * two palettes mixed by the clamped weight: linear blend skinning is linear in the matrices, so
 * this equals the shader's mix of the two skinned positions. Between baked frames the runtime pose
 * is the clip itself, where the VAT interpolates linearly between two frames. Cost: one or two
 * poses (see above). False for a NULL argument or a clip index out of range (rows untouched). */
CROWD_API bool crowd_rig_pose_blend(crowd_rig_poser *poser, const crowd_rig_blend *blend, float *rows);

/* Checks a rig's internal consistency (indices in range, weights normalised, parents ordered,
 * finite data, sampler present). The baker calls it; readers should produce rigs that pass. */
CROWD_API crowd_result crowd_rig_validate(const crowd_rig *rig, crowd_error *error);

/* Releases everything the rig owns and zeroes it. Safe on a zeroed rig. */
CROWD_API void crowd_rig_free(crowd_rig *rig);

#ifdef __cplusplus
}
#endif
#endif
