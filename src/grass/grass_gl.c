/* The grass field's renderer: the blade texture, the three tier meshes, the CPU path (chunk cull +
 * block table) and the GPU path (chunk cull + classify compute on the GPU-driven layer of
 * src/gl/gpu_cull.h, indirect draws). See crowdbake/grass.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "gl/context_check.h"
#include "gl/gl_api.h"
#include "gl/gpu_cull.h"
#include "gl/program.h"
#include "gl/renderer_internal.h"
#include "grass/grass_fields.h"
#include "grass/grass_testing.h"

/* embedded from src/grass/glsl by cmake/embed_glsl.cmake */
extern const char crowd_glsl_grass_common_glsl[], crowd_glsl_grass_color_glsl[], crowd_glsl_grass_vert[],
    crowd_glsl_grass_frag[], crowd_glsl_grass_chunk_comp[], crowd_glsl_grass_classify_comp[];

#define BLADE_ROW 2048 /* texels per row of the blade texture (grass_common.glsl's fetch) */
#define BLOCK_ROW 256  /* texels per row of the block table (grass.vert) */
/* The CPU path's instance: GRASS_GROUP consecutive table entries of CROWD_GRASS_BLOCK blades each
 * (both handed to grass.vert as defines): small entries waste few vertices on a sparse chunk, and a
 * group of them keeps the instances few (SwiftShader pays microseconds per instance). */
#define GRASS_GROUP 4
#define CLUSTERS_PER_INSTANCE (GRASS_GROUP * CROWD_GRASS_BLOCK)
#define GRASS_STR_(x) #x
#define GRASS_STR(x) GRASS_STR_(x)
static const char cpu_path_defines[] =
    "GRASS_BLOCK " GRASS_STR(CROWD_GRASS_BLOCK) "\nGRASS_GROUP " GRASS_STR(GRASS_GROUP) "\n";
#define TIMER_RING 4
#define TIMER_QUERIES 5 /* per frame: culling, the near, mid and far draws, the ground */
#define TEX_BLADES 8    /* texture units: clear of the crowd renderer's 0..7 */
#define TEX_BLOCKS 9
#define TEX_SHADOW 10
#define TEX_FIELDS 11 /* and 12: the active trample texture, the cut texture */
#define TEX_PAINT 13
#define TEX_NOISE 14

#ifndef GL_TIME_ELAPSED
#define GL_TIME_ELAPSED 0x88BF
#endif

enum {
    GU_VP,
    GU_EYE,
    GU_BANDS,
    GU_BLADE_SIZE,
    GU_WIND,
    GU_BLOCK_OFFSET,
    GU_CAMERA,
    GU_SUN_DIR,
    GU_SUN_COL,
    GU_SKY,
    GU_GROUND,
    GU_FOG_COL,
    GU_FOG,
    GU_BLADES,
    GU_BLOCKS,
    GU_SHADOWS,
    GU_SHADOW_MAP,
    GU_LIGHT_VP,
    GU_SHADOW_TEXEL,
    GU_TRAMPLE,
    GU_CUT,
    GU_TRAMPLE_FIELD,
    GU_CUT_FIELD,
    GU_TONE,
    GU_PAINT,
    GU_PAINT_FIELD,
    GU_NOISE,
    GRASS_UNIFORMS
};
static const char *const uniform_names[GRASS_UNIFORMS] = {
    "u_view_projection", "u_grass_eye",     "u_grass_bands",
    "u_blade_size",      "u_wind",          "u_block_offset",
    "u_camera",          "u_sun_direction", "u_sun_color",
    "u_sky_color",       "u_ground_color",  "u_fog_color",
    "u_fog_density",     "u_blades",        "u_blocks",
    "u_shadows",         "u_shadow_map",    "u_light_view_projection",
    "u_shadow_texel",    "u_trample",       "u_cut",
    "u_trample_field",   "u_cut_field",     "u_tone",
    "u_paint",           "u_paint_field",   "u_noise"};

typedef struct tier_range {
    uint32_t first_index, index_count;
} tier_range;

struct crowd_grass {
    crowd_grass_desc desc;
    grass_layout layout;
    bool gpu;
    GLuint blades_tex, noise_tex, vbo, ibo, vao;
    crowd_program program;
    GLint u[GRASS_UNIFORMS];
    tier_range tiers[CROWD_GRASS_TIERS + 1]; /* + the ground quad */
    crowd_grass_stats stats;
    grass_eye eye;
    grass_fields fields;
    GLuint paint;      /* crowd_grass_set_paint's borrowed texture, 0: none */
    float paint_world; /* the square it covers, metres a side */
    GLuint no_shadow;  /* 1x1 depth texture for the shadow sampler when no shadow map is given */

    /* CPU path: the block table, per tier a run of (first blade, blades) entries */
    GLuint blocks_tex;
    uint32_t *blocks; /* 2 words per entry, tier t's run from t * tier_capacity */
    uint32_t tier_capacity, block_rows;
    uint32_t tier_blocks[CROWD_GRASS_TIERS];
    grass_key key;
    bool key_valid;

#ifndef __EMSCRIPTEN__
    /* GPU path */
    crowd_gpu_layer layer;
    GLuint visible; /* uint dispatch[4]; uvec2 chunks[] */
    GLuint chunk_program, classify_program;
    GLint cu_eye, cu_counts, cu_grid, cu_cull, cu_density, cu_budget;
    GLint ku_eye, ku_bands, ku_counts, ku_capacity, ku_blades;
#endif
    /* timers: culling, each tier's draw and the ground per frame, read TIMER_RING - 1 frames late */
    bool timers;
    GLuint queries[TIMER_RING][TIMER_QUERIES];
    bool issued[TIMER_RING][TIMER_QUERIES];
    uint32_t timer_frame;
};

