/* The renderer's lifetime: programs, the asset's textures and buffers, the instance buffer,
 * attachments, props and the ground. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gl/context_check.h"
#include "gl/gpu_crowd.h"
#include "gl/renderer_internal.h"
#include "gl/shaders.h"

crowd_result crowd_gl_check(const char *where, crowd_error *error)
{
    GLenum e = glGetError();
    if (e == GL_NO_ERROR)
        return CROWD_OK;
    while (glGetError() != GL_NO_ERROR) {
    }
    return crowd_fail(error, CROWD_ERROR_GL, "%s: GL error 0x%04x", where, (unsigned)e);
}

/* ---- textures --------------------------------------------------------------------------------- */

static GLuint data_texture(GLenum internal, uint32_t w, uint32_t h, GLenum format, GLenum type, const void *data)
{
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    /* integer textures are incomplete with LINEAR filtering; texelFetch needs no filtering anyway */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, (GLsizei)w, (GLsizei)h, 0, format, type, data);
    return t;
}

static crowd_result create_textures(crowd_gl_renderer *r, crowd_error *error)
{
    const crowd_asset *a = r->asset;
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    if ((GLint)a->positions.width > max_size || (GLint)a->positions.height > max_size ||
        (GLint)a->bones.width > max_size || (GLint)a->bones.height > max_size)
        return crowd_fail(error, CROWD_ERROR_GL, "the asset's %u x %u texture exceeds this GPU's limit of %d",
                          a->positions.width, a->positions.height, max_size);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);

    float *clips = crowd_calloc(4 * (size_t)a->clip_count, sizeof(float));
    uint32_t palette_width = 1;
    for (uint32_t g = 0; g < a->region_count; g++)
        palette_width =
            a->regions_info[g].palette_count > palette_width ? a->regions_info[g].palette_count : palette_width;
    uint8_t *palette = crowd_calloc(4 * (size_t)palette_width * a->region_count, 1);
    /* row 0: per region its palette size and whether it is textured; row 1 + k: choice k's UV
     * transform (asset.h palette_uv) */
    float *regions = crowd_calloc(4 * (size_t)a->region_count * (1 + palette_width), sizeof(float));
    if (!clips || !palette || !regions) {
        crowd_free(clips);
        crowd_free(palette);
        crowd_free(regions);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "renderer: out of memory");
    }
    for (uint32_t c = 0; c < a->clip_count; c++) {
        clips[4 * c] = (float)a->clips[c].first_frame;
        clips[4 * c + 1] = (float)a->clips[c].frame_count;
        clips[4 * c + 2] = (a->clips[c].flags & CROWD_CLIP_LOOP) ? 1.0f : 0.0f;
    }
    for (uint32_t g = 0; g < a->region_count; g++) {
        const crowd_region *region = &a->regions_info[g];
        memcpy(palette + 4 * (size_t)g * palette_width, a->palette + 4 * (size_t)region->palette_first,
               4 * (size_t)region->palette_count);
        regions[4 * g] = (float)region->palette_count;
        regions[4 * g + 1] = (region->flags & CROWD_REGION_TEXTURED) ? 1.0f : 0.0f;
        for (uint32_t k = 0; k < region->palette_count; k++) {
            static const float identity[4] = {1.0f, 1.0f, 0.0f, 0.0f};
            const float *t = a->palette_uv ? a->palette_uv + 4 * (size_t)(region->palette_first + k) : identity;
            memcpy(regions + 4 * ((size_t)(1 + k) * a->region_count + g), t, 4 * sizeof(float));
        }
    }
    r->tex_clips = data_texture(GL_RGBA32F, a->clip_count, 1, GL_RGBA, GL_FLOAT, clips);
    r->tex_palette = data_texture(GL_RGBA8, palette_width, a->region_count, GL_RGBA, GL_UNSIGNED_BYTE, palette);
    r->tex_regions = data_texture(GL_RGBA32F, a->region_count, 1 + palette_width, GL_RGBA, GL_FLOAT, regions);
    crowd_free(clips);
    crowd_free(palette);
    crowd_free(regions);

    bool f16 = a->position_encoding == CROWD_POSITION_F16_BOX;
    const crowd_texture *p = &a->positions, *n = &a->normals;
    r->tex_positions =
        f16 ? data_texture(GL_RGBA16F, p->width, p->height, GL_RGBA, GL_HALF_FLOAT, p->data)
            : data_texture(GL_RGBA16UI, p->width, p->height, GL_RGBA_INTEGER, GL_UNSIGNED_SHORT, p->data);
    if (n->data)
        r->tex_normals = f16 ? data_texture(GL_RG16F, n->width, n->height, GL_RG, GL_HALF_FLOAT, n->data)
                             : data_texture(GL_RG16UI, n->width, n->height, GL_RG_INTEGER, GL_UNSIGNED_SHORT, n->data);
    if (a->bones.data)
        r->tex_bones = data_texture(GL_RGBA32F, a->bones.width, a->bones.height, GL_RGBA, GL_FLOAT, a->bones.data);

    static const uint8_t white[4] = {255, 255, 255, 255};
    glGenTextures(1, &r->tex_albedo);
    glBindTexture(GL_TEXTURE_2D, r->tex_albedo);
    if (a->albedo.data)
        glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, (GLsizei)a->albedo.width, (GLsizei)a->albedo.height, 0, GL_RGBA,
                     GL_UNSIGNED_BYTE, a->albedo.data);
    else
        glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, 1, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, white);
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    return crowd_gl_check("renderer textures", error);
}

