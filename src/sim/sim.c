/* The simulation's lifetime, settings and spawn. The step is sim_step.c's; the simulation reaches its
 * crowd through the client door (crowd/crowd_client.h) only. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/pool.h"
#include "sim/sim_step.h"

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

void sim_refresh(crowd_sim *sim)
{
    sim->slots = crowd_client_slots(sim->crowd);
    sim->regions = crowd_client_regions(sim->crowd);
    sim->stride_matching = crowd_client_stride_matching(sim->crowd);
}

/* ---- lifetime --------------------------------------------------------------------------------- */

/* The desc's values the crowd does not check itself (it checks its own). */
static crowd_result check_desc(const crowd_sim_desc *desc, crowd_error *error)
{
    if (!desc || !desc->target)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: NULL desc, out or crowd");
    if ((unsigned)desc->scenario >= CROWD_SCENARIO_COUNT || desc->obstacle_count > SIM_MAX_OBSTACLES ||
        (desc->obstacle_count && !desc->obstacles))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: bad scenario or obstacles");
    float world = crowd_settings(desc->target)->world_size;
    if (desc->separation_radius != 0.0f && !(desc->separation_radius > 0.0f && desc->separation_radius <= world))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: separation_radius %g outside (0, world size]",
                          (double)desc->separation_radius);
    for (uint32_t o = 0; o < desc->obstacle_count; o++) {
        const crowd_obstacle *ob = &desc->obstacles[o];
        if (!(fabsf(ob->x) < 1e9f && fabsf(ob->z) < 1e9f) || !(ob->radius > 0.0f && ob->radius < 1e4f))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "obstacles[%u]: bad position or radius", o);
    }
    if (crowd_client_attached(desc->target))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: the crowd already has a simulation");
    return sim_check_spawn_options(&desc->spawn, crowd_settings(desc->target)->asset, error);
}

/* Defaults into sim->desc (a copy of the caller's), and the level of detail's ranges checked. */
static crowd_result resolve_desc(crowd_sim *sim, crowd_error *error)
{
    crowd_sim_desc *d = &sim->desc;
    d->separation_limit = d->separation_limit ? d->separation_limit : 40000;
    d->separation_radius = d->separation_radius != 0.0f ? d->separation_radius : 0.7f;
    d->lod_distance = d->lod_distance != 0.0f ? d->lod_distance : 40.0f;
    d->lod_interval = d->lod_interval ? d->lod_interval : 4;
    uint32_t lod = d->lod_interval, given = d->offscreen_interval;
    if (!d->offscreen_interval) /* (past 32 its double would be past the cap of 64: no separate rate) */
        d->offscreen_interval = lod == 1 ? 1 : lod <= 32 ? 2 * lod : lod;
    if (!(d->lod_distance > 0.0f) || lod > 64)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_sim_create: lod_distance %g must be positive (0: default) and lod_interval %u at most "
                          "64",
                          (double)d->lod_distance, lod);
    if (d->offscreen_interval > 64 || d->offscreen_interval % lod)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_sim_create: offscreen_interval %u must be a multiple of lod_interval (%u) and at most "
                          "64 (0: default)",
                          given, lod);
    return CROWD_OK;
}

