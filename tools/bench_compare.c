/* crowd-bench --compare: classic skinning against the VAT crowd, CPU cost per frame.
 *
 * One crowd and one simulation (the benchmark scene: 420 m world, 24 m chunks, wander, obstacles)
 * drive both paths, so both play the same clips at the same places. Each frame, after the sim
 * step (shared, reported apart):
 *   classic: every live agent's record is read (crowd_get) and its skeleton posed from the rig's
 *            clips (crowd_rig_pose_blend: the baker's sampler), then crowd_gl_skinned_upload,
 *            crowd_gl_skinned_render_shadows and crowd_gl_skinned_draw (a palette upload and a draw
 *            call per character per pass, level 0, no culling: every creature of the seed's left
 *            half is its own skinned mesh);
 *   cpu:     the same posing, then every vertex skinned on the CPU and uploaded (counts <= 1,000);
 *   VAT:     crowd_update (grid, culling, LOD, draw order), crowd_gl_upload, crowd_gl_render_shadows
 *            and crowd_gl_draw.
 * Timed around the calls; a glFinish after each path, outside the timings. Medians over the frames.
 * Caveat: Mesa llvmpipe runs vertex shaders on the CPU inside the draw call, so "submit" holds
 * vertex work for both paths there; "pose" and "update" are driver-free. */
#include "bench_compare.h"
#include "bench_render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/view_matrices.h"
#include "crowdbake/gl.h"
#include "crowdbake/rig_record.h"
#include "crowdbake/sim.h"
#include "gl/gl_api.h"
#include "gl_context.h"
#include "showcase/looks.h"
#include "showcase/scene.h"
#include "tool_support.h"

#define COMPARE_WARMUP 3
#define CPU_SKIN_MAX 1000u

enum { T_SIM, T_POSE, T_SUBMIT, T_CPU_POSE, T_CPU_SUBMIT, T_UPDATE, T_VAT_SUBMIT, T_COUNT };

static void compare_view(crowd_view *view, crowd_gl_scene *scene)
{
    const float eye[3] = {28, 16, 44}, target[3] = {0, 1.2f, 0}, up[3] = {0, 1, 0};
    cb_look_at(view->view, eye, target, up);
    cb_perspective(view->projection, 58.0f * 3.14159265f / 180.0f, 16.0f / 9.0f, 0.3f, 900.0f);
    view->viewport_height = 360.0f;
    memcpy(scene->view, view->view, sizeof scene->view);
    memcpy(scene->projection, view->projection, sizeof scene->projection);
}

/* Poses every live agent: the classic path's CPU animation. */
static void pose_all(crowd *c, crowd_rig_poser *poser, uint32_t bones, float *rows, crowd_gl_character *chars,
                     uint32_t n)
{
    float time = crowd_time(c);
    for (uint32_t i = 0; i < n; i++) {
        crowd_record rec;
        crowd_get(c, i, &rec);
        float *palette = rows + (size_t)12 * bones * i;
        crowd_rig_blend blend = crowd_rig_blend_of_record(&rec, time);
        crowd_rig_pose_blend(poser, &blend, palette);
        chars[i] =
            (crowd_gl_character){{0, 0, 0}, crowd_record_yaw(&rec, time), rec.scale, rec.tint, rec.variant, palette};
        crowd_record_position(&rec, time, chars[i].position); /* where the VAT crowd draws it */
    }
}

static double classic_frame(crowd_gl_skinned *sk, const crowd_gl_character *chars, uint32_t n, const float light[16],
                            const crowd_gl_scene *scene)
{
    double t0 = tool_now_ms();
    crowd_gl_skinned_upload(sk, chars, n, NULL);
    crowd_gl_skinned_render_shadows(sk, light);
    crowd_gl_skinned_draw(sk, scene);
    return tool_now_ms() - t0;
}

typedef struct compare_row {
    uint32_t count;
    double ms[T_COUNT];
    uint32_t vat_draws, classic_draws;
} compare_row;

