/* The page's quality follows the frame rate: a ladder of steps from a sparse meadow near the crowd
 * and the page's short LOD chain up to the whole grass field and the library's LOD chain, climbed
 * while frames come at the display's rate and descended when they do not. Grass density goes
 * first, then its distance, and the LOD chain only at the top (near people at full detail where the
 * frame allows it). Pure policy over frame times: no GL, testable alone. */
#ifndef CROWD_DEMO_QUALITY_LADDER_H
#define CROWD_DEMO_QUALITY_LADDER_H

#include <stdbool.h>
#include <stdint.h>

#define DEMO_QUALITY_STEPS 11

typedef struct demo_quality_ladder {
    int step;              /* 0..DEMO_QUALITY_STEPS-1 */
    double ms[16];         /* frame times since the last change (the newest 16) */
    int count;             /* frames recorded since the last change */
    double elapsed_ms;     /* wall time since the last change */
    int ceiling;           /* the lowest step that proved too slow; DEMO_QUALITY_STEPS: none */
    double ceiling_age_ms; /* how long ago; after a while the ceiling is tried again */
} demo_quality_ladder;

/* What one step asks for. */
typedef struct demo_quality {
    float grass_density;  /* the field's density multiplier */
    float grass_distance; /* metres */
    float lod_bias;       /* the crowd's LOD distances times this */
} demo_quality;

/* Starts at `step` (clamped). */
void demo_quality_ladder_init(demo_quality_ladder *q, int step);

/* One frame's wall time. Returns true when the step changed (read it with demo_quality_ladder_get). */
bool demo_quality_ladder_record(demo_quality_ladder *q, double frame_ms);

demo_quality demo_quality_ladder_get(const demo_quality_ladder *q);

#endif