/* The separation's scratch: per slot, and per fine row (per thread for the threaded sort). */
static bool alloc_separation(crowd_sim *sim, uint32_t cap)
{
    sim->fine_size = fmaxf(sim->desc.separation_radius, sim->world / (float)SIM_FINE_MAX_DIM);
    sim->fine_dim = (uint32_t)ceilf(sim->world / sim->fine_size);
    sim->fine_dim = sim->fine_dim < SIM_FINE_MAX_DIM ? sim->fine_dim : SIM_FINE_MAX_DIM; /* rounding */
    sim->fine_rows = crowd_malloc(sizeof(uint32_t) * 2 * ((size_t)sim->fine_dim + 2));
    sim->fine_cell_of = crowd_malloc(sizeof(uint32_t) * cap);
    sim->fine_gathered = crowd_malloc(2 * sizeof(float) * cap);
    sim->fine_keyed = crowd_malloc(sizeof(uint64_t) * cap);
    sim->fine_sorted_key = crowd_malloc(sizeof(uint32_t) * ((size_t)cap + 1));
    sim->fine_slots = crowd_malloc(sizeof(uint32_t) * cap);
    sim->fine_position = crowd_malloc(2 * sizeof(float) * cap);
    sim->fine_push = crowd_malloc(2 * sizeof(float) * cap);
    bool ok = sim->fine_rows && sim->fine_cell_of && sim->fine_gathered && sim->fine_keyed && sim->fine_sorted_key &&
              sim->fine_slots && sim->fine_position && sim->fine_push;
    uint32_t threads = crowd_pool_threads(crowd_client_pool(sim->crowd)), row_table = sim->fine_dim + 2;
    if (threads > 1) { /* the separation's sort on the threads too (sim_separation.c) */
        sim->fine_band_sorted = crowd_malloc(sizeof(uint64_t) * cap);
        sim->fine_share_rows = crowd_malloc(sizeof(uint32_t) * threads * row_table);
        sim->fine_band_tables = crowd_malloc(sizeof(uint32_t) * SIM_BANDS_PER_THREAD * threads * 2 * row_table);
        ok = ok && sim->fine_band_sorted && sim->fine_share_rows && sim->fine_band_tables;
    }
    return ok;
}

/* Per chunk (the level of detail, the sleepers and their gates) and per task (the sleepers' deltas). */
static bool alloc_chunk_tables(crowd_sim *sim)
{
    uint32_t chunks = sim->grid.chunks, dim = sim->grid.dim, tasks = crowd_client_task_count(sim->crowd);
    sim->far_of_cell = crowd_calloc(chunks + 3, 1);
    sim->sleepers = crowd_malloc(sizeof *sim->sleepers * chunks);
    sim->step_delta.sleepers = crowd_malloc(sizeof *sim->sleepers * chunks);
    sim->sleep_prior = crowd_malloc(sizeof *sim->sleep_prior * chunks);
    sim->sleep_gate = crowd_calloc(2 * (size_t)chunks + 1, 1);
    sim->chunk_far = crowd_calloc(chunks, 1);
    sim->chunk_offscreen = crowd_calloc(chunks, 1);
    sim->chunk_active = crowd_calloc(((size_t)dim + 2) * (dim + 2), 1); /* a border of zeros */
    if (!sim->far_of_cell || !sim->sleepers || !sim->step_delta.sleepers || !sim->sleep_prior || !sim->sleep_gate ||
        !sim->chunk_far || !sim->chunk_offscreen || !sim->chunk_active)
        return false;
    for (uint32_t i = 0; i < chunks; i++) {
        sim_sleepers_clear(&sim->sleepers[i]);
        sim_sleepers_clear(&sim->step_delta.sleepers[i]);
        sim_sleepers_clear(&sim->sleep_prior[i]);
    }
    if (!tasks)
        return true;
    size_t cells = (size_t)tasks * chunks;
    sim->task_deltas = crowd_calloc(tasks, sizeof *sim->task_deltas);
    sim->task_sleepers = crowd_malloc(sizeof *sim->task_sleepers * cells);
    sim->task_touched = crowd_malloc(sizeof *sim->task_touched * cells);
    if (!sim->task_deltas || !sim->task_sleepers || !sim->task_touched)
        return false;
    for (size_t i = 0; i < cells; i++)
        sim_sleepers_clear(&sim->task_sleepers[i]);
    for (uint32_t t = 0; t < tasks; t++)
        sim->task_deltas[t] =
            (sim_sleep_delta){sim->task_sleepers + (size_t)t * chunks, sim->task_touched + (size_t)t * chunks, 0};
    return true;
}

