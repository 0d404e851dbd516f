/* What a bake decides about a character it has never seen: each clip's role (from contacts, loop,
 * keys), which way it faces, how tall it is and where the ground is. Works on the frames skinned in
 * the source's own space and then moves them (and the bone texture) into the asset's space, so the
 * skinning itself never needs to know. bake.h states the rules. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bake/bake_job.h"
#include "bake/skin.h"
#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"

#define CONTACT_BAND 0.03 /* of the height: a frame touches the ground when its lowest point is this near */
#define FLIGHT_SUPPORT 5u /* a cycle touching the ground in at most 1 frame of this many can be a flight */
#define STILL 1e-4        /* of the height: frames closer than this are the same pose */
#define BONE_EXACT 1e-3   /* of the height: bone mode within this of the VAT frames is exact */

void crowd_place_point(const float m[16], const float in[3], float out[3])
{
    float p[3] = {in[0], in[1], in[2]};
    for (int r = 0; r < 3; r++)
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

void crowd_place_direction(const float m[16], const float in[3], float out[3])
{
    float p[3] = {in[0], in[1], in[2]};
    double s = sqrt((double)m[0] * m[0] + (double)m[1] * m[1] + (double)m[2] * m[2]); /* uniform scale */
    for (int r = 0; r < 3; r++)
        out[r] = (float)((m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2]) / (s > 0 ? s : 1.0));
}

/* Moves every frame by m: positions, normals, tangents, and the bone texture as m B m^-1 (bind pose
 * and animated pose both in the new space). */
static void move_frames(bake_job *job, const float m[16])
{
    size_t values = (size_t)job->frame_count * job->rig->vertex_count;
    for (size_t i = 0; i < values; i++) {
        crowd_place_point(m, job->positions + 3 * i, job->positions + 3 * i);
        crowd_place_direction(m, job->normals + 3 * i, job->normals + 3 * i);
        if (job->tangents)
            crowd_place_direction(m, job->tangents + 3 * i, job->tangents + 3 * i);
    }
    if (!job->bone_texels)
        return;
    float inverse[16];
    if (!cb_mat4_invert(inverse, m))
        return; /* cannot happen: rotations times a scale in 0.0001..10000 */
    size_t matrices = (size_t)job->frame_count * job->rig->bone_count;
    for (size_t i = 0; i < matrices; i++) {
        float *rows = job->bone_texels + 12 * i, b[16], t[16], out[16];
        cb_mat4_identity(b);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                b[4 * c + r] = rows[4 * r + c];
        cb_mat4_mul(t, b, inverse);
        cb_mat4_mul(out, m, t);
        cb_mat4_to_mat34(out, rows);
    }
}

/* ---- clip roles ------------------------------------------------------------------------------- */

typedef struct rest_info {
    double lowest, top, height; /* of the bind pose, after the up rotation */
    double reach[2][2];         /* its x and z extents: [axis][low, high] */
} rest_info;

static double frame_gap(const float *a, const float *b, uint32_t vertex_count)
{
    double gap = 0.0;
    for (uint32_t v = 0; v < vertex_count; v++)
        gap = fmax(gap, fabs((double)a[3 * v] - b[3 * v]) + fabs((double)a[3 * v + 1] - b[3 * v + 1]) +
                            fabs((double)a[3 * v + 2] - b[3 * v + 2]));
    return gap;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A root-motion cycle's travel per cycle along the ground (x, z after the up rotation, source
 * units), taken out by the sampler (gltf.h, rule c); zero for every other clip. */
static void root_motion_on_ground(const bake_job *job, const baked_clip *bc, double out[2])
{
    const double *m = job->rig->clips[bc->rig_clip].root_motion;
    out[0] = m[0];
    out[1] = job->desc->up == CROWD_UP_POS_Z ? -m[1] : m[2]; /* z' = -y for a Z-up source */
}

