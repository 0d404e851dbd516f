/* The humanoid's six clips, computed analytically at any time.
 *
 * Locomotion (walk, jog, run) starts from the feet: each ankle follows an explicit trajectory
 * in the character's frame — planted, it slides backwards in a straight line at exactly
 * stride / duration; in swing it arcs forward — and the legs are solved with analytic two-bone
 * IK. A planted foot keeps a fixed orientation, so every sole vertex moves at exactly the body's
 * speed: the stride is known exactly and the feet cannot slip. Everything is a periodic function
 * of the phase with whole-number frequencies, so every clip loops without a seam.
 *
 * The pose is built as global rotations and positions in double precision, then turned into the
 * local TRS the rig model carries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "rig/procgen.h"

/* Gait table: durations, strides and stance fractions chosen so the planted leg never reaches
 * full extension (the IK reach stays below 98% of the leg: see test_procgen). */
static const crowd_gait gaits[] = {
    {"walk", 1.05, 1.30, 0.55, 0.10, 0.975, 0.020},
    {"jog", 0.78, 2.00, 0.40, 0.14, 0.900, 0.030},
    {"run", 0.70, 2.90, 0.32, 0.22, 0.855, 0.035},
};
#define GAIT_COUNT (sizeof gaits / sizeof gaits[0])

const crowd_gait *crowd_humanoid_gaits(uint32_t *count)
{
    if (count)
        *count = GAIT_COUNT;
    return gaits;
}

typedef enum clip_kind { CLIP_IDLE, CLIP_WALK, CLIP_JOG, CLIP_RUN, CLIP_WAVE, CLIP_CHEER, CLIP_KIND_COUNT } clip_kind;

/* Gestures have their own durations; locomotion clips take their gait's. */
static const struct {
    const char *name;
    double duration;
    const crowd_gait *gait;
} clip_table[CLIP_KIND_COUNT] = {
    [CLIP_IDLE] = {"idle", 3.0, NULL},  [CLIP_WALK] = {"walk", 0, &gaits[0]}, [CLIP_JOG] = {"jog", 0, &gaits[1]},
    [CLIP_RUN] = {"run", 0, &gaits[2]}, [CLIP_WAVE] = {"wave", 1.6, NULL},    [CLIP_CHEER] = {"cheer", 1.2, NULL},
};

/* ---- 3x3 rotations (column-major: m[col * 3 + row]) ------------------------------------------ */

typedef struct mat3 {
    double m[9];
} mat3;

static mat3 mat3_identity(void)
{
    return (mat3){{1, 0, 0, 0, 1, 0, 0, 0, 1}};
}

static mat3 mat3_mul(mat3 a, mat3 b)
{
    mat3 r;
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            r.m[c * 3 + row] = a.m[row] * b.m[c * 3] + a.m[3 + row] * b.m[c * 3 + 1] + a.m[6 + row] * b.m[c * 3 + 2];
    return r;
}

static mat3 mat3_transpose(mat3 a)
{
    mat3 r;
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            r.m[c * 3 + row] = a.m[row * 3 + c];
    return r;
}

static void mat3_apply(mat3 a, const double v[3], double out[3])
{
    for (int row = 0; row < 3; row++)
        out[row] = a.m[row] * v[0] + a.m[3 + row] * v[1] + a.m[6 + row] * v[2];
}

static mat3 rot_x(double a)
{
    double c = cos(a), s = sin(a);
    return (mat3){{1, 0, 0, 0, c, s, 0, -s, c}};
}

static mat3 rot_y(double a)
{
    double c = cos(a), s = sin(a);
    return (mat3){{c, 0, -s, 0, 1, 0, s, 0, c}};
}

static mat3 rot_z(double a)
{
    double c = cos(a), s = sin(a);
    return (mat3){{c, s, 0, -s, c, 0, 0, 0, 1}};
}

