/* Demo mode "compare": classic skinning (left) against the VAT crowd (right). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "demo/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "crowdbake/rig_record.h"
#include "demo/budget_search.h"
#include "showcase/scene.h"
#ifndef __EMSCRIPTEN__
#include "crowdbake/gltf.h"
#include "crowdbake/sim.h"
#endif

#define CLASSIC_CAPACITY 20000u /* beyond any frame budget: posing alone takes several frames' time */
#define VAT_CAPACITY 250000u
typedef struct compare_half {
    crowd *crowd;
    crowd_sim *sim;
    crowd_gl_renderer *renderer;
    uint32_t count;
    double cpu_ms, last_cpu_ms; /* smoothed / last: posing + upload + submission */
    int viewport[4];
    bool target_set;
    GLuint target_fbo;
    demo_budget_search search;
} compare_half;

struct demo_compare {
    const crowd_asset *asset;
    crowd_rig rig;
    crowd_rig_poser *poser;
    crowd_gl_skinned *skinned;
    float *rows;
    crowd_gl_character *characters;
    compare_half half[2];  /* 0 classic, 1 VAT */
    showcase_stage *stage; /* the app's: ground and pillars under both */
    char status[768];
    char title[2][64], caption[2][96];
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#ifndef __EMSCRIPTEN__
static void ignore_warning(void *user, const char *message)
{
    (void)user, (void)message;
}
#endif

/* The rig the asset was baked from: the humanoid with its recorded density; natively also a glTF
 * source where the recorded path still opens. */
static crowd_result load_rig(const crowd_asset *asset, crowd_rig *rig, crowd_error *error)
{
    if (asset->source_kind == CROWD_SOURCE_PROCEDURAL) {
        crowd_humanoid_desc d = {.density = 1.0f};
        if (sscanf(asset->source_name, "humanoid density=%f", &d.density) != 1)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "compare: unknown procedural source \"%s\"",
                              asset->source_name);
        return crowd_rig_build_humanoid(&d, rig, error);
    }
#ifndef __EMSCRIPTEN__
    crowd_gltf_desc quiet = {.warn = ignore_warning};
    return crowd_gltf_read_file(asset->source_name, &quiet, rig, error);
#else
    return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "compare: the browser rebuilds only the humanoid's rig");
#endif
}

void demo_compare_destroy(demo_compare *c)
{
    if (!c)
        return;
    crowd_gl_skinned_destroy(c->skinned);
    for (int h = 0; h < 2; h++) {
        crowd_gl_destroy(c->half[h].renderer);
        crowd_sim_destroy(c->half[h].sim);
        crowd_destroy(c->half[h].crowd);
    }
    crowd_rig_poser_destroy(c->poser);
    crowd_rig_free(&c->rig);
    free(c->rows);
    free(c->characters);
    free(c);
}

static crowd_result build_half(demo_compare *c, const demo_compare_desc *d, int h, crowd_error *error)
{
    compare_half *half = &c->half[h];
    crowd_desc cd = d->crowd;
    cd.asset = d->asset;
    cd.capacity = h ? VAT_CAPACITY : CLASSIC_CAPACITY;
    crowd_sim_desc sd = d->sim;
    sd.obstacles = d->obstacles;
    sd.obstacle_count = d->obstacle_count;
    sd.spawn.accessories = -1; /* the classic half has no attachments: neither half wears any */
    crowd_gl_desc gd = d->gl;
    gd.asset = d->asset;
    gd.mode = CROWD_GL_VAT;
    gd.path = CROWD_GL_PATH_CPU;
    crowd_result r = crowd_create(&cd, &half->crowd, error);
    if (r == CROWD_OK) {
        sd.target = half->crowd;
        r = crowd_sim_create(&sd, &half->sim, error);
    }
    if (r == CROWD_OK) {
        gd.sizing_crowd = h ? half->crowd : NULL;
        gd.capacity = h ? 0 : 1;
        r = crowd_gl_create(&gd, &half->renderer, error);
    }
    return r;
}