static bool gather_evidence(bake_job *job, baked_clip *bc, const rest_info *rest)
{
    const crowd_rig_clip *c = &job->rig->clips[bc->rig_clip];
    uint32_t vc = job->rig->vertex_count, n = bc->frame_count;
    const float *frames = job->positions + (size_t)bc->first_frame * vc * 3;
    double *lowest = crowd_malloc((n + 1) * sizeof(double));
    if (!lowest)
        return false;
    crowd_clip_evidence *e = &bc->evidence;
    memset(e, 0, sizeof *e);
    e->frames = n;
    e->key_count = c->key_count;
    e->distinct_frames = n ? 1 : 0;
    bc->lowest = INFINITY;
    for (uint32_t f = 0; f < n; f++) {
        const float *p = frames + (size_t)f * vc * 3;
        lowest[f] = INFINITY;
        for (uint32_t v = 0; v < vc; v++)
            lowest[f] = fmin(lowest[f], p[3 * v + 1]);
        bc->lowest = fmin(bc->lowest, lowest[f]);
        e->contact_frames += fabs(lowest[f] - rest->lowest) <= CONTACT_BAND * rest->height;
        if (f && frame_gap(p - (size_t)vc * 3, p, vc) > STILL * rest->height)
            e->distinct_frames++;
    }
    if (n > 1)
        e->loop_error = (float)(frame_gap(frames + (size_t)(n - 1) * vc * 3, frames, vc) / rest->height);
    qsort(lowest, n, sizeof *lowest, compare_double);
    bc->ground = lowest[n / 4];
    e->airborne = (float)((bc->ground - rest->lowest) / rest->height);
    crowd_free(lowest);
    double root[2];
    root_motion_on_ground(job, bc, root);
    /* the feet slide consistently, or the root carries the travel (a root-motion cycle) */
    e->travels = bc->stride.locomotion || hypot(root[0], root[1]) > 0.0;
    return true;
}

static crowd_clip_role decide_role(const crowd_rig_clip *c, const crowd_clip_evidence *e, double stride, double height)
{
    if ((e->key_count >= 1 && e->key_count <= 2) || c->duration < 0.1 || e->distinct_frames <= 2)
        return CROWD_ROLE_POSE;
    if (!c->loop)
        return CROWD_ROLE_ACTION;
    /* flight survives a wing tip brushing the ground now and then: support in at most a fifth of
     * the frames, and the clip's ground (a quarter of the frames lower) off the rest pose's ground */
    if (FLIGHT_SUPPORT * e->contact_frames <= e->frames && e->airborne > CONTACT_BAND)
        return CROWD_ROLE_FLIGHT;
    /* a stride of more than 4 heights per cycle is no gait (a spinning triangle "slides" 6 m) */
    if (e->travels && 4 * e->contact_frames >= e->frames && stride <= 4.0 * height)
        return CROWD_ROLE_LOCOMOTION;
    return CROWD_ROLE_IDLE;
}

static crowd_result assign_roles(bake_job *job, const rest_info *rest, crowd_error *error)
{
    const crowd_bake_desc *d = job->desc;
    for (uint32_t i = 0; i < job->clip_count; i++) {
        baked_clip *bc = &job->clips[i];
        if (!gather_evidence(job, bc, rest))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "roles: out of memory");
        double root[2];
        root_motion_on_ground(job, bc, root);
        double stride = hypot(root[0], root[1]) > 0.0 ? hypot(root[0], root[1]) : bc->stride.stride;
        bc->role = decide_role(&job->rig->clips[bc->rig_clip], &bc->evidence, stride, rest->height);
    }
    for (uint32_t k = 0; k < d->clip_role_count; k++) {
        const crowd_bake_clip_role *o = &d->clip_roles[k];
        uint32_t index;
        if (!o->clip || (unsigned)o->role - 1u >= CROWD_ROLE_COUNT - 1u)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd_bake_desc.clip_roles[%u]: needs a clip name and a role", k);
        if (!crowd_match_clip_name((const char *const *)&job->rig->clips[0].name, sizeof(crowd_rig_clip),
                                   job->rig->clip_count, o->clip, &index))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.clip_roles: no clip named \"%s\"", o->clip);
        for (uint32_t i = 0; i < job->clip_count; i++)
            if (job->clips[i].rig_clip == index) {
                job->clips[i].role = o->role;
                job->clips[i].evidence.overridden = true;
            }
    }
    return CROWD_OK;
}

/* ---- orientation, size, ground ------------------------------------------------------------------ */

