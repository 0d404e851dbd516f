/* Animations -> clips, and the rig's sampler: at any time, every bone's local TRS and every morph
 * weight, evaluated straight from the glTF keyframes (no resampling, so the baker's frames are
 * the file's curves). The sampler owns the key arrays; the document may go. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_build.h"

/* One channel bound to the rig: a bone's T/R/S or a range of morph weights. */
typedef struct binding {
    const gltf_sampler *sampler;
    uint32_t path;
    uint32_t target; /* bone, or first rig morph target */
} binding;

typedef struct clip_bindings {
    uint32_t count;
    binding *items;
} clip_bindings;

typedef struct rig_sampler {
    gltf_animation *anims;
    uint32_t anim_count;
    clip_bindings *clips;   /* rig clip_count */
    float *default_weights; /* morph_target_count */
    double *wrap;           /* per clip: key interval added to close a loop one sample short, or 0 */
    double *travel;         /* per clip: xyz the root moves over a root-motion cycle (removed), or 0 */
    double *seam;           /* per clip: seconds over which a loop's seam is blended away (rule d), or 0 */
} rig_sampler;

static void sampler_free(void *data)
{
    rig_sampler *s = data;
    if (!s)
        return;
    gltf_animations_free(s->anims, s->anim_count);
    for (uint32_t c = 0; s->clips && c < s->anim_count; c++)
        crowd_free(s->clips[c].items);
    crowd_free(s->clips);
    crowd_free(s->default_weights);
    crowd_free(s->wrap);
    crowd_free(s->travel);
    crowd_free(s->seam);
    crowd_free(s);
}

/* One binding's value at `time`; past the clip's last key of a loop closed by one key interval
 * (see detect_loops), the way from the last key back to the first, as every other step. */
static void eval_binding(const rig_sampler *s, const crowd_rig *rig, uint32_t clip, const binding *bd, double time,
                         float *out)
{
    bool rotation = bd->path == GLTF_PATH_ROTATION;
    const crowd_rig_clip *c = &rig->clips[clip];
    double end = c->start + c->duration - (s->wrap ? s->wrap[clip] : 0.0);
    if (!s->wrap || s->wrap[clip] <= 0.0 || time <= end) {
        gltf_sampler_eval(bd->sampler, time, rotation, out);
        return;
    }
    float first[CROWD_GLTF_MAX_MORPH_TARGETS];
    uint32_t width =
        bd->sampler->width < CROWD_GLTF_MAX_MORPH_TARGETS ? bd->sampler->width : CROWD_GLTF_MAX_MORPH_TARGETS;
    double u = fmin(1.0, (time - end) / s->wrap[clip]);
    gltf_sampler_eval(bd->sampler, end, rotation, out);
    gltf_sampler_eval(bd->sampler, c->start, rotation, first);
    double dot = 0.0;
    for (uint32_t i = 0; rotation && i < 4; i++)
        dot += (double)out[i] * first[i];
    double sign = dot < 0.0 ? -1.0 : 1.0, norm = 0.0; /* the short way round */
    for (uint32_t i = 0; i < width; i++) {
        out[i] = (float)((1 - u) * out[i] + u * sign * first[i]);
        norm += (double)out[i] * out[i];
    }
    for (uint32_t i = 0; rotation && norm > 0.0 && i < 4; i++)
        out[i] = (float)(out[i] / sqrt(norm));
}

static void sample_authored(const crowd_rig *rig, uint32_t clip, double time, crowd_trs *pose, float *morph)
{
    const rig_sampler *s = rig->sampler_data;
    for (uint32_t b = 0; b < rig->bone_count; b++)
        pose[b] = rig->bones[b].rest;
    if (morph && rig->morph_target_count)
        memcpy(morph, s->default_weights, rig->morph_target_count * sizeof(float));
    const clip_bindings *cb = &s->clips[clip];
    for (uint32_t i = 0; i < cb->count; i++) {
        const binding *bd = &cb->items[i];
        if (bd->path == GLTF_PATH_WEIGHTS) {
            if (morph)
                eval_binding(s, rig, clip, bd, time, morph + bd->target);
            continue;
        }
        crowd_trs *t = &pose[bd->target];
        float *out = bd->path == GLTF_PATH_TRANSLATION ? t->translation
                     : bd->path == GLTF_PATH_ROTATION  ? t->rotation
                                                       : t->scale;
        eval_binding(s, rig, clip, bd, time, out);
    }
    const double *d = s->travel ? s->travel + 3 * (size_t)clip : NULL;
    if (d && (d[0] != 0.0 || d[1] != 0.0 || d[2] != 0.0)) { /* in place: the root's travel taken out */
        const crowd_rig_clip *c = &rig->clips[clip];
        double u = fmin(1.0, fmax(0.0, (time - c->start) / c->duration));
        for (uint32_t b = 0; b < rig->bone_count; b++)
            if (rig->bones[b].parent < 0)
                for (int k = 0; k < 3; k++)
                    pose[b].translation[k] -= (float)(d[k] * u);
    }
}