static int run_count(const crowd_asset *asset, const crowd_rig *rig, uint32_t count, uint32_t frames, compare_row *row)
{
    crowd_desc cd = {.asset = asset, .capacity = count, .world_size = 420.0f, .chunk_size = 24.0f};
    crowd_sim_desc sd = bench_scene_sim(asset);
    crowd *c = NULL;
    crowd_sim *sim = NULL;
    crowd_gl_renderer *r = NULL;
    crowd_gl_skinned *gpu_skin = NULL, *cpu_skin = NULL;
    crowd_rig_poser *poser = NULL;
    crowd_error err = {0};
    int status = 0;
    uint32_t total = COMPARE_WARMUP + frames;
    bool with_cpu = count <= CPU_SKIN_MAX;
    float *rows = malloc(sizeof(float) * 12 * asset->bone_count * count);
    crowd_gl_character *chars = malloc(sizeof *chars * count);
    double *t = calloc((size_t)total * T_COUNT, sizeof(double));
    crowd_gl_desc gd = {.asset = asset};
    crowd_gl_skinned_desc gsd = {0}, csd = {.cpu_skinning = true, .capacity = count};
    if (!rows || !chars || !t || crowd_create(&cd, &c, &err) != CROWD_OK ||
        (sd.target = c, crowd_sim_create(&sd, &sim, &err)) != CROWD_OK || crowd_sim_spawn(sim, count) != CROWD_OK ||
        (gd.capacity = crowd_record_capacity(c), crowd_gl_create(&gd, &r, &err)) != CROWD_OK ||
        showcase_scene_dress(r, asset, &err) != CROWD_OK ||
        (gsd.renderer = r, crowd_gl_skinned_create(&gsd, &gpu_skin, &err)) != CROWD_OK ||
        (with_cpu && (csd.renderer = r, crowd_gl_skinned_create(&csd, &cpu_skin, &err)) != CROWD_OK) ||
        crowd_rig_poser_create(rig, asset, &poser, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-bench: %s\n", err.message[0] ? err.message : "out of memory");
        status = 1;
        goto done;
    }
    crowd_gl_scene scene = {0};
    showcase_scene_lighting(&scene, 0.0011f);
    scene.shadows = true;
    crowd_view view = {0};
    compare_view(&view, &scene);
    float light[16], sky[3], centre[3] = {0, 1.2f, 0};
    showcase_scene_sky(sky);
    crowd_gl_fit_shadow(r, scene.sun_direction, centre, 60.0f, light);
    glClearColor(sky[0], sky[1], sky[2], 1.0f);
    for (uint32_t f = 0; f < total; f++) {
        double *m = &t[(size_t)f * T_COUNT];
        double a = tool_now_ms();
        crowd_sim_step(sim, 1.0f / 60.0f);
        m[T_SIM] = tool_now_ms() - a;

        a = tool_now_ms(); /* VAT: the runtime's update, then the renderer */
        const crowd_frame *frame = crowd_update(c, 1.0f / 60.0f, &view);
        double b = tool_now_ms();
        crowd_gl_upload(r, frame, NULL);
        crowd_gl_render_shadows(r, frame, light);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        crowd_gl_draw(r, frame, &scene);
        m[T_UPDATE] = b - a;
        m[T_VAT_SUBMIT] = tool_now_ms() - b;
        row->vat_draws = crowd_gl_get_stats(r)->draws + crowd_gl_get_stats(r)->shadow_draws;
        glFinish();

        a = tool_now_ms(); /* classic, GPU skinning */
        pose_all(c, poser, asset->bone_count, rows, chars, count);
        m[T_POSE] = tool_now_ms() - a;
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        m[T_SUBMIT] = classic_frame(gpu_skin, chars, count, light, &scene);
        row->classic_draws =
            crowd_gl_skinned_get_stats(gpu_skin)->draws + crowd_gl_skinned_get_stats(gpu_skin)->shadow_draws;
        glFinish();

        if (with_cpu) { /* classic, CPU skinning: posing again (the same work), then skin + upload + draws */
            a = tool_now_ms();
            pose_all(c, poser, asset->bone_count, rows, chars, count);
            m[T_CPU_POSE] = tool_now_ms() - a;
            glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
            m[T_CPU_SUBMIT] = classic_frame(cpu_skin, chars, count, light, &scene);
            glFinish();
        }
    }
    row->count = count;
    double *col = calloc(frames, sizeof(double));
    for (int k = 0; k < T_COUNT && col; k++) {
        for (uint32_t f = 0; f < frames; f++)
            col[f] = t[(size_t)(f + COMPARE_WARMUP) * T_COUNT + (size_t)k];
        row->ms[k] = tool_median(col, frames);
    }
    if (!with_cpu)
        row->ms[T_CPU_POSE] = row->ms[T_CPU_SUBMIT] = NAN;
    free(col);
done:
    crowd_rig_poser_destroy(poser);
    crowd_gl_skinned_destroy(cpu_skin);
    crowd_gl_skinned_destroy(gpu_skin);
    crowd_gl_destroy(r);
    crowd_sim_destroy(sim);
    crowd_destroy(c);
    free(rows);
    free(chars);
    free(t);
    return status;
}

int bench_compare(const crowd_asset *asset, const uint32_t *counts, uint32_t n, uint32_t frames)
{
    crowd_rig rig;
    crowd_error err;
    if (tool_load_source_rig(asset, NULL, &rig, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-bench --compare: the asset's rig: %s\n", err.message);
        return 1;
    }
    tool_gl gl = {0};
    if (tool_gl_create_samples(&gl, 640, 360, false, 0, &err) != CROWD_OK) {
        fprintf(stderr, "crowd-bench: %s\n", err.message);
        crowd_rig_free(&rig);
        return 1;
    }
    printf("crowd-bench --compare on %s: %u vertices, %u bones; medians of %u frames after %d warm-up, 640x360,\n"
           "shadows on, wander sim (shared, not in either total). CPU ms per frame:\n",
           gl.renderer, asset->vertex_count, asset->bone_count, frames, COMPARE_WARMUP);
    printf("%9s %7s | %8s %8s %8s %6s | %8s %8s | %8s %8s %8s %6s | %9s %9s\n", "instances", "sim", "pose", "submit",
           "classic", "draws", "cpu skin", "total", "update", "submit", "VAT", "draws", "x runtime", "x total");
    int status = 0;
    for (uint32_t k = 0; k < n && !status; k++) {
        compare_row row = {0};
        status = run_count(asset, &rig, counts[k], frames, &row);
        if (status)
            break;
        const double *m = row.ms;
        double classic = m[T_POSE] + m[T_SUBMIT], vat = m[T_UPDATE] + m[T_VAT_SUBMIT];
        printf("%9u %7.3f | %8.3f %8.3f %8.3f %6u | %8.3f %8.3f | %8.4f %8.3f %8.3f %6u | %8.0fx %8.1fx\n", row.count,
               m[T_SIM], m[T_POSE], m[T_SUBMIT], classic, row.classic_draws, m[T_CPU_SUBMIT],
               m[T_CPU_POSE] + m[T_CPU_SUBMIT], m[T_UPDATE], m[T_VAT_SUBMIT], vat, row.vat_draws,
               m[T_POSE] / (m[T_UPDATE] > 0 ? m[T_UPDATE] : 1e-6), classic / vat);
        fflush(stdout);
    }
    printf("classic: pose = crowd_get + crowd_rig_pose_blend for every agent (the CPU animation); submit =\n"
           "crowd_gl_skinned_upload + shadow + colour pass (a palette upload + draw per character per pass).\n"
           "cpu skin: the CPU-skinned variant's skin + upload + draws (total adds its posing; up to %u).\n"
           "VAT: update = crowd_update; submit = crowd_gl_upload + shadow + colour pass. x runtime = pose / update\n"
           "(driver-free); x total = classic / VAT. llvmpipe shades vertices on the CPU inside draw calls,\n"
           "so its submit columns include vertex work that a GPU would do.\n",
           CPU_SKIN_MAX);
    tool_gl_destroy(&gl);
    crowd_rig_free(&rig);
    return status;
}
