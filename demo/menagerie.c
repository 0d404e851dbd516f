/* Demo asset choice "menagerie": every loaded asset a kind in one crowd_world. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "demo/menagerie.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "crowdbake/sim.h"
#include "showcase/scene.h"

typedef struct menagerie_kind {
    const crowd_asset *asset;
    crowd *crowd;
    crowd_sim *sim;
    crowd_gl_renderer *renderer;
    const crowd_frame *frame;
    char name[32]; /* the asset's display name without ".crowd" and "critter-" */
    float radius;
    bool target_set;
    GLuint target_fbo;
    int target_width, target_height;
} menagerie_kind;

struct demo_menagerie {
    menagerie_kind kinds[DEMO_MENAGERIE_MAX_KINDS];
    uint32_t kind_count, capacity;
    crowd_world *world;
    showcase_stage *stage;
    double cpu_ms;
    char status[1024];
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Personal space from the asset's footprint: the humanoid keeps the sim's default 0.7 m, a longer
 * body (the Fox, the quadruped critter) gets more, so kinds of different sizes do not overlap. */
static float radius_of(const crowd_asset *a)
{
    float x = a->bounds_max[0] - a->bounds_min[0], z = a->bounds_max[2] - a->bounds_min[2];
    float r = 0.6f * (x > z ? x : z);
    return r < 0.7f ? 0.7f : r > 3.0f ? 3.0f : r;
}

void demo_menagerie_destroy(demo_menagerie *m)
{
    if (!m)
        return;
    crowd_world_destroy(m->world);
    for (uint32_t k = 0; k < m->kind_count; k++) {
        crowd_gl_destroy(m->kinds[k].renderer);
        crowd_sim_destroy(m->kinds[k].sim);
        crowd_destroy(m->kinds[k].crowd);
    }
    free(m);
}

static crowd_result build_kind(demo_menagerie *m, const demo_menagerie_desc *d, uint32_t k, crowd_error *error)
{
    menagerie_kind *kind = &m->kinds[k];
    kind->asset = d->assets[k];
    const char *name = d->names[k] ? d->names[k] : "kind";
    name = strncmp(name, "critter-", 8) ? name : name + 8;
    const char *dot = strstr(name, ".crowd");
    snprintf(kind->name, sizeof kind->name, "%.*s", dot ? (int)(dot - name) : (int)strlen(name), name);
    kind->radius = radius_of(kind->asset);
    crowd_desc cd = d->crowd;
    cd.asset = kind->asset;
    cd.capacity = m->capacity / m->kind_count + 1; /* equal shares: no kind gets more */
    crowd_sim_desc sd = d->sim;
    sd.seed = d->sim.seed + k * 7919u;
    sd.spawn = d->spawn[k];
    sd.separation_radius = kind->radius;
    crowd_gl_desc gd = d->gl;
    gd.asset = kind->asset;
    crowd_result r = crowd_create(&cd, &kind->crowd, error);
    if (r == CROWD_OK) {
        sd.target = kind->crowd;
        r = crowd_sim_create(&sd, &kind->sim, error);
    }
    if (r == CROWD_OK) {
        gd.sizing_crowd = kind->crowd;
        if (k > 0) /* one shadow map for the world: every kind shadows the ground and the others */
            gd.shadow_source = m->kinds[0].renderer;
        r = crowd_gl_create(&gd, &kind->renderer, error);
    }
    if (r == CROWD_OK) /* caps and balloons where the kind has the sockets */
        r = showcase_scene_dress(kind->renderer, kind->asset, error);
    return r;
}

crowd_result demo_menagerie_create(const demo_menagerie_desc *d, demo_menagerie **out, crowd_error *error)
{
    *out = NULL;
    if (d->kind_count < 2 || d->kind_count > DEMO_MENAGERIE_MAX_KINDS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "menagerie: %u kinds (2..%d assets)", d->kind_count,
                          DEMO_MENAGERIE_MAX_KINDS);
    demo_menagerie *m = calloc(1, sizeof *m);
    if (!m)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "menagerie: out of memory");
    m->kind_count = d->kind_count;
    m->stage = d->stage;
    m->capacity = d->crowd.capacity ? d->crowd.capacity : 250000u;
    crowd_result r = CROWD_OK;
    for (uint32_t k = 0; k < m->kind_count && r == CROWD_OK; k++)
        r = build_kind(m, d, k, error);
    if (r == CROWD_OK) {
        crowd_sim *sims[DEMO_MENAGERIE_MAX_KINDS];
        for (uint32_t k = 0; k < m->kind_count; k++)
            sims[k] = m->kinds[k].sim;
        crowd_world_desc wd = {.kinds = sims, .kind_count = m->kind_count, .separation = d->sim.separation};
        r = crowd_world_create(&wd, &m->world, error);
    }
    if (r == CROWD_OK)
        r = demo_menagerie_set_count(m, d->total);
    if (r != CROWD_OK) {
        demo_menagerie_destroy(m);
        return r;
    }
    *out = m;
    return CROWD_OK;
}

crowd_result demo_menagerie_set_count(demo_menagerie *m, uint32_t total)
{
    if (!m)
        return CROWD_ERROR_ARGUMENT;
    return crowd_world_spawn(m->world, total < m->capacity ? total : m->capacity);
}

void demo_menagerie_set_scenario(demo_menagerie *m, crowd_scenario scenario)
{
    crowd_world_set_scenario(m ? m->world : NULL, scenario);
}

void demo_menagerie_set_separation(demo_menagerie *m, bool on)
{
    if (!m)
        return;
    for (uint32_t k = 0; k < m->kind_count; k++)
        crowd_sim_set_separation(m->kinds[k].sim, on ? 0 : -1);
    crowd_world_set_separation(m->world, on ? 0 : -1);
}

