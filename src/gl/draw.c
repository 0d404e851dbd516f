/* The passes: the shadow map (depth only, from the light) and the colour pass. The crowd's draws
 * come from the frame; every pass uses exactly the vertex animation of the colour pass. */
#include <math.h>
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

static void lighting_uniforms(const crowd_gl_renderer *r, const crowd_program *p, const crowd_gl_scene *s)
{
    const GLint *u = p->uniforms;
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

/* The NDC row below which no pixel needs the sky: the renderer's ground was just drawn with this
 * view, and every ray that meets the plane y = 0 closer than the ground's nearest edge (and the far
 * plane) has ground in front of the sky. Measured in Chromium's SwiftShader, the sky's full-screen
 * triangle cost about as much in the pixels it lost the depth test on as in those it shaded: at the
 * seed's camera, leaving out the rows below the horizon saved ~30 ms of a 130 ms empty frame. The
 * covered part of the view is the image of a disc on the ground (convex), so a grid cell whose four
 * corners are all covered is covered: the sky starts at the lowest cell with a corner that is not.
 * -1 (the whole view) when the camera is not above the ground or the projection is not a perspective. */
static float sky_bottom(const crowd_gl_renderer *r, const crowd_gl_scene *s)
{
    const float *v = s->view, *p = s->projection;
    if (p[11] > -0.999f || p[11] < -1.001f || p[0] == 0.0f || p[5] == 0.0f)
        return -1.0f;
    float eye[3];
    crowd_gl_eye_of(v, eye);
    float edge = r->ground_half - fmaxf(fabsf(eye[0]), fabsf(eye[2]));
    float h = eye[1];
    /* the far plane's distance (infinite when p[10] is -1); the ground beyond it is clipped */
    float far = p[10] + 1.0f < -1e-6f ? p[14] / (p[10] + 1.0f) : INFINITY;
    if (!(h > 1e-3f) || !(edge > 0.0f) || !(far > h))
        return -1.0f;
    float reach = fminf(edge, sqrtf(far * far - h * h)); /* horizontal distance surely on the ground */
    float slope = 1.02f * h / reach;                     /* rays less steep than this may miss it: 2 % to spare */
    enum { N = 32 };
    for (int j = 0; j <= N; j++) { /* rows of corners, bottom up: the first with one that needs the sky */
        float y = -1.0f + 2.0f * (float)j / N;
        for (int i = 0; i <= N; i++) {
            float x = -1.0f + 2.0f * (float)i / N;
            /* the view ray of NDC (x, y) as sky.vert makes it, in world space: transpose(mat3(view)) */
            float vx = x / p[0], vy = y / p[5];
            float d[3];
            for (int k = 0; k < 3; k++)
                d[k] = v[4 * k] * vx + v[4 * k + 1] * vy - v[4 * k + 2];
            if (d[1] >= -slope * sqrtf(d[0] * d[0] + d[2] * d[2])) /* it may see past the ground */
                return j ? y - 2.0f / N : -1.0f;                   /* from the cells below it */
        }
    }
    return 1.0f; /* every corner is on the ground: so is the whole view */
}

void crowd_gl_draw_sky(const crowd_gl_renderer *r, const crowd_gl_scene *s)
{
    if (!r || !s || !r->sky.id)
        return;
    float bottom = -1.0f;
    if (r->sky_over_ground) {
        float vp[16];
        cb_mat4_mul(vp, s->projection, s->view);
        if (!memcmp(vp, r->sky_ground_vp, sizeof vp))
            bottom = sky_bottom(r, s);
        /* used once: a later sky (after a clear, or before this renderer's next pass) gets the whole view.
           The flag is the renderer's own bookkeeping, not state the caller sees, hence the cast. */
        ((crowd_gl_renderer *)r)->sky_over_ground = false;
    }
    if (bottom >= 1.0f) { /* the ground covers the whole view: only the state the sky leaves */
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glDepthMask(GL_TRUE);
        glUseProgram(0);
        return;
    }
    const GLint *u = r->sky.uniforms;
    glUseProgram(r->sky.id);
    glUniform1f(u[U_SKY_BOTTOM], bottom);
    glUniformMatrix4fv(u[U_SKY_VIEW], 1, GL_FALSE, s->view);
    glUniform2f(u[U_SKY_FOCAL], s->projection[0], s->projection[5]);
    glUniform3fv(u[U_SUN_DIRECTION], 1, s->sun_direction);
    glUniform3fv(u[U_SUN_COLOR], 1, s->sun_color);
    glUniform3fv(u[U_SKY_COLOR], 1, s->sky_color);
    glUniform3fv(u[U_FOG_COLOR], 1, s->fog_color);
    glUniform2f(u[U_TONE], (float)s->output, s->exposure > 0.0f ? s->exposure : 1.0f);
    /* at the far plane, tested but not written: drawn after the passes it shades only the pixels
       nothing covered (early depth rejection), and over the ground only the rows it may not cover */
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    glBindVertexArray(r->sky_vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glDepthMask(GL_TRUE);
    glDepthFunc(GL_LESS);
    glUseProgram(0);
}

static void draw_batch(const crowd_gl_batch *b)
{
    if (!b->count)
        return;
    glBindVertexArray(b->vao);
    glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)b->index_count, GL_UNSIGNED_INT, NULL, (GLsizei)b->count);
}