static void normalize3(double v[3])
{
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    v[0] /= len;
    v[1] /= len;
    v[2] /= len;
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* A rotation whose -Y axis points along `down` and whose +Z axis leans towards `pole`: the
 * orientation of a limb segment that hangs along -Y in the bind pose. */
static mat3 limb_basis(const double down[3], const double pole[3])
{
    double y[3] = {-down[0], -down[1], -down[2]}, z[3], x[3];
    normalize3(y);
    double d = pole[0] * y[0] + pole[1] * y[1] + pole[2] * y[2];
    for (int i = 0; i < 3; i++)
        z[i] = pole[i] - d * y[i];
    normalize3(z);
    cross3(y, z, x);
    mat3 r;
    memcpy(r.m, x, sizeof x);
    memcpy(r.m + 3, y, sizeof y);
    memcpy(r.m + 6, z, sizeof z);
    return r;
}

/* ---- pose under construction ------------------------------------------------------------------ */

typedef struct pose {
    mat3 rot[HB_COUNT];
    double pos[HB_COUNT][3];
} pose;

static void rest_offset(int bone, double out[3])
{
    const humanoid_joint *j = &humanoid_joints[bone];
    for (int i = 0; i < 3; i++)
        out[i] = j->position[i] - humanoid_joints[j->parent].position[i];
}

/* Places `bone` at its parent's end and gives it a global rotation. */
static void place(pose *p, int bone, mat3 global)
{
    int parent = humanoid_joints[bone].parent;
    double offset[3], moved[3];
    rest_offset(bone, offset);
    mat3_apply(p->rot[parent], offset, moved);
    for (int i = 0; i < 3; i++)
        p->pos[bone][i] = p->pos[parent][i] + moved[i];
    p->rot[bone] = global;
}

/* Forward kinematics: global rotation = parent's * local. */
static void fk(pose *p, int bone, mat3 local)
{
    place(p, bone, mat3_mul(p->rot[humanoid_joints[bone].parent], local));
}

/* Two-bone IK for one leg: the ankle reaches `ankle` exactly (when within reach), the knee bends
 * towards `pole`, the foot takes the global rotation `foot`. */
static void solve_leg(pose *p, int thigh, const double ankle[3], const double pole[3], mat3 foot)
{
    int shin = thigh + 1, foot_bone = thigh + 2, toe = thigh + 3;
    place(p, thigh, p->rot[HB_HIPS]); /* positions the hip joint; rotation set below */
    const double *hip = p->pos[thigh];
    const double l1 = HUMANOID_THIGH_LENGTH, l2 = HUMANOID_SHIN_LENGTH;
    double dir[3] = {ankle[0] - hip[0], ankle[1] - hip[1], ankle[2] - hip[2]};
    double dist = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    double reach = fmin(dist, (l1 + l2) * 0.99999);
    normalize3(dir);
    /* Knee: distance a along the hip-ankle line, h off it towards the pole. */
    double a = (l1 * l1 - l2 * l2 + reach * reach) / (2 * reach);
    double h = sqrt(fmax(l1 * l1 - a * a, 0.0));
    double d = pole[0] * dir[0] + pole[1] * dir[1] + pole[2] * dir[2];
    double side[3] = {pole[0] - d * dir[0], pole[1] - d * dir[1], pole[2] - d * dir[2]};
    normalize3(side);
    double knee[3], thigh_dir[3], shin_dir[3];
    for (int i = 0; i < 3; i++) {
        knee[i] = hip[i] + a * dir[i] + h * side[i];
        thigh_dir[i] = knee[i] - hip[i];
        shin_dir[i] = ankle[i] - knee[i];
    }
    p->rot[thigh] = limb_basis(thigh_dir, pole);
    place(p, shin, limb_basis(shin_dir, pole));
    place(p, foot_bone, foot);
    fk(p, toe, mat3_identity());
}

/* ---- body parts shared by the clips ----------------------------------------------------------- */

static void pelvis(pose *p, double x, double height, double z, double yaw, double roll, double pitch)
{
    p->rot[HB_ROOT] = mat3_identity();
    memset(p->pos[HB_ROOT], 0, sizeof p->pos[HB_ROOT]);
    p->rot[HB_HIPS] = mat3_mul(rot_y(yaw), mat3_mul(rot_z(roll), rot_x(pitch)));
    p->pos[HB_HIPS][0] = x;
    p->pos[HB_HIPS][1] = height;
    p->pos[HB_HIPS][2] = z;
}

/* Spine counter-rotates the pelvis yaw so the shoulders stay square; `lean` pitches forward. */
static void spine(pose *p, double pelvis_yaw, double lean, double breath, double head_yaw)
{
    fk(p, HB_SPINE1, mat3_mul(rot_y(-0.35 * pelvis_yaw), rot_x(lean * 0.4)));
    fk(p, HB_SPINE2, mat3_mul(rot_y(-0.35 * pelvis_yaw), rot_x(lean * 0.3 - breath)));
    fk(p, HB_CHEST, mat3_mul(rot_y(-0.3 * pelvis_yaw), rot_x(lean * 0.3 + breath)));
    fk(p, HB_NECK, rot_x(-lean * 0.5));
    fk(p, HB_HEAD, mat3_mul(rot_y(head_yaw), rot_x(-lean * 0.5)));
}

typedef struct arm_pose {
    double clavicle_raise; /* shrug, radians, + raises */
    double abduct;         /* upper arm away from the body, radians */
    double swing;          /* upper arm forward (+) / back (-) */
    double elbow;          /* forearm bend forward */
    double forearm_roll;   /* forearm rotation in the arm's plane (waving) */
    double wrist;          /* hand pitch */
} arm_pose;

/* Arm rotations are written for the left arm; the right mirrors them across x = 0, which flips
 * the sign of rotations about y and z. */
static void arm(pose *p, int clavicle, const arm_pose *a)
{
    double m = clavicle == HB_CLAVICLE_L ? 1.0 : -1.0;
    fk(p, clavicle, rot_z(m * a->clavicle_raise));
    fk(p, clavicle + 1, mat3_mul(rot_z(m * a->abduct), rot_x(-a->swing)));
    fk(p, clavicle + 2, mat3_mul(rot_z(m * a->forearm_roll), rot_x(-a->elbow)));
    fk(p, clavicle + 3, rot_x(-a->wrist));
    fk(p, clavicle + 4, rot_x(-0.2));
}

static void planted_feet(pose *p, double spread, double toe_out)
{
    for (int side = 0; side < 2; side++) {
        double m = side == 0 ? 1.0 : -1.0;
        int thigh = side == 0 ? HB_THIGH_L : HB_THIGH_R;
        double ankle[3] = {m * spread, HUMANOID_ANKLE_HEIGHT, 0.0};
        double pole[3] = {m * 0.15, 0.0, 1.0};
        solve_leg(p, thigh, ankle, pole, rot_y(m * toe_out));
    }
}

/* ---- the clips -------------------------------------------------------------------------------- */

static double smoothstep01(double s)
{
    return s * s * (3 - 2 * s);
}

/* Ankle position and foot orientation of a leg at its own phase q in [0, 1): planted (sliding
 * back at stride/duration) for q < duty, swinging forward after. */
static void foot_track(const crowd_gait *g, double q, double side_x, double out[3], mat3 *orientation)
{
    double half = g->duty * g->stride / 2;
    out[0] = side_x;
    if (q < g->duty) {
        out[1] = HUMANOID_ANKLE_HEIGHT;
        out[2] = half - g->stride * q;
        *orientation = mat3_identity();
        return;
    }
    double s = (q - g->duty) / (1 - g->duty);
    double lift = g->lift * sin(CB_PI * s) * sin(CB_PI * s);
    out[1] = HUMANOID_ANKLE_HEIGHT + lift;
    /* Forward swing that leaves and lands at most of the stance's backwards speed (no skid at
     * touchdown): smoothstep for the travel plus s(1-s)^6 - (1-s)s^6, whose slope is 1 at both ends
     * and which fades within a few frames. 60% of the speed keeps the overshoot inside the leg's
     * reach. */
    double match = -0.6 * g->stride * (1 - g->duty);
    double ends = s * pow(1 - s, 6) - (1 - s) * pow(s, 6);
    out[2] = -half + 2 * half * smoothstep01(s) + match * ends;
    /* Toe down after push-off, toe up before landing. Proportional to the current lift, so the toe
     * (0.2 m ahead of the ankle) and heel never dip below the ground. */
    *orientation = rot_x(3.0 * lift * cos(CB_PI * s));
}

static void locomotion(pose *p, const crowd_gait *g, double phase)
{
    double w = 2 * CB_PI * phase;
    bool airborne = g->duty < 0.5;
    /* Walking vaults over the stance leg (highest mid-stance); running is lowest mid-stance. */
    double peak = g->duty / 2 + (airborne ? 0.25 : 0.0);
    double height = g->pelvis_height + g->bob * cos(4 * CB_PI * (phase - peak));
    double yaw = -0.10 * cos(w);
    double sway = 0.018 * cos(w - CB_PI * g->duty) * (airborne ? 0.5 : 1.0);
    double lean = 0.05 + 0.05 * g->stride / g->duration / 4.0;
    pelvis(p, sway, height, 0.0, yaw, -0.04 * sin(w), lean * 0.5);
    spine(p, yaw, lean, 0.0, 0.0);

    double swing = 0.18 + 0.09 * g->stride;
    double elbow = airborne ? 1.35 : 0.35;
    arm_pose left = {0.02, 0.10, -swing * cos(w), elbow + 0.2 * sin(w), 0.0, 0.1};
    arm_pose right = {0.02, 0.10, swing * cos(w), elbow - 0.2 * sin(w), 0.0, 0.1};
    arm(p, HB_CLAVICLE_L, &left);
    arm(p, HB_CLAVICLE_R, &right);

    for (int side = 0; side < 2; side++) {
        double m = side == 0 ? 1.0 : -1.0;
        double q = fmod(phase + 0.5 * side, 1.0);
        double ankle[3];
        mat3 foot;
        foot_track(g, q, m * 0.09, ankle, &foot);
        double pole[3] = {m * 0.1, 0.0, 1.0};
        solve_leg(p, side == 0 ? HB_THIGH_L : HB_THIGH_R, ankle, pole, foot);
    }
}

static void idle(pose *p, double phase)
{
    double w = 2 * CB_PI * phase;
    pelvis(p, 0.02 * cos(w), 1.02 + 0.004 * sin(2 * w), 0.0, 0.03 * sin(w), 0.02 * cos(w), 0.02);
    spine(p, 0.0, 0.02, 0.015 * sin(3 * w), 0.18 * sin(w));
    arm_pose left = {0.0, 0.12, 0.03 * sin(w), 0.12, 0.0, 0.05};
    arm_pose right = {0.0, 0.12, -0.03 * sin(w), 0.12, 0.0, 0.05};
    arm(p, HB_CLAVICLE_L, &left);
    arm(p, HB_CLAVICLE_R, &right);
    planted_feet(p, 0.10, 0.12);
}

static void wave(pose *p, double phase)
{
    double w = 2 * CB_PI * phase;
    pelvis(p, -0.015, 1.02, 0.0, 0.05, -0.02, 0.0);
    spine(p, 0.0, -0.02, 0.01 * sin(w), -0.1);
    arm_pose left = {0.0, 0.12, 0.0, 0.15, 0.0, 0.05};
    arm_pose right = {0.25, 2.35, 0.35, 0.25, 0.75 + 0.38 * sin(3 * w), 0.0};
    arm(p, HB_CLAVICLE_L, &left);
    arm(p, HB_CLAVICLE_R, &right);
    planted_feet(p, 0.10, 0.12);
}

static void cheer(pose *p, double phase)
{
    double w = 2 * CB_PI * phase;
    double pump = 0.5 - 0.5 * cos(2 * w); /* two pumps per cycle */
    pelvis(p, 0.0, 1.015 - 0.05 * pump, 0.0, 0.0, 0.0, 0.04 * pump);
    spine(p, 0.0, -0.04, 0.0, 0.12 * sin(w));
    arm_pose left = {0.3 + 0.1 * pump, 2.55 - 0.2 * pump, 0.2, 0.2 + 0.9 * pump, 0.0, 0.0};
    arm_pose right = left;
    arm(p, HB_CLAVICLE_L, &left);
    arm(p, HB_CLAVICLE_R, &right);
    planted_feet(p, 0.11, 0.12);
}

static void build_pose(clip_kind kind, double phase, pose *p)
{
    switch (kind) {
    case CLIP_IDLE:
        idle(p, phase);
        break;
    case CLIP_WAVE:
        wave(p, phase);
        break;
    case CLIP_CHEER:
        cheer(p, phase);
        break;
    default:
        locomotion(p, clip_table[kind].gait, phase);
        break;
    }
}

/* Global rotations -> local TRS. Bind rotations are identity, so local translations are the rest
 * offsets, except the hips', which carry the pelvis motion. */
static void to_local(const crowd_rig *rig, const pose *p, crowd_trs *out)
{
    for (int b = 0; b < HB_COUNT; b++) {
        int parent = humanoid_joints[b].parent;
        mat3 local = parent >= 0 ? mat3_mul(mat3_transpose(p->rot[parent]), p->rot[b]) : p->rot[b];
        double q[4];
        cb_quat_from_basis(local.m, local.m + 3, local.m + 6, q);
        crowd_trs *t = &out[b];
        for (int i = 0; i < 4; i++)
            t->rotation[i] = (float)q[i];
        for (int i = 0; i < 3; i++) {
            t->translation[i] = rig->bones[b].rest.translation[i];
            t->scale[i] = 1.0f;
        }
    }
    for (int i = 0; i < 3; i++)
        out[HB_HIPS].translation[i] = (float)p->pos[HB_HIPS][i];
}

static void humanoid_sample(const crowd_rig *rig, uint32_t clip, double time, crowd_trs *out, float *morph_weights)
{
    (void)morph_weights;
    const crowd_rig_clip *c = &rig->clips[clip];
    double phase = (time - c->start) / c->duration;
    phase -= floor(phase);
    const clip_kind *kinds = rig->sampler_data;
    pose p;
    build_pose(kinds[clip], phase, &p);
    to_local(rig, &p, out);
}

crowd_result humanoid_build_clips(crowd_rig *rig, crowd_error *error)
{
    rig->clips = crowd_calloc(CLIP_KIND_COUNT, sizeof *rig->clips);
    clip_kind *kinds = crowd_malloc(CLIP_KIND_COUNT * sizeof *kinds);
    rig->sampler_data = kinds;
    rig->sampler_free = crowd_free_hook; /* allocated through the hooks: never libc free */
    if (!rig->clips || !kinds)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "humanoid: out of memory");
    rig->clip_count = CLIP_KIND_COUNT;
    rig->sample = humanoid_sample;
    for (int k = 0; k < CLIP_KIND_COUNT; k++) {
        crowd_rig_clip *c = &rig->clips[k];
        kinds[k] = (clip_kind)k;
        if (!(c->name = crowd_strdup(clip_table[k].name)))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "humanoid: out of memory");
        c->start = 0.0;
        const crowd_gait *gait = clip_table[k].gait;
        c->duration = gait ? gait->duration : clip_table[k].duration;
        c->loop = true;
        c->stride_truth = gait ? gait->stride : 0.0;
    }
    return CROWD_OK;
}
