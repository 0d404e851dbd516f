/* The crowd's GPU-driven path: the cull pass (glsl/cull.comp) over the frame's live records on the
 * layer of gpu_cull.h, and the body draws as glMultiDrawElementsIndirect over its partitions, with
 * the crowd's own vertex shader reading records through the compacted slots (GPU_DRIVEN). */
#include "gl/gpu_crowd.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gl/shaders.h"

crowd_gl_path crowd_gl_get_path(const crowd_gl_renderer *r)
{
    return r && r->gpu ? CROWD_GL_PATH_GPU : CROWD_GL_PATH_CPU;
}

crowd_result crowd_gpu_crowd_choose(crowd_gl_renderer *r, crowd_error *error)
{
    crowd_gl_path path = r->desc.path == CROWD_GL_PATH_DEFAULT ? CROWD_GL_PATH_AUTO : r->desc.path;
    if (path == CROWD_GL_PATH_CPU)
        return CROWD_OK;
    if (path != CROWD_GL_PATH_GPU && path != CROWD_GL_PATH_AUTO)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gl_desc.path: unknown value %d", (int)path);
    if (!crowd_gpu_crowd_available(r)) {
        if (path == CROWD_GL_PATH_AUTO)
            return CROWD_OK;
        return crowd_fail(error, CROWD_ERROR_GL,
                          "the GPU-driven path needs desktop GL 4.3 with storage buffers "
                          "in the vertex stage");
    }
    return crowd_gpu_crowd_create(r, error);
}

#ifdef __EMSCRIPTEN__
bool crowd_gpu_crowd_available(const crowd_gl_renderer *r)
{
    (void)r;
    return false;
}
crowd_result crowd_gpu_crowd_create(crowd_gl_renderer *r, crowd_error *error)
{
    (void)r;
    return crowd_fail(error, CROWD_ERROR_GL, "the GPU-driven path needs desktop GL 4.3");
}
void crowd_gpu_crowd_destroy(crowd_gl_renderer *r)
{
    (void)r;
}
void crowd_gpu_crowd_upload(crowd_gl_renderer *r, const crowd_frame *f)
{
    (void)r, (void)f;
}
bool crowd_gpu_crowd_driven(const crowd_gl_renderer *r)
{
    (void)r;
    return false;
}
void crowd_gpu_crowd_draw(crowd_gl_renderer *r, const crowd_frame *f, const float vp[16], bool shadow,
                          const crowd_gl_scene *scene)
{
    (void)r, (void)f, (void)vp, (void)shadow, (void)scene;
}
void crowd_gpu_attachments_draw(crowd_gl_renderer *r, const crowd_frame *f, const float vp[16], bool shadow,
                                const crowd_gl_scene *scene)
{
    (void)r, (void)f, (void)vp, (void)shadow, (void)scene;
}
void crowd_gpu_blob_draw(crowd_gl_renderer *r, const crowd_frame *f, const float vp[16], const crowd_gl_scene *scene)
{
    (void)r, (void)f, (void)vp, (void)scene;
}
void crowd_gl_cull(crowd_gl_renderer *r, const crowd_frame *f, const crowd_view *view, const float light[16])
{
    (void)r, (void)f, (void)view, (void)light;
}
const crowd_gl_gpu_stats *crowd_gl_get_gpu_stats(const crowd_gl_renderer *r)
{
    static const crowd_gl_gpu_stats none;
    (void)r;
    return &none;
}
#else

#define DEFAULT_BAND 0.15f

enum cull_uniform {
    C_LIVE,
    C_TOTAL,
    C_PLANES,
    C_LIGHT_PLANES,
    C_CAMERA,
    C_PROJECTION_SCALE,
    C_PERSPECTIVE,
    C_SPHERE_Y,
    C_SPHERE_RADIUS,
    C_LEVELS,
    C_POLICY,
    C_THRESHOLDS,
    C_HYSTERESIS,
    C_BIAS,
    C_MIN_COVERAGE,
    C_BAND,
    C_SHADOW_MAX_LOD,
    C_PARTITION,
    C_SHADOW_BASE,
    C_STAGE,
    C_BUDGET_ON,
    C_BUDGET,
    C_INDEX_COUNTS,
    C_TIME,
    C_CARDS,
    C_CARD_BAND,
    C_CARD_FROM,
    C_CLIP_COUNT,
    C_COUNT
};

static const char *const cull_uniform_names[C_COUNT] = {
    "u_live",        "u_total",     "u_planes",        "u_light_planes", "u_camera",         "u_projection_scale",
    "u_perspective", "u_sphere_y",  "u_sphere_radius", "u_levels",       "u_policy",         "u_thresholds",
    "u_hysteresis",  "u_bias",      "u_min_coverage",  "u_band",         "u_shadow_max_lod", "u_partition",
    "u_shadow_base", "u_stage",     "u_budget_on",     "u_budget",       "u_index_counts",   "u_time",
    "u_cards",       "u_card_band", "u_card_from",     "u_clip_count",
};

#define BINS 256                 /* as cull.comp */
#define BUDGET_RESULT (8 * BINS) /* words: cutoff, satisfied, demoted, indices low, high */
#define BUDGET_WORDS (BUDGET_RESULT + 8)

