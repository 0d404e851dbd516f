/* The paint minigun's effects (showcase/paint.h): tracer and droplet rings evaluated by
 * the vertex shader from time alone, splats queued at their analytic landing time and drawn once
 * into a world-covering paint texture, and the floor quad that shows it. */
#include "showcase/paint.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "crowdbake/gl.h"
#include "gl/gl_api.h"
#include "gl/program.h"

#define FAR_PAST (-3.0e38f) /* an empty ring record's spawn time: its age is past any life */

/* ---- shaders ------------------------------------------------------------------------------------ */

/* A droplet: origin + v t + g t^2 / 2 from its spawn, hidden before it and after it lands. */
static const char droplet_vert[] =
    "layout(location = 0) in vec4 a_origin;   /* xyz, spawn time */\n"
    "layout(location = 1) in vec4 a_velocity; /* xyz m/s, flight time */\n"
    "layout(location = 2) in vec4 a_color;\n"
    "uniform mat4 u_view_projection;\n"
    "uniform float u_time, u_gravity, u_point_scale, u_size;\n"
    "out vec4 v_color;\n"
    "void main() {\n"
    "    float t = u_time - a_origin.w;\n"
    "    v_color = a_color;\n"
    "    if (!(t >= 0.0 && t <= a_velocity.w)) {\n"
    "        gl_Position = vec4(2.0, 2.0, 2.0, 1.0); /* outside the clip volume */\n"
    "        gl_PointSize = 1.0;\n"
    "        return;\n"
    "    }\n"
    "    vec3 p = a_origin.xyz + a_velocity.xyz * t + vec3(0.0, -0.5 * u_gravity * t * t, 0.0);\n"
    "    gl_Position = u_view_projection * vec4(p, 1.0);\n"
    "    gl_PointSize = clamp(u_size * u_point_scale / max(gl_Position.w, 0.05), 2.5, 24.0);\n"
    "}\n";

/* A round drop, darker at its rim: it stands out against a sky or a floor of its own colour. */
static const char droplet_frag[] = "in vec4 v_color;\n"
                                   "out vec4 o_color;\n"
                                   "void main() {\n"
                                   "    vec2 d = gl_PointCoord * 2.0 - 1.0;\n"
                                   "    float r2 = dot(d, d);\n"
                                   "    if (r2 > 1.0) discard;\n"
                                   "    o_color = vec4(v_color.rgb * (0.6 + 0.4 * sqrt(1.0 - r2)), 1.0);\n"
                                   "}\n";

/* A tracer: the whole segment at once (an instant laser flash), fading over its life: a beam of
 * pixels across (u_width metres at the near end, never under 3 or over 16 pixels), built in screen
 * space from the segment's ends, clipped to in front of the eye first (a point behind it has no
 * place on the screen). */
static const char tracer_vert[] =
    "layout(location = 0) in vec2 a_corner; /* x: 0 at the muzzle, 1 at the target; y: -1 / 1 across */\n"
    "layout(location = 1) in vec4 a_from;   /* xyz, spawn time */\n"
    "layout(location = 2) in vec3 a_to;\n"
    "layout(location = 3) in vec4 a_color;\n"
    "uniform mat4 u_view_projection;\n"
    "uniform float u_time, u_life, u_point_scale, u_width;\n"
    "uniform vec2 u_viewport;\n"
    "out vec4 v_color;\n"
    "out float v_across;\n"
    "void main() {\n"
    "    float t = u_time - a_from.w;\n"
    "    vec4 a = u_view_projection * vec4(a_from.xyz, 1.0), b = u_view_projection * vec4(a_to, 1.0);\n"
    "    const float near_w = 0.02;\n"
    "    v_color = vec4(0.0);\n"
    "    v_across = a_corner.y;\n"
    "    if (!(t >= 0.0 && t <= u_life) || (a.w < near_w && b.w < near_w)) {\n"
    "        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);\n"
    "        return;\n"
    "    }\n"
    "    if (a.w < near_w) a = mix(a, b, (near_w - a.w) / (b.w - a.w));\n"
    "    if (b.w < near_w) b = mix(b, a, (near_w - b.w) / (a.w - b.w));\n"
    "    vec2 along = (b.xy / b.w - a.xy / a.w) * u_viewport;\n"
    "    along = dot(along, along) > 1e-8 ? normalize(along) : vec2(1.0, 0.0);\n"
    "    vec4 p = a_corner.x < 0.5 ? a : b;\n"
    "    float pixels = clamp(u_width * u_point_scale / p.w, 3.0, 16.0);\n"
    "    p.xy += vec2(-along.y, along.x) * a_corner.y * pixels / u_viewport * p.w;\n"
    "    gl_Position = p;\n"
    "    v_color = vec4(a_color.rgb, 1.0 - t / u_life);\n"
    "}\n";

