/* The crowd simulation: agents, gaits and the step. One pass over the crowd's slots in memory
 * order: desired velocity (sim_steer.c), separation push (sim_separation.c), obstacles, then
 * speed -> gait -> stride-matched rate. Agents standing still in their idle are not rewritten. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/pool.h"
#include "crowd/sim_step.h"

static const char *const scenario_names[CROWD_SCENARIO_COUNT] = {"wander", "stampede", "parade", "mill", "gather"};

const char *crowd_scenario_name(crowd_scenario s)
{
    return (unsigned)s < CROWD_SCENARIO_COUNT ? scenario_names[s] : "unknown";
}

uint32_t sim_random(uint32_t *state)
{
    uint32_t x = *state ? *state : 0x6B43A9B5u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

float sim_uniform(uint32_t *state)
{
    return (float)(sim_random(state) >> 8) * (1.0f / 16777216.0f);
}

uint32_t sim_hash(uint32_t a, uint32_t b)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u + (a << 6) + (a >> 2));
    h ^= h >> 16; /* murmur3's finaliser */
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    return h ^ (h >> 16);
}

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

/* Idle, then the locomotion clips from slowest to fastest. Names are matched as people write them
 * (crowd_asset_match_clip: case-insensitive, "Armature|Idle"). Standing: the spawn options' idle
 * clip as given; else the clip named idle when its role allows, else the first idle-role clip,
 * else a pose, else anything but an action (roles first, names second). Gaits: the spawn options'
 * clips, else every locomotion clip. Names were checked at creation. */
static void build_gaits(crowd_sim *sim)
{
    const crowd_asset *a = sim->crowd->asset;
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
    sim->cheer_clip = crowd_asset_match_clip(a, o->cheer_clip ? o->cheer_clip : "cheer", &found) ? (int)found : -1;
}

/* Spawn options: names the asset has, ranges that make sense. */
static crowd_result check_spawn_options(const crowd_spawn_options *o, const crowd_asset *a, crowd_error *error)
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
    for (uint32_t k = 0; o->accessories == 1 && k < 8; k++)
        if (!(o->accessory_odds[k] >= 0.0f && o->accessory_odds[k] <= 1.0f))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd_sim_create: spawn.accessory_odds[%u] = %g outside 0..1", k,
                              (double)o->accessory_odds[k]);
    return CROWD_OK;
}

/* ---- lifetime --------------------------------------------------------------------------------- */

crowd_result crowd_sim_create(const crowd_sim_desc *desc, crowd_sim **out, crowd_error *error)
{
    if (!desc || !out || !desc->target)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: NULL desc, out or crowd");
    if ((unsigned)desc->scenario >= CROWD_SCENARIO_COUNT || desc->obstacle_count > SIM_MAX_OBSTACLES ||
        (desc->obstacle_count && !desc->obstacles))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: bad scenario or obstacles");
    if (desc->separation_radius != 0.0f &&
        !(desc->separation_radius > 0.0f && desc->separation_radius <= desc->target->desc.world_size))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: separation_radius %g outside (0, world size]",
                          (double)desc->separation_radius);
    for (uint32_t o = 0; o < desc->obstacle_count; o++) {
        const crowd_obstacle *ob = &desc->obstacles[o];
        if (!(fabsf(ob->x) < 1e9f && fabsf(ob->z) < 1e9f) || !(ob->radius > 0.0f && ob->radius < 1e4f))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "obstacles[%u]: bad position or radius", o);
    }
    if (desc->target->has_sim)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: the crowd already has a simulation");
    crowd_result checked = check_spawn_options(&desc->spawn, desc->target->asset, error);
    if (checked != CROWD_OK)
        return checked;
    crowd_sim *sim = crowd_calloc(1, sizeof *sim);
    if (!sim)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "sim: out of memory");
    sim->crowd = desc->target;
    sim->desc = *desc;
    if (!sim->desc.separation_limit)
        sim->desc.separation_limit = 40000;
    if (sim->desc.separation_radius == 0.0f)
        sim->desc.separation_radius = 0.7f;
    if (sim->desc.lod_distance == 0.0f)
        sim->desc.lod_distance = 40.0f;
    if (!sim->desc.lod_interval)
        sim->desc.lod_interval = 4;
    uint32_t lod = sim->desc.lod_interval;
    if (!sim->desc.offscreen_interval) /* (past 32 its double would be past the cap of 64: no separate rate) */
        sim->desc.offscreen_interval = lod == 1 ? 1 : lod <= 32 ? 2 * lod : lod;
    sim->fade_seconds = FADE_SECONDS;
    if (!(sim->desc.lod_distance > 0.0f) || lod > 64) {
        crowd_free(sim);
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_sim_create: lod_distance %g must be positive (0: default) and lod_interval %u at most "
                          "64",
                          (double)desc->lod_distance, desc->lod_interval);
    }
    if (sim->desc.offscreen_interval > 64 || sim->desc.offscreen_interval % lod) {
        crowd_free(sim);
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_sim_create: offscreen_interval %u must be a multiple of lod_interval (%u) and at most "
                          "64 (0: default)",
                          desc->offscreen_interval, lod);
    }
    sim->desc.obstacles = NULL;
    sim->spawn_rng = desc->seed * 2654435761u + 12345u;
    crowd *c = sim->crowd;
    uint32_t cap = c->slot_capacity; /* per slot, slack included */
    sim->fine_size = fmaxf(sim->desc.separation_radius, c->desc.world_size / (float)SIM_FINE_MAX_DIM);
    sim->fine_dim = (uint32_t)ceilf(c->desc.world_size / sim->fine_size);
    sim->fine_dim = sim->fine_dim < SIM_FINE_MAX_DIM ? sim->fine_dim : SIM_FINE_MAX_DIM; /* rounding */
    sim->obstacle_count = desc->obstacle_count;
    sim->obstacles = crowd_malloc(sizeof *sim->obstacles * (desc->obstacle_count + 1));
    sim->fine_rows = crowd_malloc(sizeof(uint32_t) * 2 * ((size_t)sim->fine_dim + 2));
    sim->fine_cell_of = crowd_malloc(sizeof(uint32_t) * cap);
    sim->fine_gathered = crowd_malloc(2 * sizeof(float) * cap);
    sim->fine_keyed = crowd_malloc(sizeof(uint64_t) * cap);
    sim->fine_sorted_key = crowd_malloc(sizeof(uint32_t) * ((size_t)cap + 1));
    sim->fine_slots = crowd_malloc(sizeof(uint32_t) * cap);
    sim->fine_position = crowd_malloc(2 * sizeof(float) * cap);
    sim->fine_push = crowd_malloc(2 * sizeof(float) * cap);
    uint32_t threads = crowd_pool_threads(c->pool), row_table = sim->fine_dim + 2;
    if (threads > 1) { /* the separation's sort on the threads too (sim_separation.c) */
        sim->fine_band_sorted = crowd_malloc(sizeof(uint64_t) * cap);
        sim->fine_share_rows = crowd_malloc(sizeof(uint32_t) * threads * row_table);
        sim->fine_band_tables = crowd_malloc(sizeof(uint32_t) * SIM_BANDS_PER_THREAD * threads * 2 * row_table);
    }
    sim->far_of_cell = crowd_calloc(c->cell_count + 3, 1);
    /* the agents' state, per slot: the crowd moves it with the records once attached */
    crowd_agent *agents = crowd_calloc(cap, sizeof *agents), *agents_back = crowd_calloc(cap, sizeof *agents);
    crowd_drift *drift = crowd_calloc(cap, sizeof *drift), *drift_back = crowd_calloc(cap, sizeof *drift);
    crowd_sleep sleep = {crowd_calloc(cap, sizeof(float)), crowd_calloc(cap, sizeof(uint32_t)), c->cell_count};
    crowd_sleep sleep_back = {crowd_calloc(cap, sizeof(float)), crowd_calloc(cap, sizeof(uint32_t)), c->cell_count};
    sim->sleepers = crowd_malloc(sizeof *sim->sleepers * c->cell_count);
    sim->sleep_delta = crowd_malloc(sizeof *sim->sleep_delta * c->cell_count);
    sim->sleep_prior = crowd_malloc(sizeof *sim->sleep_prior * c->cell_count);
    sim->sleep_gate = crowd_calloc(2 * (size_t)c->cell_count + 1, 1);
    sim->chunk_far = crowd_calloc(c->cell_count, 1);
    sim->chunk_offscreen = crowd_calloc(c->cell_count, 1);
    sim->chunk_active = crowd_calloc(((size_t)c->grid_dim + 2) * (c->grid_dim + 2), 1); /* a border of zeros */
    size_t task_cells = (size_t)c->task_count * c->cell_count;
    crowd_sleepers *task_sleepers = task_cells ? crowd_malloc(sizeof *task_sleepers * task_cells) : NULL;
    uint32_t *task_touched = task_cells ? crowd_malloc(sizeof *task_touched * task_cells) : NULL;
    crowd_result r = CROWD_OK;
    if (!sim->obstacles || !sim->fine_rows || !sim->fine_cell_of || !sim->fine_gathered || !sim->fine_keyed ||
        !sim->fine_sorted_key || !sim->fine_slots || !sim->fine_position || !sim->fine_push || !sim->far_of_cell ||
        (threads > 1 && (!sim->fine_band_sorted || !sim->fine_share_rows || !sim->fine_band_tables)) || !agents ||
        !agents_back || !drift || !drift_back || !sleep.until || !sleep.cell || !sleep_back.until || !sleep_back.cell ||
        !sim->sleepers || !sim->sleep_delta || !sim->sleep_prior || !sim->sleep_gate || !sim->chunk_far ||
        !sim->chunk_offscreen || !sim->chunk_active || (task_cells && (!task_sleepers || !task_touched))) {
        crowd_free(agents);
        crowd_free(agents_back);
        crowd_free(drift);
        crowd_free(drift_back);
        crowd_free(sleep.until);
        crowd_free(sleep.cell);
        crowd_free(sleep_back.until);
        crowd_free(sleep_back.cell);
        crowd_free(task_sleepers);
        crowd_free(task_touched);
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "sim: out of memory for %u agents", cap);
    } else {
        crowd_attach_sim_state(c, agents, agents_back, drift, drift_back);
        c->sleep = sleep;
        c->sleep_back = sleep_back;
        c->task_sleepers = task_sleepers;
        c->task_sleep_touched = task_touched;
        for (uint32_t i = 0; i < c->cell_count; i++) {
            crowd_sleepers_clear(&sim->sleepers[i]);
            crowd_sleepers_clear(&sim->sleep_delta[i]);
            crowd_sleepers_clear(&sim->sleep_prior[i]);
        }
        for (size_t i = 0; i < task_cells; i++)
            crowd_sleepers_clear(&task_sleepers[i]);
        sim->owns_state = true;
    }
    if (r == CROWD_OK) {
        if (desc->obstacle_count)
            memcpy(sim->obstacles, desc->obstacles, sizeof *sim->obstacles * desc->obstacle_count);
        r = sim_build_obstacle_grid(sim, error);
    }
    if (r != CROWD_OK) {
        crowd_sim_destroy(sim);
        return r;
    }
    build_gaits(sim);
    /* the names are the caller's, read only here */
    sim->desc.spawn.idle_clip = sim->desc.spawn.cheer_clip = NULL;
    sim->desc.spawn.gait_clips = NULL;
    for (uint32_t b = 0; b < 256; b++) /* the division the wander step would do per agent */
        sim->cruise_scale[b] = (float)b * (1.0f / 20.0f) / 32767.0f;
    *out = sim;
    return CROWD_OK;
}

