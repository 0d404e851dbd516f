/* The bake pipeline: clips -> frames -> skinned floats -> textures, plus LODs and strides.
 * bake_pack.c turns the result into the container. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bake/bake_job.h"
#include "bake/encode.h"
#include "bake/layout.h"
#include "bake/skin.h"
#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/asset_clip_bounds.h"
#include "core/clock.h"
#include "core/error.h"

static const float default_lod_ratios[] = {1.0f, 0.4f, 0.15f, 0.05f, 0.012f};

static void progress(const bake_job *job, float fraction, const char *stage)
{
    if (job->desc->progress)
        job->desc->progress(job->desc->progress_user, fraction, stage);
}

/* ---- options ---------------------------------------------------------------------------------- */

static crowd_result check_desc(const crowd_bake_desc *d, crowd_error *error)
{
    if (!d->rig)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "bake: no rig");
    if (d->fps != 0.0f && !(d->fps >= 1.0f && d->fps <= 240.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.fps %g outside 1..240 (0 for the default 30)",
                          (double)d->fps);
    if (d->frames > CROWD_MAX_FRAMES_PER_CLIP)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.frames %u outside 1..%u (0 to sample at fps)",
                          d->frames, CROWD_MAX_FRAMES_PER_CLIP);
    if (d->lod_count > CROWD_MAX_LODS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_bake_desc.lod_count %u outside 1..%u (0 for the default 5)", d->lod_count,
                          CROWD_MAX_LODS);
    if (d->tex_width > CROWD_MAX_TEXTURE_DIM)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_bake_desc.tex_width %u outside 1..%u (0 for the default 4096)", d->tex_width,
                          CROWD_MAX_TEXTURE_DIM);
    if (d->scale != 0.0f && !(d->scale >= 1e-4f && d->scale <= 1e4f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.scale %g outside 0.0001..10000 (0 for 1)",
                          (double)d->scale);
    if (d->compact && d->fp16)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_bake_desc.compact and crowd_bake_desc.fp16 cannot be combined");
    if (d->height != 0.0f && !(d->height >= 0.01f && d->height <= 1000.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.height %g m outside 0.01..1000 m",
                          (double)d->height);
    if (d->height != 0.0f && d->scale != 0.0f)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_bake_desc.height and crowd_bake_desc.scale cannot be combined (both set the size)");
    if ((unsigned)d->forward > CROWD_FORWARD_NEG_X || (unsigned)d->up > CROWD_UP_POS_Z ||
        (unsigned)d->ground > CROWD_GROUND_OFFSET)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "bake: forward, up or ground out of range");
    if (d->ground == CROWD_GROUND_OFFSET && !(fabsf(d->ground_offset) <= 1e4f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.ground_offset %g m outside -10000..10000 m",
                          (double)d->ground_offset);
    if (d->clip_role_count && !d->clip_roles)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "bake: clip_role_count without clip_roles");
    if (d->lod_ratios) {
        uint32_t n = d->lod_count ? d->lod_count : 5;
        if (d->lod_ratios[0] != 1.0f)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.lod_ratios[0] must be 1 (full detail)");
        for (uint32_t i = 1; i < n; i++)
            if (!(d->lod_ratios[i] > 0.0f && d->lod_ratios[i] <= d->lod_ratios[i - 1]))
                return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake_desc.lod_ratios[%u] (%g) must be in (0, %g]",
                                  i, (double)d->lod_ratios[i], (double)d->lod_ratios[i - 1]);
    }
    return CROWD_OK;
}

