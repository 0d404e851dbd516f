/* The passes: the shadow map (depth only, from the light) and the colour pass. The crowd's draws
 * come from the frame; every pass uses exactly the vertex animation of the colour pass. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/cbmath.h"
#include "common/view_matrices.h"
#include "gl/gpu_crowd.h"
#include "gl/renderer_internal.h"

/* Binds every texture to its fixed unit and tells the program which unit each sampler uses. The
 * shadow pass leaves the shadow map's unit empty: it is the render target then. */
static void bind_textures(const crowd_gl_renderer *r, const crowd_program *p, bool shadow_pass)
{
    static const struct {
        crowd_uniform uniform;
        int unit;
    } samplers[] = {{U_CLIPS, UNIT_CLIPS},
                    {U_VAT_POSITIONS, UNIT_VAT_POSITIONS},
                    {U_VAT_NORMALS, UNIT_VAT_NORMALS},
                    {U_BONES, UNIT_BONES},
                    {U_PALETTE, UNIT_PALETTE},
                    {U_REGIONS, UNIT_REGIONS},
                    {U_SHADOW_MAP, UNIT_SHADOW_MAP},
                    {U_ALBEDO, UNIT_ALBEDO}};
    GLuint textures[8] = {r->tex_clips,
                          r->tex_positions,
                          r->tex_normals,
                          r->tex_bones,
                          r->tex_palette,
                          r->tex_regions,
                          shadow_pass ? 0 : r->shadow_depth,
                          r->tex_albedo};
    for (int i = 0; i < 8; i++) {
        glActiveTexture(GL_TEXTURE0 + (GLenum)i);
        glBindTexture(GL_TEXTURE_2D, textures[i]);
    }
    for (size_t i = 0; i < sizeof samplers / sizeof samplers[0]; i++)
        glUniform1i(p->uniforms[samplers[i].uniform], samplers[i].unit);
}

/* Uniforms that describe the asset and the time, shared by crowd and attachment programs. */
static void asset_uniforms(const crowd_gl_renderer *r, const crowd_program *p, float time)
{
    const crowd_asset *a = r->asset;
    const GLint *u = p->uniforms;
    glUniform1f(u[U_TIME], time);
    glUniform1i(u[U_VERTEX_COUNT], (GLint)a->vertex_count);
    glUniform1i(u[U_VAT_WIDTH], (GLint)a->positions.width);
    glUniform1i(u[U_BONE_WIDTH], (GLint)a->bones.width);
    glUniform1i(u[U_BONE_COUNT], (GLint)a->bone_count);
    float scale[3];
    for (int k = 0; k < 3; k++) {
        float extent = a->bounds_max[k] - a->bounds_min[k];
        /* the same expression as crowd_asset_decode_vertex: verify measures what is drawn */
        scale[k] = a->position_encoding == CROWD_POSITION_F16_BOX ? extent : extent / 65535.0f;
    }
    glUniform3fv(u[U_BOX_MIN], 1, a->bounds_min);
    glUniform3fv(u[U_BOX_SCALE], 1, scale);
    glUniform1i(u[U_TINT_REGION], r->tint_region);
}

void crowd_gl_lighting_uniforms(const crowd_gl_renderer *r, const GLint *u, const crowd_gl_scene *s)
{
    float camera[3];
    crowd_gl_eye_of(s->view, camera);
    glUniform3fv(u[U_CAMERA], 1, camera);
    glUniform3fv(u[U_SUN_DIRECTION], 1, s->sun_direction);
    glUniform3fv(u[U_SUN_COLOR], 1, s->sun_color);
    glUniform3fv(u[U_SKY_COLOR], 1, s->sky_color);
    glUniform3fv(u[U_GROUND_COLOR], 1, s->ground_color);
    glUniform3fv(u[U_FOG_COLOR], 1, s->fog_color);
    glUniform1f(u[U_FOG_DENSITY], s->fog_density);
    glUniform1i(u[U_SHADOWS], s->shadows ? 1 : 0);
    glUniform2f(u[U_SHADOW_TEXEL], 1.0f / (float)r->shadow_size, 1.0f / (float)r->shadow_size);
    glUniformMatrix4fv(u[U_LIGHT_VIEW_PROJECTION], 1, GL_FALSE, r->light_view_projection);
    glUniform1i(u[U_FLAT], s->flat_color ? 1 : 0);
    glUniform1i(u[U_OUTPUT], r->output_normals ? 1 : 0);
    glUniform2f(u[U_TONE], (float)s->output, s->exposure > 0.0f ? s->exposure : 1.0f);
}