/* The LOD settings the pass applies (settings_of); part of the skip key, so no padding holes. */
typedef struct cull_settings {
    uint32_t policy; /* 0 distance, 1 coverage */
    float thresholds[CROWD_MAX_LODS];
    float hysteresis, bias, min_coverage, band_log;
    int32_t shadow_max_lod; /* -1: no casters */
    int32_t cross_fade_max_lod;
    uint32_t vertex_budget; /* index references; 0 = none */
    uint32_t cards;         /* 1: the imposter level, partition 2 * levels */
    float card_band;        /* its hand-off width (crowd_desc.imposter_band); 0: a hard switch */
    uint32_t card_from;     /* the hand-off's mesh side (crowd.h CROWD_DRAW_BAND): levels from it may take the card */
} cull_settings;

/* What the pass's result depends on besides the records (see gl.h: skip-when-unchanged). */
typedef struct cull_key {
    float view[16], projection[16], light[16];
    uint32_t has_light;
    float time; /* the frame's time while some instance moves (extrapolated positions), else 0 */
    cull_settings settings;
} cull_key;

#define LIGHT_HISTORY (CROWD_GPU_RING + 1) /* see crowd_gpu_crowd.pass_light */

struct crowd_gpu_crowd {
    crowd_gpu_layer layer;
    GLuint cull;
    GLint u[C_COUNT];
    crowd_program programs[2][2][PROGRAM_VARIANTS]; /* [bones][cross-fade][variant] */
    GLuint vao;

    /* attachments: programs, one VAO each (mesh + slot attribute), 16 commands each */
    crowd_program attachment_programs[PROGRAM_VARIANTS];
    /* the cards (imposter.vert with GPU_DRIVEN): six indices 0..5 and the slot attribute; the
       far-shadow blobs (blob.vert) draw through the same vertex array */
    crowd_program card_programs[PROGRAM_VARIANTS]; /* colour and velocity (no depth-only one) */
    GLuint card_vao, card_ibo;
    /* the blobs: a command per colour level and one for the cards (6 indices, the partition's
       baseInstance), instance counts copied from the layer's commands on the GPU once per pass */
    crowd_program blob_program;
    GLuint blob_commands;
    uint64_t blob_pass; /* layer.passes_run when they were last copied; UINT64_MAX: never */
    bool atlas;         /* the renderer has an imposter atlas and room for one more level */
    GLuint attachment_vaos[CROWD_GL_MAX_ATTACHMENTS], attachment_commands;
    uint32_t attachments_ready; /* attachments with a VAO and commands (r->attachment_count grows) */
    uint32_t levels;

    GLuint budget;       /* histogram + result (cull.comp binding 5) */
    GLuint clip_spheres; /* per clip (cull_center_y, cull_radius + attachments' reach): cull.comp binding 7,
                            written at creation and when attachments are added */
    /* the instance index of every slot (frame.slot_instances; cull.comp binding 4), kept up to date
     * through the frames' upload ranges; the pass runs over slots [0, total), live ones < live */
    GLuint slot_ids;
    bool ids_uploaded;
    uint32_t ids_span; /* the record_count of the last upload: slots past it were not kept up */
    uint32_t total, live;
    bool driven; /* crowd_gl_cull has been called: draws come from the partitions */

    cull_settings settings;
    crowd_gl_gpu_stats stats;
    /* whether pass n had a light, at n % LIGHT_HISTORY: a pass without one (a frame with no shadow
       pass) keeps the last casters in the stats. A copy is read at most CROWD_GPU_RING - 1 passes
       after its own, so the entry is still that pass's when its counts arrive. */
    bool pass_light[LIGHT_HISTORY];
    uint64_t published_pass; /* layer.late_pass the stats were last made from */
};

bool crowd_gpu_crowd_available(const crowd_gl_renderer *r)
{
    if (r->desc.es)
        return false;
    GLint major = 0, minor = 0, vertex_blocks = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major < 4 || (major == 4 && minor < 3))
        return false;
    glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &vertex_blocks);
    return vertex_blocks >= 1;
}

const crowd_gpu_layer *crowd_gpu_crowd_layer(const crowd_gl_renderer *r)
{
    return r->gpu ? &r->gpu->layer : NULL;
}

/* ---- settings ---------------------------------------------------------------------------------- */

/* The cull pass's settings from the crowd's (crowd_frame.settings, resolved once by the crowd) and
 * the renderer's band between levels. */
static void settings_of(const crowd_asset *a, bool atlas, const crowd_desc *d, float band, cull_settings *out)
{
    memset(out, 0, sizeof *out);
    out->policy = d->lod_policy == CROWD_LOD_DISTANCE ? 0u : 1u;
    for (uint32_t l = 0; l < CROWD_MAX_LODS; l++)
        out->thresholds[l] = out->policy ? d->screen_coverage[l] : l + 1 < CROWD_MAX_LODS ? d->lod_distances[l] : 0.0f;
    out->hysteresis = crowd_width_of(d->hysteresis);
    out->bias = d->lod_bias;
    out->min_coverage = d->min_coverage;
    float width = band == 0.0f ? DEFAULT_BAND : band;
    out->band_log = width > 0.0f && isfinite(width) ? logf(1.0f + width) : 0.0f;
    uint32_t smax = crowd_max_lod_level(d->shadow_max_lod), cfm = crowd_max_lod_level(d->cross_fade_max_lod);
    out->shadow_max_lod = d->shadows < 0 ? -1 : (int32_t)(smax < a->lod_count ? smax : a->lod_count - 1);
    out->cross_fade_max_lod = (int32_t)(cfm < a->lod_count ? cfm : a->lod_count - 1);
    out->vertex_budget = out->policy == 1 ? d->vertex_budget : 0; /* as on the CPU: coverage policy only */
    out->cards = atlas && d->imposters > 0;
    if (out->cards) {
        out->card_band = crowd_width_of(d->imposter_band);
        uint32_t last = a->lod_count - 1;
        /* distance: the level the chain has at the band's near end T / (1 + b), as crowd_lod.c */
        out->card_from = last;
        if (out->policy == 0 && out->thresholds[last] > 0.0f) {
            float near_end = out->thresholds[last] / (1.0f + out->card_band);
            uint32_t l = 0;
            while (l < last && out->thresholds[l] > 0.0f && near_end >= out->thresholds[l])
                l++;
            out->card_from = l;
        }
    }
}