static crowd_result select_clips(bake_job *job, crowd_error *error)
{
    const crowd_bake_desc *d = job->desc;
    const crowd_rig *rig = job->rig;
    uint32_t count = d->clip_names ? d->clip_name_count : rig->clip_count;
    if (count == 0 || count > CROWD_MAX_CLIPS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "bake: %u clips selected, need 1..%u", count, CROWD_MAX_CLIPS);
    job->clips = crowd_calloc(count, sizeof *job->clips);
    if (!job->clips)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "bake: out of memory");
    job->clip_count = count;
    for (uint32_t i = 0; i < count; i++) {
        int index = (int)i;
        if (d->clip_names) {
            uint32_t match;
            index = crowd_match_clip_name((const char *const *)&rig->clips[0].name, sizeof(crowd_rig_clip),
                                          rig->clip_count, d->clip_names[i], &match)
                        ? (int)match
                        : -1;
            if (index < 0) {
                char names[256] = "";
                for (uint32_t c = 0; c < rig->clip_count && strlen(names) < 200; c++) {
                    strncat(names, c ? ", " : "", sizeof names - strlen(names) - 1);
                    strncat(names, rig->clips[c].name, sizeof names - strlen(names) - 1);
                }
                return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                                  "crowd_bake_desc.clip_names[%u]: no clip named \"%s\" (the rig has: %s)", i,
                                  d->clip_names[i], names);
            }
        }
        job->clips[i].rig_clip = (uint32_t)index;
    }

    uint64_t frames = 0;
    for (uint32_t i = 0; i < count; i++) {
        const crowd_rig_clip *c = &rig->clips[job->clips[i].rig_clip];
        double samples = c->duration * job->fps;
        if (c->duration > 0.0 && !d->frames && samples > CROWD_MAX_FRAMES_PER_CLIP)
            return crowd_fail(error, CROWD_ERROR_LIMIT, "clip \"%s\": %.0f frames at %g fps, limit %u", c->name,
                              samples, (double)job->fps, CROWD_MAX_FRAMES_PER_CLIP);
        uint32_t n = crowd_bake_clip_frames(c, job->fps, d->frames);
        job->clips[i].first_frame = (uint32_t)frames;
        job->clips[i].frame_count = n;
        frames += n;
    }
    if (frames > (uint64_t)CROWD_MAX_CLIPS * CROWD_MAX_FRAMES_PER_CLIP)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "bake: %llu frames in total", (unsigned long long)frames);
    job->frame_count = (uint32_t)frames;
    return CROWD_OK;
}

/* Time of frame f of n: loops sample [start, start + duration) so the last frame is followed by the
 * first; one-shots include both ends. */
static double frame_time(const crowd_rig_clip *c, uint32_t f, uint32_t n)
{
    if (n <= 1)
        return c->start;
    return c->start + c->duration * f / (c->loop ? n : n - 1);
}

/* Texture sizes are settled before any frame is skinned: a bake that cannot fit fails fast. */
static crowd_result layout_textures(bake_job *job, crowd_error *error)
{
    uint32_t width = job->desc->tex_width ? job->desc->tex_width : 4096;
    crowd_result r = crowd_layout_texture((uint64_t)job->frame_count * job->rig->vertex_count, width, "animation",
                                          &job->tex_width, &job->tex_height, error);
    if (r != CROWD_OK || !job->desc->bones)
        return r;
    return crowd_layout_texture((uint64_t)job->frame_count * job->rig->bone_count * 3, width, "bone", &job->bone_width,
                                &job->bone_height, error);
}

/* The file's size from the layout alone (size_advice.c), checked against max_bytes before the float
 * frames (about 28 bytes per vertex-frame) exist; a refusal says which options would fit. */
static crowd_result predict_size(bake_job *job, uint64_t *predicted, crowd_error *error)
{
    const crowd_bake_desc *d = job->desc;
    bake_size_options now = {d->compact, d->tangents, d->bones};
    uint64_t bytes = crowd_bake_predict_bytes(job, job->frame_count, now);
    *predicted = bytes;
    uint64_t limit = d->max_bytes ? d->max_bytes : CROWD_BAKE_DEFAULT_MAX_BYTES;
    if (bytes <= limit)
        return CROWD_OK;
    double seconds = 0.0;
    for (uint32_t i = 0; i < job->clip_count; i++)
        seconds += job->rig->clips[job->clips[i].rig_clip].duration;
    char advice[400];
    crowd_bake_size_advice(job, limit, advice, sizeof advice);
    return crowd_fail(error, CROWD_ERROR_LIMIT,
                      "bake: predicted file size %.1f MB exceeds crowd_bake_desc.max_bytes %.0f bytes (%u vertices x "
                      "%u frames, %.1f s of clips); %s",
                      bytes / 1048576.0, (double)limit, job->rig->vertex_count, job->frame_count, seconds, advice);
}

/* ---- sampling and skinning -------------------------------------------------------------------- */

static crowd_result allocate_frames(bake_job *job, crowd_error *error)
{
    const crowd_rig *rig = job->rig;
    size_t values = (size_t)job->frame_count * rig->vertex_count * 3;
    job->positions = crowd_malloc(values * sizeof(float));
    job->normals = crowd_malloc(values * sizeof(float));
    bool ok = job->positions && job->normals;
    if (job->desc->tangents) {
        job->tangents = crowd_malloc(values * sizeof(float));
        job->bind_tangents = crowd_malloc((size_t)rig->vertex_count * 4 * sizeof(float));
        ok = ok && job->tangents && job->bind_tangents;
    }
    if (job->desc->bones) {
        job->bone_texels = crowd_malloc((size_t)job->frame_count * rig->bone_count * 12 * sizeof(float));
        ok = ok && job->bone_texels;
    }
    if (!ok)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "bake: out of memory for %u frames of %u vertices",
                          job->frame_count, rig->vertex_count);
    if (job->desc->tangents)
        return crowd_compute_tangents(rig, job->bind_tangents, error);
    return CROWD_OK;
}

