/* The showcase's stage (stage.h): ground, props, ground paint and sky, drawn with the renderer's light
 * (crowd_gl_lighting_uniforms) and shadow map. Its programs join the renderer's shaders: prop.vert
 * (here) with the renderer's lit.frag and depth.frag, so the ground and the crowd are lit by one code. */
#include "showcase/stage.h"

#include <math.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "gl/gl_api.h"
#include "gl/program.h"
#include "gl/renderer_internal.h"
#include "gl/shaders.h"

extern const char showcase_glsl_prop_vert[];
extern const char showcase_glsl_sky_vert[];
extern const char showcase_glsl_sky_frag[];

/* The paint's texture unit: one no sampler of the renderer's uses (a unit is the context's, and two
 * samplers of different types on one unit fail the draw in WebGL). The shadow map keeps the
 * renderer's unit. */
#define STAGE_UNIT_GROUND_PAINT (UNIT_RECORDS + 1)

/* A static mesh and its instances (the props, the ground). */
typedef struct stage_batch {
    GLuint vao, positions, normals, indices, instances;
    uint32_t index_count, count;
} stage_batch;

struct showcase_stage {
    crowd_program prop[2]; /* [depth only] */
    crowd_program ground;  /* prop.vert + lit.frag with GROUND: lit per vertex (it casts no shadow) */
    crowd_program sky;
    GLuint sky_vao; /* empty: the sky's triangle comes from gl_VertexID */
    stage_batch props, ground_plane;
    float ground_half;  /* the ground covers [-half, half] in x and z at y = 0 */
    bool ground_hidden; /* showcase_stage_show_ground(false): kept, not drawn */
    GLuint paint;       /* borrowed texture over the ground (0: none) */
    float paint_half;   /* it covers [-half, half] in x and z */
    /* showcase_stage_draw drew the ground (depth written) with this view-projection and no sky has
     * run since: the sky may leave out the rows the ground surely covers */
    bool sky_over_ground;
    float ground_vp[16];
    float ground_reach; /* > 0: that ground covers this far around the eye (showcase_stage_ground_drawn) */
};

crowd_result showcase_stage_create(bool es, showcase_stage **out, crowd_error *error)
{
    showcase_stage *s = crowd_calloc(1, sizeof *s);
    if (!s)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "stage: out of memory");
    crowd_result r = CROWD_OK;
    for (int depth = 0; depth < 2 && r == CROWD_OK; depth++)
        r = crowd_program_build(&s->prop[depth], "prop", es, depth ? "DEPTH_ONLY\n" : NULL, showcase_glsl_prop_vert,
                                depth ? crowd_glsl_depth_frag : crowd_glsl_lit_frag, error);
    if (r == CROWD_OK)
        r = crowd_program_build(&s->ground, "ground", es, "GROUND\nGROUND_PAINT\n", showcase_glsl_prop_vert,
                                crowd_glsl_lit_frag, error);
    if (r == CROWD_OK)
        r = crowd_program_build(&s->sky, "sky", es, NULL, showcase_glsl_sky_vert, showcase_glsl_sky_frag, error);
    if (r == CROWD_OK) {
        glGenVertexArrays(1, &s->sky_vao);
        r = crowd_gl_check("stage", error);
    }
    if (r != CROWD_OK) {
        showcase_stage_destroy(s);
        return r;
    }
    *out = s;
    return CROWD_OK;
}

static void release_batch(stage_batch *b)
{
    glDeleteVertexArrays(1, &b->vao);
    GLuint buffers[4] = {b->positions, b->normals, b->indices, b->instances};
    glDeleteBuffers(4, buffers);
    memset(b, 0, sizeof *b);
}

void showcase_stage_destroy(showcase_stage *s)
{
    if (!s)
        return;
    for (int d = 0; d < 2; d++)
        crowd_program_release(&s->prop[d]);
    crowd_program_release(&s->ground);
    crowd_program_release(&s->sky);
    if (s->sky_vao)
        glDeleteVertexArrays(1, &s->sky_vao);
    release_batch(&s->props);
    release_batch(&s->ground_plane);
    crowd_free(s);
}

/* ---- meshes ----------------------------------------------------------------------------------- */