/* ---- creation ---------------------------------------------------------------------------------- */

static crowd_result build_programs(crowd_gl_renderer *r, struct crowd_gpu_crowd *g, crowd_error *error)
{
    const crowd_asset *a = r->asset;
    char encoding[64] = "GPU_DRIVEN\n";
    if (a->position_encoding == CROWD_POSITION_F16_BOX)
        strcat(encoding, "POS_F16\n");
    if (a->normal_encoding == CROWD_NORMAL_OCT8_IN_W)
        strcat(encoding, "NORMAL_W8\n");
    if (a->normal_encoding == CROWD_NORMAL_OCT_F16)
        strcat(encoding, "NORMAL_F16\n");
    crowd_result result = crowd_gpu_compute_program(&g->cull, "crowd cull", crowd_glsl_cull_comp, error);
    for (int bones = 0; bones < 2 && result == CROWD_OK; bones++) {
        if (bones && !a->bones.data)
            break;
        for (int fade = 0; fade < 2 && result == CROWD_OK; fade++)
            for (int v = 0; v < PROGRAM_VARIANTS && result == CROWD_OK; v++) {
                const char *variant = crowd_gl_variant_defines(r, v);
                char defines[160];
                snprintf(defines, sizeof defines, "%s%s%s%s", encoding, bones ? "BONES\n" : "",
                         fade ? "CROSS_FADE\n" : "", variant ? variant : "");
                if (variant)
                    result = crowd_program_build_with(
                        &g->programs[bones][fade][v], "crowd (GPU-driven)", "#version 430 core\n", defines,
                        crowd_glsl_crowd_vert, v == PROGRAM_DEPTH ? crowd_glsl_depth_frag : crowd_glsl_lit_frag, error);
            }
    }
    for (int v = 0; v < PROGRAM_VARIANTS && result == CROWD_OK; v++) {
        const char *variant = crowd_gl_variant_defines(r, v);
        char defines[96];
        snprintf(defines, sizeof defines, "GPU_DRIVEN\n%s", variant ? variant : "");
        if (variant && a->bones.data)
            result = crowd_program_build_with(&g->attachment_programs[v], "attachment (GPU-driven)",
                                              "#version 430 core\n", defines, crowd_glsl_attachment_vert,
                                              v == PROGRAM_DEPTH ? crowd_glsl_depth_frag : crowd_glsl_lit_frag, error);
        if (variant && v != PROGRAM_DEPTH && g->atlas && result == CROWD_OK)
            result = crowd_program_build_with(&g->card_programs[v], "imposter (GPU-driven)", "#version 430 core\n",
                                              defines, crowd_glsl_imposter_vert, crowd_glsl_imposter_frag, error);
    }
    if (result == CROWD_OK)
        result = crowd_program_build_with(&g->blob_program, "blob shadow (GPU-driven)", "#version 430 core\n",
                                          "GPU_DRIVEN\n", crowd_glsl_blob_vert, crowd_glsl_blob_frag, error);
    if (result == CROWD_OK)
        for (int i = 0; i < C_COUNT; i++)
            g->u[i] = glGetUniformLocation(g->cull, cull_uniform_names[i]);
    return result;
}

/* The mesh attributes of the CPU path's VAO (locations 0..6), plus the slot attribute (12) read
 * per instance from the id buffer: baseInstance selects the partition. */
/* Attribute 12 of the bound vertex array: the compacted instance id, one per instance (the cull
 * pass's partitions; the mesh and the card vertex arrays both read it). */
static void attach_instance_ids(const struct crowd_gpu_crowd *g)
{
    glBindBuffer(GL_ARRAY_BUFFER, g->layer.ids);
    glEnableVertexAttribArray(12);
    glVertexAttribIPointer(12, 1, GL_UNSIGNED_INT, 0, NULL);
    glVertexAttribDivisor(12, 1);
}

