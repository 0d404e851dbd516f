/* The imposter level on the CPU path: the atlas and per-clip boxes as textures, one program, and
 * one indexed draw (4 corners, 6 indices a card) per card draw of the frame (CROWD_DRAW_IMPOSTER). */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gl/gpu_crowd.h"
#include "gl/renderer_internal.h"
#include "gl/shaders.h"

/* `mip`: the minifying filter between levels. Both atlases use the nearest level (bilinear in it), not
 * trilinear: a card's level is its own (imposter.vert), so trilinear only blends two levels whose
 * pixels match anyway (test_imposters measures the IoU both ways), and SwiftShader pays each
 * trilinear fetch twice (docs/performance.md). */
static GLuint atlas_texture(const crowd_texture *t, uint32_t tile, GLenum mip)
{
    GLuint id;
    glGenTextures(1, &id);
    glBindTexture(GL_TEXTURE_2D, id);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)t->width, (GLsizei)t->height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 t->data);
    /* a few mip levels against shimmer far away; not so many that tiles bleed into each other */
    int levels = 0;
    while ((tile >> (levels + 1)) >= 8u)
        levels++;
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, levels);
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, levels ? mip : GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    return id;
}

crowd_result crowd_gl_imposter_create(crowd_gl_renderer *r, crowd_error *error)
{
    const crowd_imposters *m = &r->asset->imposters;
    if (!m->frames || !m->clips)
        return CROWD_OK;
    crowd_result result = CROWD_OK;
    for (int v = PROGRAM_COLOUR; v < PROGRAM_VARIANTS && result == CROWD_OK; v++) {
        const char *variant = v == PROGRAM_DEPTH ? NULL : crowd_gl_variant_defines(r, v);
        char defines[96];
        snprintf(defines, sizeof defines, "RECORD_TEXTURE\n%s", variant ? variant : "");
        if (variant)
            result = crowd_program_build(&r->imposter[v], "imposter", r->desc.es, defines, crowd_glsl_imposter_vert,
                                         crowd_glsl_imposter_frag, error);
    }
    if (result != CROWD_OK)
        return result;
    float *boxes = crowd_calloc((size_t)m->clip_count * 8, sizeof *boxes);
    if (!boxes)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "imposter clip table");
    for (uint32_t c = 0; c < m->clip_count; c++) {
        memcpy(boxes + 8 * c, m->clips[c].box_min, 12);
        boxes[8 * c + 3] = (float)m->clips[c].first_tile; /* exact below 2^24 tiles */
        memcpy(boxes + 8 * c + 4, m->clips[c].box_max, 12);
    }
    glGenTextures(1, &r->tex_imposter_clips);
    glBindTexture(GL_TEXTURE_2D, r->tex_imposter_clips);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, 2, (GLsizei)m->clip_count, 0, GL_RGBA, GL_FLOAT, boxes);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    crowd_free(boxes);
    r->tex_imposter_albedo = atlas_texture(&m->albedo, m->tile, GL_LINEAR_MIPMAP_NEAREST);
    r->tex_imposter_normals = atlas_texture(&m->normals, m->tile, GL_LINEAR_MIPMAP_NEAREST);
    glGenVertexArrays(1, &r->imposter_vao); /* empty: the cards come from gl_VertexID and the records texture */
    return crowd_gl_check("imposter atlas", error);
}

void crowd_gl_imposter_destroy(crowd_gl_renderer *r)
{
    for (int v = 0; v < PROGRAM_VARIANTS; v++)
        crowd_program_release(&r->imposter[v]);
    GLuint textures[4] = {r->tex_imposter_clips, r->tex_imposter_albedo, r->tex_imposter_normals, r->tex_records};
    glDeleteTextures(4, textures);
    glDeleteVertexArrays(1, &r->imposter_vao);
    glDeleteBuffers(1, &r->imposter_indices);
}

/* The cards' index buffer (bound to the imposter VAO) spans at least `cards`: grown by half again when
 * a draw needs more (rare, like the instance buffer). Indexed so that SwiftShader's vertex cache runs
 * the heavy card vertex shader once per corner: 4 times a card instead of 6. */
static bool imposter_indices(crowd_gl_renderer *r, uint32_t cards)
{
    if (cards <= r->imposter_index_cards)
        return true;
    uint64_t grown = (uint64_t)cards + cards / 2 + 1024;
    uint32_t n = grown > UINT32_MAX / 24 ? cards : (uint32_t)grown;
    uint32_t *index = crowd_malloc((size_t)n * 6 * sizeof *index);
    if (!index)
        return false;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t *t = index + 6 * (size_t)k, v = 4 * k;
        t[0] = v, t[1] = v + 1, t[2] = v + 2, t[3] = v, t[4] = v + 2, t[5] = v + 3;
    }
    if (!r->imposter_indices)
        glGenBuffers(1, &r->imposter_indices);
    glBindVertexArray(r->imposter_vao);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->imposter_indices);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)n * 6 * sizeof *index), index, GL_STATIC_DRAW);
    crowd_free(index);
    r->imposter_index_cards = n;
    return true;
}

