/* Loading a .crowd asset: the container is checked by container_read.c; this file checks what the
 * sections mean (counts, ranges, indices, encodings) and builds the crowd_asset view. */
#include "crowdbake/asset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/asset_clip_bounds.h"
#include "core/asset_imposters.h"
#include "core/asset_markers.h"
#include "core/asset_notes.h"
#include "core/container_read.h"
#include "core/error.h"
#include "core/file_read.h"
#include "core/half.h"

/* Everything the loader allocates, in one block so crowd_asset_free is one crowd_free(). */
typedef struct asset_storage {
    void *file_bytes; /* owned copy of the file, or NULL when the caller's memory is borrowed */
    crowd_clip *clips;
    crowd_lod *lods;
    crowd_bone *bones;
    crowd_socket *sockets;
    crowd_region *regions;
    crowd_imposter_clip *imposter_clips;
    crowd_marker *markers; /* MARK's table, allocated once its count is known (crowd_free'd) */
} asset_storage;

/* Parsing state: the sections and the string table. */
typedef struct loader {
    crowd_container_view view;
    const uint8_t *strings;
    uint64_t strings_size;
    uint64_t used; /* bit i: view.sections[i] was claimed by the header's layout */
    crowd_error *error;
} loader;

/* Finite and at most CROWD_MAX_COORDINATE in magnitude (false for NaN). */
static bool sane(float v)
{
    return fabsf(v) <= CROWD_MAX_COORDINATE;
}

static bool sane_n(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!sane(v[i]))
            return false;
    return true;
}

static const crowd_section_view *claim(loader *ld, uint32_t tag)
{
    const crowd_section_view *s = crowd_container_find(&ld->view, tag);
    if (s)
        ld->used |= 1ull << (s - ld->view.sections);
    return s;
}

/* A section that must hold exactly `count` records of `record` bytes when `present`, and must be
 * absent otherwise (the header's flags and counts decide which). */
static crowd_result expect_section(loader *ld, uint32_t tag, bool present, uint64_t count, uint64_t record,
                                   const uint8_t **out)
{
    char name[5];
    crowd_tag_name(tag, name);
    const crowd_section_view *s = claim(ld, tag);
    *out = NULL;
    if (!s) {
        if (present)
            return crowd_fail(ld->error, CROWD_ERROR_MISSING, "required section %s is missing", name);
        return CROWD_OK;
    }
    if (!present)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "section %s is present but the header says the asset has none", name);
    if (record != 0 && count > UINT64_MAX / record)
        return crowd_fail(ld->error, CROWD_ERROR_OVERFLOW, "section %s: %llu records overflow", name,
                          (unsigned long long)count);
    if (s->size != count * record)
        return crowd_fail(ld->error, CROWD_ERROR_OVERFLOW,
                          "section %s is %llu bytes; %llu records of %llu bytes need %llu", name,
                          (unsigned long long)s->size, (unsigned long long)count, (unsigned long long)record,
                          (unsigned long long)(count * record));
    *out = s->data;
    return CROWD_OK;
}

static crowd_result read_string(loader *ld, uint32_t offset, const char **out, const char *what)
{
    if (offset >= ld->strings_size)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "%s: string offset %u outside the %llu-byte string table", what, offset,
                          (unsigned long long)ld->strings_size);
    *out = (const char *)ld->strings + offset;
    return CROWD_OK;
}

static crowd_result load_strings(loader *ld)
{
    const crowd_section_view *s = claim(ld, CROWD_TAG_STRS);
    if (!s)
        return crowd_fail(ld->error, CROWD_ERROR_MISSING, "required section STRS is missing");
    if (s->size == 0 || s->data[s->size - 1] != 0)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "string table must be non-empty and end with a NUL byte");
    ld->strings = s->data;
    ld->strings_size = s->size;
    return CROWD_OK;
}

/* ---- header ---------------------------------------------------------------------------------- */

static crowd_result check_count(loader *ld, const char *what, uint32_t value, uint32_t min, uint32_t max)
{
    if (value < min || value > max)
        return crowd_fail(ld->error, CROWD_ERROR_LIMIT, "header: %s %u outside %u..%u", what, value, min, max);
    return CROWD_OK;
}

typedef struct texture_dims {
    uint32_t vat_w, vat_h, bone_w, bone_h, albedo_w, albedo_h;
} texture_dims;