static char *concat(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = crowd_malloc(na + nb + 1);
    if (s) {
        memcpy(s, a, na);
        memcpy(s + na, b, nb + 1);
    }
    return s;
}

/* The three tier meshes in one vertex and index buffer. A vertex: blade (0..2), t, side, tier. */
typedef struct mesh_builder {
    float *v;
    uint16_t *i;
    uint32_t nv, ni;
} mesh_builder;

static void blade_strip(mesh_builder *m, float blade, int segments, float tier)
{
    uint16_t base = (uint16_t)m->nv;
    for (int s = 0; s < segments; s++) {
        float t = (float)s / (float)segments;
        for (int k = 0; k < 2; k++) {
            float *v = &m->v[4 * m->nv++];
            v[0] = blade, v[1] = t, v[2] = k ? 1.0f : -1.0f, v[3] = tier;
        }
    }
    float *tip = &m->v[4 * m->nv++];
    tip[0] = blade, tip[1] = 1.0f, tip[2] = 0.0f, tip[3] = tier;
    for (int s = 0; s + 1 < segments; s++) {
        uint16_t a = (uint16_t)(base + 2 * s), b = (uint16_t)(a + 1), c = (uint16_t)(a + 2), d = (uint16_t)(a + 3);
        uint16_t quad[6] = {a, b, d, a, d, c};
        memcpy(&m->i[m->ni], quad, sizeof quad);
        m->ni += 6;
    }
    uint16_t last = (uint16_t)(base + 2 * (segments - 1));
    m->i[m->ni++] = last;
    m->i[m->ni++] = (uint16_t)(last + 1);
    m->i[m->ni++] = (uint16_t)(base + 2 * segments);
}

/* Each tier's mesh is `copies` clusters, copy c's vertices tagged blade + 4c: the CPU path draws one
 * instance per group of table entries (CLUSTERS_PER_INSTANCE copies), the GPU path one per blade. */
static void build_meshes(crowd_grass *g, mesh_builder *m, int copies)
{
    static const int near_segments[3] = {4, 2, 2};
    g->tiers[CROWD_GRASS_NEAR].first_index = m->ni;
    for (int c = 0; c < copies; c++)
        for (int b = 0; b < 3; b++)
            blade_strip(m, (float)(b + 4 * c), near_segments[b], 0.0f);
    g->tiers[CROWD_GRASS_NEAR].index_count = m->ni - g->tiers[CROWD_GRASS_NEAR].first_index;
    g->tiers[CROWD_GRASS_MID].first_index = m->ni;
    for (int c = 0; c < copies; c++)
        for (int b = 0; b < 3; b++)
            blade_strip(m, (float)(b + 4 * c), 1, 1.0f);
    g->tiers[CROWD_GRASS_MID].index_count = m->ni - g->tiers[CROWD_GRASS_MID].first_index;
    g->tiers[CROWD_GRASS_FAR].first_index = m->ni;
    for (int c = 0; c < copies; c++)
        blade_strip(m, (float)(4 * c), 1, 2.0f);
    g->tiers[CROWD_GRASS_FAR].index_count = m->ni - g->tiers[CROWD_GRASS_FAR].first_index;
    /* the ground: one quad centred under the camera (grass.vert scales it) */
    uint16_t base = (uint16_t)m->nv;
    static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; k++) {
        float *v = &m->v[4 * m->nv++];
        v[0] = corners[k][0], v[1] = corners[k][1], v[2] = 0.0f, v[3] = 3.0f;
    }
    g->tiers[3].first_index = m->ni;
    const uint16_t quad[6] = {base, (uint16_t)(base + 2), (uint16_t)(base + 1),
                              base, (uint16_t)(base + 3), (uint16_t)(base + 2)};
    memcpy(&m->i[m->ni], quad, sizeof quad);
    m->ni += 6;
    g->tiers[3].index_count = 6;
}

static crowd_result upload_blades(crowd_grass *g, crowd_error *error)
{
    const grass_layout *l = &g->layout;
    uint32_t rows = (l->blades + BLADE_ROW - 1) / BLADE_ROW;
    rows = rows ? rows : 1;
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    if ((GLint)rows > max_size)
        return crowd_fail(error, CROWD_ERROR_GL, "grass: %u blades need a %ux%u texture (the GPU allows %d)", l->blades,
                          BLADE_ROW, rows, max_size);
    grass_blade *all = crowd_calloc((size_t)rows * BLADE_ROW, sizeof(grass_blade));
    if (!all)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "grass: %u blade records", l->blades);
    for (uint32_t c = 0; c < l->chunks; c++)
        grass_generate_chunk(&g->desc, l, c, all + grass_chunk_first(l, c));
    glGenTextures(1, &g->blades_tex);
    glActiveTexture(GL_TEXTURE0 + TEX_BLADES);
    glBindTexture(GL_TEXTURE_2D, g->blades_tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, BLADE_ROW, (GLsizei)rows, 0, GL_RGBA, GL_FLOAT, all);
    crowd_free(all);
    return CROWD_OK;
}

static crowd_result upload_noise(crowd_grass *g, crowd_error *error)
{
    uint8_t *rgba = crowd_malloc((size_t)GRASS_NOISE_SIZE * GRASS_NOISE_SIZE * 4);
    if (!rgba)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "grass: the noise texture");
    grass_noise_generate(g->desc.seed, rgba);
    glGenTextures(1, &g->noise_tex);
    glActiveTexture(GL_TEXTURE0 + TEX_NOISE);
    glBindTexture(GL_TEXTURE_2D, g->noise_tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, GRASS_NOISE_SIZE, GRASS_NOISE_SIZE, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glGenerateMipmap(GL_TEXTURE_2D);
    crowd_free(rgba);
    return CROWD_OK;
}

