/* crowdbake/bake.h — baking a rig into a .crowd asset.
 *
 * crowd_bake samples every selected clip at a fixed rate, skins the mesh on the CPU at each frame
 * (linear blend skinning of positions, normals and optionally tangents, morph targets first),
 * encodes the results into vertex animation textures, optionally bakes a bone-matrix texture,
 * builds index-only LOD levels that share the one animation texture, measures each locomotion
 * clip's stride from the baked frames, and packs it all into one .crowd image in memory.
 *
 * Two bakes of the same rig with the same desc are byte-identical.
 *
 * ROLES. Every clip gets a role (crowd_clip_role), from the baked frames and the rig:
 *   pose       the source has at most 2 keys per channel, or the clip is shorter than 0.1 s, or at
 *              most 2 of its frames differ from the one before (a still pose stored as a clip);
 *   action     it does not loop (crowd_rig_clip.loop);
 *   flight     it loops and is off the ground: at most a fifth of its frames have their lowest
 *              point within 3 % of the height of the rest pose's lowest point (a wing tip may brush
 *              the ground on the down stroke), and the clip's ground (25th percentile of the
 *              per-frame lowest points) is more than 3 % of the height above it;
 *   locomotion it loops, touches the ground in at least a quarter of its frames, and the stride
 *              extractor finds planted feet sliding consistently (bake/stride.h), by at most 4
 *              heights per cycle (AnimatedTriangle's spin "slides" 6 heights: not a gait);
 *   idle       any other looping clip.
 * desc->clip_roles overrides any of these. Only locomotion clips carry a stride and the
 * CROWD_CLIP_LOCOMOTION flag. The evidence (frames in contact, distinct frames, key count, loop
 * error, height above the rest ground) goes into the asset's BAKE section (crowd-inspect prints it).
 *
 * PLACEMENT. The asset is in metres, +Y up, facing +Z, standing on y = 0: the bake rotates the
 * source's `up` to +Y, then turns it so its forward axis is +Z (AUTO: the axis nearest to the
 * opposite of the planted feet's slide in the locomotion clips, which is the way the character
 * walks; +Z without locomotion), scales it (UNITS below), and moves it along +Y: AUTO puts the
 * lowest clip ground of the locomotion and idle clips at 0, or the rest pose's lowest point for
 * characters that neither walk nor stand; fliers (every looping clip a flight) are lifted so that
 * no frame is below 0 (their lowest point touches it) and the flight clips' height above the
 * ground is reported as `hover`. The transform is recorded (crowd_asset_bake_notes) so
 * crowd_verify reproduces it.
 *
 * UNITS. `height` scales the standing height (the first frame of the first idle clip, else the rest
 * pose) to that many metres; `scale` multiplies every length. With neither, the file's unit is
 * decided from evidence: glTF says metres, and a height read as metres is kept when it is plausible
 * for the character's kind: 0.3..5 m for an upright character (standing depth along its forward
 * axis under 0.6 of its height: a person, a robot), 0.05..12 m for anything else. Otherwise the
 * first of centimetres, millimetres, inches, feet and hectometres that gives a plausible size (a
 * person's 0.9..2.6 m for an upright character) is taken; when none does, an upright character is
 * scaled to 1.75 m and anything else to 1 m, unless that takes a scale outside 0.0001..10000 (a
 * character that small is refused, see below). That decision is sent to `warn` in one line naming
 * `scale` 1 as the undo, and recorded as DETECTED. A given `scale` that makes the character
 * implausible gets a warning naming the scale that fits and the height it gives.
 *
 * BONE MODE. With `bones`, the bake skins its own bone texture and four-influence streams against
 * the float frames and records the worst error: EXACT within 0.1 % of the height, otherwise
 * APPROXIMATE (more than 4 influences) or UNAVAILABLE (morph targets), with a warning.
 *
 * SIZE. The file size is predicted before anything is skinned; above max_bytes the bake fails
 * with CROWD_ERROR_LIMIT and a message that names only changes that would fit, each with its
 * predicted size: the highest lower fps (or frames), compact, no tangents, no bones, or the clips
 * kept when the ones with the most frames are dropped. Where none fits alone it gives the first
 * combination that does (compact, then without tangents, then without bones, at the highest fps
 * that fits; else fps 1 with fewer clips), and where nothing fits it says so with the smallest
 * bake's size. Every suggestion applied as given bakes under max_bytes (a clip list too long for
 * the message is cut short with ",...": an example).
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

/* Receives each bake-time warning (implausible size, bone mode that cannot reproduce the clips). */
typedef void (*crowd_bake_warn_fn)(void *user, const char *message);