void crowd_gl_imposter_begin(crowd_gl_renderer *r, const crowd_program *p, const crowd_frame *f,
                             const float view_projection[16], const crowd_gl_scene *scene)
{
    const crowd_imposters *m = &r->asset->imposters;
    crowd_gl_begin_program(r, p, f, view_projection, false, scene);
    const GLint *u = p->uniforms;
    glActiveTexture(GL_TEXTURE0 + UNIT_IMPOSTER_CLIPS);
    glBindTexture(GL_TEXTURE_2D, r->tex_imposter_clips);
    glActiveTexture(GL_TEXTURE0 + UNIT_IMPOSTER_ALBEDO);
    glBindTexture(GL_TEXTURE_2D, r->tex_imposter_albedo);
    glActiveTexture(GL_TEXTURE0 + UNIT_IMPOSTER_NORMALS);
    glBindTexture(GL_TEXTURE_2D, r->tex_imposter_normals);
    glUniform1i(u[U_IMPOSTER_CLIPS], UNIT_IMPOSTER_CLIPS);
    glUniform1i(u[U_IMPOSTER_ALBEDO], UNIT_IMPOSTER_ALBEDO);
    glUniform1i(u[U_IMPOSTER_NORMALS], UNIT_IMPOSTER_NORMALS);
    glUniform4f(u[U_IMPOSTER_GRID], (float)m->frames, (float)m->views, (float)m->elevations,
                (float)(m->albedo.width / m->tile));
    glUniform4fv(u[U_IMPOSTER_ELEVATION], 1, m->elevation);
    glUniform2f(u[U_TILE_SCALE], (float)m->tile / (float)m->albedo.width, (float)m->tile / (float)m->albedo.height);
    /* imposter.vert's mip level per card: pixels per unit of view-space height at depth 1 (half the
       viewport's height times the projection's y scale), and texels per tile */
    glUniform2f(u[U_CARD_LOD], 0.5f * (float)r->target_viewport[3] * scene->projection[5], (float)m->tile);
    glUniform3f(u[U_BAND], 0.0f, 0.0f, 0.0f);
}

/* Rows [row0, row1) of the records texture from the frame's records; the last row may be partial. */
static void write_record_rows(const crowd_gl_renderer *r, uint32_t row0, uint32_t row1)
{
    uint32_t n = r->records_count, per_row = CROWD_GL_RECORDS_PER_ROW, full = n / per_row;
    uint32_t full_end = row1 < full ? row1 : full;
    if (full_end > row0)
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, (GLint)row0, (GLsizei)(4 * per_row), (GLsizei)(full_end - row0),
                        GL_RGBA_INTEGER, GL_UNSIGNED_INT, r->frame_records + (size_t)row0 * per_row);
    if (row1 > full && n % per_row)
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, (GLint)full, (GLsizei)(4 * (n % per_row)), 1, GL_RGBA_INTEGER,
                        GL_UNSIGNED_INT, r->frame_records + (size_t)full * per_row);
}

/* The records texture brought up to date with the last upload: the rows holding records changed
 * since it was last written. Grows the texture by rows (then every row is written). The texture is
 * made on first use (the cards' and the far-shadow blobs' draws share it). */
void crowd_gl_records_bind(crowd_gl_renderer *r)
{
    uint32_t n = r->records_count, per_row = CROWD_GL_RECORDS_PER_ROW;
    uint32_t rows = (n + per_row - 1) / per_row;
    glActiveTexture(GL_TEXTURE0 + UNIT_RECORDS);
    if (!r->tex_records) {
        glGenTextures(1, &r->tex_records);
        glBindTexture(GL_TEXTURE_2D, r->tex_records);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    glBindTexture(GL_TEXTURE_2D, r->tex_records);
    if (rows > r->records_rows) {
        /* headroom, so a growing crowd reallocates rarely, but not past the 2,048 rows WebGL2
           guarantees unless the records need more */
        uint32_t grown = rows + rows / 4 + 1, limit = rows > 2048u ? rows : 2048u;
        grown = grown < limit ? grown : limit;
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32UI, (GLsizei)(4 * per_row), (GLsizei)grown, 0, GL_RGBA_INTEGER,
                     GL_UNSIGNED_INT, NULL);
        r->records_rows = grown;
        r->records_stale = (crowd_range){0, n};
    }
    crowd_range *stale = &r->records_stale;
    if (!stale->count || !r->frame_records)
        return;
    uint32_t end = stale->first + stale->count < n ? stale->first + stale->count : n;
    if (end > stale->first)
        write_record_rows(r, stale->first / per_row, (end + per_row - 1) / per_row);
    *stale = (crowd_range){0, 0};
}

void crowd_gl_imposter_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                            const crowd_gl_scene *scene)
{
    const crowd_program *p = &r->imposter[crowd_gl_program_variant(r, false)];
    bool used = false;
    for (uint32_t d = 0; d < f->draw_count && p->id; d++) {
        const crowd_draw *draw = &f->draws[d];
        if (!(draw->flags & CROWD_DRAW_IMPOSTER) || !draw->count)
            continue;
        if (!used) {
            crowd_gl_imposter_begin(r, p, f, view_projection, scene);
            crowd_gl_records_bind(r);
            glUniform1i(p->uniforms[U_RECORDS], UNIT_RECORDS);
            glBindVertexArray(r->imposter_vao);
            used = true;
        }
        if (!imposter_indices(r, draw->count))
            continue; /* out of memory: no cards this frame rather than a crash */
        bool band = (draw->flags & CROWD_DRAW_BAND) != 0;
        glUniform3f(p->uniforms[U_BAND], f->imposter_band[0], f->imposter_band[1], band ? 1.0f : 0.0f);
        glUniform1i(p->uniforms[U_FIRST], (GLint)draw->first);
        glDrawElements(GL_TRIANGLES, 6 * (GLsizei)draw->count, GL_UNSIGNED_INT, NULL);
        r->stats.draws++;
        r->stats.triangles += 2u * (uint64_t)draw->count;
    }
}