uint32_t crowd_grass_noise_texture(const crowd_grass *g)
{
    return g ? g->noise_tex : 0u;
}

static void lookup_uniforms(crowd_grass *g)
{
    for (int k = 0; k < GRASS_UNIFORMS; k++)
        g->u[k] = glGetUniformLocation(g->program.id, uniform_names[k]);
    glUseProgram(g->program.id);
    glUniform1i(g->u[GU_BLADES], TEX_BLADES);
    glUniform1i(g->u[GU_BLOCKS], TEX_BLOCKS);
    glUniform1i(g->u[GU_SHADOW_MAP], TEX_SHADOW);
    glUniform1i(g->u[GU_TRAMPLE], TEX_FIELDS);
    glUniform1i(g->u[GU_CUT], TEX_FIELDS + 1);
    glUniform1i(g->u[GU_PAINT], TEX_PAINT);
    glUniform1i(g->u[GU_NOISE], TEX_NOISE);
    glUseProgram(0);
}

static crowd_result build_program(crowd_grass *g, crowd_error *error)
{
    char *head = concat(crowd_glsl_grass_common_glsl, crowd_glsl_grass_color_glsl);
    char *vertex = head ? concat(head, crowd_glsl_grass_vert) : NULL;
    char *fragment = concat(crowd_glsl_grass_color_glsl, crowd_glsl_grass_frag);
    crowd_free(head);
    if (!vertex || !fragment) {
        crowd_free(vertex);
        crowd_free(fragment);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "grass: shader source");
    }
    crowd_result r;
    if (g->gpu)
        r = crowd_program_build_with(&g->program, "grass (GPU-driven)", "#version 430 core\n", "GPU_DRIVEN\n", vertex,
                                     fragment, error);
    else
        r = crowd_program_build(&g->program, "grass", g->desc.es, cpu_path_defines, vertex, fragment, error);
    crowd_free(vertex);
    crowd_free(fragment);
    if (r == CROWD_OK)
        lookup_uniforms(g);
    return r;
}

static crowd_result create_cpu_path(crowd_grass *g, crowd_error *error)
{
    const grass_layout *l = &g->layout;
    g->tier_capacity = l->chunks * ((l->base + 1 + CROWD_GRASS_BLOCK - 1) / CROWD_GRASS_BLOCK) + GRASS_GROUP;
    uint32_t entries = CROWD_GRASS_TIERS * g->tier_capacity;
    g->block_rows = (entries + BLOCK_ROW - 1) / BLOCK_ROW;
    g->blocks = crowd_calloc((size_t)g->block_rows * BLOCK_ROW, 2 * sizeof(uint32_t));
    if (!g->blocks)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "grass: block table of %u entries", entries);
    glGenTextures(1, &g->blocks_tex);
    glActiveTexture(GL_TEXTURE0 + TEX_BLOCKS);
    glBindTexture(GL_TEXTURE_2D, g->blocks_tex);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RG32UI, BLOCK_ROW, (GLsizei)g->block_rows, 0, GL_RG_INTEGER, GL_UNSIGNED_INT,
                 g->blocks);
    return CROWD_OK;
}

#ifndef __EMSCRIPTEN__
static bool gpu_available(const crowd_grass *g)
{
    return !g->desc.es && epoxy_gl_version() >= 43;
}

static crowd_result create_gpu_path(crowd_grass *g, crowd_error *error)
{
    const grass_layout *l = &g->layout;
    crowd_result r = crowd_gpu_layer_create(&g->layer, CROWD_GRASS_TIERS, l->blades ? l->blades : 1, 1, error);
    if (r != CROWD_OK)
        return r;
    for (uint32_t t = 0; t < CROWD_GRASS_TIERS; t++)
        crowd_gpu_layer_set_command(&g->layer, t, g->tiers[t].index_count, g->tiers[t].first_index, 0);
    glGenBuffers(1, &g->visible);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->visible);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 16 + 8 * (GLsizeiptr)l->chunks, NULL, GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    crowd_gpu_layer_set_extra(&g->layer, g->visible, 0, 1); /* the visible chunk count, read late */
    char *chunk = concat(crowd_glsl_grass_common_glsl, crowd_glsl_grass_chunk_comp);
    char *classify0 = concat("#define GRASS_PRECISE precise\n", crowd_glsl_grass_common_glsl);
    char *classify = classify0 ? concat(classify0, crowd_glsl_grass_classify_comp) : NULL;
    crowd_free(classify0);
    if (!chunk || !classify) {
        crowd_free(chunk);
        crowd_free(classify);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "grass: shader source");
    }
    r = crowd_gpu_compute_program(&g->chunk_program, "grass chunk cull", chunk, error);
    if (r == CROWD_OK)
        r = crowd_gpu_compute_program(&g->classify_program, "grass classify", classify, error);
    crowd_free(chunk);
    crowd_free(classify);
    if (r != CROWD_OK)
        return r;
    g->cu_eye = glGetUniformLocation(g->chunk_program, "u_grass_eye");
    g->cu_counts = glGetUniformLocation(g->chunk_program, "u_chunk_counts");
    g->cu_grid = glGetUniformLocation(g->chunk_program, "u_chunk_grid");
    g->cu_cull = glGetUniformLocation(g->chunk_program, "u_cull");
    g->cu_density = glGetUniformLocation(g->chunk_program, "u_density");
    g->cu_budget = glGetUniformLocation(g->chunk_program, "u_budget");
    g->ku_eye = glGetUniformLocation(g->classify_program, "u_grass_eye");
    g->ku_bands = glGetUniformLocation(g->classify_program, "u_grass_bands");
    g->ku_counts = glGetUniformLocation(g->classify_program, "u_chunk_counts");
    g->ku_capacity = glGetUniformLocation(g->classify_program, "u_capacity");
    g->ku_blades = glGetUniformLocation(g->classify_program, "u_blades");
    glUseProgram(g->classify_program);
    glUniform1i(g->ku_blades, TEX_BLADES);
    glUseProgram(0);
    return CROWD_OK;
}
#endif

