/* The demo's ground: the grass field (crowdbake/grass.h) under the crowd, its settings' effect, and
 * the frame-time window of the HUD (FPS, average and 1 % low over the last second). */
#ifndef CROWD_DEMO_GRASS_VIEW_H
#define CROWD_DEMO_GRASS_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "crowdbake/grass.h"
#include "showcase/stage.h"

typedef struct demo_grass demo_grass;

/* The field with the seed's defaults (2M blades); `path` as crowd_grass_desc.path. */
crowd_result demo_grass_create(bool es, crowd_grass_path path, bool timers, demo_grass **out, crowd_error *error);
void demo_grass_destroy(demo_grass *g);

/* Before the frame's passes: the stage's ground plane hides while the field's ground (out to the
 * horizon) replaces it, and shows again when the field is off (or could not be made). */
void demo_grass_ground(const demo_grass *g, showcase_stage *stage, bool on);

/* Before the crowd's passes (after crowd_update): the interaction fields. The trample window follows
 * `focus` (xz: the camera's ground focus); the crowd's agents trample when `trample`; `mower` cuts a
 * swath under the focus as it moves; the paint minigun's floor impacts (x, z pairs) cut where they
 * struck, and its paint texture (0: none) over a paint_world metre square colours the meadow.
 * Leaves the renderer's target bound. */
void demo_grass_fields(demo_grass *g, const crowd_gl_renderer *renderer, const crowd_gl_scene *scene, bool on,
                       const crowd_frame *agents, float dt, const float focus[2], bool trample, bool mower,
                       const float *impacts, uint32_t impact_count, uint32_t paint, float paint_world);

/* After the crowd's colour pass: draws the field (receiving the renderer's shadow map) when `on`,
 * and tells `stage` that its ground covered the view (so the sky skips those rows). budget in (0, 1],
 * distance in metres, wind 0..1. */
void demo_grass_frame(demo_grass *g, showcase_stage *stage, const crowd_gl_renderer *renderer,
                      const crowd_gl_scene *scene, bool on, double time, float budget, float distance, float wind);

/* A frame's wall time, for the one-second window. */
void demo_grass_record_frame(demo_grass *g, double ms);

/* Two HUD lines: the frame window (with the fields' disc counts, then `extra`), and the field's stats
 * (tier split labelled as an estimate or late counters). */
int demo_grass_status(const demo_grass *g, bool on, const char *extra, char *out, size_t size);

#endif