void crowd_gl_get_shadow_map(const crowd_gl_renderer *r, crowd_gl_shadow_map *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!r)
        return;
    out->texture = r->shadow_depth;
    out->framebuffer = r->shadow_fbo;
    out->size = r->shadow_size;
    memcpy(out->light_view_projection, r->light_view_projection, sizeof out->light_view_projection);
    out->target_framebuffer = r->target_fbo;
    memcpy(out->target_viewport, r->target_viewport, sizeof out->target_viewport);
}

/* Binds a program for the crowd or an attachment and sets what both share: textures, the asset's
 * decode uniforms, the camera and (colour pass only) the lighting. */
void crowd_gl_attachment_begin(const crowd_gl_renderer *r, const crowd_program *p, const crowd_gl_attachment *at,
                               bool shadow, const crowd_gl_scene *scene)
{
    glUniform1i(p->uniforms[U_BONE], (GLint)at->bone);
    glUniformMatrix4fv(p->uniforms[U_OFFSET], 1, GL_FALSE, at->offset);
    glUniform1ui(p->uniforms[U_ACCESSORY_BIT], at->accessory_bit);
    /* the size test: pixels across per metre at a view depth of 1 m (the projection's y scale times
       half the viewport's height); 0 turns it off (the shadow pass) */
    float per_metre = shadow || !scene ? 0.0f : scene->projection[5] * 0.5f * (float)r->target_viewport[3];
    glUniform3f(p->uniforms[U_ATTACHMENT], at->radius, at->min_pixels, per_metre);
    if (shadow)
        return;
    glUniform3fv(p->uniforms[U_COLOR], 1, at->color);
    glUniform2f(p->uniforms[U_ATTACHMENT_LOOK], at->texture ? 1.0f : 0.0f, at->tinted ? 1.0f : 0.0f);
    glActiveTexture(GL_TEXTURE0 + UNIT_ALBEDO); /* its texture where the body's albedo was bound */
    glBindTexture(GL_TEXTURE_2D, at->texture ? at->texture : r->tex_albedo);
}

void crowd_gl_begin_program(crowd_gl_renderer *r, const crowd_program *p, const crowd_frame *f,
                            const float view_projection[16], bool shadow, const crowd_gl_scene *scene)
{
    glUseProgram(p->id);
    bind_textures(r, p, shadow);
    asset_uniforms(r, p, f->time);
    glUniformMatrix4fv(p->uniforms[U_VIEW_PROJECTION], 1, GL_FALSE, view_projection);
    if (!shadow)
        crowd_gl_lighting_uniforms(r, p->uniforms, scene);
    if (!shadow && crowd_gl_velocity_written(r))
        crowd_gl_velocity_uniforms(r, p->uniforms);
}

/* The crowd's draws with one program family; `shadow` selects the depth programs and the draws
 * flagged to cast. Counts what it issues. */