/* Rule (d)'s seam: over the last `window` seconds the pose is offset, smoothly more, by the way from
 * the clip's last pose to its first, so the cycle ends where it starts. Earlier times are as authored. */
static void blend_seam(const crowd_rig *rig, uint32_t clip, double time, double window, crowd_trs *pose, float *morph)
{
    const crowd_rig_clip *c = &rig->clips[clip];
    double u = (time - (c->start + c->duration - window)) / window;
    if (!(u > 0.0))
        return;
    float w = (float)(u >= 1.0 ? 1.0 : u * u * (3.0 - 2.0 * u));
    uint32_t bones = rig->bone_count, targets = rig->morph_target_count;
    crowd_trs *ends = crowd_malloc(2 * (size_t)bones * sizeof *ends);
    float *weights = crowd_malloc((2 * (size_t)targets + 1) * sizeof *weights);
    if (!ends || !weights) {
        crowd_free(ends), crowd_free(weights);
        return; /* the authored pose: a visible seam rather than a failed sample */
    }
    sample_authored(rig, clip, c->start, ends, weights);
    sample_authored(rig, clip, c->start + c->duration, ends + bones, weights + targets);
    for (uint32_t b = 0; b < bones; b++) {
        const crowd_trs *first = &ends[b], *last = &ends[bones + b];
        crowd_trs *t = &pose[b];
        for (int k = 0; k < 3; k++) {
            t->translation[k] += w * (first->translation[k] - last->translation[k]);
            t->scale[k] += w * (first->scale[k] - last->scale[k]);
        }
        float delta[4], turned[4]; /* conj(last) * first, the short way, scaled by w (nlerp from identity) */
        cb_quat_mul_conj_left(last->rotation, first->rotation, delta);
        float sign = delta[3] < 0.0f ? -1.0f : 1.0f, norm = 0.0f;
        for (int k = 0; k < 4; k++)
            delta[k] = w * sign * delta[k] + (k == 3 ? 1.0f - w : 0.0f), norm += delta[k] * delta[k];
        for (int k = 0; k < 4; k++)
            delta[k] /= sqrtf(norm);
        cb_quat_mul(t->rotation, delta, turned);
        memcpy(t->rotation, turned, sizeof turned);
    }
    for (uint32_t k = 0; morph && k < targets; k++)
        morph[k] += w * (weights[k] - weights[targets + k]);
    crowd_free(ends), crowd_free(weights);
}

static void sample(const crowd_rig *rig, uint32_t clip, double time, crowd_trs *pose, float *morph)
{
    const rig_sampler *s = rig->sampler_data;
    sample_authored(rig, clip, time, pose, morph);
    if (s->seam && s->seam[clip] > 0.0)
        blend_seam(rig, clip, time, s->seam[clip], pose, morph);
}

/* ---- binding channels to bones and morph targets ------------------------------------------------ */

/* Who a node drives: its bones (a chain through `next`, for nodes bound by several skins) and the
 * level-0 mesh instance whose morph targets its `weights` channel sets. Built once per rig so
 * binding stays linear in the number of channels. */
typedef struct node_links {
    int32_t *next;     /* bone -> next bone of the same node, or -1 */
    int32_t *instance; /* node -> level-0 instance, or -1 */
} node_links;