/* Timer queries where the context has them, as the crowd renderer decides (src/gl/renderer.c): GL 3.3
 * core, GLES with GL_EXT_disjoint_timer_query, WebGL2 with EXT_disjoint_timer_query_webgl2. */
static bool timers_supported(const crowd_grass *g)
{
#ifdef __EMSCRIPTEN__
    (void)g;
    const char *extensions = (const char *)glGetString(GL_EXTENSIONS);
    return extensions && strstr(extensions, "EXT_disjoint_timer_query_webgl2");
#else
    if (!g->desc.es)
        return epoxy_gl_version() >= 33 || epoxy_has_gl_extension("GL_ARB_timer_query");
    return epoxy_has_gl_extension("GL_EXT_disjoint_timer_query");
#endif
}

/* Which path the field takes: the GPU path where asked for or AUTO finds desktop GL 4.3. */
static crowd_result choose_path(crowd_grass *g, crowd_error *error)
{
    const crowd_grass_desc *d = &g->desc;
#ifdef __EMSCRIPTEN__
    if (d->path == CROWD_GRASS_PATH_GPU)
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "grass: the GPU path needs desktop GL 4.3 (compute)");
#else
    if (d->path == CROWD_GRASS_PATH_GPU && !gpu_available(g))
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "grass: the GPU path needs desktop GL 4.3 (compute)");
    g->gpu = d->path != CROWD_GRASS_PATH_CPU && gpu_available(g);
#endif
    g->stats.path = g->gpu ? CROWD_GRASS_PATH_GPU : CROWD_GRASS_PATH_CPU;
    return CROWD_OK;
}

/* The tier meshes and the ground quad in one vertex array (left bound). A cluster is 31 vertices
 * and 51 indices (near 19 / 39, mid 9 / 9, far 3 / 3); the ground 4 and 6. */
static crowd_result upload_meshes(crowd_grass *g, crowd_error *error)
{
    int copies = g->gpu ? 1 : CLUSTERS_PER_INSTANCE;
    float *vertices = crowd_malloc(sizeof(float) * 4 * (31 * (size_t)copies + 4));
    uint16_t *indices = crowd_malloc(sizeof(uint16_t) * (51 * (size_t)copies + 6));
    if (!vertices || !indices) {
        crowd_free(vertices);
        crowd_free(indices);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "grass: tier meshes");
    }
    mesh_builder m = {vertices, indices, 0, 0};
    build_meshes(g, &m, copies);
    glGenVertexArrays(1, &g->vao);
    glBindVertexArray(g->vao);
    glGenBuffers(1, &g->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, g->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(m.nv * 4 * sizeof(float)), vertices, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 16, (const void *)0);
    glGenBuffers(1, &g->ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g->ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(m.ni * sizeof(uint16_t)), indices, GL_STATIC_DRAW);
    crowd_free(vertices);
    crowd_free(indices);
    return CROWD_OK;
}

/* The path's own objects: on the GPU path its compute passes and the partitions' ids as an
 * instanced attribute (offset by each draw's baseInstance), else the CPU path's block table. */
static crowd_result create_path(crowd_grass *g, crowd_error *error)
{
#ifndef __EMSCRIPTEN__
    if (g->gpu) {
        crowd_result r = create_gpu_path(g, error);
        if (r == CROWD_OK) {
            glBindVertexArray(g->vao);
            glBindBuffer(GL_ARRAY_BUFFER, g->layer.ids);
            glEnableVertexAttribArray(1);
            glVertexAttribIPointer(1, 1, GL_UNSIGNED_INT, 4, (const void *)0);
            glVertexAttribDivisor(1, 1);
        }
        return r;
    }
#endif
    return create_cpu_path(g, error);
}

crowd_result crowd_grass_create(const crowd_grass_desc *desc, crowd_grass **out, crowd_error *error)
{
    *out = NULL;
    crowd_grass_desc d = crowd_grass_resolve(desc);
    crowd_result r = grass_check_desc(&d, error);
    if (r == CROWD_OK)
        r = crowd_gl_require_context("crowd_grass_create", error);
    if (r != CROWD_OK)
        return r;
    crowd_grass *g = crowd_calloc(1, sizeof *g);
    if (!g)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "grass: the field");
    g->desc = d;
    g->layout = grass_layout_of(&d);
    g->stats.chunks = g->layout.chunks;
    g->stats.gpu_cull_ms = g->stats.gpu_draw_ms = g->stats.gpu_ground_ms = -1.0;
    for (int t = 0; t < CROWD_GRASS_TIERS; t++)
        g->stats.gpu_tier_ms[t] = -1.0;
    if ((r = choose_path(g, error)) != CROWD_OK) {
        crowd_free(g);
        return r;
    }
    r = upload_meshes(g, error);
    if (r == CROWD_OK)
        r = upload_blades(g, error);
    if (r == CROWD_OK)
        r = upload_noise(g, error);
    if (r == CROWD_OK)
        r = build_program(g, error);
    if (r == CROWD_OK)
        r = create_path(g, error);
    if (r == CROWD_OK)
        r = grass_fields_create(&g->fields, &g->desc, error);
    g->stats.field_passes = g->fields.compute ? CROWD_GRASS_FIELDS_COMPUTE : CROWD_GRASS_FIELDS_FRAGMENT;
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glActiveTexture(GL_TEXTURE0);
    if (r == CROWD_OK && d.timers && timers_supported(g)) {
        g->timers = g->stats.timers = true;
        glGenQueries(TIMER_QUERIES * TIMER_RING, &g->queries[0][0]);
    }
    if (r == CROWD_OK) {
        GLenum e = glGetError();
        if (e != GL_NO_ERROR)
            r = crowd_fail(error, CROWD_ERROR_GL, "grass: GL error 0x%04x while creating the field (out of memory?)",
                           (unsigned)e);
    }
    if (r != CROWD_OK) {
        crowd_grass_destroy(g);
        return r;
    }
    *out = g;
    return CROWD_OK;
}

