/* The frames dump (docs/frames-dump.md): a 64-byte header, then the source name, the clip table,
 * indices, parts, colours, positions and normals, each 4-byte aligned, all little-endian. The
 * reader sizes every section from the header in 64-bit arithmetic and checks the total against
 * the file's size before it allocates anything; values are then checked by
 * crowd_vertex_frames_validate, so a dump that decodes is one the bake accepts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "core/file_read.h"
#include "core/format.h"
#include "crowdbake/bake.h"

#define DUMP_MAGIC "CRWDFRMS"
#define DUMP_VERSION 1u
#define DUMP_HEADER 64u
#define DUMP_CLIP 56u
#define DUMP_NAME_MAX 255u
#define FLAG_NORMALS 1u
#define FLAG_COLORS 2u
#define FLAG_PARTS 4u
#define CLIP_LOOP 1u
#define CLIP_STRIDE 2u

typedef struct dump_layout {
    uint64_t name, clips, indices, parts, colors, positions, normals, end;
} dump_layout;

static uint64_t align4(uint64_t n)
{
    return (n + 3u) & ~(uint64_t)3u;
}

/* Offsets of every section; counts are at most 32-bit, so no sum here can overflow 64 bits. */
static dump_layout layout_of(uint32_t flags, uint32_t vc, uint32_t ic, uint32_t fc, uint32_t cc, uint32_t name_bytes)
{
    dump_layout l;
    uint64_t values = (uint64_t)fc * vc * 12u;
    l.name = DUMP_HEADER;
    l.clips = l.name + align4(name_bytes);
    l.indices = l.clips + (uint64_t)cc * DUMP_CLIP;
    l.parts = l.indices + (uint64_t)ic * 4u;
    l.colors = l.parts + (flags & FLAG_PARTS ? align4((uint64_t)vc * 2u) : 0u);
    l.positions = l.colors + (flags & FLAG_COLORS ? (uint64_t)vc * 4u : 0u);
    l.normals = l.positions + values;
    l.end = l.normals + (flags & FLAG_NORMALS ? values : 0u);
    return l;
}

/* The header's fields (docs/frames-dump.md). */
typedef struct dump_header {
    uint32_t flags, vc, ic, fc, cc, parts, name_bytes;
    uint64_t declared; /* the total size the header states */
} dump_header;

/* Everything the decoded frames point at, in one allocation. */
typedef struct dump_storage {
    crowd_frames_clip *clips;
    char (*names)[CROWD_FRAMES_NAME_MAX + 1];
    char *source;
    uint32_t *indices;
    uint16_t *parts;
    uint8_t *colors;
    float *positions, *normals;
} dump_storage;

/* Magic, version, flags and the reserved bytes; the counts into *h. */
static crowd_result read_header(const uint8_t *b, size_t size, dump_header *h, crowd_error *error)
{
    if (size < DUMP_HEADER)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames dump: %zu bytes, shorter than the %u-byte header",
                          size, DUMP_HEADER);
    if (memcmp(b, DUMP_MAGIC, 8) != 0)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames dump: bad magic (not a frames dump)");
    uint32_t version = crowd_rd32(b + 8);
    h->flags = crowd_rd32(b + 12);
    if (version != DUMP_VERSION)
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "frames dump: version %u (this reader knows %u)", version,
                          DUMP_VERSION);
    if (h->flags & ~(FLAG_NORMALS | FLAG_COLORS | FLAG_PARTS))
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "frames dump: unknown flags 0x%x", h->flags);
    h->vc = crowd_rd32(b + 16), h->ic = crowd_rd32(b + 20), h->fc = crowd_rd32(b + 24), h->cc = crowd_rd32(b + 28);
    h->parts = crowd_rd32(b + 32), h->name_bytes = crowd_rd32(b + 36);
    h->declared = crowd_rd64(b + 40);
    for (uint32_t o = 48; o < DUMP_HEADER; o++)
        if (b[o])
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames dump: reserved header byte %u is not zero", o);
    return CROWD_OK;
}

