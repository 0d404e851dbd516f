/* Sockets and bones of an instance in world space (crowd.h "sockets and bones in world space"):
 * attachment.vert's placement of an attachment, operation for operation, on the CPU, so what an
 * engine hangs on a hand is where the GPU draws the hand. */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "crowd/crowd_internal.h"
#include "crowd/record.h"

/* What the decode reads besides the record: the bone and the matrix it is offset by. */
typedef struct socket_target {
    uint32_t bone;
    const float *offset; /* 3x4: the socket's offset, or the bone's bind transform */
} socket_target;

/* GLSL's mix as its specification writes it: x (1 - a) + y a. */
static float mix(float x, float y, float a)
{
    return x * (1.0f - a) + y * a;
}

/* Clip `which` of the record's skin rows for the target bone: two baked frames mixed by t
 * (attachment.vert's bone_rows; crowd_record_sample picks the frames as the shaders do). */
static crowd_result clip_rows(const crowd_asset *a, const crowd_record *r, int which, float time, uint32_t bone,
                              float rows[12], crowd_error *error)
{
    uint32_t clip = crowd_record_clip(r, crowd_rec_turning(r) ? 0 : which);
    if (clip >= a->clip_count)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "the record's clip %c is %u; the asset has %u clips",
                          which ? 'B' : 'A', clip, a->clip_count);
    crowd_clip_sample s;
    if (crowd_record_sample(a, r, which, time, &s) != CROWD_OK)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "clip %c's phase at time %g is not finite", which ? 'B' : 'A',
                          (double)time);
    const float *bones = (const float *)a->bones.data;
    const float *m0 = bones + ((size_t)s.frame0 * a->bone_count + bone) * 12u;
    const float *m1 = bones + ((size_t)s.frame1 * a->bone_count + bone) * 12u;
    for (int i = 0; i < 12; i++)
        rows[i] = mix(m0[i], m1[i], s.t);
    return CROWD_OK;
}

/* The skin rows at `time`: clip A's, cross-faded into clip B's while a fade runs (the shader's
 * test: fade_rate > 0, weight clamp((time - fade_start) * fade_rate, 0, 1)). */
static crowd_result skin_rows(const crowd_asset *a, const crowd_record *r, float time, uint32_t bone, float rows[12],
                              crowd_error *error)
{
    crowd_result result = clip_rows(a, r, 0, time, bone, rows, error);
    if (result != CROWD_OK || !(r->fade_rate > 0.0f))
        return result;
    float b[12];
    result = clip_rows(a, r, 1, time, bone, b, error);
    if (result != CROWD_OK)
        return result;
    float w = (time - r->fade_start) * r->fade_rate;
    w = w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
    for (int i = 0; i < 12; i++)
        rows[i] = mix(rows[i], b[i], w);
    return CROWD_OK;
}

/* out = skin * offset, both 3x4 with an implied (0, 0, 0, 1) bottom row. */
static void compose(const float skin[12], const float offset[12], float out[12])
{
    for (int row = 0; row < 3; row++) {
        const float *s = skin + 4 * row;
        for (int col = 0; col < 4; col++)
            out[4 * row + col] = s[0] * offset[col] + s[1] * offset[4 + col] + s[2] * offset[8 + col];
        out[4 * row + 3] += s[3];
    }
}

/* The whole decode into `out` (untouched on a refusal): skin, offset, scale, yaw, position. */
static crowd_result place(const crowd_asset *a, const crowd_record *r, socket_target target, float time, float out[12],
                          crowd_error *error)
{
    if (!isfinite(time))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "time %g is not finite", (double)time);
    float skin[12], local[12], world[12], p[3];
    crowd_result result = skin_rows(a, r, time, target.bone, skin, error);
    if (result != CROWD_OK)
        return result;
    compose(skin, target.offset, local);
    float yaw = crowd_rec_yaw(r, time), s = sinf(yaw), c = cosf(yaw), scale = r->scale;
    crowd_rec_position(r, time, p);
    /* the shader's order: scale the skinned point, turn it about +Y, then add the position */
    for (int col = 0; col < 4; col++) {
        float x = local[col] * scale, y = local[4 + col] * scale, z = local[8 + col] * scale;
        world[col] = c * x + s * z;
        world[4 + col] = y;
        world[8 + col] = -s * x + c * z;
    }
    for (int row = 0; row < 3; row++)
        world[4 * row + 3] += p[row];
    for (int i = 0; i < 12; i++)
        if (!isfinite(world[i]))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "the record gives a non-finite transform at time %g (scale %g, yaw %g)", (double)time,
                              (double)scale, (double)r->yaw);
    memcpy(out, world, sizeof world);
    return CROWD_OK;
}

static crowd_result need_bones(const crowd_asset *a, const char *what, crowd_error *error)
{
    if (!a)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s: no asset", what);
    if (!a->bones.data || !a->bone_count)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "%s: the asset was baked without bones (no bone texture): bake with --bones "
                          "(crowd_bake_desc.bones)",
                          what);
    return CROWD_OK;
}

/* The target of socket `socket` or bone `bone` (is_bone), checked against the asset. */
static crowd_result find_target(const crowd_asset *a, bool is_bone, uint32_t which, const char *what,
                                socket_target *target, crowd_error *error)
{
    crowd_result result = need_bones(a, what, error);
    if (result != CROWD_OK)
        return result;
    if (is_bone) {
        if (which >= a->bone_count)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s: bone %u; the asset has %u bones", what, which,
                              a->bone_count);
        *target = (socket_target){which, a->bones_info[which].bind};
        return CROWD_OK;
    }
    if (which >= a->socket_count)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s: socket %u; the asset has %u sockets", what, which,
                          a->socket_count);
    *target = (socket_target){a->sockets[which].bone, a->sockets[which].offset};
    return CROWD_OK;
}

