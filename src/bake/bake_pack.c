/* Writing a finished bake into the .crowd container: the manifest records and every stream, in
 * the layout docs/format.md specifies (and asset_load.c checks). */
#include <stdlib.h>

#include "bake/bake_job.h"
#include "bake/container_write.h"
#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"

/* Manifest tables, encoded little-endian into their own buffers. */
typedef struct packed_tables {
    crowd_string_table strings;
    uint8_t head[CROWD_HEAD_BYTES];
    uint8_t *clips, *lods, *bones, *sockets, *regions, *palette, *region_ids, *colors;
    float *scaled_positions; /* the bind pose placed (bake/place.c) */
    float *placed_normals;
    uint8_t *notes;       /* the BAKE section */
    uint8_t *clip_bounds; /* the CBND section */
    uint8_t *markers;     /* the MARK section, NULL without markers */
    uint8_t *palette_uv;  /* the PUVS section, or NULL when every choice samples at the vertex UVs */
} packed_tables;

static void free_tables(packed_tables *t)
{
    crowd_string_table_free(&t->strings);
    crowd_free(t->clips);
    crowd_free(t->lods);
    crowd_free(t->bones);
    crowd_free(t->sockets);
    crowd_free(t->regions);
    crowd_free(t->palette);
    crowd_free(t->region_ids);
    crowd_free(t->colors);
    crowd_free(t->scaled_positions);
    crowd_free(t->placed_normals);
    crowd_free(t->notes);
    crowd_free(t->palette_uv);
    crowd_free(t->clip_bounds);
    crowd_free(t->markers);
}

static uint32_t flags_of(const bake_job *job)
{
    const crowd_bake_desc *d = job->desc;
    return (d->bones ? CROWD_ASSET_HAS_BONES : 0u) | (d->tangents ? CROWD_ASSET_HAS_TANGENTS : 0u) |
           (job->rig->uvs ? CROWD_ASSET_HAS_UVS : 0u) | (job->rig->colors ? CROWD_ASSET_HAS_COLORS : 0u) |
           (job->rig->albedo ? CROWD_ASSET_HAS_ALBEDO : 0u);
}

static uint32_t palette_total(const crowd_rig *rig)
{
    uint32_t n = 0;
    for (uint32_t g = 0; g < rig->region_count; g++)
        n += rig->regions_info[g].palette_count;
    return n;
}

