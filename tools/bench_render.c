/* crowd-bench --render cpu|gpu: every frame drawn headless through EGL (desktop GL, 1280 x 720,
 * the tool context's 4x MSAA target), the benchmark's crowd and camera with the library's passes
 * alone (no ground or pillars: those are the showcase's). Reports the render
 * path's CPU time per frame (upload, cull, shadow and colour pass calls, timed around the GL
 * calls) and each pass's GPU time from GL_TIME_ELAPSED queries, read after the run (never waited
 * for inside a frame). A glFinish after each frame, outside the timings, keeps frames from piling
 * up and gives the frame's wall time.
 *
 * On the GPU path the crowd's view says its renderer culls (crowd_gl_view: no levels or draw list on
 * the CPU) and has one chunk (chunk_size = world size) and no far pool, so its binning does
 * no per-chunk work and records keep their slots; the CPU path keeps the benchmark's 24 m chunks. */
#include "bench_render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/view_matrices.h"
#include "crowdbake/gl.h"
#include "crowdbake/sim.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "showcase/looks.h"
#include "showcase/scene.h"
#include "tool_support.h"

#define RENDER_WARMUP 3
#define PASSES 3 /* cull, shadow, colour */

/* The benchmark's camera orbiting by `angle`, into the scene and the crowd's view (the renderer's). */
static void orbit_view(const crowd_gl_renderer *r, crowd_view *view, crowd_gl_scene *scene, float angle)
{
    float d = sqrtf(28.0f * 28.0f + 44.0f * 44.0f), a0 = atan2f(28.0f, 44.0f);
    const float eye[3] = {d * sinf(a0 + angle), 16.0f, d * cosf(a0 + angle)}, target[3] = {0, 1.2f, 0},
                up[3] = {0, 1, 0};
    cb_look_at(scene->view, eye, target, up);
    cb_perspective(scene->projection, 58.0f * 3.14159265f / 180.0f, 16.0f / 9.0f, 0.3f, 900.0f);
    crowd_gl_view(r, scene->view, scene->projection, 720.0f, view);
}

crowd_sim_desc bench_scene_sim(const crowd_asset *asset)
{
    static crowd_obstacle obstacles[SHOWCASE_OBSTACLES];
    showcase_scene_obstacles(obstacles);
    return (crowd_sim_desc){.scenario = CROWD_SCENARIO_WANDER,
                            .obstacles = obstacles,
                            .obstacle_count = SHOWCASE_OBSTACLES,
                            .seed = 7,
                            .spawn = showcase_spawn_look(asset)};
}