/* Every count against its limit, before any size is computed from it. */
static crowd_result check_counts(const dump_header *h, crowd_error *error)
{
    if (h->vc == 0 || h->vc > CROWD_MAX_VERTICES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "frames dump: vertex_count %u outside 1..%u", h->vc,
                          CROWD_MAX_VERTICES);
    if (h->ic == 0 || h->ic % 3 || h->ic > CROWD_MAX_INDICES)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "frames dump: index_count %u (a positive multiple of 3, <= %u)", h->ic, CROWD_MAX_INDICES);
    if (h->fc == 0 || (uint64_t)h->fc * h->vc > CROWD_FRAMES_MAX_VERTEX_FRAMES)
        return crowd_fail(error, CROWD_ERROR_LIMIT,
                          "frames dump: %u frames x %u vertices outside 1..%llu vertex-frames", h->fc, h->vc,
                          (unsigned long long)CROWD_FRAMES_MAX_VERTEX_FRAMES);
    if (h->cc == 0 || h->cc > CROWD_MAX_CLIPS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "frames dump: clip_count %u outside 1..%u", h->cc, CROWD_MAX_CLIPS);
    if ((h->flags & FLAG_PARTS) ? (h->parts == 0 || h->parts > CROWD_FRAMES_MAX_PARTS) : h->parts > 1)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames dump: part_count %u (1..%u with parts, else 0 or 1)",
                          h->parts, CROWD_FRAMES_MAX_PARTS);
    if (h->name_bytes > DUMP_NAME_MAX)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "frames dump: source name of %u bytes (limit %u)", h->name_bytes,
                          DUMP_NAME_MAX);
    return CROWD_OK;
}

/* The sections' offsets, checked against the declared and the actual size; the name's bytes. */
static crowd_result check_layout(const uint8_t *b, size_t size, const dump_header *h, dump_layout *l,
                                 crowd_error *error)
{
    *l = layout_of(h->flags, h->vc, h->ic, h->fc, h->cc, h->name_bytes);
    if (h->declared != l->end || size != l->end)
        return crowd_fail(
            error, CROWD_ERROR_INVALID_DATA,
            "frames dump: the header's counts need %llu bytes; the header says %llu and the data has %zu%s",
            (unsigned long long)l->end, (unsigned long long)h->declared, size, size < l->end ? " (truncated?)" : "");
    for (uint32_t i = 0; i < h->name_bytes; i++)
        if (b[l->name + i] == 0)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames dump: source name holds a NUL byte");
    return CROWD_OK;
}

/* One block of *total bytes: the clip table and names, then the arrays (each 16-byte aligned).
 * NULL when out of memory; everything before the positions is zeroed. */
static uint8_t *allocate_storage(const dump_header *h, dump_storage *s, size_t *total)
{
    size_t values = (size_t)h->fc * h->vc * 3;
    size_t off_names = align4((uint64_t)h->cc * sizeof(crowd_frames_clip)) + 16;
    size_t off_source = off_names + (size_t)h->cc * (CROWD_FRAMES_NAME_MAX + 1);
    size_t off_indices = (off_source + h->name_bytes + 1 + 15) & ~(size_t)15;
    size_t off_parts = off_indices + (((size_t)h->ic * 4 + 15) & ~(size_t)15);
    size_t off_colors = off_parts + (((size_t)h->vc * 2 + 15) & ~(size_t)15);
    size_t off_positions = off_colors + (((size_t)h->vc * 4 + 15) & ~(size_t)15);
    size_t off_normals = off_positions + values * sizeof(float);
    *total = off_normals + ((h->flags & FLAG_NORMALS) ? values * sizeof(float) : 0);
    uint8_t *block = crowd_aligned_alloc(16, (*total + 15) & ~(size_t)15);
    if (!block)
        return NULL;
    memset(block, 0, off_positions);
    *s = (dump_storage){.clips = (crowd_frames_clip *)block,
                        .names = (char(*)[CROWD_FRAMES_NAME_MAX + 1])(block + off_names),
                        .source = (char *)(block + off_source),
                        .indices = (uint32_t *)(block + off_indices),
                        .parts = (uint16_t *)(block + off_parts),
                        .colors = block + off_colors,
                        .positions = (float *)(block + off_positions),
                        .normals = (h->flags & FLAG_NORMALS) ? (float *)(block + off_normals) : NULL};
    return block;
}

/* The clip table: names NUL-padded to 32 bytes, flags known, reserved zero. */
static crowd_result decode_clips(const uint8_t *b, const dump_layout *l, uint32_t cc, dump_storage *s,
                                 crowd_error *error)
{
    for (uint32_t c = 0; c < cc; c++) {
        const uint8_t *rec = b + l->clips + (uint64_t)c * DUMP_CLIP;
        uint32_t len = 0;
        while (len < 32 && rec[len])
            len++;
        bool padded = len < 32;
        for (uint32_t k = len; k < 32; k++)
            padded &= rec[k] == 0;
        uint32_t clip_flags = crowd_rd32(rec + 44), reserved = crowd_rd32(rec + 52);
        if (len == 0 || !padded)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "frames dump: clips[%u] name is empty, unterminated or has bytes after its end", c);
        if ((clip_flags & ~(CLIP_LOOP | CLIP_STRIDE)) || reserved)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "frames dump: clips[%u] unknown flags 0x%x or reserved %u", c, clip_flags, reserved);
        /* in memory NAN means "unknown"; a stride the file marks known must be a number */
        if ((clip_flags & CLIP_STRIDE) && isnan(crowd_rdf32(rec + 48)))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "frames dump: clips[%u] stride is marked known (flag 2) but is not a number", c);
        memcpy(s->names[c], rec, len);
        s->clips[c] = (crowd_frames_clip){.name = s->names[c],
                                          .first_frame = crowd_rd32(rec + 32),
                                          .frame_count = crowd_rd32(rec + 36),
                                          .fps = crowd_rdf32(rec + 40),
                                          .loop = (clip_flags & CLIP_LOOP) != 0,
                                          .stride = (clip_flags & CLIP_STRIDE) ? crowd_rdf32(rec + 48) : NAN};
    }
    return CROWD_OK;
}

