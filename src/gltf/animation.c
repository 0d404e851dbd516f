/* Animations: samplers read into key arrays (times strictly increasing, outputs of the right
 * type and count), channels checked against their targets, and the evaluation of a sampler at
 * any time: LINEAR (slerp for rotations), STEP, CUBICSPLINE with the spec's tangent scaling. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_anim.h"
#include "gltf/gltf_internal.h"

static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};

/* ---- evaluation ------------------------------------------------------------------------------ */

static const float *key_value(const gltf_sampler *s, uint32_t k)
{
    return s->values +
           ((size_t)k * (s->interpolation == GLTF_CUBICSPLINE ? 3 : 1) + (s->interpolation == GLTF_CUBICSPLINE)) *
               s->width;
}

static void slerp(const float *a, const float *b, double u, float *out)
{
    double dot = 0, sign = 1;
    for (int i = 0; i < 4; i++)
        dot += (double)a[i] * b[i];
    if (dot < 0) { /* the shorter way round */
        dot = -dot;
        sign = -1;
    }
    double wa = 1 - u, wb = u;
    if (dot < 0.9995) {
        double theta = acos(dot), st = sin(theta);
        wa = sin((1 - u) * theta) / st;
        wb = sin(u * theta) / st;
    }
    double len = 0, q[4];
    for (int i = 0; i < 4; i++) {
        q[i] = wa * a[i] + wb * sign * b[i];
        len += q[i] * q[i];
    }
    len = sqrt(len);
    for (int i = 0; i < 4; i++)
        out[i] = (float)(q[i] / len);
}

static void hermite(const gltf_sampler *s, uint32_t k, double u, double dt, float *out)
{
    const float *v0 = key_value(s, k), *b0 = v0 + s->width;     /* out-tangent of k */
    const float *v1 = key_value(s, k + 1), *a1 = v1 - s->width; /* in-tangent of k+1 */
    double u2 = u * u, u3 = u2 * u;
    double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    for (uint32_t i = 0; i < s->width; i++)
        out[i] = (float)(h00 * v0[i] + h10 * dt * b0[i] + h01 * v1[i] + h11 * dt * a1[i]);
}

/* Unit to float precision already (every key of a well-formed file): left bit-exact. */
static void normalize_quat(float *q)
{
    double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    if (fabs(len - 1.0) <= 4e-7)
        return;
    for (int i = 0; i < 4; i++)
        q[i] = len > 0 ? (float)(q[i] / len) : (i == 3);
}

/* A time within float resolution of a key is that key: key times are floats, frame times are
 * doubles, and a frame meant to land on a key must get the key's value exactly. */
static bool on_key(double t, float key)
{
    return fabs(t - key) <= 2e-7 * fmax(1.0, fabs(t));
}