void crowd_sim_destroy(crowd_sim *sim)
{
    if (!sim)
        return;
    crowd *c = sim->crowd;
    if (c->has_sim && sim->owns_state) { /* hand the per-slot state back and free it */
        crowd_free(c->agents);
        crowd_free(c->agents_back);
        crowd_free(c->drift);
        crowd_free(c->drift_back);
        crowd_free(c->sleep.until);
        crowd_free(c->sleep.cell);
        crowd_free(c->sleep_back.until);
        crowd_free(c->sleep_back.cell);
        crowd_free(c->task_sleepers);
        crowd_free(c->task_sleep_touched);
        c->sleep = c->sleep_back = (crowd_sleep){NULL, NULL, 0};
        c->task_sleepers = NULL;
        c->task_sleep_touched = NULL;
        crowd_detach_sim_state(c);
    }
    crowd_free(sim->sleepers);
    crowd_free(sim->sleep_delta);
    crowd_free(sim->sleep_prior);
    crowd_free(sim->sleep_gate);
    crowd_free(sim->chunk_far);
    crowd_free(sim->chunk_offscreen);
    crowd_free(sim->chunk_active);
    crowd_free(sim->obstacles);
    crowd_free(sim->chunk_obstacle_start);
    crowd_free(sim->obstacle_ids);
    crowd_free(sim->fine_rows);
    crowd_free(sim->fine_cell_of);
    crowd_free(sim->fine_gathered);
    crowd_free(sim->fine_keyed);
    crowd_free(sim->fine_sorted_key);
    crowd_free(sim->fine_slots);
    crowd_free(sim->fine_position);
    crowd_free(sim->fine_push);
    crowd_free(sim->fine_band_sorted);
    crowd_free(sim->fine_share_rows);
    crowd_free(sim->fine_band_tables);
    crowd_free(sim->far_of_cell);
    crowd_free(sim);
}

void crowd_sim_set_scenario(crowd_sim *sim, crowd_scenario scenario)
{
    if (!sim || (unsigned)scenario >= CROWD_SCENARIO_COUNT)
        return;
    sim->desc.scenario = scenario;
    sim->crowd->sleep_stale = true;
    for (uint32_t s = 0; s < sim->crowd->slots; s++)
        sim->crowd->agents[s].cruise = 0xFF; /* re-decide under the new scenario */
}

void crowd_sim_set_separation(crowd_sim *sim, int mode)
{
    if (sim)
        sim->desc.separation = mode;
}

const crowd_sim_stats *crowd_sim_get_stats(const crowd_sim *sim)
{
    return sim ? &sim->stats : NULL;
}

static bool inside_obstacle(const crowd_sim *sim, float x, float z, float margin)
{
    for (uint32_t o = 0; o < sim->obstacle_count; o++) {
        float ex = x - sim->obstacles[o].x, ez = z - sim->obstacles[o].z, r = sim->obstacles[o].radius + margin;
        if (ex * ex + ez * ez < r * r)
            return true;
    }
    return false;
}

/* A random colour that reads well on a shirt: bright hues, varied lightness (the spawn options'
 * ranges, or the defaults). */
static void random_shirt(const crowd_spawn_options *o, uint32_t *rng, uint8_t rgb[3])
{
    if (o->shirts < 0) {
        rgb[0] = rgb[1] = rgb[2] = 255;
        return;
    }
    bool custom = o->shirts > 0;
    float v_lo = custom ? o->value_min : 0.45f, v_span = custom ? o->value_max - o->value_min : 0.5f;
    float s_lo = custom ? o->saturation_min : 0.35f, s_span = custom ? o->saturation_max - o->saturation_min : 0.6f;
    float h = sim_uniform(rng) * 6.0f, v = v_lo + v_span * sim_uniform(rng), s = s_lo + s_span * sim_uniform(rng);
    int i = (int)h;
    float f = h - (float)i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    float c[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    for (int k = 0; k < 3; k++)
        rgb[k] = (uint8_t)(c[i % 6][k] * 255.0f);
}

crowd_result crowd_sim_spawn(crowd_sim *sim, uint32_t count)
{
    if (!sim)
        return CROWD_ERROR_ARGUMENT;
    crowd *c = sim->crowd;
    crowd_result r = crowd_set_count(c, count);
    if (r != CROWD_OK)
        return r;
    float half = -c->world_min - 2.0f;
    const crowd_spawn_options *o = &sim->desc.spawn;
    bool default_scale = o->scale_min == 0.0f && o->scale_max == 0.0f;
    float scale_lo = default_scale ? 0.92f : o->scale_min,
          scale_span = default_scale ? 0.16f : o->scale_max - o->scale_min;
    sim->tick = (uint32_t)(c->time * 20.0); /* decision deadlines count from now */
    sim->t_now = (float)c->time;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t *rng = &sim->spawn_rng;
        float x = 0.0f, z = 0.0f;
        for (int attempt = 0; attempt < 32; attempt++) {
            x = (sim_uniform(rng) * 2.0f - 1.0f) * half;
            z = (sim_uniform(rng) * 2.0f - 1.0f) * half;
            if (!inside_obstacle(sim, x, z, 1.0f))
                break;
        }
        float yaw = sim_uniform(rng) * 6.2831853f;
        crowd_set_transform(c, i, x, 0.0f, z, yaw);
        crowd_set_scale(c, i, scale_lo + scale_span * sim_uniform(rng));
        crowd_variant v = {{0, 0, 0}, {0}, 0};
        random_shirt(o, rng, v.tint);
        for (int k = 0; k < 6; k++)
            v.region_choice[k] = (uint8_t)(sim_random(rng) & 15u);
        if (o->accessories == 0) { /* the default: a hat or a balloon, never both */
            float hat = sim_uniform(rng);
            v.accessories = (uint8_t)((hat < 0.3f ? 1u : 0u) | (hat > 0.88f ? 2u : 0u));
        } else if (o->accessories > 0) {
            for (uint32_t k = 0; k < 8; k++)
                v.accessories |= (uint8_t)((sim_uniform(rng) < o->accessory_odds[k] ? 1u : 0u) << k);
        }
        crowd_set_variant(c, i, &v);
        uint32_t slot = crowd_slot_of(c, i);
        crowd_agent *a = &c->agents[slot];
        memset(a, 0, sizeof *a);
        a->direction[0] = (int16_t)(sinf(yaw) * 32767.0f);
        a->direction[1] = (int16_t)(cosf(yaw) * 32767.0f);
        a->lane = (uint8_t)(sim_random(rng) & 0xFFu);
        a->cruise = 0xFF; /* decide now */
        /* Already under way: the scenario's velocity and its gait from the first frame, at a random
         * phase so the crowd is not in lockstep. */
        float desired[2];
        sim_desired_velocity(sim, slot, desired);
        a->velocity[0] = desired[0];
        a->velocity[1] = desired[1];
        float speed = sqrtf(desired[0] * desired[0] + desired[1] * desired[1]);
        a->gait = (uint8_t)gait_for_speed(sim, 0, speed / c->records[slot].scale);
        uint32_t clip = sim->gaits[a->gait].clip;
        crowd_play_slot(c, slot, clip, clamp_rate(crowd_stride_rate(c, clip, speed, c->records[slot].scale)), 0.0f,
                        false);
        if (speed > 0.05f)
            c->records[slot].yaw = crowd_atan2(desired[0], desired[1]);
        c->records[slot].offset_a = c->records[slot].offset_b = sim_uniform(rng);
        c->records[slot].velocity = crowd_pack_velocity(desired[0], desired[1]); /* walks on from now */
    }
    return CROWD_OK;
}

