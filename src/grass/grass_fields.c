/* The grass field's interaction fields: the trample ping-pong pair that follows the focus and the
 * whole-field cut texture (crowdbake/grass.h crowd_grass_update_fields). Two variants of the same
 * passes over the same RGBA8 textures: fragment-shader passes into render targets (GL 3.3, GLES 3.0,
 * WebGL2, and GL 4.3 on request) and compute passes on image bindings (desktop GL 4.3). */
#include "grass/grass_fields.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#ifndef __EMSCRIPTEN__
#include "gl/gpu_cull.h"
#endif

extern const char crowd_glsl_grass_field_vert[], crowd_glsl_grass_field_frag[];
#ifndef __EMSCRIPTEN__
extern const char crowd_glsl_grass_field_comp[];
#endif

#define STAMP_BINDING 7 /* grass_field.comp's disc buffer */
#define BINS_BINDING 8  /* and its per-tile disc lists */
#define TILE 16         /* texels a side of its work groups */

static const uint8_t clear_trample[4] = {128, 128, 0, 255}; /* no bend, no trail, held out */

static void make_target(GLuint *tex, GLuint *fbo, uint32_t size, const uint8_t fill[4])
{
    uint8_t *pixels = crowd_malloc((size_t)size * size * 4);
    if (pixels)
        for (size_t i = 0; i < (size_t)size * size; i++)
            memcpy(pixels + 4 * i, fill, 4);
    glGenTextures(1, tex);
    glBindTexture(GL_TEXTURE_2D, *tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)size, (GLsizei)size, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    crowd_free(pixels);
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, *tex, 0);
}

static crowd_result create_compute(grass_fields *f, const crowd_grass_desc *d, crowd_error *error)
{
    bool available = false;
#ifdef __EMSCRIPTEN__
    (void)f; /* WebGL2 has no compute */
#else
    available = !d->es && epoxy_gl_version() >= 43;
#endif
    if (d->field_passes == CROWD_GRASS_FIELDS_COMPUTE && !available)
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "grass: compute field passes need desktop GL 4.3");
    if (d->field_passes == CROWD_GRASS_FIELDS_FRAGMENT || !available)
        return CROWD_OK;
#ifndef __EMSCRIPTEN__
    static const char cut_define[] = "#define CUT\n";
    size_t n = strlen(crowd_glsl_grass_field_comp);
    char *cut = crowd_malloc(sizeof cut_define + n);
    if (!cut)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "grass: shader source");
    memcpy(cut, cut_define, sizeof cut_define - 1);
    memcpy(cut + sizeof cut_define - 1, crowd_glsl_grass_field_comp, n + 1);
    crowd_result r =
        crowd_gpu_compute_program(&f->trample_program, "grass trample field", crowd_glsl_grass_field_comp, error);
    if (r == CROWD_OK)
        r = crowd_gpu_compute_program(&f->cut_program, "grass cut field", cut, error);
    crowd_free(cut);
    if (r != CROWD_OK)
        return r;
    f->tu_field = glGetUniformLocation(f->trample_program, "u_field");
    f->tu_discs = glGetUniformLocation(f->trample_program, "u_discs");
    f->tu_shift = glGetUniformLocation(f->trample_program, "u_shift");
    f->tu_step = glGetUniformLocation(f->trample_program, "u_step");
    f->cu_field = glGetUniformLocation(f->cut_program, "u_field");
    f->cu_discs = glGetUniformLocation(f->cut_program, "u_discs");
    glGenBuffers(1, &f->bins_buffer);
    f->compute = true;
#endif
    return CROWD_OK;
}