/* The header's fields as stored; nothing checked yet. */
static void read_head(const uint8_t *h, crowd_asset *a, texture_dims *dims)
{
    a->flags = crowd_rd32(h + CROWD_HEAD_FLAGS);
    a->vertex_count = crowd_rd32(h + CROWD_HEAD_VERTEX_COUNT);
    a->frame_count = crowd_rd32(h + CROWD_HEAD_FRAME_COUNT);
    a->index_count = crowd_rd32(h + CROWD_HEAD_INDEX_COUNT);
    a->bone_count = crowd_rd32(h + CROWD_HEAD_BONE_COUNT);
    a->clip_count = crowd_rd32(h + CROWD_HEAD_CLIP_COUNT);
    a->lod_count = crowd_rd32(h + CROWD_HEAD_LOD_COUNT);
    a->socket_count = crowd_rd32(h + CROWD_HEAD_SOCKET_COUNT);
    a->region_count = crowd_rd32(h + CROWD_HEAD_REGION_COUNT);
    a->palette_count = crowd_rd32(h + CROWD_HEAD_PALETTE_COUNT);
    a->position_encoding = (crowd_position_encoding)crowd_rd32(h + CROWD_HEAD_POSITION_ENCODING);
    a->normal_encoding = (crowd_normal_encoding)crowd_rd32(h + CROWD_HEAD_NORMAL_ENCODING);
    for (int i = 0; i < 3; i++) {
        a->bounds_min[i] = crowd_rdf32(h + CROWD_HEAD_BOUNDS_MIN + 4 * i);
        a->bounds_max[i] = crowd_rdf32(h + CROWD_HEAD_BOUNDS_MAX + 4 * i);
    }
    a->sphere_center_y = crowd_rdf32(h + CROWD_HEAD_SPHERE_CENTER_Y);
    a->sphere_radius = crowd_rdf32(h + CROWD_HEAD_SPHERE_RADIUS);
    dims->vat_w = crowd_rd32(h + CROWD_HEAD_VAT_WIDTH);
    dims->vat_h = crowd_rd32(h + CROWD_HEAD_VAT_HEIGHT);
    dims->bone_w = crowd_rd32(h + CROWD_HEAD_BONE_TEX_WIDTH);
    dims->bone_h = crowd_rd32(h + CROWD_HEAD_BONE_TEX_HEIGHT);
    dims->albedo_w = crowd_rd32(h + CROWD_HEAD_ALBEDO_WIDTH);
    dims->albedo_h = crowd_rd32(h + CROWD_HEAD_ALBEDO_HEIGHT);
    a->source_kind = (crowd_source_kind)crowd_rd32(h + CROWD_HEAD_SOURCE_KIND);
    a->bake_fps = crowd_rdf32(h + CROWD_HEAD_BAKE_FPS);
    a->unit_scale = crowd_rdf32(h + CROWD_HEAD_UNIT_SCALE);
}

/* Known flags that agree with each other and with the counts; every count within its limit. */
static crowd_result check_head_counts(loader *ld, const crowd_asset *a)
{
    const uint32_t known_flags = CROWD_ASSET_HAS_BONES | CROWD_ASSET_HAS_TANGENTS | CROWD_ASSET_HAS_UVS |
                                 CROWD_ASSET_HAS_COLORS | CROWD_ASSET_HAS_ALBEDO;
    if (a->flags & ~known_flags)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: unknown flags 0x%x", a->flags & ~known_flags);
    bool bones = a->flags & CROWD_ASSET_HAS_BONES;
    if ((a->flags & CROWD_ASSET_HAS_ALBEDO) && !(a->flags & CROWD_ASSET_HAS_UVS))
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: an albedo texture without UVs");
    if (!bones && a->bone_count != 0)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "header: bone_count %u but flags lack HAS_BONES (bone_count must be 0 without bones)",
                          a->bone_count);
    crowd_result r;
    if ((r = check_count(ld, "vertex_count", a->vertex_count, 1, CROWD_MAX_VERTICES)) ||
        (r = check_count(ld, "index_count", a->index_count, 3, CROWD_MAX_INDICES)) ||
        (r = check_count(ld, "clip_count", a->clip_count, 1, CROWD_MAX_CLIPS)) ||
        (r = check_count(ld, "lod_count", a->lod_count, 1, CROWD_MAX_LODS)) ||
        (r = check_count(ld, "bone_count", a->bone_count, bones ? 1 : 0, CROWD_MAX_BONES)) ||
        (r = check_count(ld, "socket_count", a->socket_count, 0, bones ? CROWD_MAX_SOCKETS : 0)) ||
        (r = check_count(ld, "region_count", a->region_count, 1, CROWD_MAX_REGIONS)) ||
        (r = check_count(ld, "palette_count", a->palette_count, 1, CROWD_MAX_PALETTE)))
        return r;
    if ((uint64_t)a->frame_count == 0 || (uint64_t)a->frame_count > (uint64_t)a->clip_count * CROWD_MAX_FRAMES_PER_CLIP)
        return crowd_fail(ld->error, CROWD_ERROR_LIMIT, "header: frame_count %u outside 1..%llu", a->frame_count,
                          (unsigned long long)a->clip_count * CROWD_MAX_FRAMES_PER_CLIP);
    return CROWD_OK;
}

/* A position encoding this reader knows, with a normal encoding that goes with it. */
static crowd_result check_head_encodings(loader *ld, const crowd_asset *a)
{
    bool u16 = a->position_encoding == CROWD_POSITION_U16_BOX;
    bool f16 = a->position_encoding == CROWD_POSITION_F16_BOX;
    if (!u16 && !f16)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: unknown position encoding %u",
                          (unsigned)a->position_encoding);
    bool normal_ok = u16 ? (a->normal_encoding == CROWD_NORMAL_OCT16 || a->normal_encoding == CROWD_NORMAL_OCT8_IN_W)
                         : a->normal_encoding == CROWD_NORMAL_OCT_F16;
    if (!normal_ok)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "header: normal encoding %u cannot go with position encoding %u",
                          (unsigned)a->normal_encoding, (unsigned)a->position_encoding);
    return CROWD_OK;
}