/* ---- the step --------------------------------------------------------------------------------- */

bool sim_step_rare(crowd_sim *sim, step_params k, uint32_t s, const float p_in[3], float speed, bool drifting,
                   crowd_drift drift, float target)
{
    crowd *c = sim->crowd;
    crowd_record *r = &c->records[s];
    crowd_agent *a = &c->agents[s];
    float *v = a->velocity, p[3] = {p_in[0], p_in[1], p_in[2]};
    if (speed < 0.001f) { /* standing still: only a drift moves it */
        bool wrote = false;
        v[0] = v[1] = 0.0f;
        if (a->gait != 0 || (k.gather && sim->cheer_clip >= 0 && crowd_rec_clip_a(r) != (uint32_t)sim->cheer_clip)) {
            update_gait(sim, s, a, 0.0f, k.gather);
            wrote = c->dirty[s] != 0;
        }
        if (!drifting) {
            if (r->velocity) { /* it walked until now: stop the extrapolation where it is */
                crowd_rec_anchor(r, k.t_next);
                r->velocity = 0;
                c->dirty[s] = 1;
                return true;
            }
            return wrote; /* leave the record (and the upload) alone */
        }
    }
    if (k.wraps && p[0] > k.half)
        p[0] -= k.world;
    float x = p[0], z = p[2];
    p[0] = p[0] < -k.half ? -k.half : p[0] > k.half ? k.half : p[0];
    p[2] = p[2] < -k.half ? -k.half : p[2] > k.half ? k.half : p[2];
    /* held at the edge: it must not walk on past it between steps */
    bool held = p[0] != x || p[2] != z;
    write_motion(c, s, p, k.t_next, held ? 0u : crowd_pack_velocity(v[0] + drift.x, v[1] + drift.z));
    if (speed < 0.001f)
        return true;
    if (speed > 0.05f)
        r->yaw = crowd_atan2(v[0], v[1]);
    update_gait(sim, s, a, target >= 0.0f ? target : speed, k.gather && speed < IDLE_ENTER);
    return true;
}

/* ---- sleep: stepping only agents whose next step can change something --------------------------
 *
 * A wandering agent walking straight at its cruise velocity (or standing settled) in a chunk
 * without obstacles, fading nothing, changes nothing until its next event: its next decision (its
 * deadline `due`), reaching the edge margin where it heads back in (sim_steer.c, judged where a
 * step starts), or leaving its chunk (binning, movers, obstacles ahead). All three are known from
 * its record and state, so it sleeps until the earliest: the walk skips it (4 bytes read, 8 in the far pool, instead of
 * its record and state), the GPU extrapolates it as before, and its chunk counts it through the
 * chunk's sleepers, whose bounds hold the segment it walks while asleep (culling stays
 * conservative: a chunk's bounds are never smaller than its instances'). Stepping it is meant to
 * do nothing, so that records, decisions and movers are the same as without sleep: against a
 * crowd that steps every agent they are, byte for byte (test_crowd, sleepers_keep_chunks_exact; an
 * agent past the edge margin and heading further out stays awake, as steering turns it in at its
 * next step; heading in, its direction holds and it sleeps). Wakes come early rather than late:
 * SLEEP_EARLY seconds before a decision, wake_margin (under a millimetre in most worlds) before its
 * chunk's edge, a centimetre before the margin.
 *
 * The chunk bounds are wider, by the sleepers' walk, and would only grow: each sleeper's segment
 * stays in them after it wakes. So they come in two generations per chunk. Falls go into the
 * current one; once the last agent of the previous generation has woken (a step whose end reaches
 * the latest of their wake times), the current one becomes the previous and a new one starts. No
 * sleep is longer than a decision interval (6.35 s; under separation, a chunk's interval less half a
 * step: sim_far.c), so a chunk's bounds hold the segments of agents that fell asleep in the last 13 s
 * at most (32 s at an interval of 64 and the longest step), always inside the chunk's own square (a
 * sleeper wakes before it leaves its chunk), and nobody is woken to shrink them. (Until session
 * 14 every chunk's sleepers were woken every 120 steps instead: 1.2 % of a million agents stepped
 * per frame for bounds alone.) */
#define SLEEP_EARLY 0.01f

/* A would-be sleeper's path from p (the record r, at t_next): per axis, its velocity now (u) and
 * the one it turns to (d; a straight record's is u), and `settle`, a turning record's 1/k (else 0).
 * Its coordinate then moves by d t + (u - d)(1 - e^(-k t))/k, whose second term lies between 0 and
 * (u - d) min(t, 1/k): so its path keeps, per axis, between p + d t + min(0, u - d) min(t, 1/k) and
 * p + d t + max(0, u - d) min(t, 1/k). (Bounding it by its extreme velocities, p + lo t and p + hi t,
 * as until session 17, woke a far crowd's turning sleepers several times a turn: 2.2k a step of
 * the million's.) */
typedef struct sleep_path {
    float ux, uz, dx, dz, settle;
    bool turning;
} sleep_path;

static CROWD_ALWAYS_INLINE sleep_path path_of(const crowd_record *r, float t_next)
{
    float vx = crowd_float_from_half(r->velocity & 0xFFFFu), vz = crowd_float_from_half(r->velocity >> 16);
    sleep_path w = {vx, vz, vx, vz, 0.0f, (r->clips & CROWD_RECORD_TURN) != 0};
    if (w.turning) {
        float u[2];
        crowd_rec_turn_velocity(r, t_next, u);
        w = (sleep_path){u[0], u[1], r->offset_b, r->rate_b, 1.0f / r->fade_start, true};
    }
    return w;
}

/* Along one axis, with velocity u now turning to d (`settle` as above): how long until the bound
 * above says it may have moved `gap` forward: INFINITY if never, `gap` itself if that is not
 * positive and it moves forward at all (it may be there now). */
static CROWD_ALWAYS_INLINE float time_to_rise(float gap, float u, float d, float settle)
{
    float a = u > d ? u - d : 0.0f, first = d + a; /* the bound's slope until settle, then d (<= first) */
    if (!(first > 0.0f))
        return INFINITY;
    if (!(gap > 0.0f)) /* (NaN, from an infinite margin at a border: no sleep) */
        return isnan(gap) ? 0.0f : gap;
    if (gap <= first * settle)
        return gap / first;
    return d > 0.0f ? settle + (gap - first * settle) / d : INFINITY;
}

/* The same, backward (the coordinate falling by `gap`). */
static CROWD_ALWAYS_INLINE float time_to_fall(float gap, float u, float d, float settle)
{
    return time_to_rise(gap, -u, -d, settle);
}

/* How far forward along one axis the bound above may take it within `span` seconds (>= 0; the
 * bound is piecewise linear: its extremes are at 0, settle and span). */
static CROWD_ALWAYS_INLINE float reach_forward(float u, float d, float settle, float span)
{
    float a = u > d ? u - d : 0.0f, bend = settle < span ? settle : span;
    float at_span = d * span + a * bend, at_bend = (d + a) * bend;
    float most = at_span > at_bend ? at_span : at_bend;
    return most > 0.0f ? most : 0.0f;
}