void crowd_grass_destroy(crowd_grass *g)
{
    if (!g)
        return;
    glDeleteTextures(1, &g->blades_tex);
    glDeleteTextures(1, &g->noise_tex);
    glDeleteTextures(1, &g->blocks_tex);
    glDeleteTextures(1, &g->no_shadow);
    glDeleteBuffers(1, &g->vbo);
    glDeleteBuffers(1, &g->ibo);
    glDeleteVertexArrays(1, &g->vao);
    crowd_program_release(&g->program);
    grass_fields_destroy(&g->fields);
#ifndef __EMSCRIPTEN__
    if (g->layer.ids)
        crowd_gpu_layer_destroy(&g->layer);
    glDeleteBuffers(1, &g->visible);
    if (g->chunk_program)
        glDeleteProgram(g->chunk_program);
    if (g->classify_program)
        glDeleteProgram(g->classify_program);
#endif
    if (g->timers)
        glDeleteQueries(TIMER_QUERIES * TIMER_RING, &g->queries[0][0]);
    crowd_free(g->blocks);
    crowd_free(g);
}

const crowd_grass_stats *crowd_grass_get_stats(const crowd_grass *g)
{
    return &g->stats;
}

static void band_uniform(const crowd_grass_desc *d, float out[4])
{
    out[0] = d->near_band[0];
    out[1] = 1.0f / (d->near_band[1] - d->near_band[0]);
    out[2] = d->far_band[0];
    out[3] = 1.0f / (d->far_band[1] - d->far_band[0]);
}

/* Each tier's run padded with empty entries to whole instances, then uploaded whole rows at a time,
 * only as far as each run is filled. */
static void upload_blocks(crowd_grass *g)
{
    for (uint32_t t = 0; t < CROWD_GRASS_TIERS; t++)
        while (g->tier_blocks[t] % GRASS_GROUP) {
            uint32_t *e = &g->blocks[2 * (t * g->tier_capacity + g->tier_blocks[t]++)];
            e[0] = e[1] = 0;
        }
    glActiveTexture(GL_TEXTURE0 + TEX_BLOCKS);
    glBindTexture(GL_TEXTURE_2D, g->blocks_tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    for (uint32_t t = 0; t < CROWD_GRASS_TIERS; t++) {
        if (!g->tier_blocks[t])
            continue;
        uint32_t start = t * g->tier_capacity, end = start + g->tier_blocks[t];
        uint32_t row0 = start / BLOCK_ROW, row1 = (end + BLOCK_ROW - 1) / BLOCK_ROW;
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, (GLint)row0, BLOCK_ROW, (GLsizei)(row1 - row0), GL_RG_INTEGER,
                        GL_UNSIGNED_INT, &g->blocks[2 * (size_t)row0 * BLOCK_ROW]);
    }
}

/* The CPU path's pass: the chunk test per chunk, the prefix cut into entries of CROWD_GRASS_BLOCK
 * blades for every tier the chunk's distance range can reach, and a tier estimate from the chunk's
 * mid distance. */
static void cpu_pass(crowd_grass *g)
{
    const grass_layout *l = &g->layout;
    const crowd_grass_desc *d = &g->desc;
    float bands[4];
    band_uniform(d, bands);
    memset(g->tier_blocks, 0, sizeof g->tier_blocks);
    double estimate[CROWD_GRASS_TIERS] = {0};
    uint32_t visible = 0;
    for (uint32_t c = 0; c < l->chunks; c++) {
        uint32_t prefix;
        float dmin, dmax;
        if (!grass_chunk_test(d, l, &g->eye, c, &prefix, &dmin, &dmax) || !prefix)
            continue;
        visible++;
        bool reach[CROWD_GRASS_TIERS] = {dmin<d->near_band[1], dmax> d->near_band[0] &&
                                         dmin<d->far_band[1], dmax> d->far_band[0]};
        uint32_t first = grass_chunk_first(l, c);
        for (uint32_t t = 0; t < CROWD_GRASS_TIERS; t++) {
            if (!reach[t])
                continue;
            for (uint32_t k = 0; k < prefix; k += CROWD_GRASS_BLOCK) {
                uint32_t *e = &g->blocks[2 * (t * g->tier_capacity + g->tier_blocks[t]++)];
                e[0] = first + k;
                e[1] = prefix - k < CROWD_GRASS_BLOCK ? prefix - k : CROWD_GRASS_BLOCK;
            }
        }
        float mid = 0.5f * (dmin + dmax);
        float nb = (mid - bands[0]) * bands[1], fb = (mid - bands[2]) * bands[3];
        nb = nb < 0 ? 0 : nb > 1 ? 1 : nb;
        fb = fb < 0 ? 0 : fb > 1 ? 1 : fb;
        estimate[0] += prefix * (1.0 - nb);
        estimate[2] += prefix * fb;
        estimate[1] += prefix * (nb - fb > 0 ? nb - fb : 0);
    }
    for (int t = 0; t < CROWD_GRASS_TIERS; t++)
        g->stats.tier_blades[t] = (uint32_t)(estimate[t] + 0.5);
    g->stats.chunks_visible = visible;
    g->stats.late = false;
    upload_blocks(g);
}