static crowd_result skin_all_frames(bake_job *job, crowd_error *error)
{
    const crowd_rig *rig = job->rig;
    size_t bones = rig->bone_count;
    crowd_trs *pose = crowd_malloc(bones * sizeof *pose);
    float *global = crowd_malloc(bones * 16 * sizeof(float));
    float *skin = crowd_malloc(bones * 16 * sizeof(float));
    float *rows = crowd_malloc(bones * 12 * sizeof(float));
    float *morph = rig->morph_target_count ? crowd_calloc(rig->morph_target_count, sizeof(float)) : NULL;
    crowd_result r = CROWD_OK;
    if (!pose || !global || !skin || !rows || (rig->morph_target_count && !morph)) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "bake: out of memory");
        goto done;
    }
    size_t frame_values = (size_t)rig->vertex_count * 3;
    for (uint32_t i = 0; i < job->clip_count; i++) {
        const baked_clip *bc = &job->clips[i];
        const crowd_rig_clip *c = &rig->clips[bc->rig_clip];
        progress(job, (float)i / (float)job->clip_count, c->name);
        for (uint32_t f = 0; f < bc->frame_count; f++) {
            size_t frame = bc->first_frame + f;
            rig->sample(rig, bc->rig_clip, frame_time(c, f, bc->frame_count), pose, morph);
            crowd_rig_global_matrices(rig, pose, global);
            crowd_rig_skin_matrices(rig, global, skin);
            float *positions = job->positions + frame * frame_values;
            crowd_skin_frame(rig, skin, rows, morph, job->bind_tangents, positions, job->normals + frame * frame_values,
                             job->tangents ? job->tangents + frame * frame_values : NULL);
            /* in the source's space: crowd_bake_place moves frames and bone texture to the asset's */
            if (job->bone_texels) /* crowd_skin_frame left the 3x4 rows in `rows` */
                memcpy(job->bone_texels + frame * bones * 12, rows, bones * 12 * sizeof(float));
        }
    }
done:
    crowd_free(pose);
    crowd_free(global);
    crowd_free(skin);
    crowd_free(rows);
    crowd_free(morph);
    return r;
}

/* The clip's sphere, on the y axis like the asset's (so it holds the clip under any yaw and the
 * runtime needs no widening): centred at the middle of the clip's height range. Every LOD level
 * indexes the same vertices, so all vertices of the clip's frames cover all levels. A sphere that
 * would poke out of the asset sphere (the two centres differ, so it can, though the points are
 * inside both) is replaced by the asset sphere: the loader refuses one that is not inside. */
static void measure_clip_sphere(const bake_job *job, baked_clip *clip, float decode_error)
{
    size_t first = (size_t)clip->first_frame * job->rig->vertex_count;
    size_t end = first + (size_t)clip->frame_count * job->rig->vertex_count;
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = first; i < end; i++) {
        float y = job->positions[3 * i + 1];
        lo = y < lo ? y : lo;
        hi = y > hi ? y : hi;
    }
    float cy = 0.5f * (lo + hi);
    double r2 = 0.0;
    for (size_t i = first; i < end; i++) {
        const float *p = job->positions + 3 * i;
        double dy = p[1] - cy, d2 = (double)p[0] * p[0] + dy * dy + (double)p[2] * p[2];
        r2 = d2 > r2 ? d2 : r2;
    }
    float centre[3] = {0.0f, cy, 0.0f}, radius = (float)sqrt(r2) + decode_error;
    if (!crowd_clip_sphere_inside(centre, radius, job->sphere_center_y, job->sphere_radius))
        centre[1] = job->sphere_center_y, radius = job->sphere_radius;
    clip->sphere[0] = centre[0], clip->sphere[1] = centre[1], clip->sphere[2] = centre[2], clip->sphere[3] = radius;
}

/* Decode box over every vertex of every frame, and the yaw-invariant sphere around the y axis. */
/* The least size a bake accepts, in metres after placement: the largest side of the box of every
 * frame. Placement and role tests are relative to the character's size, and a vanishing one makes
 * their evidence infinite. (A flat character, a sheet on the ground, has a size and bakes.) */