void gltf_sampler_eval(const gltf_sampler *s, double t, bool rotation, float *out)
{
    uint32_t n = s->key_count;
    if (n == 1 || t <= s->times[0] || t >= s->times[n - 1] || on_key(t, s->times[0]) || on_key(t, s->times[n - 1])) {
        uint32_t k = (n == 1 || t <= s->times[0] || on_key(t, s->times[0])) ? 0 : n - 1;
        memcpy(out, key_value(s, k), s->width * sizeof(float));
        if (rotation)
            normalize_quat(out);
        return;
    }
    uint32_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->times[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    double dt = (double)s->times[hi] - s->times[lo], u = (t - s->times[lo]) / dt;
    const float *a = key_value(s, lo), *b = key_value(s, hi);
    if (on_key(t, s->times[lo]) || on_key(t, s->times[hi])) {
        memcpy(out, on_key(t, s->times[lo]) ? a : b, s->width * sizeof(float));
    } else if (s->interpolation == GLTF_STEP) {
        memcpy(out, a, s->width * sizeof(float));
    } else if (s->interpolation == GLTF_CUBICSPLINE) {
        hermite(s, lo, u, dt, out);
    } else if (rotation) {
        slerp(a, b, u, out);
    } else {
        for (uint32_t i = 0; i < s->width; i++)
            out[i] = (float)((1 - u) * a[i] + u * b[i]);
    }
    if (rotation)
        normalize_quat(out);
}

/* ---- parsing --------------------------------------------------------------------------------- */

static crowd_result read_input(gltf_doc *doc, gltf_sampler *s, uint32_t input, const char *path, crowd_error *error)
{
    const gltf_accessor *a = &doc->accessors[input];
    if (a->components != 1 || a->component != 5126)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.input: accessors[%u] must be float scalars", path,
                          input);
    if (a->count > CROWD_GLTF_MAX_KEYS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "%s.input: %u keyframes, limit %u", path, a->count,
                          CROWD_GLTF_MAX_KEYS);
    if (!a->has_bounds)
        gltf_warn(doc, "%s.input: accessors[%u] has no min/max (harmless: times are read from the data)", path, input);
    s->key_count = a->count;
    if (!(s->times = crowd_malloc((size_t)a->count * sizeof(float))))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    crowd_result r = gltf_read_floats(doc, input, s->times, path, error);
    /* implicit zeros: checked only if a channel the character uses needs them (clips.c) */
    s->implicit_times = !gltf_accessor_has_bytes(doc, input);
    for (uint32_t k = 0; r == CROWD_OK && !s->implicit_times && k < s->key_count; k++) {
        if (!(s->times[k] >= 0.0f))
            r = crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.input[%u]: time %g is negative or not a number", path,
                           k, (double)s->times[k]);
        else if (k && !(s->times[k] > s->times[k - 1]))
            r = crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.input[%u]: time %g does not increase (previous %g)",
                           path, k, (double)s->times[k], (double)s->times[k - 1]);
    }
    return r;
}

static crowd_result parse_sampler(gltf_doc *doc, gltf_sampler *s, const cJSON *json, const char *path,
                                  crowd_error *error)
{
    if (!cJSON_IsObject(json))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    int32_t input = -1, output = -1;
    const char *interpolation = NULL;
    crowd_result r;
    if ((r = gj_index(json, "input", path, true, doc->accessor_count, "accessors", &input, error)) ||
        (r = gj_index(json, "output", path, true, doc->accessor_count, "accessors", &output, error)) ||
        (r = gj_string(json, "interpolation", path, false, &interpolation, error)))
        return r;
    s->interpolation = GLTF_LINEAR;
    if (interpolation && !strcmp(interpolation, "STEP"))
        s->interpolation = GLTF_STEP;
    else if (interpolation && !strcmp(interpolation, "CUBICSPLINE"))
        s->interpolation = GLTF_CUBICSPLINE;
    else if (interpolation && strcmp(interpolation, "LINEAR"))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "%s.interpolation: \"%.32s\" is not LINEAR, STEP or CUBICSPLINE", path, interpolation);
    s->output = (uint32_t)output;
    if ((r = read_input(doc, s, (uint32_t)input, path, error)))
        return r;
    if (s->interpolation == GLTF_CUBICSPLINE && s->key_count < 2)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.input: CUBICSPLINE needs at least 2 keyframes, found %u",
                          path, s->key_count);
    return CROWD_OK;
}

/* The output accessor's type depends on the channel that uses the sampler. */
static bool output_format_ok(const gltf_accessor *a, uint32_t path)
{
    bool snorm = a->normalized && a->component != 5125;
    if (path == GLTF_PATH_ROTATION)
        return a->components == 4 && a->columns == 1 && (a->component == 5126 || snorm);
    if (path == GLTF_PATH_WEIGHTS)
        return a->components == 1 && (a->component == 5126 || snorm);
    return a->components == 3 && a->columns == 1 && a->component == 5126;
}