#ifndef __EMSCRIPTEN__
static void gpu_pass(crowd_grass *g)
{
    const grass_layout *l = &g->layout;
    const crowd_grass_desc *d = &g->desc;
    const uint32_t header[4] = {0, 1, 1, 0};
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->visible);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof header, header);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, g->visible);
    float eye[4] = {g->eye.x, g->eye.y, g->eye.z, g->eye.draw_distance}, bands[4];
    band_uniform(d, bands);
    glUseProgram(g->chunk_program);
    glUniform4fv(g->cu_eye, 1, eye);
    glUniform4ui(g->cu_counts, l->base, l->extra, l->chunks, l->per_axis);
    glUniform2f(g->cu_grid, l->origin, l->chunk);
    glUniform4f(g->cu_cull, g->eye.hx, g->eye.hz, g->eye.half_angle, g->eye.near_radius);
    glUniform4f(g->cu_density, d->full_density_distance, d->density_power, d->density_falloff, d->min_density);
    glUniform1f(g->cu_budget, g->eye.budget);
    glDispatchCompute((l->chunks + 255) / 256, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
    glUseProgram(g->classify_program);
    glUniform4fv(g->ku_eye, 1, eye);
    glUniform4fv(g->ku_bands, 1, bands);
    glUniform4ui(g->ku_counts, l->base, l->extra, l->chunks, l->per_axis);
    glUniform1ui(g->ku_capacity, g->layer.partition_capacity);
    glActiveTexture(GL_TEXTURE0 + TEX_BLADES);
    glBindTexture(GL_TEXTURE_2D, g->blades_tex);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, g->visible);
    glDispatchComputeIndirect(0);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}
#endif

static void timer_begin(crowd_grass *g, int which)
{
    if (!g->timers)
        return;
    uint32_t slot = g->timer_frame % TIMER_RING;
    glBeginQuery(GL_TIME_ELAPSED, g->queries[slot][which]); /* = GL_TIME_ELAPSED_EXT on GLES / WebGL2 */
    g->issued[slot][which] = true;
}

static void timer_end(crowd_grass *g)
{
    if (g->timers)
        glEndQuery(GL_TIME_ELAPSED);
}

/* Reads the results of the queries issued TIMER_RING - 1 frames ago, if they are there (never waits:
 * one availability poll per query; a result not there yet is skipped and its query reused). A query
 * not issued that frame is a section that did nothing: culling skipped, a tier with nothing to draw
 * (CPU path), 0 ms. */
static void timer_poll(crowd_grass *g)
{
    if (!g->timers || g->timer_frame < TIMER_RING)
        return;
    uint32_t slot = (g->timer_frame + 1) % TIMER_RING;
    crowd_grass_stats *st = &g->stats;
    for (int w = 0; w < TIMER_QUERIES; w++) {
        double ms = 0.0;
        if (g->issued[slot][w]) {
            GLuint ready = 0;
            glGetQueryObjectuiv(g->queries[slot][w], GL_QUERY_RESULT_AVAILABLE, &ready);
            if (!ready)
                continue;
            GLuint ns = 0;
            glGetQueryObjectuiv(g->queries[slot][w], GL_QUERY_RESULT, &ns);
            ms = ns * 1e-6;
            g->issued[slot][w] = false;
        }
        if (w == 0)
            st->gpu_cull_ms = ms;
        else if (w <= CROWD_GRASS_TIERS)
            st->gpu_tier_ms[w - 1] = ms;
        else
            st->gpu_ground_ms = ms;
    }
    if (st->gpu_tier_ms[0] >= 0.0 && st->gpu_tier_ms[1] >= 0.0 && st->gpu_tier_ms[2] >= 0.0 && st->gpu_ground_ms >= 0.0)
        st->gpu_draw_ms = st->gpu_tier_ms[0] + st->gpu_tier_ms[1] + st->gpu_tier_ms[2] + st->gpu_ground_ms;
}

/* The key in whole millimetres and 1e-5 radians: the eye and heading come out of the view matrix,
 * whose rounding changes with pitch alone; the pass itself uses the exact values. */
static grass_key grass_key_of(const grass_eye *e)
{
    grass_key k = {
        rintf(e->x * 1e3f), rintf(e->y * 1e3f), rintf(e->z * 1e3f),         rintf(atan2f(e->hz, e->hx) * 1e5f), 0.0f,
        e->draw_distance,   e->budget,          rintf(e->half_angle * 1e5f)};
    return k;
}

/* The shadow sampler's unit always holds a depth texture with comparison on, shadows or not: WebGL
 * refuses a draw whose sampler2DShadow unit holds anything else (INVALID_OPERATION, the whole field
 * gone), even when the shader never samples it. The renderer's map when there is one, else a 1x1. */
static void bind_shadow_sampler(crowd_grass *g, const crowd_gl_renderer *sh)
{
    glActiveTexture(GL_TEXTURE0 + TEX_SHADOW);
    if (sh && sh->shadow_depth) {
        glBindTexture(GL_TEXTURE_2D, sh->shadow_depth);
        return;
    }
    if (!g->no_shadow) {
        const uint16_t far = 0xFFFF;
        glGenTextures(1, &g->no_shadow);
        glBindTexture(GL_TEXTURE_2D, g->no_shadow);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT16, 1, 1, 0, GL_DEPTH_COMPONENT, GL_UNSIGNED_SHORT, &far);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    }
    glBindTexture(GL_TEXTURE_2D, g->no_shadow);
}