#define MIN_EXTENT 1e-3

/* The bounds and culling spheres of the placed frames; refuses a character without a size. */
static crowd_result measure_bounds(bake_job *job, crowd_error *error)
{
    size_t count = (size_t)job->frame_count * job->rig->vertex_count;
    for (int k = 0; k < 3; k++) {
        job->box_min[k] = INFINITY;
        job->box_max[k] = -INFINITY;
    }
    for (size_t i = 0; i < count; i++)
        for (int k = 0; k < 3; k++) {
            float v = job->positions[3 * i + k];
            job->box_min[k] = v < job->box_min[k] ? v : job->box_min[k];
            job->box_max[k] = v > job->box_max[k] ? v : job->box_max[k];
        }
    float cy = 0.5f * (job->box_min[1] + job->box_max[1]);
    double r2 = 0.0;
    for (size_t i = 0; i < count; i++) {
        const float *p = job->positions + 3 * i;
        double dy = p[1] - cy, d2 = (double)p[0] * p[0] + dy * dy + (double)p[2] * p[2];
        r2 = d2 > r2 ? d2 : r2;
    }
    float quantum = 0.0f;
    for (int k = 0; k < 3; k++)
        quantum = fmaxf(quantum, job->box_max[k] - job->box_min[k]);
    /* widened by the worst decode error so the sphere bounds what the GPU draws, not the floats */
    float decode_error = quantum * (job->desc->fp16 ? 1.0f / 2048.0f : 1.0f / 65535.0f);
    job->sphere_center_y = cy;
    job->sphere_radius = (float)sqrt(r2) + decode_error;
    for (uint32_t c = 0; c < job->clip_count; c++)
        measure_clip_sphere(job, &job->clips[c], decode_error);
    double extent = 0.0;
    for (int k = 0; k < 3; k++)
        extent = fmax(extent, (double)job->box_max[k] - job->box_min[k]);
    if (!(extent >= MIN_EXTENT))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "bake: the character spans %.3g m over all its frames, less than %g m: %s", extent,
                          MIN_EXTENT,
                          extent > 0 ? "scale it up (crowd_bake_desc.scale or crowd_bake_desc.height)"
                                     : "every vertex is at one point (are all positions the same?)");
    return CROWD_OK;
}

/* The bake hands out only what the loader accepts: a check of the whole file, a small cost next to
 * the bake, so no mistake here or in a caller's data becomes a file that cannot be opened. */
static crowd_result check_loads(const crowd_bake_output *output, crowd_error *error)
{
    crowd_asset asset;
    crowd_error why = {0};
    crowd_result r = crowd_asset_load_memory(&asset, output->bytes, output->size, &why);
    crowd_asset_free(&asset);
    if (r == CROWD_ERROR_OUT_OF_MEMORY)
        return crowd_fail(error, r, "bake: checking the result: %s", why.message);
    if (r != CROWD_OK)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "bake: the result would not load (%.400s)", why.message);
    return CROWD_OK;
}

/* ---- textures --------------------------------------------------------------------------------- */

/* Encodes the float frames into the texture payloads of the image; padding texels become zero. */
static void encode_textures(const bake_job *job, const packed_image *image)
{
    const crowd_bake_desc *d = job->desc;
    size_t texels = (size_t)job->frame_count * job->rig->vertex_count;
    size_t padding = (size_t)job->tex_width * job->tex_height - texels;
    if (d->fp16) {
        crowd_encode_positions_f16(job->positions, texels, job->box_min, job->box_max, image->positions);
        crowd_encode_normals_f16(job->normals, texels, image->normals);
    } else {
        /* Compact mode: the 8+8-bit normal rides in w and no normal texture is sampled. */
        crowd_encode_positions_u16(job->positions, d->compact ? job->normals : NULL, texels, job->box_min, job->box_max,
                                   image->positions);
        if (image->normals)
            crowd_encode_normals_oct16(job->normals, texels, image->normals);
    }
    memset(image->positions + 4 * texels, 0, padding * 8);
    if (image->normals)
        memset(image->normals + 2 * texels, 0, padding * 4);
    if (image->tangents) {
        crowd_encode_tangents(job->tangents, job->normals, job->bind_tangents, job->rig->vertex_count, texels,
                              image->tangents);
        memset(image->tangents + 2 * texels, 0, padding * 4);
    }
    if (image->bones) {
        size_t values = (size_t)job->frame_count * job->rig->bone_count * 12;
        memcpy(image->bones, job->bone_texels, values * sizeof(float));
        memset(image->bones + values, 0, ((size_t)job->bone_width * job->bone_height * 4 - values) * sizeof(float));
    }
}