static crowd_result create_shadow_map(crowd_gl_renderer *r, crowd_error *error)
{
    uint32_t size = r->shadow_size;
    glGenTextures(1, &r->shadow_depth);
    glBindTexture(GL_TEXTURE_2D, r->shadow_depth);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, (GLsizei)size, (GLsizei)size, 0, GL_DEPTH_COMPONENT,
                 GL_UNSIGNED_INT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR); /* hardware 2x2 PCF */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glGenFramebuffers(1, &r->shadow_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, r->shadow_depth, 0);
    GLenum none = GL_NONE;
    glDrawBuffers(1, &none);
    glReadBuffer(GL_NONE);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, r->target_fbo); /* leave the caller's framebuffer bound */
    if (status != GL_FRAMEBUFFER_COMPLETE)
        return crowd_fail(error, CROWD_ERROR_GL, "shadow framebuffer incomplete (0x%04x)", (unsigned)status);
    return crowd_gl_check("shadow map", error);
}

/* ---- buffers ---------------------------------------------------------------------------------- */

static GLuint buffer(GLenum target, size_t bytes, const void *data, GLenum usage)
{
    GLuint b;
    glGenBuffers(1, &b);
    glBindBuffer(target, b);
    glBufferData(target, (GLsizeiptr)bytes, data, usage);
    return b;
}

static void float_attribute(GLuint location, GLuint vbo, GLint size, GLenum type, bool normalized)
{
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(location);
    glVertexAttribPointer(location, size, type, normalized ? GL_TRUE : GL_FALSE, 0, NULL);
}

static void integer_attribute(GLuint location, GLuint vbo, GLint size, GLenum type)
{
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(location);
    glVertexAttribIPointer(location, size, type, 0, NULL);
}

void crowd_gl_instance_attributes_enable(void)
{
    for (GLuint loc = 8; loc <= 11; loc++) {
        glEnableVertexAttribArray(loc);
        glVertexAttribDivisor(loc, 1);
    }
}

void crowd_gl_bind_instances(const crowd_gl_renderer *r, uint32_t first)
{
    /* WebGL2 has no base instance: the attributes themselves start at the draw's first record */
    uintptr_t base = (uintptr_t)first * sizeof(crowd_record);
    glBindBuffer(GL_ARRAY_BUFFER, r->instances);
    for (GLuint k = 0; k < 3; k++)
        glVertexAttribPointer(8 + k, 4, GL_FLOAT, GL_FALSE, sizeof(crowd_record), (const void *)(base + 16 * k));
    /* tint, variant and fade rate keep their exact bits through an integer attribute */
    glVertexAttribIPointer(11, 4, GL_UNSIGNED_INT, sizeof(crowd_record), (const void *)(base + 48));
}