static GLuint buffer(GLenum target, size_t bytes, const void *data)
{
    GLuint b;
    glGenBuffers(1, &b);
    glBindBuffer(target, b);
    glBufferData(target, (GLsizeiptr)bytes, data, GL_STATIC_DRAW);
    return b;
}

static void vertex_attribute(GLuint location, GLuint vbo)
{
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(location);
    glVertexAttribPointer(location, 3, GL_FLOAT, GL_FALSE, 0, NULL);
}

/* The instances' layout (prop.vert): position + yaw, scale + pad, colour (rgba8 as floats). */
static float *instance_data(const showcase_prop *props, uint32_t count)
{
    float *instances = crowd_malloc(sizeof(float) * 12 * (count ? count : 1));
    for (uint32_t i = 0; instances && i < count; i++) {
        float *v = instances + 12 * i;
        const showcase_prop *p = &props[i];
        v[0] = p->position[0], v[1] = p->position[1], v[2] = p->position[2], v[3] = p->yaw;
        v[4] = p->scale[0], v[5] = p->scale[1], v[6] = p->scale[2], v[7] = 0.0f;
        for (int k = 0; k < 4; k++)
            v[8 + k] = p->color[k] / 255.0f;
    }
    return instances;
}

static crowd_result fill_batch(stage_batch *b, const showcase_mesh *m, const showcase_prop *props, uint32_t count,
                               crowd_error *error)
{
    release_batch(b);
    float *instances = instance_data(props, count);
    if (!instances)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "stage: out of memory");
    glGenVertexArrays(1, &b->vao);
    glBindVertexArray(b->vao);
    b->positions = buffer(GL_ARRAY_BUFFER, (size_t)m->vertex_count * 12, m->positions);
    vertex_attribute(0, b->positions);
    b->normals = buffer(GL_ARRAY_BUFFER, (size_t)m->vertex_count * 12, m->normals);
    vertex_attribute(1, b->normals);
    b->indices = buffer(GL_ELEMENT_ARRAY_BUFFER, (size_t)m->index_count * 4, m->indices);
    b->instances = buffer(GL_ARRAY_BUFFER, sizeof(float) * 12 * (count ? count : 1), instances);
    for (GLuint k = 0; k < 3; k++) {
        glEnableVertexAttribArray(8 + k);
        glVertexAttribDivisor(8 + k, 1);
        glVertexAttribPointer(8 + k, 4, GL_FLOAT, GL_FALSE, 48, (const void *)(uintptr_t)(16 * k));
    }
    glBindVertexArray(0);
    crowd_free(instances);
    b->index_count = m->index_count;
    b->count = count;
    return crowd_gl_check("stage", error);
}

crowd_result showcase_stage_set_props(showcase_stage *s, const showcase_mesh *m, const showcase_prop *props,
                                      uint32_t count, crowd_error *error)
{
    if (!s || !m ||
        (count && (!m->positions || !m->normals || !m->indices || !props || !m->vertex_count || m->index_count % 3)))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "showcase_stage_set_props: incomplete mesh");
    for (uint32_t i = 0; i < m->index_count; i++)
        if (m->indices[i] >= m->vertex_count)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "props: index %u out of range", i);
    return fill_batch(&s->props, m, props, count, error);
}

crowd_result showcase_stage_set_ground(showcase_stage *s, float size, const uint8_t color[4], crowd_error *error)
{
    if (!s || !color || !(isfinite(size) && size < 1e6f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "showcase_stage_set_ground: NULL stage or colour, or a size that is not finite");
    static const float positions[12] = {-0.5f, 0, -0.5f, 0.5f, 0, -0.5f, 0.5f, 0, 0.5f, -0.5f, 0, 0.5f};
    static const float normals[12] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0};
    static const uint32_t indices[6] = {0, 2, 1, 0, 3, 2};
    const showcase_mesh plane = {positions, normals, 4, indices, 6};
    showcase_prop ground = {{0, 0, 0}, 0, {size, 1, size}, {color[0], color[1], color[2], color[3]}};
    s->ground_half = size > 0 ? 0.5f * size : 0.0f;
    return fill_batch(&s->ground_plane, &plane, &ground, size > 0 ? 1 : 0, error);
}

void showcase_stage_show_ground(showcase_stage *s, bool show)
{
    if (s)
        s->ground_hidden = !show;
}

