/* See dress.h. The rig's own sampler keeps playing the undressed character (a shallow copy of the
 * rig with the original rest pose); the wrapper adds the extra clips and then moves the roots by
 * the dressing transform, so mesh, binds and poses stay consistent whatever the source was. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/error.h"
#include "dress.h"

#define PI 3.14159265358979323846

enum {
    EXTRA_POSE,
    EXTRA_ROLL,
    EXTRA_FLY,
    EXTRA_OPEN_WALK,
    EXTRA_ROOT_WALK,
    EXTRA_SEAM_WALK,
    EXTRA_LOW_FLY,
    EXTRA_KINDS
};

typedef struct dress_state {
    crowd_rig plain;                  /* the undressed rig, shallow: its sampler, its own rest pose */
    float m[16], q[4], s;             /* the dressing: m = translate * rotate(q) * scale(s) */
    uint32_t plain_clips;             /* clips below this are the source's */
    uint32_t extra_kind[EXTRA_KINDS]; /* kind of clip plain_clips + k */
    uint32_t idle, wave, walk;        /* what the extras start from */
    bool has_walk;
    double height; /* of the undressed bind mesh along +Y, its own units */
} dress_state;

static void quat_mul(const float a[4], const float b[4], float out[4])
{
    float r[4] = {
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(out, r, sizeof r);
}

static void axis_quat(float x, float y, float z, double degrees, float q[4])
{
    double half = degrees * PI / 360.0;
    q[0] = (float)(x * sin(half)), q[1] = (float)(y * sin(half)), q[2] = (float)(z * sin(half));
    q[3] = (float)cos(half);
}

static void place_root(crowd_trs *t, const dress_state *d)
{
    float p[3];
    cb_mat4_transform_point(d->m, t->translation, p);
    memcpy(t->translation, p, sizeof p);
    quat_mul(d->q, t->rotation, t->rotation);
    for (int k = 0; k < 3; k++)
        t->scale[k] *= d->s;
}

static void dressed_sample(const crowd_rig *rig, uint32_t clip, double time, crowd_trs *pose, float *morph)
{
    const dress_state *d = rig->sampler_data;
    const crowd_rig *plain = &d->plain;
    if (clip < d->plain_clips) {
        plain->sample(plain, clip, time, pose, morph);
    } else {
        uint32_t kind = d->extra_kind[clip - d->plain_clips];
        double u = time / rig->clips[clip].duration, h = d->height;
        if (kind == EXTRA_OPEN_WALK || kind == EXTRA_ROOT_WALK || kind == EXTRA_SEAM_WALK) {
            plain->sample(plain, d->walk, plain->clips[d->walk].start + time - rig->clips[clip].start, pose, morph);
        } else if (kind == EXTRA_FLY || kind == EXTRA_LOW_FLY) {
            const crowd_rig_clip *w = &plain->clips[d->wave];
            plain->sample(plain, d->wave, w->start + fmod(time, w->duration), pose, morph);
        } else if (kind == EXTRA_ROLL) { /* rolling into a stride (a quarter of the walk): another pose */
            uint32_t k = d->has_walk ? d->walk : d->wave;
            const crowd_rig_clip *w = &plain->clips[k];
            plain->sample(plain, k, w->start + 0.25 * u * w->duration, pose, morph);
        } else {
            plain->sample(plain, d->idle, plain->clips[d->idle].start, pose, morph);
        }
        for (uint32_t b = 0; b < rig->bone_count; b++) {
            if (rig->bones[b].parent >= 0)
                continue;
            if (kind == EXTRA_ROLL) { /* once round the X axis, travelling 0.9 heights, dipping 0.3 */
                float r[4];
                axis_quat(1, 0, 0, 360.0 * u, r);
                quat_mul(r, pose[b].rotation, pose[b].rotation);
                pose[b].translation[2] += (float)(0.9 * h * u);
                pose[b].translation[1] -= (float)(0.3 * h * sin(PI * u));
            } else if (kind == EXTRA_FLY) {
                pose[b].translation[1] += (float)(h * (0.6 + 0.06 * sin(2 * PI * u)));
            } else if (kind == EXTRA_ROOT_WALK) { /* root motion: 0.72 heights forward per cycle */
                pose[b].translation[2] += (float)(0.72 * h * u);
            } else if (kind == EXTRA_SEAM_WALK) { /* drifting sideways by 4 % of the height over the cycle */
                pose[b].translation[0] += (float)(0.04 * h * u);
            } else if (kind == EXTRA_LOW_FLY) { /* the lowest point touches y = 0 around u = 0.75 */
                pose[b].translation[1] += (float)(h * 0.25 * (1.0 + sin(2 * PI * u)));
            }
        }
    }
    for (uint32_t b = 0; b < rig->bone_count; b++)
        if (rig->bones[b].parent < 0)
            place_root(&pose[b], d);
}

static void dress_free(void *data)
{
    dress_state *d = data;
    if (!d)
        return;
    if (d->plain.sampler_free)
        d->plain.sampler_free(d->plain.sampler_data);
    free(d->plain.bones);
    free(d);
}

static char *blender_name(const char *name)
{
    const char *bar = strrchr(name, '|');
    name = bar ? bar + 1 : name;
    char *s = malloc(strlen(name) + 10);
    if (!s)
        return NULL;
    snprintf(s, strlen(name) + 10, "Armature|%s", name);
    s[9] = (char)toupper((unsigned char)s[9]);
    return s;
}

static char *copy_text(const char *name)
{
    char *s = malloc(strlen(name) + 1);
    return s ? strcpy(s, name) : NULL;
}

static bool find(const crowd_rig *rig, const char *name, uint32_t *index)
{
    return crowd_match_clip_name((const char *const *)&rig->clips[0].name, sizeof(crowd_rig_clip), rig->clip_count,
                                 name, index);
}

/* Moves the mesh, the binds and the rest pose by the dressing. */
static void dress_mesh(crowd_rig *rig, const dress_state *d)
{
    float inverse[16];
    cb_mat4_invert(inverse, d->m);
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        float p[3];
        cb_mat4_transform_point(d->m, rig->positions + 3 * v, p);
        memcpy(rig->positions + 3 * v, p, sizeof p);
    }
    /* directions: normals (unit, so without the scale) and morph deltas (with it) */
    size_t deltas = (size_t)rig->morph_target_count * rig->vertex_count;
    for (int pass = 0; pass < 3; pass++) {
        float *data = pass == 0 ? rig->normals : pass == 1 ? rig->morph_positions : rig->morph_normals;
        size_t n = pass == 0 ? rig->vertex_count : deltas;
        float s = pass == 1 ? 1.0f : d->s;
        for (size_t i = 0; data && i < n; i++) {
            float *x = data + 3 * i, o[3];
            for (int r = 0; r < 3; r++)
                o[r] = (d->m[r] * x[0] + d->m[4 + r] * x[1] + d->m[8 + r] * x[2]) / s;
            memcpy(x, o, sizeof o);
        }
    }
    for (uint32_t b = 0; b < rig->bone_count; b++) {
        float ib[16];
        cb_mat4_mul(ib, rig->bones[b].inverse_bind, inverse);
        memcpy(rig->bones[b].inverse_bind, ib, sizeof ib);
        if (rig->bones[b].parent < 0)
            place_root(&rig->bones[b].rest, d);
    }
}