static void create_crowd_buffers(crowd_gl_renderer *r)
{
    const crowd_asset *a = r->asset;
    size_t vc = a->vertex_count;
    glGenVertexArrays(1, &r->vao);
    glBindVertexArray(r->vao);
    r->vbo_region = buffer(GL_ARRAY_BUFFER, vc, a->regions, GL_STATIC_DRAW);
    integer_attribute(0, r->vbo_region, 1, GL_UNSIGNED_BYTE);
    if (a->uvs) {
        r->vbo_uv = buffer(GL_ARRAY_BUFFER, vc * 8, a->uvs, GL_STATIC_DRAW);
        float_attribute(1, r->vbo_uv, 2, GL_FLOAT, false);
    }
    if (a->colors) {
        r->vbo_color = buffer(GL_ARRAY_BUFFER, vc * 4, a->colors, GL_STATIC_DRAW);
        float_attribute(2, r->vbo_color, 4, GL_UNSIGNED_BYTE, true);
    }
    r->vbo_position = buffer(GL_ARRAY_BUFFER, vc * 12, a->bind_positions, GL_STATIC_DRAW);
    float_attribute(3, r->vbo_position, 3, GL_FLOAT, false);
    r->vbo_normal = buffer(GL_ARRAY_BUFFER, vc * 12, a->bind_normals, GL_STATIC_DRAW);
    float_attribute(4, r->vbo_normal, 3, GL_FLOAT, false);
    if (a->joints) {
        r->vbo_joints = buffer(GL_ARRAY_BUFFER, vc * 8, a->joints, GL_STATIC_DRAW);
        integer_attribute(5, r->vbo_joints, 4, GL_UNSIGNED_SHORT);
        r->vbo_weights = buffer(GL_ARRAY_BUFFER, vc * 8, a->weights, GL_STATIC_DRAW);
        float_attribute(6, r->vbo_weights, 4, GL_UNSIGNED_SHORT, true);
    }
    r->ibo = buffer(GL_ELEMENT_ARRAY_BUFFER, (size_t)a->index_count * 4, a->indices, GL_STATIC_DRAW);
    for (uint32_t i = 0; i < r->ring_count; i++)
        r->ring[i] = buffer(GL_ARRAY_BUFFER, (size_t)r->capacity * sizeof(crowd_record), NULL, GL_DYNAMIC_DRAW);
    r->instances = r->ring[0];
    crowd_gl_instance_attributes_enable();
    crowd_gl_bind_instances(r, 0);
    glBindVertexArray(0);
}

/* ---- programs --------------------------------------------------------------------------------- */

static crowd_result build_programs(crowd_gl_renderer *r, crowd_error *error)
{
    const crowd_asset *a = r->asset;
    bool es = r->desc.es;
    char encoding[64] = "";
    if (a->position_encoding == CROWD_POSITION_F16_BOX)
        strcat(encoding, "POS_F16\n");
    if (a->normal_encoding == CROWD_NORMAL_OCT8_IN_W)
        strcat(encoding, "NORMAL_W8\n");
    if (a->normal_encoding == CROWD_NORMAL_OCT_F16)
        strcat(encoding, "NORMAL_F16\n");
    crowd_result result = CROWD_OK;
    static const char *const variant_names[PROGRAM_VARIANTS] = {"", ", depth", ", velocity"};
    for (int bones = 0; bones < 2 && result == CROWD_OK; bones++) {
        if (bones && !a->bones.data)
            break;
        for (int fade = 0; fade < 2 && result == CROWD_OK; fade++)
            for (int v = 0; v < PROGRAM_VARIANTS && result == CROWD_OK; v++) {
                const char *variant = crowd_gl_variant_defines(r, v);
                if (!variant)
                    continue;
                char defines[160], name[64];
                snprintf(defines, sizeof defines, "%s%s%s%s", encoding, bones ? "BONES\n" : "",
                         fade ? "CROSS_FADE\n" : "", variant);
                snprintf(name, sizeof name, "crowd (%s%s%s)", bones ? "bones" : "vat", fade ? ", cross-fade" : "",
                         variant_names[v]);
                result = crowd_program_build(&r->crowd[bones][fade][v], name, es, defines, crowd_glsl_crowd_vert,
                                             v == PROGRAM_DEPTH ? crowd_glsl_depth_frag : crowd_glsl_lit_frag, error);
            }
    }
    for (int v = 0; v < PROGRAM_VARIANTS && result == CROWD_OK && a->bones.data; v++) {
        const char *defines = crowd_gl_variant_defines(r, v);
        if (defines)
            result = crowd_program_build(&r->attachment[v], "attachment", es, defines, crowd_glsl_attachment_vert,
                                         v == PROGRAM_DEPTH ? crowd_glsl_depth_frag : crowd_glsl_lit_frag, error);
    }
    return result;
}