/* The beam's colour at full strength across its middle, brighter at its core, its edges soft;
 * premultiplied "over" (see draw_flight): its hue shows as it is against any background. */
static const char tracer_frag[] = "in vec4 v_color;\n"
                                  "in float v_across;\n"
                                  "out vec4 o_color;\n"
                                  "void main() {\n"
                                  "    float edge = abs(v_across);\n"
                                  "    float alpha = v_color.a * (1.0 - smoothstep(0.55, 1.0, edge));\n"
                                  "    vec3 rgb = min(v_color.rgb * (1.0 + 0.35 * (1.0 - edge)), vec3(1.0));\n"
                                  "    o_color = vec4(rgb * alpha, alpha);\n"
                                  "}\n";

/* A splat into the paint texture: a quad in world x/z mapped onto the texture (z = -size/2 is row 0). */
static const char splat_vert[] = "layout(location = 0) in vec2 a_corner;\n"
                                 "layout(location = 1) in vec3 a_splat; /* x, z, radius */\n"
                                 "layout(location = 2) in vec4 a_color;\n"
                                 "uniform float u_half;\n"
                                 "out vec2 v_local;\n"
                                 "out vec4 v_color;\n"
                                 "void main() {\n"
                                 "    v_local = a_corner;\n"
                                 "    v_color = a_color;\n"
                                 "    vec2 p = a_splat.xy + a_corner * a_splat.z;\n"
                                 "    gl_Position = vec4(p / u_half, 0.0, 1.0);\n"
                                 "}\n";

/* A soft blob, its edge roughened by the angle so speckles do not look stamped. Premultiplied
 * "over" into the texture (see the blend in update). */
static const char splat_frag[] =
    "in vec2 v_local;\n"
    "in vec4 v_color;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "    float a = atan(v_local.y, v_local.x);\n"
    "    float edge = 0.8 + 0.12 * sin(a * 5.0 + v_color.r * 17.0) + 0.08 * sin(a * 11.0);\n"
    "    float d = length(v_local) / edge;\n"
    "    float alpha = v_color.a * (1.0 - smoothstep(0.75, 1.0, d));\n"
    "    if (alpha <= 0.0) discard;\n"
    "    o_color = vec4(v_color.rgb, alpha);\n"
    "}\n";

/* The floor paint: one quad over the ground, the texture premultiplied, lit by one factor. */
static const char floor_vert[] =
    "layout(location = 0) in vec2 a_corner;\n"
    "uniform mat4 u_view_projection;\n"
    "uniform float u_half, u_ground;\n"
    "out vec2 v_uv;\n"
    "void main() {\n"
    "    v_uv = a_corner * 0.5 + 0.5;\n"
    "    gl_Position = u_view_projection * vec4(a_corner.x * u_half, u_ground, a_corner.y * u_half, 1.0);\n"
    "}\n";