/* Bounds, sphere, rates and scale finite and in range; a source kind this reader knows. */
static crowd_result check_head_values(loader *ld, const crowd_asset *a)
{
    for (int i = 0; i < 3; i++)
        if (!sane(a->bounds_min[i]) || !sane(a->bounds_max[i]))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "header: bounds[%d] %g .. %g not finite or beyond +-%g m", i, (double)a->bounds_min[i],
                              (double)a->bounds_max[i], (double)CROWD_MAX_COORDINATE);
    /* the sphere holds the box under any yaw: at most a few box diagonals */
    if (!sane(a->sphere_center_y) || !(a->sphere_radius >= 0.0f && a->sphere_radius <= 4.0f * CROWD_MAX_COORDINATE))
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "header: sphere centre y %g / radius %g not finite or out of range",
                          (double)a->sphere_center_y, (double)a->sphere_radius);
    if (!(a->bake_fps >= 0.0f && a->bake_fps <= 1e4f))
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: bake_fps %g outside 0..10000",
                          (double)a->bake_fps);
    if (!(a->unit_scale >= 1e-4f && a->unit_scale <= 1e4f))
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: unit_scale %g outside 0.0001..10000",
                          (double)a->unit_scale);
    for (int i = 0; i < 3; i++)
        if (a->bounds_max[i] < a->bounds_min[i])
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: bounds_max[%d] < bounds_min[%d]", i, i);
    /* The box is the vertices' own, so a vertex lies on each of its faces and the sphere reaches
     * every face. The vertices between are the writer's word: checking each would decode every
     * texel of the file on every load (asset.h: sphere_radius). */
    double reach = fmax(a->bounds_max[1] - (double)a->sphere_center_y, a->sphere_center_y - (double)a->bounds_min[1]);
    for (int i = 0; i < 3; i += 2)
        reach = fmax(reach, fmax(fabs(a->bounds_min[i]), fabs(a->bounds_max[i])));
    if (a->sphere_radius < reach * (1.0 - 1e-6))
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "header: sphere radius %g does not reach the decode box's faces (%g from (0, %g, 0))",
                          (double)a->sphere_radius, reach, (double)a->sphere_center_y);
    if (a->source_kind != CROWD_SOURCE_PROCEDURAL && a->source_kind != CROWD_SOURCE_GLTF &&
        a->source_kind != CROWD_SOURCE_FRAMES)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: unknown source kind %u",
                          (unsigned)a->source_kind);
    return CROWD_OK;
}

static crowd_result load_head(loader *ld, crowd_asset *a, texture_dims *dims)
{
    const uint8_t *h;
    crowd_result r = expect_section(ld, CROWD_TAG_HEAD, true, 1, CROWD_HEAD_BYTES, &h);
    if (r != CROWD_OK)
        return r;
    read_head(h, a, dims);
    for (uint32_t i = CROWD_HEAD_RESERVED; i < CROWD_HEAD_BYTES; i++)
        if (h[i] != 0)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: reserved byte %u is not zero", i);
    if ((r = check_head_counts(ld, a)) || (r = check_head_encodings(ld, a)) || (r = check_head_values(ld, a)))
        return r;
    return read_string(ld, crowd_rd32(h + CROWD_HEAD_SOURCE_NAME), &a->source_name, "header.source_name");
}

/* ---- textures -------------------------------------------------------------------------------- */

static uint32_t texel_bytes_of(crowd_texel_format format)
{
    switch (format) {
    case CROWD_TEXEL_RGBA16UI:
    case CROWD_TEXEL_RGBA16F:
        return 8;
    case CROWD_TEXEL_RG16UI:
    case CROWD_TEXEL_RG16F:
    case CROWD_TEXEL_RGBA8:
        return 4;
    case CROWD_TEXEL_RGBA32F:
        return 16;
    }
    return 0;
}

static crowd_result load_texture(loader *ld, uint32_t tag, bool present, uint32_t width, uint32_t height,
                                 uint64_t texels_needed, crowd_texel_format format, crowd_texture *out)
{
    char name[5];
    crowd_tag_name(tag, name);
    if (present) {
        if (width == 0 || height == 0 || width > CROWD_MAX_TEXTURE_DIM || height > CROWD_MAX_TEXTURE_DIM)
            return crowd_fail(ld->error, CROWD_ERROR_LIMIT, "texture %s: %u x %u outside 1..%u per side", name, width,
                              height, CROWD_MAX_TEXTURE_DIM);
        if ((uint64_t)width * height < texels_needed)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "texture %s: %u x %u texels cannot hold the %llu the layout needs", name, width, height,
                              (unsigned long long)texels_needed);
    }
    const uint8_t *data;
    uint32_t texel = texel_bytes_of(format);
    crowd_result r = expect_section(ld, tag, present, (uint64_t)width * height, texel, &data);
    if (r != CROWD_OK || !present)
        return r;
    out->width = width;
    out->height = height;
    out->format = format;
    out->texel_bytes = texel;
    out->data = data;
    out->bytes = (uint64_t)width * height * texel;
    return CROWD_OK;
}

static crowd_result load_textures(loader *ld, crowd_asset *a, const texture_dims *d)
{
    uint32_t vat_w = d->vat_w, vat_h = d->vat_h, bone_w = d->bone_w, bone_h = d->bone_h;
    uint64_t vat_texels = (uint64_t)a->vertex_count * a->frame_count;
    bool f16 = a->position_encoding == CROWD_POSITION_F16_BOX;
    bool normal_texture = a->normal_encoding != CROWD_NORMAL_OCT8_IN_W;
    bool bones = a->flags & CROWD_ASSET_HAS_BONES;
    crowd_result r;
    if ((r = load_texture(ld, CROWD_TAG_TPOS, true, vat_w, vat_h, vat_texels,
                          f16 ? CROWD_TEXEL_RGBA16F : CROWD_TEXEL_RGBA16UI, &a->positions)) ||
        (r = load_texture(ld, CROWD_TAG_TNRM, normal_texture, vat_w, vat_h, vat_texels,
                          f16 ? CROWD_TEXEL_RG16F : CROWD_TEXEL_RG16UI, &a->normals)) ||
        (r = load_texture(ld, CROWD_TAG_TTAN, a->flags & CROWD_ASSET_HAS_TANGENTS, vat_w, vat_h, vat_texels,
                          CROWD_TEXEL_RG16UI, &a->tangents)))
        return r;
    uint64_t bone_texels = (uint64_t)a->frame_count * a->bone_count * 3u;
    if (!bones && (bone_w || bone_h))
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: bone texture size without bones");
    if ((r = load_texture(ld, CROWD_TAG_TBON, bones, bone_w, bone_h, bone_texels, CROWD_TEXEL_RGBA32F, &a->bones)))
        return r;
    bool albedo = a->flags & CROWD_ASSET_HAS_ALBEDO;
    if (!albedo && (d->albedo_w || d->albedo_h))
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "header: albedo size without an albedo texture");
    return load_texture(ld, CROWD_TAG_TALB, albedo, d->albedo_w, d->albedo_h, 1, CROWD_TEXEL_RGBA8, &a->albedo);
}

