/* Demo mode "compare": classic skinning in the left half of the screen, the VAT crowd in the right
 * half, same asset, clips, steering (one simulation each, same settings), camera, lighting and
 * shadows. The left half poses every character's skeleton on the CPU from the rig's clips
 * (crowd_rig_pose_blend) and draws each with its own palette and draw call (crowd_gl_skinned);
 * the right half is the crowd runtime and renderer as in the rest of the demo. */
#ifndef CROWD_DEMO_COMPARE_H
#define CROWD_DEMO_COMPARE_H

#include "crowdbake/gl.h"
#include "crowdbake/sim.h"
#include "demo/camera.h"
#include "gl/gl_api.h"
#include "showcase/stage.h"

/* CPU budget the budget search fits each half's count to (60 fps). */
#define DEMO_COMPARE_BUDGET_MS 16.7

typedef struct demo_compare_desc {
    const crowd_asset *asset;        /* borrowed; the rig is rebuilt from its source (the humanoid; natively
                                 also its glTF file) */
    crowd_desc crowd;                /* both halves' crowd settings (asset and capacity set here) */
    crowd_sim_desc sim;              /* scenario, obstacles, separation, seed, spawn (target set here) */
    crowd_gl_desc gl;                /* es, debug, timers, upload (the rest set here) */
    const crowd_obstacle *obstacles; /* the showcase scene's pillars */
    uint32_t obstacle_count;
    float world_size;
    uint32_t classic_count, vat_count; /* 0 = 300 and 5,000: the seed's pair */
    showcase_stage *stage;             /* borrowed: the ground and pillars */
} demo_compare_desc;

typedef struct demo_compare demo_compare;

crowd_result demo_compare_create(const demo_compare_desc *desc, demo_compare **out, crowd_error *error);
void demo_compare_destroy(demo_compare *compare);

/* Steps both halves by dt and draws them side by side into `fbo` (width x height), the classic
 * half in the left half. `scene` carries the lighting (its camera is overwritten per half). */
void demo_compare_frame(demo_compare *compare, float dt, const demo_camera *camera, crowd_gl_scene *scene, GLuint fbo,
                        int width, int height);

/* Starts (or stops) the search for each half's count at DEMO_COMPARE_BUDGET_MS of CPU per frame:
 * doubling, then bisecting, each step measured as the median of a few frames. */
void demo_compare_find_budget(demo_compare *compare);

/* Sets a half's count (0 classic, 1 VAT). */
crowd_result demo_compare_set_count(demo_compare *compare, int half, uint32_t count);

/* A half's (0 classic, 1 VAT) live instances, last frame's draws (shadow pass included) and
 * smoothed CPU ms (posing + upload + submission). */
void demo_compare_half_stats(const demo_compare *compare, int half, uint32_t *instances, uint32_t *draws,
                             double *cpu_ms);

/* HUD lines: per half instances, draws, CPU ms (posing + upload + submission), GPU ms. */
const char *demo_compare_status(const demo_compare *compare);

/* A half's title for the screen, in words: what it is and the smoothed CPU time a frame it costs
 * ("classic skinning: N ms CPU", "VAT: N ms CPU"). */
const char *demo_compare_title(demo_compare *compare, int half);
/* The line under it: how many characters and how they are drawn, or how far T's search has got. */
const char *demo_compare_caption(demo_compare *compare, int half);

#endif
