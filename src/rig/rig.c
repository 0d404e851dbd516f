/* Rig model housekeeping: validation, lookup, release, and the procedural humanoid's assembly. */
#include "crowdbake/rig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "rig/procgen.h"

static bool all_finite(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static crowd_result validate_mesh(const crowd_rig *rig, crowd_error *error)
{
    if (rig->vertex_count == 0 || rig->vertex_count > CROWD_MAX_VERTICES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "rig: %u vertices outside 1..%u", rig->vertex_count,
                          CROWD_MAX_VERTICES);
    if (rig->index_count == 0 || rig->index_count % 3 || rig->index_count > CROWD_MAX_INDICES)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: %u indices is not a positive multiple of 3",
                          rig->index_count);
    if (!rig->positions || !rig->normals || !rig->regions || !rig->indices)
        return crowd_fail(error, CROWD_ERROR_MISSING, "rig: positions, normals, regions or indices missing");
    if (!all_finite(rig->positions, 3 * (size_t)rig->vertex_count) ||
        !all_finite(rig->normals, 3 * (size_t)rig->vertex_count))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: non-finite position or normal");
    for (uint32_t i = 0; i < rig->index_count; i++)
        if (rig->indices[i] >= rig->vertex_count)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: indices[%u] = %u out of range (%u vertices)", i,
                              rig->indices[i], rig->vertex_count);
    for (uint32_t v = 0; v < rig->vertex_count; v++)
        if (rig->regions[v] >= rig->region_count)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: vertex %u region %u out of range (%u regions)", v,
                              rig->regions[v], rig->region_count);
    return CROWD_OK;
}

static crowd_result validate_skin(const crowd_rig *rig, crowd_error *error)
{
    if (rig->bone_count == 0 || rig->bone_count > CROWD_MAX_BONES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "rig: %u bones outside 1..%u", rig->bone_count, CROWD_MAX_BONES);
    if (rig->influence_count == 0 || !rig->joints || !rig->weights)
        return crowd_fail(error, CROWD_ERROR_MISSING, "rig: no skinning influences");
    for (uint32_t b = 0; b < rig->bone_count; b++) {
        int32_t parent = rig->bones[b].parent;
        if (parent < -1 || parent >= (int32_t)b)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: bone %u parent %d must precede it", b, parent);
        if (!all_finite(rig->bones[b].inverse_bind, 16))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: bone %u inverse bind not finite", b);
    }
    for (uint32_t v = 0; v < rig->vertex_count; v++) {
        double sum = 0;
        for (uint32_t k = 0; k < rig->influence_count; k++) {
            size_t i = (size_t)v * rig->influence_count + k;
            if (rig->joints[i] >= rig->bone_count)
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: vertex %u joint %u out of range (%u bones)", v,
                                  rig->joints[i], rig->bone_count);
            if (!(rig->weights[i] >= 0.0f))
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: vertex %u has a negative or NaN weight", v);
            sum += rig->weights[i];
        }
        if (fabs(sum - 1.0) > 1e-3)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: vertex %u weights sum to %g, not 1", v, sum);
    }
    return CROWD_OK;
}

crowd_result crowd_rig_validate(const crowd_rig *rig, crowd_error *error)
{
    if (!rig)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "rig: NULL");
    crowd_result r = validate_mesh(rig, error);
    if (r == CROWD_OK)
        r = validate_skin(rig, error);
    if (r != CROWD_OK)
        return r;
    if (rig->clip_count == 0 || rig->clip_count > CROWD_MAX_CLIPS || !rig->sample)
        return crowd_fail(error, CROWD_ERROR_MISSING, "rig: no animation clips to bake");
    for (uint32_t c = 0; c < rig->clip_count; c++)
        if (!(rig->clips[c].duration >= 0.0) || !isfinite(rig->clips[c].start))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: clip %u \"%s\" has a bad time range", c,
                              rig->clips[c].name);
    for (uint32_t s = 0; s < rig->socket_count; s++)
        if (rig->sockets[s].bone >= rig->bone_count)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: socket \"%s\" bone %u out of range",
                              rig->sockets[s].name, rig->sockets[s].bone);
    if (rig->albedo && (!rig->uvs || rig->albedo_width == 0 || rig->albedo_height == 0 ||
                        rig->albedo_width > CROWD_MAX_TEXTURE_DIM || rig->albedo_height > CROWD_MAX_TEXTURE_DIM))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: albedo texture %u x %u without UVs or too large",
                          rig->albedo_width, rig->albedo_height);
    if (rig->lod_level_count > CROWD_MAX_LODS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "rig: %u authored LOD levels, limit %u", rig->lod_level_count,
                          CROWD_MAX_LODS);
    for (uint32_t l = 0; l < rig->lod_level_count; l++) {
        if (rig->lod_index_count[l] == 0 || rig->lod_index_count[l] % 3)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: authored LOD %u has %u indices", l,
                              rig->lod_index_count[l]);
        for (uint32_t i = 0; i < rig->lod_index_count[l]; i++)
            if (rig->lod_indices[rig->lod_first_index[l] + i] >= rig->vertex_count)
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: authored LOD %u index out of range", l);
    }
    if (rig->region_count == 0 || rig->region_count > CROWD_MAX_REGIONS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "rig: %u regions outside 1..%u", rig->region_count,
                          CROWD_MAX_REGIONS);
    for (uint32_t g = 0; g < rig->region_count; g++) {
        if (rig->regions_info[g].palette_count == 0)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: region \"%s\" has no colours",
                              rig->regions_info[g].name);
        if (rig->regions_info[g].textured && !rig->albedo)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "rig: region \"%s\" is textured but there is no albedo",
                              rig->regions_info[g].name);
        for (uint32_t k = 0; rig->regions_info[g].uv_transforms && k < rig->regions_info[g].palette_count; k++)
            for (int c = 0; c < 4; c++)
                if (!(fabsf(rig->regions_info[g].uv_transforms[k][c]) <= CROWD_MAX_UV_TRANSFORM))
                    return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                                      "rig: region \"%s\" choice %u: UV transform value %g not finite or past %g",
                                      rig->regions_info[g].name, k, (double)rig->regions_info[g].uv_transforms[k][c],
                                      (double)CROWD_MAX_UV_TRANSFORM);
    }
    return CROWD_OK;
}