static crowd_result measure_strides(bake_job *job, crowd_error *error)
{
    size_t frame_values = (size_t)job->rig->vertex_count * 3;
    for (uint32_t i = 0; i < job->clip_count; i++) {
        baked_clip *bc = &job->clips[i];
        const crowd_rig_clip *c = &job->rig->clips[bc->rig_clip];
        if (!crowd_extract_stride(job->positions + bc->first_frame * frame_values, job->rig->vertex_count,
                                  bc->frame_count, c->duration, c->loop, &bc->stride))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "strides: out of memory");
    }
    return CROWD_OK;
}

/* The source's forward: the way a root-motion cycle travels, or, in place, opposite to the planted
 * feet's slide, summed over the locomotion clips (weighted by frames and contacts). */
static crowd_axis detect_forward(const bake_job *job, crowd_decision *decision)
{
    double x = 0.0, z = 0.0;
    for (uint32_t i = 0; i < job->clip_count; i++) {
        const baked_clip *bc = &job->clips[i];
        double speed = hypot(bc->stride.velocity[0], bc->stride.velocity[1]), root[2];
        root_motion_on_ground(job, bc, root);
        double travel = hypot(root[0], root[1]);
        if (bc->role != CROWD_ROLE_LOCOMOTION)
            continue;
        if (travel > 0.0) { /* the root's own travel is the way it walks */
            x += root[0] / travel * bc->frame_count;
            z += root[1] / travel * bc->frame_count;
        } else if (speed > 0.0) {
            x -= bc->stride.velocity[0] / speed * bc->stride.samples;
            z -= bc->stride.velocity[1] / speed * bc->stride.samples;
        }
    }
    if (x == 0.0 && z == 0.0) {
        *decision = CROWD_DECIDED_DEFAULT;
        return CROWD_AXIS_POS_Z;
    }
    *decision = CROWD_DECIDED_DETECTED;
    if (fabs(z) >= fabs(x))
        return z > 0 ? CROWD_AXIS_POS_Z : CROWD_AXIS_NEG_Z;
    return x > 0 ? CROWD_AXIS_POS_X : CROWD_AXIS_NEG_X;
}

/* Rotation about +Y taking the source's forward axis to +Z (column-major). */
static void yaw_to_z(crowd_axis forward, float m[16])
{
    cb_mat4_identity(m);
    float c = 1, s = 0; /* x' = c x + s z, z' = -s x + c z */
    if (forward == CROWD_AXIS_NEG_Z)
        c = -1;
    else if (forward == CROWD_AXIS_POS_X)
        c = 0, s = -1;
    else if (forward == CROWD_AXIS_NEG_X)
        c = 0, s = 1;
    m[0] = c, m[8] = s, m[2] = -s, m[10] = c;
}

/* Hands a bake-time note or warning to the caller's warn callback, when there is one. */
static void say(const bake_job *job, const char *text)
{
    if (job->desc->warn)
        job->desc->warn(job->desc->warn_user, text);
}

static void warn(const bake_job *job, const char *format, double a, double b)
{
    if (!job->desc->warn)
        return;
    char text[320];
    snprintf(text, sizeof text, format, a, b);
    say(job, text);
}

/* Standing height and depth (along the forward axis) in source units, after the up rotation: the
 * first frame of the first idle clip, else the rest pose. */
static void standing_size(const bake_job *job, const rest_info *rest, double *height, double *depth)
{
    uint32_t vc = job->rig->vertex_count;
    int axis = job->notes.forward == CROWD_AXIS_POS_X || job->notes.forward == CROWD_AXIS_NEG_X ? 0 : 2;
    *height = rest->height;
    *depth = rest->reach[axis / 2][1] - rest->reach[axis / 2][0];
    for (uint32_t i = 0; i < job->clip_count; i++) {
        const baked_clip *bc = &job->clips[i];
        if (bc->role != CROWD_ROLE_IDLE)
            continue;
        const float *p = job->positions + (size_t)bc->first_frame * vc * 3;
        double lo = INFINITY, hi = -INFINITY, near = INFINITY, far = -INFINITY;
        for (uint32_t v = 0; v < vc; v++) {
            lo = fmin(lo, p[3 * v + 1]), hi = fmax(hi, p[3 * v + 1]);
            near = fmin(near, p[3 * v + axis]), far = fmax(far, p[3 * v + axis]);
        }
        *height = hi - lo, *depth = far - near;
        return;
    }
}

/* ---- size ------------------------------------------------------------------------------------ */