/* ---- lifetime --------------------------------------------------------------------------------- */

/* The shader's u_tint_region: a region index, or -1 for the wash. */
static int resolve_tint_region(const crowd_asset *a, crowd_gl_tint tint, uint32_t region)
{
    if (tint == CROWD_GL_TINT_REGION)
        return (int)region;
    if (tint == CROWD_GL_TINT_WASH)
        return -1;
    uint32_t shirt;
    return crowd_asset_find_region(a, "shirt", &shirt) ? (int)shirt : -1;
}

#ifndef GL_TIME_ELAPSED_EXT
#define GL_TIME_ELAPSED_EXT 0x88BF
#endif
#ifndef GL_TIME_ELAPSED
#define GL_TIME_ELAPSED GL_TIME_ELAPSED_EXT /* the same enum in GL 3.3 core and the GLES extension */
#endif

/* Timer queries where the context has them: GL 3.3 core, GLES with GL_EXT_disjoint_timer_query,
 * WebGL2 with EXT_disjoint_timer_query_webgl2 (Emscripten enables it when the browser offers it). */
static bool timers_supported(const crowd_gl_renderer *r)
{
#ifdef __EMSCRIPTEN__
    (void)r;
    const char *extensions = (const char *)glGetString(GL_EXTENSIONS);
    return extensions && strstr(extensions, "EXT_disjoint_timer_query_webgl2");
#else
    if (!r->desc.es)
        return epoxy_gl_version() >= 33 || epoxy_has_gl_extension("GL_ARB_timer_query");
    return epoxy_has_gl_extension("GL_EXT_disjoint_timer_query");
#endif
}

static void create_timers(crowd_gl_renderer *r)
{
    r->stats.gpu_shadow_ms = r->stats.gpu_color_ms = -1.0;
    if (!r->desc.timers || !timers_supported(r))
        return;
    r->timers = true;
    r->timer_target = r->desc.es ? GL_TIME_ELAPSED_EXT : GL_TIME_ELAPSED;
    glGenQueries(2 * CROWD_GL_TIMER_SLOTS, &r->queries[0][0]);
    r->stats.timers = true;
}

