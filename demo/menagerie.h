/* Demo asset choice "menagerie" (?asset=menagerie in the browser): every loaded asset as a kind of
 * its own (the humanoid, the Fox, the critters) in one world: one crowd and one renderer per kind,
 * one simulation for all of them (crowd_world: separation across kinds, each kind on its own gait
 * ladder), the instances setting split among the kinds. */
#ifndef CROWD_DEMO_MENAGERIE_H
#define CROWD_DEMO_MENAGERIE_H

#include "crowdbake/gl.h"
#include "crowdbake/sim.h"
#include "demo/camera.h"
#include "gl/gl_api.h"
#include "showcase/stage.h"

#define DEMO_MENAGERIE_MAX_KINDS 16

typedef struct demo_menagerie_desc {
    const crowd_asset *assets[DEMO_MENAGERIE_MAX_KINDS]; /* borrowed: the kinds */
    const char *names[DEMO_MENAGERIE_MAX_KINDS];         /* their display names (copied, shortened) */
    crowd_spawn_options spawn[DEMO_MENAGERIE_MAX_KINDS]; /* each kind's looks and clips */
    uint32_t kind_count;                                 /* 2..DEMO_MENAGERIE_MAX_KINDS */
    crowd_desc crowd;   /* every kind's crowd settings (asset set here; capacity: the total's) */
    crowd_sim_desc sim; /* scenario, obstacles, separation, seed (target, spawn, radius set here) */
    crowd_gl_desc gl;   /* es, debug, timers, upload, path (the rest set here) */
    float world_size;
    uint32_t total;        /* instances, all kinds together */
    showcase_stage *stage; /* borrowed: the ground and pillars, lit by the first kind's renderer */
} demo_menagerie_desc;

typedef struct demo_menagerie demo_menagerie;

crowd_result demo_menagerie_create(const demo_menagerie_desc *desc, demo_menagerie **out, crowd_error *error);
void demo_menagerie_destroy(demo_menagerie *menagerie);

/* The total, split among the kinds (crowd_world_spawn), capped at the capacity given at creation. */
crowd_result demo_menagerie_set_count(demo_menagerie *menagerie, uint32_t total);
void demo_menagerie_set_scenario(demo_menagerie *menagerie, crowd_scenario scenario);
/* The kinds' own separation and the separation across kinds together (the demo's one toggle). */
void demo_menagerie_set_separation(demo_menagerie *menagerie, bool on);
void demo_menagerie_set_stride_matching(demo_menagerie *menagerie, bool on);
void demo_menagerie_set_cross_fade(demo_menagerie *menagerie, bool on);

/* One frame: the world's step, every kind's update and upload, then every kind's shadow pass and
 * colour pass into `fbo` (width x height), and the stage's. `scene` carries the camera and lighting.
 * The kinds cast into one shadow map (the first kind's), which the stage's ground receives. */
void demo_menagerie_frame(demo_menagerie *menagerie, float dt, const demo_camera *camera, const crowd_gl_scene *scene,
                          GLuint fbo, int width, int height);

/* Every kind's far shadows onto the ground drawn since the frame (the stage's or the grass field's). */
void demo_menagerie_far_shadows(demo_menagerie *menagerie, const crowd_gl_scene *scene);

uint32_t demo_menagerie_instances(const demo_menagerie *menagerie);

/* Every kind's last frame together: submitted instances, draws and triangles (colour and shadow). */
typedef struct demo_menagerie_totals {
    uint32_t submitted, draws, shadow_draws;
    uint64_t triangles, shadow_triangles;
} demo_menagerie_totals;
demo_menagerie_totals demo_menagerie_get_totals(const demo_menagerie *menagerie);

/* The renderer whose light and shadow map the ground takes (the first kind's): the grass field draws
 * with it. */
const crowd_gl_renderer *demo_menagerie_ground_renderer(const demo_menagerie *menagerie);

/* HUD lines (two): the world's instances, draws, step and pass; each kind's count and radius. */
const char *demo_menagerie_status(const demo_menagerie *menagerie);

#endif