void showcase_stage_set_ground_paint(showcase_stage *s, uint32_t texture, float world_size)
{
    if (!s)
        return;
    bool ok = texture && isfinite(world_size) && world_size > 0.0f;
    s->paint = ok ? (GLuint)texture : 0;
    s->paint_half = ok ? 0.5f * world_size : 0.0f;
}

/* ---- passes ----------------------------------------------------------------------------------- */

static void draw_batch(const stage_batch *b)
{
    if (!b->count)
        return;
    glBindVertexArray(b->vao);
    glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)b->index_count, GL_UNSIGNED_INT, NULL, (GLsizei)b->count);
}

void showcase_stage_render_shadows(showcase_stage *s, const crowd_gl_renderer *renderer)
{
    if (!s || !renderer || !s->props.count)
        return;
    crowd_gl_shadow_map map;
    crowd_gl_get_shadow_map(renderer, &map);
    glBindFramebuffer(GL_FRAMEBUFFER, map.framebuffer);
    glViewport(0, 0, (GLsizei)map.size, (GLsizei)map.size);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f); /* the crowd's casters' offset */
    glUseProgram(s->prop[1].id);
    glUniformMatrix4fv(s->prop[1].uniforms[U_VIEW_PROJECTION], 1, GL_FALSE, map.light_view_projection);
    draw_batch(&s->props);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindVertexArray(0);
    glBindFramebuffer(GL_FRAMEBUFFER, map.target_framebuffer);
    glViewport(map.target_viewport[0], map.target_viewport[1], map.target_viewport[2], map.target_viewport[3]);
}

/* A lit program of the stage's, bound: the renderer's lighting and shadow map. */
static void begin_lit(const crowd_program *p, const crowd_gl_renderer *renderer, const crowd_gl_scene *scene,
                      const float view_projection[16])
{
    crowd_gl_shadow_map map;
    crowd_gl_get_shadow_map(renderer, &map);
    glUseProgram(p->id);
    glUniformMatrix4fv(p->uniforms[U_VIEW_PROJECTION], 1, GL_FALSE, view_projection);
    crowd_gl_lighting_uniforms(renderer, p->uniforms, scene);
    glActiveTexture(GL_TEXTURE0 + UNIT_SHADOW_MAP);
    glBindTexture(GL_TEXTURE_2D, map.texture);
    glUniform1i(p->uniforms[U_SHADOW_MAP], UNIT_SHADOW_MAP);
    glUniform1i(p->uniforms[U_ALBEDO], UNIT_ALBEDO); /* (unused here, but never on the shadow map's unit) */
}

/* The ground: colour pass only (it receives shadows but casts none), lit per vertex, the per-pixel
 * cost of the view's largest surface. */
static void draw_ground(showcase_stage *s, const crowd_gl_renderer *renderer, const crowd_gl_scene *scene,
                        const float view_projection[16])
{
    const crowd_program *p = &s->ground;
    begin_lit(p, renderer, scene, view_projection);
    glUniform1i(p->uniforms[U_GROUND_PAINT], s->paint ? 1 : 0);
    glUniform1i(p->uniforms[U_GROUND_PAINT_MAP], STAGE_UNIT_GROUND_PAINT);
    glUniform1f(p->uniforms[U_GROUND_PAINT_HALF], s->paint_half);
    /* bound (or cleared) every time: whatever another pass left on the unit may be an integer
       texture (a draw error in WebGL) */
    glActiveTexture(GL_TEXTURE0 + STAGE_UNIT_GROUND_PAINT);
    glBindTexture(GL_TEXTURE_2D, s->paint);
    draw_batch(&s->ground_plane);
}

void showcase_stage_draw(showcase_stage *s, const crowd_gl_renderer *renderer, const crowd_gl_scene *scene)
{
    if (!s || !renderer || !scene)
        return;
    float view_projection[16];
    cb_mat4_mul(view_projection, scene->projection, scene->view);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    if (s->props.count) {
        begin_lit(&s->prop[0], renderer, scene, view_projection);
        draw_batch(&s->props);
    }
    bool ground = s->ground_plane.count && !s->ground_hidden;
    if (ground)
        draw_ground(s, renderer, scene, view_projection);
    s->sky_over_ground = ground;
    s->ground_reach = 0.0f;
    memcpy(s->ground_vp, view_projection, sizeof view_projection);
    glBindVertexArray(0);
    glActiveTexture(GL_TEXTURE0);
}