crowd_result crowd_gl_create(const crowd_gl_desc *desc, crowd_gl_renderer **out, crowd_error *error)
{
    if (!desc || !out || !desc->asset)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_create: NULL desc, out or asset");
    *out = NULL;
    crowd_result usable = crowd_gl_check_mode(desc->asset, desc->mode, error);
    if (usable == CROWD_OK)
        usable = crowd_gl_require_context("crowd_gl_create", error);
    if (usable != CROWD_OK)
        return usable;
    crowd_gl_renderer *r = crowd_calloc(1, sizeof *r);
    if (!r)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "renderer: out of memory");
    r->desc = *desc;
    r->asset = desc->asset;
    r->mode = desc->mode;
    r->cross_fade = true;
    r->velocity = desc->velocity == CROWD_GL_VELOCITY_MRT;
    r->velocity_pass = desc->velocity == CROWD_GL_VELOCITY_PASS;
    r->capacity = desc->capacity       ? desc->capacity
                  : desc->sizing_crowd ? crowd_record_capacity(desc->sizing_crowd)
                                       : 1024;
    r->capacity = r->capacity ? r->capacity : 1;
    r->shadow_size = desc->shadow_map_size ? desc->shadow_map_size : 2048;
    r->upload = desc->upload == CROWD_GL_UPLOAD_DEFAULT ? CROWD_GL_UPLOAD_RING : desc->upload;
    r->ring_count = r->upload == CROWD_GL_UPLOAD_RING ? CROWD_GL_RING : 1;
    for (uint32_t i = 0; i < r->ring_count; i++) { /* (without memory now, they grow or fall back to the hull) */
        r->ring_stale[i].ranges = crowd_malloc(CROWD_GL_STALE_RESERVE * sizeof *r->ring_stale[i].ranges);
        r->ring_stale[i].capacity = r->ring_stale[i].ranges ? CROWD_GL_STALE_RESERVE : 0;
    }
    r->debug = desc->debug;
    r->tint_region = resolve_tint_region(desc->asset, desc->tint, desc->tint_region);
    while (glGetError() != GL_NO_ERROR) { /* start clean: errors from before are not ours */
    }
    /* Creation may ask the driver: the framebuffer and viewport the shadow pass returns to. */
    GLint fbo = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &fbo);
    glGetIntegerv(GL_VIEWPORT, r->target_viewport);
    r->target_fbo = (GLuint)fbo;
    crowd_result result = CROWD_OK;
    if ((unsigned)desc->tint > CROWD_GL_TINT_WASH || (unsigned)desc->upload > CROWD_GL_UPLOAD_IN_PLACE ||
        (desc->tint == CROWD_GL_TINT_REGION && desc->tint_region >= desc->asset->region_count))
        result = crowd_fail(error, CROWD_ERROR_ARGUMENT,
                            "crowd_gl_create: tint %d / tint_region %u / upload %d out of range (%u regions)",
                            (int)desc->tint, desc->tint_region, (int)desc->upload, desc->asset->region_count);
    if (result == CROWD_OK && (unsigned)desc->velocity > CROWD_GL_VELOCITY_PASS)
        result =
            crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_create: velocity %d out of range", (int)desc->velocity);
    if (result == CROWD_OK)
        result = create_textures(r, error);
    if (result == CROWD_OK && desc->shadow_source) {
        r->shadow_depth = desc->shadow_source->shadow_depth;
        r->shadow_fbo = desc->shadow_source->shadow_fbo;
        r->shadow_size = desc->shadow_source->shadow_size;
        r->shadow_shared = true;
    } else if (result == CROWD_OK)
        result = create_shadow_map(r, error);
    if (result == CROWD_OK) {
        create_crowd_buffers(r);
        result = crowd_gl_check("renderer buffers", error);
    }
    if (result == CROWD_OK)
        result = build_programs(r, error);
    if (result == CROWD_OK)
        result = crowd_gl_imposter_create(r, error);
    if (result == CROWD_OK)
        result = crowd_gl_blob_create(r, error);
    if (result == CROWD_OK) {
        create_timers(r);
        result = crowd_gl_check("timer queries", error);
    }
    if (result == CROWD_OK)
        result = crowd_gpu_crowd_choose(r, error);
    if (result != CROWD_OK) {
        crowd_gl_destroy(r);
        return result;
    }
    *out = r;
    return CROWD_OK;
}

void crowd_gl_destroy(crowd_gl_renderer *r)
{
    if (!r)
        return;
    crowd_gpu_crowd_destroy(r);
    crowd_gl_imposter_destroy(r);
    crowd_gl_blob_destroy(r);
    for (int b = 0; b < 2; b++)
        for (int f = 0; f < 2; f++)
            for (int v = 0; v < PROGRAM_VARIANTS; v++)
                crowd_program_release(&r->crowd[b][f][v]);
    for (int v = 0; v < PROGRAM_VARIANTS; v++)
        crowd_program_release(&r->attachment[v]);
    GLuint textures[8] = {r->tex_clips,   r->tex_positions, r->tex_normals, r->tex_bones,
                          r->tex_palette, r->tex_regions,   r->tex_albedo,  r->shadow_shared ? 0 : r->shadow_depth};
    glDeleteTextures(8, textures);
    if (!r->shadow_shared)
        glDeleteFramebuffers(1, &r->shadow_fbo);
    GLuint buffers[8] = {r->vbo_region, r->vbo_uv,     r->vbo_color,   r->vbo_position,
                         r->vbo_normal, r->vbo_joints, r->vbo_weights, r->ibo};
    glDeleteBuffers(8, buffers);
    glDeleteBuffers(CROWD_GL_RING, r->ring);
    for (uint32_t i = 0; i < CROWD_GL_RING; i++)
        crowd_free(r->ring_stale[i].ranges);
    if (r->timers)
        glDeleteQueries(2 * CROWD_GL_TIMER_SLOTS, &r->queries[0][0]);
    glDeleteVertexArrays(1, &r->vao);
    for (uint32_t i = 0; i < r->attachment_count; i++) {
        crowd_gl_attachment *at = &r->attachments[i];
        GLuint ab[4] = {at->positions, at->normals, at->indices, at->uvs};
        glDeleteBuffers(4, ab);
        glDeleteTextures(1, &at->texture);
        glDeleteVertexArrays(1, &at->vao);
    }
    crowd_free(r->attachment_reach);
    crowd_free(r);
}