/* A setter straightened a turning record: the agent steers on from the velocity it had then. */
static void unturned(void *user, uint32_t slot, const float velocity[2])
{
    crowd_sim *sim = user;
    sim_agent *a = &sim_agents(sim)[slot];
    a->velocity[0] = velocity[0];
    a->velocity[1] = velocity[1];
}

/* The per-slot arrays (zeroed: agents undecided, no drift, nobody asleep), handed to the crowd. */
static bool attach_states(crowd_sim *sim, uint32_t cap)
{
    static const uint32_t sizes[SIM_STATES] = {sizeof(sim_agent), sizeof(sim_drift), sizeof(float), sizeof(uint32_t)};
    crowd_client client = {.state_count = SIM_STATES, .user = sim, .unturned = unturned};
    for (uint32_t i = 0; i < SIM_STATES; i++) {
        for (int b = 0; b < 2; b++)
            if (!(sim->state[i][b] = crowd_calloc(cap, sizes[i])))
                return false;
        client.states[i] = (crowd_slot_state){&sim->state[i][0], &sim->state[i][1], sizes[i]};
    }
    return sim->attached = crowd_client_attach(sim->crowd, &client);
}

crowd_result crowd_sim_create(const crowd_sim_desc *desc, crowd_sim **out, crowd_error *error)
{
    crowd_result r =
        out ? check_desc(desc, error) : crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_sim_create: NULL out");
    if (r != CROWD_OK)
        return r;
    crowd_sim *sim = crowd_calloc(1, sizeof *sim);
    if (!sim)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "sim: out of memory");
    sim->crowd = desc->target;
    sim->asset = crowd_settings(sim->crowd)->asset;
    sim->world = crowd_settings(sim->crowd)->world_size;
    sim->grid = crowd_client_grid(sim->crowd);
    sim->desc = *desc;
    sim->desc.obstacles = NULL;
    sim->fade_seconds = FADE_SECONDS;
    sim->spawn_rng = desc->seed * 2654435761u + 12345u;
    sim->step_delta.touched = NULL;
    sim->delta = &sim->step_delta;
    r = resolve_desc(sim, error);
    uint32_t cap = crowd_record_capacity(sim->crowd); /* per slot, slack included */
    sim->obstacle_count = desc->obstacle_count;
    sim->obstacles = r == CROWD_OK ? crowd_malloc(sizeof *sim->obstacles * (desc->obstacle_count + 1)) : NULL;
    if (r == CROWD_OK &&
        (!sim->obstacles || !alloc_separation(sim, cap) || !alloc_chunk_tables(sim) || !attach_states(sim, cap)))
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "sim: out of memory for %u agents", cap);
    if (r == CROWD_OK) {
        if (desc->obstacle_count)
            memcpy(sim->obstacles, desc->obstacles, sizeof *sim->obstacles * desc->obstacle_count);
        r = sim_build_obstacle_grid(sim, error);
    }
    if (r != CROWD_OK) {
        crowd_sim_destroy(sim);
        return r;
    }
    sim_refresh(sim);
    sim_build_gaits(sim);
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
    if (sim->attached) /* the crowd forgets the per-slot arrays before they go */
        crowd_client_detach(sim->crowd);
    for (uint32_t i = 0; i < SIM_STATES; i++)
        for (int b = 0; b < 2; b++)
            crowd_free(sim->state[i][b]);
    void *scratch[] = {sim->sleepers,      sim->step_delta.sleepers, sim->sleep_prior,     sim->sleep_gate,
                       sim->chunk_far,     sim->chunk_offscreen,     sim->chunk_active,    sim->task_deltas,
                       sim->task_sleepers, sim->task_touched,        sim->obstacles,       sim->chunk_obstacle_start,
                       sim->obstacle_ids,  sim->fine_rows,           sim->fine_cell_of,    sim->fine_gathered,
                       sim->fine_keyed,    sim->fine_sorted_key,     sim->fine_slots,      sim->fine_position,
                       sim->fine_push,     sim->fine_band_sorted,    sim->fine_share_rows, sim->fine_band_tables,
                       sim->far_of_cell};
    for (size_t i = 0; i < sizeof scratch / sizeof *scratch; i++)
        crowd_free(scratch[i]);
    crowd_free(sim);
}