/* Indices, parts, colours, positions and normals, little-endian to native. */
static void decode_arrays(const uint8_t *b, const dump_layout *l, const dump_header *h, dump_storage *s)
{
    for (uint32_t i = 0; i < h->ic; i++)
        s->indices[i] = crowd_rd32(b + l->indices + 4ull * i);
    for (uint32_t v = 0; v < h->vc; v++) {
        s->parts[v] = (h->flags & FLAG_PARTS) ? crowd_rd16(b + l->parts + 2ull * v) : 0;
        if (h->flags & FLAG_COLORS)
            memcpy(s->colors + 4 * (size_t)v, b + l->colors + 4ull * v, 4);
    }
    size_t values = (size_t)h->fc * h->vc * 3;
    for (size_t i = 0; i < values; i++) {
        s->positions[i] = crowd_rdf32(b + l->positions + 4ull * i);
        if (s->normals)
            s->normals[i] = crowd_rdf32(b + l->normals + 4ull * i);
    }
}

static crowd_vertex_frames frames_of(const dump_header *h, const dump_storage *s)
{
    bool parts = (h->flags & FLAG_PARTS) != 0;
    return (crowd_vertex_frames){.vertex_count = h->vc,
                                 .index_count = h->ic,
                                 .frame_count = h->fc,
                                 .positions = s->positions,
                                 .normals = s->normals,
                                 .indices = s->indices,
                                 .parts = parts ? s->parts : NULL,
                                 .part_count = parts ? h->parts : 1,
                                 .colors = (h->flags & FLAG_COLORS) ? s->colors : NULL,
                                 .clip_count = h->cc,
                                 .clips = s->clips,
                                 .source_name = h->name_bytes ? s->source : NULL};
}

crowd_result crowd_frames_dump_read(const void *data, size_t size, crowd_frames_dump *dump, crowd_error *error)
{
    if (!dump || (!data && size))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_frames_dump_read: NULL argument");
    memset(dump, 0, sizeof *dump);
    const uint8_t *b = data;
    dump_header h = {0};
    dump_layout l = {0};
    crowd_result r = read_header(b, size, &h, error);
    if (r == CROWD_OK)
        r = check_counts(&h, error);
    if (r == CROWD_OK)
        r = check_layout(b, size, &h, &l, error);
    if (r != CROWD_OK)
        return r;
    dump_storage s;
    size_t total;
    uint8_t *block = allocate_storage(&h, &s, &total);
    if (!block)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "frames dump: out of memory for %zu bytes", total);
    memcpy(s.source, b + l.name, h.name_bytes);
    if ((r = decode_clips(b, &l, h.cc, &s, error)) != CROWD_OK)
        goto fail;
    decode_arrays(b, &l, &h, &s);
    dump->frames = frames_of(&h, &s);
    if ((r = crowd_vertex_frames_validate(&dump->frames, error)) != CROWD_OK)
        goto fail;
    if (s.normals) { /* unit length from here on; validate refused zero and non-finite ones */
        size_t values = (size_t)h.fc * h.vc * 3;
        for (size_t i = 0; i < values; i += 3)
            cb_vec3_normalize_any(s.normals + i);
    }
    dump->storage = block;
    return CROWD_OK;
fail:
    crowd_aligned_free(block);
    memset(dump, 0, sizeof *dump);
    if (error && r == CROWD_ERROR_INVALID_DATA && strncmp(error->message, "frames dump", 11) != 0) {
        char cause[sizeof error->message];
        snprintf(cause, sizeof cause, "%s", error->message);
        crowd_fail(error, r, "frames dump: %.200s", cause);
    }
    return r;
}