static void build_vao(const crowd_gl_renderer *r, struct crowd_gpu_crowd *g)
{
    const crowd_asset *a = r->asset;
    glGenVertexArrays(1, &g->vao);
    glBindVertexArray(g->vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo_region);
    glEnableVertexAttribArray(0);
    glVertexAttribIPointer(0, 1, GL_UNSIGNED_BYTE, 0, NULL);
    if (a->uvs) {
        glBindBuffer(GL_ARRAY_BUFFER, r->vbo_uv);
        glEnableVertexAttribArray(1);
        glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    }
    if (a->colors) {
        glBindBuffer(GL_ARRAY_BUFFER, r->vbo_color);
        glEnableVertexAttribArray(2);
        glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, NULL);
    }
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo_position);
    glEnableVertexAttribArray(3);
    glVertexAttribPointer(3, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo_normal);
    glEnableVertexAttribArray(4);
    glVertexAttribPointer(4, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    if (a->joints) {
        glBindBuffer(GL_ARRAY_BUFFER, r->vbo_joints);
        glEnableVertexAttribArray(5);
        glVertexAttribIPointer(5, 4, GL_UNSIGNED_SHORT, 0, NULL);
        glBindBuffer(GL_ARRAY_BUFFER, r->vbo_weights);
        glEnableVertexAttribArray(6);
        glVertexAttribPointer(6, 4, GL_UNSIGNED_SHORT, GL_TRUE, 0, NULL);
    }
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->ibo);
    attach_instance_ids(g);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    /* with or without an atlas: the blobs use it too */
    static const uint32_t corners[6] = {0, 1, 2, 3, 4, 5}; /* imposter.vert's gl_VertexID % 6 */
    glGenVertexArrays(1, &g->card_vao);
    glBindVertexArray(g->card_vao);
    glGenBuffers(1, &g->card_ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g->card_ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
    attach_instance_ids(g);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* Partitions and state for `capacity` records (at creation, and again if the instance buffer grows:
 * the hysteresis state starts afresh then). */
/* The partition blob command l draws: colour level l, or past the levels the cards' partition. */
static uint32_t blob_partition(const struct crowd_gpu_crowd *g, uint32_t l)
{
    return l < g->levels ? l : 2 * g->levels;
}

static crowd_result size_layer(crowd_gl_renderer *r, struct crowd_gpu_crowd *g, uint32_t capacity, crowd_error *error)
{
    const crowd_asset *a = r->asset;
    if (g->layer.ids)
        crowd_gpu_layer_destroy(&g->layer);
    crowd_result result = crowd_gpu_layer_create(&g->layer, 2 * g->levels + g->atlas, capacity, capacity, error);
    if (result != CROWD_OK)
        return result;
    for (uint32_t l = 0; l < g->levels; l++) { /* colour level l and shadow level l draw the same mesh */
        crowd_gpu_layer_set_command(&g->layer, l, a->lods[l].index_count, a->lods[l].first_index, 0);
        crowd_gpu_layer_set_command(&g->layer, g->levels + l, a->lods[l].index_count, a->lods[l].first_index, 0);
    }
    if (g->atlas) /* the cards: six corners of card_ibo each */
        crowd_gpu_layer_set_command(&g->layer, 2 * g->levels, 6, 0, 0);
    /* the blobs' commands: entry l < levels draws colour partition l, entry levels the cards' */
    uint32_t blob[5 * (CROWD_MAX_LODS + 1)] = {0};
    for (uint32_t l = 0; l <= g->levels; l++) {
        blob[5 * l] = 6;
        blob[5 * l + 4] = blob_partition(g, l) * g->layer.partition_capacity;
    }
    if (!g->blob_commands)
        glGenBuffers(1, &g->blob_commands);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, g->blob_commands);
    glBufferData(GL_DRAW_INDIRECT_BUFFER, sizeof blob, blob, GL_DYNAMIC_COPY);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    g->blob_pass = UINT64_MAX;
    g->published_pass = 0; /* the new layer counts its passes from 1 again */
    if (g->budget)
        crowd_gpu_layer_set_extra(&g->layer, g->budget, 4 * BUDGET_RESULT, 5);
    if (!g->slot_ids)
        glGenBuffers(1, &g->slot_ids);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->slot_ids);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 4 * (GLsizeiptr)capacity, NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    g->ids_uploaded = false;  /* the next upload sends every slot's */
    g->attachments_ready = 0; /* their VAOs and commands follow the new buffers */
    GLuint vaos[2] = {g->vao, g->card_vao};
    for (int i = 0; i < 2; i++)
        if (vaos[i]) { /* the slot attribute reads the new id buffer */
            glBindVertexArray(vaos[i]);
            glBindBuffer(GL_ARRAY_BUFFER, g->layer.ids);
            glVertexAttribIPointer(12, 1, GL_UNSIGNED_INT, 0, NULL);
            glBindVertexArray(0);
            glBindBuffer(GL_ARRAY_BUFFER, 0);
        }
    return CROWD_OK;
}

/* cull.comp's per-clip spheres: each clip's culling sphere grown by how far the attachments reach
 * past it (crowd_gl_renderer.attachment_reach), so that an instance is kept while anything the
 * renderer draws on it may be in view. Written at creation and when attachments are added. */
static bool upload_clip_spheres(const crowd_gl_renderer *r, const struct crowd_gpu_crowd *g)
{
    const crowd_asset *a = r->asset;
    uint32_t n = a->clip_count ? a->clip_count : 1;
    float *spheres = crowd_malloc(2 * sizeof *spheres * n);
    if (!spheres)
        return false;
    spheres[0] = a->sphere_center_y, spheres[1] = a->sphere_radius; /* a clipless asset: one unused entry */
    for (uint32_t k = 0; k < a->clip_count; k++) {
        float reach = r->attachment_reach ? r->attachment_reach[k] : 0.0f;
        spheres[2 * k] = a->clips[k].cull_center_y, spheres[2 * k + 1] = a->clips[k].cull_radius + reach;
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->clip_spheres);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 2 * sizeof *spheres * n, spheres, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    crowd_free(spheres);
    return true;
}

