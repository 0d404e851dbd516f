/* Vertex frames as a rig: one morph target per frame against frame 0, one identity bone per part,
 * and a sampler that blends the two frames around a time. The bake then treats a capture exactly
 * like a skinned character (same skinning loop, placement, LODs, strides and verification). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/cbmath.h"
#include "common/utf8.h"
#include "core/alloc.h"
#include "core/error.h"
#include "crowdbake/bake.h"

typedef struct frames_sampler {
    uint32_t clip_count;
    uint32_t *first; /* per clip: first frame (= morph target) */
    uint32_t *count;
    float *fps;
} frames_sampler;

static bool finite3(const float *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

crowd_result crowd_vertex_frames_validate(const crowd_vertex_frames *f, crowd_error *error)
{
    if (!f)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "frames: NULL");
    if (f->vertex_count == 0 || f->vertex_count > CROWD_MAX_VERTICES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "frames: %u vertices outside 1..%u", f->vertex_count,
                          CROWD_MAX_VERTICES);
    if (f->index_count == 0 || f->index_count % 3 || f->index_count > CROWD_MAX_INDICES)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames: %u indices (need a positive multiple of 3, <= %u)",
                          f->index_count, CROWD_MAX_INDICES);
    if (f->frame_count == 0 || (uint64_t)f->frame_count * f->vertex_count > CROWD_FRAMES_MAX_VERTEX_FRAMES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "frames: %u frames of %u vertices (1..%llu vertex-frames)",
                          f->frame_count, f->vertex_count, (unsigned long long)CROWD_FRAMES_MAX_VERTEX_FRAMES);
    if (!f->positions || !f->indices || !f->clips)
        return crowd_fail(error, CROWD_ERROR_MISSING, "frames: positions, indices or clips missing");
    uint32_t parts = f->part_count ? f->part_count : 1;
    if (parts > CROWD_FRAMES_MAX_PARTS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "frames: %u parts, limit %u", parts, CROWD_FRAMES_MAX_PARTS);
    if (f->clip_count == 0 || f->clip_count > CROWD_MAX_CLIPS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "frames: %u clips outside 1..%u", f->clip_count, CROWD_MAX_CLIPS);
    for (uint32_t i = 0; i < f->index_count; i++)
        if (f->indices[i] >= f->vertex_count)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames: indices[%u] = %u out of range (%u vertices)", i,
                              f->indices[i], f->vertex_count);
    for (uint32_t v = 0; f->parts && v < f->vertex_count; v++)
        if (f->parts[v] >= parts)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames: vertex %u part %u out of range (%u parts)", v,
                              f->parts[v], parts);
    size_t values = (size_t)f->frame_count * f->vertex_count;
    for (size_t i = 0; i < values; i++) {
        const float *p = f->positions + 3 * i;
        if (!finite3(p) || fabsf(p[0]) > 1e5f || fabsf(p[1]) > 1e5f || fabsf(p[2]) > 1e5f)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "frames: frame %zu vertex %zu position not finite or beyond 100 km", i / f->vertex_count,
                              i % f->vertex_count);
        if (f->normals) {
            float n[3] = {f->normals[3 * i], f->normals[3 * i + 1], f->normals[3 * i + 2]};
            if (!cb_vec3_normalize_any(n))
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                                  "frames: frame %zu vertex %zu normal zero or not finite", i / f->vertex_count,
                                  i % f->vertex_count);
        }
    }
    if (f->source_name && !cb_utf8_valid(f->source_name, strlen(f->source_name)))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames: the source name is not valid UTF-8");
    for (uint32_t c = 0; c < f->clip_count; c++) {
        const crowd_frames_clip *clip = &f->clips[c];
        size_t len = clip->name ? strlen(clip->name) : 0;
        if (len == 0 || len > CROWD_FRAMES_NAME_MAX)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames: clips[%u] name has %zu bytes (1..%u)", c, len,
                              CROWD_FRAMES_NAME_MAX);
        if (!cb_utf8_valid(clip->name, len)) /* the name goes into the asset, JSON and the page */
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames: clips[%u] name is not valid UTF-8", c);
        if (clip->frame_count == 0 || clip->frame_count > CROWD_MAX_FRAMES_PER_CLIP ||
            clip->first_frame >= f->frame_count || clip->frame_count > f->frame_count - clip->first_frame)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "frames: clip \"%s\" frames %u..%u outside the %u frames (1..%u per clip)", clip->name,
                              clip->first_frame, clip->first_frame + clip->frame_count, f->frame_count,
                              CROWD_MAX_FRAMES_PER_CLIP);
        if (!(clip->fps >= 1.0f && clip->fps <= 240.0f))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames: clip \"%s\" fps %g outside 1..240", clip->name,
                              (double)clip->fps);
        if (!isnan(clip->stride) && !(clip->stride >= 0.0f && clip->stride <= 1e4f))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "frames: clip \"%s\" stride %g m outside 0..10000 (NAN: unknown)", clip->name,
                              (double)clip->stride);
        for (uint32_t d = 0; d < c; d++) {
            const char *names[1] = {f->clips[d].name};
            uint32_t match;
            if (crowd_match_clip_name(names, sizeof(const char *), 1, clip->name, &match))
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "frames: clips[%u] \"%s\" repeats clips[%u] \"%s\"",
                                  c, clip->name, d, f->clips[d].name);
        }
    }
    return CROWD_OK;
}