void crowd_rig_free(crowd_rig *rig)
{
    if (!rig)
        return;
    crowd_free(rig->positions);
    crowd_free(rig->normals);
    crowd_free(rig->uvs);
    crowd_free(rig->colors);
    crowd_free(rig->regions);
    crowd_free(rig->indices);
    crowd_free(rig->joints);
    crowd_free(rig->weights);
    crowd_free(rig->morph_positions);
    crowd_free(rig->morph_normals);
    crowd_free(rig->albedo);
    crowd_free(rig->lod_indices);
    for (uint32_t b = 0; rig->bones && b < rig->bone_count; b++)
        crowd_free(rig->bones[b].name);
    crowd_free(rig->bones);
    for (uint32_t c = 0; rig->clips && c < rig->clip_count; c++)
        crowd_free(rig->clips[c].name);
    crowd_free(rig->clips);
    for (uint32_t s = 0; rig->sockets && s < rig->socket_count; s++)
        crowd_free(rig->sockets[s].name);
    crowd_free(rig->sockets);
    for (uint32_t g = 0; rig->regions_info && g < rig->region_count; g++) {
        crowd_free(rig->regions_info[g].name);
        crowd_free(rig->regions_info[g].palette);
        crowd_free(rig->regions_info[g].uv_transforms);
    }
    crowd_free(rig->regions_info);
    if (rig->sampler_free)
        rig->sampler_free(rig->sampler_data);
    crowd_free(rig->source_name);
    memset(rig, 0, sizeof *rig);
}

int crowd_rig_find_bone(const crowd_rig *rig, const char *name)
{
    for (uint32_t b = 0; rig && name && b < rig->bone_count; b++)
        if (strcmp(rig->bones[b].name, name) == 0)
            return (int)b;
    return -1;
}

int crowd_rig_find_clip(const crowd_rig *rig, const char *name)
{
    for (uint32_t c = 0; rig && name && c < rig->clip_count; c++)
        if (strcmp(rig->clips[c].name, name) == 0)
            return (int)c;
    return -1;
}

crowd_result crowd_rig_build_humanoid(const crowd_humanoid_desc *desc, crowd_rig *rig, crowd_error *error)
{
    if (!rig)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_rig_build_humanoid: NULL rig");
    memset(rig, 0, sizeof *rig);
    float density = desc && desc->density != 0.0f ? desc->density : 1.0f;
    if (!(density >= 0.25f && density <= 4.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "humanoid density %g outside 0.25..4", (double)density);

    char name[64];
    snprintf(name, sizeof name, "humanoid density=%g", (double)density);
    rig->source = CROWD_RIG_PROCEDURAL;
    crowd_result r = CROWD_OK;
    if (!(rig->source_name = crowd_strdup(name)))
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "humanoid: out of memory");
    if (r == CROWD_OK)
        r = humanoid_build_skeleton(rig, error);
    if (r == CROWD_OK)
        r = humanoid_build_mesh(rig, density, error);
    if (r == CROWD_OK)
        r = humanoid_build_clips(rig, error);
    if (r != CROWD_OK)
        crowd_rig_free(rig);
    return r;
}
