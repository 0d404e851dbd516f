/* Local pose -> model-space bone matrices -> skinning matrices. */
#include "crowdbake/rig.h"

#include "common/cbmath.h"

void crowd_rig_global_matrices(const crowd_rig *rig, const crowd_trs *pose, float *global)
{
    for (uint32_t b = 0; b < rig->bone_count; b++) {
        float local[16];
        cb_mat4_from_trs(local, pose[b].translation, pose[b].rotation, pose[b].scale);
        int32_t parent = rig->bones[b].parent;
        if (parent < 0)
            memcpy(global + 16 * b, local, sizeof local);
        else
            cb_mat4_mul(global + 16 * b, global + 16 * (uint32_t)parent, local);
    }
}

void crowd_rig_skin_matrices(const crowd_rig *rig, const float *global, float *skin)
{
    for (uint32_t b = 0; b < rig->bone_count; b++)
        cb_mat4_mul(skin + 16 * b, global + 16 * b, rig->bones[b].inverse_bind);
}