static const char floor_frag[] = "in vec2 v_uv;\n"
                                 "uniform sampler2D u_paint;\n"
                                 "uniform float u_shade;\n"
                                 "out vec4 o_color;\n"
                                 "void main() {\n"
                                 "    vec4 c = texture(u_paint, v_uv);\n"
                                 "    if (c.a <= 0.0) discard;\n"
                                 "    o_color = vec4(c.rgb * u_shade, c.a);\n"
                                 "}\n";

/* ---- records ------------------------------------------------------------------------------------ */

typedef struct droplet_record {
    float origin[3], t0;
    float velocity[3], life; /* life: the flight time to the ground */
    uint8_t rgba[4];
} droplet_record; /* 36 bytes */

typedef struct tracer_record {
    float from[3], t0;
    float to[3];
    uint8_t rgba[4];
} tracer_record; /* 32 bytes */

typedef struct splat_record {
    float x, z, radius;
    uint8_t rgba[4];
} splat_record; /* 16 bytes */

typedef struct pending_splat {
    splat_record splat;
    float land; /* absolute time of the landing */
} pending_splat;

typedef struct paint_program {
    crowd_program program;
    GLint view_projection, time, gravity, point_scale, life, half, ground, paint, shade, size, width, viewport;
} paint_program;

struct showcase_paint {
    showcase_paint_desc desc;
    float half;
    GLuint texture, framebuffer;
    GLuint corners, ends; /* static quad corners; the tracer beam's corners (end, side) */
    GLuint droplet_buffer, tracer_buffer, splat_buffer;
    GLuint droplet_vao, tracer_vao, splat_vao, floor_vao;
    paint_program droplets, tracers, splats, floor;
    uint32_t droplet_head, tracer_head;
    droplet_record *staging; /* one burst's records, droplet_capacity */
    pending_splat *pending;
    uint32_t pending_count;
    splat_record *due; /* one update's splats */
    showcase_paint_stats stats;
};

static crowd_result build(paint_program *p, const char *name, bool es, const char *vs, const char *fs,
                          crowd_error *error)
{
    crowd_result res = crowd_program_build(&p->program, name, es, NULL, vs, fs, error);
    if (res != CROWD_OK)
        return res;
    GLuint id = p->program.id;
    p->view_projection = glGetUniformLocation(id, "u_view_projection");
    p->time = glGetUniformLocation(id, "u_time");
    p->gravity = glGetUniformLocation(id, "u_gravity");
    p->point_scale = glGetUniformLocation(id, "u_point_scale");
    p->life = glGetUniformLocation(id, "u_life");
    p->half = glGetUniformLocation(id, "u_half");
    p->ground = glGetUniformLocation(id, "u_ground");
    p->paint = glGetUniformLocation(id, "u_paint");
    p->shade = glGetUniformLocation(id, "u_shade");
    p->size = glGetUniformLocation(id, "u_size");
    p->width = glGetUniformLocation(id, "u_width");
    p->viewport = glGetUniformLocation(id, "u_viewport");
    return CROWD_OK;
}

static void attribute(GLuint index, GLint size, GLenum type, bool normalized, GLsizei stride, size_t offset,
                      GLuint divisor)
{
    glEnableVertexAttribArray(index);
    glVertexAttribPointer(index, size, type, normalized ? GL_TRUE : GL_FALSE, stride, (const void *)offset);
    glVertexAttribDivisor(index, divisor);
}

static GLuint ring_buffer(size_t bytes, const void *init)
{
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(GL_ARRAY_BUFFER, b);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)bytes, init, GL_DYNAMIC_DRAW);
    return b;
}