static void draw_crowd(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16], bool shadow,
                       const crowd_gl_scene *scene)
{
    const crowd_asset *a = r->asset;
    int bones = r->mode == CROWD_GL_BONES;
    uint32_t *draws = shadow ? &r->stats.shadow_draws : &r->stats.draws;
    uint64_t *triangles = shadow ? &r->stats.shadow_triangles : &r->stats.triangles;
    bool gpu = crowd_gpu_crowd_driven(r);
    if (gpu) /* GPU-driven path: the body from the cull pass's partitions */
        crowd_gpu_crowd_draw(r, f, view_projection, shadow, scene);
    for (int fade = 0; fade < 2 && !gpu; fade++) {
        const crowd_program *p = &r->crowd[bones][fade][crowd_gl_program_variant(r, shadow)];
        bool used = false;
        for (uint32_t d = 0; d < f->draw_count; d++) {
            const crowd_draw *draw = &f->draws[d];
            bool wants_fade = r->cross_fade && (draw->flags & CROWD_DRAW_CROSS_FADE);
            if ((shadow && !(draw->flags & CROWD_DRAW_SHADOW)) || wants_fade != (fade != 0) ||
                (draw->flags & CROWD_DRAW_IMPOSTER))
                continue;
            if (!used) {
                crowd_gl_begin_program(r, p, f, view_projection, shadow, scene);
                glBindVertexArray(r->vao);
                if (!a->colors)
                    glVertexAttrib4f(2, 1.0f, 1.0f, 1.0f, 1.0f); /* generic value: white vertex colours */
                used = true;
            }
            const crowd_lod *lod = &a->lods[draw->lod];
            /* a band chunk: the cards take their share of these records (imposter.c) */
            bool band = !shadow && (draw->flags & CROWD_DRAW_BAND);
            glUniform3f(p->uniforms[U_BAND], f->imposter_band[0], f->imposter_band[1], band ? 2.0f : 0.0f);
            crowd_gl_bind_instances(r, draw->first);
            glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)lod->index_count, GL_UNSIGNED_INT,
                                    (const void *)((uintptr_t)lod->first_index * 4u), (GLsizei)draw->count);
            (*draws)++;
            *triangles += (uint64_t)lod->triangle_count * draw->count;
        }
    }
    if (gpu) { /* GPU-driven path: attachments from the same partitions */
        crowd_gpu_attachments_draw(r, f, view_projection, shadow, scene);
        return;
    }
    for (uint32_t i = 0; i < r->attachment_count; i++) {
        const crowd_gl_attachment *at = &r->attachments[i];
        const crowd_program *p = &r->attachment[crowd_gl_program_variant(r, shadow)];
        bool used = false;
        for (uint32_t d = 0; d < f->draw_count; d++) {
            const crowd_draw *draw = &f->draws[d];
            if (draw->lod > at->max_lod || (shadow && !(draw->flags & CROWD_DRAW_SHADOW)) ||
                (draw->flags & CROWD_DRAW_IMPOSTER))
                continue; /* none on the cards */
            if (!used) {
                crowd_gl_begin_program(r, p, f, view_projection, shadow, scene);
                crowd_gl_attachment_begin(r, p, at, shadow, scene);
                glBindVertexArray(at->vao);
                used = true;
            }
            /* a band chunk: worn by the instances the mesh keeps (the cards take the others) */
            bool band = !shadow && (draw->flags & CROWD_DRAW_BAND);
            glUniform3f(p->uniforms[U_BAND], f->imposter_band[0], f->imposter_band[1], band ? 2.0f : 0.0f);
            crowd_gl_bind_instances(r, draw->first);
            glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)at->index_count, GL_UNSIGNED_INT, NULL,
                                    (GLsizei)draw->count);
            (*draws)++;
            *triangles += (uint64_t)at->index_count / 3 * draw->count;
        }
    }
}

