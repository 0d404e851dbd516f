/* The gaits a simulation plays: which clip an agent stands in, and the locomotion clips by speed,
 * from the clips' roles and names (or the spawn options' names). */
#include <math.h>

#include "core/error.h"
#include "sim/sim_internal.h"

/* ---- gaits ------------------------------------------------------------------------------------ */

/* A clip an agent may stand in: idle by role, or (files baked before roles) one without a stride.
 * Never an action (a death, a roll) and never a gait. */
static bool can_stand(const crowd_clip *c, bool last_resort)
{
    crowd_clip_role role = crowd_clip_role_of(c);
    if (role == CROWD_ROLE_IDLE)
        return true;
    if (role == CROWD_ROLE_UNKNOWN)
        return !(c->stride > 0.0f);
    return last_resort && role == CROWD_ROLE_POSE;
}

static bool is_gait(const crowd_clip *c)
{
    crowd_clip_role role = crowd_clip_role_of(c);
    return (role == CROWD_ROLE_LOCOMOTION || role == CROWD_ROLE_UNKNOWN) && c->stride > 0.0f;
}

/* The phase of clip c whose frame has the most of the body on the ground (vertices within a few
 * percent of the clip's size above its lowest point): feet planted, the pose a gait holds when the
 * asset has nothing else to stand in. The frames are decoded as the shader does (at most 2048
 * vertices of each, evenly spread), once at creation. */
static float contact_phase(const crowd_asset *a, uint32_t c)
{
    const crowd_clip *clip = &a->clips[c];
    uint32_t every = a->vertex_count / 2048u + 1u, best = 0, best_count = 0;
    float lowest = INFINITY, p[3], n[3];
    for (uint32_t f = 0; f < clip->frame_count; f++)
        for (uint32_t v = 0; v < a->vertex_count; v += every)
            if (crowd_asset_decode_vertex(a, clip->first_frame + f, v, p, n) == CROWD_OK && p[1] < lowest)
                lowest = p[1];
    float ground = lowest + 0.03f * clip->bound_radius;
    for (uint32_t f = 0; f < clip->frame_count; f++) {
        uint32_t count = 0;
        for (uint32_t v = 0; v < a->vertex_count; v += every)
            count += crowd_asset_decode_vertex(a, clip->first_frame + f, v, p, n) == CROWD_OK && p[1] <= ground;
        if (count > best_count) {
            best_count = count;
            best = f;
        }
    }
    return (float)best / (float)clip->frame_count;
}

/* Where the asset offers nothing to stand in but a gait (the fallback below took one), standing
 * holds the slowest gait still in a contact pose instead of running in place. */
static void stand_in_a_gait(crowd_sim *sim)
{
    sim->pose_phase = -1.0f;
    const crowd_clip *idle = &sim->asset->clips[sim->gaits[0].clip];
    if (!(idle->stride > 0.0f) && crowd_clip_role_of(idle) != CROWD_ROLE_LOCOMOTION)
        return;
    if (sim->gait_count > 1 && !sim->desc.spawn.idle_clip) /* (a gait named to stand in stays) */
        sim->gaits[0].clip = sim->gaits[1].clip;
    sim->gaits[0].authored_rate = 0.0f;
    sim->pose_phase = contact_phase(sim->asset, sim->gaits[0].clip);
}

/* Idle, then the locomotion clips from slowest to fastest. Names are matched as people write them
 * (crowd_asset_match_clip: case-insensitive, "Armature|Idle"). Standing: the spawn options' idle
 * clip as given; else the clip named idle when its role allows, else the first idle-role clip,
 * else a pose, else anything but an action (roles first, names second); a gait taken so is held
 * in a contact pose (stand_in_a_gait). Gaits: the spawn options'
 * clips, else every locomotion clip. Names were checked at creation. */