/* Texture contents. The integer textures decode inside the box whatever they hold; the float ones
 * are scanned once here so no decode (CPU or GPU) can meet a NaN, an infinity or a point outside
 * the decode box. Padding texels are scanned too: they are uploaded like the rest. */

#define HALF_ONE 0x3C00u                 /* 1.0 as a half: larger magnitudes (inf and NaN included) fail */
#define FLOAT_MAX_COORDINATE 0x49742400u /* bits of 1e6f == CROWD_MAX_COORDINATE */

static void texel_place(char *where, size_t size, uint64_t texel, uint64_t per_frame, uint64_t needed, const char *item)
{
    if (texel >= needed)
        snprintf(where, size, "texel %llu (padding)", (unsigned long long)texel);
    else
        snprintf(where, size, "texel %llu (frame %llu, %s %llu)", (unsigned long long)texel,
                 (unsigned long long)(texel / per_frame), item, (unsigned long long)(texel % per_frame));
}

/* Fast passes first: branch-free loops the compiler vectorises (an fp16 bake of the humanoid
 * holds about 7 MB of half floats); the texel-by-texel loops after them only run to name the bad
 * value. */
static bool any_half_outside_unit(const uint16_t *h, uint64_t n)
{
    unsigned bad = 0;
    for (uint64_t i = 0; i < n; i++)
        bad |= (unsigned)(h[i] > HALF_ONE) & (unsigned)(h[i] != 0x8000u);
    return bad != 0;
}

static bool any_half_beyond_one(const uint16_t *h, uint64_t n)
{
    unsigned bad = 0;
    for (uint64_t i = 0; i < n; i++)
        bad |= (unsigned)((h[i] & 0x7FFFu) > HALF_ONE);
    return bad != 0;
}

static bool any_float_beyond(const float *f, uint64_t n)
{
    unsigned bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, f + i, sizeof u);
        bad |= (unsigned)((u & 0x7FFFFFFFu) > FLOAT_MAX_COORDINATE);
    }
    return bad != 0;
}

static crowd_result check_f16_positions(loader *ld, const crowd_asset *a)
{
    const uint16_t *h = a->positions.data;
    uint64_t texels = (uint64_t)a->positions.width * a->positions.height;
    /* w is written as 0 and held to the same rule, so one flat pass covers every channel */
    if (!any_half_outside_unit(h, texels * 4))
        return CROWD_OK;
    for (uint64_t t = 0; t < texels; t++, h += 4) {
        /* the box-normalised position must lie in [0, 1]: +0 .. 1.0, or -0 */
        int k = 0;
        while (k < 4 && (h[k] <= HALF_ONE || h[k] == 0x8000u))
            k++;
        if (k == 4)
            continue;
        char where[96];
        texel_place(where, sizeof where, t, a->vertex_count, (uint64_t)a->vertex_count * a->frame_count, "vertex");
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "texture TPOS %s: %c = %g (half 0x%04x) is outside the decode box's [0, 1]", where, "xyzw"[k],
                          (double)crowd_half_to_float(h[k]), h[k]);
    }
    return CROWD_OK;
}

static crowd_result check_f16_normals(loader *ld, const crowd_asset *a)
{
    const uint16_t *h = a->normals.data;
    uint64_t texels = (uint64_t)a->normals.width * a->normals.height;
    if (!any_half_beyond_one(h, texels * 2))
        return CROWD_OK;
    for (uint64_t t = 0; t < texels; t++, h += 2) {
        if ((h[0] & 0x7FFFu) <= HALF_ONE && (h[1] & 0x7FFFu) <= HALF_ONE)
            continue;
        int k = (h[0] & 0x7FFFu) <= HALF_ONE;
        char where[96];
        texel_place(where, sizeof where, t, a->vertex_count, (uint64_t)a->vertex_count * a->frame_count, "vertex");
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "texture TNRM %s: octahedral %c = %g (half 0x%04x) is outside [-1, 1]", where, "xy"[k],
                          (double)crowd_half_to_float(h[k]), h[k]);
    }
    return CROWD_OK;
}

static crowd_result check_bone_texture(loader *ld, const crowd_asset *a)
{
    const uint8_t *p = a->bones.data;
    uint64_t values = (uint64_t)a->bones.width * a->bones.height * 4u;
    if (!any_float_beyond(a->bones.data, values))
        return CROWD_OK;
    for (uint64_t i = 0; i < values; i++, p += 4) {
        if ((crowd_rd32(p) & 0x7FFFFFFFu) <= FLOAT_MAX_COORDINATE)
            continue;
        uint64_t texel = i / 4, needed = (uint64_t)a->frame_count * a->bone_count * 3u;
        char where[112];
        if (texel >= needed)
            snprintf(where, sizeof where, "texel %llu (padding)", (unsigned long long)texel);
        else
            snprintf(where, sizeof where, "texel %llu (frame %llu, bone %llu, row %llu)", (unsigned long long)texel,
                     (unsigned long long)(texel / 3 / a->bone_count), (unsigned long long)(texel / 3 % a->bone_count),
                     (unsigned long long)(texel % 3));
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "texture TBON %s: %c = %g is not finite or beyond +-%g",
                          where, "xyzw"[i % 4], (double)crowd_rdf32(p), (double)CROWD_MAX_COORDINATE);
    }
    return CROWD_OK;
}