crowd_result crowd_gpu_crowd_create(crowd_gl_renderer *r, crowd_error *error)
{
    const crowd_asset *a = r->asset;
    struct crowd_gpu_crowd *g = crowd_calloc(1, sizeof *g);
    if (!g)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "GPU path: out of memory");
    r->gpu = g;
    g->levels = a->lod_count < CROWD_MAX_LODS ? a->lod_count : CROWD_MAX_LODS;
    g->atlas = r->imposter[PROGRAM_COLOUR].id != 0 && a->lod_count < CROWD_MAX_LODS &&
               2 * a->lod_count + 1 <= CROWD_GPU_MAX_PARTITIONS;
    crowd_result result = size_layer(r, g, r->capacity, error);
    if (result != CROWD_OK)
        return result;
    glGenBuffers(1, &g->budget);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->budget);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 4 * BUDGET_WORDS, NULL, GL_DYNAMIC_COPY);
    uint32_t zero = 0;
    glClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    crowd_gpu_layer_set_extra(&g->layer, g->budget, 4 * BUDGET_RESULT, 5);
    glGenBuffers(1, &g->clip_spheres);
    if (!upload_clip_spheres(r, g))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "GPU path: out of memory");
    build_vao(r, g);
    result = build_programs(r, g, error);
    if (result == CROWD_OK)
        result = crowd_gl_check("GPU-driven path", error);
    return result;
}

void crowd_gpu_crowd_destroy(crowd_gl_renderer *r)
{
    struct crowd_gpu_crowd *g = r->gpu;
    if (!g)
        return;
    crowd_gpu_layer_destroy(&g->layer);
    for (int b = 0; b < 2; b++)
        for (int f = 0; f < 2; f++)
            for (int v = 0; v < PROGRAM_VARIANTS; v++)
                crowd_program_release(&g->programs[b][f][v]);
    if (g->cull)
        glDeleteProgram(g->cull);
    glDeleteVertexArrays(1, &g->vao);
    glDeleteVertexArrays(1, &g->card_vao);
    glDeleteBuffers(1, &g->card_ibo);
    for (int v = 0; v < PROGRAM_VARIANTS; v++)
        crowd_program_release(&g->card_programs[v]);
    crowd_program_release(&g->blob_program);
    glDeleteBuffers(1, &g->blob_commands);
    glDeleteBuffers(1, &g->slot_ids);
    glDeleteBuffers(1, &g->budget);
    glDeleteBuffers(1, &g->clip_spheres);
    glDeleteBuffers(1, &g->attachment_commands);
    glDeleteVertexArrays(CROWD_GL_MAX_ATTACHMENTS, g->attachment_vaos);
    for (int v = 0; v < PROGRAM_VARIANTS; v++)
        crowd_program_release(&g->attachment_programs[v]);
    crowd_free(g);
    r->gpu = NULL;
}

/* ---- the cull pass ----------------------------------------------------------------------------- */

bool crowd_gpu_crowd_driven(const crowd_gl_renderer *r)
{
    return r->gpu && r->gpu->driven;
}

/* The slots' owners follow the records: the same ranges (the first upload, and the first after the
 * buffers were re-sized, sends them all; slots that join the span in use are sent whole, since the
 * crowd reports owner changes only inside its span). O(upload ranges), nothing per chunk or per
 * instance. */
void crowd_gpu_crowd_upload(crowd_gl_renderer *r, const crowd_frame *f)
{
    struct crowd_gpu_crowd *g = r->gpu;
    if (r->capacity > g->layer.partition_capacity && size_layer(r, g, r->capacity, NULL) != CROWD_OK)
        return; /* out of GPU memory: last frame's draws stay */
    if (!f->slot_instances)
        return;
    uint32_t room = g->layer.partition_capacity, n = f->record_count < room ? f->record_count : room;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->slot_ids);
    if (!g->ids_uploaded || n > g->ids_span) {
        uint32_t from = g->ids_uploaded ? g->ids_span : 0;
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 4 * (GLintptr)from, 4 * (GLsizeiptr)(n - from),
                        f->slot_instances + from);
    }
    if (g->ids_uploaded) {
        for (uint32_t i = 0; i < f->upload_count; i++) {
            uint32_t first = f->uploads[i].first, count = f->uploads[i].count;
            if (first >= n)
                continue;
            count = count < n - first ? count : n - first;
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, 4 * (GLintptr)first, 4 * (GLsizeiptr)count,
                            f->slot_instances + first);
        }
    }
    g->ids_uploaded = true;
    g->ids_span = n;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

/* VAOs and command templates for attachments added since the last pass (crowd_gl_add_attachment
 * appends; the layer's buffers may have been re-sized). */
