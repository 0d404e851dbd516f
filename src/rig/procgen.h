/* Internal: the procedural humanoid, split over three files that share this header.
 *   procgen_skeleton.c  bones (bind-pose joint positions), sockets, regions and palettes
 *   procgen_mesh.c      the skinned surface: closed tubes per body part
 *   procgen_clips.c     gaits from foot trajectories + two-bone IK, gestures, the sampler
 *
 * Every bone's bind-pose rotation is the identity, so a bone's rest local translation is just the
 * difference of joint positions, and a pose can be built from global rotations directly. */
#ifndef CROWD_RIG_PROCGEN_H
#define CROWD_RIG_PROCGEN_H

#include "crowdbake/rig.h"

enum humanoid_bone {
    HB_ROOT,
    HB_HIPS,
    HB_SPINE1,
    HB_SPINE2,
    HB_CHEST,
    HB_NECK,
    HB_HEAD,
    HB_CLAVICLE_L,
    HB_UPPER_ARM_L,
    HB_FOREARM_L,
    HB_HAND_L,
    HB_FINGERS_L,
    HB_CLAVICLE_R,
    HB_UPPER_ARM_R,
    HB_FOREARM_R,
    HB_HAND_R,
    HB_FINGERS_R,
    HB_THIGH_L,
    HB_SHIN_L,
    HB_FOOT_L,
    HB_TOE_L,
    HB_THIGH_R,
    HB_SHIN_R,
    HB_FOOT_R,
    HB_TOE_R,
    HB_COUNT
};

enum humanoid_region { HR_SKIN, HR_SHIRT, HR_PANTS, HR_SHOES, HR_HAIR, HR_COUNT };

typedef struct humanoid_joint {
    const char *name;
    int parent;
    double position[3]; /* bind pose, model space */
} humanoid_joint;

/* Bind-pose joints, indexed by enum humanoid_bone. Left is +X (the character faces +Z). */
extern const humanoid_joint humanoid_joints[HB_COUNT];

/* Leg geometry the IK and the mesh agree on. */
#define HUMANOID_THIGH_LENGTH 0.47
#define HUMANOID_SHIN_LENGTH 0.46
#define HUMANOID_ANKLE_HEIGHT 0.08

/* Fill the skeleton part of a rig (bones, sockets, regions); the mesh and clips come after. */
crowd_result humanoid_build_skeleton(crowd_rig *rig, crowd_error *error);

/* Fill the mesh part of a rig for the given tessellation density (1 = default). */
crowd_result humanoid_build_mesh(crowd_rig *rig, float density, crowd_error *error);

/* Fill the clips and the sampler. */
crowd_result humanoid_build_clips(crowd_rig *rig, crowd_error *error);

/* strdup for C11, NULL on allocation failure. */
char *crowd_strdup(const char *s);

#endif