#define UPRIGHT 0.6        /* standing depth over height below this: an upright character (a person) */
#define PERSON_HEIGHT 1.75 /* metres: what an upright character no common unit explains becomes */

typedef struct size_band {
    double low, high; /* metres */
    const char *kind;
} size_band;

static const size_band upright_band = {0.3, 5.0, "an upright character"};
static const size_band creature_band = {0.05, 12.0, "a creature that is not upright"};
static const size_band person_band = {0.9, 2.6, "a person"};

static const struct source_unit {
    double scale; /* metres per unit */
    const char *name;
} source_units[] = {
    {0.01, "centimetres"}, {0.001, "millimetres"}, {0.0254, "inches"}, {0.3048, "feet"}, {100.0, "hectometres"},
};

static bool in_band(double metres, const size_band *band)
{
    return metres >= band->low && metres <= band->high;
}

/* The scale a file given no size gets: 1 when its height read as metres (glTF's unit) is plausible
 * for its kind; else the first common unit that makes it so (a person's height for an upright
 * character); else a person's height, or 1 m for a creature. *unit names the choice, or NULL. */
static double guess_scale(double height, const size_band *band, bool upright, const char **unit)
{
    *unit = NULL;
    if (!(height > 0.0 && isfinite(height)) || in_band(height, band))
        return 1.0; /* no extent to judge (the baker refuses such a character elsewhere) */
    const size_band *target = upright ? &person_band : band;
    for (size_t k = 0; k < sizeof source_units / sizeof *source_units; k++)
        if (in_band(height * source_units[k].scale, target)) {
            *unit = source_units[k].name;
            return source_units[k].scale;
        }
    double scale = (upright ? PERSON_HEIGHT : 1.0) / height;
    return scale >= 1e-4 && scale <= 1e4 ? scale : 1.0; /* beyond any unit: left as it is (bake.h) */
}

/* No size given: the unit decided from the height and the kind (bake.h, SIZE), said in one line. */
static double default_scale(bake_job *job, double height, double depth)
{
    bool upright = depth < UPRIGHT * height;
    const size_band *band = upright ? &upright_band : &creature_band;
    const char *unit;
    double scale = guess_scale(height, band, upright, &unit);
    if (scale == 1.0)
        return 1.0;
    char text[400];
    snprintf(text, sizeof text,
             "character is %.4g units tall, implausible in metres for %s (%g..%g m): %s%s, %.3g m tall "
             "(crowd_bake_desc.scale 1 keeps the file's size)",
             height, band->kind, band->low, band->high, unit ? "read as " : "no common unit fits: scaled to ",
             unit ? unit : (upright ? "a person's height" : "1 m"), height * scale);
    say(job, text);
    job->notes.scale_decision = CROWD_DECIDED_DETECTED;
    return scale;
}

/* A given scale that makes the character implausible: a warning naming the scale that fits and the
 * height it gives. */
static void check_given_scale(const bake_job *job, double metres, double depth_over_height)
{
    bool upright = depth_over_height < UPRIGHT;
    const size_band *band = upright ? &upright_band : &creature_band;
    const char *unit;
    double fix = guess_scale(metres, band, upright, &unit);
    if (fix == 1.0)
        return;
    char text[400];
    snprintf(text, sizeof text,
             "character is %.4g m tall at crowd_bake_desc.scale %g, implausible for %s (%g..%g m): "
             "crowd_bake_desc.scale %.4g makes it %.3g m (or crowd_bake_desc.height in metres)",
             metres, (double)job->unit_scale, band->kind, band->low, band->high, job->unit_scale * fix, metres * fix);
    say(job, text);
}

/* The y that should become 0 (source units, after the up rotation), and the hover of fliers. */
static double ground_level(bake_job *job, const rest_info *rest, bool *flier)
{
    double ground = INFINITY, lowest = INFINITY;
    bool any_loop = false, all_flight = true;
    for (uint32_t i = 0; i < job->clip_count; i++) {
        const baked_clip *bc = &job->clips[i];
        if (bc->role == CROWD_ROLE_LOCOMOTION || bc->role == CROWD_ROLE_IDLE)
            ground = fmin(ground, bc->ground);
        if (job->rig->clips[bc->rig_clip].loop && bc->role != CROWD_ROLE_POSE) {
            any_loop = true;
            all_flight = all_flight && bc->role == CROWD_ROLE_FLIGHT;
        }
        lowest = fmin(lowest, bc->lowest);
    }
    *flier = any_loop && all_flight;
    if (*flier)
        return fmin(lowest, rest->lowest);
    return isfinite(ground) ? ground : rest->lowest;
}