static crowd_result resolve(const showcase_paint_desc *in, showcase_paint_desc *d, crowd_error *error)
{
    *d = *in;
    d->world_size = d->world_size == 0.0f ? 420.0f : d->world_size;
    d->resolution = d->resolution ? d->resolution : 2048;
    d->tracer_capacity = d->tracer_capacity ? d->tracer_capacity : 512;
    d->droplet_capacity = d->droplet_capacity ? d->droplet_capacity : 32768;
    d->gravity = d->gravity == 0.0f ? 9.81f : d->gravity;
    d->tracer_life = d->tracer_life == 0.0f ? 0.08f : d->tracer_life;
    d->splat_radius = d->splat_radius == 0.0f ? 0.12f : d->splat_radius;
    d->droplet_size = d->droplet_size == 0.0f ? 0.05f : d->droplet_size;
    d->beam_width = d->beam_width == 0.0f ? 0.03f : d->beam_width;
    if (!(d->world_size > 0.0f && d->world_size < 1e6f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "paint: world_size %g m (want 0 < size < 1e6)",
                          (double)d->world_size);
    if (!isfinite(d->ground_height))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "paint: ground_height is not finite");
    if (d->resolution < 16 || d->resolution > 4096)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "paint: resolution %u (want 16..4096)", d->resolution);
    if (d->tracer_capacity > 65536)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "paint: tracer_capacity %u (want 1..65536)", d->tracer_capacity);
    if (d->droplet_capacity > 1048576)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "paint: droplet_capacity %u (want 1..1048576)",
                          d->droplet_capacity);
    if (!(d->droplet_size > 0.0f && d->droplet_size < 10.0f) || !(d->beam_width > 0.0f && d->beam_width < 10.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "paint: droplet_size %g m, beam_width %g m (want 0..10)",
                          (double)d->droplet_size, (double)d->beam_width);
    if (!(d->gravity > 0.0f && d->gravity < 1e4f) || !(d->tracer_life > 0.0f && d->tracer_life < 60.0f) ||
        !(d->splat_radius > 0.0f && d->splat_radius < 100.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "paint: gravity %g (0..1e4), tracer_life %g s (0..60), splat_radius %g m (0..100)",
                          (double)d->gravity, (double)d->tracer_life, (double)d->splat_radius);
    return CROWD_OK;
}

/* The paint texture and its framebuffer, cleared to transparent. */
static crowd_result create_target(showcase_paint *p, crowd_error *error)
{
    const uint32_t side = p->desc.resolution;
    glGenTextures(1, &p->texture);
    glBindTexture(GL_TEXTURE_2D, p->texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)side, (GLsizei)side, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glGenFramebuffers(1, &p->framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, p->framebuffer);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, p->texture, 0);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (status != GL_FRAMEBUFFER_COMPLETE)
        return crowd_fail(error, CROWD_ERROR_GL, "paint: the %u x %u RGBA8 paint target is incomplete (0x%x)", side,
                          side, (unsigned)status);
    showcase_paint_clear(p);
    return CROWD_OK;
}

/* The droplet and tracer rings, empty (every record spawned in the far past), the splat batch and the
 * shared quad corners and line ends. p->staging holds `rings` droplet records. */
static void create_buffers(showcase_paint *p, size_t rings)
{
    static const float corners[8] = {-1, -1, 1, -1, -1, 1, 1, 1}, ends[8] = {0, -1, 0, 1, 1, -1, 1, 1};
    p->corners = ring_buffer(sizeof corners, corners);
    p->ends = ring_buffer(sizeof ends, ends);
    memset(p->staging, 0, sizeof *p->staging * rings);
    for (size_t i = 0; i < rings; i++)
        p->staging[i].t0 = FAR_PAST;
    p->droplet_buffer = ring_buffer(sizeof(droplet_record) * p->desc.droplet_capacity, p->staging);
    tracer_record *tracers = (tracer_record *)p->staging; /* smaller records: the same bytes will do */
    for (uint32_t i = 0; i < p->desc.tracer_capacity; i++)
        tracers[i] = (tracer_record){{0, 0, 0}, FAR_PAST, {0, 0, 0}, {0, 0, 0, 0}};
    p->tracer_buffer = ring_buffer(sizeof(tracer_record) * p->desc.tracer_capacity, tracers);
    p->splat_buffer = ring_buffer(sizeof(splat_record) * p->desc.droplet_capacity, NULL);
}