/* Which way the source character faces; AUTO measures it (see crowd_bake_desc.forward). */
typedef enum crowd_bake_forward {
    CROWD_FORWARD_AUTO = 0,
    CROWD_FORWARD_POS_Z,
    CROWD_FORWARD_NEG_Z,
    CROWD_FORWARD_POS_X,
    CROWD_FORWARD_NEG_X,
} crowd_bake_forward;

typedef enum crowd_bake_up {
    CROWD_UP_DEFAULT = 0, /* +Y, glTF's convention */
    CROWD_UP_POS_Y,
    CROWD_UP_POS_Z,
} crowd_bake_up;

typedef enum crowd_bake_ground {
    CROWD_GROUND_AUTO = 0, /* planted feet (or the rest pose) at y = 0; fliers: nothing below 0 */
    CROWD_GROUND_NONE,     /* keep the source's heights */
    CROWD_GROUND_OFFSET,   /* move up by crowd_bake_desc.ground_offset metres */
} crowd_bake_ground;

/* A role forced on a clip; names match as crowd_match_clip_name. */
typedef struct crowd_bake_clip_role {
    const char *clip;
    crowd_clip_role role;
} crowd_bake_clip_role;

/* A marker named at bake time (crowdbake/asset.h, crowd_marker): `clip` matches as
 * crowd_match_clip_name among the clips baked, `time` is seconds from the clip's start within
 * 0..its duration, `name` as crowd_marker_name_ok. */
typedef struct crowd_bake_marker {
    const char *clip;
    const char *name;
    float time;
} crowd_bake_marker;

#define CROWD_BAKE_DEFAULT_MAX_BYTES (256ull << 20)

/* Zeroed fields take the defaults listed on each line. */
typedef struct crowd_bake_desc {
    const crowd_rig *rig;          /* required; borrowed */
    float fps;                     /* samples per second per clip; 0 = 30. Range 1..240 */
    uint32_t frames;               /* fixed frames per clip, overriding fps; 0 = from fps */
    const char *const *clip_names; /* clips to bake, in this order; NULL = all, in rig order */
    uint32_t clip_name_count;
    uint32_t lod_count;      /* levels including full detail; 0 = 5. Range 1..CROWD_MAX_LODS */
    const float *lod_ratios; /* lod_count triangle ratios in (0, 1], first 1, decreasing;
                                         NULL = 1, 0.4, 0.15, 0.05, 0.012 (the humanoid's last <= 60) */
    bool bones;              /* also bake the bone texture and 4-influence skin streams */
    bool tangents;           /* also bake per-frame tangents (RG16UI octahedral) */
    bool compact;            /* 8 bytes/vertex/frame: no normal texture, 8+8-bit normal in
                                         the position texel's w */
    bool fp16;               /* half-float positions and normals (12 bytes, ~60x coarser);
                                         for comparison with fp16 bakers */
    float scale;             /* unit scale applied to everything the bake measures (positions,
                                         bone translations, sockets, bounds, strides): 0.01 turns a
                                         centimetre asset into metres. 0 = decided from the file
                                         (UNITS above); 1 keeps its size. Range 0.0001..10000 */
    uint32_t tex_width;      /* animation texture width; 0 = 4096. Doubled automatically
                                         while the height would exceed CROWD_MAX_TEXTURE_DIM */
    /* Placement, applied to everything the asset holds (see PLACEMENT below). */
    crowd_bake_forward forward;             /* AUTO: measured from the locomotion clips, else +Z */
    crowd_bake_up up;                       /* DEFAULT: +Y */
    float height;                           /* metres: scale to this standing height; 0 = use `scale`.
                                         Range 0.01..1000; not with `scale` */
    crowd_bake_ground ground;               /* AUTO by default */
    float ground_offset;                    /* metres, with CROWD_GROUND_OFFSET; |offset| <= 10000 */
    const crowd_bake_clip_role *clip_roles; /* borrowed; roles forced on named clips */
    uint32_t clip_role_count;
    uint64_t max_bytes;      /* refuse bakes predicted larger; 0 = CROWD_BAKE_DEFAULT_MAX_BYTES,
                                         UINT64_MAX = no limit */
    crowd_bake_warn_fn warn; /* optional */
    void *warn_user;
    crowd_bake_progress_fn progress; /* optional */
    void *progress_user;
    /* Clip markers (the MARK section, format version 4). Named ones (at most 32,768) are borrowed:
     * a marker whose clip is not baked, whose time lies outside the clip or is not finite, or whose
     * name is not valid is CROWD_ERROR_ARGUMENT before anything is sampled. Footsteps: each looping
     * locomotion clip gets
     * a "footstep_l" / "footstep_r" marker at the frame where that foot's contact with the ground
     * begins (the lowest point of that side of the body, +X the left, comes within 0.5 % of the
     * height of its lowest over the cycle, after being more than 2 % above it); 0 = on, -1 = off. */
    const crowd_bake_marker *markers;
    uint32_t marker_count;
    int footsteps;
} crowd_bake_desc;