static crowd_result check_texture_values(loader *ld, const crowd_asset *a)
{
    crowd_result r = CROWD_OK;
    if (a->position_encoding == CROWD_POSITION_F16_BOX &&
        ((r = check_f16_positions(ld, a)) || (r = check_f16_normals(ld, a))))
        return r;
    if (a->bones.data)
        r = check_bone_texture(ld, a);
    return r;
}

/* ---- per-vertex streams and indices ---------------------------------------------------------- */

static crowd_result load_streams(loader *ld, crowd_asset *a)
{
    const uint64_t vc = a->vertex_count;
    bool bones = a->flags & CROWD_ASSET_HAS_BONES;
    const uint8_t *pos, *nrm, *uv, *col, *reg, *jnt, *wgt, *idx;
    crowd_result r;
    if ((r = expect_section(ld, CROWD_TAG_VPOS, true, vc, 12, &pos)) ||
        (r = expect_section(ld, CROWD_TAG_VNRM, true, vc, 12, &nrm)) ||
        (r = expect_section(ld, CROWD_TAG_VUV0, a->flags & CROWD_ASSET_HAS_UVS, vc, 8, &uv)) ||
        (r = expect_section(ld, CROWD_TAG_VCOL, a->flags & CROWD_ASSET_HAS_COLORS, vc, 4, &col)) ||
        (r = expect_section(ld, CROWD_TAG_VREG, true, vc, 1, &reg)) ||
        (r = expect_section(ld, CROWD_TAG_SJNT, bones, vc, 8, &jnt)) ||
        (r = expect_section(ld, CROWD_TAG_SWGT, bones, vc, 8, &wgt)) ||
        (r = expect_section(ld, CROWD_TAG_INDX, true, a->index_count, 4, &idx)))
        return r;

    a->bind_positions = (const float *)pos;
    a->bind_normals = (const float *)nrm;
    a->uvs = (const float *)uv;
    a->colors = col;
    a->regions = reg;
    a->joints = (const uint16_t *)jnt;
    a->weights = (const uint16_t *)wgt;
    a->indices = (const uint32_t *)idx;

    for (uint32_t v = 0; v < a->vertex_count; v++) {
        if (!sane_n(a->bind_positions + 3 * v, 3) || !sane_n(a->bind_normals + 3 * v, 3))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "vertices[%u]: bind position/normal not finite or beyond +-%g", v,
                              (double)CROWD_MAX_COORDINATE);
        if (a->uvs && !sane_n(a->uvs + 2 * v, 2))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "vertices[%u]: uv not finite or beyond +-%g", v,
                              (double)CROWD_MAX_COORDINATE);
        if (a->regions[v] >= a->region_count)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "vertices[%u]: region %u out of range (%u regions)",
                              v, a->regions[v], a->region_count);
        if (!bones)
            continue;
        uint32_t sum = 0;
        for (uint32_t k = 0; k < CROWD_INFLUENCES; k++) {
            uint16_t joint = a->joints[CROWD_INFLUENCES * v + k];
            if (joint >= a->bone_count)
                return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                                  "vertices[%u].joints[%u]: bone %u out of range (%u bones)", v, k, joint,
                                  a->bone_count);
            sum += a->weights[CROWD_INFLUENCES * v + k];
        }
        if (sum != 65535u)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "vertices[%u].weights: sum to %u, expected 65535", v,
                              sum);
    }
    if (a->index_count % 3 != 0)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "index_count %u is not a multiple of 3", a->index_count);
    for (uint32_t i = 0; i < a->index_count; i++)
        if (a->indices[i] >= a->vertex_count)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "indices[%u]: vertex %u out of range (%u vertices)",
                              i, a->indices[i], a->vertex_count);
    return CROWD_OK;
}

/* ---- manifest tables ------------------------------------------------------------------------- */

static crowd_result load_clips(loader *ld, crowd_asset *a, crowd_clip *clips)
{
    const uint8_t *rec;
    crowd_result r = expect_section(ld, CROWD_TAG_CLIP, true, a->clip_count, CROWD_CLIP_BYTES, &rec);
    if (r != CROWD_OK)
        return r;
    uint64_t next_frame = 0;
    for (uint32_t i = 0; i < a->clip_count; i++, rec += CROWD_CLIP_BYTES) {
        crowd_clip *c = &clips[i];
        char what[32];
        snprintf(what, sizeof what, "clips[%u].name", i);
        if ((r = read_string(ld, crowd_rd32(rec), &c->name, what)) != CROWD_OK)
            return r;
        c->first_frame = crowd_rd32(rec + 4);
        c->frame_count = crowd_rd32(rec + 8);
        c->flags = crowd_rd32(rec + 12);
        c->duration = crowd_rdf32(rec + 16);
        c->stride = crowd_rdf32(rec + 20);
        if (c->first_frame != next_frame)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "clips[%u] \"%s\": first_frame %u, expected %llu (clips tile the frames in order)", i,
                              c->name, c->first_frame, (unsigned long long)next_frame);
        if (c->frame_count == 0 || c->frame_count > CROWD_MAX_FRAMES_PER_CLIP)
            return crowd_fail(ld->error, CROWD_ERROR_LIMIT, "clips[%u] \"%s\": frame_count %u outside 1..%u", i,
                              c->name, c->frame_count, CROWD_MAX_FRAMES_PER_CLIP);
        next_frame += c->frame_count;
        if (next_frame > a->frame_count)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "clips[%u] \"%s\": frames %u..%llu past the %u frames in the texture", i, c->name,
                              c->first_frame, (unsigned long long)next_frame - 1, a->frame_count);
        if (c->flags & ~(uint32_t)(CROWD_CLIP_LOOP | CROWD_CLIP_LOCOMOTION | CROWD_CLIP_ROLE_MASK) ||
            crowd_clip_role_of(c) != (c->flags & CROWD_CLIP_ROLE_MASK) >> CROWD_CLIP_ROLE_SHIFT)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "clips[%u]: unknown flags 0x%x", i, c->flags);
        /* tiny non-zero values are refused too: rates divide by them */
        if (!(c->duration == 0.0f || (c->duration >= 1e-6f && c->duration <= 1e6f)))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "clips[%u] \"%s\": duration %g s must be 0 or in 1e-6..1e6", i, c->name,
                              (double)c->duration);
        if (!(c->stride == 0.0f || (c->stride >= 1e-6f && c->stride <= CROWD_MAX_COORDINATE)))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "clips[%u] \"%s\": stride %g m must be 0 or in 1e-6..1e6", i, c->name, (double)c->stride);
        if (((c->flags & CROWD_CLIP_LOCOMOTION) != 0) != (c->stride > 0.0f))
            return crowd_fail(
                ld->error, CROWD_ERROR_INVALID_DATA,
                "clips[%u] \"%s\": flag LOCOMOTION %s but stride is %g (a travelling clip has stride > 0)", i, c->name,
                (c->flags & CROWD_CLIP_LOCOMOTION) ? "set" : "clear", (double)c->stride);
    }
    if (next_frame != a->frame_count)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "clips cover %llu frames, the texture holds %u",
                          (unsigned long long)next_frame, a->frame_count);
    return CROWD_OK;
}