/* ---- the steps ---------------------------------------------------------------------------------- */

/* 1. up: a +Z-up source turns -90 degrees about X (its +Z becomes +Y, its +Y becomes -Z). */
static void turn_up(bake_job *job, float up[16])
{
    cb_mat4_identity(up);
    job->notes.up = CROWD_AXIS_POS_Y;
    if (job->desc->up == CROWD_UP_POS_Z) {
        up[5] = 0, up[9] = 1, up[6] = -1, up[10] = 0; /* y' = z, z' = -y */
        job->notes.up = CROWD_AXIS_POS_Z;
        move_frames(job, up);
    }
}

/* The rest pose is the skeleton at its rest transforms, skinned: glTF's bind mesh ignores the mesh
 * node's transform, so the bind positions alone can lie on their back (CesiumMan). */
static crowd_result measure_rest(const bake_job *job, const float up[16], rest_info *rest, crowd_error *error)
{
    const crowd_rig *rig = job->rig;
    *rest = (rest_info){INFINITY, -INFINITY, 0, {{INFINITY, -INFINITY}, {INFINITY, -INFINITY}}};
    size_t bones = rig->bone_count, vc = rig->vertex_count;
    crowd_trs *pose = crowd_malloc(bones * sizeof *pose);
    float *global = crowd_malloc(bones * 16 * sizeof(float)), *skin = crowd_malloc(bones * 16 * sizeof(float));
    float *rows = crowd_malloc(bones * 12 * sizeof(float)), *posed = crowd_malloc(vc * 6 * sizeof(float) + 1);
    bool ok = pose && global && skin && rows && posed;
    if (ok) {
        for (size_t b = 0; b < bones; b++)
            pose[b] = rig->bones[b].rest;
        crowd_rig_global_matrices(rig, pose, global);
        crowd_rig_skin_matrices(rig, global, skin);
        crowd_skin_frame(rig, skin, rows, NULL, NULL, posed, posed + 3 * vc, NULL);
        for (size_t v = 0; v < vc; v++) {
            float p[3];
            crowd_place_point(up, posed + 3 * v, p);
            rest->lowest = fmin(rest->lowest, p[1]);
            rest->top = fmax(rest->top, p[1]);
            for (int a = 0; a < 2; a++)
                rest->reach[a][0] = fmin(rest->reach[a][0], p[2 * a]),
                rest->reach[a][1] = fmax(rest->reach[a][1], p[2 * a]);
        }
    }
    crowd_free(pose), crowd_free(global), crowd_free(skin), crowd_free(rows), crowd_free(posed);
    if (!ok)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "placement: out of memory");
    rest->height = rest->top - rest->lowest > 0 ? rest->top - rest->lowest : 1.0;
    return CROWD_OK;
}

/* 3. forward: given, or detected from the locomotion clips. */
static void decide_forward(bake_job *job)
{
    static const crowd_axis given[] = {CROWD_AXIS_POS_Z, CROWD_AXIS_POS_Z, CROWD_AXIS_NEG_Z, CROWD_AXIS_POS_X,
                                       CROWD_AXIS_NEG_X};
    crowd_bake_notes *notes = &job->notes;
    if (job->desc->forward == CROWD_FORWARD_AUTO) {
        notes->forward = detect_forward(job, &notes->forward_decision);
    } else {
        notes->forward = given[job->desc->forward];
        notes->forward_decision = CROWD_DECIDED_GIVEN;
    }
}

/* 4. size: the factor desc->height asks for, or desc->scale (already in job->unit_scale), or the
 * unit the height and the kind say (default_scale). */