static void create_vertex_arrays(showcase_paint *p)
{
    GLuint vaos[4];
    glGenVertexArrays(4, vaos);
    p->droplet_vao = vaos[0], p->tracer_vao = vaos[1], p->splat_vao = vaos[2], p->floor_vao = vaos[3];
    glBindVertexArray(p->droplet_vao);
    glBindBuffer(GL_ARRAY_BUFFER, p->droplet_buffer);
    attribute(0, 4, GL_FLOAT, false, sizeof(droplet_record), offsetof(droplet_record, origin), 0);
    attribute(1, 4, GL_FLOAT, false, sizeof(droplet_record), offsetof(droplet_record, velocity), 0);
    attribute(2, 4, GL_UNSIGNED_BYTE, true, sizeof(droplet_record), offsetof(droplet_record, rgba), 0);
    glBindVertexArray(p->tracer_vao);
    glBindBuffer(GL_ARRAY_BUFFER, p->ends); /* one attribute per vertex: WebGL wants one */
    attribute(0, 2, GL_FLOAT, false, 2 * sizeof(float), 0, 0);
    glBindBuffer(GL_ARRAY_BUFFER, p->tracer_buffer);
    attribute(1, 4, GL_FLOAT, false, sizeof(tracer_record), offsetof(tracer_record, from), 1);
    attribute(2, 3, GL_FLOAT, false, sizeof(tracer_record), offsetof(tracer_record, to), 1);
    attribute(3, 4, GL_UNSIGNED_BYTE, true, sizeof(tracer_record), offsetof(tracer_record, rgba), 1);
    glBindVertexArray(p->splat_vao);
    glBindBuffer(GL_ARRAY_BUFFER, p->corners);
    attribute(0, 2, GL_FLOAT, false, 2 * sizeof(float), 0, 0);
    glBindBuffer(GL_ARRAY_BUFFER, p->splat_buffer);
    attribute(1, 3, GL_FLOAT, false, sizeof(splat_record), offsetof(splat_record, x), 1);
    attribute(2, 4, GL_UNSIGNED_BYTE, true, sizeof(splat_record), offsetof(splat_record, rgba), 1);
    glBindVertexArray(p->floor_vao);
    glBindBuffer(GL_ARRAY_BUFFER, p->corners);
    attribute(0, 2, GL_FLOAT, false, 2 * sizeof(float), 0, 0);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

crowd_result showcase_paint_create(const showcase_paint_desc *desc, showcase_paint **out, crowd_error *error)
{
    if (!desc || !out)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "showcase_paint_create: NULL desc or out");
    *out = NULL;
    showcase_paint_desc d;
    crowd_result res = resolve(desc, &d, error);
    if (res != CROWD_OK)
        return res;
    showcase_paint *p = crowd_calloc(1, sizeof *p);
    if (!p)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "paint: out of memory");
    p->desc = d;
    p->half = 0.5f * d.world_size;
    size_t rings = (size_t)(d.droplet_capacity > d.tracer_capacity ? d.droplet_capacity : d.tracer_capacity);
    p->staging = crowd_malloc(sizeof *p->staging * rings); /* also the rings' initial contents */
    p->pending = crowd_malloc(sizeof *p->pending * d.droplet_capacity);
    p->due = crowd_malloc(sizeof *p->due * d.droplet_capacity);
    if (!p->staging || !p->pending || !p->due) {
        showcase_paint_destroy(p);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "paint: out of memory for %u droplets", d.droplet_capacity);
    }
    if ((res = build(&p->droplets, "paint droplets", d.es, droplet_vert, droplet_frag, error)) != CROWD_OK ||
        (res = build(&p->tracers, "paint tracers", d.es, tracer_vert, tracer_frag, error)) != CROWD_OK ||
        (res = build(&p->splats, "paint splats", d.es, splat_vert, splat_frag, error)) != CROWD_OK ||
        (res = build(&p->floor, "paint floor", d.es, floor_vert, floor_frag, error)) != CROWD_OK ||
        (res = create_target(p, error)) != CROWD_OK)
        goto fail;
    create_buffers(p, rings);
    create_vertex_arrays(p);
    if ((res = crowd_gl_check("paint: create", error)) != CROWD_OK)
        goto fail;
    *out = p;
    return CROWD_OK;