static void write_head(const bake_job *job, uint32_t source_name, uint8_t *h)
{
    const crowd_rig *rig = job->rig;
    const crowd_bake_desc *d = job->desc;
    memset(h, 0, CROWD_HEAD_BYTES);
    crowd_wr32(h + CROWD_HEAD_FLAGS, flags_of(job));
    crowd_wr32(h + CROWD_HEAD_VERTEX_COUNT, rig->vertex_count);
    crowd_wr32(h + CROWD_HEAD_FRAME_COUNT, job->frame_count);
    crowd_wr32(h + CROWD_HEAD_INDEX_COUNT, job->lods.index_count);
    crowd_wr32(h + CROWD_HEAD_BONE_COUNT, d->bones ? rig->bone_count : 0);
    crowd_wr32(h + CROWD_HEAD_CLIP_COUNT, job->clip_count);
    crowd_wr32(h + CROWD_HEAD_LOD_COUNT, job->lods.level_count);
    crowd_wr32(h + CROWD_HEAD_SOCKET_COUNT, d->bones ? rig->socket_count : 0);
    crowd_wr32(h + CROWD_HEAD_REGION_COUNT, rig->region_count);
    crowd_wr32(h + CROWD_HEAD_PALETTE_COUNT, palette_total(rig));
    crowd_wr32(h + CROWD_HEAD_POSITION_ENCODING, d->fp16 ? CROWD_POSITION_F16_BOX : CROWD_POSITION_U16_BOX);
    crowd_wr32(h + CROWD_HEAD_NORMAL_ENCODING, d->fp16      ? CROWD_NORMAL_OCT_F16
                                               : d->compact ? CROWD_NORMAL_OCT8_IN_W
                                                            : CROWD_NORMAL_OCT16);
    for (int i = 0; i < 3; i++) {
        crowd_wrf32(h + CROWD_HEAD_BOUNDS_MIN + 4 * i, job->box_min[i]);
        crowd_wrf32(h + CROWD_HEAD_BOUNDS_MAX + 4 * i, job->box_max[i]);
    }
    crowd_wrf32(h + CROWD_HEAD_SPHERE_CENTER_Y, job->sphere_center_y);
    crowd_wrf32(h + CROWD_HEAD_SPHERE_RADIUS, job->sphere_radius);
    crowd_wr32(h + CROWD_HEAD_VAT_WIDTH, job->tex_width);
    crowd_wr32(h + CROWD_HEAD_VAT_HEIGHT, job->tex_height);
    crowd_wr32(h + CROWD_HEAD_BONE_TEX_WIDTH, job->bone_width);
    crowd_wr32(h + CROWD_HEAD_BONE_TEX_HEIGHT, job->bone_height);
    crowd_wr32(h + CROWD_HEAD_SOURCE_KIND, rig->source == CROWD_RIG_GLTF     ? CROWD_SOURCE_GLTF
                                           : rig->source == CROWD_RIG_FRAMES ? CROWD_SOURCE_FRAMES
                                                                             : CROWD_SOURCE_PROCEDURAL);
    crowd_wr32(h + CROWD_HEAD_SOURCE_NAME, source_name);
    crowd_wrf32(h + CROWD_HEAD_BAKE_FPS, d->frames ? 0.0f : job->fps);
    crowd_wrf32(h + CROWD_HEAD_UNIT_SCALE, job->unit_scale);
    crowd_wr32(h + CROWD_HEAD_ALBEDO_WIDTH, rig->albedo ? rig->albedo_width : 0);
    crowd_wr32(h + CROWD_HEAD_ALBEDO_HEIGHT, rig->albedo ? rig->albedo_height : 0);
}

/* A bone-to-model (or attachment) transform moved into the asset's space: P M S^-1, with P the
 * placement and S its uniform scale, so the frame turns and moves with the character while its own
 * axes keep their length (for P = S this is S M S^-1: the translation scales, the rest stays). */
static void write_matrix(uint8_t *p, const float m[16], const bake_job *job)
{
    float rows[12], moved[16], unscale[16];
    cb_mat4_identity(unscale);
    unscale[0] = unscale[5] = unscale[10] = 1.0f / job->unit_scale;
    cb_mat4_mul(moved, m, unscale);
    float out[16];
    cb_mat4_mul(out, job->placement, moved);
    cb_mat4_to_mat34(out, rows);
    for (int k = 0; k < 12; k++)
        crowd_wrf32(p + 4 * k, rows[k]);
}

static uint32_t clip_flags(const baked_clip *bc, const crowd_rig_clip *c)
{
    bool travels = bc->role == CROWD_ROLE_LOCOMOTION && bc->stride.stride > 0.0;
    return (c->loop ? CROWD_CLIP_LOOP : 0u) | (travels ? CROWD_CLIP_LOCOMOTION : 0u) |
           (uint32_t)bc->role << CROWD_CLIP_ROLE_SHIFT;
}