static crowd_result decide_scale(bake_job *job, const rest_info *rest, crowd_error *error)
{
    const crowd_bake_desc *d = job->desc;
    crowd_bake_notes *notes = &job->notes;
    double source_height, depth;
    standing_size(job, rest, &source_height, &depth);
    double scale = job->unit_scale;
    notes->scale_decision = CROWD_DECIDED_GIVEN;
    if (d->height != 0.0f) {
        scale = d->height / source_height;
        if (!(scale >= 1e-4 && scale <= 1e4))
            return crowd_fail(
                error, CROWD_ERROR_ARGUMENT,
                "crowd_bake_desc.height %g m: the character is %g source units tall, a scale of %g (outside "
                "0.0001..10000)",
                (double)d->height, source_height, scale);
    } else if (d->scale != 0.0f) {
        check_given_scale(job, source_height * scale, source_height > 0.0 ? depth / source_height : 1.0);
    } else {
        notes->scale_decision = CROWD_DECIDED_DEFAULT;
        scale = default_scale(job, source_height, depth);
    }
    job->unit_scale = (float)scale;
    notes->height = (float)(source_height * job->unit_scale);
    return CROWD_OK;
}

/* 5. ground: the offset along +Y in asset units; *flier when every looping clip flies. */
static double decide_ground(bake_job *job, const rest_info *rest, bool *flier)
{
    const crowd_bake_desc *d = job->desc;
    double offset = 0.0;
    *flier = false;
    if (d->ground == CROWD_GROUND_AUTO) {
        offset = -ground_level(job, rest, flier) * job->unit_scale;
        job->notes.ground_decision = CROWD_DECIDED_DETECTED;
    } else if (d->ground == CROWD_GROUND_OFFSET) {
        offset = d->ground_offset;
        job->notes.ground_decision = CROWD_DECIDED_GIVEN;
    }
    job->notes.ground_offset = (float)offset;
    return offset;
}

/* 6. moves the frames by translate * scale * yaw (the up rotation is already in them) and records
 * the whole placement. */
static void place_frames(bake_job *job, const float up[16], double offset)
{
    float yaw[16], second[16];
    yaw_to_z(job->notes.forward, yaw);
    for (int k = 0; k < 16; k++)
        second[k] = yaw[k] * (k % 4 < 3 && k < 12 ? job->unit_scale : 1.0f);
    second[13] = (float)offset;
    move_frames(job, second);
    cb_mat4_mul(job->placement, second, up);
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 4; col++)
            job->notes.placement[4 * row + col] = job->placement[4 * col + row];
}

/* A one-shot plays as authored; how far it takes the body along the ground (the per-axis median of
 * every vertex's way from its first frame to its last, so swinging limbs do not count) is kept as
 * its root travel, for a caller to move the agent by when it ends. Under 5 % of the height: 0. */
static double one_shot_travel(const bake_job *job, const baked_clip *bc, double *scratch)
{
    uint32_t vc = job->rig->vertex_count;
    if (bc->frame_count < 2 || !vc)
        return 0.0;
    const float *first = job->positions + (size_t)bc->first_frame * vc * 3;
    const float *last = first + (size_t)(bc->frame_count - 1) * vc * 3;
    double moved[2];
    for (int k = 0; k < 2; k++) {
        for (uint32_t v = 0; v < vc; v++)
            scratch[v] = (double)last[3 * v + 2 * k] - first[3 * v + 2 * k];
        qsort(scratch, vc, sizeof *scratch, compare_double);
        moved[k] = scratch[vc / 2];
    }
    double travel = hypot(moved[0], moved[1]);
    return travel >= 0.05 * job->notes.height ? travel : 0.0;
}

/* 7. strides in the asset's units; only locomotion clips keep theirs. Fliers' hover. */
static crowd_result settle_strides(bake_job *job, bool flier, double offset, crowd_error *error)
{
    crowd_result r = measure_strides(job, error);
    if (r != CROWD_OK)
        return r;
    double hover = INFINITY;
    for (uint32_t i = 0; i < job->clip_count; i++) {
        baked_clip *bc = &job->clips[i];
        double root[2];
        root_motion_on_ground(job, bc, root);
        if (bc->role != CROWD_ROLE_LOCOMOTION) {
            bc->stride.locomotion = false;
            bc->stride.stride = 0.0;
        } else if (hypot(root[0], root[1]) > 0.0) { /* the travel the sampler took out is the stride */
            bc->stride.locomotion = true;
            bc->stride.stride = hypot(root[0], root[1]) * job->unit_scale;
        } else if (!bc->stride.locomotion) { /* forced by desc->clip_roles on a clip that does not travel */
            bc->stride.stride = 0.0;
        }
        if (flier && bc->role == CROWD_ROLE_FLIGHT)
            hover = fmin(hover, bc->ground * job->unit_scale + offset);
    }
    job->notes.hover = flier && isfinite(hover) ? (float)hover : 0.0f;
    double *scratch = crowd_malloc(((size_t)job->rig->vertex_count + 1) * sizeof *scratch);
    if (!scratch)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "strides: out of memory");
    for (uint32_t i = 0; i < job->clip_count; i++) {
        baked_clip *bc = &job->clips[i];
        const crowd_rig_clip *c = &job->rig->clips[bc->rig_clip];
        bc->evidence.root_travel =
            (float)(c->loop ? c->root_travel * job->unit_scale : one_shot_travel(job, bc, scratch));
    }
    crowd_free(scratch);
    return CROWD_OK;
}