fail:
    showcase_paint_destroy(p);
    return res;
}

void showcase_paint_destroy(showcase_paint *p)
{
    if (!p)
        return;
    crowd_program_release(&p->droplets.program);
    crowd_program_release(&p->tracers.program);
    crowd_program_release(&p->splats.program);
    crowd_program_release(&p->floor.program);
    GLuint buffers[5] = {p->corners, p->ends, p->droplet_buffer, p->tracer_buffer, p->splat_buffer};
    GLuint vaos[4] = {p->droplet_vao, p->tracer_vao, p->splat_vao, p->floor_vao};
    for (int i = 0; i < 5; i++)
        if (buffers[i])
            glDeleteBuffers(1, &buffers[i]);
    for (int i = 0; i < 4; i++)
        if (vaos[i])
            glDeleteVertexArrays(1, &vaos[i]);
    if (p->framebuffer)
        glDeleteFramebuffers(1, &p->framebuffer);
    if (p->texture)
        glDeleteTextures(1, &p->texture);
    crowd_free(p->staging);
    crowd_free(p->pending);
    crowd_free(p->due);
    crowd_free(p);
}

/* ---- spawning ------------------------------------------------------------------------------------ */

void showcase_paint_tracer(showcase_paint *p, float time, const float from[3], const float to[3], const uint8_t rgba[4])
{
    if (!p || !from || !to || !rgba || !isfinite(time))
        return;
    tracer_record r = {{from[0], from[1], from[2]}, time, {to[0], to[1], to[2]}, {rgba[0], rgba[1], rgba[2], rgba[3]}};
    glBindBuffer(GL_ARRAY_BUFFER, p->tracer_buffer);
    glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)(sizeof r * p->tracer_head), sizeof r, &r);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    p->tracer_head = (p->tracer_head + 1) % p->desc.tracer_capacity;
    p->stats.tracers++;
}

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

static float unit_random(uint32_t *state)
{
    *state = hash32(*state + 0x9E3779B9u);
    return (float)(*state >> 8) / 16777216.0f;
}

static uint8_t jitter(uint8_t v, float r)
{
    float x = (float)v + (r - 0.5f) * 40.0f;
    return (uint8_t)(x < 0.0f ? 0.0f : (x > 255.0f ? 255.0f : x));
}

/* Flight time from height y0 (above the ground by h >= 0) at vertical speed vy until it meets the
 * ground: the positive root of h + vy t - g t^2 / 2 = 0. */
static float flight_time(float h, float vy, float g)
{
    float disc = vy * vy + 2.0f * g * (h > 0.0f ? h : 0.0f);
    return (vy + sqrtf(disc)) / g;
}

static void upload_droplets(showcase_paint *p, uint32_t first, uint32_t n)
{
    uint32_t cap = p->desc.droplet_capacity, head = p->droplet_head;
    uint32_t a = n < cap - head ? n : cap - head; /* up to the ring's end, the rest from its start */
    glBindBuffer(GL_ARRAY_BUFFER, p->droplet_buffer);
    glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)(sizeof(droplet_record) * head), sizeof(droplet_record) * a,
                    p->staging + first);
    if (n > a)
        glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(droplet_record) * (n - a), p->staging + first + a);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    p->droplet_head = (head + n) % cap;
}