static uint32_t node_target_count(const gltf_doc *doc, uint32_t node)
{
    int32_t mesh = doc->nodes[node].mesh;
    return mesh >= 0 ? doc->meshes[mesh].target_count : 0;
}

static crowd_result read_output(gltf_doc *doc, gltf_sampler *s, uint32_t path, uint32_t node, const char *where,
                                crowd_error *error)
{
    const gltf_accessor *a = &doc->accessors[s->output];
    if (!output_format_ok(a, path))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: accessors[%u] has the wrong type for %s", where,
                          s->output, path_names[path]);
    uint32_t width = path == GLTF_PATH_WEIGHTS ? node_target_count(doc, node) : a->components;
    uint64_t expected = (uint64_t)s->key_count * width * (s->interpolation == GLTF_CUBICSPLINE ? 3 : 1);
    if ((uint64_t)a->count * a->components != expected)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: output accessors[%u] has %u values, %llu expected",
                          where, s->output, a->count * a->components, (unsigned long long)expected);
    if (s->values) /* shared by several channels: read once; a second use must agree on the width */
        return s->width == width
                   ? CROWD_OK
                   : crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: sampler used with another width", where);
    s->width = width;
    if (!(s->values = crowd_malloc(expected * sizeof(float) + 1)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", where);
    crowd_result r = gltf_read_floats(doc, s->output, s->values, where, error);
    if (r != CROWD_OK || path != GLTF_PATH_ROTATION)
        return r;
    for (uint32_t k = 0; k < s->key_count; k++) {
        const float *q = key_value(s, k);
        double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
        if (!(len > 1e-6))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: keyframe %u is a zero quaternion", where, k);
        if (fabs(len - 1.0) > 0.01) {
            gltf_warn(doc, "%s: keyframe %u quaternion has length %g (normalised)", where, k, len);
            break;
        }
    }
    return CROWD_OK;
}

static crowd_result parse_target(gltf_doc *doc, gltf_channel *c, const cJSON *json, const char *path,
                                 crowd_error *error)
{
    const cJSON *target;
    const char *name = NULL;
    int32_t node = -1;
    crowd_result r;
    if ((r = gj_object(json, "target", path, true, &target, error)))
        return r;
    char sub[96];
    snprintf(sub, sizeof sub, "%s.target", path);
    if ((r = gj_index(target, "node", sub, false, doc->node_count, "nodes", &node, error)) ||
        (r = gj_string(target, "path", sub, true, &name, error)))
        return r;
    c->path = 4;
    for (uint32_t p = 0; p < 4; p++)
        if (!strcmp(name, path_names[p]))
            c->path = (uint8_t)p;
    if (c->path == 4)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "%s.path: \"%.32s\" is not translation, rotation, scale or weights", sub, name);
    c->node = node; /* -1: a target this reader cannot see (an extension's); the channel is ignored */
    if (node >= 0 && doc->nodes[node].has_matrix)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.node: nodes[%d] has a matrix and cannot be animated",
                          sub, node);
    if (node >= 0 && c->path == GLTF_PATH_WEIGHTS && !node_target_count(doc, (uint32_t)node))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.node: nodes[%d] has no morph targets to weight", sub,
                          node);
    return CROWD_OK;
}