static crowd_result load_lods(loader *ld, crowd_asset *a, crowd_lod *lods)
{
    const uint8_t *rec;
    crowd_result r = expect_section(ld, CROWD_TAG_LODS, true, a->lod_count, CROWD_LOD_BYTES, &rec);
    if (r != CROWD_OK)
        return r;
    for (uint32_t i = 0; i < a->lod_count; i++, rec += CROWD_LOD_BYTES) {
        crowd_lod *l = &lods[i];
        l->first_index = crowd_rd32(rec);
        l->index_count = crowd_rd32(rec + 4);
        l->triangle_count = crowd_rd32(rec + 8);
        l->screen_coverage = crowd_rdf32(rec + 12);
        if ((uint64_t)l->first_index + l->index_count > a->index_count)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "lods[%u]: indices %u + %u past the %u in INDX", i,
                              l->first_index, l->index_count, a->index_count);
        if (l->index_count == 0 || (uint64_t)l->index_count != 3ull * l->triangle_count)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "lods[%u]: %u indices do not make %u triangles", i,
                              l->index_count, l->triangle_count);
        if (i > 0 && l->triangle_count > lods[i - 1].triangle_count)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "lods[%u]: %u triangles, more than level %u's %u", i,
                              l->triangle_count, i - 1, lods[i - 1].triangle_count);
        if (!(l->screen_coverage >= 0.0f && l->screen_coverage <= 1e6f))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "lods[%u]: screen_coverage %g not in 0..1e6", i,
                              (double)l->screen_coverage);
    }
    return CROWD_OK;
}

static crowd_result load_bones(loader *ld, crowd_asset *a, crowd_bone *bones)
{
    const uint8_t *rec;
    crowd_result r = expect_section(ld, CROWD_TAG_BONE, a->bone_count > 0, a->bone_count, CROWD_BONE_BYTES, &rec);
    if (r != CROWD_OK)
        return r;
    for (uint32_t i = 0; i < a->bone_count; i++, rec += CROWD_BONE_BYTES) {
        crowd_bone *b = &bones[i];
        char what[32];
        snprintf(what, sizeof what, "bones[%u].name", i);
        if ((r = read_string(ld, crowd_rd32(rec), &b->name, what)) != CROWD_OK)
            return r;
        b->parent = (int32_t)crowd_rd32(rec + 4);
        for (int k = 0; k < 12; k++)
            b->bind[k] = crowd_rdf32(rec + 8 + 4 * k);
        if (b->parent < -1 || b->parent >= (int32_t)i)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "bones[%u] \"%s\": parent %d must be -1 or an earlier bone", i, b->name, b->parent);
        if (!sane_n(b->bind, 12))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "bones[%u] \"%s\": bind matrix not finite or beyond +-%g", i, b->name,
                              (double)CROWD_MAX_COORDINATE);
    }
    return CROWD_OK;
}

static crowd_result load_sockets(loader *ld, crowd_asset *a, crowd_socket *sockets)
{
    const uint8_t *rec;
    crowd_result r = expect_section(ld, CROWD_TAG_SOCK, a->socket_count > 0, a->socket_count, CROWD_SOCKET_BYTES, &rec);
    if (r != CROWD_OK)
        return r;
    for (uint32_t i = 0; i < a->socket_count; i++, rec += CROWD_SOCKET_BYTES) {
        crowd_socket *s = &sockets[i];
        char what[32];
        snprintf(what, sizeof what, "sockets[%u].name", i);
        if ((r = read_string(ld, crowd_rd32(rec), &s->name, what)) != CROWD_OK)
            return r;
        s->bone = crowd_rd32(rec + 4);
        for (int k = 0; k < 12; k++)
            s->offset[k] = crowd_rdf32(rec + 8 + 4 * k);
        if (s->bone >= a->bone_count)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "sockets[%u] \"%s\": bone %u out of range (%u bones)", i, s->name, s->bone,
                              a->bone_count);
        if (!sane_n(s->offset, 12))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "sockets[%u] \"%s\": offset not finite or beyond +-%g", i, s->name,
                              (double)CROWD_MAX_COORDINATE);
    }
    return CROWD_OK;
}