static uint32_t bind_channel(const gltf_builder *b, const node_links *links, const gltf_channel *ch,
                             const gltf_sampler *s, binding *out)
{
    uint32_t n = 0;
    if (ch->node < 0)
        return 0;
    if (ch->path == GLTF_PATH_WEIGHTS) {
        int32_t i = links->instance[ch->node];
        if (i >= 0 && out)
            out[n] = (binding){s, ch->path, b->instances[i].first_target};
        return i >= 0;
    }
    for (int32_t k = b->node_bone[ch->node]; k >= 0; k = links->next[k]) {
        if (out)
            out[n] = (binding){s, ch->path, (uint32_t)k};
        n++;
    }
    return n;
}

static crowd_result bind_clip(const gltf_builder *b, const node_links *links, const gltf_animation *an, uint32_t index,
                              clip_bindings *out, crowd_error *error)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < an->channel_count; c++) {
        uint32_t used = bind_channel(b, links, &an->channels[c], NULL, NULL);
        const gltf_sampler *s = &an->samplers[an->channels[c].sampler];
        if (used && s->implicit_times && s->key_count > 1)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "animations[%u].samplers[%u].input: %u key times are implicit zeros (no bufferView)",
                              index, an->channels[c].sampler, s->key_count);
        n += used;
    }
    if (!n)
        return CROWD_OK; /* a clip that moves nothing of this character */
    if (!(out->items = crowd_malloc(n * sizeof *out->items)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    for (uint32_t c = 0; c < an->channel_count; c++)
        out->count +=
            bind_channel(b, links, &an->channels[c], &an->samplers[an->channels[c].sampler], out->items + out->count);
    return CROWD_OK;
}

static crowd_result make_links(const gltf_builder *b, node_links *links, crowd_error *error)
{
    const crowd_rig *rig = b->rig;
    links->next = crowd_malloc((rig->bone_count + 1) * sizeof *links->next);
    links->instance = crowd_malloc((b->doc->node_count + 1) * sizeof *links->instance);
    if (!links->next || !links->instance)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    for (uint32_t k = 0; k < rig->bone_count; k++)
        links->next[k] = -1;
    for (uint32_t k = 0; k < rig->bone_count; k++) {
        int32_t first = b->node_bone[b->bone_node[k]];
        if (first != (int32_t)k) {
            links->next[k] = links->next[first];
            links->next[first] = (int32_t)k;
        }
    }
    for (uint32_t n = 0; n < b->doc->node_count; n++)
        links->instance[n] = -1;
    for (uint32_t i = 0; i < b->instance_count; i++)
        if (b->instances[i].level == 0)
            links->instance[b->instances[i].node] = (int32_t)i;
    return CROWD_OK;
}

static crowd_result default_weights(const gltf_builder *b, rig_sampler *s, crowd_error *error)
{
    const crowd_rig *rig = b->rig;
    if (!rig->morph_target_count)
        return CROWD_OK;
    if (!(s->default_weights = crowd_calloc(rig->morph_target_count, sizeof(float))))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "morph weights: out of memory");
    for (uint32_t i = 0; i < b->instance_count; i++) {
        const gltf_instance *in = &b->instances[i];
        const gltf_node *node = &b->doc->nodes[in->node];
        const gltf_mesh *mesh = &b->doc->meshes[node->mesh];
        if (in->level || !mesh->target_count)
            continue;
        const float *w = node->weight_count == mesh->target_count ? node->weights : mesh->weights;
        if (node->weight_count && node->weight_count != mesh->target_count)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "nodes[%u].weights: %u weights for %u morph targets",
                              in->node, node->weight_count, mesh->target_count);
        if (w)
            memcpy(s->default_weights + in->first_target, w, mesh->target_count * sizeof(float));
    }
    return CROWD_OK;
}

#define LOOP_EXACT 0.01 /* of the size: the last pose is the first (rules a-c) */
#define LOOP_SEAM 0.05  /* of the size: a seam rule (d) blends away; more is a one-shot */

/* ---- clips ----------------------------------------------------------------------------------- */

static crowd_result name_clip(crowd_rig *rig, uint32_t c, const char *name, crowd_error *error)
{
    char buffer[96];
    if (!name || !*name) {
        snprintf(buffer, sizeof buffer, "animation %u", c);
        name = buffer;
    }
    size_t length = strlen(name) + 16;
    char *unique = crowd_malloc(length);
    if (!unique)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    snprintf(unique, length, "%s", name);
    for (uint32_t k = 2; crowd_rig_find_clip(rig, unique) >= 0; k++)
        snprintf(unique, length, "%s_%u", name, k);
    rig->clips[c].name = unique;
    return CROWD_OK;
}