crowd_result demo_compare_create(const demo_compare_desc *d, demo_compare **out, crowd_error *error)
{
    *out = NULL;
    demo_compare *c = calloc(1, sizeof *c);
    if (!c)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "compare: out of memory");
    c->asset = d->asset;
    c->stage = d->stage;
    crowd_result r = load_rig(d->asset, &c->rig, error);
    if (r == CROWD_OK)
        r = crowd_rig_poser_create(&c->rig, d->asset, &c->poser, error);
    for (int h = 0; h < 2 && r == CROWD_OK; h++)
        r = build_half(c, d, h, error);
    if (r == CROWD_OK) {
        crowd_gl_skinned_desc sd = {.renderer = c->half[0].renderer};
        r = crowd_gl_skinned_create(&sd, &c->skinned, error);
    }
    c->rows = malloc(sizeof(float) * 12 * d->asset->bone_count * CLASSIC_CAPACITY);
    c->characters = malloc(sizeof *c->characters * CLASSIC_CAPACITY);
    if (r == CROWD_OK && (!c->rows || !c->characters))
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "compare: out of memory");
    if (r == CROWD_OK)
        r = demo_compare_set_count(c, 0, d->classic_count ? d->classic_count : 300);
    if (r == CROWD_OK)
        r = demo_compare_set_count(c, 1, d->vat_count ? d->vat_count : 5000);
    if (r != CROWD_OK) {
        demo_compare_destroy(c);
        return r;
    }
    *out = c;
    return CROWD_OK;
}

crowd_result demo_compare_set_count(demo_compare *c, int h, uint32_t count)
{
    if (!c || h < 0 || h > 1)
        return CROWD_ERROR_ARGUMENT;
    uint32_t cap = h ? VAT_CAPACITY : CLASSIC_CAPACITY;
    count = count > cap ? cap : count;
    c->half[h].count = count;
    return crowd_sim_spawn(c->half[h].sim, count);
}

/* Poses every live agent of the classic half: the CPU animation a skinned mesh costs. */
static void pose_classic(demo_compare *c)
{
    crowd *cr = c->half[0].crowd;
    uint32_t n = crowd_count(cr), bones = c->asset->bone_count;
    float time = crowd_time(cr);
    for (uint32_t i = 0; i < n; i++) {
        crowd_record rec;
        crowd_get(cr, i, &rec);
        float *palette = c->rows + (size_t)12 * bones * i;
        crowd_rig_blend blend = crowd_rig_blend_of_record(&rec, time);
        crowd_rig_pose_blend(c->poser, &blend, palette);
        c->characters[i] =
            (crowd_gl_character){{0, 0, 0}, crowd_record_yaw(&rec, time), rec.scale, rec.tint, rec.variant, palette};
        crowd_record_position(&rec, time, c->characters[i].position); /* where the VAT crowd draws it */
    }
}

static void search_step(demo_compare *c, int h)
{
    compare_half *half = &c->half[h];
    if (!half->search.active)
        return;
    uint32_t next = demo_budget_search_frame(&half->search, half->count, half->last_cpu_ms);
    if (next != half->count)
        demo_compare_set_count(c, h, next);
}

void demo_compare_find_budget(demo_compare *c)
{
    if (!c)
        return;
    bool stop = c->half[0].search.active || c->half[1].search.active;
    for (int h = 0; h < 2; h++) {
        demo_budget_search *s = &c->half[h].search;
        memset(s, 0, sizeof *s);
        if (!stop) /* from one character up: doubling finds the bracket */
            demo_compare_set_count(
                c, h, demo_budget_search_start(s, DEMO_COMPARE_BUDGET_MS, h ? VAT_CAPACITY : CLASSIC_CAPACITY));
    }
}

/* The viewport a half's shadow pass returns to; told to the renderer only when it changes (the
 * call checks GL errors, a round trip). */