crowd_result grass_fields_create(grass_fields *f, const crowd_grass_desc *d, crowd_error *error)
{
    memset(f, 0, sizeof *f);
    if (d->no_fields)
        return CROWD_OK;
    f->on = true;
    GLint bound = 0; /* creation may ask: the caller's framebuffer stays bound */
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound);
    f->resolution = d->trample_resolution;
    f->cut_resolution = d->cut_resolution;
    f->texel = d->trample_extent / (float)d->trample_resolution;
    f->quiet = 1e9f;
    f->stamps = crowd_malloc(GRASS_MAX_STAMPS * 4 * sizeof(float));
    if (!f->stamps)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "grass: field stamps");
    static const uint8_t uncut[4] = {0, 0, 0, 0};
    glActiveTexture(GL_TEXTURE0 + 13);
    for (int k = 0; k < 2; k++)
        make_target(&f->trample[k], &f->trample_fbo[k], f->resolution, clear_trample);
    make_target(&f->cut, &f->cut_fbo, f->cut_resolution, uncut);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)bound);
    glActiveTexture(GL_TEXTURE0);
    if (status != GL_FRAMEBUFFER_COMPLETE)
        return crowd_fail(error, CROWD_ERROR_GL, "grass: the field targets are incomplete (0x%04x)", (unsigned)status);
    glGenVertexArrays(1, &f->empty_vao);
    glGenVertexArrays(1, &f->stamp_vao);
    glBindVertexArray(f->stamp_vao);
    glGenBuffers(1, &f->stamp_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, f->stamp_vbo);
    glBufferData(GL_ARRAY_BUFFER, GRASS_MAX_STAMPS * 4 * sizeof(float), NULL, GL_STREAM_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 16, (const void *)0);
    glVertexAttribDivisor(0, 1);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    crowd_result r = crowd_program_build(&f->decay, "grass trample decay", d->es, NULL, crowd_glsl_grass_field_vert,
                                         crowd_glsl_grass_field_frag, error);
    if (r == CROWD_OK)
        r = crowd_program_build(&f->stamp, "grass field stamp", d->es, "STAMP\n", crowd_glsl_grass_field_vert,
                                crowd_glsl_grass_field_frag, error);
    if (r != CROWD_OK)
        return r;
    f->du_source = glGetUniformLocation(f->decay.id, "u_source");
    f->du_shift = glGetUniformLocation(f->decay.id, "u_shift");
    f->du_step = glGetUniformLocation(f->decay.id, "u_step");
    f->su_field = glGetUniformLocation(f->stamp.id, "u_field");
    f->su_cut = glGetUniformLocation(f->stamp.id, "u_cut");
    glUseProgram(f->decay.id);
    glUniform1i(f->du_source, 13);
    glUseProgram(0);
    return create_compute(f, d, error);
}

void grass_fields_destroy(grass_fields *f)
{
    if (!f->on)
        return;
    glDeleteTextures(2, f->trample);
    glDeleteTextures(1, &f->cut);
    glDeleteFramebuffers(2, f->trample_fbo);
    glDeleteFramebuffers(1, &f->cut_fbo);
    glDeleteBuffers(1, &f->stamp_vbo);
    glDeleteVertexArrays(1, &f->stamp_vao);
    glDeleteVertexArrays(1, &f->empty_vao);
    crowd_program_release(&f->decay);
    crowd_program_release(&f->stamp);
    if (f->trample_program)
        glDeleteProgram(f->trample_program);
    if (f->cut_program)
        glDeleteProgram(f->cut_program);
    if (f->bins_buffer)
        glDeleteBuffers(1, &f->bins_buffer);
    crowd_free(f->bins);
    crowd_free(f->stamps);
    memset(f, 0, sizeof *f);
}

static void clear_target(GLuint fbo, uint32_t size, const uint8_t c[4])
{
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, (GLsizei)size, (GLsizei)size);
    glClearColor(c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, c[3] / 255.0f);
    glClear(GL_COLOR_BUFFER_BIT);
}

void grass_fields_reset(grass_fields *f)
{
    if (!f->on)
        return;
    static const uint8_t uncut[4] = {0, 0, 0, 0};
    GLint bound = 0, viewport[4]; /* not a frame call: it may ask, and the caller's target stays */
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound);
    glGetIntegerv(GL_VIEWPORT, viewport);
    for (int k = 0; k < 2; k++)
        clear_target(f->trample_fbo[k], f->resolution, clear_trample);
    clear_target(f->cut_fbo, f->cut_resolution, uncut);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)bound);
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    f->quiet = 1e9f;
    f->cut_any = false;
}

static void draw_discs(grass_fields *f, uint32_t first, uint32_t count, const float field[4], int cut)
{
    glUseProgram(f->stamp.id);
    glUniform4fv(f->su_field, 1, field);
    glUniform1i(f->su_cut, cut);
    glBindVertexArray(f->stamp_vao);
    glBindBuffer(GL_ARRAY_BUFFER, f->stamp_vbo);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 16, (const void *)(uintptr_t)(16u * first));
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, (GLsizei)count);
    f->passes++;
}