crowd_result crowd_frames_dump_read_file(const char *path, crowd_frames_dump *dump, crowd_error *error)
{
    if (!path || !dump)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_frames_dump_read_file: NULL argument");
    memset(dump, 0, sizeof *dump);
    FILE *f = crowd_file_open_read(path, error);
    if (!f)
        return CROWD_ERROR_IO;
    uint64_t n = 0;
    uint8_t *bytes = NULL;
    crowd_result r = crowd_file_size(f, path, CROWD_MAX_FILE_BYTES, &n, error);
    if (r == CROWD_OK && !(bytes = crowd_malloc(n ? (size_t)n : 1)))
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory for %llu bytes", path,
                       (unsigned long long)n);
    if (r == CROWD_OK)
        r = crowd_file_read_all(f, path, bytes, n, error);
    fclose(f);
    if (r == CROWD_OK && (r = crowd_frames_dump_read(bytes, (size_t)n, dump, error)) != CROWD_OK && error) {
        char cause[sizeof error->message];
        snprintf(cause, sizeof cause, "%s", error->message);
        crowd_fail(error, r, "%.60s: %.190s", path, cause);
    }
    crowd_free(bytes);
    return r;
}

void crowd_frames_dump_free(crowd_frames_dump *dump)
{
    if (!dump)
        return;
    crowd_aligned_free(dump->storage);
    memset(dump, 0, sizeof *dump);
}

crowd_result crowd_frames_dump_write(const crowd_vertex_frames *f, uint8_t **bytes, size_t *size, crowd_error *error)
{
    if (!bytes || !size)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_frames_dump_write: NULL output");
    *bytes = NULL;
    *size = 0;
    crowd_result r = crowd_vertex_frames_validate(f, error);
    if (r != CROWD_OK)
        return r;
    size_t name_bytes = f->source_name ? strlen(f->source_name) : 0;
    if (name_bytes > DUMP_NAME_MAX)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "frames dump: source name of %zu bytes (limit %u)", name_bytes,
                          DUMP_NAME_MAX);
    uint32_t flags = (f->normals ? FLAG_NORMALS : 0u) | (f->colors ? FLAG_COLORS : 0u) | (f->parts ? FLAG_PARTS : 0u);
    dump_layout l =
        layout_of(flags, f->vertex_count, f->index_count, f->frame_count, f->clip_count, (uint32_t)name_bytes);
    if (l.end > SIZE_MAX)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "frames dump: %llu bytes", (unsigned long long)l.end);
    uint8_t *b = crowd_calloc(1, (size_t)l.end);
    if (!b)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "frames dump: out of memory for %llu bytes",
                          (unsigned long long)l.end);
    memcpy(b, DUMP_MAGIC, 8);
    crowd_wr32(b + 8, DUMP_VERSION);
    crowd_wr32(b + 12, flags);
    crowd_wr32(b + 16, f->vertex_count);
    crowd_wr32(b + 20, f->index_count);
    crowd_wr32(b + 24, f->frame_count);
    crowd_wr32(b + 28, f->clip_count);
    crowd_wr32(b + 32, f->parts ? (f->part_count ? f->part_count : 1) : 0);
    crowd_wr32(b + 36, (uint32_t)name_bytes);
    crowd_wr64(b + 40, l.end);
    if (name_bytes)
        memcpy(b + l.name, f->source_name, name_bytes);
    for (uint32_t c = 0; c < f->clip_count; c++) {
        const crowd_frames_clip *clip = &f->clips[c];
        uint8_t *rec = b + l.clips + (uint64_t)c * DUMP_CLIP;
        memcpy(rec, clip->name, strlen(clip->name));
        crowd_wr32(rec + 32, clip->first_frame);
        crowd_wr32(rec + 36, clip->frame_count);
        float fps = clip->fps, stride = isnan(clip->stride) ? 0.0f : clip->stride;
        uint32_t u;
        memcpy(&u, &fps, 4);
        crowd_wr32(rec + 40, u);
        crowd_wr32(rec + 44, (clip->loop ? CLIP_LOOP : 0u) | (isnan(clip->stride) ? 0u : CLIP_STRIDE));
        memcpy(&u, &stride, 4);
        crowd_wr32(rec + 48, u);
    }
    for (uint32_t i = 0; i < f->index_count; i++)
        crowd_wr32(b + l.indices + 4ull * i, f->indices[i]);
    for (uint32_t v = 0; v < f->vertex_count; v++) {
        if (f->parts)
            crowd_wr16(b + l.parts + 2ull * v, f->parts[v]);
        if (f->colors)
            memcpy(b + l.colors + 4ull * v, f->colors + 4 * (size_t)v, 4);
    }
    size_t values = (size_t)f->frame_count * f->vertex_count * 3;
    for (size_t i = 0; i < values; i++) {
        uint32_t u;
        memcpy(&u, &f->positions[i], 4);
        crowd_wr32(b + l.positions + 4ull * i, u);
        if (f->normals) {
            memcpy(&u, &f->normals[i], 4);
            crowd_wr32(b + l.normals + 4ull * i, u);
        }
    }
    *bytes = b;
    *size = (size_t)l.end;
    return CROWD_OK;
}

void crowd_frames_dump_bytes_free(uint8_t *bytes)
{
    crowd_free(bytes);
}