/* The BAKE section: docs/format.md. */
static void write_notes(const bake_job *job, uint8_t *p)
{
    const crowd_bake_notes *n = &job->notes;
    for (int k = 0; k < 12; k++)
        crowd_wrf32(p + CROWD_BAKE_PLACEMENT + 4 * k, n->placement[k]);
    crowd_wr32(p + CROWD_BAKE_FORWARD, n->forward);
    crowd_wr32(p + CROWD_BAKE_FORWARD_DECISION, n->forward_decision);
    crowd_wr32(p + CROWD_BAKE_UP, n->up);
    crowd_wr32(p + CROWD_BAKE_SCALE_DECISION, n->scale_decision);
    crowd_wr32(p + CROWD_BAKE_GROUND_DECISION, n->ground_decision);
    crowd_wr32(p + CROWD_BAKE_BONE_MODE, n->bone_mode);
    crowd_wrf32(p + CROWD_BAKE_BONE_ERROR, n->bone_error);
    crowd_wrf32(p + CROWD_BAKE_HEIGHT, n->height);
    crowd_wrf32(p + CROWD_BAKE_GROUND_OFFSET, n->ground_offset);
    crowd_wrf32(p + CROWD_BAKE_HOVER, n->hover);
    crowd_wr32(p + CROWD_BAKE_CLIP_COUNT, job->clip_count);
    for (uint32_t i = 0; i < job->clip_count; i++) {
        const crowd_clip_evidence *e = &job->clips[i].evidence;
        uint8_t *rec = p + CROWD_BAKE_NOTES_BYTES + (size_t)i * CROWD_CLIP_EVIDENCE_BYTES;
        crowd_wr32(rec, e->frames);
        crowd_wr32(rec + 4, e->contact_frames);
        crowd_wr32(rec + 8, e->distinct_frames);
        crowd_wr32(rec + 12, e->key_count);
        crowd_wrf32(rec + 16, e->loop_error);
        crowd_wrf32(rec + 20, e->airborne);
        crowd_wr32(rec + 24, (e->travels ? 1u : 0u) | (e->overridden ? 2u : 0u));
        crowd_wrf32(rec + 28, e->root_travel);
    }
}

/* The CBND section: docs/format.md. */
static void write_clip_bounds(const bake_job *job, uint8_t *p)
{
    crowd_wr32(p, job->clip_count); /* the reserved words stay zero (calloc) */
    for (uint32_t c = 0; c < job->clip_count; c++)
        for (int k = 0; k < 4; k++)
            crowd_wrf32(p + CROWD_CBND_HEADER_BYTES + (size_t)c * CROWD_CBND_CLIP_BYTES + 4 * k,
                        job->clips[c].sphere[k]);
}

static bool allocate_tables(const bake_job *job, packed_tables *t)
{
    const crowd_rig *rig = job->rig;
    t->clips = crowd_calloc(job->clip_count, CROWD_CLIP_BYTES);
    t->lods = crowd_calloc(job->lods.level_count, CROWD_LOD_BYTES);
    t->bones = crowd_calloc(rig->bone_count, CROWD_BONE_BYTES);
    t->sockets = crowd_calloc(rig->socket_count + 1, CROWD_SOCKET_BYTES);
    t->regions = crowd_calloc(rig->region_count, CROWD_REGION_BYTES);
    t->palette = crowd_calloc(palette_total(rig), 4);
    bool uv_transforms = false;
    for (uint32_t g = 0; g < rig->region_count; g++)
        uv_transforms |= rig->regions_info[g].uv_transforms != NULL;
    if (uv_transforms && !(t->palette_uv = crowd_calloc(palette_total(rig), CROWD_PUVS_ENTRY_BYTES)))
        return false;
    t->region_ids = crowd_malloc(rig->vertex_count);
    if (rig->colors)
        t->colors = crowd_malloc((size_t)rig->vertex_count * 4);
    t->scaled_positions = crowd_malloc((size_t)rig->vertex_count * 3 * sizeof(float) + 1);
    t->placed_normals = crowd_malloc((size_t)rig->vertex_count * 3 * sizeof(float) + 1);
    t->notes = crowd_calloc(CROWD_BAKE_NOTES_BYTES + (size_t)job->clip_count * CROWD_CLIP_EVIDENCE_BYTES, 1);
    t->clip_bounds = crowd_calloc(CROWD_CBND_HEADER_BYTES + (size_t)job->clip_count * CROWD_CBND_CLIP_BYTES, 1);
    if (job->marker_count)
        t->markers = crowd_calloc(CROWD_MARK_HEADER_BYTES + (size_t)job->marker_count * CROWD_MARK_RECORD_BYTES, 1);
    return (!job->marker_count || t->markers) && t->clip_bounds && t->clips && t->lods && t->bones && t->sockets &&
           t->regions && t->palette && t->region_ids && (!rig->colors || t->colors) && t->scaled_positions &&
           t->placed_normals && t->notes;
}