/* How near its chunk's edge (chunk units) a sleeper at p on path w, falling asleep at t_next, may
 * be woken: farther than float rounding can move it between where its sleep is reckoned and where a
 * later step's binning puts it (crowd_rec_position then): a few ulps of its coordinates and of the
 * path a sleep may walk (SLEEP_LONGEST), its speed times a few ulps of the shader time (wake times
 * are floats, and crowd_update's rebase keeps them under 2^12 s), and a tenth of a millimetre. (A
 * thousandth of a chunk until session 17: 2.4 cm in crowd-bench's chunks, over a step's walk, so
 * agents within it heading for the edge stayed awake, however slowly they closed in: about one in
 * 500 of the million, and 15 % of its step.) */
#define SLEEP_LONGEST 6.4f /* seconds: 128 decision ticks */

/* The most a path's velocity reaches along x and z (between u and d on each). */
static CROWD_ALWAYS_INLINE void path_extent(sleep_path w, float *ax, float *az)
{
    float ux = fabsf(w.ux), dx = fabsf(w.dx), uz = fabsf(w.uz), dz = fabsf(w.dz);
    *ax = ux > dx ? ux : dx; /* (compares, not fmaxf: a call, for its NaN rules) */
    *az = uz > dz ? uz : dz;
}

static CROWD_ALWAYS_INLINE float wake_margin(const crowd_grid_map *g, const float p[3], sleep_path w, float t_next)
{
    float ax, az;
    path_extent(w, &ax, &az);
    float speed = ax + az;
    float reach = fabsf(p[0]) + fabsf(p[2]) + fabsf(g->origin) + speed * SLEEP_LONGEST;
    return ((8.0f * reach + 4.0f * speed * t_next) * FLT_EPSILON + 1e-4f) * g->inv_cell;
}

/* Seconds until an agent at p on path w (at t_next) may come within wake_margin of its chunk's edge
 * (the cache's bounds; border chunks reach to infinity), or `span` if sooner. */
static CROWD_ALWAYS_INLINE float until_chunk_edge(const crowd_grid_map *g, const chunk_cache *cc, const float p[3],
                                                  sleep_path w, float t_next, float span)
{
    float tx = (p[0] - g->origin) * g->inv_cell, tz = (p[2] - g->origin) * g->inv_cell, t;
    float m = wake_margin(g, p, w, t_next), c = g->inv_cell;
    t = time_to_rise(cc->hi_x - m - tx, w.ux * c, w.dx * c, w.settle);
    span = t < span ? t : span;
    t = time_to_rise(cc->hi_z - m - tz, w.uz * c, w.dz * c, w.settle);
    span = t < span ? t : span;
    t = time_to_fall(tx - cc->lo_x - m, w.ux * c, w.dx * c, w.settle);
    span = t < span ? t : span;
    t = time_to_fall(tz - cc->lo_z - m, w.uz * c, w.dz * c, w.settle);
    return t < span ? t : span;
}

/* Slot s (record r, at p at the step's end on path w, in chunk) sleeps for `span` seconds, if that
 * reaches past this step (`resting`: sleep_until_at's); returns whether it does. */
static CROWD_ALWAYS_INLINE bool sleep_along(crowd_binner *bin, crowd_sleep z, uint32_t s, const crowd_record *r,
                                            const float p[3], uint32_t chunk, sleep_path w, float t_next, float span,
                                            bool resting)
{
    float until = t_next + span;
    if (!(span > 0.0f) || !(until > t_next))
        return false;
    const float lo[3] = {p[0] - reach_forward(-w.ux, -w.dx, w.settle, span), p[1],
                         p[2] - reach_forward(-w.uz, -w.dz, w.settle, span)};
    const float hi[3] = {p[0] + reach_forward(w.ux, w.dx, w.settle, span), p[1],
                         p[2] + reach_forward(w.uz, w.dz, w.settle, span)};
    sleep_until(bin, z, s, r, chunk, until, lo, hi, resting);
    return true;
}

/* Seconds from t_next until SLEEP_EARLY before agent a's next decision (at most 127 ticks on), or
 * a negative number where it has none ahead (or one due now). */
static CROWD_ALWAYS_INLINE float until_decision(const crowd_agent *a, uint32_t tick, float t_next)
{
    uint32_t ahead = (uint8_t)(a->due - (uint8_t)tick); /* ticks to its next decision (sim_steer.c) */
    if (a->cruise == 0xFF || ahead == 0 || ahead >= 128)
        return -1.0f;
    return (float)((double)(tick + ahead) * 0.05) - SLEEP_EARLY - t_next;
}

/* Slot s (record r, agent a, at p at the step's end, in chunk with the cache's bounds) falls asleep
 * until its next event, if that is after this step; returns whether it does. */
static CROWD_ALWAYS_INLINE bool fall_asleep(const crowd_sim *sim, crowd_binner *bin, crowd_sleep z, uint32_t s,
                                            const crowd_record *r, const crowd_agent *a, const float p[3],
                                            uint32_t chunk, const chunk_cache *cc, float t_next, uint32_t tick,
                                            float edge)
{
    float span = until_decision(a, tick, t_next);
    /* Past the edge margin and heading further out on that axis, the next step's steering re-aims
     * it at the centre (sim_heads_out): awake. Heading in there, its direction holds. */
    bool past_x = fabsf(p[0]) > edge, past_z = fabsf(p[2]) > edge;
    if (!(span > 0.0f) || (past_x && p[0] * (float)a->direction[0] > 0.0f) ||
        (past_z && p[2] * (float)a->direction[1] > 0.0f))
        return false;
    sleep_path w = path_of(r, t_next);
    span = until_chunk_edge(&bin->grid, cc, p, w, t_next, span);
    /* then the edge margin (a straight walker heads for one edge of each axis, a turning one may for
     * either; on an axis it is past the margin on, heading in, crossing back changes nothing) */
    float e = edge - 0.01f, t;
    t = past_x ? INFINITY : time_to_rise(e - p[0], w.ux, w.dx, w.settle);
    span = t < span ? t : span;
    t = past_z ? INFINITY : time_to_rise(e - p[2], w.uz, w.dz, w.settle);
    span = t < span ? t : span;
    t = past_x ? INFINITY : time_to_fall(p[0] + e, w.ux, w.dx, w.settle);
    span = t < span ? t : span;
    t = past_z ? INFINITY : time_to_fall(p[2] + e, w.uz, w.dz, w.settle);
    span = t < span ? t : span;
    if (cc->obstacles) { /* and the chunk's obstacles' reach */
        if (w.turning) {
            float ax, az;
            path_extent(w, &ax, &az);
            t = sim_obstacle_reach_time(sim, chunk, p, sqrtf(ax * ax + az * az));
        } else {
            t = sim_obstacle_time(sim, chunk, p, w.ux, w.uz);
        }
        span = t < span ? t : span;
    }
    return sleep_along(bin, z, s, r, p, chunk, w, t_next, span, false);
}

/* Resting sleepers: a far agent (a chunk re-planned every interval-th step, sim_far_phase; without
 * separation) does nothing between its chunk's turns but walk on with its record, unless its
 * decision comes due or it leaves its chunk: the margin and obstacles wait for the turn, and so
 * does a velocity that is not yet what it wants (a turn stepped per step, after an obstacle or a
 * fade). So one that cannot sleep until its event (above) sleeps until the earliest of its
 * decision, its chunk's edge and its chunk's next turn (`hold`: that many steps less half a step, of
 * this one's length). Its sleep word says so, and the turn's gate byte for resting sleepers is 0
 * (refresh_sleepers), so that turn wakes it however short the steps were; others in the chunk sleep
 * on. In crowd-bench's million (steady state, steps without decisions) the far agents a step visits
 * went from about 16k to 8k. A fading record's fold is the walk's (crowd_bin_fade): awake. Returns
 * whether it sleeps. */
static CROWD_ALWAYS_INLINE bool rest_asleep(crowd_binner *bin, crowd_sleep z, uint32_t s, const crowd_record *r,
                                            const crowd_agent *a, const float p[3], uint32_t chunk,
                                            const chunk_cache *cc, float t_next, uint32_t tick, float hold)
{
    float span = until_decision(a, tick, t_next);
    if (!(hold > 0.0f) || !(span > 0.0f) || r->fade_rate > 0.0f)
        return false;
    sleep_path w = path_of(r, t_next);
    return sleep_along(bin, z, s, r, p, chunk, w, t_next,
                       until_chunk_edge(&bin->grid, cc, p, w, t_next, span < hold ? span : hold), true);
}