/* Binds a program for the crowd or an attachment and sets what both share: textures, the asset's
 * decode uniforms, the camera and (colour pass only) the lighting. */
void crowd_gl_begin_program(crowd_gl_renderer *r, const crowd_program *p, const crowd_frame *f,
                            const float view_projection[16], bool shadow, const crowd_gl_scene *scene)
{
    glUseProgram(p->id);
    bind_textures(r, p, shadow);
    asset_uniforms(r, p, f->time);
    glUniformMatrix4fv(p->uniforms[U_VIEW_PROJECTION], 1, GL_FALSE, view_projection);
    if (!shadow)
        lighting_uniforms(r, p, scene);
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
        const crowd_program *p = &r->crowd[bones][fade][shadow];
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
        const crowd_program *p = &r->attachment[shadow];
        bool used = false;
        for (uint32_t d = 0; d < f->draw_count; d++) {
            const crowd_draw *draw = &f->draws[d];
            if (draw->lod > at->max_lod || (shadow && !(draw->flags & CROWD_DRAW_SHADOW)) ||
                (draw->flags & (CROWD_DRAW_IMPOSTER | CROWD_DRAW_BAND)))
                continue; /* none on cards, nor in the hand-off band (part of it is cards) */
            if (!used) {
                crowd_gl_begin_program(r, p, f, view_projection, shadow, scene);
                glUniform1i(p->uniforms[U_BONE], (GLint)at->bone);
                glUniformMatrix4fv(p->uniforms[U_OFFSET], 1, GL_FALSE, at->offset);
                glUniform1ui(p->uniforms[U_ACCESSORY_BIT], at->accessory_bit);
                if (!shadow)
                    glUniform3fv(p->uniforms[U_COLOR], 1, at->color);
                glBindVertexArray(at->vao);
                used = true;
            }
            crowd_gl_bind_instances(r, draw->first);
            glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)at->index_count, GL_UNSIGNED_INT, NULL,
                                    (GLsizei)draw->count);
            (*draws)++;
            *triangles += (uint64_t)at->index_count / 3 * draw->count;
        }
    }
}

static void draw_props(crowd_gl_renderer *r, const float view_projection[16], bool shadow, const crowd_gl_scene *scene)
{
    const crowd_program *p = &r->prop[shadow];
    glUseProgram(p->id);
    bind_textures(r, p, shadow);
    glUniformMatrix4fv(p->uniforms[U_VIEW_PROJECTION], 1, GL_FALSE, view_projection);
    if (!shadow)
        lighting_uniforms(r, p, scene);
    draw_batch(&r->props);
}