/* ---- bone-mode skin streams: the four largest influences, renormalised to unorm16 ------------- */

static crowd_result build_skin_streams(bake_job *job, crowd_error *error)
{
    const crowd_rig *rig = job->rig;
    size_t vc = rig->vertex_count;
    job->skin_joints = crowd_calloc(vc * 4, sizeof(uint16_t));
    job->skin_weights = crowd_calloc(vc * 4, sizeof(uint16_t));
    if (!job->skin_joints || !job->skin_weights)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "bake: out of memory for skin streams");
    for (size_t v = 0; v < vc; v++) {
        const uint16_t *joints = rig->joints + v * rig->influence_count;
        const float *weights = rig->weights + v * rig->influence_count;
        int best[4] = {-1, -1, -1, -1};
        for (int slot = 0; slot < 4; slot++) /* selection by weight; ties keep the earlier influence */
            for (uint32_t k = 0; k < rig->influence_count; k++) {
                bool taken = false;
                for (int s = 0; s < slot; s++)
                    taken |= best[s] == (int)k;
                if (!taken && (best[slot] < 0 || weights[k] > weights[best[slot]]))
                    best[slot] = (int)k;
            }
        double sum = 0;
        for (int s = 0; s < 4; s++)
            sum += best[s] >= 0 ? weights[best[s]] : 0.0;
        /* Largest-remainder rounding so the four unorm16 weights sum to exactly 65535. */
        uint32_t q[4], total = 0;
        double remainder[4];
        for (int s = 0; s < 4; s++) {
            double exact = best[s] >= 0 && sum > 0 ? weights[best[s]] / sum * 65535.0 : 0.0;
            q[s] = (uint32_t)floor(exact);
            remainder[s] = exact - q[s];
            total += q[s];
        }
        while (total < 65535u) {
            int pick = 0;
            for (int s = 1; s < 4; s++)
                if (remainder[s] > remainder[pick])
                    pick = s;
            q[pick]++;
            remainder[pick] = -1.0;
            total++;
        }
        for (int s = 0; s < 4; s++) {
            job->skin_joints[4 * v + s] = best[s] >= 0 ? joints[best[s]] : joints[0];
            job->skin_weights[4 * v + s] = (uint16_t)q[s];
        }
    }
    return CROWD_OK;
}

/* ---- entry point ------------------------------------------------------------------------------ */

static void free_job(bake_job *job)
{
    crowd_free(job->clips);
    crowd_free(job->positions);
    crowd_free(job->normals);
    crowd_free(job->tangents);
    crowd_free(job->bind_tangents);
    crowd_free(job->bone_texels);
    crowd_free(job->skin_joints);
    crowd_free(job->skin_weights);
    crowd_free(job->markers);
    crowd_lod_chain_free(&job->lods);
}

static void fill_stats(const bake_job *job, crowd_bake_stats *s)
{
    const crowd_rig *rig = job->rig;
    s->vertex_count = rig->vertex_count;
    s->triangle_count = rig->index_count / 3;
    s->bone_count = rig->bone_count;
    s->clip_count = job->clip_count;
    s->frame_count = job->frame_count;
    s->tex_width = job->tex_width;
    s->tex_height = job->tex_height;
    s->bone_tex_width = job->bone_width;
    s->bone_tex_height = job->bone_height;
    uint64_t texels = (uint64_t)job->tex_width * job->tex_height;
    s->bytes_positions = texels * 8;
    s->bytes_normals = job->desc->compact ? 0 : texels * 4;
    s->bytes_tangents = job->desc->tangents ? texels * 4 : 0;
    s->bytes_bones = (uint64_t)job->bone_width * job->bone_height * 16;
    s->bytes_per_vertex_frame = 8u + (job->desc->compact ? 0u : 4u) + (job->desc->tangents ? 4u : 0u);
    s->lod_count = job->lods.level_count;
    for (uint32_t l = 0; l < job->lods.level_count; l++)
        s->lod_triangles[l] = job->lods.levels[l].triangle_count;
}

/* The rig's authored levels when it has them, else levels generated at `ratios`. Vertex frames
 * keep their parts apart in the weld (their joints are the part ids). */