static void half_target(compare_half *half, GLuint fbo, int x, int width, int height)
{
    int v[4] = {x, 0, width, height};
    if (half->target_set && half->target_fbo == fbo && !memcmp(v, half->viewport, sizeof v))
        return;
    crowd_error err;
    if (crowd_gl_set_target(half->renderer, fbo, x, 0, width, height, &err) != CROWD_OK)
        fprintf(stderr, "crowdbake: %s\n", err.message);
    memcpy(half->viewport, v, sizeof v);
    half->target_fbo = fbo;
    half->target_set = true;
}

static void draw_half(demo_compare *c, int h, float dt, const demo_camera *camera, crowd_gl_scene *scene, GLuint fbo,
                      int x, int width, int height)
{
    compare_half *half = &c->half[h];
    half_target(half, fbo, x, width, height);
    glViewport(x, 0, width, height);
    demo_camera_matrices(camera, (float)width / (float)(height ? height : 1), scene->view, scene->projection);
    crowd_view view;
    crowd_gl_view(half->renderer, scene->view, scene->projection, (float)height, &view);
    crowd_sim_step(half->sim, dt); /* the same steering for both halves; in neither half's CPU figure */
    float light[16], centre[3], radius;
    demo_camera_shadow_focus(camera, centre, &radius);
    crowd_gl_fit_shadow(half->renderer, scene->sun_direction, centre, radius, light);
    double t0;
    if (h == 0) {
        /* the crowd only keeps the agents and the clock here: its draw list is not drawn */
        crowd_update(half->crowd, dt, &view);
        static const crowd_frame none;
        t0 = now_ms();
        pose_classic(c);
        crowd_gl_skinned_upload(c->skinned, c->characters, crowd_count(half->crowd), NULL);
        if (scene->shadows) {
            crowd_gl_render_shadows(half->renderer, &none, light); /* clears */
            showcase_stage_render_shadows(c->stage, half->renderer);
            crowd_gl_skinned_render_shadows(c->skinned, light);
        }
        crowd_gl_draw(half->renderer, &none, scene);
        crowd_gl_skinned_draw(c->skinned, scene);
        showcase_stage_draw(c->stage, half->renderer, scene);
    } else {
        t0 = now_ms();
        const crowd_frame *f = crowd_update(half->crowd, dt, &view);
        crowd_gl_upload(half->renderer, f, NULL);
        crowd_gl_cull(half->renderer, f, &view, scene->shadows ? light : NULL);
        if (scene->shadows) {
            crowd_gl_render_shadows(half->renderer, f, light);
            showcase_stage_render_shadows(c->stage, half->renderer);
        }
        crowd_gl_draw(half->renderer, f, scene);
        showcase_stage_draw(c->stage, half->renderer, scene);
        crowd_gl_draw_far_shadows(half->renderer, f, scene);
    }
    half->last_cpu_ms = now_ms() - t0;
    half->cpu_ms = half->cpu_ms > 0 ? half->cpu_ms * 0.9 + half->last_cpu_ms * 0.1 : half->last_cpu_ms;
    search_step(c, h);
}