static uint32_t push_disc(grass_fields *f, uint32_t n, float x, float z, float radius)
{
    if (n >= GRASS_MAX_STAMPS)
        return n;
    float *s = &f->stamps[4 * n];
    s[0] = x, s[1] = z, s[2] = radius, s[3] = 0.0f;
    return n + 1;
}

/* One update's passes: what they do besides reading the fields themselves. */
typedef struct field_update {
    bool live;        /* the pair may hold a trail: decay it (and shift it with the window) */
    uint32_t trample; /* discs stamped into the pair: f->stamps[0, trample) */
    uint32_t cuts;    /* cut discs: f->stamps[trample, trample + cuts) */
    int32_t shift[2]; /* texels the window moved since the last update, within +-resolution */
    float dt;         /* seconds since the last update */
    float corner[2];  /* the window's -x/-z corner, metres */
} field_update;

/* The fragment variant: the decay as a full-screen triangle from the active texture into the other
 * one, the discs blended on top as instanced quads, the cut's discs MAX-blended. */
static void fragment_passes(grass_fields *f, const crowd_grass_desc *d, const field_update *u)
{
    int32_t res = (int32_t)f->resolution;
    if (u->live || u->trample) {
        int dst = 1 - f->active;
        glBindFramebuffer(GL_FRAMEBUFFER, f->trample_fbo[dst]);
        glViewport(0, 0, res, res);
        if (u->live) { /* decay (and shift) the active texture into the other one */
            glUseProgram(f->decay.id);
            glUniform3i(f->du_shift, u->shift[0], u->shift[1], res);
            glUniform2f(f->du_step, u->dt / d->trample_hold, u->dt / d->trample_recovery);
            glActiveTexture(GL_TEXTURE0 + 13);
            glBindTexture(GL_TEXTURE_2D, f->trample[f->active]);
            glBindVertexArray(f->empty_vao);
            glDrawArrays(GL_TRIANGLES, 0, 3);
            glBindTexture(GL_TEXTURE_2D, 0);
            glActiveTexture(GL_TEXTURE0);
            f->passes++;
        } else {
            glClearColor(clear_trample[0] / 255.0f, clear_trample[1] / 255.0f, 0.0f, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
        }
        if (u->trample) { /* trail and bend towards the disc by its weight, age towards 0 */
            glEnable(GL_BLEND);
            glBlendEquation(GL_FUNC_ADD);
            glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE_MINUS_SRC_ALPHA);
            const float field[4] = {u->corner[0], u->corner[1], 1.0f / d->trample_extent, 0.0f};
            draw_discs(f, 0, u->trample, field, 0);
            glDisable(GL_BLEND);
        }
        f->active = dst;
    }
    if (u->cuts) {
        glBindFramebuffer(GL_FRAMEBUFFER, f->cut_fbo);
        glViewport(0, 0, (GLsizei)f->cut_resolution, (GLsizei)f->cut_resolution);
        glEnable(GL_BLEND);
        glBlendEquation(GL_MAX);
        const float field[4] = {-d->extent, -d->extent, 0.5f / d->extent, 0.0f};
        draw_discs(f, u->trample, u->cuts, field, 1);
        glBlendEquation(GL_FUNC_ADD);
        glDisable(GL_BLEND);
    }
}

#ifndef __EMSCRIPTEN__
static bool reserve_bins(grass_fields *f, size_t words)
{
    if (words <= f->bins_capacity)
        return true;
    size_t capacity = words + words / 2;
    uint32_t *bins = crowd_realloc_sized(f->bins, f->bins_capacity * sizeof(uint32_t), capacity * sizeof(uint32_t));
    if (!bins)
        return false;
    f->bins = bins;
    f->bins_capacity = capacity;
    return true;
}

/* A grid of TILE x TILE texel tiles over part of a field: the field's -x/-z corner (metres) and
 * texel size, the grid's first texel, and its size in tiles. */
typedef struct tile_grid {
    float corner[2], texel;
    int32_t first[2];
    uint32_t tiles[2];
} tile_grid;

/* Bins the discs [first, first + count) of f->stamps into the tiles of grid `g` and uploads per tile
 * where its list starts (tiles + 1 words), then the lists (each disc's index from `first`, in stamp
 * order) for grass_field.comp. A disc goes to every tile holding a texel centre it may cover. false
 * when out of memory (the dispatch is then skipped). */