/* ---- turns: far agents' turns as closed-form records ---------------------------------------------
 *
 * Steering turns an agent's velocity v towards the desired one d by blend = dt x SIM_TURN_RATE per
 * step: v' = d + (v - d) e^(-k t) in the limit, k = SIM_TURN_RATE. While d holds (a wandering
 * agent's changes at its decisions and at the edge margin only) that is a closed form, which a
 * record can carry (CROWD_RECORD_TURN: d and k in clip B's words, crowd.h), so the GPU turns the
 * agent and the CPU has nothing to do until d changes: a far agent (the level of detail above)
 * whose re-plan finds it turning writes one turning record, anchored where it is at the step's
 * start, and from then on is an agent whose steps change nothing (it sleeps like a steady walker,
 * with bounds for its curved path) until its next decision, the edge margin, an obstacle's reach
 * or its chunk's edge. The simulation's velocity of such an agent is d (so a re-plan that finds d
 * unchanged sees it steady); wherever it leaves the closed form it steers on per step from the
 * velocity the record has then.
 *
 * Not turned this way (today's per-step path instead): near agents (a turning record found near,
 * e.g. after the camera came closer, goes back to per-step steering, and a chunk coming near wakes
 * its sleepers); other scenarios (their d changes every step); separation on (drift); a running
 * fade; a turn that needs another gait where a fade can show (the gait and rate a far agent plays
 * go by the speed it turns to, so the fade starts at the decision and the turn record follows once
 * it has folded; where no level that cross-fades can draw the agent, mark_far_cells, the gait cuts
 * at the decision and the turn is a record at once);
 * past the edge margin heading out (its next step turns it in, then the direction holds and the
 * turn is a record); within reach of an obstacle (avoidance
 * changes the velocity). Feet: a far agent plays the gait and rate of its desired speed (set at
 * the re-plan; per step too, so a fade needed by a decision starts there and no second one
 * follows), so during a turn its feet slide while its speed changes; near agents' feet are matched
 * per step as before. test_crowd's feet_do_not_slide measures every record but closed-form turns:
 * far agents on the per-step path after a decision are in, its worst case (781 %: a run's rate for
 * a walker still at 0.4 m/s), while its 99th percentile stays at 0.08 %. */
#define SIM_TURN_RATE 4.0f

/* Starts slot s's turn towards `want` (its velocity now in the agent, its record straight), if it
 * may (above); returns whether it did. */
static bool start_turn(crowd_sim *sim, const step_params *k, uint32_t s, const float want[2], float edge,
                       const uint32_t *obstacles)
{
    crowd *c = sim->crowd;
    crowd_record *r = &c->records[s];
    crowd_agent *a = &c->agents[s];
    float *v = a->velocity, p[3];
    if (r->fade_rate > 0.0f)
        return false;
    crowd_rec_position(r, k->t_now, p);
    /* past the edge margin, the steering turns it in once and holds (sim_heads_out) */
    if ((fabsf(p[0]) > edge && p[0] * want[0] > 0.0f) || (fabsf(p[2]) > edge && p[2] * want[1] > 0.0f))
        return false;
    const crowd_grid_map grid = crowd_grid_of(c);
    uint32_t chunk = crowd_chunk_at(&grid, p);
    if (obstacles[chunk] != obstacles[chunk + 1]) {
        float ax = fabsf(v[0]) > fabsf(want[0]) ? fabsf(v[0]) : fabsf(want[0]);
        float az = fabsf(v[1]) > fabsf(want[1]) ? fabsf(v[1]) : fabsf(want[1]);
        if (sim_obstacle_reach_time(sim, chunk, p, sqrtf(ax * ax + az * az)) < 0.25f)
            return false;
    }
    float speed = sqrtf(want[0] * want[0] + want[1] * want[1]);
    if (sim->gait_count && sim->fade_seconds > 0.0f &&
        sim->gaits[gait_for_speed(sim, a->gait, speed / r->scale)].clip != crowd_rec_clip_a(r))
        return false;
    uint32_t word = crowd_pack_velocity(v[0], v[1]);
    crowd_rec_set_motion(r, p, k->t_now, word);
    update_gait(sim, s, a, speed, false); /* the rate it turns to (the clip stays, or cuts: checked) */
    float u0 = crowd_float_from_half(word & 0xFFFFu), u1 = crowd_float_from_half(word >> 16);
    if (u0 * u0 + u1 * u1 > CROWD_TURN_YAW_SPEED2) /* the yaw field shows while it barely moves */
        r->yaw = crowd_atan2(u0, u1);
    r->offset_b = want[0];
    r->rate_b = want[1];
    r->fade_start = SIM_TURN_RATE;
    r->clips |= CROWD_RECORD_TURN;
    v[0] = want[0];
    v[1] = want[1];
    c->dirty[s] = 1;
    return true;
}

/* Whether a far wanderer walking on between its re-plans (record r, agent a) would find, at its
 * next re-plan before its next event, that nothing changes: the velocity it steers by is its
 * desired one already (sim_wander_velocity: no decision is due and it does not head out, as
 * fall_asleep wakes it before either) and the record is the one such a re-plan leaves alone (a
 * straight walk or standing settled, or a closed-form turn to that velocity where turns are
 * records; no fade running). Then it may sleep now, as the agent
 * re-planned steady does, instead of staying awake until its turn. */
static CROWD_ALWAYS_INLINE bool walks_on_unchanged(const crowd_sim *sim, const crowd_record *r, const crowd_agent *a,
                                                   bool far_turns)
{
    if (r->fade_rate > 0.0f)
        return false;
    const float *v = a->velocity;
    float want[2];
    sim_wander_velocity(a, sim->cruise_scale, want);
    if (v[0] != want[0] || v[1] != want[1])
        return false;
    if (r->clips & CROWD_RECORD_TURN)
        return far_turns;
    return v[0] != 0.0f || v[1] != 0.0f || (a->gait == 0 && !r->velocity);
}

/* Region mode: slots [first, end) are all live. The steady cases (walking at cruise speed,
 * standing settled) are inline here, the same as step_agent would do them, with every array and
 * setting in a local: a store to a record or a flag byte may alias anything reached through a
 * pointer, so the compiler would reload it all per agent. The chunk stats run in a local too (see
 * crowd_run). A steady walker's record is read, never written: the GPU extrapolates it.
 *
 * `far`: a region the camera sees little of (outside the view, or far). Each agent there re-plans
 * its steering every lod_interval-th step only (offscreen_interval-th in a chunk out of view:
 * sim_chunk_interval), turning as far as that many steps would have; in between it walks on with
 * its record (nothing computed, nothing written), asleep where it can be (rest_asleep). The round
 * robin goes by chunk (sim_far_phase): a chunk's agents turn on the same step, so their turn can
 * wake its resting sleepers. (Until session 17 it went by slot without separation: a quarter of
 * every far chunk per step, each agent awake between its turns.) With separation sim_far.c walks
 * the region instead. */
