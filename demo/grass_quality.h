/* The grass follows the frame rate: a ladder of (density, draw distance) steps from a sparse meadow
 * near the crowd to the whole field, climbed while frames come at the display's rate and descended
 * when they do not. Density goes first, distance only at the lowest steps, so the grass stays where
 * the crowd stands. Pure policy over frame times: no GL, testable alone. */
#ifndef CROWD_DEMO_GRASS_QUALITY_H
#define CROWD_DEMO_GRASS_QUALITY_H

#include <stdbool.h>
#include <stdint.h>

#define DEMO_GRASS_STEPS 10

typedef struct demo_grass_quality {
    int step;              /* 0..DEMO_GRASS_STEPS-1 */
    double ms[16];         /* frame times since the last change (the newest 16) */
    int count;             /* frames recorded since the last change */
    double elapsed_ms;     /* wall time since the last change */
    int ceiling;           /* the lowest step that proved too slow; DEMO_GRASS_STEPS: none */
    double ceiling_age_ms; /* how long ago; after a while the ceiling is tried again */
} demo_grass_quality;

/* Starts at `step` (clamped). */
void demo_grass_quality_init(demo_grass_quality *q, int step);

/* One frame's wall time. Returns true when the step changed (read it with demo_grass_quality_get). */
bool demo_grass_quality_record(demo_grass_quality *q, double frame_ms);

/* The current step's density multiplier and draw distance (metres). */
void demo_grass_quality_get(const demo_grass_quality *q, float *density, float *distance);

#endif