uint32_t showcase_paint_burst(showcase_paint *p, float time, const float at[3], const uint8_t rgba[4], uint32_t count,
                              float speed, uint32_t seed, float *landings)
{
    if (!p || !at || !rgba || !isfinite(time) || !isfinite(at[0]) || !isfinite(at[1]) || !isfinite(at[2]) ||
        !(speed >= 0.0f && speed < 1e4f))
        return 0;
    count = count < p->desc.droplet_capacity ? count : p->desc.droplet_capacity;
    speed = speed > 0.0f ? speed : 4.0f;
    float g = p->desc.gravity, h = at[1] - p->desc.ground_height;
    uint32_t state = hash32(seed ^ 0xA511E9B3u);
    for (uint32_t i = 0; i < count; i++) {
        /* up and outwards: elevation 20..80 degrees, any azimuth, speed x 0.5..1.5 */
        float azimuth = 6.2831853f * unit_random(&state), elevation = 0.35f + 1.05f * unit_random(&state);
        float s = speed * (0.5f + unit_random(&state));
        float v[3] = {s * cosf(elevation) * sinf(azimuth), s * sinf(elevation), s * cosf(elevation) * cosf(azimuth)};
        float life = flight_time(h, v[1], g);
        droplet_record *r = &p->staging[i];
        *r = (droplet_record){{at[0], at[1], at[2]}, time, {v[0], v[1], v[2]}, life, {0, 0, 0, 255}};
        for (int k = 0; k < 3; k++)
            r->rgba[k] = jitter(rgba[k], unit_random(&state));
        float land[3] = {at[0] + v[0] * life, p->desc.ground_height, at[2] + v[2] * life};
        if (landings)
            memcpy(landings + 3 * i, land, sizeof land);
        if (p->pending_count == p->desc.droplet_capacity) {
            p->stats.dropped++;
            continue;
        }
        float radius = p->desc.splat_radius * (0.6f + 0.8f * unit_random(&state));
        p->pending[p->pending_count++] =
            (pending_splat){{land[0], land[2], radius, {r->rgba[0], r->rgba[1], r->rgba[2], rgba[3]}}, time + life};
    }
    if (count)
        upload_droplets(p, 0, count);
    p->stats.drops += count;
    p->stats.pending = p->pending_count;
    return count;
}

/* ---- drawing ------------------------------------------------------------------------------------- */

void showcase_paint_update(showcase_paint *p, float time)
{
    if (!p)
        return;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->pending_count;) {
        if (p->pending[i].land <= time) {
            p->due[n++] = p->pending[i].splat;
            p->pending[i] = p->pending[--p->pending_count]; /* order does not matter: blobs are "over" */
        } else {
            i++;
        }
    }
    p->stats.pending = p->pending_count;
    p->stats.last_update = n;
    if (!n)
        return;
    glBindBuffer(GL_ARRAY_BUFFER, p->splat_buffer);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof *p->due * n), p->due);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, p->framebuffer);
    glViewport(0, 0, (GLsizei)p->desc.resolution, (GLsizei)p->desc.resolution);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    /* premultiplied "over" into a texture that starts transparent: rgb = sum of c a (1 - later a) */
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(p->splats.program.id);
    glUniform1f(p->splats.half, p->half);
    glBindVertexArray(p->splat_vao);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, (GLsizei)n);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    p->stats.splats += n;
}

static void draw_flight(showcase_paint *p, float time, const float vp[16], float pixels_per_metre,
                        const int viewport[2]);

void showcase_paint_draw(showcase_paint *p, float time, const float vp[16], float pixels_per_metre,
                         const int viewport[2], float shade)
{
    if (!p || !vp || !viewport)
        return;
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    /* the floor: over the ground it lies on (pulled forward in depth), premultiplied */
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(-1.0f, -4.0f);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(p->floor.program.id);
    glUniformMatrix4fv(p->floor.view_projection, 1, GL_FALSE, vp);
    glUniform1f(p->floor.half, p->half);
    glUniform1f(p->floor.ground, p->desc.ground_height);
    glUniform1f(p->floor.shade, shade);
    glUniform1i(p->floor.paint, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, p->texture);
    glBindVertexArray(p->floor_vao);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glDisable(GL_POLYGON_OFFSET_FILL);
    draw_flight(p, time, vp, pixels_per_metre, viewport);
}

