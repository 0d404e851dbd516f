/* Classic skinning: every character its own palette upload and draw call (GPU linear-blend
 * skinning), or its own CPU-skinned vertices. Borrows the renderer's mesh buffers, textures,
 * shadow map and lighting so both paths light alike. */
#include <stdio.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "gl/gpu_crowd.h" /* crowd_gl_begin_program */
#include "gl/renderer_internal.h"
#include "gl/shaders.h"

/* Extra uniforms of skinned.vert, looked up by name (program.h's table is the crowd's). */
typedef struct skinned_program {
    crowd_program program;
    GLint character, character_scale, character_look, bone_rows;
} skinned_program;

struct crowd_gl_skinned {
    crowd_gl_renderer *r;
    const crowd_asset *asset;
    bool cpu;
    uint32_t capacity;
    skinned_program programs[2]; /* [depth only] */
    GLuint vao, stream;          /* stream: CPU-skinned vertices (positions then normals per character) */
    float *skinned;              /* CPU skinning staging: capacity * vertex_count * 6 floats */
    const crowd_gl_character *characters;
    uint32_t count;
    /* timer queries (the renderer's timers on): [pass][slot], read CROWD_GL_TIMER_LATENCY frames late */
    bool timers;
    GLuint queries[2][CROWD_GL_TIMER_SLOTS];
    uint32_t issued[2];
    crowd_gl_skinned_stats stats;
};

/* As the renderer's timers (draw.c): the query of frame k - LATENCY is polled once, never waited for. */
static void timer_begin(crowd_gl_skinned *s, int pass)
{
    if (!s->timers)
        return;
    uint32_t k = s->issued[pass];
    if (k >= CROWD_GL_TIMER_LATENCY) {
        GLuint q = s->queries[pass][(k - CROWD_GL_TIMER_LATENCY) % CROWD_GL_TIMER_SLOTS];
        GLuint available = 0, ns = 0;
        glGetQueryObjectuiv(q, GL_QUERY_RESULT_AVAILABLE, &available);
        if (available) {
            glGetQueryObjectuiv(q, GL_QUERY_RESULT, &ns);
            *(pass ? &s->stats.gpu_color_ms : &s->stats.gpu_shadow_ms) = (double)ns / 1e6;
        }
    }
    glBeginQuery(s->r->timer_target, s->queries[pass][k % CROWD_GL_TIMER_SLOTS]);
}

static void timer_end(crowd_gl_skinned *s, int pass)
{
    if (!s->timers)
        return;
    glEndQuery(s->r->timer_target);
    s->issued[pass]++;
}

static crowd_result build(crowd_gl_skinned *s, crowd_error *error)
{
    const crowd_asset *a = s->asset;
    for (int depth = 0; depth < 2; depth++) {
        char defines[96];
        snprintf(defines, sizeof defines, "BONE_COUNT %u\n%s%s", a->bone_count, s->cpu ? "CPU_SKINNED\n" : "",
                 depth ? "DEPTH_ONLY\n" : "");
        skinned_program *p = &s->programs[depth];
        crowd_result r =
            crowd_program_build(&p->program, s->cpu ? "skinned (cpu)" : "skinned", s->r->desc.es, defines,
                                crowd_glsl_skinned_vert, depth ? crowd_glsl_depth_frag : crowd_glsl_lit_frag, error);
        if (r != CROWD_OK)
            return r;
        GLuint id = p->program.id;
        p->character = glGetUniformLocation(id, "u_character");
        p->character_scale = glGetUniformLocation(id, "u_character_scale");
        p->character_look = glGetUniformLocation(id, "u_character_look");
        p->bone_rows = glGetUniformLocation(id, "u_bone_rows");
    }
    return CROWD_OK;
}

static void attribute(GLuint location, GLuint vbo, GLint size, GLenum type, bool normalized, bool integer)
{
    if (!vbo)
        return;
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(location);
    if (integer)
        glVertexAttribIPointer(location, size, type, 0, NULL);
    else
        glVertexAttribPointer(location, size, type, normalized ? GL_TRUE : GL_FALSE, 0, NULL);
}

/* The renderer's mesh streams in a VAO of our own (no instance attributes); CPU skinning points
 * positions and normals at the stream buffer instead, per character at draw time. */