static void prepare_attachments(crowd_gl_renderer *r, struct crowd_gpu_crowd *g)
{
    if (g->attachments_ready == r->attachment_count)
        return;
    if (!g->attachment_commands) {
        glGenBuffers(1, &g->attachment_commands);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->attachment_commands);
        glBufferData(GL_SHADER_STORAGE_BUFFER, CROWD_GL_MAX_ATTACHMENTS * 5 * 4 * CROWD_GPU_MAX_PARTITIONS, NULL,
                     GL_DYNAMIC_COPY);
    }
    uint32_t words[5 * CROWD_GPU_MAX_PARTITIONS];
    for (uint32_t i = 0; i < r->attachment_count; i++) {
        const crowd_gl_attachment *at = &r->attachments[i];
        for (uint32_t p = 0; p < CROWD_GPU_MAX_PARTITIONS; p++) {
            words[5 * p] = at->index_count;
            words[5 * p + 1] = 0;
            words[5 * p + 2] = 0;
            words[5 * p + 3] = 0;
            words[5 * p + 4] = p * g->layer.partition_capacity;
        }
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->attachment_commands);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)(i * sizeof words), sizeof words, words);
        if (!g->attachment_vaos[i])
            glGenVertexArrays(1, &g->attachment_vaos[i]);
        glBindVertexArray(g->attachment_vaos[i]);
        glBindBuffer(GL_ARRAY_BUFFER, at->positions);
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
        glBindBuffer(GL_ARRAY_BUFFER, at->normals);
        glEnableVertexAttribArray(1);
        glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 0, NULL);
        if (at->uvs) {
            glBindBuffer(GL_ARRAY_BUFFER, at->uvs);
            glEnableVertexAttribArray(2);
            glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, 0, NULL);
        }
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, at->indices);
        glBindBuffer(GL_ARRAY_BUFFER, g->layer.ids);
        glEnableVertexAttribArray(12);
        glVertexAttribIPointer(12, 1, GL_UNSIGNED_INT, 0, NULL);
        glVertexAttribDivisor(12, 1);
        glBindVertexArray(0);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    /* out of memory: the spheres stay those of the attachments before, and the next pass tries again */
    if (!upload_clip_spheres(r, g))
        return;
    g->attachments_ready = r->attachment_count;
    crowd_gpu_layer_invalidate(&g->layer); /* their counts and the grown spheres come with the next pass */
}

static void publish_stats(crowd_gl_renderer *r, struct crowd_gpu_crowd *g)
{
    crowd_gpu_layer_poll(&g->layer);
    crowd_gl_gpu_stats *st = &g->stats;
    st->passes_run = g->layer.passes_run;
    st->passes_skipped = g->layer.passes_skipped;
    if (!g->layer.late_pass)
        return;
    st->valid = true;
    st->frames_late = (uint32_t)(g->layer.passes_run - g->layer.late_pass);
    if (g->layer.late_pass == g->published_pass)
        return;
    g->published_pass = g->layer.late_pass;
    bool casters = g->pass_light[g->layer.late_pass % LIGHT_HISTORY];
    st->triangles = 0;
    if (casters)
        st->shadow_casters = 0, st->shadow_triangles = 0;
    for (uint32_t l = 0; l < g->levels; l++) {
        uint32_t tris = r->asset->lods[l].triangle_count;
        st->submitted[l] = g->layer.late_counts[l];
        st->triangles += (uint64_t)tris * g->layer.late_counts[l];
        if (casters) {
            st->shadow_casters += g->layer.late_counts[g->levels + l];
            st->shadow_triangles += (uint64_t)tris * g->layer.late_counts[g->levels + l];
        }
    }
    if (g->settings.cards) { /* two triangles a card, no shadow */
        st->submitted[g->levels] = g->layer.late_counts[2 * g->levels];
        st->triangles += 2u * (uint64_t)st->submitted[g->levels];
    }
    const uint32_t *budget = g->layer.late_extra;
    st->budget_satisfied = !g->settings.vertex_budget || budget[1] != 0;
    st->demoted = g->settings.vertex_budget ? budget[2] : 0;
}

/* The pass's uniforms: the view's and the light's planes, the asset's bounds, the level policy. */
static void set_cull_uniforms(const crowd_gl_renderer *r, const struct crowd_gpu_crowd *g, const crowd_frame *f,
                              const crowd_view *view, const float light[16])
{
    const cull_settings *s = &g->settings;
    float planes[6][4], light_planes[6][4] = {{0}}, camera[3];
    crowd_frustum_planes(view->view, view->projection, planes);
    if (light) {
        static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        crowd_frustum_planes(identity, light, light_planes);
    }
    crowd_gl_eye_of(view->view, camera); /* as crowd_camera_from_view */
    const GLint *u = g->u;
    glUniform1ui(u[C_LIVE], g->live);
    glUniform1ui(u[C_TOTAL], g->total);
    glUniform1f(u[C_TIME], f->time);
    glUniform4fv(u[C_PLANES], 6, &planes[0][0]);
    glUniform4fv(u[C_LIGHT_PLANES], 6, &light_planes[0][0]);
    glUniform3fv(u[C_CAMERA], 1, camera);
    glUniform1f(u[C_PROJECTION_SCALE], view->projection[5]);
    glUniform1i(u[C_PERSPECTIVE], view->projection[11] < -0.5f);
    glUniform1f(u[C_SPHERE_Y], r->asset->sphere_center_y);
    glUniform1f(u[C_SPHERE_RADIUS], r->asset->sphere_radius);
    glUniform1ui(u[C_CLIP_COUNT], r->asset->clip_count);
    glUniform1i(u[C_LEVELS], (GLint)g->levels);
    glUniform1i(u[C_CARDS], (GLint)s->cards);
    glUniform1f(u[C_CARD_BAND], s->card_band);
    glUniform1i(u[C_CARD_FROM], (GLint)s->card_from);
    glUniform1i(u[C_POLICY], (GLint)s->policy);
    glUniform1fv(u[C_THRESHOLDS], CROWD_MAX_LODS, s->thresholds);
    glUniform1f(u[C_HYSTERESIS], s->hysteresis);
    glUniform1f(u[C_BIAS], s->bias);
    glUniform1f(u[C_MIN_COVERAGE], s->min_coverage);
    glUniform1f(u[C_BAND], s->band_log);
    glUniform1i(u[C_SHADOW_MAX_LOD], light ? s->shadow_max_lod : -1);
    glUniform1ui(u[C_PARTITION], g->layer.partition_capacity);
    glUniform1ui(u[C_SHADOW_BASE], g->levels);
    glUniform1i(u[C_BUDGET_ON], s->vertex_budget != 0);
}