crowd_result crowd_gl_check_mode(const crowd_asset *asset, crowd_gl_mode mode, crowd_error *error)
{
    if (!asset || (mode != CROWD_GL_VAT && mode != CROWD_GL_BONES))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl mode %d: VAT (0) or bones (1), with an asset",
                          (int)mode);
    if (mode == CROWD_GL_VAT)
        return CROWD_OK;
    if (!asset->bones.data)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "bone mode needs an asset with a bone texture (baked with crowd_bake_desc.bones)");
    /* The bone texture is there, but the bake measured that it cannot play this asset: morph targets
     * move its vertices, and bone mode would draw them frozen in the rest shape. */
    crowd_bake_notes notes;
    if (crowd_asset_bake_notes(asset, &notes) && notes.bone_mode == CROWD_BONE_MODE_UNAVAILABLE)
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED,
                          "bone mode is unavailable for this asset: morph targets animate it (off by %.1f mm in "
                          "bone mode), so only VAT mode plays it",
                          (double)notes.bone_error * 1e3);
    return CROWD_OK;
}

crowd_result crowd_gl_set_mode(crowd_gl_renderer *r, crowd_gl_mode mode)
{
    if (!r)
        return CROWD_ERROR_ARGUMENT;
    crowd_result usable = crowd_gl_check_mode(r->asset, mode, NULL);
    if (usable != CROWD_OK)
        return usable;
    r->mode = mode;
    return CROWD_OK;
}

void crowd_gl_set_cross_fade(crowd_gl_renderer *r, bool on)
{
    if (r)
        r->cross_fade = on;
}

void crowd_gl_view(const crowd_gl_renderer *r, const float view[16], const float projection[16], float viewport_height,
                   crowd_view *out)
{
    if (!out)
        return;
    crowd_view v = {.viewport_height = viewport_height}; /* (built apart: the matrices may be out's own) */
    if (view)
        memcpy(v.view, view, sizeof v.view);
    if (projection)
        memcpy(v.projection, projection, sizeof v.projection);
    v.culling = r && crowd_gl_get_path(r) == CROWD_GL_PATH_GPU ? CROWD_CULLING_GPU : CROWD_CULLING_CPU;
    v.cull_margin = crowd_gl_attachment_reach(r);
    *out = v;
}

const crowd_gl_stats *crowd_gl_get_stats(const crowd_gl_renderer *r)
{
    return r ? &r->stats : NULL;
}

crowd_result crowd_gl_debug_check(crowd_gl_renderer *r, const char *where)
{
    if (!r->debug)
        return CROWD_OK;
    crowd_error e = {0};
    crowd_result result = crowd_gl_check(where, &e);
    if (result != CROWD_OK)
        snprintf(r->last_error, sizeof r->last_error, "%s", e.message);
    return result;
}

const char *crowd_gl_last_error(const crowd_gl_renderer *r)
{
    return r ? r->last_error : "";
}

/* A frame needs more records than the buffers hold: reallocate them on the GPU (rare, so checked). */
static crowd_result grow_instances(crowd_gl_renderer *r, uint32_t needed, crowd_error *error)
{
    uint64_t grown = (uint64_t)r->capacity + r->capacity / 2;
    uint32_t capacity =
        grown > needed ? (grown > UINT32_MAX / sizeof(crowd_record) ? needed : (uint32_t)grown) : needed;
    while (glGetError() != GL_NO_ERROR) {
    }
    for (uint32_t i = 0; i < r->ring_count; i++) {
        glBindBuffer(GL_ARRAY_BUFFER, r->ring[i]);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)capacity * sizeof(crowd_record)), NULL, GL_DYNAMIC_DRAW);
    }
    crowd_result result = crowd_gl_check("growing the instance buffer", error);
    if (result != CROWD_OK) {
        crowd_error_prefix(error, "%u records: ", capacity);
        return result;
    }
    r->capacity = capacity;
    r->uploaded = false; /* the new stores hold nothing */
    return CROWD_OK;
}