static void create_vao(crowd_gl_skinned *s)
{
    const crowd_gl_renderer *r = s->r;
    glGenVertexArrays(1, &s->vao);
    glBindVertexArray(s->vao);
    attribute(0, r->vbo_region, 1, GL_UNSIGNED_BYTE, false, true);
    attribute(1, r->vbo_uv, 2, GL_FLOAT, false, false);
    attribute(2, r->vbo_color, 4, GL_UNSIGNED_BYTE, true, false);
    if (s->cpu) {
        glGenBuffers(1, &s->stream);
        glBindBuffer(GL_ARRAY_BUFFER, s->stream);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)s->capacity * s->asset->vertex_count * 24), NULL,
                     GL_STREAM_DRAW);
        glEnableVertexAttribArray(3);
        glEnableVertexAttribArray(4);
    } else {
        attribute(3, r->vbo_position, 3, GL_FLOAT, false, false);
        attribute(4, r->vbo_normal, 3, GL_FLOAT, false, false);
        attribute(5, r->vbo_joints, 4, GL_UNSIGNED_SHORT, false, true);
        attribute(6, r->vbo_weights, 4, GL_UNSIGNED_SHORT, true, false);
    }
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->ibo);
    glBindVertexArray(0);
}

crowd_result crowd_gl_skinned_create(const crowd_gl_skinned_desc *desc, crowd_gl_skinned **out, crowd_error *error)
{
    if (!desc || !out || !desc->renderer)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_skinned_create: NULL desc, out or renderer");
    *out = NULL;
    const crowd_asset *a = desc->renderer->asset;
    if (!a->joints || !a->weights)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_gl_skinned_create: classic skinning needs the asset's joints and weights "
                          "(bake it with crowd_bake_desc.bones)");
    GLint vectors = 0;
    glGetIntegerv(GL_MAX_VERTEX_UNIFORM_VECTORS, &vectors);
    if (!desc->cpu_skinning && (GLint)(3 * a->bone_count + 16) > vectors)
        return crowd_fail(
            error, CROWD_ERROR_LIMIT,
            "classic skinning: %u bones need %u vertex uniform vectors, this GPU has %d (use cpu_skinning)",
            a->bone_count, 3 * a->bone_count + 16, vectors);
    crowd_gl_skinned *s = crowd_calloc(1, sizeof *s);
    if (!s)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "skinned: out of memory");
    s->r = desc->renderer;
    s->asset = a;
    s->cpu = desc->cpu_skinning;
    s->capacity = desc->capacity ? desc->capacity : 256;
    crowd_result result = CROWD_OK;
    if (s->cpu && !(s->skinned = crowd_malloc((size_t)s->capacity * a->vertex_count * 6 * sizeof(float))))
        result = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "skinned: out of memory for %u CPU-skinned characters",
                            s->capacity);
    if (result == CROWD_OK)
        result = build(s, error);
    if (result == CROWD_OK) {
        create_vao(s);
        s->stats.gpu_shadow_ms = s->stats.gpu_color_ms = -1.0;
        if ((s->timers = s->r->timers))
            glGenQueries(2 * CROWD_GL_TIMER_SLOTS, &s->queries[0][0]);
        result = crowd_gl_check("skinned buffers", error);
    }
    if (result != CROWD_OK) {
        crowd_gl_skinned_destroy(s);
        return result;
    }
    *out = s;
    return CROWD_OK;
}

void crowd_gl_skinned_destroy(crowd_gl_skinned *s)
{
    if (!s)
        return;
    for (int d = 0; d < 2; d++)
        crowd_program_release(&s->programs[d].program);
    glDeleteVertexArrays(1, &s->vao);
    glDeleteBuffers(1, &s->stream);
    if (s->timers)
        glDeleteQueries(2 * CROWD_GL_TIMER_SLOTS, &s->queries[0][0]);
    crowd_free(s->skinned);
    crowd_free(s);
}

/* Linear-blend skinning of the asset's bind pose on the CPU, exactly the shader's sum (unorm16
 * weights, 4 influences, normals through the blended 3x3). */
static void skin_on_cpu(const crowd_asset *a, const float *rows, float *positions, float *normals)
{
    for (uint32_t v = 0; v < a->vertex_count; v++) {
        float m[12] = {0};
        const uint16_t *j = a->joints + 4 * (size_t)v, *w = a->weights + 4 * (size_t)v;
        for (int k = 0; k < 4; k++) {
            if (!w[k])
                continue;
            float weight = (float)w[k] * (1.0f / 65535.0f);
            const float *b = rows + 12 * (size_t)j[k];
            for (int e = 0; e < 12; e++)
                m[e] += weight * b[e];
        }
        const float *p = a->bind_positions + 3 * (size_t)v, *n = a->bind_normals + 3 * (size_t)v;
        for (int r = 0; r < 3; r++) {
            positions[3 * v + r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
            normals[3 * v + r] = m[4 * r] * n[0] + m[4 * r + 1] * n[1] + m[4 * r + 2] * n[2];
        }
    }
}

crowd_result crowd_gl_skinned_upload(crowd_gl_skinned *s, const crowd_gl_character *characters, uint32_t count,
                                     crowd_error *error)
{
    if (!s || (count && !characters))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_skinned_upload: NULL skinned or characters");
    s->characters = NULL;
    s->count = 0;
    s->stats.bytes_uploaded = 0;
    if (s->cpu && count > s->capacity)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_skinned_upload: %u characters, capacity %u", count,
                          s->capacity);
    for (uint32_t i = 0; i < count; i++)
        if (!characters[i].bone_rows)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_skinned_upload: character %u has no palette", i);
    s->characters = characters;
    s->count = count;
    if (!s->cpu || !count)
        return CROWD_OK;
    size_t vc = s->asset->vertex_count;
    for (uint32_t i = 0; i < count; i++)
        skin_on_cpu(s->asset, characters[i].bone_rows, s->skinned + 6 * vc * i, s->skinned + 6 * vc * i + 3 * vc);
    size_t bytes = (size_t)count * vc * 24;
    glBindBuffer(GL_ARRAY_BUFFER, s->stream);
    /* a fresh store each frame: the driver never waits for last frame's draws to finish reading */
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)s->capacity * vc * 24), NULL, GL_STREAM_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, s->skinned);
    s->stats.bytes_uploaded = bytes;
    return s->r->debug ? crowd_gl_check("skinned upload", error) : CROWD_OK;
}