/* The bind mesh k times larger, the inverse binds scaled back by 1/k: skinned, the same character. */
static void mesh_in_unit(crowd_rig *rig, float k)
{
    for (size_t i = 0; i < 3 * (size_t)rig->vertex_count; i++)
        rig->positions[i] *= k;
    for (size_t i = 0; rig->morph_positions && i < 3 * (size_t)rig->morph_target_count * rig->vertex_count; i++)
        rig->morph_positions[i] *= k;
    float shrink[16], ib[16];
    cb_mat4_identity(shrink);
    shrink[0] = shrink[5] = shrink[10] = 1.0f / k;
    for (uint32_t b = 0; b < rig->bone_count; b++) {
        cb_mat4_mul(ib, rig->bones[b].inverse_bind, shrink);
        memcpy(rig->bones[b].inverse_bind, ib, sizeof ib);
    }
}

crowd_result crowd_dress_rig(crowd_rig *rig, const crowd_dress *dress, crowd_error *error)
{
    dress_state *d = calloc(1, sizeof *d);
    if (!d || !rig->clip_count)
        return free(d), crowd_fail(error, d ? CROWD_ERROR_ARGUMENT : CROWD_ERROR_OUT_OF_MEMORY,
                                   d ? "dress: the rig has no clips" : "dress: out of memory");
    /* what the extras start from: the idle (else the first clip), the wave (else the idle), the walk */
    if (!find(rig, "idle", &d->idle))
        d->idle = 0;
    if (!find(rig, "wave", &d->wave))
        d->wave = d->idle;
    d->has_walk = find(rig, "walk", &d->walk);
    if ((dress->open_walk || dress->root_walk || dress->seam_walk) && !d->has_walk) {
        free(d);
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "dress: walk-open, walk-root and walk-seam need a clip named walk");
    }
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < rig->vertex_count; v++)
        lo = fminf(lo, rig->positions[3 * v + 1]), hi = fmaxf(hi, rig->positions[3 * v + 1]);
    d->height = hi > lo ? hi - lo : 1.0;

    static const float yaw[] = {0, 180, 90, -90}; /* POS_Z, NEG_Z, POS_X, NEG_X: R_y takes +Z there */
    float q_face[4], q_up[4] = {0, 0, 0, 1};
    axis_quat(0, 1, 0, yaw[dress->face <= CROWD_AXIS_NEG_X ? dress->face : 0], q_face);
    if (dress->z_up)
        axis_quat(1, 0, 0, 90.0, q_up);
    quat_mul(q_up, q_face, d->q);
    d->s = dress->scale > 0 ? dress->scale : 1.0f;
    float one[3] = {d->s, d->s, d->s}, t[3] = {0, 0, 0};
    t[dress->z_up ? 2 : 1] = dress->lift * d->s;
    cb_mat4_from_trs(d->m, t, d->q, one);

    /* the clip list: renamed, plus the extras */
    uint32_t extras = 0, kinds[EXTRA_KINDS];
    if (dress->pose)
        kinds[extras++] = EXTRA_POSE;
    if (dress->roll)
        kinds[extras++] = EXTRA_ROLL;
    if (dress->fly)
        kinds[extras++] = EXTRA_FLY;
    if (dress->open_walk)
        kinds[extras++] = EXTRA_OPEN_WALK;
    if (dress->root_walk)
        kinds[extras++] = EXTRA_ROOT_WALK;
    if (dress->seam_walk)
        kinds[extras++] = EXTRA_SEAM_WALK;
    if (dress->low_fly)
        kinds[extras++] = EXTRA_LOW_FLY;
    crowd_rig_clip *clips = realloc(rig->clips, (rig->clip_count + extras) * sizeof *clips);
    crowd_rig_bone *bones = malloc(rig->bone_count * sizeof *bones);
    if (clips)
        rig->clips = clips;
    if (!clips || !bones) {
        free(bones), free(d);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "dress: out of memory");
    }
    memcpy(bones, rig->bones, rig->bone_count * sizeof *bones);
    static const char *const names[] = {"pose", "roll", "fly", "walk_open", "walk_root", "walk_seam", "fly_low"};
    double fps = dress->fps > 0 ? dress->fps : 30.0;
    for (uint32_t k = 0; k < extras; k++) {
        crowd_rig_clip c = {copy_text(names[kinds[k]]), 0.0, 1.0, true, NAN, 0};
        if (kinds[k] == EXTRA_POSE)
            c.key_count = 2;
        else if (kinds[k] == EXTRA_ROLL)
            c.duration = 1.2, c.loop = false;
        else if (kinds[k] == EXTRA_FLY || kinds[k] == EXTRA_LOW_FLY)
            c.duration = clips[d->wave].duration;
        else if (kinds[k] == EXTRA_ROOT_WALK || kinds[k] == EXTRA_SEAM_WALK)
            c.duration = clips[d->walk].duration;
        else { /* the walk's own key times (the writer's m = round(duration x fps) steps), less the last */
            double m = fmax(2.0, round(clips[d->walk].duration * fps));
            c.duration = clips[d->walk].duration * (m - 1.0) / m;
        }
        clips[rig->clip_count + k] = c;
        d->extra_kind[k] = kinds[k];
    }
    d->plain = *rig;
    d->plain.bones = bones;
    d->plain_clips = rig->clip_count;
    rig->clip_count += extras;
    bool named = true;
    for (uint32_t c = 0; c < rig->clip_count; c++) {
        char *renamed = dress->blender_names && clips[c].name ? blender_name(clips[c].name) : NULL;
        if (renamed)
            free(clips[c].name), clips[c].name = renamed;
        named = named && clips[c].name && (!dress->blender_names || renamed);
    }
    dress_mesh(rig, d);
    if (dress->mesh_unit > 0.0f && dress->mesh_unit != 1.0f)
        mesh_in_unit(rig, dress->mesh_unit);
    rig->sample = dressed_sample;
    rig->sampler_data = d;
    rig->sampler_free = dress_free;
    if (!named)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "dress: out of memory"); /* the rig stays freeable */
    return CROWD_OK;
}