static bool bin_discs(grass_fields *f, uint32_t first, uint32_t count, const tile_grid *g)
{
    uint32_t tx = g->tiles[0], ty = g->tiles[1], tiles = tx * ty;
    if (!reserve_bins(f, (size_t)tiles + 1))
        return false;
    uint32_t *start = f->bins;
    memset(start, 0, ((size_t)tiles + 1) * sizeof(uint32_t));
    for (int pass = 0; pass < 2; pass++) { /* count, then fill in stamp order */
        for (uint32_t k = 0; k < count; k++) {
            const float *c = &f->stamps[4 * (first + k)];
            /* texel centres (p + 0.5) * texel + o inside [c - r, c + r], one more texel each side */
            float lo[2] = {floorf((c[0] - c[2] - g->corner[0]) / g->texel) - 1.0f - (float)g->first[0],
                           floorf((c[1] - c[2] - g->corner[1]) / g->texel) - 1.0f - (float)g->first[1]};
            float hi[2] = {ceilf((c[0] + c[2] - g->corner[0]) / g->texel) + 1.0f - (float)g->first[0],
                           ceilf((c[1] + c[2] - g->corner[1]) / g->texel) + 1.0f - (float)g->first[1]};
            float limit[2] = {(float)(tx * TILE) - 1.0f, (float)(ty * TILE) - 1.0f};
            if (!(hi[0] >= 0.0f && hi[1] >= 0.0f && lo[0] <= limit[0] && lo[1] <= limit[1]))
                continue; /* outside the grid (or not finite) */
            uint32_t t0[2], t1[2];
            for (int a = 0; a < 2; a++) {
                t0[a] = lo[a] < 0.0f ? 0u : (uint32_t)lo[a] / TILE;
                t1[a] = hi[a] > limit[a] ? (uint32_t)limit[a] / TILE : (uint32_t)hi[a] / TILE;
            }
            for (uint32_t j = t0[1]; j <= t1[1]; j++)
                for (uint32_t i = t0[0]; i <= t1[0]; i++) {
                    uint32_t t = j * tx + i;
                    if (pass == 0)
                        start[t + 1]++;
                    else
                        f->bins[tiles + 1 + start[t]++] = k;
                }
        }
        if (pass == 0) {
            for (uint32_t t = 0; t < tiles; t++)
                start[t + 1] += start[t];
            if (!reserve_bins(f, (size_t)tiles + 1 + start[tiles]))
                return false;
            start = f->bins;
        }
    }
    for (uint32_t t = tiles; t > 0; t--) /* the fill moved each start to its end: back one */
        start[t] = start[t - 1];
    start[0] = 0;
    size_t words = (size_t)tiles + 1 + start[tiles];
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, f->bins_buffer);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(words * sizeof(uint32_t)), f->bins, GL_STREAM_DRAW);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BINS_BINDING, f->bins_buffer);
    return true;
}

/* The pair in one dispatch over its destination, bound write-only, reading the active texture
 * bound read-only. */