void sim_build_gaits(crowd_sim *sim)
{
    const crowd_asset *a = sim->asset;
    const crowd_spawn_options *o = &sim->desc.spawn;
    uint32_t idle = 0, found;
    bool have_idle = false;
    if (o->idle_clip)
        have_idle = crowd_asset_match_clip(a, o->idle_clip, &idle);
    else if (crowd_asset_match_clip(a, "idle", &found) && can_stand(&a->clips[found], false)) {
        idle = found;
        have_idle = true;
    }
    for (int pass = 0; pass < 2 && !have_idle; pass++)
        for (uint32_t c = 0; c < a->clip_count && !have_idle; c++)
            if (can_stand(&a->clips[c], pass == 1)) {
                idle = c;
                have_idle = true;
            }
    for (uint32_t c = 0; c < a->clip_count && !have_idle; c++)
        if (crowd_clip_role_of(&a->clips[c]) != CROWD_ROLE_ACTION) {
            idle = c;
            have_idle = true;
        }
    sim->gait_count = 0;
    float idle_duration = a->clips[idle].duration;
    float idle_rate = idle_duration > 0 ? 1.0f / idle_duration : 0.0f;
    sim->gaits[sim->gait_count++] =
        (sim_gait){idle, 0.0f, 0.0f, idle_rate < CROWD_MAX_RATE ? idle_rate : CROWD_MAX_RATE};
    uint32_t candidates = o->gait_clips ? o->gait_clip_count : a->clip_count;
    for (uint32_t k = 0; k < candidates && sim->gait_count < SIM_MAX_GAITS; k++) {
        uint32_t c = k;
        if (o->gait_clips ? !crowd_asset_match_clip(a, o->gait_clips[k], &c) : !is_gait(&a->clips[c]))
            continue;
        const crowd_clip *clip = &a->clips[c];
        /* clips so short or strides so small that their rates leave float are not gaits */
        if (!(clip->stride >= 1e-3f && clip->duration >= 1e-3f && isfinite(clip->stride) && isfinite(clip->duration)))
            continue;
        sim_gait g = {c, clip->stride / clip->duration, 1.0f / clip->stride, 1.0f / clip->duration};
        uint32_t at = sim->gait_count++;
        while (at > 1 && sim->gaits[at - 1].speed > g.speed) { /* insertion sort by speed */
            sim->gaits[at] = sim->gaits[at - 1];
            at--;
        }
        sim->gaits[at] = g;
    }
    for (uint32_t g = 1; g + 1 < sim->gait_count; g++) /* the midpoints between natural speeds */
        sim->gait_switch[g] = 0.5f * (sim->gaits[g].speed + sim->gaits[g + 1].speed);
    sim->stands_only = sim->gait_count <= 1;
    stand_in_a_gait(sim);
    sim->cheer_clip = crowd_asset_match_clip(a, o->cheer_clip ? o->cheer_clip : "cheer", &found) ? (int)found : -1;
}

crowd_result crowd_sim_get_gaits(const crowd_sim *sim, crowd_sim_gaits *out)
{
    if (!sim || !out)
        return CROWD_ERROR_ARGUMENT;
    *out = (crowd_sim_gaits){.idle_clip = sim->gaits[0].clip,
                             .gait_count = sim->gait_count - 1,
                             .holds_pose = sim->pose_phase >= 0.0f,
                             .pose_phase = sim->pose_phase >= 0.0f ? sim->pose_phase : 0.0f};
    for (uint32_t g = 1; g < sim->gait_count; g++)
        out->gait_clips[g - 1] = sim->gaits[g].clip;
    return CROWD_OK;
}

/* Spawn options: names the asset has, ranges that make sense. */
crowd_result sim_check_spawn_options(const crowd_spawn_options *o, const crowd_asset *a, crowd_error *error)
{
    if (o->idle_clip && !crowd_asset_match_clip(a, o->idle_clip, NULL))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: spawn.idle_clip \"%s\": no such clip",
                          o->idle_clip);
    if (o->cheer_clip && !crowd_asset_match_clip(a, o->cheer_clip, NULL))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: spawn.cheer_clip \"%s\": no such clip",
                          o->cheer_clip);
    if (o->gait_clip_count > SIM_MAX_GAITS - 1 || (o->gait_clip_count && !o->gait_clips))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: spawn.gait_clips: at most %u names",
                          SIM_MAX_GAITS - 1);
    for (uint32_t k = 0; o->gait_clips && k < o->gait_clip_count; k++) {
        uint32_t c;
        if (!o->gait_clips[k] || !crowd_asset_match_clip(a, o->gait_clips[k], &c) || !(a->clips[c].stride > 0.0f))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd_sim_create: spawn.gait_clips[%u] \"%s\": not a clip with a stride", k,
                              o->gait_clips[k] ? o->gait_clips[k] : "(null)");
    }
    bool default_scale = o->scale_min == 0.0f && o->scale_max == 0.0f;
    if (!default_scale && !(o->scale_min >= 0.001f && o->scale_min <= o->scale_max && o->scale_max <= 1000.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: spawn scale %g..%g outside 0.001..1000",
                          (double)o->scale_min, (double)o->scale_max);
    if (o->shirts == 1 &&
        !(o->saturation_min >= 0.0f && o->saturation_min <= o->saturation_max && o->saturation_max <= 1.0f &&
          o->value_min >= 0.0f && o->value_min <= o->value_max && o->value_max <= 1.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_sim_create: spawn shirt saturation/value ranges "
                          "must be min <= max in [0, 1]");
    if (o->accessories < -1 || o->accessories > 2)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: spawn.accessories %d: -1, 0, 1 or 2",
                          o->accessories);
    double sum = 0.0;
    for (uint32_t k = 0; o->accessories > 0 && k < 8; k++) {
        if (!(o->accessory_odds[k] >= 0.0f && o->accessory_odds[k] <= 1.0f))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd_sim_create: spawn.accessory_odds[%u] = %g outside 0..1", k,
                              (double)o->accessory_odds[k]);
        sum += o->accessory_odds[k];
    }
    if (o->accessories == 2 && sum > 1.0 + 1e-6)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_sim_create: spawn.accessory_odds add up to %g: one slot at most (accessories 2) "
                          "needs at most 1",
                          sum);
    return CROWD_OK;
}
