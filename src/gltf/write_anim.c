/* Clips as glTF animations: the rig's sampler evaluated at keyframes start + duration * f / m,
 * f = 0..m, m = round(duration x fps) (m = 1 for a clip of crowd_rig_clip.key_count 1 or 2) — exactly the times the baker samples at the same rate, so
 * re-reading and re-baking reproduces the frames. LINEAR channels; a channel whose value never
 * leaves the bone's rest transform is left out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "gltf/gltf_write.h"

typedef struct clip_samples {
    uint32_t keys;
    float *times;
    crowd_trs *poses; /* keys x bone_count */
    float *weights;   /* keys x morph_target_count */
} clip_samples;

static bool sample_clip(const crowd_rig *rig, uint32_t c, float fps, clip_samples *s)
{
    const crowd_rig_clip *clip = &rig->clips[c];
    uint32_t m = clip->duration > 0 ? (uint32_t)fmax(1.0, round(clip->duration * fps)) : 0;
    if (m && clip->key_count >= 1 && clip->key_count <= 2)
        m = 1; /* a pose stored as two keys stays two keys */
    s->keys = m + 1;
    s->times = crowd_malloc(s->keys * sizeof(float));
    s->poses = crowd_malloc((size_t)s->keys * rig->bone_count * sizeof *s->poses);
    s->weights = crowd_calloc((size_t)s->keys * rig->morph_target_count + 1, sizeof(float));
    if (!s->times || !s->poses || !s->weights)
        return false;
    for (uint32_t f = 0; f < s->keys; f++) {
        double t = m ? clip->start + clip->duration * f / m : clip->start;
        s->times[f] = (float)t;
        rig->sample(rig, c, t, s->poses + (size_t)f * rig->bone_count,
                    rig->morph_target_count ? s->weights + (size_t)f * rig->morph_target_count : NULL);
    }
    return true;
}

/* Values of one path of one bone across the keys; false when all equal the rest value. */
static bool channel_values(const crowd_rig *rig, const clip_samples *s, uint32_t bone, int path, float *out)
{
    int n = path == 1 ? 4 : 3;
    const crowd_trs *rest = &rig->bones[bone].rest;
    const float *rest_value = path == 0 ? rest->translation : path == 1 ? rest->rotation : rest->scale;
    bool moves = false;
    for (uint32_t f = 0; f < s->keys; f++) {
        const crowd_trs *p = &s->poses[(size_t)f * rig->bone_count + bone];
        const float *v = path == 0 ? p->translation : path == 1 ? p->rotation : p->scale;
        float *o = out + (size_t)f * n;
        memcpy(o, v, (size_t)n * sizeof(float));
        if (path == 1 && f) { /* keep quaternions on one hemisphere so every reader interpolates the short way */
            const float *q = o - 4;
            if (q[0] * o[0] + q[1] * o[1] + q[2] * o[2] + q[3] * o[3] < 0)
                for (int k = 0; k < 4; k++)
                    o[k] = -o[k];
        }
        moves |= memcmp(v, rest_value, (size_t)n * sizeof(float)) != 0;
    }
    return moves;
}

static void add_channel(gltf_writer *w, cJSON *samplers, cJSON *channels, int input, int output, uint32_t node,
                        const char *path)
{
    cJSON *sampler = gltf_write_add(w, samplers, NULL, cJSON_CreateObject());
    gltf_write_add(w, sampler, "input", cJSON_CreateNumber(input));
    gltf_write_add(w, sampler, "output", cJSON_CreateNumber(output));
    gltf_write_add(w, sampler, "interpolation", cJSON_CreateString("LINEAR"));
    cJSON *channel = gltf_write_add(w, channels, NULL, cJSON_CreateObject());
    gltf_write_add(w, channel, "sampler", cJSON_CreateNumber(cJSON_GetArraySize(samplers) - 1));
    cJSON *target = gltf_write_add(w, channel, "target", cJSON_CreateObject());
    gltf_write_add(w, target, "node", cJSON_CreateNumber(node));
    gltf_write_add(w, target, "path", cJSON_CreateString(path));
}

static void write_clip(gltf_writer *w, cJSON *animations, uint32_t c, const clip_samples *s, float *scratch)
{
    static const char *const paths[] = {"translation", "rotation", "scale"};
    static const char *const types[] = {"VEC3", "VEC4", "VEC3"};
    const crowd_rig *rig = w->rig;
    cJSON *animation = gltf_write_add(w, animations, NULL, cJSON_CreateObject());
    gltf_write_add(w, animation, "name", cJSON_CreateString(rig->clips[c].name));
    cJSON *samplers = gltf_write_add(w, animation, "samplers", cJSON_CreateArray());
    cJSON *channels = gltf_write_add(w, animation, "channels", cJSON_CreateArray());
    int input = gltf_write_accessor(w, s->times, s->keys, "SCALAR", 5126, true);
    for (uint32_t b = 0; b < rig->bone_count && !w->failed; b++)
        for (int path = 0; path < 3; path++) {
            /* glTF wants at least one channel: the first bone's translation stands in for a still clip */
            bool first = b == 0 && path == 0;
            if (!channel_values(rig, s, b, path, scratch) && !first)
                continue;
            int output = gltf_write_accessor(w, scratch, s->keys, types[path], 5126, false);
            add_channel(w, samplers, channels, input, output, b, paths[path]);
        }
    if (rig->morph_target_count) {
        int output = gltf_write_accessor(w, s->weights, s->keys * rig->morph_target_count, "SCALAR", 5126, false);
        add_channel(w, samplers, channels, input, output, w->mesh_node, "weights");
    }
}

void gltf_write_animations(gltf_writer *w)
{
    const crowd_rig *rig = w->rig;
    cJSON *animations = gltf_write_add(w, w->root, "animations", cJSON_CreateArray());
    for (uint32_t c = 0; c < rig->clip_count && !w->failed; c++) {
        clip_samples s = {0};
        float *scratch = NULL;
        if (!sample_clip(rig, c, w->fps, &s) || !(scratch = crowd_malloc((size_t)s.keys * 4 * sizeof(float))))
            w->failed = true;
        else
            write_clip(w, animations, c, &s, scratch);
        crowd_free(scratch);
        crowd_free(s.times);
        crowd_free(s.poses);
        crowd_free(s.weights);
    }
}