static void compute_trample(grass_fields *f, const crowd_grass_desc *d, const field_update *u)
{
    GLint res = (GLint)f->resolution;
    uint32_t tiles = ((uint32_t)res + TILE - 1) / TILE;
    tile_grid grid = {{u->corner[0], u->corner[1]}, f->texel, {0, 0}, {tiles, tiles}};
    if (u->trample && !bin_discs(f, 0, u->trample, &grid))
        return;
    int dst = 1 - f->active;
    glUseProgram(f->trample_program);
    glBindImageTexture(0, f->trample[f->active], 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
    glBindImageTexture(1, f->trample[dst], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
    glUniform4f(f->tu_field, u->corner[0], u->corner[1], f->texel, (float)res);
    glUniform4ui(f->tu_discs, 0u, u->trample, 0u, 0u);
    glUniform4i(f->tu_shift, u->shift[0], u->shift[1], res, u->live ? 1 : 0);
    glUniform2f(f->tu_step, u->dt / d->trample_hold, u->dt / d->trample_recovery);
    glDispatchCompute(tiles, tiles, 1);
    f->passes++;
    f->active = dst;
}

/* The cut in place, over the bounding box of the texels whose centres the discs may cover (and
 * one more each side). */
static void compute_cut(grass_fields *f, const crowd_grass_desc *d, const field_update *u)
{
    int32_t n = (int32_t)f->cut_resolution, box[4] = {n, n, -1, -1};
    float texel = 2.0f * d->extent / (float)n;
    for (uint32_t k = 0; k < u->cuts; k++) {
        const float *c = &f->stamps[4 * (u->trample + k)];
        for (int a = 0; a < 2; a++) {
            float lo = floorf((c[a] - c[2] + d->extent) / texel) - 1.0f;
            float hi = ceilf((c[a] + c[2] + d->extent) / texel) + 1.0f;
            int32_t l = lo < 0.0f ? 0 : lo > (float)(n - 1) ? n - 1 : (int32_t)lo;
            int32_t h = hi < 0.0f ? 0 : hi > (float)(n - 1) ? n - 1 : (int32_t)hi;
            box[a] = l < box[a] ? l : box[a];
            box[2 + a] = h > box[2 + a] ? h : box[2 + a];
        }
    }
    uint32_t tx = (uint32_t)(box[2] - box[0] + TILE) / TILE, tz = (uint32_t)(box[3] - box[1] + TILE) / TILE;
    tile_grid grid = {{-d->extent, -d->extent}, texel, {box[0], box[1]}, {tx, tz}};
    if (!(box[2] >= box[0] && box[3] >= box[1]) || !bin_discs(f, u->trample, u->cuts, &grid))
        return;
    glUseProgram(f->cut_program);
    glBindImageTexture(0, f->cut, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA8);
    glUniform4f(f->cu_field, -d->extent, -d->extent, texel, (float)n);
    glUniform4ui(f->cu_discs, u->trample, u->cuts, (GLuint)box[0], (GLuint)box[1]);
    glDispatchCompute(tx, tz, 1);
    f->passes++;
}

/* The compute variant (grass_field.comp). */
static void compute_passes(grass_fields *f, const crowd_grass_desc *d, const field_update *u)
{
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, STAMP_BINDING, f->stamp_vbo);
    if (u->live || u->trample)
        compute_trample(f, d, u);
    if (u->cuts)
        compute_cut(f, d, u);
    /* the blades sample these textures as ordinary textures, the next update loads them as images,
       clears and test reads go through their framebuffers: each needs the image stores made visible
       to it (without the texture-fetch bit the blades may sample what was there before: no error,
       the field just seems to do nothing) */
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT |
                    GL_TEXTURE_UPDATE_BARRIER_BIT);
    glBindImageTexture(0, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
    glBindImageTexture(1, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, STAMP_BINDING, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BINS_BINDING, 0);
}
#endif

/* Moves the trample window to the focus (`fx`, `fz`) in whole texels: its new corner, and the shift
 * from the old one (a full resolution the first time: nothing carries over). */
static void move_window(grass_fields *f, const crowd_grass_desc *d, float fx, float fz, field_update *u)
{
    float half = 0.5f * d->trample_extent;
    int32_t ox = (int32_t)floorf((fx - half) / f->texel), oz = (int32_t)floorf((fz - half) / f->texel);
    if (!(fabsf(fx) < 1e6f && fabsf(fz) < 1e6f))
        ox = oz = 0;
    int32_t sx = f->origin_valid ? ox - f->origin[0] : (int32_t)f->resolution;
    int32_t sz = f->origin_valid ? oz - f->origin[1] : (int32_t)f->resolution;
    int32_t res = (int32_t)f->resolution;
    u->shift[0] = sx < -res ? -res : sx > res ? res : sx;
    u->shift[1] = sz < -res ? -res : sz > res ? res : sz;
    f->origin[0] = ox, f->origin[1] = oz;
    f->origin_valid = true;
    u->corner[0] = (float)ox * f->texel, u->corner[1] = (float)oz * f->texel;
}

/* The discs of this update into f->stamps: the tramplers, then every live agent inside the window,
 * then the cuts. */
static void gather_discs(grass_fields *f, const crowd_grass_desc *d, const crowd_grass_fields *in, field_update *u)
{
    uint32_t n = 0;
    float r = d->trample_radius;
    float x0 = u->corner[0], z0 = u->corner[1], x1 = x0 + d->trample_extent, z1 = z0 + d->trample_extent;
    for (uint32_t k = 0; in->tramplers && k < in->trampler_count; k++)
        n = push_disc(f, n, in->tramplers[2 * k], in->tramplers[2 * k + 1], r);
    const crowd_frame *c = in->crowd;
    if (c && c->records) {
        for (uint32_t k = 0; k < c->record_count && n < GRASS_MAX_STAMPS; k++) {
            if (c->slot_instances && c->slot_instances[k] >= c->stats.simulated)
                continue; /* slack or parked */
            float p[3];
            crowd_record_position(&c->records[k], c->time, p);
            if (p[0] > x0 - r && p[0] < x1 + r && p[2] > z0 - r && p[2] < z1 + r)
                n = push_disc(f, n, p[0], p[2], r * (c->records[k].scale > 0.0f ? c->records[k].scale : 1.0f));
        }
    }
    u->trample = n;
    for (uint32_t k = 0; in->cuts && k < in->cut_count; k++)
        n = push_disc(f, n, in->cuts[2 * k], in->cuts[2 * k + 1], d->cut_radius);
    u->cuts = n - u->trample;
}

/* Runs the update's passes with the GL state they need, and puts the frame's state back. */
static void run_passes(grass_fields *f, const crowd_grass_desc *d, const field_update *u)
{
    uint32_t n = u->trample + u->cuts;
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    if (n) {
        glBindBuffer(GL_ARRAY_BUFFER, f->stamp_vbo);
        glBufferData(GL_ARRAY_BUFFER, GRASS_MAX_STAMPS * 4 * sizeof(float), NULL, GL_STREAM_DRAW); /* orphan */
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)n * 16, f->stamps);
    }
    if (f->compute) {
#ifndef __EMSCRIPTEN__
        compute_passes(f, d, u);
#endif
    } else {
        fragment_passes(f, d, u);
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glUseProgram(0);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
}

