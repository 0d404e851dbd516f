/* crowdbake/rig_record.h — the bridge from the runtime's records to the rig's poser: the blend a
 * record shows at shader time t, for posing a crowd member as a classic skinned mesh (a hero close to
 * the camera, a ragdoll's first frame, a comparison with the baked frames). Header-only; it needs
 * both crowd.h (the runtime) and rig.h (the offline rig and its poser), which know nothing of each
 * other. */
#ifndef CROWDBAKE_RIG_RECORD_H
#define CROWDBAKE_RIG_RECORD_H

#include "crowdbake/crowd.h"
#include "crowdbake/rig.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The blend `record` decodes to at shader time `time` (crowd_frame.time), by the rule rig.h gives
 * for crowd_rig_blend; pose it with crowd_rig_pose_blend. */
static inline crowd_rig_blend crowd_rig_blend_of_record(const crowd_record *record, float time)
{
    crowd_rig_blend blend;
    blend.clip_a = crowd_record_clip(record, 0);
    blend.phase_a = record->offset_a + time * record->rate_a;
    blend.hold_a = (record->clips & CROWD_RECORD_HOLD_A) != 0;
    blend.clip_b = crowd_record_clip(record, 1);
    blend.phase_b = record->offset_b + time * record->rate_b;
    blend.hold_b = (record->clips & CROWD_RECORD_HOLD_B) != 0;
    blend.weight = record->fade_rate > 0.0f ? (time - record->fade_start) * record->fade_rate : 0.0f;
    return blend;
}

#ifdef __cplusplus
}
#endif
#endif