static void set_frame_uniforms(crowd_grass *g, const crowd_gl_renderer *sh, const crowd_gl_scene *s,
                               const crowd_grass_frame *f)
{
    float vp[16], bands[4];
    cb_mat4_mul(vp, s->projection, s->view);
    band_uniform(&g->desc, bands);
    glUniformMatrix4fv(g->u[GU_VP], 1, GL_FALSE, vp);
    glUniform4f(g->u[GU_EYE], g->eye.x, g->eye.y, g->eye.z, g->eye.draw_distance);
    glUniform4fv(g->u[GU_BANDS], 1, bands);
    glUniform4f(g->u[GU_BLADE_SIZE], g->desc.blade_height, g->desc.blade_width, f->time, g->desc.ground_size);
    glUniform2f(g->u[GU_WIND], f->wind[0], f->wind[1]);
    glUniform3f(g->u[GU_CAMERA], g->eye.x, g->eye.y, g->eye.z);
    glUniform3fv(g->u[GU_SUN_DIR], 1, s->sun_direction);
    glUniform3fv(g->u[GU_SUN_COL], 1, s->sun_color);
    glUniform3fv(g->u[GU_SKY], 1, s->sky_color);
    glUniform3fv(g->u[GU_GROUND], 1, s->ground_color);
    glUniform3fv(g->u[GU_FOG_COL], 1, s->fog_color);
    glUniform1f(g->u[GU_FOG], s->fog_density);
    glUniform2f(g->u[GU_TONE], (float)s->output, s->exposure > 0.0f ? s->exposure : 1.0f);
    bool shadows = s->shadows && sh && sh->shadow_depth;
    glUniform1i(g->u[GU_SHADOWS], shadows ? 1 : 0);
    if (shadows) {
        glUniformMatrix4fv(g->u[GU_LIGHT_VP], 1, GL_FALSE, sh->light_view_projection);
        glUniform2f(g->u[GU_SHADOW_TEXEL], 1.0f / (float)sh->shadow_size, 1.0f / (float)sh->shadow_size);
    }
    bind_shadow_sampler(g, sh);
    grass_fields_bind(&g->fields, &g->desc, TEX_FIELDS, g->u[GU_TRAMPLE_FIELD], g->u[GU_CUT_FIELD]);
    if (g->paint) {
        glActiveTexture(GL_TEXTURE0 + TEX_PAINT);
        glBindTexture(GL_TEXTURE_2D, g->paint);
        glUniform4f(g->u[GU_PAINT_FIELD], -0.5f * g->paint_world, -0.5f * g->paint_world, 1.0f / g->paint_world, 1.0f);
    } else {
        glUniform4f(g->u[GU_PAINT_FIELD], 0.0f, 0.0f, 0.0f, 0.0f);
    }
}

void crowd_grass_set_paint(crowd_grass *g, uint32_t texture, float world_size)
{
    if (!g)
        return;
    bool ok = texture && world_size > 0.0f && world_size < 1e7f;
    g->paint = ok ? (GLuint)texture : 0;
    g->paint_world = ok ? world_size : 0.0f;
}

crowd_result crowd_grass_update_fields(crowd_grass *g, const crowd_gl_renderer *target, const crowd_gl_scene *scene,
                                       const crowd_grass_fields *fields)
{
    if (!g || !scene || !fields)
        return CROWD_ERROR_ARGUMENT;
    if (!g->fields.on)
        return CROWD_OK;
    grass_eye e = grass_eye_of(&g->desc, scene->view, scene->projection, 0.0f, 0.0f);
    g->stats.trample_stamps =
        grass_fields_update(&g->fields, &g->desc, e.x, e.z, e.hx, e.hz, fields, &g->stats.cut_stamps);
    g->stats.trample_origin[0] = (float)g->fields.origin[0] * g->fields.texel;
    g->stats.trample_origin[1] = (float)g->fields.origin[1] * g->fields.texel;
    if (g->fields.passes && target) {
        glBindFramebuffer(GL_FRAMEBUFFER, target->target_fbo);
        glViewport(target->target_viewport[0], target->target_viewport[1], target->target_viewport[2],
                   target->target_viewport[3]);
    }
    if (g->desc.debug) {
        GLenum err = glGetError();
        if (err != GL_NO_ERROR) {
            fprintf(stderr, "crowdbake grass: GL error 0x%04x in the field update\n", (unsigned)err);
            return CROWD_ERROR_GL;
        }
    }
    return CROWD_OK;
}

void crowd_grass_reset_fields(crowd_grass *g)
{
    if (g)
        grass_fields_reset(&g->fields);
}

/* The frame's culling: a pass when the key changed (or never ran), else nothing; the GPU path's
 * late counts into the stats. */