void crowd_sim_set_scenario(crowd_sim *sim, crowd_scenario scenario)
{
    if (!sim || (unsigned)scenario >= CROWD_SCENARIO_COUNT)
        return;
    sim->desc.scenario = scenario;
    sim->wake_pending = true;
    sim_refresh(sim);
    sim_agent *agents = sim_agents(sim);
    for (uint32_t s = 0; s < sim->slots.used; s++)
        agents[s].cruise = 0xFF; /* re-decide under the new scenario */
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

/* ---- spawn ------------------------------------------------------------------------------------ */

static bool inside_obstacle(const crowd_sim *sim, float x, float z, float margin)
{
    for (uint32_t o = 0; o < sim->obstacle_count; o++) {
        float ex = x - sim->obstacles[o].x, ez = z - sim->obstacles[o].z, r = sim->obstacles[o].radius + margin;
        if (ex * ex + ez * ez < r * r)
            return true;
    }
    return false;
}

/* A colour in the spawn options' HSV ranges (shirts = 1), or white. */
static void random_tint(const crowd_spawn_options *o, uint32_t *rng, uint8_t rgb[3])
{
    if (o->shirts <= 0) {
        rgb[0] = rgb[1] = rgb[2] = 255;
        return;
    }
    float v_lo = o->value_min, v_span = o->value_max - o->value_min;
    float s_lo = o->saturation_min, s_span = o->saturation_max - o->saturation_min;
    float h = sim_uniform(rng) * 6.0f, v = v_lo + v_span * sim_uniform(rng), s = s_lo + s_span * sim_uniform(rng);
    int i = (int)h;
    float f = h - (float)i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    float c[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    for (int k = 0; k < 3; k++)
        rgb[k] = (uint8_t)(c[i % 6][k] * 255.0f);
}

/* The accessory bits: each slot by its odds (1), or one slot at most by a single draw (2). */
static uint8_t random_accessories(const crowd_spawn_options *o, uint32_t *rng)
{
    uint8_t bits = 0;
    if (o->accessories == 1) {
        for (uint32_t k = 0; k < 8; k++)
            bits |= (uint8_t)((sim_uniform(rng) < o->accessory_odds[k] ? 1u : 0u) << k);
    } else if (o->accessories == 2) {
        float u = sim_uniform(rng), below = 0.0f;
        for (uint32_t k = 0; k < 8 && !bits; k++) {
            below += o->accessory_odds[k];
            bits = (uint8_t)(u < below ? 1u << k : 0u);
        }
    }
    return bits;
}

/* Instance i's looks from the spawn options, from a random stream of its own (the seed and its
 * index), so looks never move where anyone stands. */
static crowd_variant random_looks(const crowd_sim *sim, uint32_t i)
{
    const crowd_spawn_options *o = &sim->desc.spawn;
    uint32_t rng = sim_hash(i, sim->desc.seed ^ 0x4C6F6F6Bu);
    crowd_variant v = {{0, 0, 0}, {0}, 0};
    random_tint(o, &rng, v.tint);
    for (int k = 0; k < 6; k++)
        v.region_choice[k] = (uint8_t)(sim_random(&rng) & 15u);
    v.accessories = random_accessories(o, &rng);
    return v;
}

/* Instance i, placed at random off the obstacles, sized and dressed; returns its yaw. */
static float place_at_random(crowd_sim *sim, uint32_t i)
{
    const crowd_spawn_options *o = &sim->desc.spawn;
    uint32_t *rng = &sim->spawn_rng;
    float half = -sim->grid.origin - 2.0f, x = 0.0f, z = 0.0f;
    for (int attempt = 0; attempt < 32; attempt++) {
        x = (sim_uniform(rng) * 2.0f - 1.0f) * half;
        z = (sim_uniform(rng) * 2.0f - 1.0f) * half;
        if (!inside_obstacle(sim, x, z, 1.0f))
            break;
    }
    bool default_scale = o->scale_min == 0.0f && o->scale_max == 0.0f;
    float scale_lo = default_scale ? 0.92f : o->scale_min,
          scale_span = default_scale ? 0.16f : o->scale_max - o->scale_min;
    float yaw = sim_uniform(rng) * 6.2831853f;
    crowd_set_transform(sim->crowd, i, x, 0.0f, z, yaw);
    crowd_set_scale(sim->crowd, i, scale_lo + scale_span * sim_uniform(rng));
    crowd_variant v = random_looks(sim, i);
    crowd_set_variant(sim->crowd, i, &v);
    return yaw;
}

/* Slot's agent, facing `yaw`, already under way: the scenario's velocity and its gait from the first
 * frame, at a random phase so the crowd is not in lockstep. */
static void start_agent(crowd_sim *sim, uint32_t slot, float yaw)
{
    crowd *c = sim->crowd;
    crowd_record *r = &sim->slots.records[slot];
    sim_agent *a = &sim_agents(sim)[slot];
    memset(a, 0, sizeof *a);
    a->direction[0] = (int16_t)(sinf(yaw) * 32767.0f);
    a->direction[1] = (int16_t)(cosf(yaw) * 32767.0f);
    a->lane = (uint8_t)(sim_random(&sim->spawn_rng) & 0xFFu);
    a->cruise = 0xFF; /* decide now */
    float desired[2];
    sim_desired_velocity(sim, slot, desired);
    a->velocity[0] = desired[0];
    a->velocity[1] = desired[1];
    float speed = sqrtf(desired[0] * desired[0] + desired[1] * desired[1]);
    a->gait = (uint8_t)gait_for_speed(sim, 0, speed / r->scale);
    uint32_t clip = sim->gaits[a->gait].clip;
    crowd_play_slot(c, slot, clip, clamp_rate(crowd_stride_rate(c, clip, speed, r->scale)), 0.0f, false);
    if (speed > 0.05f)
        r->yaw = crowd_atan2(desired[0], desired[1]);
    else if (sim->stands_only) /* facing its heading: settled from the start (sim_faces) */
        r->yaw = crowd_atan2((float)a->direction[0], (float)a->direction[1]);
    float phase = sim_uniform(&sim->spawn_rng); /* drawn either way: the same crowd for a seed */
    bool pose = a->gait == 0 && sim->pose_phase >= 0.0f;
    if (pose)
        crowd_pose_slot(c, slot, clip, sim->pose_phase, 0.0f);
    else
        r->offset_a = r->offset_b = phase;
    r->velocity = crowd_pack_velocity(desired[0], desired[1]); /* walks on from now */
}

crowd_result crowd_sim_spawn(crowd_sim *sim, uint32_t count)
{
    if (!sim)
        return CROWD_ERROR_ARGUMENT;
    crowd *c = sim->crowd;
    crowd_result r = crowd_set_count(c, count);
    if (r != CROWD_OK)
        return r;
    double now = crowd_client_time(c);
    sim->tick = (uint32_t)(now * 20.0); /* decision deadlines count from now */
    sim->t_now = (float)now;
    sim_refresh(sim); /* the count changed; the setters below move no slot */
    for (uint32_t i = 0; i < count; i++) {
        float yaw = place_at_random(sim, i);
        start_agent(sim, crowd_slot_of(c, i), yaw);
    }
    return CROWD_OK;
}