/* The name's offset in the string table; *ok turns false when the table could not grow. */
static uint32_t add_name(packed_tables *t, const char *name, bool *ok)
{
    uint32_t offset = crowd_string_table_add(&t->strings, name ? name : "");
    *ok = *ok && offset != UINT32_MAX;
    return offset;
}

static void write_clips(const bake_job *job, packed_tables *t, bool *ok)
{
    for (uint32_t i = 0; i < job->clip_count; i++) {
        const baked_clip *bc = &job->clips[i];
        const crowd_rig_clip *c = &job->rig->clips[bc->rig_clip];
        uint8_t *rec = t->clips + (size_t)i * CROWD_CLIP_BYTES;
        crowd_wr32(rec, add_name(t, c->name, ok));
        crowd_wr32(rec + 4, bc->first_frame);
        crowd_wr32(rec + 8, bc->frame_count);
        crowd_wr32(rec + 12, clip_flags(bc, c));
        crowd_wrf32(rec + 16, (float)c->duration);
        crowd_wrf32(rec + 20, (float)bc->stride.stride);
    }
}

/* The MARK section: docs/format.md (reserved words stay zero: calloc). */
static void write_markers(const bake_job *job, packed_tables *t, bool *ok)
{
    crowd_wr32(t->markers, job->marker_count);
    for (uint32_t i = 0; i < job->marker_count; i++) {
        const job_marker *m = &job->markers[i];
        uint8_t *rec = t->markers + CROWD_MARK_HEADER_BYTES + (size_t)i * CROWD_MARK_RECORD_BYTES;
        crowd_wr32(rec, add_name(t, m->name, ok));
        crowd_wr32(rec + 4, m->clip);
        crowd_wrf32(rec + 8, m->time);
    }
}

static void write_lods(const bake_job *job, packed_tables *t)
{
    for (uint32_t l = 0; l < job->lods.level_count; l++) {
        const crowd_lod *lod = &job->lods.levels[l];
        uint8_t *rec = t->lods + (size_t)l * CROWD_LOD_BYTES;
        crowd_wr32(rec, lod->first_index);
        crowd_wr32(rec + 4, lod->index_count);
        crowd_wr32(rec + 8, lod->triangle_count);
        crowd_wrf32(rec + 12, lod->screen_coverage);
    }
}

static void write_bones(const bake_job *job, packed_tables *t, bool *ok)
{
    const crowd_rig *rig = job->rig;
    for (uint32_t b = 0; b < rig->bone_count; b++) {
        uint8_t *rec = t->bones + (size_t)b * CROWD_BONE_BYTES;
        float bind[16];
        if (!cb_mat4_invert(bind, rig->bones[b].inverse_bind))
            cb_mat4_identity(bind); /* a singular inverse bind only affects this informational field */
        crowd_wr32(rec, add_name(t, rig->bones[b].name, ok));
        crowd_wr32(rec + 4, (uint32_t)rig->bones[b].parent);
        write_matrix(rec + 8, bind, job);
    }
}

static crowd_result write_sockets(const bake_job *job, packed_tables *t, bool *ok, crowd_error *error)
{
    const crowd_rig *rig = job->rig;
    for (uint32_t s = 0; s < rig->socket_count; s++) {
        const crowd_rig_socket *socket = &rig->sockets[s];
        uint8_t *rec = t->sockets + (size_t)s * CROWD_SOCKET_BYTES;
        float bind[16], offset[16];
        if (!cb_mat4_invert(bind, rig->bones[socket->bone].inverse_bind))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "socket \"%s\": bone %u has a singular inverse bind",
                              socket->name, socket->bone);
        cb_mat4_mul(offset, bind, socket->offset); /* bone space -> bind-pose model space */
        crowd_wr32(rec, add_name(t, socket->name, ok));
        crowd_wr32(rec + 4, socket->bone);
        write_matrix(rec + 8, offset, job);
    }
    return CROWD_OK;
}

