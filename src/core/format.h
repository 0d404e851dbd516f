/* Internal: byte layout of the .crowd container, shared by the loader (crowd_core) and the
 * writer (crowd_bake). docs/format.md is the prose specification of the same numbers. */
#ifndef CROWD_CORE_FORMAT_H
#define CROWD_CORE_FORMAT_H

#include <stdint.h>
#include <string.h>

#define CROWD_MAGIC "CRWDBAKE"
#define CROWD_FILE_HEADER_BYTES 32u
#define CROWD_SECTION_ENTRY_BYTES 32u
#define CROWD_SECTION_ALIGN 16u
#define CROWD_MAX_SECTIONS 64u

#define CROWD_TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

enum crowd_section_tag {
    CROWD_TAG_HEAD = CROWD_TAG('H', 'E', 'A', 'D'), /* asset header, CROWD_HEAD_BYTES */
    CROWD_TAG_STRS = CROWD_TAG('S', 'T', 'R', 'S'), /* NUL-terminated strings */
    CROWD_TAG_CLIP = CROWD_TAG('C', 'L', 'I', 'P'),
    CROWD_TAG_LODS = CROWD_TAG('L', 'O', 'D', 'S'),
    CROWD_TAG_BONE = CROWD_TAG('B', 'O', 'N', 'E'),
    CROWD_TAG_SOCK = CROWD_TAG('S', 'O', 'C', 'K'),
    CROWD_TAG_REGN = CROWD_TAG('R', 'E', 'G', 'N'),
    CROWD_TAG_PALT = CROWD_TAG('P', 'A', 'L', 'T'),
    CROWD_TAG_VPOS = CROWD_TAG('V', 'P', 'O', 'S'),
    CROWD_TAG_VNRM = CROWD_TAG('V', 'N', 'R', 'M'),
    CROWD_TAG_VUV0 = CROWD_TAG('V', 'U', 'V', '0'),
    CROWD_TAG_VCOL = CROWD_TAG('V', 'C', 'O', 'L'),
    CROWD_TAG_VREG = CROWD_TAG('V', 'R', 'E', 'G'),
    CROWD_TAG_SJNT = CROWD_TAG('S', 'J', 'N', 'T'),
    CROWD_TAG_SWGT = CROWD_TAG('S', 'W', 'G', 'T'),
    CROWD_TAG_INDX = CROWD_TAG('I', 'N', 'D', 'X'),
    CROWD_TAG_TPOS = CROWD_TAG('T', 'P', 'O', 'S'),
    CROWD_TAG_TNRM = CROWD_TAG('T', 'N', 'R', 'M'),
    CROWD_TAG_TTAN = CROWD_TAG('T', 'T', 'A', 'N'),
    CROWD_TAG_TBON = CROWD_TAG('T', 'B', 'O', 'N'),
    CROWD_TAG_TALB = CROWD_TAG('T', 'A', 'L', 'B'),
    CROWD_TAG_BAKE = CROWD_TAG('B', 'A', 'K', 'E'), /* optional: placement, bone mode, clip evidence */
    CROWD_TAG_IMPS = CROWD_TAG('I', 'M', 'P', 'S'), /* optional, version 2: the imposter atlas */
    CROWD_TAG_CBND = CROWD_TAG('C', 'B', 'N', 'D'), /* optional, version 3: per-clip bounding spheres */
    CROWD_TAG_MARK = CROWD_TAG('M', 'A', 'R', 'K'), /* optional, version 4: clip markers */
    CROWD_TAG_PUVS = CROWD_TAG('P', 'U', 'V', 'S'), /* optional, version 4: each palette choice's UV transform */
};

/* Versions: the highest any present section needs: 1 the base sections, 2 IMPS, 3 CBND, 4 MARK and PUVS (an older
 * reader must refuse what it would drop, so the writer raises the version only when the file needs
 * it). CROWD_VERSION_MAX is the newest this build reads. */
#define CROWD_VERSION_MIN 1u
#define CROWD_VERSION_IMPOSTERS 2u
#define CROWD_VERSION_CLIP_BOUNDS 3u
#define CROWD_VERSION_MARKERS 4u
#define CROWD_VERSION_PALETTE_UV 4u
#define CROWD_VERSION_MAX CROWD_VERSION_MARKERS

/* MARK: a CROWD_MARK_HEADER_BYTES header (u32 marker_count, u32[3] reserved zero), then
 * marker_count records of u32 name (a STRS offset), u32 clip, f32 time (seconds), u32 reserved
 * zero, sorted by clip, then time. */
#define CROWD_MARK_HEADER_BYTES 16u
#define CROWD_MARK_RECORD_BYTES 16u

/* PUVS: palette_count entries of f32[4] (scale u, scale v, offset u, offset v), one per PALT colour. */
#define CROWD_PUVS_ENTRY_BYTES 16u

/* CBND: a CROWD_CBND_HEADER_BYTES header (u32 clip_count, u32[3] reserved zero), then clip_count
 * records of f32 centre[3], f32 radius. */
#define CROWD_CBND_HEADER_BYTES 16u
#define CROWD_CBND_CLIP_BYTES 16u

/* IMPS: a CROWD_IMPS_HEADER_BYTES header, clip_count CROWD_IMPS_CLIP_BYTES records, then the
 * albedo and the normal atlas (RGBA8, width * height texels each, 16-byte aligned offsets). */