static void write_records(const crowd_frame *f, uint32_t first, uint32_t count)
{
    glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)((size_t)first * sizeof(crowd_record)),
                    (GLsizeiptr)((size_t)count * sizeof(crowd_record)), f->records + first);
}

static void extend(crowd_range *hull, uint32_t first, uint32_t count)
{
    if (!count)
        return;
    uint32_t end = hull->count ? hull->first + hull->count : first;
    uint32_t lo = hull->count && hull->first < first ? hull->first : first;
    end = end > first + count ? end : first + count;
    hull->first = lo;
    hull->count = end - lo;
}

/* RING: the buffer written now was last read by draws two uploads ago, so the driver never waits
 * for the GPU; it gets every range changed since it was last written. Those go one by one (merged
 * when closer than RING_GAP records), not as their hull: at 100k walking on the page a frame changes
 * ~490 scattered ranges, 95 KB, whose hull is all 6.7 MB of the records. Sending the hull filled
 * Chromium's transfer buffer, so the next GL call that carried data waited for the GPU process
 * (1282 ms inside the HUD's small glBufferData in one frame: the main-thread waits at 100k). */
#define RING_GAP 16           /* records (1 KB): closer ranges go as one call */
#define RING_MAX_WRITES 2048  /* glBufferSubData calls per upload: the gap widens until they fit */
#define RING_MAX_STALE 65536u /* ranges kept per buffer; past that, its hull is written instead */

static void stale_add(crowd_gl_stale *s, uint32_t first, uint32_t count)
{
    if (!count)
        return;
    extend(&s->hull, first, count);
    if (s->overflow)
        return;
    if (s->count == s->capacity) {
        uint32_t capacity = s->capacity ? 2 * s->capacity : 256;
        crowd_range *grown = capacity <= RING_MAX_STALE
                                 ? crowd_realloc_sized(s->ranges, s->capacity * sizeof *grown, capacity * sizeof *grown)
                                 : NULL;
        if (!grown) { /* too many (or no memory): the hull is exact enough, as before the lists */
            s->overflow = true;
            return;
        }
        s->ranges = grown;
        s->capacity = capacity;
    }
    s->ranges[s->count++] = (crowd_range){first, count};
}

static int range_order(const void *a, const void *b)
{
    uint32_t x = ((const crowd_range *)a)->first, y = ((const crowd_range *)b)->first;
    return x < y ? -1 : x > y;
}

/* Sorted ranges merged in place where they overlap or lie closer than `gap` records. */
static uint32_t merge_ranges(crowd_range *v, uint32_t n, uint32_t gap)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (out && v[i].first <= v[out - 1].first + v[out - 1].count + gap) {
            uint32_t end = v[i].first + v[i].count;
            if (end > v[out - 1].first + v[out - 1].count)
                v[out - 1].count = end - v[out - 1].first;
        } else {
            v[out++] = v[i];
        }
    }
    return out;
}

/* Writes what the buffer bound to GL_ARRAY_BUFFER missed (clamped to the live span) and forgets it. */
static uint64_t write_stale(const crowd_frame *f, crowd_gl_stale *s)
{
    uint32_t n = f->record_count, count = s->count;
    crowd_range *v = s->ranges;
    if (s->overflow) {
        v = &s->hull;
        count = 1;
    } else {
        qsort(v, count, sizeof *v, range_order);
        count = merge_ranges(v, count, RING_GAP);
        for (uint32_t gap = RING_GAP * 4; count > RING_MAX_WRITES; gap *= 4)
            count = merge_ranges(v, count, gap);
    }
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t first = v[i].first < n ? v[i].first : n;
        uint32_t end = v[i].first + v[i].count < n ? v[i].first + v[i].count : n;
        if (end > first) {
            write_records(f, first, end - first);
            bytes += (uint64_t)(end - first) * sizeof(crowd_record);
        }
    }
    s->count = 0;
    s->hull = (crowd_range){0, 0};
    s->overflow = false;
    return bytes;
}