typedef struct crowd_bake_stats {
    uint32_t vertex_count, triangle_count, bone_count, clip_count, frame_count;
    uint32_t tex_width, tex_height, bone_tex_width, bone_tex_height;
    uint64_t bytes_positions, bytes_normals, bytes_tangents, bytes_bones, bytes_other, bytes_total;
    uint32_t bytes_per_vertex_frame;
    uint32_t lod_count;
    uint32_t lod_triangles[CROWD_MAX_LODS];
    uint64_t predicted_bytes; /* the size estimate the bake checked against max_bytes */
    crowd_bake_notes notes;   /* what the bake decided (also in the asset's BAKE section) */
    double ms_skin, ms_encode, ms_lod, ms_stride, ms_pack, ms_total;
} crowd_bake_stats;

typedef struct crowd_bake_output {
    uint8_t *bytes; /* the .crowd image, 16-byte aligned; free with crowd_bake_output_free */
    size_t size;
    crowd_bake_stats stats;
} crowd_bake_output;

/* Bakes `desc->rig` (which must pass crowd_rig_validate). On failure nothing is allocated and
 * `output` is zeroed. Peak memory is about 28 bytes per vertex-frame for the float frames plus
 * the textures. Single-threaded; the rig's sampler is called once per frame.
 * A character whose frames, once placed, span less than 1 mm along every axis (all vertices at one
 * point, or a size that vanishes) is refused with CROWD_ERROR_INVALID_DATA: every placement and
 * role decision is relative to its size. The image is checked with
 * crowd_asset_load_memory before it is handed out (one more pass over the image, as a load makes),
 * so an OK bake is always a file the loader accepts. */
CROWD_API crowd_result crowd_bake(const crowd_bake_desc *desc, crowd_bake_output *output, crowd_error *error);

CROWD_API void crowd_bake_output_free(crowd_bake_output *output);

/* ---- baking vertex frames (things that are not skinned rigs) ----------------------------------
 *
 * Anything that can write out its vertices every frame (procedural critters, cloth, a physics
 * capture, an engine's own animation) bakes through the same pipeline as a rig: same textures,
 * LOD chain, placement, roles, strides and verification. The topology is fixed: every frame has
 * the same vertices and triangles; only positions (and normals) change. There is no skeleton, so
 * there is no bone texture, no bone mode and no sockets (attachments): a bake that asks for bones
 * fails with CROWD_ERROR_ARGUMENT. */

#define CROWD_FRAMES_NAME_MAX 31u /* clip names, bytes without the terminator */
#define CROWD_FRAMES_MAX_PARTS 1024u
#define CROWD_FRAMES_MAX_VERTEX_FRAMES (1ull << 28) /* about 3 GB of float positions */