/* Regions, their palettes back to back, and the per-vertex region ids and colours. */
static void write_regions(const bake_job *job, packed_tables *t, bool *ok)
{
    const crowd_rig *rig = job->rig;
    uint32_t palette_cursor = 0;
    for (uint32_t g = 0; g < rig->region_count; g++) {
        const crowd_rig_region *region = &rig->regions_info[g];
        uint8_t *rec = t->regions + (size_t)g * CROWD_REGION_BYTES;
        crowd_wr32(rec, add_name(t, region->name, ok));
        crowd_wr32(rec + 4, palette_cursor);
        crowd_wr32(rec + 8, region->palette_count);
        crowd_wr32(rec + 12, region->textured ? CROWD_REGION_TEXTURED : 0u);
        memcpy(t->palette + 4 * palette_cursor, region->palette, 4 * (size_t)region->palette_count);
        for (uint32_t k = 0; t->palette_uv && k < region->palette_count; k++) {
            static const float identity[4] = {1.0f, 1.0f, 0.0f, 0.0f};
            const float *transform = region->uv_transforms ? region->uv_transforms[k] : identity;
            for (int c = 0; c < 4; c++)
                crowd_wrf32(t->palette_uv + (size_t)(palette_cursor + k) * CROWD_PUVS_ENTRY_BYTES + 4u * (unsigned)c,
                            transform[c]);
        }
        palette_cursor += region->palette_count;
    }
    memcpy(t->region_ids, rig->regions, rig->vertex_count);
    if (rig->colors)
        memcpy(t->colors, rig->colors, (size_t)rig->vertex_count * 4);
}

/* Every manifest table. Names enter the string table in a fixed order (source, clips, bones,
 * sockets, regions, markers): it decides their offsets, and two bakes of one rig are byte-identical. */
static crowd_result build_tables(const bake_job *job, packed_tables *t, crowd_error *error)
{
    const crowd_rig *rig = job->rig;
    bool bones = job->desc->bones;
    if (!allocate_tables(job, t))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "pack: out of memory");
    for (size_t v = 0; v < rig->vertex_count; v++) {
        crowd_place_point(job->placement, rig->positions + 3 * v, t->scaled_positions + 3 * v);
        crowd_place_direction(job->placement, rig->normals + 3 * v, t->placed_normals + 3 * v);
    }
    write_notes(job, t->notes);
    write_clip_bounds(job, t->clip_bounds);
    bool ok = true;
    write_head(job, add_name(t, rig->source_name, &ok), t->head);
    write_clips(job, t, &ok);
    write_lods(job, t);
    if (bones)
        write_bones(job, t, &ok);
    crowd_result r = bones ? write_sockets(job, t, &ok, error) : CROWD_OK;
    if (r != CROWD_OK)
        return r;
    write_regions(job, t, &ok);
    if (job->marker_count)
        write_markers(job, t, &ok);
    if (!ok)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "pack: out of memory for names");
    return CROWD_OK;
}