static uint64_t upload_ring(crowd_gl_renderer *r, const crowd_frame *f)
{
    bool changed = !r->uploaded && f->record_count > 0;
    for (uint32_t i = 0; r->uploaded && i < f->upload_count && !changed; i++)
        changed = f->uploads[i].count > 0;
    if (!changed)
        return 0; /* nothing changed: keep drawing the current buffer */
    for (uint32_t b = 0; b < r->ring_count; b++) {
        if (!r->uploaded)
            stale_add(&r->ring_stale[b], 0, f->record_count);
        for (uint32_t i = 0; r->uploaded && i < f->upload_count; i++)
            stale_add(&r->ring_stale[b], f->uploads[i].first, f->uploads[i].count);
    }
    uint32_t b = r->ring_next;
    glBindBuffer(GL_ARRAY_BUFFER, r->ring[b]);
    uint64_t bytes = write_stale(f, &r->ring_stale[b]);
    r->instances = r->ring[b];
    r->ring_next = (b + 1) % r->ring_count;
    return bytes;
}

crowd_result crowd_gl_upload(crowd_gl_renderer *r, const crowd_frame *frame, crowd_error *error)
{
    if (!r || !frame)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_upload: NULL");
    if (frame->record_count > r->capacity && r->upload != CROWD_GL_UPLOAD_ORPHAN) {
        crowd_result result = grow_instances(r, frame->record_count, error);
        if (result != CROWD_OK)
            return result;
    }
    uint64_t bytes = 0;
    if (r->upload == CROWD_GL_UPLOAD_RING) {
        bytes = upload_ring(r, frame);
    } else if (r->upload == CROWD_GL_UPLOAD_ORPHAN) {
        /* A fresh store holding the whole live span (re-specifying the buffer orphans the old store,
         * which queued draws keep reading). One glBufferData with the data, not NULL + sub-data: a
         * NULL store is zero-filled first in WebGL. The store is exactly the live span, so it also
         * grows with the crowd. */
        if (!r->uploaded || frame->upload_count || frame->record_count > r->capacity) {
            uint32_t n = frame->record_count ? frame->record_count : 1;
            bytes = (uint64_t)frame->record_count * sizeof(crowd_record);
            glBindBuffer(GL_ARRAY_BUFFER, r->instances);
            glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)n * sizeof(crowd_record)),
                         frame->record_count ? (const void *)frame->records : NULL, GL_DYNAMIC_DRAW);
            r->capacity = n;
        }
    } else {
        glBindBuffer(GL_ARRAY_BUFFER, r->instances);
        if (!r->uploaded) { /* the first upload sends everything */
            bytes = (uint64_t)frame->record_count * sizeof(crowd_record);
            write_records(frame, 0, frame->record_count);
        } else {
            for (uint32_t i = 0; i < frame->upload_count; i++) {
                write_records(frame, frame->uploads[i].first, frame->uploads[i].count);
                bytes += (uint64_t)frame->uploads[i].count * sizeof(crowd_record);
            }
        }
    }
    if (r->gpu)
        crowd_gpu_crowd_upload(r, frame);
    if (!r->uploaded || frame->record_count != r->records_count)
        extend(&r->records_stale, 0, frame->record_count);
    for (uint32_t i = 0; i < frame->upload_count; i++)
        extend(&r->records_stale, frame->uploads[i].first, frame->uploads[i].count);
    r->frame_records = frame->records;
    r->records_count = frame->record_count;
    r->uploaded = true;
    r->stats.bytes_uploaded = bytes;
    r->stats.capacity = r->capacity;
    crowd_result result = crowd_gl_debug_check(r, "instance upload");
    if (result != CROWD_OK)
        crowd_fail(error, result, "%s", r->last_error);
    return result;
}

crowd_result crowd_gl_set_target(crowd_gl_renderer *r, uint32_t framebuffer, int x, int y, int width, int height,
                                 crowd_error *error)
{
    if (!r || width <= 0 || height <= 0)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_set_target: NULL renderer or empty viewport");
    r->target_fbo = framebuffer;
    r->target_viewport[0] = x, r->target_viewport[1] = y, r->target_viewport[2] = width, r->target_viewport[3] = height;
    return crowd_gl_check("crowd_gl_set_target", error);
}