void demo_compare_frame(demo_compare *c, float dt, const demo_camera *camera, crowd_gl_scene *scene, GLuint fbo,
                        int width, int height)
{
    int left = width / 2;
    draw_half(c, 0, dt, camera, scene, fbo, 0, left, height);
    draw_half(c, 1, dt, camera, scene, fbo, left, width - left, height);
    glViewport(0, 0, width, height);
    glEnable(GL_SCISSOR_TEST); /* a white seam between the halves */
    glScissor(left - 1, 0, 2, height);
    glClearColor(1.0f, 1.0f, 1.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
}

/* A half's draws (shadow pass included) and GPU ms (negative: no timer queries). */
static uint32_t half_draws(const demo_compare *c, int h, double *gpu)
{
    *gpu = -1.0;
    if (h == 0) {
        const crowd_gl_skinned_stats *ss = crowd_gl_skinned_get_stats(c->skinned);
        if (ss->gpu_color_ms >= 0)
            *gpu = ss->gpu_color_ms + (ss->gpu_shadow_ms > 0 ? ss->gpu_shadow_ms : 0);
        return ss->draws + ss->shadow_draws;
    }
    const crowd_gl_stats *gs = crowd_gl_get_stats(c->half[1].renderer);
    if (gs->timers && gs->gpu_color_ms >= 0)
        *gpu = gs->gpu_color_ms + (gs->gpu_shadow_ms > 0 ? gs->gpu_shadow_ms : 0);
    return gs->draws + gs->shadow_draws;
}

void demo_compare_half_stats(const demo_compare *c, int h, uint32_t *instances, uint32_t *draws, double *cpu_ms)
{
    double gpu;
    *instances = *draws = 0;
    *cpu_ms = 0.0;
    if (!c || h < 0 || h > 1)
        return;
    *instances = crowd_count(c->half[h].crowd);
    *draws = half_draws(c, h, &gpu);
    *cpu_ms = c->half[h].cpu_ms;
}

static int half_status(const demo_compare *c, int h, char *out, size_t size)
{
    const compare_half *half = &c->half[h];
    double gpu;
    uint32_t draws = half_draws(c, h, &gpu);
    char gpu_text[32] = "gpu n/a", search[64] = "";
    if (gpu >= 0)
        snprintf(gpu_text, sizeof gpu_text, "gpu %.2f ms", gpu);
    if (half->search.active)
        snprintf(search, sizeof search, "  [searching %.1f ms budget]", DEMO_COMPARE_BUDGET_MS);
    else if (half->search.result)
        snprintf(search, sizeof search, "  [%u fit %.1f ms]", half->search.result, DEMO_COMPARE_BUDGET_MS);
    return snprintf(out, size, "%s %u inst  %u draws  cpu %.2f ms (%.2f us each)  %s%s\n",
                    h ? "right: VAT    " : "left: classic", crowd_count(half->crowd), draws, half->cpu_ms,
                    half->count ? 1e3 * half->cpu_ms / half->count : 0.0, gpu_text, search);
}

const char *demo_compare_status(const demo_compare *c)
{
    demo_compare *m = (demo_compare *)c;
    int n = 0;
    for (int h = 0; h < 2 && n < (int)sizeof m->status; h++)
        n += half_status(c, h, m->status + n, sizeof m->status - (size_t)n);
    return m->status;
}

/* Milliseconds with the digits that matter: 470, 28, 3.2, 0.91. */
static void format_ms(double ms, char *out, size_t size)
{
    snprintf(out, size, ms >= 10.0 ? "%.0f" : ms >= 1.0 ? "%.1f" : "%.2f", ms);
}

const char *demo_compare_title(demo_compare *c, int h)
{
    if (!c || h < 0 || h > 1)
        return "";
    char ms[16];
    format_ms(c->half[h].cpu_ms, ms, sizeof ms);
    snprintf(c->title[h], sizeof c->title[h], "%s: %s ms CPU", h ? "VAT" : "classic skinning", ms);
    return c->title[h];
}

const char *demo_compare_caption(demo_compare *c, int h)
{
    if (!c || h < 0 || h > 1)
        return "";
    const compare_half *half = &c->half[h];
    uint32_t n = crowd_count(half->crowd);
    if (half->search.active)
        snprintf(c->caption[h], sizeof c->caption[h], "finding how many fit %.1f ms: trying %u", DEMO_COMPARE_BUDGET_MS,
                 n);
    else if (h == 0)
        snprintf(c->caption[h], sizeof c->caption[h], "%u characters, each posed on the CPU, a draw call each", n);
    else
        snprintf(c->caption[h], sizeof c->caption[h], "%u characters, poses baked in a texture, drawn instanced", n);
    return c->caption[h];
}