#define CROWD_IMPS_HEADER_BYTES 64u
#define CROWD_IMPS_CLIP_BYTES 32u
enum crowd_imps_field {
    CROWD_IMPS_FRAMES = 0,
    CROWD_IMPS_VIEWS = 4,
    CROWD_IMPS_ELEVATIONS = 8,
    CROWD_IMPS_TILE = 12,
    CROWD_IMPS_WIDTH = 16,
    CROWD_IMPS_HEIGHT = 20,
    CROWD_IMPS_CLIP_COUNT = 24,
    CROWD_IMPS_FLAGS = 28,
    CROWD_IMPS_ELEVATION = 32, /* f32[4] radians; unused entries zero */
    CROWD_IMPS_RESERVED = 48,  /* u32[4] zero */
};

/* Record sizes in bytes. */
#define CROWD_HEAD_BYTES 128u
#define CROWD_CLIP_BYTES 24u
#define CROWD_LOD_BYTES 16u
#define CROWD_BONE_BYTES 56u
#define CROWD_SOCKET_BYTES 56u
#define CROWD_REGION_BYTES 16u
#define CROWD_BAKE_NOTES_BYTES 96u /* BAKE: this header, then clip_count evidence records */
#define CROWD_CLIP_EVIDENCE_BYTES 32u

/* Byte offsets inside the BAKE section's header (docs/format.md). */
enum crowd_bake_field {
    CROWD_BAKE_PLACEMENT = 0, /* f32[12] */
    CROWD_BAKE_FORWARD = 48,
    CROWD_BAKE_FORWARD_DECISION = 52,
    CROWD_BAKE_UP = 56,
    CROWD_BAKE_SCALE_DECISION = 60,
    CROWD_BAKE_GROUND_DECISION = 64,
    CROWD_BAKE_BONE_MODE = 68,
    CROWD_BAKE_BONE_ERROR = 72,
    CROWD_BAKE_HEIGHT = 76,
    CROWD_BAKE_GROUND_OFFSET = 80,
    CROWD_BAKE_HOVER = 84,
    CROWD_BAKE_CLIP_COUNT = 88,
    CROWD_BAKE_RESERVED = 92, /* u32 zero */
};

/* Byte offsets inside HEAD. */
enum crowd_head_field {
    CROWD_HEAD_FLAGS = 0,
    CROWD_HEAD_VERTEX_COUNT = 4,
    CROWD_HEAD_FRAME_COUNT = 8,
    CROWD_HEAD_INDEX_COUNT = 12,
    CROWD_HEAD_BONE_COUNT = 16,
    CROWD_HEAD_CLIP_COUNT = 20,
    CROWD_HEAD_LOD_COUNT = 24,
    CROWD_HEAD_SOCKET_COUNT = 28,
    CROWD_HEAD_REGION_COUNT = 32,
    CROWD_HEAD_PALETTE_COUNT = 36,
    CROWD_HEAD_POSITION_ENCODING = 40,
    CROWD_HEAD_NORMAL_ENCODING = 44,
    CROWD_HEAD_BOUNDS_MIN = 48,
    CROWD_HEAD_BOUNDS_MAX = 60,
    CROWD_HEAD_SPHERE_CENTER_Y = 72,
    CROWD_HEAD_SPHERE_RADIUS = 76,
    CROWD_HEAD_VAT_WIDTH = 80,
    CROWD_HEAD_VAT_HEIGHT = 84,
    CROWD_HEAD_BONE_TEX_WIDTH = 88,
    CROWD_HEAD_BONE_TEX_HEIGHT = 92,
    CROWD_HEAD_SOURCE_KIND = 96,
    CROWD_HEAD_SOURCE_NAME = 100,
    CROWD_HEAD_BAKE_FPS = 104,
    CROWD_HEAD_ALBEDO_WIDTH = 108,
    CROWD_HEAD_ALBEDO_HEIGHT = 112,
    CROWD_HEAD_UNIT_SCALE = 116,
    CROWD_HEAD_RESERVED = 120, /* up to CROWD_HEAD_BYTES: zero */
};

/* Little-endian field access; the container is little-endian on every host. */
static inline uint16_t crowd_rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t crowd_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t crowd_rd64(const uint8_t *p)
{
    return (uint64_t)crowd_rd32(p) | (uint64_t)crowd_rd32(p + 4) << 32;
}
static inline float crowd_rdf32(const uint8_t *p)
{
    uint32_t u = crowd_rd32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline void crowd_wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void crowd_wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void crowd_wr64(uint8_t *p, uint64_t v)
{
    crowd_wr32(p, (uint32_t)v);
    crowd_wr32(p + 4, (uint32_t)(v >> 32));
}
static inline void crowd_wrf32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    crowd_wr32(p, u);
}

static inline uint64_t crowd_align16(uint64_t v)
{
    return (v + 15u) & ~(uint64_t)15u;
}

/* "HEAD" for diagnostics. */
static inline void crowd_tag_name(uint32_t tag, char out[5])
{
    for (int i = 0; i < 4; i++) {
        char c = (char)(tag >> (8 * i));
        out[i] = (c >= 32 && c < 127) ? c : '?';
    }
    out[4] = '\0';
}

#endif