static crowd_result parse_channels(gltf_doc *doc, gltf_animation *an, const cJSON *json, const char *path,
                                   crowd_error *error)
{
    const cJSON *array, *item;
    crowd_result r = gj_array(json, "channels", path, true, CROWD_GLTF_MAX_ARRAY, &array, &an->channel_count, error);
    if (r != CROWD_OK)
        return r;
    if (!(an->channels = crowd_calloc(an->channel_count, sizeof *an->channels)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    uint32_t i = 0;
    cJSON_ArrayForEach(item, array)
    {
        char sub[80];
        snprintf(sub, sizeof sub, "%s.channels[%u]", path, i);
        gltf_channel *c = &an->channels[i++];
        int32_t sampler = -1;
        if (!cJSON_IsObject(item))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", sub);
        if ((r = gj_index(item, "sampler", sub, true, an->sampler_count, "samplers", &sampler, error)) ||
            (r = parse_target(doc, c, item, sub, error)))
            return r;
        c->sampler = (uint32_t)sampler;
        for (uint32_t p = 0; c->node >= 0 && p + 1 < i; p++)
            if (an->channels[p].node == c->node && an->channels[p].path == c->path)
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: animates nodes[%d].%s again (channels[%u])",
                                  sub, c->node, path_names[c->path], p);
        strncat(sub, ".sampler", sizeof sub - strlen(sub) - 1);
        if (c->node >= 0 && (r = read_output(doc, &an->samplers[sampler], c->path, (uint32_t)c->node, sub, error)))
            return r;
    }
    return CROWD_OK;
}

static crowd_result parse_animation(gltf_doc *doc, uint32_t i, const cJSON *json, crowd_error *error)
{
    char path[48];
    snprintf(path, sizeof path, "animations[%u]", i);
    if (!cJSON_IsObject(json))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    gltf_animation *an = &doc->anims[i];
    const cJSON *samplers, *item;
    crowd_result r;
    if ((r = gj_string(json, "name", path, false, &an->name, error)) ||
        (r = gj_array(json, "samplers", path, true, CROWD_GLTF_MAX_ARRAY, &samplers, &an->sampler_count, error)))
        return r;
    if (!(an->samplers = crowd_calloc(an->sampler_count, sizeof *an->samplers)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    uint32_t k = 0;
    cJSON_ArrayForEach(item, samplers)
    {
        char sub[80];
        snprintf(sub, sizeof sub, "%s.samplers[%u]", path, k);
        if ((r = parse_sampler(doc, &an->samplers[k++], item, sub, error)))
            return r;
    }
    if ((r = parse_channels(doc, an, json, path, error)))
        return r;
    an->start = INFINITY;
    an->end = -INFINITY;
    for (uint32_t c = 0; c < an->channel_count; c++) {
        const gltf_sampler *s = &an->samplers[an->channels[c].sampler];
        if (an->channels[c].node < 0)
            continue;
        an->start = fmin(an->start, s->times[0]);
        an->end = fmax(an->end, s->times[s->key_count - 1]);
    }
    if (an->start > an->end)
        an->start = an->end = 0.0;
    /* Key times are floats: 1.05 s is stored as 1.0499999523. Rounded to the microsecond (far
     * above float resolution at these magnitudes), authored durations come back exactly, so
     * frame counts (round(duration x fps)) match the clip the file was made from. */
    if (an->end < 1e3) {
        an->start = round(an->start * 1e6) / 1e6;
        an->end = round(an->end * 1e6) / 1e6;
    }
    return CROWD_OK;
}

crowd_result gltf_parse_animations(gltf_doc *doc, crowd_error *error)
{
    const cJSON *array, *item;
    uint32_t count;
    crowd_result r = gj_array(doc->root, "animations", "root", false, CROWD_MAX_CLIPS, &array, &count, error);
    if (r != CROWD_OK || !count)
        return r;
    if (!(doc->anims = crowd_calloc(count, sizeof *doc->anims)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    doc->animation_count = count;
    uint32_t i = 0;
    cJSON_ArrayForEach(item, array)
    {
        if ((r = parse_animation(doc, i++, item, error)) != CROWD_OK)
            return r;
    }
    return CROWD_OK;
}

void gltf_animations_free(gltf_animation *anims, uint32_t count)
{
    for (uint32_t i = 0; anims && i < count; i++) {
        for (uint32_t s = 0; anims[i].samplers && s < anims[i].sampler_count; s++) {
            crowd_free(anims[i].samplers[s].times);
            crowd_free(anims[i].samplers[s].values);
        }
        crowd_free(anims[i].samplers);
        crowd_free(anims[i].channels);
    }
    crowd_free(anims);
}