/* One draw per character; `shadow` selects the depth program. */
static void draw_characters(crowd_gl_skinned *s, const float view_projection[16], bool shadow,
                            const crowd_gl_scene *scene)
{
    const crowd_asset *a = s->asset;
    const skinned_program *p = &s->programs[shadow];
    crowd_frame frame;
    memset(&frame, 0, sizeof frame);
    crowd_gl_begin_program(s->r, &p->program, &frame, view_projection, shadow, scene);
    glBindVertexArray(s->vao);
    if (!a->colors)
        glVertexAttrib4f(2, 1.0f, 1.0f, 1.0f, 1.0f);
    const crowd_lod *lod = &a->lods[0];
    size_t vc = a->vertex_count;
    if (s->cpu)
        glBindBuffer(GL_ARRAY_BUFFER, s->stream);
    for (uint32_t i = 0; i < s->count; i++) {
        const crowd_gl_character *c = &s->characters[i];
        glUniform4f(p->character, c->position[0], c->position[1], c->position[2], c->yaw);
        glUniform1f(p->character_scale, c->scale);
        if (!shadow)
            glUniform2ui(p->character_look, c->tint, c->variant);
        if (s->cpu) {
            uintptr_t base = (uintptr_t)(i * vc * 24);
            glVertexAttribPointer(3, 3, GL_FLOAT, GL_FALSE, 0, (const void *)base);
            glVertexAttribPointer(4, 3, GL_FLOAT, GL_FALSE, 0, (const void *)(base + vc * 12));
        } else {
            glUniform4fv(p->bone_rows, (GLsizei)(3 * a->bone_count), c->bone_rows);
            s->stats.bytes_uploaded += (uint64_t)a->bone_count * 48;
        }
        glDrawElements(GL_TRIANGLES, (GLsizei)lod->index_count, GL_UNSIGNED_INT,
                       (const void *)((uintptr_t)lod->first_index * 4u));
    }
    glBindVertexArray(0);
    if (shadow)
        s->stats.shadow_draws = s->count;
    else {
        s->stats.draws = s->count;
        s->stats.triangles = (uint64_t)lod->triangle_count * s->count;
    }
}

crowd_result crowd_gl_skinned_render_shadows(crowd_gl_skinned *s, const float light_view_projection[16])
{
    if (!s || !light_view_projection)
        return CROWD_ERROR_ARGUMENT;
    crowd_gl_renderer *r = s->r;
    glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
    glViewport(0, 0, (GLsizei)r->shadow_size, (GLsizei)r->shadow_size);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f); /* crowd_gl_render_shadows' bias: both paths self-shadow alike */
    timer_begin(s, 0);
    draw_characters(s, light_view_projection, true, NULL);
    timer_end(s, 0);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindFramebuffer(GL_FRAMEBUFFER, r->target_fbo);
    glViewport(r->target_viewport[0], r->target_viewport[1], r->target_viewport[2], r->target_viewport[3]);
    return crowd_gl_debug_check(r, "skinned shadow pass");
}

crowd_result crowd_gl_skinned_draw(crowd_gl_skinned *s, const crowd_gl_scene *scene)
{
    if (!s || !scene)
        return CROWD_ERROR_ARGUMENT;
    float view_projection[16];
    cb_mat4_mul(view_projection, scene->projection, scene->view);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    if (!scene->shadows)
        s->stats.shadow_draws = 0;
    timer_begin(s, 1);
    draw_characters(s, view_projection, false, scene);
    timer_end(s, 1);
    return crowd_gl_debug_check(s->r, "skinned colour pass");
}

const crowd_gl_skinned_stats *crowd_gl_skinned_get_stats(const crowd_gl_skinned *s)
{
    return s ? &s->stats : NULL;
}