static uint32_t step_live(crowd_sim *sim, const step_params *k, crowd_binner *bin, sim_gatherer *gatherer,
                          uint32_t region, uint32_t first, uint32_t end, bool far)
{
    /* a far region drawn past the cross-fade levels cuts between gaits (update_gait) */
    sim->fade_seconds = far && sim->far_of_cell[region] == 2 ? 0.0f : FADE_SECONDS;
    if (far && k->separate) /* stepped whole one step in its interval (sim_far.c) */
        return sim_far_walk(sim, k, bin, gatherer, region, first, end);
    crowd *c = sim->crowd;
    crowd_record *const records = c->records;
    crowd_agent *const agents = c->agents;
    crowd_drift *const drifts = c->drift;
    uint8_t *const dirty = c->dirty;
    const uint32_t *const obstacles = sim->chunk_obstacle_start;
    const crowd_grid_map grid = bin->grid;
    const uint32_t slot_capacity = c->slot_capacity;
    /* A far chunk's turn comes every interval-th step, at phase 0 (sim_far_phase); a chunk's own
     * region turns whole, the far pool's agents go by the chunks they are in (phase_chunk: the
     * last one's). The steering's blend covers the interval's steps. */
    const bool own = region < c->cell_count;
    uint32_t interval = far && own ? sim_chunk_interval(sim, region) : 1;
    uint32_t phase = far && own ? sim_far_phase(sim, region) : 0, phase_chunk = UINT32_MAX;
    float blend = far ? far_blend(k->blend, interval) : k->blend;
    const float half = k->half, dt = k->dt, t_now = k->t_now, t_next = k->t_next;
    const bool separate = k->separate, plain = !k->wraps && !k->gather, resync = sim->resync;
    const bool far_turns = far && k->turns, wanders = sim->desc.scenario == CROWD_SCENARIO_WANDER;
    float desired[2 * STEP_BATCH];
    crowd_run run = {.id = CROWD_PARKED_CELL};
    chunk_cache cache = {1.0f, 0.0f, 1.0f, 0.0f, 0, false}; /* empty: the first agent fills it */
    sim_gatherer gather = separate ? *gatherer : (sim_gatherer){0};
    uint32_t rewritten = 0;
    /* sleep (above): on in this walk when the step allows it; a chunk coming near wakes everyone */
    const crowd_sleep sleep = bin->sleepers ? c->sleep : (crowd_sleep){NULL, NULL, 0};
    const bool sleeps = sleep.until != NULL;
    const uint8_t *const gate = sim->sleep_gate; /* (sim_step.h, "sleepers") */
    /* a chunk's own region holds its sleepers only (none sleeps as a mover): one gate for all,
     * but on its turn, which wakes the resting ones only */
    const int own_gate = sim_own_gate(gate, region, c->cell_count);
    scan_ring ring; /* the awake slots of the batch being stepped and of the SCAN_AHEAD after it */
    uint32_t cur = 0;
    const uint32_t tick = sim->tick;
    const float edge = -c->world_min - SIM_WANDER_EDGE;
    for (uint32_t base = first; base < end; base += STEP_BATCH) {
        uint32_t n = end - base < STEP_BATCH ? end - base : STEP_BATCH;
        /* A batch with sleepers in it: desired velocities for the awake ones only, one by one; a
         * batch of sleepers only is skipped. */
        bool lazy = false;
        uint32_t awake = n;
        if (sleeps) {
            cur = scan_ahead(&ring, sleep, first, end, base, t_next, gate, own_gate, records, agents, false);
            awake = ring.count[cur];
            if (!awake)
                continue;
            lazy = awake < n;
        }
        if (!far && !lazy)
            sim_desired_velocities(sim, base, n, desired);
        const uint8_t *const list = ring.list[cur]; /* this batch's */
        for (uint32_t j = 0; j < awake; j++) {
            uint32_t i = lazy ? list[j] : j;
            uint32_t s = base + i, ahead = s + STEP_BATCH < slot_capacity ? s + STEP_BATCH : 0;
            if (sleeps && sleep.cell[s]) /* awake again: its event came, or its chunk came near */
                wake_sleeper(bin, sleep, gate, s);
            /* The next batch's record (a cache line) and, every fourth slot, agents: at a million
             * agents the walk is otherwise bound by memory latency (the next batch's desired
             * velocities stalled on the first load of each record). Among sleepers the batch's
             * scan above asked for what it needs. */
            if (!lazy) {
                crowd_prefetch(&records[ahead]);
                if (i % 4 == 0)
                    crowd_prefetch(&agents[ahead]);
            }
            crowd_record *r = &records[s];
            crowd_agent *a = &agents[s];
            float *v = a->velocity;
            crowd_drift drift = separate ? drifts[s] : (crowd_drift){0.0f, 0.0f};
            bool drifting = drift.x != 0.0f || drift.z != 0.0f;
            float p[3];
            uint32_t chunk = 0; /* (set on every path; the compiler cannot tell) */
            float rest = 0.0f;  /* far: how long it may rest (rest_asleep), its chunk's turn 0.5 step ahead */
            if (far) {
                if (!own) { /* its chunk's phase */
                    crowd_rec_position(r, t_next, p);
                    chunk = cached_chunk(&cache, &grid, obstacles, p);
                    if (chunk != phase_chunk) {
                        phase_chunk = chunk;
                        interval = sim_chunk_interval(sim, chunk);
                        phase = sim_far_phase(sim, chunk);
                        blend = far_blend(k->blend, interval);
                    }
                }
                rest = interval > 1 ? ((float)(interval - phase) - 0.5f) * dt : 0.0f;
                /* not its turn: it walks on, unless its wander decision is due (then it re-plans
                 * now rather than up to interval - 1 steps late, and turns as a record) */
                if (phase && !resync && !(wanders && sim_decision_due(a, tick))) {
                    if (own) {
                        crowd_rec_position(r, t_next, p);
                        chunk = cached_chunk(&cache, &grid, obstacles, p);
                    }
                    bin_stepped(bin, &run, s, r, p, chunk, dirty);
                    if (sleeps && !run.moves &&
                        !(walks_on_unchanged(sim, r, a, far_turns) &&
                          fall_asleep(sim, bin, sleep, s, r, a, p, chunk, &cache, t_next, tick, edge)))
                        rest_asleep(bin, sleep, s, r, a, p, chunk, &cache, t_next, tick, rest);
                    continue;
                }
                sim_desired_velocity(sim, s, desired + 2 * i);
            } else if (lazy) {
                sim_desired_velocity(sim, s, desired + 2 * i);
            }
            const float *want = desired + 2 * i;
            if (r->clips & CROWD_RECORD_TURN) {
                /* turning towards what it was told at its last re-plan: the record moves it (and
                 * its velocity, as a turning record's, is the one it turns to) */
                if (far_turns && !drifting && v[0] == want[0] && v[1] == want[1]) {
                    crowd_rec_position(r, t_next, p);
                    chunk = cached_chunk(&cache, &grid, obstacles, p);
                    float q[3] = {p[0], p[1], p[2]}, u[2];
                    crowd_rec_turn_velocity(r, t_next, u);
                    if (!cache.obstacles || !sim_avoid_obstacles(sim, chunk, q, u)) {
                        bin_stepped(bin, &run, s, r, p, chunk, dirty);
                        if (sleeps && !run.moves &&
                            !fall_asleep(sim, bin, sleep, s, r, a, p, chunk, &cache, t_next, tick, edge))
                            rest_asleep(bin, sleep, s, r, a, p, chunk, &cache, t_next, tick, rest);
                        continue;
                    }
                }
                /* per step from here: straight on from where the turn has it now (the record is
                 * written anyway, and setters called on the way then find a straight one) */
                crowd_rec_turn_velocity(r, t_now, v);
                crowd_rec_anchor(r, t_now);
                dirty[s] = 1;
            }
            if (far_turns && !drifting && (v[0] != want[0] || v[1] != want[1]) &&
                start_turn(sim, k, s, want, edge, obstacles)) {
                rewritten++;
                crowd_rec_position(r, t_next, p);
                chunk = cached_chunk(&cache, &grid, obstacles, p);
                bin_stepped(bin, &run, s, r, p, chunk, dirty);
                if (sleeps && !run.moves &&
                    !fall_asleep(sim, bin, sleep, s, r, a, p, chunk, &cache, t_next, tick, edge))
                    rest_asleep(bin, sleep, s, r, a, p, chunk, &cache, t_next, tick, rest);
                continue;
            }
            bool steady = plain && v[0] == desired[2 * i] && v[1] == desired[2 * i + 1];
            bool moving = v[0] != 0.0f || v[1] != 0.0f, may_sleep = false;
            if (steady && !drifting && (moving ? !resync : a->gait == 0 && !r->velocity)) {
                /* the record moves it: where it is at the step's end is where the GPU will draw it */
                crowd_rec_position(r, t_next, p);
                chunk = cached_chunk(&cache, &grid, obstacles, p);
                may_sleep = sleeps && !separate; /* (a near agent's pushes need it awake) */
                /* steady walkers never reach the world's edge (steering turns them first) */
                if (cache.obstacles && sim_avoid_obstacles(sim, chunk, p, v)) {
                    may_sleep = false;
                    step_result moved = step_move(sim, k, s, p, false, false, drift, -1.0f);
                    chunk = moved.chunk;
                    rewritten += moved.wrote;
                    crowd_rec_position(r, t_next, p);
                }
            } else if (steady && drifting && fabsf(r->position[0]) < half - 1.0f &&
                       fabsf(r->position[2]) < half - 1.0f && moving) {
                float now[3];
                crowd_rec_position(r, t_now, now);
                chunk = step_jostled(sim, k, s, now, drift, &cache, &grid, &rewritten, p);
                crowd_rec_position(r, t_next, p);
            } else {
                float target = far_turns ? sqrtf(want[0] * want[0] + want[1] * want[1]) : -1.0f;
                step_result moved = step_agent(sim, k, s, desired + 2 * i, drifting, drift, blend, target);
                chunk = moved.chunk;
                rewritten += moved.wrote;
                crowd_rec_position(r, t_next, p);
            }
            if (separate) { /* (a near agent: far ones under separation walk in sim_far.c) */
                drifts[s] = decay_drift(drift, blend);
                sim_gather(&gather, s, p);
            }
            bin_stepped(bin, &run, s, r, p, chunk, dirty);
            if (!sleeps || run.moves ||
                (may_sleep && !(r->fade_rate > 0.0f) &&
                 fall_asleep(sim, bin, sleep, s, r, a, p, chunk, &cache, t_next, tick, edge)))
                continue;
            /* (a step that moved it found its chunk without the cache: its bounds are fetched now) */
            if (rest > 0.0f && cached_chunk(&cache, &grid, obstacles, p) == chunk)
                rest_asleep(bin, sleep, s, r, a, p, chunk, &cache, t_next, tick, rest);
        }
    }
    crowd_bin_close(bin, &run);
    if (separate)
        *gatherer = gather;
    return rewritten;
}