int bench_render(const crowd_asset *asset, const uint32_t *counts, uint32_t n, const bench_render_options *o)
{
    const crowd_gl_path path = o->path;
    const uint32_t frames = o->frames;
    const bool sim_on = o->sim_on, still = o->still, gl_debug = o->gl_debug;
    const float imposter_distance = o->imposter_distance;
    tool_gl gl = {0};
    crowd_error err;
    if (tool_gl_create(&gl, 1280, 720, false, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-bench: %s\n", err.message);
        return 1;
    }
    bool gpu = path == CROWD_GL_PATH_GPU, cards = imposter_distance > 0.0f;
    crowd_asset with_cards = *asset; /* a shallow copy carrying an atlas baked here, when needed */
    crowd_imposters baked_atlas = {0};
    if (cards && !asset->imposters.frames) {
        double t0 = tool_now_ms();
        if (crowd_gl_bake_imposters(asset, NULL, false, &baked_atlas, &err) != CROWD_OK) {
            fprintf(stderr, "crowd-bench: %s\n", err.message);
            tool_gl_destroy(&gl);
            return 1;
        }
        with_cards.imposters = baked_atlas;
        printf("crowd-bench: baked the imposter atlas (defaults) in %.1f s\n", (tool_now_ms() - t0) / 1000.0);
        tool_gl_destroy(&gl); /* the bake leaves its framebuffer state: start clean */
        if (tool_gl_create(&gl, 1280, 720, false, &err) != CROWD_OK) {
            fprintf(stderr, "crowd-bench: %s\n", err.message);
            crowd_gl_imposters_free(&baked_atlas);
            return 1;
        }
    }
    asset = &with_cards;
    printf("crowd-bench --render %s on %s: medians of %u frames after %d warm-up, 1280x720, shadows on, %s, %s, %s, %s",
           gpu ? "gpu" : "cpu", gl.renderer, frames, RENDER_WARMUP, sim_on ? "wander sim" : "static crowd",
           still ? "still camera" : "orbiting camera", o->coverage ? "coverage LOD" : "distance LOD",
           gl_debug ? "GL errors checked every pass (slower), " : "");
    if (cards)
        printf("imposters from %.1f m\n", (double)imposter_distance);
    else
        printf("no imposters\n");
    printf("%9s %8s | %8s %8s %8s %8s %8s | %8s %8s %8s | %9s %8s %s\n", "instances", "update", "upload", "cull",
           "shadow", "colour", "render", "gpu cull", "gpu shad", "gpu col", "frame", "tris", "passes run/skipped");
    int status = 0;
    for (uint32_t k = 0; k < n && !status; k++) {
        uint32_t count = counts[k];
        crowd_desc cd = {.asset = asset,
                         .capacity = count,
                         .world_size = 420.0f,
                         .chunk_size = gpu ? 420.0f : 24.0f,
                         .far_pool = gpu ? -1 : 0,
                         .imposters = cards ? 1 : -1,
                         .lod_policy = o->coverage ? CROWD_LOD_SCREEN_COVERAGE : CROWD_LOD_DISTANCE};
        if (cards) { /* the default chain, every level ending no later than the cards begin */
            static const float chain[4] = {6.0f, 14.0f, 34.0f, 80.0f};
            for (uint32_t l = 0; l + 1 < asset->lod_count; l++) {
                float d = l < 4 ? chain[l] : chain[3] * (float)(l - 2);
                cd.lod_distances[l] = d < imposter_distance ? d : imposter_distance;
            }
            cd.lod_distances[asset->lod_count - 1] = imposter_distance;
        }
        crowd_sim_desc sd = bench_scene_sim(asset);
        crowd *c = NULL;
        crowd_sim *sim = NULL;
        crowd_gl_renderer *r = NULL;
        uint32_t total = RENDER_WARMUP + frames;
        double *t = calloc((size_t)total * 8, sizeof(double));
        GLuint *queries = calloc((size_t)total * PASSES, sizeof(GLuint));
        crowd_gl_desc gd = {.asset = asset, .path = path, .debug = gl_debug};
        if (!t || !queries || crowd_create(&cd, &c, &err) != CROWD_OK ||
            (sd.target = c, crowd_sim_create(&sd, &sim, &err)) != CROWD_OK || crowd_sim_spawn(sim, count) != CROWD_OK ||
            (gd.capacity = crowd_record_capacity(c), crowd_gl_create(&gd, &r, &err)) != CROWD_OK ||
            showcase_scene_dress(r, asset, &err) != CROWD_OK) {
            fprintf(stderr, "crowd-bench: %s\n", err.message);
            status = 1;
            goto next;
        }
        for (uint32_t i = 0; !sim_on && i < count; i++) /* settled: standing where spawned, clips playing */
            crowd_set_velocity(c, i, 0.0f, 0.0f);
        glGenQueries((GLsizei)(total * PASSES), queries);
        crowd_gl_scene scene = {0};
        showcase_scene_lighting(&scene, 0.0011f);
        scene.shadows = true;
        crowd_view view = {0};
        float light[16], sky[3], centre[3] = {0, 1.2f, 0};
        showcase_scene_sky(sky);
        crowd_gl_fit_shadow(r, scene.sun_direction, centre, 60.0f, light);
        uint64_t triangles = 0;
        for (uint32_t f = 0; f < total && !status; f++) {
            orbit_view(r, &view, &scene, still ? 0.0f : 0.01f * (float)f);
            double a = tool_now_ms();
            if (sim_on)
                crowd_sim_step(sim, 1.0f / 60.0f);
            const crowd_frame *frame = crowd_update(c, 1.0f / 60.0f, &view);
            double b = tool_now_ms();
            /* each call timed alone: the bench's own timer queries and clear stay outside */
            crowd_result pass = crowd_gl_upload(r, frame, &err); /* without debug: only a failed growth */
            double c0 = tool_now_ms();
            glBeginQuery(GL_TIME_ELAPSED, queries[f * PASSES]);
            double k0 = tool_now_ms();
            crowd_gl_cull(r, frame, &view, light);
            double k1 = tool_now_ms();
            glEndQuery(GL_TIME_ELAPSED);
            if (pass == CROWD_OK && gl_debug) /* the cull call returns nothing: ask here */
                pass = crowd_gl_check("cull pass", &err);
            glBeginQuery(GL_TIME_ELAPSED, queries[f * PASSES + 1]);
            double s0 = tool_now_ms();
            crowd_result shadow = crowd_gl_render_shadows(r, frame, light);
            double s1 = tool_now_ms();
            glEndQuery(GL_TIME_ELAPSED);
            glBeginQuery(GL_TIME_ELAPSED, queries[f * PASSES + 2]);
            glClearColor(sky[0], sky[1], sky[2], 1.0f);
            glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
            double d0 = tool_now_ms();
            crowd_result colour = crowd_gl_draw(r, frame, &scene);
            double d1 = tool_now_ms();
            glEndQuery(GL_TIME_ELAPSED);
            if (pass != CROWD_OK || shadow != CROWD_OK || colour != CROWD_OK) {
                fprintf(stderr, "crowd-bench: %u instances, frame %u: %s\n", count, f,
                        pass != CROWD_OK ? err.message : crowd_gl_last_error(r));
                status = 1;
                break;
            }
            glFinish();
            double c4 = tool_now_ms();
            double *row = &t[(size_t)f * 8];
            row[0] = b - a, row[1] = c0 - b, row[2] = k1 - k0, row[3] = s1 - s0, row[4] = d1 - d0;
            row[5] = row[1] + row[2] + row[3] + row[4], row[6] = c4 - a;
            triangles = gpu ? crowd_gl_get_gpu_stats(r)->triangles + crowd_gl_get_gpu_stats(r)->shadow_triangles
                            : crowd_gl_get_stats(r)->triangles + crowd_gl_get_stats(r)->shadow_triangles;
        }
        if (status) {
            glDeleteQueries((GLsizei)(total * PASSES), queries);
            goto next;
        }
        double med[7], gpu_ms[PASSES];
        double *col = calloc(frames, sizeof(double));
        for (int m = 0; m < 7; m++) {
            for (uint32_t f = 0; f < frames; f++)
                col[f] = t[(size_t)(f + RENDER_WARMUP) * 8 + (size_t)m];
            med[m] = tool_median(col, frames);
        }
        for (int p = 0; p < PASSES; p++) { /* after the run: every query has its result */
            for (uint32_t f = 0; f < frames; f++) {
                GLuint64 ns = 0;
                glGetQueryObjectui64v(queries[(f + RENDER_WARMUP) * PASSES + (uint32_t)p], GL_QUERY_RESULT, &ns);
                col[f] = (double)ns / 1e6;
            }
            gpu_ms[p] = tool_median(col, frames);
        }
        free(col);
        const crowd_gl_gpu_stats *gs = crowd_gl_get_gpu_stats(r);
        printf("%9u %8.3f | %8.3f %8.3f %8.3f %8.3f %8.3f | %8.3f %8.3f %8.3f | %9.2f %7.2fM %llu/%llu\n", count,
               med[0], med[1], med[2], med[3], med[4], med[5], gpu_ms[0], gpu_ms[1], gpu_ms[2], med[6],
               (double)triangles / 1e6, (unsigned long long)gs->passes_run, (unsigned long long)gs->passes_skipped);
        glDeleteQueries((GLsizei)(total * PASSES), queries);
    next:
        free(t);
        free(queries);
        crowd_gl_destroy(r);
        crowd_sim_destroy(sim);
        crowd_destroy(c);
    }
    printf("update: sim step + crowd_update (runtime CPU). upload..colour: the render path's CPU ms per call\n"
           "(each call alone: the bench's timer queries and the clear are outside), render = their sum;\n"
           "gpu *: GL_TIME_ELAPSED per pass (colour with the clear); frame: wall time with a glFinish per frame.\n"
           "tris: submitted triangles, colour + shadow (GPU path: counters read back a few frames late).\n");
    tool_gl_destroy(&gl);
    crowd_gl_imposters_free(&baked_atlas);
    return status;
}
