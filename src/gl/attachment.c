/* Attachments: rigid meshes riding on sockets (caps, balloons, swords), with their own colour or
 * texture, checked and uploaded here; draw.c and gpu_crowd.c draw them. */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gl/renderer_internal.h"

#define ATTACHMENT_MAX_TEXTURE 4096u
#define ATTACHMENT_MAX_MIN_PIXELS 10000.0f

static void mat34_to_mat4(const float m[12], float out[16])
{
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 4; col++)
            out[col * 4 + row] = m[row * 4 + col];
    out[3] = out[7] = out[11] = 0.0f;
    out[15] = 1.0f;
}

static float srgb_to_linear(uint8_t c)
{
    return powf(c / 255.0f, 2.2f);
}

static bool finite_all(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(v[i]) <= 1e30f))
            return false;
    return true;
}

/* Everything about the desc that can be wrong, named. */
static crowd_result check_desc(const crowd_gl_renderer *r, const crowd_gl_attachment_desc *d, uint32_t *socket,
                               crowd_error *error)
{
    if (!r || !d || !d->positions || !d->normals || !d->indices || !d->vertex_count || !d->index_count ||
        d->index_count % 3 || d->accessory_bit > 7)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "attachment: incomplete mesh or accessory bit > 7");
    if (!r->asset->bones.data)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "attachments need an asset with a bone texture (baked with crowd_bake_desc.bones)");
    if (r->attachment_count == CROWD_GL_MAX_ATTACHMENTS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "at most %d attachments", CROWD_GL_MAX_ATTACHMENTS);
    if (!crowd_asset_find_socket(r->asset, d->socket, socket))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "attachment: the asset has no socket \"%s\"",
                          d->socket ? d->socket : "(null)");
    for (uint32_t i = 0; i < d->index_count; i++)
        if (d->indices[i] >= d->vertex_count)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "attachment: index %u out of range", i);
    if (!finite_all(d->positions, 3 * (size_t)d->vertex_count))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "attachment: a position is not finite");
    if (!(d->min_pixels >= 0.0f && d->min_pixels <= ATTACHMENT_MAX_MIN_PIXELS))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "attachment: min_pixels %g outside 0..%g", (double)d->min_pixels,
                          (double)ATTACHMENT_MAX_MIN_PIXELS);
    if (!d->texture)
        return CROWD_OK;
    if (!d->uvs || !finite_all(d->uvs, 2 * (size_t)d->vertex_count))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "attachment: a texture needs finite uvs for every vertex");
    if (d->texture_width < 1 || d->texture_width > ATTACHMENT_MAX_TEXTURE || d->texture_height < 1 ||
        d->texture_height > ATTACHMENT_MAX_TEXTURE)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "attachment: texture %u x %u outside 1..%u", d->texture_width,
                          d->texture_height, ATTACHMENT_MAX_TEXTURE);
    return CROWD_OK;
}

/* The farthest vertex from the socket's origin, in model space (the socket offset may scale). */
static float mesh_radius(const float offset[16], const float *positions, uint32_t count)
{
    float radius = 0.0f;
    for (uint32_t v = 0; v < count; v++) {
        const float *p = positions + 3 * (size_t)v;
        float q[3];
        for (int k = 0; k < 3; k++)
            q[k] = offset[k] * p[0] + offset[4 + k] * p[1] + offset[8 + k] * p[2];
        radius = fmaxf(radius, sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]));
    }
    return radius;
}

static GLuint static_buffer(GLenum target, size_t bytes, const void *data)
{
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(target, b);
    glBufferData(target, (GLsizeiptr)bytes, data, GL_STATIC_DRAW);
    return b;
}

static void float_attribute(GLuint location, GLuint vbo, GLint size)
{
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(location);
    glVertexAttribPointer(location, size, GL_FLOAT, GL_FALSE, 0, NULL);
}

/* Its mesh (and UVs and texture) on the GPU, in its own vertex array. */
static void upload(crowd_gl_renderer *r, crowd_gl_attachment *at, const crowd_gl_attachment_desc *d)
{
    glGenVertexArrays(1, &at->vao);
    glBindVertexArray(at->vao);
    at->positions = static_buffer(GL_ARRAY_BUFFER, (size_t)d->vertex_count * 12, d->positions);
    float_attribute(0, at->positions, 3);
    at->normals = static_buffer(GL_ARRAY_BUFFER, (size_t)d->vertex_count * 12, d->normals);
    float_attribute(1, at->normals, 3);
    if (d->texture) {
        at->uvs = static_buffer(GL_ARRAY_BUFFER, (size_t)d->vertex_count * 8, d->uvs);
        float_attribute(2, at->uvs, 2);
        glGenTextures(1, &at->texture);
        glBindTexture(GL_TEXTURE_2D, at->texture);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, (GLsizei)d->texture_width, (GLsizei)d->texture_height, 0,
                     GL_RGBA, GL_UNSIGNED_BYTE, d->texture);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glGenerateMipmap(GL_TEXTURE_2D);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    }
    at->indices = static_buffer(GL_ELEMENT_ARRAY_BUFFER, (size_t)d->index_count * 4, d->indices);
    crowd_gl_instance_attributes_enable();
    crowd_gl_bind_instances(r, 0);
    glBindVertexArray(0);
}

crowd_result crowd_gl_add_attachment(crowd_gl_renderer *r, const crowd_gl_attachment_desc *d, uint32_t *index,
                                     crowd_error *error)
{
    uint32_t socket = 0;
    crowd_result result = check_desc(r, d, &socket, error);
    if (result != CROWD_OK)
        return result;
    if (!r->attachment_reach)
        r->attachment_reach = crowd_calloc((size_t)r->asset->clip_count + 1, sizeof *r->attachment_reach);
    if (!r->attachment_reach)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "attachment: out of memory");
    crowd_gl_attachment *at = &r->attachments[r->attachment_count];
    memset(at, 0, sizeof *at);
    at->bone = r->asset->sockets[socket].bone;
    mat34_to_mat4(r->asset->sockets[socket].offset, at->offset);
    for (int k = 0; k < 3; k++)
        at->color[k] = srgb_to_linear(d->color[k]);
    at->accessory_bit = d->accessory_bit;
    at->max_lod = d->max_lod;
    at->index_count = d->index_count;
    at->tinted = d->tinted;
    at->radius = mesh_radius(at->offset, d->positions, d->vertex_count);
    at->min_pixels = d->min_pixels > 0.0f ? d->min_pixels : 1.0f;
    upload(r, at, d);
    if ((result = crowd_gl_check("attachment", error)) != CROWD_OK)
        return result;
    /* culling must hold the mesh: the GPU path grows its clip spheres by this, the CPU path's crowd
       takes crowd_gl_attachment_reach as its margin */
    crowd_gl_measure_reach(r->asset, &r->asset->sockets[socket], d->positions, d->vertex_count, r->attachment_reach);
    if (index)
        *index = r->attachment_count;
    r->attachment_count++;
    return CROWD_OK;
}