void demo_menagerie_set_stride_matching(demo_menagerie *m, bool on)
{
    for (uint32_t k = 0; m && k < m->kind_count; k++)
        crowd_set_stride_matching(m->kinds[k].crowd, on);
}

void demo_menagerie_set_cross_fade(demo_menagerie *m, bool on)
{
    for (uint32_t k = 0; m && k < m->kind_count; k++)
        crowd_gl_set_cross_fade(m->kinds[k].renderer, on);
}

/* The framebuffer a kind's shadow pass returns to, told only when it changes (the call checks GL
 * errors: a round trip). */
static void kind_target(menagerie_kind *kind, GLuint fbo, int width, int height)
{
    if (kind->target_set && kind->target_fbo == fbo && kind->target_width == width && kind->target_height == height)
        return;
    crowd_error err;
    if (crowd_gl_set_target(kind->renderer, fbo, 0, 0, width, height, &err) != CROWD_OK)
        fprintf(stderr, "crowdbake: %s\n", err.message);
    kind->target_set = true;
    kind->target_fbo = fbo;
    kind->target_width = width;
    kind->target_height = height;
}

void demo_menagerie_frame(demo_menagerie *m, float dt, const demo_camera *camera, const crowd_gl_scene *scene,
                          GLuint fbo, int width, int height)
{
    double t0 = now_ms();
    crowd_world_step(m->world, dt);
    float light[16], centre[3], radius;
    demo_camera_shadow_focus(camera, centre, &radius);
    if (scene->shadows) /* the shared map's light, for every kind */
        crowd_gl_fit_shadow(m->kinds[0].renderer, scene->sun_direction, centre, radius, light);
    for (uint32_t k = 0; k < m->kind_count; k++) { /* kind 0's shadow pass first: it clears the shared map */
        menagerie_kind *kind = &m->kinds[k];
        kind_target(kind, fbo, width, height);
        crowd_view view; /* each kind's renderer says who culls and its attachments' margin */
        crowd_gl_view(kind->renderer, scene->view, scene->projection, (float)height, &view);
        kind->frame = crowd_update(kind->crowd, dt, &view);
        crowd_gl_upload(kind->renderer, kind->frame, NULL);
        crowd_gl_cull(kind->renderer, kind->frame, &view, scene->shadows ? light : NULL);
        if (scene->shadows)
            crowd_gl_render_shadows(kind->renderer, kind->frame, light);
    }
    if (scene->shadows) /* the pillars into the shared map (kind 0's) */
        showcase_stage_render_shadows(m->stage, m->kinds[0].renderer);
    glViewport(0, 0, width, height);
    for (uint32_t k = 0; k < m->kind_count; k++)
        crowd_gl_draw(m->kinds[k].renderer, m->kinds[k].frame, scene);
    showcase_stage_draw(m->stage, m->kinds[0].renderer, scene); /* ground and pillars, lit by the shared map */
    double ms = now_ms() - t0;
    m->cpu_ms = m->cpu_ms > 0.0 ? m->cpu_ms * 0.9 + ms * 0.1 : ms;
}

demo_menagerie_totals demo_menagerie_get_totals(const demo_menagerie *m)
{
    demo_menagerie_totals t = {0};
    for (uint32_t k = 0; m && k < m->kind_count; k++) {
        const crowd_gl_stats *gs = crowd_gl_get_stats(m->kinds[k].renderer);
        const crowd_gl_gpu_stats *late = demo_late_gpu_stats(m->kinds[k].renderer); /* the GPU path's, late */
        t.submitted += late ? demo_gpu_submitted(late) : m->kinds[k].frame ? m->kinds[k].frame->stats.submitted : 0;
        t.draws += gs->draws;
        t.shadow_draws += gs->shadow_draws;
        t.triangles += gs->triangles;
        t.shadow_triangles += gs->shadow_triangles;
    }
    return t;
}

void demo_menagerie_far_shadows(demo_menagerie *m, const crowd_gl_scene *scene)
{
    for (uint32_t k = 0; m && k < m->kind_count; k++)
        crowd_gl_draw_far_shadows(m->kinds[k].renderer, m->kinds[k].frame, scene);
}

const crowd_gl_renderer *demo_menagerie_ground_renderer(const demo_menagerie *m)
{
    return m ? m->kinds[0].renderer : NULL;
}

uint32_t demo_menagerie_instances(const demo_menagerie *m)
{
    uint32_t n = 0;
    for (uint32_t k = 0; m && k < m->kind_count; k++)
        n += crowd_count(m->kinds[k].crowd);
    return n;
}

/* Two lines, so the overlay stays compact: the world, then each kind's count and personal space. */
const char *demo_menagerie_status(const demo_menagerie *m)
{
    demo_menagerie *w = (demo_menagerie *)m;
    const crowd_world_stats *st = crowd_world_get_stats(m->world);
    demo_menagerie_totals t = demo_menagerie_get_totals(m);
    int n = snprintf(w->status, sizeof w->status,
                     "%u kinds %u live  draws %u (+%u shadow)  step %.2f ms, across kinds %.2f ms, %u contacts\n",
                     m->kind_count, demo_menagerie_instances(m), t.draws, t.shadow_draws, st->ms_step, st->ms_cross,
                     st->cross_contacts);
    for (uint32_t k = 0; k < m->kind_count && n < (int)sizeof w->status - 48; k++) {
        const menagerie_kind *kind = &m->kinds[k];
        n += snprintf(w->status + n, sizeof w->status - (size_t)n, "%s%s %u r%.1f", k ? "  " : "", kind->name,
                      crowd_count(kind->crowd), (double)kind->radius);
    }
    snprintf(w->status + n, sizeof w->status - (size_t)n, "\n");
    return w->status;
}