void showcase_paint_draw_flight(showcase_paint *p, float time, const float vp[16], float pixels_per_metre,
                                const int viewport[2])
{
    if (!p || !vp || !viewport)
        return;
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDisable(GL_CULL_FACE);
    draw_flight(p, time, vp, pixels_per_metre, viewport);
}

/* Droplets then tracers, the depth test on (LEQUAL); leaves blending off, depth writes on, LESS. */
static void draw_flight(showcase_paint *p, float time, const float vp[16], float pixels_per_metre,
                        const int viewport[2])
{
    /* droplets: opaque round points */
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
#ifndef __EMSCRIPTEN__
    if (!p->desc.es)
        glEnable(GL_PROGRAM_POINT_SIZE); /* core GL: gl_PointSize counts only with this on (always in ES) */
#endif
    glUseProgram(p->droplets.program.id);
    glUniformMatrix4fv(p->droplets.view_projection, 1, GL_FALSE, vp);
    glUniform1f(p->droplets.time, time);
    glUniform1f(p->droplets.gravity, p->desc.gravity);
    glUniform1f(p->droplets.point_scale, pixels_per_metre);
    glUniform1f(p->droplets.size, p->desc.droplet_size);
    glBindVertexArray(p->droplet_vao);
    glDrawArrays(GL_POINTS, 0, (GLsizei)p->desc.droplet_capacity);
    /* tracers: beams laid "over" what is there, premultiplied */
    glDepthMask(GL_FALSE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(p->tracers.program.id);
    glUniformMatrix4fv(p->tracers.view_projection, 1, GL_FALSE, vp);
    glUniform1f(p->tracers.time, time);
    glUniform1f(p->tracers.life, p->desc.tracer_life);
    glUniform1f(p->tracers.point_scale, pixels_per_metre);
    glUniform1f(p->tracers.width, p->desc.beam_width);
    glUniform2f(p->tracers.viewport, (float)viewport[0], (float)viewport[1]);
    glBindVertexArray(p->tracer_vao);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, (GLsizei)p->desc.tracer_capacity);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    glDepthFunc(GL_LESS);
}

void showcase_paint_clear(showcase_paint *p)
{
    if (!p)
        return;
    glBindFramebuffer(GL_FRAMEBUFFER, p->framebuffer);
    glClearColor(0.0f, 0.0f, 0.0f, 0.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    p->pending_count = 0;
    p->stats.pending = 0;
    if (p->droplet_buffer) { /* droplets in flight vanish too: their splats would never come */
        uint32_t cap = p->desc.droplet_capacity;
        for (uint32_t i = 0; i < cap; i++)
            p->staging[i] = (droplet_record){{0, 0, 0}, FAR_PAST, {0, 0, 0}, 0.0f, {0, 0, 0, 0}};
        glBindBuffer(GL_ARRAY_BUFFER, p->droplet_buffer);
        glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(droplet_record) * cap, p->staging);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
    }
}

crowd_result showcase_paint_read(showcase_paint *p, uint8_t *rgba)
{
    if (!p || !rgba)
        return CROWD_ERROR_ARGUMENT;
    glBindFramebuffer(GL_FRAMEBUFFER, p->framebuffer);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)p->desc.resolution, (GLsizei)p->desc.resolution, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return CROWD_OK;
}

uint32_t showcase_paint_texture(const showcase_paint *p)
{
    return p ? p->texture : 0;
}

const showcase_paint_stats *showcase_paint_get_stats(const showcase_paint *p)
{
    return p ? &p->stats : NULL;
}
