/* Gun mode (G): the paint minigun. The walk camera, dropped to a standing eye height near the crowd
 * when entered from above (demo_gun_vantage); WASD moves, E/Q fly up and down, the pointer locks on
 * a click, and LMB held fires 20 rounds a second straight at the crosshair. Each round is a beam in
 * its own rainbow hue (a step round the wheel from the last) from a muzzle by the eye;
 * crowd_raycast finds the first instance, crowd_remove removes it (and crowd_hits_remove from the
 * hit index; indices stay dense) and it erupts in a fountain of paint droplets that speckle the
 * floor for good where they land (showcase/paint.h). R respawns the crowd to the editor count: the
 * fallen stand up where they fell. A client of the public API only. */
#ifndef CROWD_DEMO_GUN_H
#define CROWD_DEMO_GUN_H

#include <stdbool.h>
#include <stdint.h>

#include "crowdbake/crowd.h"
#include "crowdbake/hits.h"
#include "crowdbake/sim.h" /* crowd_obstacle */

typedef struct demo_gun demo_gun;

/* The paint target covers a `world` metre square. The GL context must be current. */
crowd_result demo_gun_create(bool es, float world, demo_gun **out, crowd_error *error);
void demo_gun_destroy(demo_gun *gun);

/* The crowd is about to go (rebuilt, asset switch): drop the hit index made for it. */
void demo_gun_forget_crowd(demo_gun *gun);

/* Before the frame's simulation step: fires the rounds due in `seconds` (while `firing`) from `eye`
 * along `forward` against the last update's snapshot, kills what they hit, spawns tracers and
 * paint, and draws the splats that landed into the paint target (leaves framebuffer 0 bound). */
void demo_gun_fire(demo_gun *gun, crowd *crowd, double seconds, bool firing, const float eye[3],
                   const float forward[3]);

/* After the frame's crowd_update: re-buckets the hit index when `active` (O(instances): gun mode
 * only); otherwise the index is marked stale until the next active update. */
void demo_gun_after_update(demo_gun *gun, const crowd *crowd, bool active);

/* Into the bound scene target (width x height), after the scene: droplets and tracers (the floor paint is
 * drawn by the ground that samples demo_gun_paint_texture: the renderer's, or the grass),
 * and with `crosshair` a white cross at the centre (two scissored clears: no program). */
void demo_gun_draw(demo_gun *gun, const float view[16], const float projection[16], int width, int height,
                   bool crosshair);

/* Where a visitor stands when they switch the gun on from above (an eye over 4 m: the orbit's
 * altitude): at a standing eye height of 1.7 m, 12 m short of the character nearest the point the
 * view is centred on, facing them at 1.5 m (so most rounds meet people, not the ground),
 * turned round them in 30 degree steps until clear of the obstacles. False (the camera stays) when
 * the eye is standing already or there is nobody; O(instances). */
bool demo_gun_vantage(const crowd *crowd, const crowd_obstacle *obstacles, uint32_t obstacle_count, const float eye[3],
                      const float target[3], float out_eye[3], float out_target[3]);

/* R in gun mode: back to `count` instances, the fallen revived where they fell. */
void demo_gun_respawn(const demo_gun *gun, crowd *crowd, uint32_t count);

/* The floor impacts (x, z pairs, at most `max`) since the last call, for the grass's cut field:
 * where the grass exists, rounds that strike the floor cut it. */
uint32_t demo_gun_take_impacts(demo_gun *gun, float *xz, uint32_t max);
/* The floor paint's texture (showcase_paint_texture): the grass is painted with it too. */
uint32_t demo_gun_paint_texture(const demo_gun *gun);
/* "gun: 123 rounds, 45 kills, 4567 splats (12 in flight)  [R respawn, G exit]" for the HUD's details. */
const char *demo_gun_status(demo_gun *gun);
/* The same in words for the plain HUD: "paint minigun: 123 rounds fired, 45 hit someone (37 %)". */
const char *demo_gun_summary(demo_gun *gun);

#endif
