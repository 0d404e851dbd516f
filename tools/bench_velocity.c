/* crowd-bench --render cpu|gpu --velocity: what motion vectors (crowd_gl_desc.velocity) cost the
 * colour pass. Two renderers of one crowd, one without velocity and one with it (MRT into an RG16F
 * second target), draw every frame of the benchmark scene (shadows on, the showcase's attachments,
 * the camera orbiting) into the same single-sampled 1280 x 720 framebuffer, in alternating order
 * (off then on, on then off), so drift in the machine's speed falls on both. GPU time per colour
 * pass comes from each renderer's own timer queries (crowd_gl_desc.timers: read
 * CROWD_GL_TIMER_LATENCY frames late, never waited for); a glFinish after each pass keeps results
 * available and passes from overlapping. Medians over the frames, and the median of the frames'
 * own ratios (the two passes of a frame ran back to back: a machine whose speed drifts, shared or
 * throttled, moves both). */
#include "bench_velocity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/view_matrices.h"
#include "crowdbake/sim.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "showcase/looks.h"
#include "showcase/scene.h"
#include "tool_support.h"

#define VELOCITY_W 1280
#define VELOCITY_H 720
#define VELOCITY_WARMUP 3

typedef struct velocity_target {
    GLuint fbo, color, velocity, depth;
} velocity_target;

static bool make_target(velocity_target *t)
{
    glGenFramebuffers(1, &t->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glGenRenderbuffers(1, &t->color);
    glGenRenderbuffers(1, &t->velocity);
    glGenRenderbuffers(1, &t->depth);
    const GLenum formats[3] = {GL_RGBA8, GL_RG16F, GL_DEPTH_COMPONENT24};
    const GLuint names[3] = {t->color, t->velocity, t->depth};
    const GLenum points[3] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_DEPTH_ATTACHMENT};
    for (int i = 0; i < 3; i++) {
        glBindRenderbuffer(GL_RENDERBUFFER, names[i]);
        glRenderbufferStorage(GL_RENDERBUFFER, formats[i], VELOCITY_W, VELOCITY_H);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, points[i], GL_RENDERBUFFER, names[i]);
    }
    const GLenum buffers[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
    glDrawBuffers(2, buffers);
    glViewport(0, 0, VELOCITY_W, VELOCITY_H);
    return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

static void free_target(velocity_target *t)
{
    glDeleteFramebuffers(1, &t->fbo);
    GLuint names[3] = {t->color, t->velocity, t->depth};
    glDeleteRenderbuffers(3, names);
}

/* crowd-bench --render's camera: orbiting the benchmark scene's centre from (28, 16, 44). */
static void orbit(crowd_gl_scene *scene, float angle)
{
    float d = sqrtf(28.0f * 28.0f + 44.0f * 44.0f), a0 = atan2f(28.0f, 44.0f);
    const float eye[3] = {d * sinf(a0 + angle), 16.0f, d * cosf(a0 + angle)}, target[3] = {0, 1.2f, 0},
                up[3] = {0, 1, 0};
    cb_look_at(scene->view, eye, target, up);
    cb_perspective(scene->projection, 58.0f * 3.14159265f / 180.0f, 16.0f / 9.0f, 0.3f, 900.0f);
}

typedef struct velocity_run {
    crowd *crowd;
    crowd_sim *sim;
    crowd_gl_renderer *renderers[2]; /* [velocity off, on] */
    double *ms[2];                   /* colour pass GPU ms per measured frame */
    uint32_t measured[2];
    double *ratios; /* on / off, per frame both were measured */
    uint32_t ratio_count;
} velocity_run;

static crowd_result make_run(velocity_run *run, const crowd_asset *asset, uint32_t count, const bench_render_options *o,
                             crowd_error *err)
{
    bool gpu = o->path == CROWD_GL_PATH_GPU;
    crowd_desc cd = {.asset = asset,
                     .capacity = count,
                     .world_size = 420.0f,
                     .chunk_size = gpu ? 420.0f : 24.0f,
                     .far_pool = gpu ? -1 : 0,
                     .imposters = -1,
                     .lod_policy = o->coverage ? CROWD_LOD_SCREEN_COVERAGE : CROWD_LOD_DISTANCE};
    crowd_sim_desc sd = bench_scene_sim(asset);
    crowd_result r = crowd_create(&cd, &run->crowd, err);
    if (r == CROWD_OK && (sd.target = run->crowd, r = crowd_sim_create(&sd, &run->sim, err)) == CROWD_OK)
        r = crowd_sim_spawn(run->sim, count);
    run->ratios = calloc(o->frames + 1, sizeof(double));
    if (r == CROWD_OK && !run->ratios)
        r = CROWD_ERROR_OUT_OF_MEMORY;
    for (int v = 0; v < 2 && r == CROWD_OK; v++) {
        crowd_gl_desc gd = {.asset = asset,
                            .path = o->path,
                            .capacity = crowd_record_capacity(run->crowd),
                            .timers = true,
                            .velocity = v ? CROWD_GL_VELOCITY_MRT : CROWD_GL_VELOCITY_NONE};
        r = crowd_gl_create(&gd, &run->renderers[v], err);
        if (r == CROWD_OK)
            r = showcase_scene_dress(run->renderers[v], asset, err);
        run->ms[v] = calloc(o->frames + 1, sizeof(double));
        if (r == CROWD_OK && !run->ms[v])
            r = CROWD_ERROR_OUT_OF_MEMORY;
    }
    return r;
}

static void free_run(velocity_run *run)
{
    for (int v = 0; v < 2; v++) {
        crowd_gl_destroy(run->renderers[v]);
        free(run->ms[v]);
    }
    free(run->ratios);
    crowd_sim_destroy(run->sim);
    crowd_destroy(run->crowd);
}

/* One renderer's passes of the frame; keeps its colour pass's GPU time once results are this run's. */
static crowd_result draw_one(velocity_run *run, int v, const crowd_frame *frame, crowd_gl_scene *scene,
                             const velocity_target *t, bool measure)
{
    crowd_gl_renderer *r = run->renderers[v];
    crowd_view view;
    crowd_gl_view(r, scene->view, scene->projection, (float)VELOCITY_H, &view);
    float light[16], centre[3] = {0, 1.2f, 0};
    crowd_gl_fit_shadow(r, scene->sun_direction, centre, 60.0f, light);
    crowd_result result = crowd_gl_upload(r, frame, NULL);
    crowd_gl_cull(r, frame, &view, light);
    if (result == CROWD_OK)
        result = crowd_gl_render_shadows(r, frame, light);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glViewport(0, 0, VELOCITY_W, VELOCITY_H);
    const float sky[4] = {0.6f, 0.7f, 0.8f, 1.0f}, zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, sky);
    glClearBufferfv(GL_COLOR, 1, zero);
    glClearBufferfi(GL_DEPTH_STENCIL, 0, 1.0f, 0);
    if (result == CROWD_OK)
        result = crowd_gl_draw(r, frame, scene);
    glFinish();
    double ms = crowd_gl_get_stats(r)->gpu_color_ms;
    if (measure && ms >= 0.0)
        run->ms[v][run->measured[v]++] = ms;
    return result;
}