/* Threads (crowd_desc.threads): the region walk split into tasks on the crowd's pool
 * (crowd_tasks.c). A task steps its stretch with a copy of the sim whose decision counter is its
 * own (the counter is the only sim state a step writes; each task's starts at its own offset, so
 * the result depends on the split, which depends only on the thread count) and gathers into its
 * own range of the separation's arrays (all slots of live regions are live: a task's range starts
 * at the live slots before it), so the gathered order is the single-threaded one. */
#define TASK_DECISION_STRIDE 0x9E3779B9u

typedef struct step_job {
    crowd_sim *sim;
    const step_params *k;
    sim_gatherer gather;
} step_job;

static void step_task(void *context, crowd_task *t)
{
    const step_job *job = context;
    crowd_sim local = *job->sim;
    uint32_t start = job->sim->decisions + t->index * TASK_DECISION_STRIDE;
    local.decisions = start;
    sim_gatherer gather = job->gather;
    gather.n = t->live_before;
    uint32_t first, end;
    uint64_t rewritten = 0;
    bool distance = job->sim->crowd->desc.lod_policy == CROWD_LOD_DISTANCE; /* far_of_cell is kept then */
    while (crowd_task_span(t, &first, &end))
        rewritten += step_live(&local, job->k, &t->bin, &gather, t->region, first, end,
                               distance && local.far_of_cell[t->region]);
    t->out[0] = rewritten;
    t->out[1] = local.decisions - start;
    t->out[2] = gather.n - t->live_before;
}

static uint32_t step_tasks(crowd_sim *sim, const step_params *k, crowd_binner *bin, sim_gatherer *gather)
{
    step_job job = {sim, k, *gather};
    uint32_t n;
    const crowd_task *tasks = crowd_run_tasks(sim->crowd, bin, step_task, &job, &n);
    uint64_t rewritten = 0, decisions = 0;
    for (uint32_t t = 0; t < n; t++) {
        rewritten += tasks[t].out[0];
        decisions += tasks[t].out[1];
    }
    sim->decisions += (uint32_t)decisions;
    /* Each task gathered into its own range, fewer than its live slots where regions rest: the
     * ranges closed up, in task order, are the single walk's gathering. */
    if (k->separate)
        for (uint32_t t = 0; t < n; t++) {
            uint32_t from = tasks[t].live_before, m = (uint32_t)tasks[t].out[2], to = gather->n;
            if (from != to) {
                memmove(gather->slot + to, gather->slot + from, sizeof *gather->slot * m);
                memmove(gather->xz + 2 * to, gather->xz + 2 * from, sizeof *gather->xz * 2 * m);
            }
            gather->n += m;
        }
    return (uint32_t)rewritten;
}

/* Slot mode (no region layout): every slot, parked ones binned as such. */
static uint32_t step_slots(crowd_sim *sim, step_params k, crowd_binner *bin, sim_gatherer *gather)
{
    crowd *c = sim->crowd;
    uint32_t rewritten = 0;
    for (uint32_t s = 0; s < c->slots; s++) {
        if (c->index_of_slot[s] >= c->count) {
            crowd_bin_slot(bin, s);
            continue;
        }
        float desired[2], p[3];
        sim_desired_velocity(sim, s, desired);
        crowd_drift drift = k.separate ? c->drift[s] : (crowd_drift){0.0f, 0.0f};
        if (crowd_rec_turning(&c->records[s])) { /* per step from here: from where the turn has it now */
            crowd_rec_turn_velocity(&c->records[s], k.t_now, c->agents[s].velocity);
            crowd_rec_anchor(&c->records[s], k.t_now);
            c->dirty[s] = 1;
        }
        step_result moved = step_agent(sim, &k, s, desired, drift.x != 0.0f || drift.z != 0.0f, drift, k.blend, -1.0f);
        crowd_rec_position(&c->records[s], k.t_next, p);
        if (k.separate) {
            c->drift[s] = decay_drift(drift, k.blend);
            sim_gather(gather, s, p);
        }
        rewritten += moved.wrote;
        crowd_bin_fade(bin, &c->records[s], s);
        crowd_bin_add(bin, s, &c->records[s], p, moved.chunk);
        c->cell_of_slot[s] = moved.chunk;
    }
    return rewritten;
}

/* Which chunks re-plan at a lower rate: from the last update's view (its visibility per chunk
 * and its camera), before this step's binning clears them. Until an update has run, none. 2 for
 * a far region none of whose instances can draw a cross-fade from there (crowd_fades_unseen): its
 * gait changes cut (update_gait). Which of the two rates a chunk has (chunk_offscreen) changes only
 * on a step after which both would take its turn (the offscreen rate's round robin, one step
 * ahead): the step before it gathers the chunk with its new rate's push (sim_far.c), the turn
 * decays its drift with it, and its sleepers, asleep for the old one's rest, wake at that turn.
 * (To an interval of 1, lod_interval 1 with an offscreen rate, the chunk turns on that step
 * already, a step early, with the push of the step before.) An agent that crosses into a chunk at
 * the other rate keeps the push of its old chunk's for one interval (sim_far.c). */
static void mark_far_cells(crowd_sim *sim)
{
    crowd *c = sim->crowd;
    uint32_t dim = c->grid_dim, offscreen = sim->desc.offscreen_interval;
    float reach = sim->desc.lod_distance;
    bool pool_cuts = true;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        const crowd_cell *cell = &c->cells[i];
        float lo_x = c->world_min + (float)(i % dim) * c->cell_size,
              lo_z = c->world_min + (float)(i / dim) * c->cell_size;
        float dx = c->eye[0] < lo_x                  ? lo_x - c->eye[0]
                   : c->eye[0] > lo_x + c->cell_size ? c->eye[0] - lo_x - c->cell_size
                                                     : 0.0f;
        float dz = c->eye[2] < lo_z                  ? lo_z - c->eye[2]
                   : c->eye[2] > lo_z + c->cell_size ? c->eye[2] - lo_z - c->cell_size
                                                     : 0.0f;
        bool far = !cell->visible || dx * dx + dz * dz > reach * reach;
        if ((i + sim->steps + 1) % offscreen == 0) /* (tests: stripes two chunks wide that move) */
            sim->chunk_offscreen[i] =
                sim->offscreen_stripes ? ((i % dim) / 2 + sim->steps / 97) % 2 != 0 : !cell->visible;
        /* cuts: from the chunk's square, less a body and a margin for movers and a frame's walk */
        float pad = crowd_instance_radius(c, cell->max_scale > 1.0f ? cell->max_scale : 1.0f) + 1.0f;
        float ground = sqrtf(dx * dx + dz * dz) - pad;
        bool slow = c->has_eye && far && sim_chunk_interval(sim, i) > 1, cuts = crowd_fades_unseen(c, ground);
        sim->far_of_cell[i] = (uint8_t)(slow ? (cuts ? 2 : 1) : 0);
        pool_cuts = pool_cuts && (c->region_of_cell[i] != c->pool_region || cuts);
    }
    /* the far pool: its agents go by their chunks' rates (step_live, sim_far.c) */
    bool slow = c->has_eye && offscreen > 1;
    sim->far_of_cell[c->pool_region] = (uint8_t)(slow ? (pool_cuts ? 2 : 1) : 0);
}

/* Under separation, which chunks' agents get pushes at the end of this step (sim_far.c): near ones,
 * and far ones whose turn is next; and how near one a resting agent is gathered as a neighbour: a
 * separation radius, plus how far out of it an agent of it may have walked since the last update
 * re-slotted it (a mover: one step at twice the fastest speed a scenario asks for, drift
 * included; a mover pushed faster, or not re-slotted for several steps, may meet fewer
 * neighbours until the next update). */
static void mark_active_cells(crowd_sim *sim, float dt)
{
    const crowd *c = sim->crowd;
    uint32_t dim = c->grid_dim;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        bool far = sim->far_of_cell[c->region_of_cell[i]] != 0;
        sim->chunk_active[(i / dim + 1) * (dim + 2) + i % dim + 1] =
            (uint8_t)(!far || sim_far_phase(sim, i) + 1 == sim_chunk_interval(sim, i));
    }
    /* and, with far agents gathered ahead along their records (sim_far_ahead; a resting agent is
     * tested where it is gathered), how far ahead of its chunk a pushed one may be gathered */
    float ahead = sim_far_ahead(sim->desc.offscreen_interval, dt);
    sim->passive_reach = (sim->desc.separation_radius + (2.0f * dt + ahead) * sim_top_speed(sim)) / c->cell_size;
}

/* Every agent awake, every chunk without sleepers: when a step cannot keep them (separation, another
 * scenario, no region layout) or slots moved behind the sim's back. */