/* The vertex budget's stages: a histogram of the levels' vertex counts, then its resolve. */
static void dispatch_budget(const crowd_gl_renderer *r, const struct crowd_gpu_crowd *g, GLuint groups)
{
    const cull_settings *s = &g->settings;
    const GLint *u = g->u;
    GLuint counts[CROWD_MAX_LODS] = {0};
    for (uint32_t l = 0; l < g->levels; l++)
        counts[l] = r->asset->lods[l].index_count;
    if (s->cards)
        counts[g->levels] = 6;
    glUniform1ui(u[C_BUDGET], s->vertex_budget);
    glUniform1uiv(u[C_INDEX_COUNTS], CROWD_MAX_LODS, counts);
    uint32_t zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->budget);
    glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0, 4 * BUDGET_RESULT, GL_RED_INTEGER, GL_UNSIGNED_INT,
                         &zero);
    glUniform1i(u[C_STAGE], 0);
    if (groups)
        glDispatchCompute(groups, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUniform1i(u[C_STAGE], 1);
    glDispatchCompute(1, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

/* One culling pass: [budget,] classify and compact, then the attachments' instance counts. */
static void dispatch_cull(const crowd_gl_renderer *r, const struct crowd_gpu_crowd *g, const crowd_frame *f,
                          const crowd_view *view, const float light[16])
{
    glUseProgram(g->cull);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, r->instances);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, g->slot_ids);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 5, g->budget);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 7, g->clip_spheres);
    set_cull_uniforms(r, g, f, view, light);
    const GLint *u = g->u;
    GLuint groups = (g->total + 255) / 256;
    if (g->settings.vertex_budget)
        dispatch_budget(r, g, groups);
    glUniform1i(u[C_STAGE], 2);
    if (groups)
        glDispatchCompute(groups, 1, 1);
    if (r->attachment_count && g->attachment_programs[0].id) { /* their instance counts are the crowd's */
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 6, g->attachment_commands);
        glUniform1i(u[C_STAGE], 3);
        glUniform1ui(u[C_TOTAL], r->attachment_count * CROWD_GPU_MAX_PARTITIONS);
        glDispatchCompute(1, 1, 1);
    }
}

void crowd_gl_cull(crowd_gl_renderer *r, const crowd_frame *f, const crowd_view *view, const float light[16])
{
    if (!r || !r->gpu || !f || !view)
        return;
    struct crowd_gpu_crowd *g = r->gpu;
    if (r->capacity > g->layer.partition_capacity && size_layer(r, g, r->capacity, NULL) != CROWD_OK)
        return; /* out of GPU memory: last frame's draws stay */
    cull_key key;
    memset(&key, 0, sizeof key);
    memcpy(key.view, view->view, sizeof key.view);
    memcpy(key.projection, view->projection, sizeof key.projection);
    if (light)
        memcpy(key.light, light, sizeof key.light);
    key.has_light = light != NULL;
    key.time = f->stats.extrapolating ? f->time : 0.0f;
    if (f->settings)
        settings_of(r->asset, g->atlas, f->settings, r->desc.lod_band, &g->settings);
    key.settings = g->settings;
    prepare_attachments(r, g);
    g->driven = true;
    /* every slot in use, live or not (the pass tells them apart by owner): no walk over chunks */
    uint32_t room = g->layer.partition_capacity, total = f->record_count < room ? f->record_count : room;
    bool dirty = f->upload_count > 0 || total != g->total || f->stats.simulated != g->live;
    g->total = total;
    g->live = f->stats.simulated;
    if (crowd_gpu_layer_begin(&g->layer, &key, sizeof key, dirty)) {
        g->pass_light[g->layer.passes_run % LIGHT_HISTORY] = light != NULL;
        dispatch_cull(r, g, f, view, light);
        crowd_gpu_layer_end(&g->layer);
    }
    publish_stats(r, g);
}

const crowd_gl_gpu_stats *crowd_gl_get_gpu_stats(const crowd_gl_renderer *r)
{
    static const crowd_gl_gpu_stats none;
    return r && r->gpu ? &r->gpu->stats : &none;
}

/* ---- draws ------------------------------------------------------------------------------------- */

