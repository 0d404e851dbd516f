/* Internal: ground-truth skinning for verification, written independently of the baker's float
 * fast path: the rig's sampled local transforms composed and skinned in double precision, with
 * every influence the rig has (not the four of bone mode). */
#ifndef CROWD_BAKE_REFERENCE_H
#define CROWD_BAKE_REFERENCE_H

#include "crowdbake/rig.h"

typedef struct crowd_reference {
    const crowd_rig *rig;
    crowd_trs *pose;
    double *global; /* bone_count 3x4 row-major, model space */
    double *skin;   /* bone_count 3x4 row-major */
    float *morph_weights;
} crowd_reference;

crowd_result crowd_reference_init(crowd_reference *ref, const crowd_rig *rig, crowd_error *error);
void crowd_reference_free(crowd_reference *ref);

/* Positions and unit normals (vertex_count xyz each) of `clip` at `time`. */
void crowd_reference_skin(crowd_reference *ref, uint32_t clip, double time, double *positions, double *normals);

/* Time of frame `f` of `n` of a clip, as the baker samples it. */
double crowd_reference_frame_time(const crowd_rig_clip *clip, uint32_t f, uint32_t n);

#endif