/* What the loop rules measure with (detect_loops owns it): the rig, the bones that move vertices,
 * scratch for two poses and their matrices, and the bind mesh's size. */
typedef struct loop_probe {
    const crowd_rig *rig;
    const uint8_t *skinned; /* per bone: it moves vertices */
    crowd_trs *pose;
    float *global;   /* three poses' model-space matrices: 3 x 16 floats per bone */
    float *weights;  /* three poses' morph weights */
    double *scratch; /* a value per bone */
    double size;     /* the rest pose's diagonal, skinned (the space the bones move in) */
} loop_probe;

/* What the rules found for one clip. */
typedef struct clip_loop {
    double wrap;        /* the key interval added to its duration (rule b); 0 when none */
    double travel[3];   /* root motion over the cycle (rule c); 0 when none */
    double data_travel; /* how far a bone without vertices travels over the cycle; 0 when none */
    double seam;        /* rule (d): the last pose's distance from the first, fraction of the size */
} clip_loop;

/* The largest model-space distance a bone's origin moves between the poses at times ta and tb
 * (global + 16 * bones holds the second pose's matrices); morph weights are compared separately. */
static double pose_gap(const loop_probe *p, uint32_t c, double ta, double tb, double *weight_gap)
{
    const crowd_rig *rig = p->rig;
    uint32_t bones = rig->bone_count, targets = rig->morph_target_count;
    rig->sample(rig, c, ta, p->pose, p->weights);
    crowd_rig_global_matrices(rig, p->pose, p->global);
    rig->sample(rig, c, tb, p->pose, p->weights + targets);
    crowd_rig_global_matrices(rig, p->pose, p->global + 16 * (size_t)bones);
    double gap = 0.0;
    for (uint32_t k = 0; k < bones; k++) {
        const float *a = p->global + 16 * (size_t)k + 12, *b = p->global + 16 * ((size_t)bones + k) + 12;
        if (p->skinned[k])
            gap = fmax(gap, hypot(hypot(a[0] - b[0], a[1] - b[1]), a[2] - b[2]));
    }
    *weight_gap = 0.0;
    for (uint32_t t = 0; t < targets; t++)
        *weight_gap = fmax(*weight_gap, fabsf(p->weights[t] - p->weights[targets + t]));
    return gap;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Rule (c): a root-motion cycle. With the two poses of pose_gap in `global`, the displacement most
 * bones share (the per-axis median: ancestors above the moving root stay put) is the travel; the
 * clip is a cycle that travels when every bone's displacement is that travel within 1 % of the size
 * and the travel is at least 5 % of it. */
/* The displacement most skinned bones share between the two poses of pose_gap (per-axis median:
 * ancestors above a moving root stay put, limbs swing about it). */
static void shared_displacement(const loop_probe *p, double travel[3])
{
    uint32_t bones = p->rig->bone_count;
    const float *global = p->global;
    for (int k = 0; k < 3; k++) {
        uint32_t n = 0;
        for (uint32_t b = 0; b < bones; b++)
            if (p->skinned[b])
                p->scratch[n++] = (double)global[16 * ((size_t)bones + b) + 12 + k] - global[16 * (size_t)b + 12 + k];
        qsort(p->scratch, n, sizeof *p->scratch, compare_double);
        travel[k] = n ? p->scratch[n / 2] : 0.0;
    }
}

static bool root_motion(const loop_probe *p, double tolerance, double travel[3], double *residual)
{
    uint32_t bones = p->rig->bone_count;
    const float *global = p->global;
    shared_displacement(p, travel);
    if (hypot(hypot(travel[0], travel[1]), travel[2]) < 0.05 * p->size) { /* any axis: Z-up files travel along y */
        travel[0] = travel[1] = travel[2] = 0.0;
        return false;
    }
    *residual = 0.0;
    for (uint32_t b = 0; b < bones; b++) {
        if (!p->skinned[b])
            continue; /* bones without vertices (the armature node, a root-motion bone) do not count */
        const float *a = global + 16 * (size_t)b + 12, *e = global + 16 * ((size_t)bones + b) + 12;
        double r[3] = {e[0] - a[0] - travel[0], e[1] - a[1] - travel[1], e[2] - a[2] - travel[2]};
        *residual = fmax(*residual, hypot(hypot(r[0], r[1]), r[2]));
    }
    if (*residual > tolerance * p->size) {
        travel[0] = travel[1] = travel[2] = 0.0;
        return false;
    }
    return true;
}

/* A looping clip whose skinned body stays in place while a bone that carries no vertices (a
 * "root" bone holding the root motion as data, Mannequiny's) travels: that bone's distance over
 * the cycle (between the two poses of pose_gap), or 0. */
static double data_root_travel(const loop_probe *p)
{
    uint32_t bones = p->rig->bone_count;
    double travel = 0.0;
    for (uint32_t b = 0; b < bones; b++) {
        const float *a = p->global + 16 * (size_t)b + 12, *e = p->global + 16 * ((size_t)bones + b) + 12;
        if (!p->skinned[b])
            travel = fmax(travel, hypot(hypot(e[0] - a[0], e[1] - a[1]), e[2] - a[2]));
    }
    return travel >= 0.05 * p->size ? travel : 0.0;
}

/* The key interval at the clip's end: the smallest last step over the samplers with 3+ keys that
 * end where the clip ends; infinite when there is none. */
static double end_step(const gltf_animation *an, const crowd_rig_clip *clip)
{
    double step = INFINITY;
    for (uint32_t i = 0; an && i < an->sampler_count; i++) {
        const gltf_sampler *s = &an->samplers[i];
        if (s->key_count >= 3 && fabs((double)s->times[s->key_count - 1] - (clip->start + clip->duration)) < 1e-4)
            step = fmin(step, (double)s->times[s->key_count - 1] - s->times[s->key_count - 2]);
    }
    return step;
}

/* Rule (b): with the first and last poses of pose_gap in `global`, the pose one key step before the
 * end goes in the third slot; the cycle is one key short when every skinned bone's way back from
 * the last pose to the first is at most 1.5x its own last step (plus 1 % of the size), and the morph
 * weights' likewise. Bone by bone, so a seam (rule d) in a fast cycle is not taken for a key. */
static bool one_key_short(const loop_probe *p, uint32_t c, double step)
{
    const crowd_rig *rig = p->rig;
    const crowd_rig_clip *clip = &rig->clips[c];
    uint32_t bones = rig->bone_count, targets = rig->morph_target_count;
    rig->sample(rig, c, clip->start + clip->duration - step, p->pose, p->weights + 2 * (size_t)targets);
    crowd_rig_global_matrices(rig, p->pose, p->global + 32 * (size_t)bones);
    for (uint32_t k = 0; k < bones; k++) {
        const float *first = p->global + 16 * (size_t)k + 12, *last = p->global + 16 * ((size_t)bones + k) + 12;
        const float *before = p->global + 16 * (2 * (size_t)bones + k) + 12;
        double back = hypot(hypot(first[0] - last[0], first[1] - last[1]), first[2] - last[2]);
        double own = hypot(hypot(last[0] - before[0], last[1] - before[1]), last[2] - before[2]);
        if (p->skinned[k] && back > 1.5 * own + LOOP_EXACT * p->size)
            return false;
    }
    for (uint32_t t = 0; t < targets; t++) {
        float first = p->weights[t], last = p->weights[targets + t], before = p->weights[2 * (size_t)targets + t];
        if (fabsf(first - last) > 1.5f * fabsf(last - before) + 0.01f)
            return false;
    }
    return true;
}

/* The rules gltf.h states: a clip loops when its last pose is its first (bones within 1 % of the
 * rest pose's size, morph weights within 0.01), or when it is a root-motion cycle (root_motion), or
 * when the way back from the last key to the first is no longer than 1.5x the clip's last key step
 * (a cycle exported one sample short: that key interval is added to its duration and the sampler
 * closes it), or when the last pose is within 5 % of the first, with or without root motion (a seam
 * the sampler blends away; out->seam says how far). */
static bool clip_loops(const loop_probe *p, const gltf_animation *an, uint32_t c, clip_loop *out)
{
    const crowd_rig_clip *clip = &p->rig->clips[c];
    *out = (clip_loop){0};
    if (!(clip->duration > 0))
        return false;
    double weight_gap, residual;
    double gap = pose_gap(p, c, clip->start, clip->start + clip->duration, &weight_gap);
    if (gap <= LOOP_EXACT * p->size && weight_gap <= 0.01) {
        out->data_travel = data_root_travel(p);
        return true;
    }
    if (weight_gap <= 0.01 && root_motion(p, LOOP_EXACT, out->travel, &residual))
        return true;
    if (weight_gap <= LOOP_SEAM && root_motion(p, LOOP_SEAM, out->travel, &residual)) {
        out->seam = residual / p->size; /* rule (d) after (c): a root-motion cycle with a seam */
        return true;
    }
    double step = end_step(an, clip);
    double end_travel = data_root_travel(p);
    if (isfinite(step) && step > 0.0 && step <= 0.25 * clip->duration && gap <= 0.25 * p->size &&
        one_key_short(p, c, step)) {
        out->wrap = step;
        out->data_travel = end_travel * (clip->duration + step) / clip->duration; /* the last step's share too */
        return true;
    }
    if (gap <= LOOP_SEAM * p->size && weight_gap <= LOOP_SEAM) { /* rule (d): a cycle a few percent off */
        out->seam = gap / p->size;
        out->data_travel = end_travel;
        return true;
    }
    return false;
}

/* The diagonal of the rest pose as skinned: the bones move in this space, which is not the bind
 * mesh's when the inverse binds carry a unit (a centimetre mesh under a 0.01-scaled armature). */
static double rest_size(const crowd_rig *rig, const float *skin)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        float p[3] = {0, 0, 0};
        for (uint32_t i = 0; i < rig->influence_count; i++) {
            size_t k = (size_t)v * rig->influence_count + i;
            float w = rig->weights[k], q[3];
            if (!(w > 0.0f) || rig->joints[k] >= rig->bone_count)
                continue;
            cb_mat4_transform_point(skin + 16 * (size_t)rig->joints[k], rig->positions + 3 * (size_t)v, q);
            for (int a = 0; a < 3; a++)
                p[a] += w * q[a];
        }
        for (int a = 0; a < 3; a++)
            lo[a] = fminf(lo[a], p[a]), hi[a] = fmaxf(hi[a], p[a]);
    }
    double size = hypot(hypot(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
    return isfinite(size) && size > 0.0 ? size : 1.0;
}

static void mark_skinned_bones(const crowd_rig *rig, uint8_t *skinned)
{
    size_t influences = (size_t)rig->vertex_count * rig->influence_count;
    bool any = false;
    for (size_t i = 0; i < influences; i++)
        if (rig->weights[i] > 0.0f && rig->joints[i] < rig->bone_count)
            skinned[rig->joints[i]] = 1, any = true;
    if (!any)
        memset(skinned, 1, rig->bone_count);
}

/* Records what the rules found for clip c: the rig's loop fields and the sampler's corrections. */
static void keep_loop(crowd_rig *rig, rig_sampler *s, uint32_t c, const clip_loop *found)
{
    crowd_rig_clip *clip = &rig->clips[c];
    const double *d = found->travel;
    s->wrap[c] = found->wrap;
    memcpy(s->travel + 3 * (size_t)c, d, 3 * sizeof *d);
    memcpy(clip->root_motion, d, 3 * sizeof *d);
    clip->duration += found->wrap;
    clip->root_travel = clip->loop ? fmax(hypot(hypot(d[0], d[1]), d[2]), found->data_travel) : 0.0;
    clip->seam = clip->loop ? found->seam : 0.0;
    s->seam[c] = clip->seam > 0.0 ? fmin(0.25 * clip->duration, 0.25) : 0.0;
}

static crowd_result detect_loops(crowd_rig *rig, crowd_error *error)
{
    rig_sampler *s = rig->sampler_data;
    uint32_t clips = rig->clip_count;
    crowd_trs *pose = crowd_malloc(rig->bone_count * sizeof *pose);
    float *global = crowd_malloc((size_t)rig->bone_count * 48 * sizeof(float) + 1);
    float *weights = crowd_calloc(3 * (size_t)rig->morph_target_count + 1, sizeof(float));
    double *wrap = crowd_calloc(clips + 1, sizeof(double)), *seam = crowd_calloc(clips + 1, sizeof(double));
    double *travel = crowd_calloc(3 * (size_t)clips + 1, sizeof(double));
    double *scratch = crowd_malloc(((size_t)rig->bone_count + 1) * sizeof(double));
    uint8_t *skinned = crowd_calloc(rig->bone_count + 1, 1);
    bool ok = pose && global && weights && wrap && seam && travel && scratch && skinned;
    if (ok) {
        mark_skinned_bones(rig, skinned); /* only bones that move vertices decide whether the mesh loops */
        for (uint32_t b = 0; b < rig->bone_count; b++)
            pose[b] = rig->bones[b].rest;
        crowd_rig_global_matrices(rig, pose, global);
        crowd_rig_skin_matrices(rig, global, global + 16 * (size_t)rig->bone_count);
        loop_probe probe = {
            rig, skinned, pose, global, weights, scratch, rest_size(rig, global + 16 * (size_t)rig->bone_count)};
        rig_sampler measured = {.wrap = wrap, .travel = travel, .seam = seam}; /* filled here, used after */
        for (uint32_t c = 0; c < clips; c++) {
            clip_loop found;
            rig->clips[c].loop = clip_loops(&probe, c < s->anim_count ? &s->anims[c] : NULL, c, &found);
            keep_loop(rig, &measured, c, &found);
        }
        /* set last: while measuring, the clips ended at their last key, travelled and kept their seams */
        s->wrap = wrap, s->travel = travel, s->seam = seam;
    }
    crowd_free(pose), crowd_free(global), crowd_free(weights), crowd_free(scratch), crowd_free(skinned);
    if (!ok) {
        crowd_free(wrap), crowd_free(seam), crowd_free(travel);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "clips: out of memory");
    }
    return CROWD_OK;
}