static crowd_result load_regions(loader *ld, crowd_asset *a, crowd_region *regions)
{
    const uint8_t *rec;
    crowd_result r = expect_section(ld, CROWD_TAG_REGN, true, a->region_count, CROWD_REGION_BYTES, &rec);
    if (r == CROWD_OK)
        r = expect_section(ld, CROWD_TAG_PALT, true, a->palette_count, 4, &a->palette);
    if (r != CROWD_OK)
        return r;
    for (uint32_t i = 0; i < a->region_count; i++, rec += CROWD_REGION_BYTES) {
        crowd_region *g = &regions[i];
        char what[32];
        snprintf(what, sizeof what, "regions[%u].name", i);
        if ((r = read_string(ld, crowd_rd32(rec), &g->name, what)) != CROWD_OK)
            return r;
        g->palette_first = crowd_rd32(rec + 4);
        g->palette_count = crowd_rd32(rec + 8);
        g->flags = crowd_rd32(rec + 12);
        if (g->flags & ~(uint32_t)CROWD_REGION_TEXTURED)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "regions[%u]: unknown flags 0x%x", i, g->flags);
        if ((g->flags & CROWD_REGION_TEXTURED) && !(a->flags & CROWD_ASSET_HAS_ALBEDO))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "regions[%u] \"%s\": textured, but the asset has no albedo texture", i, g->name);
        if (g->palette_count == 0 || (uint64_t)g->palette_first + g->palette_count > a->palette_count)
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "regions[%u] \"%s\": palette %u + %u outside the %u colours", i, g->name,
                              g->palette_first, g->palette_count, a->palette_count);
    }
    return CROWD_OK;
}

/* The header decides which sections exist; one it did not ask for is an error (a newer writer's
 * data this reader would silently drop, or a header that disowns what the file carries). */
static crowd_result check_every_section_claimed(loader *ld)
{
    for (uint32_t i = 0; i < ld->view.count; i++) {
        if (ld->used & (1ull << i))
            continue;
        char name[5];
        crowd_tag_name(ld->view.sections[i].tag, name);
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "section %u (%s) is not a section of format version %u",
                          i, name, CROWD_FORMAT_VERSION);
    }
    return CROWD_OK;
}

/* ---- entry points ---------------------------------------------------------------------------- */

static crowd_result allocate_storage(crowd_asset *a, crowd_error *error)
{
    size_t bytes = sizeof(asset_storage) + a->clip_count * sizeof(crowd_clip) + a->lod_count * sizeof(crowd_lod) +
                   a->bone_count * sizeof(crowd_bone) + a->socket_count * sizeof(crowd_socket) +
                   a->region_count * sizeof(crowd_region) + a->clip_count * sizeof(crowd_imposter_clip);
    asset_storage *s = crowd_calloc(1, bytes);
    if (!s)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "out of memory for the asset tables (%zu bytes)", bytes);
    s->clips = (crowd_clip *)(s + 1);
    s->lods = (crowd_lod *)(s->clips + a->clip_count);
    s->bones = (crowd_bone *)(s->lods + a->lod_count);
    s->sockets = (crowd_socket *)(s->bones + a->bone_count);
    s->regions = (crowd_region *)(s->sockets + a->socket_count);
    s->imposter_clips = (crowd_imposter_clip *)(s->regions + a->region_count);
    a->internal_ = s;
    a->clips = s->clips;
    a->lods = s->lods;
    a->bones_info = s->bones;
    a->sockets = s->sockets;
    a->regions_info = s->regions;
    return CROWD_OK;
}

/* The optional BAKE section (a known section of version 1): asset_notes.c knows its layout. */
static crowd_result load_notes(loader *ld, crowd_asset *a)
{
    const crowd_section_view *s = claim(ld, CROWD_TAG_BAKE);
    return s ? crowd_asset_check_notes(a, s->data, s->size, ld->error) : CROWD_OK;
}

/* The optional IMPS section (version 2): asset_imposters.c knows its layout. */
static crowd_result load_imposters(loader *ld, crowd_asset *a)
{
    const crowd_section_view *s = claim(ld, CROWD_TAG_IMPS);
    asset_storage *st = a->internal_;
    return s ? crowd_asset_check_imposters(a, s->data, s->size, ld->view.version, st->imposter_clips, ld->error)
             : CROWD_OK;
}

/* The optional PUVS section (version 4): each palette colour's UV transform (material variants
 * sampling other tiles of the albedo atlas). Without it every choice samples at the vertex UVs. */
static crowd_result load_palette_uv(loader *ld, crowd_asset *a)
{
    const crowd_section_view *s = claim(ld, CROWD_TAG_PUVS);
    if (!s)
        return CROWD_OK;
    if (ld->view.version < CROWD_VERSION_PALETTE_UV)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                          "PUVS section in a version-%u file (palette UV transforms need version %u)", ld->view.version,
                          CROWD_VERSION_PALETTE_UV);
    if (!(a->flags & CROWD_ASSET_HAS_ALBEDO))
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "PUVS: UV transforms, but the asset has no albedo");
    if (s->size != (uint64_t)a->palette_count * CROWD_PUVS_ENTRY_BYTES)
        return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA, "PUVS: %llu bytes; %u palette colours need %llu",
                          (unsigned long long)s->size, a->palette_count,
                          (unsigned long long)a->palette_count * CROWD_PUVS_ENTRY_BYTES);
    const float *values = (const float *)(const void *)s->data;
    for (uint64_t i = 0; i < (uint64_t)a->palette_count * 4; i++)
        if (!(fabsf(values[i]) <= CROWD_MAX_UV_TRANSFORM))
            return crowd_fail(ld->error, CROWD_ERROR_INVALID_DATA,
                              "PUVS: palette colour %llu: value %g not finite or past %g", (unsigned long long)(i / 4),
                              (double)values[i], (double)CROWD_MAX_UV_TRANSFORM);
    a->palette_uv = values;
    return CROWD_OK;
}