void crowd_gl_fit_shadow(const crowd_gl_renderer *r, const float dir[3], const float centre[3], float radius,
                         float out[16])
{
    float eye[3] = {centre[0] + dir[0] * radius * 2.0f, centre[1] + dir[1] * radius * 2.0f,
                    centre[2] + dir[2] * radius * 2.0f};
    float up[3] = {0.0f, 1.0f, 0.0f};
    if (fabsf(dir[1]) > 0.99f)
        up[1] = 0.0f, up[2] = 1.0f;
    float view[16], projection[16];
    cb_look_at(view, eye, centre, up);
    /* Snap the box to whole texels in light space: the same world point always lands on the same
     * texel as the centre follows the camera, so shadow edges do not crawl. */
    float texel = 2.0f * radius / (float)(r ? r->shadow_size : 2048);
    float cx = view[0] * centre[0] + view[4] * centre[1] + view[8] * centre[2] + view[12];
    float cy = view[1] * centre[0] + view[5] * centre[1] + view[9] * centre[2] + view[13];
    float sx = floorf(cx / texel) * texel - cx, sy = floorf(cy / texel) * texel - cy;
    cb_orthographic(projection, -radius + sx + cx, radius + sx + cx, -radius + sy + cy, radius + sy + cy, 0.1f,
                    radius * 4.0f);
    cb_mat4_mul(out, projection, view);
}

/* Timer queries: pass p's query of frame k lives in slot k % SLOTS; before issuing frame k's, the
 * query of frame k - LATENCY is polled once (availability) and read if it is done. Never waited
 * for: a result that is late is skipped, and its slot is simply reused. */
static void timer_poll(crowd_gl_renderer *r, int pass)
{
    uint32_t k = r->issued[pass];
    if (k < CROWD_GL_TIMER_LATENCY)
        return;
    GLuint q = r->queries[pass][(k - CROWD_GL_TIMER_LATENCY) % CROWD_GL_TIMER_SLOTS];
    GLuint available = 0, ns = 0;
    glGetQueryObjectuiv(q, GL_QUERY_RESULT_AVAILABLE, &available);
    if (!available)
        return;
    glGetQueryObjectuiv(q, GL_QUERY_RESULT, &ns);
    double ms = (double)ns / 1e6;
    if (pass == 0)
        r->stats.gpu_shadow_ms = ms;
    else
        r->stats.gpu_color_ms = ms;
}

void crowd_gl_timer_begin(crowd_gl_renderer *r, int pass)
{
    if (!r->timers)
        return;
    timer_poll(r, pass);
    glBeginQuery(r->timer_target, r->queries[pass][r->issued[pass] % CROWD_GL_TIMER_SLOTS]);
}

void crowd_gl_timer_end(crowd_gl_renderer *r, int pass)
{
    if (!r->timers)
        return;
    glEndQuery(r->timer_target);
    r->issued[pass]++;
}

/* A frame the crowd left to a GPU pass (crowd_view.culling) has no draw list: only this renderer's
 * own cull pass can draw it. */
static crowd_result check_culling(crowd_gl_renderer *r, const crowd_frame *f, const char *who)
{
    if (f->culling != CROWD_CULLING_GPU || crowd_gpu_crowd_driven(r))
        return CROWD_OK;
    snprintf(r->last_error, sizeof r->last_error, "%s: the frame was left to a GPU pass (crowd_view.culling), %s", who,
             crowd_gl_get_path(r) == CROWD_GL_PATH_GPU
                 ? "and crowd_gl_cull has not run"
                 : "but this renderer draws on the CPU path (crowd_gl_view fills a view that matches it)");
    return CROWD_ERROR_ARGUMENT;
}