/* The ground: colour pass only (it receives shadows but casts none). Its own program: a flat face
 * lit per vertex, the per-pixel cost of the view's largest surface. */
static void draw_ground(crowd_gl_renderer *r, const float view_projection[16], const crowd_gl_scene *scene)
{
    if (!r->ground.count)
        return;
    const crowd_program *p = &r->ground_program;
    glUseProgram(p->id);
    bind_textures(r, p, false);
    glUniformMatrix4fv(p->uniforms[U_VIEW_PROJECTION], 1, GL_FALSE, view_projection);
    lighting_uniforms(r, p, scene);
    glUniform1i(p->uniforms[U_GROUND_PAINT], 0);
    glUniform1i(p->uniforms[U_GROUND_PAINT_MAP], UNIT_GROUND_PAINT);
    /* bound (or cleared) every time: texture units are the context's, and whatever another
       renderer or the demo left on this one may be an integer texture (a draw error in WebGL) */
    glActiveTexture(GL_TEXTURE0 + UNIT_GROUND_PAINT);
    glBindTexture(GL_TEXTURE_2D, r->ground_paint);
    if (r->ground_paint) {
        glUniform1i(p->uniforms[U_GROUND_PAINT], 1);
        glUniform1f(p->uniforms[U_GROUND_PAINT_HALF], r->ground_paint_half);
    }
    draw_batch(&r->ground);
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

crowd_result crowd_gl_render_shadows(crowd_gl_renderer *r, const crowd_frame *f, const float light_view_projection[16])
{
    if (!r || !f || !light_view_projection)
        return CROWD_ERROR_ARGUMENT;
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
    draw_props(r, light_view_projection, true, NULL);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindFramebuffer(GL_FRAMEBUFFER, r->target_fbo);
    glViewport(r->target_viewport[0], r->target_viewport[1], r->target_viewport[2], r->target_viewport[3]);
    glBindVertexArray(0);
    crowd_gl_timer_end(r, 0);
    return crowd_gl_debug_check(r, "shadow pass");
}

crowd_result crowd_gl_draw(crowd_gl_renderer *r, const crowd_frame *f, const crowd_gl_scene *scene)
{
    if (!r || !f || !scene)
        return CROWD_ERROR_ARGUMENT;
    float view_projection[16];
    cb_mat4_mul(view_projection, scene->projection, scene->view);
    crowd_gl_timer_begin(r, 1);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    r->stats.draws = 0;
    r->stats.triangles = 0;
    if (!scene->shadows) { /* no shadow pass feeds this frame: its figures must not linger */
        r->stats.shadow_draws = 0;
        r->stats.shadow_triangles = 0;
        r->stats.gpu_shadow_ms = r->timers ? 0.0 : -1.0;
    }
    /* the crowd before the ground: the ground's pixels under people then fail the depth test early
       instead of being shaded (shadow taps, fog) and overdrawn; nothing here blends */
    draw_crowd(r, f, view_projection, false, scene);
    if (!crowd_gpu_crowd_driven(r)) /* the GPU path's cards come with its partitions */
        crowd_gl_imposter_draw(r, f, view_projection, scene);
    draw_props(r, view_projection, false, scene);
    draw_ground(r, view_projection, scene);
    r->sky_over_ground = r->ground.count > 0;
    memcpy(r->sky_ground_vp, view_projection, sizeof view_projection);
    if (r->ground.count) /* far shadows: onto the ground, so after it (else crowd_gl_draw_far_shadows) */
        crowd_gl_blob_draw(r, f, view_projection, scene);
    glBindVertexArray(0);
    glActiveTexture(GL_TEXTURE0); /* code after us that binds a texture binds it on unit 0 */
    crowd_gl_timer_end(r, 1);
    return crowd_gl_debug_check(r, "colour pass");
}