static void wake_all(crowd_sim *sim)
{
    crowd *c = sim->crowd;
    memset(c->sleep.until, 0, sizeof *c->sleep.until * c->slot_capacity);
    memset(c->sleep.cell, 0, sizeof *c->sleep.cell * c->slot_capacity);
    for (uint32_t i = 0; i < c->cell_count; i++) {
        crowd_sleepers_clear(&sim->sleepers[i]);
        crowd_sleepers_clear(&sim->sleep_prior[i]);
    }
}

/* Before the walk (whose steps end at t_next): a chunk coming near loses its sleepers (the walk
 * wakes them all: turning ones go back to per-step steering, the steady ones sleep again); in the
 * others, the bounds' generations turn over where the previous one's last agent wakes in this
 * step (above). */
static void refresh_sleepers(crowd_sim *sim, float t_next, bool separate)
{
    const crowd *c = sim->crowd;
    sim->sleep_gate[0] = 0;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        uint8_t far = sim->far_of_cell[c->region_of_cell[i]];
        bool wakes = sim->chunk_far[i] && !far;
        /* resting sleepers: under separation (sim_far.c) all awake on the chunk's turn, and the step
         * before it they are read for the gathering (3: they sleep on, visited for it: sim_step.h's
         * scan_visits); without, the turn wakes the resting ones (rest_asleep) and no others */
        uint8_t sleeps_on = 1;
        bool turns = false; /* its resting sleepers (step_live's) wake */
        if (far) {
            uint32_t phase = sim_far_phase(sim, i);
            turns = phase == 0;
            if (separate) {
                wakes |= turns;
                sleeps_on = phase + 1 == sim_chunk_interval(sim, i) ? 3 : 1;
            }
        }
        sim->chunk_far[i] = far;
        crowd_sleepers *z = &sim->sleepers[i], *prior = &sim->sleep_prior[i];
        if (wakes) {
            crowd_sleepers_clear(z);
            crowd_sleepers_clear(prior);
        } else if (!(t_next < prior->until)) { /* all of the previous generation wake by t_next */
            int32_t count = z->count;
            *prior = *z;
            crowd_sleepers_clear(z);
            z->count = count;
        }
        sim->sleep_gate[i + 1] = wakes ? 0 : sleeps_on;
        sim->sleep_gate[c->cell_count + i + 1] = wakes || turns ? 0 : sleeps_on;
    }
}

/* After the walk: its changes into the chunks' sleepers, and the sleepers into the chunk stats the
 * binning took from the agents it stepped. Returns how many sleep. */
static uint32_t fold_sleepers(crowd_sim *sim)
{
    crowd *c = sim->crowd;
    uint32_t sleeping = 0;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        crowd_sleepers *z = &sim->sleepers[i], *d = &sim->sleep_delta[i];
        int32_t fell = d->fell; /* the walk binned these already */
        crowd_sleepers_merge(z, d);
        crowd_sleepers_clear(d);
        z->fell = 0;
        if (z->count <= 0) { /* none left (never below: every wake undoes one fall) */
            crowd_sleepers_clear(z);
            crowd_sleepers_clear(&sim->sleep_prior[i]);
            continue;
        }
        crowd_cell *cell = &c->cells[i];
        const crowd_sleepers *prior = &sim->sleep_prior[i];
        cell->count += (uint32_t)(z->count - fell);
        for (int k = 0; k < 3; k++) { /* both generations' bounds (an empty one's are inverted) */
            float lo = z->lo[k] < prior->lo[k] ? z->lo[k] : prior->lo[k];
            float hi = z->hi[k] > prior->hi[k] ? z->hi[k] : prior->hi[k];
            cell->min[k] = lo < cell->min[k] ? lo : cell->min[k];
            cell->max[k] = hi > cell->max[k] ? hi : cell->max[k];
        }
        float scale = z->scale > prior->scale ? z->scale : prior->scale;
        float speed = z->speed > prior->speed ? z->speed : prior->speed;
        cell->max_scale = scale > cell->max_scale ? scale : cell->max_scale;
        cell->max_speed = speed > cell->max_speed ? speed : cell->max_speed;
        sleeping += (uint32_t)z->count;
    }
    return sleeping;
}

void crowd_sim_step(crowd_sim *sim, float dt)
{
    if (!sim || !(dt > 0.0f) || !isfinite(dt))
        return;
    dt = dt < CROWD_SIM_MAX_DT ? dt : CROWD_SIM_MAX_DT; /* also keeps the decision clock's conversion defined */
    double t0 = crowd_clock_ms();
    crowd *c = sim->crowd;
    sim->tick = (uint32_t)(c->time * 20.0 + dt * 20.0);
    sim->steps++;
    bool separate = sim->desc.separation > 0 || (sim->desc.separation == 0 && c->count <= sim->desc.separation_limit);
    sim->stats.separation_active = separate;
    /* Steps without separation never read drift: leave none behind, and have every record's
     * velocity checked once (it may still hold a drift the steady path would not see). */
    sim->resync = !separate && sim->drifts;
    if (sim->resync)
        memset(c->drift, 0, sizeof *c->drift * c->slots);
    sim->drifts = separate;

    step_params k = {.dt = dt,
                     .blend = dt * SIM_TURN_RATE < 1.0f ? dt * SIM_TURN_RATE : 1.0f,
                     .world = c->desc.world_size,
                     .half = 0.5f * c->desc.world_size,
                     .t_now = (float)c->time,
                     .t_next = (float)(c->time + dt),
                     .separate = separate,
                     .wraps = sim->desc.scenario == CROWD_SCENARIO_STAMPEDE,
                     .gather = sim->desc.scenario == CROWD_SCENARIO_GATHER,
                     /* closed-form turns (above): the wander scenario's far agents, no drift */
                     .turns = sim->desc.scenario == CROWD_SCENARIO_WANDER && !separate && !sim->resync &&
                              c->layout_valid && c->desc.lod_policy == CROWD_LOD_DISTANCE};
    /* The crowd's binning and the separation's gathering ride along: this pass touches every
     * record anyway. With a region layout it walks the live regions only; without one, every slot. */
    sim->t_now = k.t_now;
    if (c->layout_valid && c->desc.lod_policy == CROWD_LOD_DISTANCE)
        mark_far_cells(sim);
    if (separate && c->layout_valid && c->desc.lod_policy == CROWD_LOD_DISTANCE)
        mark_active_cells(sim, dt);
    /* Sleep (above) needs the region walk, and either no separation and the wander scenario's steady
     * walkers, or separation and far chunks that rest between turns (sim_far.c: for at least one
     * step, so an interval of 2 or more). Its kind changes with separation: everyone wakes then. */
    bool sleeps =
        c->layout_valid && c->desc.lod_policy == CROWD_LOD_DISTANCE && !sim->no_sleep &&
        (separate ? sim->desc.offscreen_interval >= 2 : sim->desc.scenario == CROWD_SCENARIO_WANDER && !sim->resync);
    if (sim->sleeping && (!sleeps || c->sleep_stale || separate != sim->sleep_separate))
        wake_all(sim);
    c->sleep_stale = false;
    sim->sleeping = sleeps;
    sim->sleep_separate = separate;
    crowd_binner bin;
    crowd_bin_begin(c, &bin, k.t_next);
    if (sleeps) {
        bin.sleepers = sim->sleep_delta;
        refresh_sleepers(sim, k.t_next, separate);
    }
    sim_gatherer gather = separate ? sim_gather_begin(sim) : (sim_gatherer){0};
    uint32_t rewritten = 0;
    if (crowd_tasks_enabled(c)) {
        rewritten = step_tasks(sim, &k, &bin, &gather);
    } else if (c->layout_valid && c->desc.lod_policy == CROWD_LOD_DISTANCE) {
        for (uint32_t g = 0; g < c->parked_region; g++) {
            const crowd_slot_region *region = &c->regions[g];
            if (!region->count)
                continue;
            crowd_bin_region(&bin, g);
            rewritten +=
                step_live(sim, &k, &bin, &gather, g, region->start, region->start + region->count, sim->far_of_cell[g]);
        }
    } else {
        rewritten = step_slots(sim, k, &bin, &gather);
    }
    crowd_bin_end(&bin);
    sim->fade_seconds = FADE_SECONDS;
    sim->stats.rewritten = rewritten;
    sim->stats.asleep = sleeps ? fold_sleepers(sim) : 0;
    double t1 = crowd_clock_ms();
    sim->stats.separated = gather.n;
    if (separate) /* pushes from where everyone is now, for the next step to move by */
        sim_separation(sim, &gather, dt);
    double t2 = crowd_clock_ms();
    sim->stats.ms_separation = t2 - t1;
    sim->stats.ms_step = t2 - t0;
}