/* Area-weighted face normals; a vertex no triangle touches (or only degenerate ones) gets +Y. */
static void compute_normals(const float *p, const uint32_t *indices, uint32_t index_count, uint32_t vertex_count,
                            float *n)
{
    memset(n, 0, (size_t)vertex_count * 3 * sizeof(float));
    for (uint32_t i = 0; i + 2 < index_count; i += 3) {
        const float *a = p + 3 * (size_t)indices[i], *b = p + 3 * (size_t)indices[i + 1],
                    *c = p + 3 * (size_t)indices[i + 2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float x[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++)
                n[3 * (size_t)indices[i + k] + j] += x[j];
    }
    for (uint32_t v = 0; v < vertex_count; v++) {
        float *m = n + 3 * (size_t)v;
        float len = sqrtf(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
        if (len > 1e-20f && isfinite(len)) {
            m[0] /= len, m[1] /= len, m[2] /= len;
        } else {
            m[0] = 0.0f, m[1] = 1.0f, m[2] = 0.0f;
        }
    }
}

static void sample_frames(const crowd_rig *rig, uint32_t clip, double time, crowd_trs *pose, float *weights)
{
    const frames_sampler *s = rig->sampler_data;
    for (uint32_t b = 0; b < rig->bone_count; b++)
        pose[b] = rig->bones[b].rest;
    if (!weights)
        return;
    memset(weights, 0, rig->morph_target_count * sizeof(float));
    uint32_t n = s->count[clip];
    double u = time * s->fps[clip];
    if (fabs(u - nearbyint(u)) < 1e-6) /* the bake's sample times land on frames: no blend at all */
        u = nearbyint(u);
    bool loop = rig->clips[clip].loop;
    if (loop)
        u -= floor(u / n) * n;
    else
        u = u < 0 ? 0 : (u > n - 1 ? n - 1 : u);
    uint32_t i = (uint32_t)u;
    if (i >= n)
        i = loop ? 0 : n - 1;
    double a = u - i;
    uint32_t j = i + 1 < n ? i + 1 : (loop ? 0 : i);
    weights[s->first[clip] + i] += (float)(1.0 - a);
    if (a > 0)
        weights[s->first[clip] + j] += (float)a;
}

static void free_sampler(void *data)
{
    frames_sampler *s = data;
    if (!s)
        return;
    crowd_free(s->first);
    crowd_free(s->count);
    crowd_free(s->fps);
    crowd_free(s);
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = crowd_malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

/* Every array the rig and its sampler own, sized for `f`; false when any allocation failed (the
 * rig then holds what was allocated: crowd_rig_free releases it). */
static bool allocate_rig(const crowd_vertex_frames *f, crowd_rig *rig)
{
    size_t vc = f->vertex_count, frame_values = vc * 3, all_values = frame_values * f->frame_count;
    uint32_t parts = f->part_count ? f->part_count : 1;
    rig->source = CROWD_RIG_FRAMES;
    rig->vertex_count = f->vertex_count;
    rig->index_count = f->index_count;
    rig->positions = crowd_malloc(frame_values * sizeof(float));
    rig->normals = crowd_malloc(frame_values * sizeof(float));
    rig->colors = crowd_malloc(vc * 4);
    rig->regions = crowd_calloc(vc, 1);
    rig->indices = crowd_malloc((size_t)f->index_count * sizeof(uint32_t));
    rig->influence_count = 1;
    rig->joints = crowd_malloc(vc * sizeof(uint16_t));
    rig->weights = crowd_malloc(vc * sizeof(float));
    rig->morph_target_count = f->frame_count;
    rig->morph_positions = crowd_malloc(all_values * sizeof(float));
    rig->morph_normals = crowd_malloc(all_values * sizeof(float));
    rig->bone_count = parts;
    rig->bones = crowd_calloc(parts, sizeof *rig->bones);
    rig->clip_count = f->clip_count;
    rig->clips = crowd_calloc(f->clip_count, sizeof *rig->clips);
    rig->region_count = 1;
    rig->regions_info = crowd_calloc(1, sizeof *rig->regions_info);
    frames_sampler *s = crowd_calloc(1, sizeof *s);
    rig->sampler_data = s;
    rig->sampler_free = free_sampler;
    rig->sample = sample_frames;
    rig->source_name = copy_string(f->source_name ? f->source_name : "vertex frames");
    if (!rig->positions || !rig->normals || !rig->colors || !rig->regions || !rig->indices || !rig->joints ||
        !rig->weights || !rig->morph_positions || !rig->morph_normals || !rig->bones || !rig->clips ||
        !rig->regions_info || !s || !rig->source_name)
        return false;
    s->clip_count = f->clip_count;
    s->first = crowd_malloc(f->clip_count * sizeof(uint32_t));
    s->count = crowd_malloc(f->clip_count * sizeof(uint32_t));
    s->fps = crowd_malloc(f->clip_count * sizeof(float));
    rig->regions_info->name = copy_string("body");
    rig->regions_info->palette = crowd_malloc(4);
    return s->first && s->count && s->fps && rig->regions_info->name && rig->regions_info->palette;
}

/* Frame 0 as the bind mesh, every frame as a morph target against it; normals given (made unit) or
 * computed per frame. One bone per part, weight 1; the colours given, else white. */
static void fill_mesh(const crowd_vertex_frames *f, crowd_rig *rig)
{
    size_t vc = f->vertex_count, frame_values = vc * 3, all_values = frame_values * f->frame_count;
    if (f->normals) {
        for (size_t i = 0; i < all_values; i += 3) {
            memcpy(rig->morph_normals + i, f->normals + i, 3 * sizeof(float));
            cb_vec3_normalize_any(rig->morph_normals + i); /* validated: non-zero and finite */
        }
    } else {
        for (uint32_t fr = 0; fr < f->frame_count; fr++)
            compute_normals(f->positions + fr * frame_values, f->indices, f->index_count, f->vertex_count,
                            rig->morph_normals + fr * frame_values);
    }
    memcpy(rig->positions, f->positions, frame_values * sizeof(float));
    memcpy(rig->normals, rig->morph_normals, frame_values * sizeof(float));
    for (size_t i = 0; i < all_values; i++) {
        rig->morph_positions[i] = f->positions[i] - rig->positions[i % frame_values];
        rig->morph_normals[i] -= rig->normals[i % frame_values];
    }
    memcpy(rig->indices, f->indices, (size_t)f->index_count * sizeof(uint32_t));
    for (size_t v = 0; v < vc; v++) {
        rig->joints[v] = f->parts ? f->parts[v] : 0;
        rig->weights[v] = 1.0f;
    }
    if (f->colors)
        memcpy(rig->colors, f->colors, vc * 4);
    else
        memset(rig->colors, 255, vc * 4);
}

/* Identity bones named part0, part1, ...; false when out of memory. */
static bool fill_bones(crowd_rig *rig)
{
    for (uint32_t b = 0; b < rig->bone_count; b++) {
        crowd_rig_bone *bone = &rig->bones[b];
        char name[32];
        snprintf(name, sizeof name, "part%u", b);
        if (!(bone->name = copy_string(name)))
            return false;
        bone->parent = -1;
        bone->rest = (crowd_trs){.rotation = {0, 0, 0, 1}, .scale = {1, 1, 1}};
        for (int k = 0; k < 16; k += 5)
            bone->inverse_bind[k] = 1.0f;
    }
    return true;
}

/* The rig's clips and the sampler's frame ranges; false when out of memory. */
static bool fill_clips(const crowd_vertex_frames *f, crowd_rig *rig)
{
    frames_sampler *s = rig->sampler_data;
    for (uint32_t c = 0; c < f->clip_count; c++) {
        const crowd_frames_clip *fc = &f->clips[c];
        crowd_rig_clip *rc = &rig->clips[c];
        if (!(rc->name = copy_string(fc->name)))
            return false;
        rc->loop = fc->loop;
        /* a loop's last frame is followed by its first; a one-shot spans first to last */
        uint32_t steps = fc->loop ? fc->frame_count : fc->frame_count - 1;
        rc->duration = steps ? steps / (double)fc->fps : 0.0;
        rc->stride_truth = isnan(fc->stride) ? NAN : (double)fc->stride;
        rc->key_count = fc->frame_count; /* a still clip of <= 2 frames reads as a pose, as glTF's would */
        s->first[c] = fc->first_frame;
        s->count[c] = fc->frame_count;
        s->fps[c] = fc->fps;
    }
    return true;
}

crowd_result crowd_rig_from_frames(const crowd_vertex_frames *f, crowd_rig *rig, crowd_error *error)
{
    if (!rig)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_rig_from_frames: NULL rig");
    memset(rig, 0, sizeof *rig);
    crowd_result r = crowd_vertex_frames_validate(f, error);
    if (r != CROWD_OK)
        return r;
    if (!allocate_rig(f, rig))
        goto oom;
    rig->regions_info->palette_count = 1;
    memset(rig->regions_info->palette[0], 255, 4);
    fill_mesh(f, rig);
    if (!fill_bones(rig) || !fill_clips(f, rig))
        goto oom;
    return CROWD_OK;
oom:
    crowd_rig_free(rig);
    return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "frames: out of memory for %u frames of %u vertices",
                      f->frame_count, f->vertex_count);
}

crowd_result crowd_bake_frames(const crowd_vertex_frames *frames, const crowd_bake_desc *desc,
                               crowd_bake_output *output, crowd_error *error)
{
    if (!desc || !output)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_frames: NULL desc or output");
    memset(output, 0, sizeof *output);
    if (desc->bones)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "bake: vertex frames have no skeleton, so no bone texture, bone mode or sockets; bake "
                          "without crowd_bake_desc.bones");
    crowd_rig rig;
    crowd_result r = crowd_rig_from_frames(frames, &rig, error);
    if (r != CROWD_OK)
        return r;
    crowd_bake_desc d = *desc;
    d.rig = &rig;
    if (d.fps == 0.0f && d.frames == 0) {
        float fps = frames->clips[0].fps;
        for (uint32_t c = 1; c < frames->clip_count; c++)
            if (frames->clips[c].fps != fps)
                fps = 30.0f;
        d.fps = fps;
    }
    r = crowd_bake(&d, output, error);
    crowd_rig_free(&rig);
    return r;
}
