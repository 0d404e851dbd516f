/* The humanoid's skeleton, sockets and recolourable regions. */
#include <stdlib.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "rig/procgen.h"

#define L(x, y, z)    \
    {                 \
        (x), (y), (z) \
    }
#define R(x, y, z)     \
    {                  \
        -(x), (y), (z) \
    }

const humanoid_joint humanoid_joints[HB_COUNT] = {
    [HB_ROOT] = {"root", -1, L(0, 0, 0)},
    [HB_HIPS] = {"hips", HB_ROOT, L(0, 1.06, 0)},
    [HB_SPINE1] = {"spine1", HB_HIPS, L(0, 1.14, 0)},
    [HB_SPINE2] = {"spine2", HB_SPINE1, L(0, 1.25, 0)},
    [HB_CHEST] = {"chest", HB_SPINE2, L(0, 1.36, 0)},
    [HB_NECK] = {"neck", HB_CHEST, L(0, 1.55, 0)},
    [HB_HEAD] = {"head", HB_NECK, L(0, 1.64, 0)},
    [HB_CLAVICLE_L] = {"clavicle_l", HB_CHEST, L(0.04, 1.50, 0)},
    [HB_UPPER_ARM_L] = {"upper_arm_l", HB_CLAVICLE_L, L(0.20, 1.50, 0)},
    [HB_FOREARM_L] = {"forearm_l", HB_UPPER_ARM_L, L(0.22, 1.20, 0)},
    [HB_HAND_L] = {"hand_l", HB_FOREARM_L, L(0.24, 0.94, 0)},
    [HB_FINGERS_L] = {"fingers_l", HB_HAND_L, L(0.25, 0.86, 0)},
    [HB_CLAVICLE_R] = {"clavicle_r", HB_CHEST, R(0.04, 1.50, 0)},
    [HB_UPPER_ARM_R] = {"upper_arm_r", HB_CLAVICLE_R, R(0.20, 1.50, 0)},
    [HB_FOREARM_R] = {"forearm_r", HB_UPPER_ARM_R, R(0.22, 1.20, 0)},
    [HB_HAND_R] = {"hand_r", HB_FOREARM_R, R(0.24, 0.94, 0)},
    [HB_FINGERS_R] = {"fingers_r", HB_HAND_R, R(0.25, 0.86, 0)},
    [HB_THIGH_L] = {"thigh_l", HB_HIPS, L(0.095, 1.01, 0)},
    [HB_SHIN_L] = {"shin_l", HB_THIGH_L, L(0.095, 0.54, 0)},
    [HB_FOOT_L] = {"foot_l", HB_SHIN_L, L(0.095, 0.08, 0)},
    [HB_TOE_L] = {"toe_l", HB_FOOT_L, L(0.095, 0.03, 0.14)},
    [HB_THIGH_R] = {"thigh_r", HB_HIPS, R(0.095, 1.01, 0)},
    [HB_SHIN_R] = {"shin_r", HB_THIGH_R, R(0.095, 0.54, 0)},
    [HB_FOOT_R] = {"foot_r", HB_SHIN_R, R(0.095, 0.08, 0)},
    [HB_TOE_R] = {"toe_r", HB_FOOT_R, R(0.095, 0.03, 0.14)},
};

typedef struct socket_def {
    const char *name;
    int bone;
    float offset[3]; /* translation in the bone's space (bind rotations are identity) */
} socket_def;

static const socket_def humanoid_sockets[] = {
    {"head", HB_HEAD, {0.0f, 0.185f, 0.005f}}, /* top of the skull: caps, hats, balloons' strings */
    {"hand_l", HB_HAND_L, {0.005f, -0.07f, 0.0f}},
    {"hand_r", HB_HAND_R, {-0.005f, -0.07f, 0.0f}},
    {"back", HB_CHEST, {0.0f, 0.02f, -0.13f}},
};

typedef struct region_def {
    const char *name;
    uint32_t count;
    uint8_t colors[8][4];
} region_def;

