/* Internal: measuring how far a locomotion clip carries the character per cycle, from its baked
 * frames alone (no knowledge of the rig's bones, so it works on any asset).
 *
 * A vertex is in contact at a frame when it is within a small tolerance of the clip's ground
 * (a low percentile of the per-frame lowest points) at that frame and the next. The horizontal velocities of
 * contact vertices are collected over the whole clip; their per-axis median is the planted
 * velocity. The median, rather than an integral, ignores swing frames that brush the ground and
 * gives the right answer for gaits with an airborne phase. stride = |velocity| * duration.
 *
 * Authored clips do not always plant both feet at one height (RobotExpressive's Walking sinks the
 * left foot 2 % of its height below the right): when the global ground finds no consistent
 * travel, contact is taken per frame instead (vertices near that frame's own lowest point, in
 * frames whose lowest point is within 5 % of the height of the ground). Either way a clip counts as
 * locomotion only when it travels more than 2 % of the height per cycle, from at least 8 contact
 * samples, at least half of which move within 50 % of the median velocity: feet that plant and
 * slide together, which a fall or a punch does not do. */
#ifndef CROWD_BAKE_STRIDE_H
#define CROWD_BAKE_STRIDE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct crowd_stride {
    double stride;      /* metres per cycle; 0 when the clip does not travel */
    double speed;       /* metres per second at the authored rate */
    double velocity[2]; /* planted velocity (x, z), metres per second */
    uint32_t samples;   /* contact vertex-frames the median was taken over */
    bool locomotion;    /* feet plant and slide consistently: stride is meaningful */
} crowd_stride;

/* frames: frame_count frames of vertex_count xyz positions, sampled uniformly over one cycle of
 * `duration` seconds (looping: the frame after the last is the first). Allocates scratch
 * memory; returns false only when out of memory. */
bool crowd_extract_stride(const float *frames, uint32_t vertex_count, uint32_t frame_count, double duration, bool loop,
                          crowd_stride *out);

#endif