/* The optional MARK section (version 4): asset_markers.c knows its layout. */
static crowd_result load_markers(loader *ld, crowd_asset *a)
{
    const crowd_section_view *s = claim(ld, CROWD_TAG_MARK);
    asset_storage *st = a->internal_;
    return s ? crowd_asset_check_markers(a, s->data, s->size, ld->view.version, ld->strings, ld->strings_size,
                                         &st->markers, ld->error)
             : CROWD_OK;
}

/* The optional CBND section (version 3): asset_clip_bounds.c knows its layout. Without it every
 * clip falls back to the asset sphere. */
static crowd_result load_clip_bounds(loader *ld, crowd_asset *a)
{
    const crowd_section_view *s = claim(ld, CROWD_TAG_CBND);
    asset_storage *st = a->internal_;
    crowd_asset_default_clip_bounds(a, st->clips);
    return s ? crowd_asset_check_clip_bounds(a, s->data, s->size, ld->view.version, st->clips, ld->error) : CROWD_OK;
}

crowd_result crowd_asset_load_memory(crowd_asset *asset, const void *data, size_t size, crowd_error *error)
{
    if (!asset || (!data && size))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_asset_load_memory: NULL asset or data");
    memset(asset, 0, sizeof *asset);
    if (size == 0)
        return crowd_fail(error, CROWD_ERROR_TRUNCATED, "empty file");
    if ((uintptr_t)data % CROWD_SECTION_ALIGN != 0)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_asset_load_memory: data must be 16-byte aligned");

    loader ld = {.error = error};
    texture_dims dims;
    asset_storage *s = NULL;
    crowd_result r = crowd_container_read(data, size, &ld.view, error);
    if (r == CROWD_OK)
        r = load_strings(&ld);
    if (r == CROWD_OK)
        r = load_head(&ld, asset, &dims);
    if (r == CROWD_OK)
        r = allocate_storage(asset, error);
    if (r != CROWD_OK)
        goto fail;
    s = asset->internal_;
    if ((r = load_textures(&ld, asset, &dims)) || (r = load_streams(&ld, asset)) ||
        (r = load_clips(&ld, asset, s->clips)) || (r = load_lods(&ld, asset, s->lods)) ||
        (r = load_bones(&ld, asset, s->bones)) || (r = load_sockets(&ld, asset, s->sockets)) ||
        (r = load_regions(&ld, asset, s->regions)) || (r = check_texture_values(&ld, asset)) ||
        (r = load_notes(&ld, asset)) || (r = load_imposters(&ld, asset)) || (r = load_clip_bounds(&ld, asset)) ||
        (r = load_markers(&ld, asset)) || (r = load_palette_uv(&ld, asset)) || (r = check_every_section_claimed(&ld)))
        goto fail;
    return CROWD_OK;

fail:
    crowd_asset_free(asset);
    return r;
}

crowd_result crowd_asset_load_file(crowd_asset *asset, const char *path, crowd_error *error)
{
    if (!asset || !path)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_asset_load_file: NULL asset or path");
    memset(asset, 0, sizeof *asset);
    FILE *f = crowd_file_open_read(path, error);
    if (!f)
        return CROWD_ERROR_IO; /* the error names the path and why */

    void *bytes = NULL;
    uint64_t size = 0;
    crowd_result r = crowd_file_size(f, path, CROWD_MAX_FILE_BYTES, &size, error);
    if (r != CROWD_OK)
        goto done;
    /* 16-byte aligned so sections can be used in place; +1 keeps crowd_malloc(0) out of the picture. */
    bytes = crowd_aligned_alloc(CROWD_SECTION_ALIGN, crowd_align16(size + 1));
    if (!bytes) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory for %llu bytes", path,
                       (unsigned long long)size);
        goto done;
    }
    if ((r = crowd_file_read_all(f, path, bytes, size, error)) != CROWD_OK)
        goto done;
    r = crowd_asset_load_memory(asset, bytes, (size_t)size, error);
    if (r == CROWD_OK) {
        ((asset_storage *)asset->internal_)->file_bytes = bytes;
        bytes = NULL;
    } else {
        crowd_error_prefix(error, "%s: ", path);
    }
done:
    crowd_aligned_free(bytes);
    fclose(f);
    return r;
}

void crowd_asset_free(crowd_asset *asset)
{
    if (!asset)
        return;
    asset_storage *s = asset->internal_;
    if (s) {
        crowd_aligned_free(s->file_bytes);
        crowd_free(s->markers);
        crowd_free(s);
    }
    memset(asset, 0, sizeof *asset);
}

/* Every named table record (crowd_clip, crowd_socket, crowd_region) starts with its name. */
static bool find_named(const void *items, uint32_t count, size_t stride, const char *name, uint32_t *index)
{
    if (!items || !name)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        const char *item_name = *(const char *const *)((const char *)items + i * stride);
        if (item_name && strcmp(item_name, name) == 0) {
            if (index)
                *index = i;
            return true;
        }
    }
    return false;
}

bool crowd_asset_find_clip(const crowd_asset *asset, const char *name, uint32_t *index)
{
    return asset && find_named(asset->clips, asset->clip_count, sizeof(crowd_clip), name, index);
}

bool crowd_asset_find_socket(const crowd_asset *asset, const char *name, uint32_t *index)
{
    return asset && find_named(asset->sockets, asset->socket_count, sizeof(crowd_socket), name, index);
}

bool crowd_asset_find_region(const crowd_asset *asset, const char *name, uint32_t *index)
{
    return asset && find_named(asset->regions_info, asset->region_count, sizeof(crowd_region), name, index);
}