static const region_def humanoid_regions[HR_COUNT] = {
    [HR_SKIN] = {"skin",
                 6,
                 {{241, 194, 167, 255},
                  {224, 172, 138, 255},
                  {198, 134, 96, 255},
                  {161, 102, 70, 255},
                  {120, 74, 50, 255},
                  {86, 54, 38, 255}}},
    [HR_SHIRT] = {"shirt",
                  8,
                  {{230, 230, 225, 255},
                   {200, 60, 50, 255},
                   {60, 110, 190, 255},
                   {70, 150, 80, 255},
                   {235, 190, 60, 255},
                   {120, 70, 150, 255},
                   {240, 130, 50, 255},
                   {60, 60, 70, 255}}},
    [HR_PANTS] = {"pants",
                  6,
                  {{50, 60, 90, 255},
                   {40, 40, 45, 255},
                   {110, 90, 70, 255},
                   {150, 140, 120, 255},
                   {70, 80, 60, 255},
                   {120, 40, 40, 255}}},
    [HR_SHOES] = {"shoes", 4, {{40, 30, 25, 255}, {230, 230, 230, 255}, {90, 60, 40, 255}, {30, 30, 40, 255}}},
    [HR_HAIR] = {"hair",
                 5,
                 {{40, 28, 20, 255}, {90, 60, 30, 255}, {200, 160, 90, 255}, {20, 20, 20, 255}, {150, 70, 40, 255}}},
};

char *crowd_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = crowd_malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

static void translation_matrix(float m[16], float x, float y, float z)
{
    cb_mat4_identity(m);
    m[12] = x;
    m[13] = y;
    m[14] = z;
}

crowd_result humanoid_build_skeleton(crowd_rig *rig, crowd_error *error)
{
    const uint32_t socket_count = sizeof humanoid_sockets / sizeof humanoid_sockets[0];
    rig->bones = crowd_calloc(HB_COUNT, sizeof *rig->bones);
    rig->sockets = crowd_calloc(socket_count, sizeof *rig->sockets);
    rig->regions_info = crowd_calloc(HR_COUNT, sizeof *rig->regions_info);
    if (!rig->bones || !rig->sockets || !rig->regions_info)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "humanoid: out of memory");
    rig->bone_count = HB_COUNT;
    rig->socket_count = socket_count;
    rig->region_count = HR_COUNT;

    for (int b = 0; b < HB_COUNT; b++) {
        const humanoid_joint *j = &humanoid_joints[b];
        crowd_rig_bone *bone = &rig->bones[b];
        if (!(bone->name = crowd_strdup(j->name)))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "humanoid: out of memory");
        bone->parent = j->parent;
        const double *parent_pos = j->parent >= 0 ? humanoid_joints[j->parent].position : (const double[3]){0, 0, 0};
        for (int i = 0; i < 3; i++) {
            bone->rest.translation[i] = (float)(j->position[i] - parent_pos[i]);
            bone->rest.scale[i] = 1.0f;
        }
        bone->rest.rotation[3] = 1.0f;
        translation_matrix(bone->inverse_bind, (float)-j->position[0], (float)-j->position[1], (float)-j->position[2]);
    }
    for (uint32_t s = 0; s < socket_count; s++) {
        const socket_def *d = &humanoid_sockets[s];
        rig->sockets[s].bone = (uint32_t)d->bone;
        translation_matrix(rig->sockets[s].offset, d->offset[0], d->offset[1], d->offset[2]);
        if (!(rig->sockets[s].name = crowd_strdup(d->name)))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "humanoid: out of memory");
    }
    for (int r = 0; r < HR_COUNT; r++) {
        const region_def *d = &humanoid_regions[r];
        crowd_rig_region *region = &rig->regions_info[r];
        region->name = crowd_strdup(d->name);
        region->palette = crowd_malloc(d->count * sizeof *region->palette);
        if (!region->name || !region->palette)
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "humanoid: out of memory");
        region->palette_count = d->count;
        memcpy(region->palette, d->colors, d->count * sizeof *region->palette);
    }
    return CROWD_OK;
}