crowd_result crowd_bake_pack_begin(const bake_job *job, packed_image *image, crowd_error *error)
{
    memset(image, 0, sizeof *image);
    packed_tables t = {0};
    crowd_result r = build_tables(job, &t, error);
    if (r != CROWD_OK) {
        free_tables(&t);
        return r;
    }
    const crowd_rig *rig = job->rig;
    const crowd_bake_desc *d = job->desc;
    uint64_t vc = rig->vertex_count;
    uint64_t texels = (uint64_t)job->tex_width * job->tex_height;
    crowd_container_builder *b = &image->builder;
    crowd_container_add(b, CROWD_TAG_HEAD, t.head, CROWD_HEAD_BYTES);
    crowd_container_add(b, CROWD_TAG_STRS, t.strings.data, t.strings.size);
    crowd_container_add(b, CROWD_TAG_CLIP, t.clips, (uint64_t)job->clip_count * CROWD_CLIP_BYTES);
    crowd_container_add(b, CROWD_TAG_LODS, t.lods, (uint64_t)job->lods.level_count * CROWD_LOD_BYTES);
    if (d->bones) {
        crowd_container_add(b, CROWD_TAG_BONE, t.bones, (uint64_t)rig->bone_count * CROWD_BONE_BYTES);
        if (rig->socket_count)
            crowd_container_add(b, CROWD_TAG_SOCK, t.sockets, (uint64_t)rig->socket_count * CROWD_SOCKET_BYTES);
    }
    crowd_container_add(b, CROWD_TAG_REGN, t.regions, (uint64_t)rig->region_count * CROWD_REGION_BYTES);
    crowd_container_add(b, CROWD_TAG_PALT, t.palette, (uint64_t)palette_total(rig) * 4);
    if (t.palette_uv)
        crowd_container_add(b, CROWD_TAG_PUVS, t.palette_uv, (uint64_t)palette_total(rig) * CROWD_PUVS_ENTRY_BYTES);
    crowd_container_add(b, CROWD_TAG_VPOS, t.scaled_positions, vc * 12);
    crowd_container_add(b, CROWD_TAG_VNRM, t.placed_normals, vc * 12);
    if (rig->uvs)
        crowd_container_add(b, CROWD_TAG_VUV0, rig->uvs, vc * 8);
    if (rig->colors)
        crowd_container_add(b, CROWD_TAG_VCOL, t.colors, vc * 4);
    crowd_container_add(b, CROWD_TAG_VREG, t.region_ids, vc);
    if (d->bones) {
        crowd_container_add(b, CROWD_TAG_SJNT, job->skin_joints, vc * 8);
        crowd_container_add(b, CROWD_TAG_SWGT, job->skin_weights, vc * 8);
    }
    crowd_container_add(b, CROWD_TAG_INDX, job->lods.indices, (uint64_t)job->lods.index_count * 4);
    uint32_t tpos = b->count, tnrm = 0, ttan = 0, tbon = 0;
    crowd_container_add(b, CROWD_TAG_TPOS, NULL, texels * 8);
    if (!d->compact) {
        tnrm = b->count;
        crowd_container_add(b, CROWD_TAG_TNRM, NULL, texels * 4);
    }
    if (d->tangents) {
        ttan = b->count;
        crowd_container_add(b, CROWD_TAG_TTAN, NULL, texels * 4);
    }
    if (rig->albedo)
        crowd_container_add(b, CROWD_TAG_TALB, rig->albedo, (uint64_t)rig->albedo_width * rig->albedo_height * 4);
    if (d->bones) {
        tbon = b->count;
        crowd_container_add(b, CROWD_TAG_TBON, NULL, (uint64_t)job->bone_width * job->bone_height * 16);
    }
    crowd_container_add(b, CROWD_TAG_BAKE, t.notes,
                        CROWD_BAKE_NOTES_BYTES + (uint64_t)job->clip_count * CROWD_CLIP_EVIDENCE_BYTES);
    crowd_container_add(b, CROWD_TAG_CBND, t.clip_bounds,
                        CROWD_CBND_HEADER_BYTES + (uint64_t)job->clip_count * CROWD_CBND_CLIP_BYTES);
    if (job->marker_count)
        crowd_container_add(b, CROWD_TAG_MARK, t.markers,
                            CROWD_MARK_HEADER_BYTES + (uint64_t)job->marker_count * CROWD_MARK_RECORD_BYTES);
    r = crowd_container_allocate(b, error);
    free_tables(&t);
    if (r != CROWD_OK)
        return r;
    image->positions = crowd_container_payload(b, tpos);
    image->normals = tnrm ? crowd_container_payload(b, tnrm) : NULL;
    image->tangents = ttan ? crowd_container_payload(b, ttan) : NULL;
    image->bones = tbon ? crowd_container_payload(b, tbon) : NULL;
    return CROWD_OK;
}

void crowd_bake_pack_finish(packed_image *image, uint8_t **bytes, size_t *size)
{
    crowd_container_seal(&image->builder, bytes, size);
    memset(image, 0, sizeof *image);
}

void crowd_bake_pack_abort(packed_image *image)
{
    crowd_aligned_free(image->builder.image);
    memset(image, 0, sizeof *image);
}