uint32_t grass_fields_update(grass_fields *f, const crowd_grass_desc *d, float eye_x, float eye_z, float hx, float hz,
                             const crowd_grass_fields *in, uint64_t *cut_stamps)
{
    f->passes = 0;
    if (!f->on || !in)
        return 0;
    field_update u = {.dt = in->dt > 0.0f && in->dt < 1e3f ? in->dt : 0.0f};
    float fx = in->focus_set ? in->focus[0] : eye_x + hx * 18.0f;
    float fz = in->focus_set ? in->focus[1] : eye_z + hz * 18.0f;
    move_window(f, d, fx, fz, &u);
    gather_discs(f, d, in, &u);

    /* an all-clear pair stays clear without a pass (nothing stamped for longer than a trail lives) */
    u.live = f->quiet <= d->trample_hold + d->trample_recovery + u.dt;
    f->quiet = u.trample ? 0.0f : f->quiet + u.dt;
    if (!u.live && !u.trample && !u.cuts) {
        if (f->dirty) { /* the trails' time is up: whatever RGBA8 rounding left of them goes too */
            clear_target(f->trample_fbo[f->active], f->resolution, clear_trample);
            glBindFramebuffer(GL_FRAMEBUFFER, 0);
            f->dirty = false;
            f->passes++;
        }
        return 0;
    }
    f->dirty = f->dirty || u.trample;
    run_passes(f, d, &u);
    if (u.cuts) {
        f->cut_any = true;
        *cut_stamps += u.cuts;
    }
    return u.trample;
}

void grass_fields_bind(const grass_fields *f, const crowd_grass_desc *d, int unit, GLint trample_field, GLint cut_field)
{
    if (!f->on) {
        glUniform4f(trample_field, 0.0f, 0.0f, 0.0f, 0.0f);
        glUniform4f(cut_field, 0.0f, 0.0f, 0.0f, 0.0f);
        return;
    }
    glActiveTexture(GL_TEXTURE0 + (GLenum)unit);
    glBindTexture(GL_TEXTURE_2D, f->trample[f->active]);
    glActiveTexture(GL_TEXTURE0 + (GLenum)unit + 1);
    glBindTexture(GL_TEXTURE_2D, f->cut);
    /* w: the trample window is sampled only while a trail may live; the cut only once something is cut */
    glUniform4f(trample_field, (float)f->origin[0] * f->texel, (float)f->origin[1] * f->texel, 1.0f / d->trample_extent,
                f->origin_valid ? 1.0f : 0.0f);
    glUniform4f(cut_field, -d->extent, -d->extent, 0.5f / d->extent, f->cut_any ? d->cut_height : 0.0f);
}

bool grass_fields_read(const grass_fields *f, int which, uint8_t *rgba)
{
    if (!f->on)
        return false;
    uint32_t size = which ? f->cut_resolution : f->resolution;
    GLint bound = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound);
    glBindFramebuffer(GL_FRAMEBUFFER, which ? f->cut_fbo : f->trample_fbo[f->active]);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, (GLsizei)size, (GLsizei)size, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)bound);
    return true;
}