typedef struct crowd_frames_clip {
    const char *name;     /* 1..CROWD_FRAMES_NAME_MAX bytes, unique (as crowd_match_clip_name) */
    uint32_t first_frame; /* into crowd_vertex_frames.positions */
    uint32_t frame_count; /* 1..CROWD_MAX_FRAMES_PER_CLIP; a loop's frames cover [0, frames / fps):
                             the frame after the last is the first */
    float fps;            /* the rate the frames were captured at, 1..240 */
    bool loop;
    float stride; /* metres per cycle when the producer knows it (the distance its critter travelled
                     over the loop); verify checks the bake's measured stride against it.
                     NAN = unknown, 0 = in place. */
} crowd_frames_clip;

typedef struct crowd_vertex_frames {
    uint32_t vertex_count;   /* 1..CROWD_MAX_VERTICES */
    uint32_t index_count;    /* a positive multiple of 3 */
    uint32_t frame_count;    /* every clip's frames together */
    const float *positions;  /* frame_count x vertex_count xyz, metres, +Y up, facing +Z */
    const float *normals;    /* same layout, or NULL: area-weighted face normals per frame */
    const uint32_t *indices; /* counter-clockwise triangles */
    const uint16_t *parts;   /* part id per vertex (< part_count), or NULL: one part. Parts stand in
                                  for the dominant bone: the LOD chain never welds two parts */
    uint32_t part_count;     /* 1..CROWD_FRAMES_MAX_PARTS; 0 = 1 */
    const uint8_t *colors;   /* rgba8 per vertex (sRGB), or NULL: white */
    uint32_t clip_count;     /* 1..CROWD_MAX_CLIPS */
    const crowd_frames_clip *clips;
    const char *source_name; /* recorded in the asset (crowd-verify rebuilds the source from it); may be NULL */
} crowd_vertex_frames;

/* Checks every count, range and value of `frames` (finite positions, normals finite and non-zero
 * (any length: they are made unit without overflow), indices and parts in range, clips inside the
 * frames, rates and strides sane, clip and source names well-formed UTF-8, clip names unique). */
CROWD_API crowd_result crowd_vertex_frames_validate(const crowd_vertex_frames *frames, crowd_error *error);

/* Builds a rig that plays `frames` back: one bone per part (identity, so the LOD and the rig share
 * the part ids), one morph target per frame against frame 0, a sampler that blends the two frames
 * around any time (wrapping loops), one region "body" whose palette is white so the vertex colours
 * carry the look, `source` CROWD_RIG_FRAMES. The rig owns copies of everything (about 24 bytes per
 * vertex-frame) and passes crowd_rig_validate; pass it to crowd_bake and crowd_verify as any rig.
 * Normals are computed here when absent. */
CROWD_API crowd_result crowd_rig_from_frames(const crowd_vertex_frames *frames, crowd_rig *rig, crowd_error *error);

/* crowd_rig_from_frames + crowd_bake: `desc->rig` is ignored; desc->fps 0 takes the clips' own
 * rate when they share one (so every captured frame is baked as it is), else 30. */
CROWD_API crowd_result crowd_bake_frames(const crowd_vertex_frames *frames, const crowd_bake_desc *desc,
                                         crowd_bake_output *output, crowd_error *error);

/* ---- the frames dump: a file holding crowd_vertex_frames (docs/frames-dump.md) ------------------ */

/* A decoded dump; `frames` points into `storage`, which the dump owns. */
typedef struct crowd_frames_dump {
    crowd_vertex_frames frames;
    void *storage;
} crowd_frames_dump;

/* Decodes a dump from memory. Every count, offset and value is checked before use (hostile input
 * gets CROWD_ERROR_INVALID_DATA or _LIMIT with the field named, never a crash); on failure nothing
 * is allocated and `dump` is zeroed. Normals of any finite non-zero length are normalised; absent
 * ones stay NULL. A stride flagged known must be a number, names well-formed UTF-8. */
CROWD_API crowd_result crowd_frames_dump_read(const void *bytes, size_t size, crowd_frames_dump *dump,
                                              crowd_error *error);
/* Reads the dump at `path` (a regular file: a FIFO or a device is refused with CROWD_ERROR_IO
 * before it is read) and decodes it as crowd_frames_dump_read; errors start with `path`. */
