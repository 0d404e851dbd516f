/* crowdbake/asset.h — the .crowd container: load, validate, and read back what a bake stored.
 *
 * A .crowd file holds one baked character: its animation textures (vertex animation texture and,
 * optionally, a bone-matrix texture), the static per-vertex streams, the LOD index buffers, and a
 * manifest (clips, strides, LODs, bones, sockets, variant regions). docs/format.md is the byte-level
 * specification. This layer depends on libc and libm only and is built for wasm as well.
 *
 * Loading validates everything before anything is used: magic and version, the section table,
 * section ranges, order and alignment, every CRC32, every count against its section size (with
 * overflow checks), every index against what it indexes, every float for finiteness and range
 * (including every texel of the bone texture and of the fp16 textures: positions inside the decode
 * box, octahedral normals in [-1, 1]), every section's tag (a section the format does not define
 * is refused). A file that passes can be handed to a GPU as it is, and every decode below returns
 * finite values. Sections are 16-byte aligned so texture and vertex data
 * are used in place, without copies.
 *
 * Conventions: model space is metres, +Y up, characters face +Z. Matrices are 3x4, row-major
 * (three rows of xyzw), mapping column vectors: p' = M * (p, 1).
 */
#ifndef CROWDBAKE_ASSET_H
#define CROWDBAKE_ASSET_H