void crowd_gpu_crowd_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16], bool shadow,
                          const crowd_gl_scene *scene)
{
    struct crowd_gpu_crowd *g = r->gpu;
    const cull_settings *s = &g->settings;
    int bones = r->mode == CROWD_GL_BONES;
    int32_t top = shadow ? s->shadow_max_lod : (int32_t)g->levels - 1;
    int32_t fade_top = r->cross_fade ? s->cross_fade_max_lod : -1;
    uint32_t base = shadow ? g->levels : 0;
    if (top < 0)
        return;
    glBindVertexArray(g->vao);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, g->layer.commands);
    for (int fade = 1; fade >= 0; fade--) {
        int32_t lo = fade ? 0 : fade_top + 1, hi = fade ? (fade_top < top ? fade_top : top) : top;
        if (lo > hi)
            continue;
        const crowd_program *p = &g->programs[bones][fade][crowd_gl_program_variant(r, shadow)];
        crowd_gl_begin_program(r, p, f, view_projection, shadow, scene);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, r->instances);
        if (!r->asset->colors)
            glVertexAttrib4f(2, 1.0f, 1.0f, 1.0f, 1.0f);
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                    (const void *)(uintptr_t)((base + (uint32_t)lo) * 5u * sizeof(uint32_t)),
                                    hi - lo + 1, 0);
        if (shadow)
            r->stats.shadow_draws++;
        else
            r->stats.draws++;
    }
    const crowd_program *cards = &g->card_programs[crowd_gl_program_variant(r, shadow)];
    if (!shadow && s->cards && cards->id) { /* the card partition: one indirect draw */
        crowd_gl_imposter_begin(r, cards, f, view_projection, scene);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, r->instances);
        glBindVertexArray(g->card_vao);
        glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                               (const void *)(uintptr_t)(2u * g->levels * 5u * sizeof(uint32_t)));
        r->stats.draws++;
    }
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    /* triangles: known only to the GPU; the late stats' figure */
    if (shadow)
        r->stats.shadow_triangles += g->stats.shadow_triangles;
    else
        r->stats.triangles += g->stats.triangles;
}

void crowd_gpu_blob_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                         const crowd_gl_scene *scene)
{
    struct crowd_gpu_crowd *g = r->gpu;
    const cull_settings *s = &g->settings;
    /* the levels that cast no mesh shadow, then the cards: contiguous entries of blob_commands */
    uint32_t first = s->shadow_max_lod < 0 ? 0u : (uint32_t)s->shadow_max_lod + 1u, end = g->levels + s->cards;
    if (first >= end || !g->blob_program.id)
        return;
    if (g->blob_pass != g->layer.passes_run) { /* a pass ran since: its counts (the pass ended with a barrier) */
        glBindBuffer(GL_COPY_READ_BUFFER, g->layer.commands);
        glBindBuffer(GL_COPY_WRITE_BUFFER, g->blob_commands);
        for (uint32_t l = 0; l <= g->levels; l++) {
            if (l == g->levels && !g->atlas)
                break;
            glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER,
                                (GLintptr)(4 * (5 * blob_partition(g, l) + 1)), (GLintptr)(4 * (5 * l + 1)), 4);
        }
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        g->blob_pass = g->layer.passes_run;
    }
    crowd_gl_blob_begin(r, &g->blob_program, f, view_projection, scene);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, r->instances);
    glBindVertexArray(g->card_vao);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, g->blob_commands);
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, (const void *)(uintptr_t)(first * 5u * sizeof(uint32_t)),
                                (GLsizei)(end - first), 0);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    crowd_gl_blob_end();
    r->stats.draws++;
    for (uint32_t l = first; l < end; l++) /* two triangles a blob, from the late counts */
        r->stats.triangles += 2u * (uint64_t)g->stats.submitted[l];
}
#endif

#ifndef __EMSCRIPTEN__
void crowd_gpu_attachments_draw(crowd_gl_renderer *r, const crowd_frame *f, const float view_projection[16],
                                bool shadow, const crowd_gl_scene *scene)
{
    struct crowd_gpu_crowd *g = r->gpu;
    const cull_settings *s = &g->settings;
    const crowd_program *p = &g->attachment_programs[crowd_gl_program_variant(r, shadow)];
    if (!p->id || g->attachments_ready != r->attachment_count || (shadow && s->shadow_max_lod < 0))
        return;
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, g->attachment_commands);
    for (uint32_t i = 0; i < r->attachment_count; i++) {
        const crowd_gl_attachment *at = &r->attachments[i];
        int32_t top = (int32_t)g->levels - 1;
        top = (int32_t)at->max_lod < top ? (int32_t)at->max_lod : top;
        if (shadow)
            top = s->shadow_max_lod < top ? s->shadow_max_lod : top;
        uint32_t base = i * CROWD_GPU_MAX_PARTITIONS + (shadow ? g->levels : 0);
        crowd_gl_begin_program(r, p, f, view_projection, shadow, scene);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, r->instances);
        crowd_gl_attachment_begin(r, p, at, shadow, scene);
        glUniform3f(p->uniforms[U_BAND], 0.0f, 0.0f, 0.0f); /* the partitions already hold the mesh's share */
        glBindVertexArray(g->attachment_vaos[i]);
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, (const void *)(uintptr_t)(base * 5u * 4u), top + 1,
                                    0);
        if (shadow)
            r->stats.shadow_draws++;
        else
            r->stats.draws++;
    }
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
}
#endif