static crowd_result build_lods(bake_job *job, const float *ratios, uint32_t lod_count, crowd_error *error)
{
    const crowd_rig *rig = job->rig;
    if (rig->lod_level_count)
        return crowd_lod_chain_from_authored(rig->lod_indices, rig->lod_first_index, rig->lod_index_count,
                                             rig->lod_screen_coverage, rig->lod_level_count, rig->vertex_count,
                                             &job->lods, error);
    crowd_lod_mesh mesh = {.positions = rig->positions,
                           .normals = rig->normals,
                           .parts = rig->source == CROWD_RIG_FRAMES ? rig->joints : NULL,
                           .vertex_count = rig->vertex_count,
                           .indices = rig->indices,
                           .index_count = rig->index_count};
    return crowd_build_lod_chain(&mesh, ratios, lod_count, &job->lods, error);
}

crowd_result crowd_bake(const crowd_bake_desc *desc, crowd_bake_output *output, crowd_error *error)
{
    if (!desc || !output)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_bake: NULL desc or output");
    memset(output, 0, sizeof *output);
    crowd_result r = check_desc(desc, error);
    if (r == CROWD_OK)
        r = crowd_rig_validate(desc->rig, error);
    if (r == CROWD_OK && desc->bones && desc->rig->source == CROWD_RIG_FRAMES)
        r = crowd_fail(error, CROWD_ERROR_ARGUMENT,
                       "bake: vertex frames have no skeleton, so no bone texture, bone mode or sockets; bake without "
                       "crowd_bake_desc.bones");
    if (r != CROWD_OK)
        return r;

    double t0 = crowd_clock_ms();
    bake_job job = {.desc = desc,
                    .rig = desc->rig,
                    .fps = desc->fps != 0.0f ? desc->fps : 30.0f,
                    .unit_scale = desc->scale != 0.0f ? desc->scale : 1.0f};
    packed_image image = {0};
    crowd_bake_stats *stats = &output->stats;
    const float *ratios = desc->lod_ratios ? desc->lod_ratios : default_lod_ratios;
    uint32_t lod_count = desc->lod_count ? desc->lod_count : 5;
    if (!desc->lod_ratios && lod_count > 5) {
        r = crowd_fail(error, CROWD_ERROR_ARGUMENT,
                       "crowd_bake_desc.lod_count %u needs lod_ratios (defaults exist for up to 5 levels)", lod_count);
        goto done;
    }
    if ((r = select_clips(&job, error)) || (r = crowd_bake_check_markers(&job, error)) ||
        (r = layout_textures(&job, error)) || (r = predict_size(&job, &stats->predicted_bytes, error)) ||
        (r = allocate_frames(&job, error)) || (r = skin_all_frames(&job, error)) ||
        (r = crowd_bake_place(&job, error)) || (r = measure_bounds(&job, error)) ||
        (r = crowd_bake_markers(&job, error)))
        goto done;
    double t1 = crowd_clock_ms();
    progress(&job, 1.0f, "lods");
    if ((r = build_lods(&job, ratios, lod_count, error)))
        goto done;
    double t2 = crowd_clock_ms();
    progress(&job, 1.0f, "strides");
    if (desc->bones && (r = build_skin_streams(&job, error)))
        goto done;
    crowd_bake_check_bones(&job);
    double t3 = crowd_clock_ms();
    progress(&job, 1.0f, "encode");
    if ((r = crowd_bake_pack_begin(&job, &image, error)))
        goto done;
    encode_textures(&job, &image);
    double t4 = crowd_clock_ms();
    crowd_bake_pack_finish(&image, &output->bytes, &output->size);
    if ((r = check_loads(output, error)))
        goto done;
    double t5 = crowd_clock_ms();

    fill_stats(&job, stats);
    stats->notes = job.notes;
    stats->bytes_total = output->size;
    stats->bytes_other =
        output->size - stats->bytes_positions - stats->bytes_normals - stats->bytes_tangents - stats->bytes_bones;
    stats->ms_skin = t1 - t0;
    stats->ms_lod = t2 - t1;
    stats->ms_stride = t3 - t2;
    stats->ms_encode = t4 - t3;
    stats->ms_pack = t5 - t4;
    stats->ms_total = t5 - t0;
done:
    crowd_bake_pack_abort(&image);
    free_job(&job);
    if (r != CROWD_OK)
        crowd_bake_output_free(output);
    return r;
}

void crowd_bake_output_free(crowd_bake_output *output)
{
    if (!output)
        return;
    crowd_aligned_free(output->bytes);
    memset(output, 0, sizeof *output);
}