static int measure_count(const crowd_asset *asset, uint32_t count, const bench_render_options *o,
                         const velocity_target *t)
{
    velocity_run run = {0};
    crowd_error err = {0};
    crowd_result r = make_run(&run, asset, count, o, &err);
    crowd_gl_scene scene = {0};
    showcase_scene_lighting(&scene, 0.0011f);
    scene.shadows = true;
    uint32_t total = VELOCITY_WARMUP + CROWD_GL_TIMER_LATENCY + o->frames;
    for (uint32_t f = 0; f < total && r == CROWD_OK; f++) {
        orbit(&scene, o->still ? 0.0f : 0.01f * (float)f);
        crowd_view view;
        crowd_gl_view(run.renderers[0], scene.view, scene.projection, (float)VELOCITY_H, &view);
        if (o->sim_on)
            crowd_sim_step(run.sim, 1.0f / 60.0f);
        const crowd_frame *frame = crowd_update(run.crowd, 1.0f / 60.0f, &view);
        bool measure = f >= VELOCITY_WARMUP + CROWD_GL_TIMER_LATENCY;
        uint32_t before[2] = {run.measured[0], run.measured[1]};
        for (int k = 0; k < 2 && r == CROWD_OK; k++)
            r = draw_one(&run, (int)((f + (uint32_t)k) % 2u), frame, &scene, t, measure);
        if (run.measured[0] > before[0] && run.measured[1] > before[1] && run.ms[0][before[0]] > 0.0)
            run.ratios[run.ratio_count++] = run.ms[1][before[1]] / run.ms[0][before[0]];
    }
    if (r != CROWD_OK) {
        fprintf(stderr, "crowd-bench: %u instances: %s\n", count, err.message[0] ? err.message : "a pass failed");
        free_run(&run);
        return 1;
    }
    double off = run.measured[0] ? tool_median(run.ms[0], run.measured[0]) : -1.0;
    double on = run.measured[1] ? tool_median(run.ms[1], run.measured[1]) : -1.0;
    double ratio = run.ratio_count ? tool_median(run.ratios, run.ratio_count) : 0.0;
    printf("%9u %10.3f %10.3f %+9.1f %% %+11.1f %%  (%u frames)\n", count, off, on,
           off > 0.0 ? 100.0 * (on / off - 1.0) : 0.0, ratio > 0.0 ? 100.0 * (ratio - 1.0) : 0.0, run.ratio_count);
    free_run(&run);
    return 0;
}

int bench_velocity(const crowd_asset *asset, const uint32_t *counts, uint32_t n, const bench_render_options *o)
{
    tool_gl gl = {0};
    crowd_error err;
    if (tool_gl_create(&gl, VELOCITY_W, VELOCITY_H, false, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-bench: %s\n", err.message);
        return 1;
    }
    velocity_target t = {0};
    int status = make_target(&t) ? 0 : 1;
    if (status)
        fprintf(stderr, "crowd-bench: the 1280x720 RGBA8 + RG16F target is not complete here\n");
    else
        printf("crowd-bench --render %s --velocity on %s: colour pass GPU ms (renderer timer queries), velocity "
               "off / on, medians of %u frames each, alternated, 1280x720, shadows on, %s, %s\n",
               o->path == CROWD_GL_PATH_GPU ? "gpu" : "cpu", gl.renderer, o->frames,
               o->sim_on ? "wander sim" : "static crowd", o->still ? "still camera" : "orbiting camera");
    if (!status)
        printf("%9s %10s %10s %10s %12s\n", "instances", "off", "on", "on / off", "per frame");
    for (uint32_t k = 0; k < n && !status; k++)
        status = measure_count(asset, counts[k], o, &t);
    free_target(&t);
    tool_gl_destroy(&gl);
    return status;
}