/* ---- the sky ----------------------------------------------------------------------------------- */

/* The NDC row below which no pixel needs the sky: the ground was just drawn with this view, and
 * every ray that meets the plane y = 0 closer than the ground's nearest edge (and the far plane) has
 * ground in front of the sky. The covered part of the view is the image of a disc on the ground
 * (convex), so a grid cell whose four corners are all covered is covered: the sky starts at the
 * lowest cell with a corner that is not. -1 (the whole view) when the camera is not above the
 * ground or the projection is not a perspective. */
static float sky_bottom(const showcase_stage *s, const crowd_gl_scene *scene)
{
    const float *v = scene->view, *p = scene->projection;
    if (p[11] > -0.999f || p[11] < -1.001f || p[0] == 0.0f || p[5] == 0.0f)
        return -1.0f;
    float eye[3];
    crowd_gl_eye_of(v, eye);
    float edge = s->ground_reach > 0.0f ? s->ground_reach : s->ground_half - fmaxf(fabsf(eye[0]), fabsf(eye[2]));
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
            float x = -1.0f + 2.0f * (float)i / N, vx = x / p[0], vy = y / p[5], d[3];
            /* the view ray of NDC (x, y) as sky.vert makes it, in world space: transpose(mat3(view)) */
            for (int k = 0; k < 3; k++)
                d[k] = v[4 * k] * vx + v[4 * k + 1] * vy - v[4 * k + 2];
            if (d[1] >= -slope * sqrtf(d[0] * d[0] + d[2] * d[2])) /* it may see past the ground */
                return j ? y - 2.0f / N : -1.0f;                   /* from the cells below it */
        }
    }
    return 1.0f; /* every corner is on the ground: so is the whole view */
}

/* How far up the view the ground surely covers (sky_bottom), once after the ground's draw. */
static float ground_cover(showcase_stage *s, const crowd_gl_scene *scene)
{
    if (!s->sky_over_ground)
        return -1.0f;
    s->sky_over_ground = false; /* a later sky (after a clear) gets the whole view */
    float vp[16];
    cb_mat4_mul(vp, scene->projection, scene->view);
    return memcmp(vp, s->ground_vp, sizeof vp) ? -1.0f : sky_bottom(s, scene);
}

void showcase_stage_ground_drawn(showcase_stage *s, float reach, const crowd_gl_scene *scene)
{
    if (!s || !scene || !(reach > 0.0f) || !isfinite(reach))
        return;
    s->sky_over_ground = true;
    s->ground_reach = reach;
    cb_mat4_mul(s->ground_vp, scene->projection, scene->view);
}

void showcase_stage_draw_sky(showcase_stage *s, const crowd_gl_scene *scene)
{
    if (!s || !scene)
        return;
    float bottom = ground_cover(s, scene);
    glEnable(GL_DEPTH_TEST);
    if (bottom < 1.0f) { /* (the ground covering the whole view: only the state the sky leaves) */
        const GLint *u = s->sky.uniforms;
        glUseProgram(s->sky.id);
        glUniform1f(u[U_SKY_BOTTOM], bottom);
        glUniformMatrix4fv(u[U_SKY_VIEW], 1, GL_FALSE, scene->view);
        glUniform2f(u[U_SKY_FOCAL], scene->projection[0], scene->projection[5]);
        glUniform3fv(u[U_SUN_DIRECTION], 1, scene->sun_direction);
        glUniform3fv(u[U_SUN_COLOR], 1, scene->sun_color);
        glUniform3fv(u[U_SKY_COLOR], 1, scene->sky_color);
        glUniform3fv(u[U_FOG_COLOR], 1, scene->fog_color);
        glUniform2f(u[U_TONE], (float)scene->output, scene->exposure > 0.0f ? scene->exposure : 1.0f);
        /* at the far plane, tested but not written: drawn after the passes it shades only the pixels
           nothing covered, and over the ground only the rows it may not cover */
        glDepthFunc(GL_LEQUAL);
        glDepthMask(GL_FALSE);
        glBindVertexArray(s->sky_vao);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glBindVertexArray(0);
    }
    glDepthMask(GL_TRUE);
    glDepthFunc(GL_LESS);
    glUseProgram(0);
}