crowd_result crowd_bake_place(bake_job *job, crowd_error *error)
{
    memset(&job->notes, 0, sizeof job->notes);
    float up[16];
    turn_up(job, up);
    rest_info rest;
    crowd_result r = measure_rest(job, up, &rest, error);
    /* 2. roles, from strides measured in the source's units */
    if (r == CROWD_OK)
        r = measure_strides(job, error);
    if (r == CROWD_OK)
        r = assign_roles(job, &rest, error);
    if (r != CROWD_OK)
        return r;
    decide_forward(job);
    if ((r = decide_scale(job, &rest, error)) != CROWD_OK)
        return r;
    bool flier;
    double offset = decide_ground(job, &rest, &flier);
    place_frames(job, up, offset);
    return settle_strides(job, flier, offset, error);
}

/* ---- bone mode honesty ---------------------------------------------------------------------------- */

void crowd_bake_check_bones(bake_job *job)
{
    const crowd_rig *rig = job->rig;
    crowd_bake_notes *notes = &job->notes;
    notes->bone_mode = CROWD_BONE_MODE_NONE;
    if (!job->bone_texels || !job->skin_joints)
        return;
    size_t bones = rig->bone_count;
    double worst = 0.0;
    for (uint32_t f = 0; f < job->frame_count; f++) {
        const float *texels = job->bone_texels + (size_t)f * bones * 12;
        const float *frame = job->positions + (size_t)f * rig->vertex_count * 3;
        for (uint32_t v = 0; v < rig->vertex_count; v++) {
            float m[12] = {0}, bind[3], p[3];
            for (int k = 0; k < 4; k++) {
                float w = job->skin_weights[4 * v + k] / 65535.0f;
                const float *b = texels + (size_t)job->skin_joints[4 * v + k] * 12;
                for (int e = 0; w != 0.0f && e < 12; e++)
                    m[e] += w * b[e];
            }
            crowd_place_point(job->placement, rig->positions + 3 * (size_t)v, bind);
            for (int r = 0; r < 3; r++)
                p[r] = m[4 * r] * bind[0] + m[4 * r + 1] * bind[1] + m[4 * r + 2] * bind[2] + m[4 * r + 3];
            const float *t = frame + 3 * (size_t)v;
            worst = fmax(worst, sqrt(((double)p[0] - t[0]) * (p[0] - t[0]) + ((double)p[1] - t[1]) * (p[1] - t[1]) +
                                     ((double)p[2] - t[2]) * (p[2] - t[2])));
        }
    }
    notes->bone_error = (float)worst;
    double height = notes->height > 0 ? notes->height : 1.0;
    if (worst <= BONE_EXACT * height) {
        notes->bone_mode = CROWD_BONE_MODE_EXACT;
    } else if (rig->morph_target_count) {
        notes->bone_mode = CROWD_BONE_MODE_UNAVAILABLE;
        warn(job,
             "bone mode cannot play this asset: its morph targets are not in the bone texture (bone mode is "
             "off by up to %.4g m, %.3g%% of the height); the asset records bone mode as unavailable",
             worst, 100.0 * worst / height);
    } else {
        notes->bone_mode = CROWD_BONE_MODE_APPROXIMATE;
        warn(job,
             "bone mode is approximate: more than 4 influences per vertex put it up to %.4g m (%.3g%% of the "
             "height) off the VAT frames; the asset records that error",
             worst, 100.0 * worst / height);
    }
}