crowd_result crowd_gl_render_shadows(crowd_gl_renderer *r, const crowd_frame *f, const float light_view_projection[16])
{
    if (!r || !f || !light_view_projection)
        return CROWD_ERROR_ARGUMENT;
    crowd_result culled = check_culling(r, f, "crowd_gl_render_shadows");
    if (culled != CROWD_OK)
        return culled;
    memcpy(r->light_view_projection, light_view_projection, sizeof r->light_view_projection);
    crowd_gl_timer_begin(r, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
    glViewport(0, 0, (GLsizei)r->shadow_size, (GLsizei)r->shadow_size);
    if (!r->shadow_shared) /* a shared map was cleared by its owner's pass and holds its casters */
        glClear(GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f);
    r->stats.shadow_draws = 0;
    r->stats.shadow_triangles = 0;
    draw_crowd(r, f, light_view_projection, true, NULL);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindFramebuffer(GL_FRAMEBUFFER, r->target_fbo);
    glViewport(r->target_viewport[0], r->target_viewport[1], r->target_viewport[2], r->target_viewport[3]);
    glBindVertexArray(0);
    crowd_gl_timer_end(r, 0);
    return crowd_gl_debug_check(r, "shadow pass");
}

/* A frame's draw refused before any GL call: culling missing, or the velocity fields out of range. */
static crowd_result check_draw(crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *scene,
                               const char *what)
{
    if (!r || !f || !scene)
        return CROWD_ERROR_ARGUMENT;
    crowd_result culled = check_culling(r, f, what);
    if (culled != CROWD_OK)
        return culled;
    if ((r->velocity || r->velocity_pass) && ((unsigned)scene->previous > CROWD_GL_PREVIOUS_GIVEN ||
                                              (unsigned)scene->velocity_units > CROWD_GL_VELOCITY_NDC)) {
        snprintf(r->last_error, sizeof r->last_error, "%s: scene previous %d / velocity_units %d out of range", what,
                 (int)scene->previous, (int)scene->velocity_units);
        return CROWD_ERROR_ARGUMENT;
    }
    return CROWD_OK;
}

/* The crowd's bodies, attachments and cards with the colour family's programs (the velocity pass's
 * inside crowd_gl_draw_velocity), resolving "a frame earlier" around them where velocity is written. */
static void draw_colour_family(crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *scene)
{
    float view_projection[16];
    cb_mat4_mul(view_projection, scene->projection, scene->view);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    crowd_gl_velocity_begin(r, f, view_projection, scene);
    draw_crowd(r, f, view_projection, false, scene); /* nothing here blends */
    if (!crowd_gpu_crowd_driven(r))                  /* the GPU path's cards come with its partitions */
        crowd_gl_imposter_draw(r, f, view_projection, scene);
    crowd_gl_velocity_end(r, f, view_projection, scene);
    glBindVertexArray(0);
    glActiveTexture(GL_TEXTURE0); /* code after us that binds a texture binds it on unit 0 */
}

crowd_result crowd_gl_draw(crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *scene)
{
    crowd_result checked = check_draw(r, f, scene, "crowd_gl_draw");
    if (checked != CROWD_OK)
        return checked;
    crowd_gl_timer_begin(r, 1);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    r->stats.draws = 0;
    r->stats.triangles = 0;
    if (!scene->shadows) { /* no shadow pass feeds this frame: its figures must not linger */
        r->stats.shadow_draws = 0;
        r->stats.shadow_triangles = 0;
        r->stats.gpu_shadow_ms = r->timers ? 0.0 : -1.0;
    }
    draw_colour_family(r, f, scene);
    crowd_gl_timer_end(r, 1);
    return crowd_gl_debug_check(r, "colour pass");
}

crowd_result crowd_gl_draw_velocity(crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *scene)
{
    crowd_result checked = check_draw(r, f, scene, "crowd_gl_draw_velocity");
    if (checked == CROWD_OK && !r->velocity_pass) {
        snprintf(r->last_error, sizeof r->last_error,
                 "crowd_gl_draw_velocity: the renderer was created with velocity %d, not CROWD_GL_VELOCITY_PASS",
                 (int)r->desc.velocity);
        checked = CROWD_ERROR_ARGUMENT;
    }
    if (checked != CROWD_OK)
        return checked;
    /* the same surfaces as the colour pass (invariant positions): LEQUAL passes them against its
       depth, or against a depth buffer of the caller's own this pass writes */
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_TRUE);
    uint32_t draws = r->stats.draws;
    uint64_t triangles = r->stats.triangles;
    r->drawing_velocity = true;
    draw_colour_family(r, f, scene);
    r->drawing_velocity = false;
    r->stats.draws = draws, r->stats.triangles = triangles; /* the stats stay the colour pass's */
    glDepthFunc(GL_LESS);
    return crowd_gl_debug_check(r, "velocity pass");
}
