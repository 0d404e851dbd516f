/* The motion-vector debug view (the "motion_vectors" setting): the crowd's screen-space velocity, as the
 * renderer writes it for a game's TAA (crowd_gl_desc.velocity), shown as colours over a dimmed frame. */
#ifndef CROWD_DEMO_MOTION_VIEW_H
#define CROWD_DEMO_MOTION_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "crowdbake/base.h"

typedef struct demo_motion demo_motion;

crowd_result demo_motion_create(bool es, demo_motion **out, crowd_error *error);
void demo_motion_destroy(demo_motion *motion);

/* The view's own single-sampled target (colour, RG16F velocity at colour attachment 1, depth), made or
 * resized to width x height and bound, colour 0 alone drawn into (the frame's clear, shadows, scenery).
 * Returns its framebuffer, or 0 when this context cannot render to RG16F. */
uint32_t demo_motion_begin(demo_motion *motion, int width, int height);

/* Around the crowd's colour pass: velocity cleared to 0 and both draw buffers on; then colour 0 alone
 * again, so the rest of the scene (ground, grass, sky) leaves the crowd's vectors as they are. */
void demo_motion_crowd_begin(demo_motion *motion);
void demo_motion_crowd_done(demo_motion *motion);

/* Draws the view into `framebuffer`: each pixel's velocity as a colour (hue: direction on screen,
 * strength: speed, full from 4 px a frame) over the frame dimmed to grey. */
void demo_motion_present(demo_motion *motion, uint32_t framebuffer, int width, int height);

#endif