static crowd_result record_query(const crowd_asset *a, const crowd_record *r, bool is_bone, uint32_t which, float time,
                                 float out[12], crowd_error *error)
{
    const char *what = is_bone ? "crowd_record_bone" : "crowd_record_socket";
    socket_target target = {0, NULL};
    crowd_result result = find_target(a, is_bone, which, what, &target, error);
    if (result != CROWD_OK)
        return result;
    if (!r || !out)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s: %s is NULL", what, r ? "the transform" : "the record");
    result = place(a, r, target, time, out, error);
    if (result != CROWD_OK)
        crowd_error_prefix(error, "%s: ", what);
    return result;
}

crowd_result crowd_record_socket(const crowd_asset *asset, const crowd_record *record, uint32_t socket, float time,
                                 float transform[12], crowd_error *error)
{
    return record_query(asset, record, false, socket, time, transform, error);
}

crowd_result crowd_record_bone(const crowd_asset *asset, const crowd_record *record, uint32_t bone, float time,
                               float transform[12], crowd_error *error)
{
    return record_query(asset, record, true, bone, time, transform, error);
}

static crowd_result place_instance(crowd *c, uint32_t index, socket_target target, float time, float out[12],
                                   const char *what)
{
    crowd_result result = place(c->asset, &c->records[c->slot_of_index[index]], target, time, out, &c->last_error);
    if (result != CROWD_OK)
        crowd_error_prefix(&c->last_error, "%s: instance %u: ", what, index);
    return result;
}

/* Every live instance into out[12 * index]: the records read in slot order, as they lie in memory
 * (in index order they are scattered over the array, and reading them is most of the cost). Each
 * instance is met once (its slot's owner is it); a second pass, only if the first met fewer than
 * the count, takes the rest in index order, so nothing rests on the layout keeping every live
 * slot below the slots in use. */
static crowd_result every_instance(crowd *c, socket_target target, float *out, const char *what)
{
    float time = (float)c->time;
    uint32_t met = 0;
    for (uint32_t slot = 0; slot < c->slots; slot++) {
        uint32_t index = c->index_of_slot[slot];
        if (index >= c->count || c->slot_of_index[index] != slot)
            continue;
        crowd_result result = place_instance(c, index, target, time, out + 12u * (size_t)index, what);
        if (result != CROWD_OK)
            return result;
        met++;
    }
    for (uint32_t index = 0; met < c->count && index < c->count; index++) {
        uint32_t slot = c->slot_of_index[index];
        if (slot < c->slots && c->index_of_slot[slot] == index)
            continue;
        crowd_result result = place_instance(c, index, target, time, out + 12u * (size_t)index, what);
        if (result != CROWD_OK)
            return result;
    }
    return CROWD_OK;
}

/* count instances (indices[i], or i without a list) at crowd_time into out; the refusals go to
 * the crowd's last error. */
static crowd_result crowd_query(crowd *c, const uint32_t *indices, uint32_t count, bool is_bone, uint32_t which,
                                float *out, const char *what)
{
    if (!c)
        return CROWD_ERROR_ARGUMENT;
    crowd_error *error = &c->last_error;
    socket_target target = {0, NULL};
    crowd_result result = find_target(c->asset, is_bone, which, what, &target, error);
    if (result != CROWD_OK)
        return result;
    if (!out && count)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s: the transforms are NULL", what);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t index = indices ? indices[i] : i;
        if (index >= c->count)
            return indices ? crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s: indices[%u] is instance %u of %u", what, i,
                                        index, c->count)
                           : crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s: instance %u of %u", what, index, c->count);
    }
    if (!indices && count == c->count)
        return every_instance(c, target, out, what);
    float time = (float)c->time;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t index = indices ? indices[i] : i;
        result = place_instance(c, index, target, time, out + 12u * (size_t)i, what);
        if (result != CROWD_OK)
            return result;
    }
    return CROWD_OK;
}

/* The single calls' own refusals, before the shared path (whose index message names a list). */
static crowd_result check_single(crowd *c, uint32_t index, const float *transform, const char *what)
{
    if (!c)
        return CROWD_ERROR_ARGUMENT;
    if (!transform)
        return crowd_fail(&c->last_error, CROWD_ERROR_ARGUMENT, "%s: the transform is NULL", what);
    if (index >= c->count)
        return crowd_fail(&c->last_error, CROWD_ERROR_ARGUMENT, "%s: instance %u of %u", what, index, c->count);
    return CROWD_OK;
}

crowd_result crowd_socket_transform(crowd *c, uint32_t index, uint32_t socket, float transform[12])
{
    crowd_result result = check_single(c, index, transform, "crowd_socket_transform");
    return result != CROWD_OK ? result : crowd_query(c, &index, 1, false, socket, transform, "crowd_socket_transform");
}

crowd_result crowd_bone_transform(crowd *c, uint32_t index, uint32_t bone, float transform[12])
{
    crowd_result result = check_single(c, index, transform, "crowd_bone_transform");
    return result != CROWD_OK ? result : crowd_query(c, &index, 1, true, bone, transform, "crowd_bone_transform");
}

crowd_result crowd_socket_transforms(crowd *c, const uint32_t *indices, uint32_t count, uint32_t socket,
                                     float *transforms)
{
    return crowd_query(c, indices, count, false, socket, transforms, "crowd_socket_transforms");
}

crowd_result crowd_bone_transforms(crowd *c, const uint32_t *indices, uint32_t count, uint32_t bone, float *transforms)
{
    return crowd_query(c, indices, count, true, bone, transforms, "crowd_bone_transforms");
}