/* A file without animations still bakes: one clip of the rest pose. */
static crowd_result rest_clip(crowd_rig *rig, crowd_error *error)
{
    if (!(rig->clips = crowd_calloc(1, sizeof *rig->clips)) || !(rig->clips[0].name = crowd_malloc(8)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "clips: out of memory");
    strcpy(rig->clips[0].name, "rest");
    rig->clips[0].stride_truth = NAN;
    rig->clip_count = 1;
    return CROWD_OK;
}

crowd_result gltf_build_clips(gltf_builder *b, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    gltf_doc *doc = b->doc;
    rig_sampler *s = crowd_calloc(1, sizeof *s);
    if (!s)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    rig->sample = sample;
    rig->sampler_data = s;
    rig->sampler_free = sampler_free;
    uint32_t count = doc->animation_count;
    s->anims = doc->anims; /* the key arrays move to the sampler */
    s->anim_count = count;
    doc->anims = NULL;
    doc->animation_count = 0;
    crowd_result r = default_weights(b, s, error);
    if (r != CROWD_OK)
        return r;
    if (!(s->clips = crowd_calloc(count + 1, sizeof *s->clips)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    if (!count)
        return rest_clip(rig, error);
    if (!(rig->clips = crowd_calloc(count, sizeof *rig->clips)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    node_links links = {0};
    r = make_links(b, &links, error);
    for (uint32_t c = 0; c < count && r == CROWD_OK; c++) {
        const gltf_animation *an = &s->anims[c];
        rig->clips[c].start = an->start;
        rig->clips[c].duration = an->end - an->start;
        rig->clips[c].stride_truth = NAN;
        for (uint32_t k = 0; k < an->sampler_count; k++)
            if (an->samplers[k].key_count > rig->clips[c].key_count)
                rig->clips[c].key_count = an->samplers[k].key_count;
        r = name_clip(rig, c, an->name, error);
        rig->clip_count = c + 1;
        if (r == CROWD_OK)
            r = bind_clip(b, &links, an, c, &s->clips[c], error);
    }
    crowd_free(links.next);
    crowd_free(links.instance);
    /* the borrowed names point into the JSON, which is about to go */
    for (uint32_t c = 0; c < count; c++)
        s->anims[c].name = NULL;
    return r == CROWD_OK ? detect_loops(rig, error) : r;
}