CROWD_API crowd_result crowd_frames_dump_read_file(const char *path, crowd_frames_dump *dump, crowd_error *error);
CROWD_API void crowd_frames_dump_free(crowd_frames_dump *dump);

/* Encodes `frames` (validated first) as a dump; *bytes is allocated, free with crowd_frames_dump_bytes_free.
 * Two encodings of the same frames are byte-identical. */
CROWD_API crowd_result crowd_frames_dump_write(const crowd_vertex_frames *frames, uint8_t **bytes, size_t *size,
                                               crowd_error *error);
CROWD_API void crowd_frames_dump_bytes_free(uint8_t *bytes);

/* Adds (or replaces) the imposter atlas of a baked image: `image` is a .crowd image (crowd_bake's
 * output, or a loaded file's bytes) and `imposters` an atlas for its asset (crowd_gl_bake_imposters
 * renders one; asset.h documents the layout). Writes a new image with every section of the old one
 * plus an IMPS section, as format version 2, to *out (16-byte aligned; free with crowd_aligned_free
 * through crowd_bake_image_free). The image is re-checked as a container (CRCs); the caller should
 * load the result (crowd_asset_load_memory) before writing it, as crowd-bake does. Costs one copy of
 * the image plus the atlas. */
CROWD_API crowd_result crowd_bake_add_imposters(const uint8_t *image, size_t size, const crowd_imposters *imposters,
                                                uint8_t **out, size_t *out_size, crowd_error *error);

/* Frees an image from crowd_bake_add_imposters (NULL is fine). */
CROWD_API void crowd_bake_image_free(uint8_t *image);

/* ---- verification ---------------------------------------------------------------------------- */

typedef struct crowd_verify_clip {
    const char *name;          /* points into the asset */
    float manifest_stride;     /* what the bake recorded */
    double decoded_stride;     /* re-measured from the decoded texture */
    double truth;              /* the rig's exact stride, NAN when unknown */
    double max_relative_error; /* of both strides against truth; 0 when truth is unknown */
    double position_max_mm;    /* worst VAT position error in this clip */
    /* The farthest decoded VAT vertex of the clip from its bounding sphere's centre (CBND,
     * crowd_clip.bound_center), over its radius: <= 1 when the sphere holds the clip, as culling
     * per instance assumes; 0 when the file has no per-clip spheres. */
    double bound_ratio;
} crowd_verify_clip;

typedef struct crowd_verify_report {
    uint64_t vertex_frames;
    /* VAT mode: decoded exactly as the shader does vs double-precision skinning of the source. */
    double position_max_mm, position_mean_mm;
    double position_bound_mm; /* the encoding's bound: half a quantum (u16), half an ulp (f16) */
    double quantum_mm;        /* largest per-axis quantum */
    double normal_max_deg, normal_mean_deg, normal_bound_deg;
    /* Bone mode (when baked): 4 unorm16 weights and the bone texture vs the same truth. */
    bool bones_checked;
    double bone_position_max_mm, bone_position_mean_mm, bone_normal_max_deg;
    double bone_bound_mm;      /* NAN when bone mode cannot match exactly (>4 influences, morphs) */
    crowd_bone_mode bone_mode; /* as the bake recorded it (EXACT for bone bakes without a BAKE section);
                                     UNAVAILABLE: bone mode is not checked against any bound (not
                                     applicable), APPROXIMATE: it must not exceed the recorded error */
    double bone_recorded_mm;   /* the bake's own measurement of bone mode's error; NAN when absent */
    uint32_t clip_count;
    crowd_verify_clip *clips; /* owned; crowd_verify_report_free */
    double stride_tolerance;  /* relative, 1e-3, for the manifest stride; the stride re-measured
                                     from decoded frames may also be off by the encoding's error */
    bool clip_bounds_checked; /* the file has per-clip spheres (asset->has_clip_bounds) */
    double bound_max_ratio;   /* the largest clip bound_ratio; above 1 + 1e-6 is a failure */
    bool passed;
    char failure[256]; /* the first broken bound, when !passed */
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