static void cull(crowd_grass *g, const crowd_gl_scene *scene, const crowd_grass_frame *f)
{
    g->eye = grass_eye_of(&g->desc, scene->view, scene->projection, f->draw_distance, f->budget);
    grass_key key = grass_key_of(&g->eye);
    bool ran = false;
    timer_begin(g, 0);
#ifndef __EMSCRIPTEN__
    if (g->gpu) {
        ran = crowd_gpu_layer_begin(&g->layer, &key, sizeof key, false);
        if (ran) {
            gpu_pass(g);
            crowd_gpu_layer_end(&g->layer);
        }
        crowd_gpu_layer_poll(&g->layer);
        if (g->layer.late_pass) {
            for (int t = 0; t < CROWD_GRASS_TIERS; t++)
                g->stats.tier_blades[t] = g->layer.late_counts[t];
            g->stats.chunks_visible = g->layer.late_extra[0];
            g->stats.late = true;
        }
    }
#endif
    if (!g->gpu && (!g->key_valid || memcmp(&key, &g->key, sizeof key))) {
        g->key = key;
        g->key_valid = true;
        cpu_pass(g);
        ran = true;
    }
    timer_end(g);
    /* With timers, a flush closes the culling's query at once. Without it llvmpipe (which bins its
       queries into a scene and splits the scene at a compute dispatch) records the query's end only
       when the next scene rasterises: after this frame's draw calls, whose vertex stage it runs on
       the calling thread, so the culling's time would hold the draws' vertex work too. glFlush
       waits for nothing; on a GPU it submits the culling a little earlier. */
    if (g->timers && ran)
        glFlush();
    if (!ran) {
        uint32_t slot = g->timer_frame % TIMER_RING;
        if (g->timers && g->issued[slot][0]) /* a query around no work: drop it, the skipped frame is 0 ms */
            g->issued[slot][0] = false;
    }
    g->stats.last_skipped = !ran;
    if (ran)
        g->stats.passes_run++;
    else
        g->stats.passes_skipped++;
}

/* The three tiers: indirect draws of the partitions (GPU path), or one instanced draw per tier over
 * its run of the block table (CPU path, tiers with nothing to draw skipped). */
static void draw_tiers(crowd_grass *g)
{
#ifndef __EMSCRIPTEN__
    if (g->gpu) {
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, g->layer.commands);
        for (uint32_t t = 0; t < CROWD_GRASS_TIERS; t++, g->stats.draws++) {
            timer_begin(g, 1 + (int)t);
            glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_SHORT, (const void *)(uintptr_t)(20u * t));
            timer_end(g);
        }
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
        return;
    }
#endif
    glActiveTexture(GL_TEXTURE0 + TEX_BLOCKS);
    glBindTexture(GL_TEXTURE_2D, g->blocks_tex);
    for (uint32_t t = 0; t < CROWD_GRASS_TIERS; t++) {
        if (!g->tier_blocks[t])
            continue;
        glUniform1i(g->u[GU_BLOCK_OFFSET], (GLint)(t * g->tier_capacity));
        timer_begin(g, 1 + (int)t);
        glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)g->tiers[t].index_count, GL_UNSIGNED_SHORT,
                                (const void *)(uintptr_t)(g->tiers[t].first_index * sizeof(uint16_t)),
                                (GLsizei)(g->tier_blocks[t] / GRASS_GROUP));
        timer_end(g);
        g->stats.draws++;
    }
}

crowd_result crowd_grass_draw(crowd_grass *g, const crowd_gl_renderer *shadows, const crowd_gl_scene *scene,
                              const crowd_grass_frame *frame)
{
    static const crowd_grass_frame still = {0};
    const crowd_grass_frame *f = frame ? frame : &still;
    timer_poll(g);
    if (g->timers) /* this frame's queries: whatever of their last use was never ready is dropped */
        memset(g->issued[g->timer_frame % TIMER_RING], 0, sizeof g->issued[0]);
    cull(g, scene, f);

    glUseProgram(g->program.id);
    set_frame_uniforms(g, shadows, scene, f);
    glActiveTexture(GL_TEXTURE0 + TEX_NOISE);
    glBindTexture(GL_TEXTURE_2D, g->noise_tex);
    glActiveTexture(GL_TEXTURE0 + TEX_BLADES);
    glBindTexture(GL_TEXTURE_2D, g->blades_tex);
    glBindVertexArray(g->vao);
    glEnable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE); /* blades are seen from both sides */
    g->stats.draws = 0;
    draw_tiers(g);
    if (g->desc.ground_size > 0.0f) { /* last: the blades in front of it have filled the depth buffer */
        timer_begin(g, 1 + CROWD_GRASS_TIERS);
        glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)(uintptr_t)(g->tiers[3].first_index * 2u));
        timer_end(g);
        g->stats.draws++;
    }
    glEnable(GL_CULL_FACE);
    glBindVertexArray(0);
    glUseProgram(0);
    glActiveTexture(GL_TEXTURE0);
    g->timer_frame++;
    if (g->desc.debug) {
        GLenum e = glGetError();
        if (e != GL_NO_ERROR) {
            fprintf(stderr, "crowdbake grass: GL error 0x%04x in the frame\n", (unsigned)e);
            return CROWD_ERROR_GL;
        }
    }
    return CROWD_OK;
}

/* ---- for tests (grass_testing.h; they stall) ---- */
grass_eye grass_gl_eye(const crowd_grass *g)
{
    return g->eye;
}

bool grass_gl_read_field(const crowd_grass *g, int which, uint8_t *rgba)
{
    return grass_fields_read(&g->fields, which, rgba);
}

bool grass_gl_read_partitions(const crowd_grass *g, uint32_t counts[CROWD_GRASS_TIERS], uint32_t *ids)
{
#ifndef __EMSCRIPTEN__
    if (!g->gpu)
        return false;
    uint32_t all[CROWD_GPU_MAX_PARTITIONS];
    crowd_gpu_layer_read(&g->layer, all, ids);
    memcpy(counts, all, sizeof(uint32_t) * CROWD_GRASS_TIERS);
    return true;
#else
    (void)g, (void)counts, (void)ids;
    return false;
#endif
}

const crowd_grass_desc *grass_gl_desc(const crowd_grass *g)
{
    return &g->desc;
}
