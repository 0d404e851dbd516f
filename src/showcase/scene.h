/* Internal: the showcase scene shared by crowd-shot, crowd-bench's renderer runs and the demo:
 * the seed benchmark's obstacles, props and ground, caps and balloons on sockets, and a sunny
 * default light. Not part of the public API; engines bring their own scenes. */
#ifndef CROWD_SHOWCASE_SCENE_H
#define CROWD_SHOWCASE_SCENE_H

#include <math.h>

#include "common/view_matrices.h"
#include "crowdbake/gl.h"
#include "crowdbake/sim.h"
#include "showcase/stage.h"

#define SHOWCASE_OBSTACLES 26

/* The seed benchmark's 26 round obstacles (radius 1.9 m) on a spiral. Inline so the renderer-free
 * benchmark shares it without linking GL. */
static inline void showcase_scene_obstacles(crowd_obstacle out[SHOWCASE_OBSTACLES])
{
    for (int i = 0; i < SHOWCASE_OBSTACLES; i++) {
        float angle = 0.9f * (float)i, radius = 10.0f + 6.5f * (float)i;
        out[i] = (crowd_obstacle){radius * cosf(angle), radius * sinf(angle), 1.9f};
    }
}

/* The seed benchmark's camera: eye (28, 16, 44) looking at (0, 1.2, 0), 58 deg, 16:9, 1080 px tall
 * (crowd-bench, and demo/scene_probe.c in the browser). Inline for the same reason. */
static inline void showcase_scene_bench_view(crowd_view *view)
{
    const float eye[3] = {28, 16, 44}, target[3] = {0, 1.2f, 0}, up[3] = {0, 1, 0};
    cb_look_at(view->view, eye, target, up);
    cb_perspective(view->projection, 58.0f * 3.14159265f / 180.0f, 16.0f / 9.0f, 0.3f, 900.0f);
    view->viewport_height = 1080.0f;
}

/* The stage: a ground 1.5 world sizes wide and pillars on the obstacles. */
crowd_result showcase_scene_stage(showcase_stage *stage, const crowd_obstacle *obstacles, uint32_t obstacle_count,
                                  float world_size, crowd_error *error);

/* When the asset has a bone texture and a head / hand_r socket: a cap on accessory bit 0 and a
 * balloon on bit 1 (the renderer's crowd_gl_view then puts their reach into the crowd's view, so the
 * CPU path's culling holds them). */
crowd_result showcase_scene_dress(crowd_gl_renderer *renderer, const crowd_asset *asset, crowd_error *error);

/* Afternoon sun, sky ambient, light haze. */
void showcase_scene_lighting(crowd_gl_scene *scene, float fog_density);

/* The sky colour matching the fog (sRGB, for glClearColor). */
void showcase_scene_sky(float rgb[3]);

#endif