#include <stdbool.h>
#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest version this build reads and writes. Version 2 adds the optional IMPS section (the
 * imposter atlas), version 3 the optional CBND section (per-clip bounding spheres), version 4 the
 * optional MARK (clip markers) and PUVS (material variants' texture tiles) sections; a writer uses the lowest version that holds the sections it
 * writes, so older readers keep reading what they can, and this reader loads all four. */
#define CROWD_FORMAT_VERSION 4u

/* Loader limits beyond the counts in base.h. Every length an asset stores (bounds, the sphere,
 * bind positions, bone and socket matrices, the bone texture, strides) has a magnitude of at most
 * CROWD_MAX_COORDINATE metres, so every decode and every product the shaders form stays finite
 * in float32. Files larger than CROWD_MAX_FILE_BYTES (more than the largest textures the limits
 * allow) are refused before anything is allocated. Clip durations are 0 or 1e-6 .. 1e6 s. */
#define CROWD_MAX_COORDINATE 1e6f
#define CROWD_MAX_FILE_BYTES (16ull << 30)

/* How vertex positions are stored in the position texture. */
typedef enum crowd_position_encoding {
    /* RGBA16UI texel: xyz as 16-bit unsigned fractions of the bake's bounding box, decoded as
     * min + (q / 65535) * (max - min). w holds the 8+8-bit octahedral normal (see below). */
    CROWD_POSITION_U16_BOX = 1,
    /* RGBA16F texel: xyz as half floats of the box-normalised position in [0, 1]; w unused.
     * Kept to compare with fp16 bakers; U16_BOX is about 60x more precise for the same bytes. */
    CROWD_POSITION_F16_BOX = 2,
} crowd_position_encoding;

/* How vertex normals are stored. */
typedef enum crowd_normal_encoding {
    CROWD_NORMAL_OCT16 = 1,     /* RG16UI normal texture: octahedral, 16 bits per axis */
    CROWD_NORMAL_OCT8_IN_W = 2, /* no normal texture: 8+8-bit octahedral in the position w */
    CROWD_NORMAL_OCT_F16 = 3,   /* RG16F normal texture: octahedral as half floats */
} crowd_normal_encoding;

/* Texel formats, named as the GL sized internal format they upload to. */
typedef enum crowd_texel_format {
    CROWD_TEXEL_RGBA16UI = 1,
    CROWD_TEXEL_RG16UI = 2,
    CROWD_TEXEL_RGBA16F = 3,
    CROWD_TEXEL_RG16F = 4,
    CROWD_TEXEL_RGBA32F = 5,
    CROWD_TEXEL_RGBA8 = 6,
} crowd_texel_format;

typedef struct crowd_texture {
    uint32_t width, height; /* 0 when the asset has no such texture */
    crowd_texel_format format;
    uint32_t texel_bytes;
    const void *data; /* width * height texels, row after row, ready for glTexImage2D */
    uint64_t bytes;
} crowd_texture;

enum {
    CROWD_CLIP_LOOP = 1u << 0,       /* the last frame is followed by the first */
    CROWD_CLIP_LOCOMOTION = 1u << 1, /* the clip travels: stride > 0 */
};

/* What a clip is for, decided at bake time from its frames (crowd_bake_desc.clip_roles overrides) and
 * stored in bits 8..11 of crowd_clip.flags (CROWD_CLIP_ROLE_MASK). Read it with crowd_clip_role.
 * Only LOCOMOTION clips carry a stride and become gaits. */
typedef enum crowd_clip_role {
    CROWD_ROLE_UNKNOWN = 0,    /* baked before roles were recorded (version 1 files of early bakes) */
    CROWD_ROLE_LOCOMOTION = 1, /* looping, feet plant and slide consistently: a gait with a stride */
    CROWD_ROLE_IDLE = 2,       /* looping, in place, standing on the ground (idle, wave, cheer) */
    CROWD_ROLE_ACTION = 3,     /* one-shot: does not loop (a roll, a death, a jump) */
    CROWD_ROLE_POSE = 4,       /* a still pose: at most 2 distinct keys, or shorter than 0.1 s */
    CROWD_ROLE_FLIGHT = 5,     /* looping without ground contact (flying, swimming): no stride */
    CROWD_ROLE_COUNT
} crowd_clip_role;

#define CROWD_CLIP_ROLE_SHIFT 8u
#define CROWD_CLIP_ROLE_MASK (0xFu << CROWD_CLIP_ROLE_SHIFT)

typedef struct crowd_clip {
    const char *name;
    uint32_t first_frame; /* first row of this clip in the animation textures */
    uint32_t frame_count; /* >= 1 */
    uint32_t flags;       /* CROWD_CLIP_* */
    float duration;       /* seconds of one cycle */
    float stride;         /* metres travelled per cycle at authored speed; 0 in place */
    /* Bounding sphere of the clip (CBND): holds every decoded vertex of every frame of this clip at
     * every LOD level, model space, as the baker measured them (the loader checks it lies inside
     * the asset sphere, not each vertex). Files without CBND get the asset's sphere here
     * ((0, sphere_center_y, 0), sphere_radius), so it is always a valid bound. */
    float bound_center[3], bound_radius;
    /* The same bound made yaw-invariant, what per-instance culling uses: a sphere around
     * (0, cull_center_y, 0) of radius cull_radius holding the clip under any rotation about +Y.
     * The smaller of the asset sphere and the bound widened by its centre's distance from the
     * y axis; never larger than the asset sphere. */
    float cull_center_y, cull_radius;
} crowd_clip;

typedef struct crowd_lod {
    uint32_t first_index; /* into crowd_asset.indices */
    uint32_t index_count;
    uint32_t triangle_count;
    float screen_coverage; /* authored/generated hint: use this level while the character
                                     covers at least this fraction of the viewport height; 0 = none */
} crowd_lod;

typedef struct crowd_bone {
    const char *name;
    int32_t parent; /* -1 for a root; otherwise < this bone's index */
    float bind[12]; /* bone-to-model transform in the bind pose (3x4, row-major) */
} crowd_bone;

typedef struct crowd_socket {
    const char *name; /* "head", "hand_l", ... */
    uint32_t bone;
    /* Attachment transform in bind-pose model space. At run time the socket's world transform is
     * skin(bone, frame) * offset, where skin is the bone texture's matrix for that frame. */
    float offset[12];
} crowd_socket;

enum {
    CROWD_REGION_TEXTURED = 1u << 0, /* multiply the colour by the albedo texture at the vertex UVs */
};

typedef struct crowd_region {
    const char *name;       /* "skin", "shirt", "pants", ... or a glTF material's name */
    uint32_t palette_first; /* into crowd_asset.palette */
    uint32_t palette_count; /* variant colours to pick from; >= 1; [0] is the authored colour */
    uint32_t flags;         /* CROWD_REGION_* */
} crowd_region;

enum {
    CROWD_ASSET_HAS_BONES = 1u << 0,
    CROWD_ASSET_HAS_TANGENTS = 1u << 1,
    CROWD_ASSET_HAS_UVS = 1u << 2,
    CROWD_ASSET_HAS_COLORS = 1u << 3,
    CROWD_ASSET_HAS_ALBEDO = 1u << 4, /* an RGBA8 base-colour texture (needs UVs) */
};

typedef enum crowd_source_kind {
    CROWD_SOURCE_PROCEDURAL = 1, /* the built-in humanoid; source_name holds its parameters */
    CROWD_SOURCE_GLTF = 2,       /* source_name is the glTF file the bake read */
    CROWD_SOURCE_FRAMES = 3,     /* vertex frames: a frames dump's path or "critter KIND seed=N" */
} crowd_source_kind;

/* ---- the imposter atlas (optional IMPS section, format version 2) ----------------------------
 *
 * Pictures of the character rendered at bake time (crowd-bake --imposters, crowd_gl_bake_imposters)
 * for a level of detail past the last mesh: per clip, `frames` key frames of one cycle, each seen
 * from `views` yaw directions (evenly spaced, view j looks at the character from yaw j * 2 pi / views,
 * measured like crowd_record.yaw: view 0 stands on +Z looking towards -Z) at each of `elevations`
 * elevation angles above the horizon. Every picture is one square tile of `tile` x `tile` texels.
 *
 * Tile index (clip c, key frame k, elevation e, view j) = clips[c].first_tile + (k * elevations + e) *
 * views + j; tile t sits at column t % (width / tile), row t / (width / tile) (rows top-down as
 * uploaded, row 0 first). Key frame k shows phase k / frames of a looping clip and phase
 * k / (frames - 1) of a clip without CROWD_CLIP_LOOP (so its last frame is there).
 *
 * Framing: orthographic along the view direction d, with right = normalize(cross(+Y, d)) and
 * up = cross(d, right) (d points from the character to the viewer). The tile spans exactly the
 * projection of the clip's box (box_min..box_max, model space, every frame of the clip) onto right
 * (u, left to right) and up (v, bottom to top: tile row 0 is the top). A renderer maps a model-space
 * point q to tile coordinates ((q.right - u_min) / (u_max - u_min), (v_max - q.up) / (v_max - v_min))
 * with u/v min and max over the box's 8 corners.
 *
 * albedo: sRGB rgb of the surface in full ambient light with the record's tint white, alpha the
 * covered fraction of the texel (0 = empty). normals: rgb = model-space unit normal * 0.5 + 0.5,
 * alpha = how much of the texel's colour the tint replaces (1 on the tinted region, 0.4 for a wash,
 * 0 elsewhere): colour = albedo * mix(1, tint, alpha). Colour and normal are averages over the
 * covered part of the texel (not premultiplied). */
#define CROWD_MAX_IMPOSTER_ELEVATIONS 4u
#define CROWD_MAX_IMPOSTER_FRAMES 64u
#define CROWD_MAX_IMPOSTER_VIEWS 64u
#define CROWD_MAX_IMPOSTER_TILE 512u

typedef struct crowd_imposter_clip {
    float box_min[3], box_max[3]; /* model space, over every frame of the clip */
    uint32_t first_tile;
} crowd_imposter_clip;

typedef struct crowd_imposters {
    uint32_t frames, views, elevations;             /* 0 frames: the asset has no imposters */
    uint32_t tile;                                  /* texels per tile side */
    float elevation[CROWD_MAX_IMPOSTER_ELEVATIONS]; /* radians above the horizon, increasing */
    uint32_t clip_count;                            /* = the asset's clip_count */
    const crowd_imposter_clip *clips;
    crowd_texture albedo, normals; /* CROWD_TEXEL_RGBA8, the same size */
} crowd_imposters;

/* ---- clip markers (optional MARK section, format version 4) ----------------------------------
 *
 * A marker names a moment of a clip: a footstep the bake found (a foot's contact with the ground
 * begins: "footstep_l" for the character's left foot, on +X, "footstep_r" on -X), or a moment the
 * bake was given (crowd_bake_desc.markers, crowd-bake --marker clip=name@seconds). The runtime
 * reports instances crossing them (crowdbake/crowd.h, "Events"). Names are 1..CROWD_MAX_MARKER_NAME
 * bytes of letters, digits, '_', '-' and '.' (crowd_marker_name_ok). At most CROWD_MAX_MARKERS per
 * asset. */
#define CROWD_MAX_MARKERS 65536u
#define CROWD_MAX_MARKER_NAME 63u

typedef struct crowd_marker {
    const char *name;
    uint32_t clip; /* < clip_count */
    float time;    /* seconds from the clip's start, 0..duration */
    float phase;   /* time / duration, 0..1: where in the cycle it sits (0 for a clip of duration 0) */
} crowd_marker;

typedef struct crowd_asset {
    uint32_t flags; /* CROWD_ASSET_* */
    uint32_t vertex_count;
    uint32_t frame_count; /* total frames over all clips (rows of the texture layout) */
    uint32_t index_count; /* all LOD levels together */
    uint32_t bone_count, clip_count, lod_count, socket_count, region_count, palette_count;

    crowd_position_encoding position_encoding;
    crowd_normal_encoding normal_encoding;
    float bounds_min[3], bounds_max[3]; /* box of every vertex in every frame: the decode box
                                           (the loader guarantees every decode lies inside) */
    /* Sphere around (0, center_y, 0) holding every vertex of every frame under any yaw, as the
     * baker measured them (widened by the decode error): the per-instance culling bound. It holds
     * the vertices, not the box's corners, so it is tighter than a sphere round the box. The
     * loader checks it reaches each face of the box (a baked box touches a vertex on each), not
     * every vertex: that would decode every texel on every load, so a hand-made file whose sphere
     * misses vertices between the faces loads, and culling trusts it (such instances may vanish a
     * little early at the screen's edge; nothing unsafe). */
    float sphere_center_y, sphere_radius;

    /* Vertex animation textures: texel index = frame * vertex_count + vertex, laid out row after
     * row in a texture `width` wide. positions, normals and tangents share one layout. */
    crowd_texture positions, normals, tangents;
    /* Bone texture: 3 RGBA32F texels (rows of a 3x4 skinning matrix, bind pose to animated pose)
     * per bone per frame; texel index = (frame * bone_count + bone) * 3 + row. */
    crowd_texture bones;
    /* Base-colour texture (sRGB RGBA8), sampled at the vertex UVs by regions flagged
     * CROWD_REGION_TEXTURED. Zero size without CROWD_ASSET_HAS_ALBEDO. */
    crowd_texture albedo;

    /* Static per-vertex streams (vertex_count entries each). */
    const float *bind_positions; /* xyz, bind pose: the bone-mode input */
    const float *bind_normals;   /* xyz */
    const float *uvs;            /* uv, or NULL without CROWD_ASSET_HAS_UVS */
    const uint8_t *colors;       /* rgba8, or NULL without CROWD_ASSET_HAS_COLORS */
    const uint8_t *regions;      /* region id per vertex, < region_count */
    const uint16_t *joints;      /* 4 per vertex, < bone_count; NULL without bones */
    const uint16_t *weights;     /* 4 per vertex, unorm16, summing to 65535; NULL without bones */
    const uint32_t *indices;     /* every LOD's triangles; each index < vertex_count */

    const crowd_clip *clips;
    const crowd_lod *lods;        /* lods[0] is full detail; triangle counts never increase */
    const crowd_bone *bones_info; /* bone_count entries (names and hierarchy) */
    const crowd_socket *sockets;
    const crowd_region *regions_info;
    const uint8_t *palette; /* rgba8 colours, palette_count of them */
    /* Where each palette colour samples the albedo (material variants whose texture is another tile
     * of the atlas): 4 floats per colour, atlas uv = vertex uv * (t[0], t[1]) + (t[2], t[3]) (scale
     * 0: a white texel, an untextured variant of a textured region). NULL (files without the PUVS
     * section): every colour samples at the vertex UVs. */
    const float *palette_uv;

    crowd_source_kind source_kind;
    const char *source_name;
    float bake_fps;   /* sampling rate the bake used (0 when fixed frame counts) */
    float unit_scale; /* source units -> asset units the bake applied (crowd_bake_desc.scale
                                     or .height); everything in the asset is already scaled */

    /* The optional BAKE section (placement, bone-mode status, clip evidence): NULL in files baked
     * before it existed. Read it through crowd_asset_bake_notes / crowd_asset_clip_evidence. */
    const uint8_t *notes_;
    uint64_t notes_size_;

    /* True when the file carries per-clip bounds (CBND, format version 3); without them each
     * clip's bound_* and cull_* fields hold the asset sphere. */
    bool has_clip_bounds;

    /* The imposter atlas; imposters.frames == 0 when the file has none (every version-1 file). */
    crowd_imposters imposters;

    /* Owned by the loader; release with crowd_asset_free. */
    void *internal_;

    /* Clip markers (the optional MARK section, format version 4; see crowd_marker): marker_count
     * of them, sorted by clip, then by time (ties keep the file's order), so each clip's markers
     * are one run (crowd_asset_clip_markers). 0 and NULL in files without. */
    uint32_t marker_count;
    const crowd_marker *markers;
} crowd_asset;

/* Validates a .crowd image in memory and fills `asset`. The data is borrowed: textures, streams
 * and names point into it, so it must stay alive and unchanged until crowd_asset_free. The data
 * must be 16-byte aligned (malloc'd memory is). Costs one pass over the bytes (CRC32 at a few
 * GB/s) plus one over the indices, the bone texture and the fp16 textures. On failure `asset` is zeroed and nothing needs freeing. */
CROWD_API crowd_result crowd_asset_load_memory(crowd_asset *asset, const void *data, size_t size, crowd_error *error);

/* Reads a whole .crowd file and validates it as crowd_asset_load_memory does; the asset owns the
 * bytes. Anything but a regular file (a directory, a FIFO, a device) is refused with
 * CROWD_ERROR_IO before a byte is read: a FIFO without a writer would otherwise block forever. */
CROWD_API crowd_result crowd_asset_load_file(crowd_asset *asset, const char *path, crowd_error *error);

/* Releases what the loader allocated (and the file bytes for crowd_asset_load_file). Safe on a
 * zeroed asset and on one whose load failed. */
CROWD_API void crowd_asset_free(crowd_asset *asset);

/* ---- bake notes: what the bake decided and why ---------------------------------------------- */

typedef enum crowd_bone_mode {
    CROWD_BONE_MODE_NONE = 0,        /* no bone texture baked */
    CROWD_BONE_MODE_EXACT = 1,       /* bone mode reproduces the VAT frames (within its unorm16 bound) */
    CROWD_BONE_MODE_APPROXIMATE = 2, /* more than 4 influences: bone mode is off by bone_error metres */
    CROWD_BONE_MODE_UNAVAILABLE = 3, /* morph targets animate: bone mode cannot play this asset */
} crowd_bone_mode;

/* Which way the source faced and how the bake decided it. */
typedef enum crowd_axis {
    CROWD_AXIS_POS_Z = 0,
    CROWD_AXIS_NEG_Z = 1,
    CROWD_AXIS_POS_X = 2,
    CROWD_AXIS_NEG_X = 3,
    CROWD_AXIS_POS_Y = 4,
} crowd_axis;

typedef enum crowd_decision {
    CROWD_DECIDED_DEFAULT = 0,  /* nothing to measure: the glTF convention (+Z forward, +Y up) */
    CROWD_DECIDED_DETECTED = 1, /* measured from the frames (foot slide, contacts, rest pose) */
    CROWD_DECIDED_GIVEN = 2,    /* a bake option said so */
} crowd_decision;

typedef struct crowd_bake_notes {
    float placement[12]; /* source model space -> asset space, 3x4 row-major: rotation
                                        (up, then forward), uniform scale (unit_scale), then the
                                        ground offset along +Y; applied to everything in the asset */
    crowd_axis forward;  /* the source's forward axis (+Z after the bake) */
    crowd_decision forward_decision;
    crowd_axis up;                  /* the source's up axis: POS_Y or POS_Z */
    crowd_decision scale_decision;  /* GIVEN: desc scale or height; DEFAULT: 1 (metres per the spec);
                                       DETECTED: the unit the height and kind said (crowdbake/bake.h) */
    crowd_decision ground_decision; /* DETECTED: ground AUTO; GIVEN: an offset; DEFAULT: none */
    crowd_bone_mode bone_mode;
    float bone_error;    /* metres: bone mode's worst vertex error against the VAT frames */
    float height;        /* metres: standing height (idle clip's first frame, else rest pose) */
    float ground_offset; /* metres moved along +Y to put the character on the ground */
    float hover;         /* metres: lowest point of the flight clips above y = 0 (fliers) */
} crowd_bake_notes;

/* Why a clip got its role. */
typedef struct crowd_clip_evidence {
    uint32_t frames;          /* frames analysed */
    uint32_t contact_frames;  /* frames with a foot planted on the ground (still, at ground level) */
    uint32_t distinct_frames; /* frames that differ from the one before (a pose has 1 or 2) */
    uint32_t key_count;       /* most keyframes of any channel in the source; 0 = unknown */
    float loop_error;         /* last pose vs first, as a fraction of the height (0 = seamless) */
    float airborne;           /* lowest point of the clip above the rest pose's, fraction of height */
    bool travels;             /* planted feet slide consistently (the stride extractor's verdict) */
    bool overridden;          /* crowd_bake_desc.clip_roles set the role */
    float root_travel;        /* metres the source's root travelled over one cycle (root motion, taken
                                 out so the clip plays in place; or carried by a bone without
                                 vertices); for a one-shot, how far it moves the body (it plays as
                                 authored: move the agent by it when the clip ends); 0 otherwise */
} crowd_clip_evidence;

/* Fills `notes` from the asset's BAKE section. Returns false (notes zeroed, placement identity)
 * for files without one. */
CROWD_API bool crowd_asset_bake_notes(const crowd_asset *asset, crowd_bake_notes *notes);

/* Fills `evidence` for clip `clip`; false without a BAKE section or for an index out of range. */
CROWD_API bool crowd_asset_clip_evidence(const crowd_asset *asset, uint32_t clip, crowd_clip_evidence *evidence);

/* The markers of clip `clip`: their count, and in *first (may be NULL) the index of the first in
 * asset->markers (the rest follow it, in order of time). 0 (and *first untouched) for a clip
 * without markers, an index out of range or a NULL asset. O(log marker_count + the clip's). */
CROWD_API uint32_t crowd_asset_clip_markers(const crowd_asset *asset, uint32_t clip, uint32_t *first);

/* Whether `name` is a valid marker name (see crowd_marker). */
CROWD_API bool crowd_marker_name_ok(const char *name);

/* The role stored in a clip's flags (CROWD_ROLE_UNKNOWN for files baked before roles). */
CROWD_API crowd_clip_role crowd_clip_role_of(const crowd_clip *clip);

/* "locomotion", "idle", "action", "pose", "flight", "unknown". */
CROWD_API const char *crowd_clip_role_name(crowd_clip_role role);

/* Parses a role name as crowd_clip_role_name writes it (case-insensitive; "swim" and "one-shot"
 * are accepted for flight and action). */
CROWD_API bool crowd_clip_role_parse(const char *text, crowd_clip_role *role);

/* Finds a clip by name as people write them: an exact match first, then case-insensitively, then
 * by the part after the last '|' (Blender writes "Armature|Walk"), case-insensitively. Returns
 * false when nothing matches; *index is written only on success. Ties go to the lowest index. */
CROWD_API bool crowd_asset_match_clip(const crowd_asset *asset, const char *name, uint32_t *index);

/* The same rules over any list of names (the rig's clips before a bake, crowd_bake_desc.clip_names and clip_roles). */
CROWD_API bool crowd_match_clip_name(const char *const *names, size_t stride, uint32_t count, const char *name,
                                     uint32_t *index);

/* Looks up the clip / socket / region with this exact name (crowd_asset_match_clip matches clip names as people write them): true and its index in *index, or
 * false (no such name, or a NULL argument) with *index left untouched. `index` may be NULL to ask
 * only whether the name exists. O(count) string compares. */
CROWD_API bool crowd_asset_find_clip(const crowd_asset *asset, const char *name, uint32_t *index);
CROWD_API bool crowd_asset_find_socket(const crowd_asset *asset, const char *name, uint32_t *index);
CROWD_API bool crowd_asset_find_region(const crowd_asset *asset, const char *name, uint32_t *index);

/* Decodes vertex `vertex` of absolute frame `frame` exactly as the vertex shader does (float32
 * arithmetic, same formulas): position in model space, unit normal. Caller bugs (out-of-range
 * indices) return CROWD_ERROR_ARGUMENT and leave the outputs untouched. */
CROWD_API crowd_result crowd_asset_decode_vertex(const crowd_asset *asset, uint32_t frame, uint32_t vertex,
                                                 float position[3], float normal[3]);

/* The 3x4 skinning matrix of `bone` at absolute `frame` from the bone texture. */
CROWD_API crowd_result crowd_asset_bone_matrix(const crowd_asset *asset, uint32_t frame, uint32_t bone,
                                               float matrix[12]);

/* Bytes per vertex per frame of the animation textures actually sampled (positions + normals +
 * tangents), the figure to compare between encodings. */
CROWD_API uint32_t crowd_asset_vat_bytes_per_vertex_frame(const crowd_asset *asset);

/* Quantum of the position encoding per axis in metres (decode step for U16_BOX; the spacing of
 * half floats just below 1.0, times the box extent, for F16_BOX). */
CROWD_API void crowd_asset_position_quantum(const crowd_asset *asset, float quantum[3]);

#ifdef __cplusplus
}
#endif
#endif
