/* Internal: one agent's step, shared by the region walks (sim_step.c, and sim_far.c for far regions
 * under separation): gaits, the record's motion, drift, binning the stepped agent. Everything per
 * agent is inline here (CROWD_ALWAYS_INLINE: the walks keep their state in registers); the rare
 * cases are out of line in sim_step.c (sim_step_rare). */
#ifndef CROWD_SIM_STEP_H
#define CROWD_SIM_STEP_H

#include <math.h>

#include "sim/sim_internal.h"

#define FADE_SECONDS 0.25f
#define IDLE_ENTER 0.25f /* m/s: below this an agent stands */
#define IDLE_LEAVE 0.45f

/* The setters' rate range (the sim writes records directly, so it keeps to it itself). */
static inline float clamp_rate(float rate)
{
    return rate < -CROWD_MAX_RATE ? -CROWD_MAX_RATE : rate > CROWD_MAX_RATE ? CROWD_MAX_RATE : rate;
}

/* The gait for a speed: idle below a threshold (with hysteresis), else the locomotion clip whose
 * natural speed is nearest (switching at the midpoints). */
static inline uint32_t gait_for_speed(const crowd_sim *sim, uint32_t current, float speed)
{
    if (sim->gait_count <= 1)
        return 0;
    if (speed < (current == 0 ? IDLE_LEAVE : IDLE_ENTER))
        return 0;
    uint32_t g = 1;
    while (g + 1 < sim->gait_count && speed > sim->gait_switch[g])
        g++;
    return g;
}

/* Plays the gait that suits the speed, at the stride-matched rate. Speeds settle exponentially and
 * would change the rate (and rewrite the record) every step; below 0.2 % the mismatch is a foot
 * sliding 2.6 mm/s at a walk, so such changes are skipped. */
static CROWD_ALWAYS_INLINE void update_gait(crowd_sim *sim, uint32_t slot, sim_agent *a, float speed, bool arrived)
{
    if (sim->gait_count == 0)
        return;
    const crowd_record *r = &sim->slots.records[slot];
    /* A smaller body covers less ground per cycle: gaits and rates go by speed in its own sizes. */
    float own_speed = speed / r->scale;
    uint32_t gait = gait_for_speed(sim, a->gait, own_speed);
    const sim_gait *g = &sim->gaits[gait];
    uint32_t clip = g->clip;
    float rate = sim->stride_matching && g->rate_per_speed > 0.0f ? own_speed * g->rate_per_speed : g->authored_rate;
    if (arrived && gait == 0 && sim->cheer_clip >= 0) {
        clip = (uint32_t)sim->cheer_clip;
        rate = crowd_stride_rate(sim->crowd, clip, 0.0f, r->scale);
    }
    rate = clamp_rate(rate); /* a tiny agent pushed hard would otherwise leave the setters' range */
    bool fading = r->fade_rate > 0.0f;
    uint32_t showing = fading ? crowd_rec_clip_b(r) : crowd_rec_clip_a(r);
    float current = fading ? r->rate_b : r->rate_a;
    /* standing in a gait (no idle): its contact pose, faded to from wherever the stride was */
    bool pose = gait == 0 && clip == g->clip && sim->pose_phase >= 0.0f;
    if (pose && (showing != clip || current != 0.0f))
        crowd_pose_slot(sim->crowd, slot, clip, sim->pose_phase, sim->fade_seconds);
    else if (!pose && showing != clip)
        crowd_play_slot(sim->crowd, slot, clip, rate, sim->fade_seconds, false);
    else if (!pose && fabsf(rate - current) > 0.002f * current)
        crowd_set_rate_slot(sim->crowd, slot, rate);
    a->gait = (uint8_t)gait;
}

/* A gait-less simulation's standing agent turns towards its heading as a walker's velocity turns
 * (by `blend` of the way, snapping when close); returns whether the record changed. */
static CROWD_ALWAYS_INLINE bool turn_in_place(crowd_sim *sim, uint32_t slot, const sim_agent *a, float blend)
{
    crowd_record *r = &sim->slots.records[slot];
    if (sim_faces(sim, r, a))
        return false;
    float target = crowd_atan2((float)a->direction[0], (float)a->direction[1]);
    float turn = remainderf(target - r->yaw, 6.2831853f); /* the short way round */
    r->yaw = fabsf(turn) < 0.01f ? target : r->yaw + turn * blend;
    sim->slots.dirty[slot] = 1;
    return true;
}

/* What every agent's step shares. t_now is the shader time the step starts at, t_next the one it
 * ends at (the frame's): records are anchored there. */
typedef struct step_params {
    float dt, blend, world, half, t_now, t_next;
    bool separate, wraps, gather;
    bool turns; /* far agents' turns may be closed-form records (sim_step.c, "turns") */
} step_params;

/* Re-anchors slot s's record at the end of the step: at p, moving on at the (rounded) velocity
 * word. The simulation reads positions back from the record, so what the GPU extrapolates is what
 * the next step starts from. */
static CROWD_ALWAYS_INLINE void write_motion(crowd_sim *sim, uint32_t s, const float p[3], float t, uint32_t velocity)
{
    crowd_rec_set_motion(&sim->slots.records[s], p, t, velocity); /* a straight line: any turn ends */
    sim->slots.dirty[s] = 1;
}

static inline bool drifts(sim_drift d)
{
    return d.x != 0.0f || d.z != 0.0f;
}

/* The rare cases, out of line (sim_step.c): standing still, wrapping round the world, held at its
 * edge. Returns whether the record changed. */
bool sim_step_rare(crowd_sim *sim, const step_params *k, uint32_t s, const float p_in[3], float speed, sim_drift drift,
                   float target);

/* Separation pushes go into a drift velocity of their own that decays at the steering blend rate:
 * steering plus drift moves exactly as one velocity blended towards the desired one with pushes
 * added, but only steering turns the agent and sets its gait and rate. A jostled agent keeps
 * facing where it walks (and stays on the steady path: only its position changes) instead of
 * twitching its heading and gait every step. The step moves by the drift, then decays it; the
 * separation pass at the end of the step adds the new pushes. */
static CROWD_ALWAYS_INLINE sim_drift decay_drift(sim_drift d, float blend)
{
    float x = d.x - d.x * blend, z = d.z - d.z * blend;
    bool settled = fabsf(x) + fabsf(z) < 2e-3f; /* like the steering snap */
    return (sim_drift){settled ? 0.0f : x, settled ? 0.0f : z};
}

/* What stepping one agent did: its chunk now, and whether its record changed. */
typedef struct step_result {
    uint32_t chunk;
    bool wrote;
} step_result;

/* The record's chunk at the step's end. */
static CROWD_ALWAYS_INLINE step_result record_chunk(const crowd_sim *sim, const step_params *k, uint32_t s, bool wrote)
{
    float at[3];
    crowd_rec_position(&sim->slots.records[s], k->t_next, at);
    return (step_result){crowd_chunk_at(&sim->grid.map, at), wrote};
}

/* A steady agent's step (walking a straight line at cruise speed, or drifting: the record changes
 * only if the velocity it moves with does; or standing and showing it already); false when the
 * agent is not on such a path (then step_move takes the changing one). */
static CROWD_ALWAYS_INLINE bool step_steady(crowd_sim *sim, const step_params *k, uint32_t s, const float p[3],
                                            sim_drift drift, step_result *out)
{
    crowd_record *r = &sim->slots.records[s];
    const sim_agent *a = &sim_agents(sim)[s];
    const float *v = a->velocity;
    if (v[0] != 0.0f || v[1] != 0.0f || drifts(drift)) {
        uint32_t word = crowd_pack_velocity(v[0] + drift.x, v[1] + drift.z);
        bool wrote = word != r->velocity;
        if (wrote)
            write_motion(sim, s, p, k->t_next, word);
        *out = record_chunk(sim, k, s, wrote);
        return true;
    }
    if (a->gait != 0 || k->gather)
        return false;
    bool wrote = r->velocity != 0; /* standing, and showing it already: nothing to write but a stop */
    if (wrote) {
        crowd_rec_anchor(r, k->t_next);
        r->velocity = 0;
        sim->slots.dirty[s] = 1;
    }
    *out = record_chunk(sim, k, s, wrote);
    return true;
}

/* After the velocity is settled and obstacles are avoided (p is the new position): the steady
 * path, the changing one (turning, speeding up: heading, gait and rate follow the steering) or
 * sim_step_rare. The chunk returned is the record's, from where it now puts the agent. */
static CROWD_ALWAYS_INLINE step_result step_move(crowd_sim *sim, const step_params *k, uint32_t s, const float p[3],
                                                 bool steady, sim_drift drift, float target)
{
    crowd_record *r = &sim->slots.records[s];
    sim_agent *a = &sim_agents(sim)[s];
    const float *v = a->velocity;
    bool inside = fabsf(p[0]) < k->half && fabsf(p[2]) < k->half, wrote;
    step_result out;
    /* steady walkers never reach the edge; drift may */
    if (steady && (inside || (!drifts(drift) && !k->wraps)) && step_steady(sim, k, s, p, drift, &out))
        return out;
    float speed = sqrtf(v[0] * v[0] + v[1] * v[1]);
    if (speed < 0.001f || !inside) {
        wrote = sim_step_rare(sim, k, s, p, speed, drift, target);
    } else {
        write_motion(sim, s, p, k->t_next, crowd_pack_velocity(v[0] + drift.x, v[1] + drift.z));
        if (speed > 0.05f)
            r->yaw = crowd_atan2(v[0], v[1]);
        update_gait(sim, s, a, target >= 0.0f ? target : speed, k->gather && speed < IDLE_ENTER);
        wrote = true;
    }
    return record_chunk(sim, k, s, wrote);
}

/* One agent, its drift updated (zero unless drifting), given its desired velocity (sim_steer.c):
 * steering, obstacles, step_move. The walks take the steady cases inline and call this for the
 * rest. `blend`: how far the velocity turns towards the desired one (more for agents that re-plan
 * less often). `target`: the speed whose gait and rate to play (a far agent's, under closed-form
 * turns: its desired speed), or negative for the speed it moves at. */
static CROWD_ALWAYS_INLINE step_result step_agent_from(crowd_sim *sim, const step_params *k, uint32_t s,
                                                       const float now[3], const float desired[2], sim_drift drift,
                                                       float blend, float target)
{
    float *v = sim_agents(sim)[s].velocity;
    bool steady = v[0] == desired[0] && v[1] == desired[1];
    if (!steady) {
        v[0] += (desired[0] - v[0]) * blend;
        v[1] += (desired[1] - v[1]) * blend;
        if (fabsf(desired[0] - v[0]) + fabsf(desired[1] - v[1]) < 2e-3f) { /* arrived at cruise: snap */
            v[0] = desired[0];
            v[1] = desired[1];
        }
    }
    float p[3] = {now[0] + (v[0] + drift.x) * k->dt, now[1], now[2] + (v[1] + drift.z) * k->dt};
    uint32_t chunk = crowd_chunk_at(&sim->grid.map, p);
    if (sim->chunk_obstacle_start[chunk] != sim->chunk_obstacle_start[chunk + 1] &&
        sim_avoid_obstacles(sim, chunk, p, v))
        steady = false;
    bool turned = sim->stands_only && v[0] == 0.0f && v[1] == 0.0f && turn_in_place(sim, s, &sim_agents(sim)[s], blend);
    step_result moved = step_move(sim, k, s, p, steady, drift, target);
    moved.wrote |= turned;
    return moved;
}

/* The same, from where its record has it at the step's start. */
static CROWD_ALWAYS_INLINE step_result step_agent(crowd_sim *sim, const step_params *k, uint32_t s,
                                                  const float desired[2], sim_drift drift, float blend, float target)
{
    float now[3];
    crowd_rec_position(&sim->slots.records[s], k->t_now, now);
    return step_agent_from(sim, k, s, now, desired, drift, blend, target);
}

#define STEP_BATCH 128 /* desired velocities computed ahead, a scenario dispatch per batch */
#define SCAN_AHEAD 3u  /* batches: how far ahead the walk among sleepers asks for the awake ones' lines */

/* The chunk of the agent before: most agents are still in it, and telling so is four compares on
 * the scaled position instead of its conversion and clamping (bounds in chunk units: truncating a
 * value in [i, i + 1) gives i, exactly as crowd_chunk_at does; border chunks reach to infinity). */
typedef struct chunk_cache {
    float lo_x, hi_x, lo_z, hi_z;
    uint32_t chunk;
    bool obstacles; /* obstacles reach into it */
} chunk_cache;

static CROWD_ALWAYS_INLINE uint32_t cached_chunk(chunk_cache *cc, const crowd_grid_map *g, const uint32_t *obstacles,
                                                 const float *p)
{
    float tx = (p[0] - g->origin) * g->inv_cell, tz = (p[2] - g->origin) * g->inv_cell;
    if (tx >= cc->lo_x && tx < cc->hi_x && tz >= cc->lo_z && tz < cc->hi_z)
        return cc->chunk;
    uint32_t chunk = crowd_chunk_at(g, p), last = (uint32_t)g->last, ix = chunk % (last + 1), iz = chunk / (last + 1);
    *cc = (chunk_cache){ix ? (float)ix : -INFINITY,
                        ix < last ? (float)(ix + 1) : INFINITY,
                        iz ? (float)iz : -INFINITY,
                        iz < last ? (float)(iz + 1) : INFINITY,
                        chunk,
                        obstacles[chunk] != obstacles[chunk + 1]};
    return chunk;
}

/* ---- a walk over one region ----------------------------------------------------------------------
 *
 * What every visit of a walk reads, and what it accumulates (the chunk run, the chunk cache, the
 * gathering, the count of records written). A walk keeps it in a local and passes its address only
 * to the inline helpers, so the compiler keeps it in registers: a store to a record or a flag byte
 * may alias anything reached through a pointer, and would otherwise make it reload every field per
 * agent. Its address must never reach a function that is not inlined. */
typedef struct sim_walk {
    crowd_sim *sim;
    const step_params *k;
    crowd_binner *bin;
    sim_sleep_delta *delta;
    crowd_record *records;
    sim_agent *agents;
    sim_drift *drifts;
    uint8_t *dirty;
    const uint32_t *obstacles; /* sim->chunk_obstacle_start */
    crowd_grid_map grid;
    sim_sleep sleep; /* .until NULL: nobody sleeps in this walk */
    const uint8_t *gate;
    int own_gate;
    uint32_t tick, region, slot_capacity;
    float edge; /* the wander edge margin: half the world less SIM_WANDER_EDGE */
    bool sleeps, separate;
    bool far_turns; /* a far region whose agents' turns are closed-form records */
    crowd_run run;
    chunk_cache cache;
    sim_gatherer gather;
    uint32_t rewritten;
} sim_walk;

/* A walk of `region` binning into `bin` (and, where the step sleeps, into the sim's sleep delta). */
static CROWD_ALWAYS_INLINE sim_walk sim_walk_begin(crowd_sim *sim, const step_params *k, crowd_binner *bin,
                                                   const sim_gatherer *gatherer, uint32_t region, bool sleeps)
{
    sim_walk w = {.sim = sim,
                  .k = k,
                  .bin = bin,
                  .delta = sim->delta,
                  .records = sim->slots.records,
                  .agents = sim_agents(sim),
                  .drifts = sim_drifts(sim),
                  .dirty = sim->slots.dirty,
                  .obstacles = sim->chunk_obstacle_start,
                  .grid = bin->grid,
                  .sleep = sleeps ? sim_sleep_of(sim) : (sim_sleep){NULL, NULL, 0},
                  .gate = sim->sleep_gate,
                  .own_gate = sim_own_gate(sim->sleep_gate, region, sim->grid.chunks),
                  .tick = sim->tick,
                  .region = region,
                  .slot_capacity = sim->slots.capacity,
                  .edge = -sim->grid.origin - SIM_WANDER_EDGE,
                  .sleeps = sleeps,
                  .separate = k->separate,
                  .far_turns = false,
                  .run = {.id = CROWD_PARKED_CELL},
                  .cache = {1.0f, 0.0f, 1.0f, 0.0f, 0, false}, /* empty: the first agent fills it */
                  .gather = k->separate ? *gatherer : (sim_gatherer){0},
                  .rewritten = 0};
    return w;
}

/* The walk's last run into its binner, and its gathering back to the step's. */
static CROWD_ALWAYS_INLINE uint32_t sim_walk_end(const sim_walk *w, sim_gatherer *gatherer)
{
    crowd_run last = w->run; /* a copy's address escapes, never the walk's */
    crowd_bin_close(w->bin, &last);
    if (w->separate)
        *gatherer = w->gather;
    return w->rewritten;
}

/* Adds stepped slot s (record r, now at p, in chunk) to the walk's chunk run. Its dirty flag is read
 * after the fade check, which may fold a fade and set it. */
static CROWD_ALWAYS_INLINE void bin_stepped_at(sim_walk *w, uint32_t s, crowd_record *r, const float *p, uint32_t chunk,
                                               float speed)
{
    crowd_bin_fade(w->bin, r, s);
    if (chunk != w->run.id) {
        crowd_run closing = w->run; /* a copy's address escapes, never the walk's */
        crowd_bin_close(w->bin, &closing);
        w->run = crowd_run_open(w->bin, chunk, r, p);
    }
    crowd_run_add_at(&w->run, r, p, w->dirty[s] != 0, speed);
    if (w->run.moves)
        crowd_bin_mover(w->bin, s, chunk);
}

/* The same, the speed bound taken from the record (a fade's fold above leaves the motion alone). */
static CROWD_ALWAYS_INLINE void bin_stepped(sim_walk *w, uint32_t s, crowd_record *r, const float *p, uint32_t chunk)
{
    bin_stepped_at(w, s, r, p, chunk, crowd_rec_moves(r) ? crowd_rec_speed_bound(r) : 0.0f);
}

/* A jostled agent at cruise speed (steady, drifting, well inside the world): from `now`, where its
 * record has it at the step's start, it moves by its velocity and drift, and only the position and
 * the velocity it moves on with change, unless obstacles steer it (step_move). p: where it is at
 * the step's end; returns its chunk (the walk's cache holds it). */
static CROWD_ALWAYS_INLINE uint32_t step_jostled(sim_walk *w, uint32_t s, const float now[3], sim_drift drift,
                                                 float p[3])
{
    const step_params *k = w->k;
    float *v = w->agents[s].velocity, u0 = v[0] + drift.x, u1 = v[1] + drift.z;
    p[0] = now[0] + u0 * k->dt;
    p[1] = now[1];
    p[2] = now[2] + u1 * k->dt;
    uint32_t chunk = cached_chunk(&w->cache, &w->grid, w->obstacles, p);
    if (w->cache.obstacles && sim_avoid_obstacles(w->sim, chunk, p, v)) {
        step_result moved = step_move(w->sim, k, s, p, false, drift, -1.0f);
        w->rewritten += moved.wrote;
        return moved.chunk;
    }
    crowd_rec_set_motion(&w->records[s], p, k->t_next, crowd_pack_velocity(u0, u1));
    w->dirty[s] = 1;
    w->rewritten++;
    return chunk;
}

/* ---- far regions (the level of detail) ----------------------------------------------------------- */

/* How often a far chunk's agents re-plan: every lod_interval-th step, or offscreen_interval-th out of
 * view (sim_step.c's mark_far_cells). */
static inline uint32_t sim_chunk_interval(const crowd_sim *sim, uint32_t chunk)
{
    return sim->chunk_offscreen[chunk] ? sim->desc.offscreen_interval : sim->desc.lod_interval;
}

/* The steering's blend (per step: `blend`) for an agent re-planned every interval-th step: the
 * interval's steps' worth, at most all the way. */
static inline float far_blend(float blend, uint32_t interval)
{
    float b = blend * (float)interval;
    return b < 1.0f ? b : 1.0f;
}

/* A far chunk's place in the round robin at this step: 0 steps, its interval - 1 steps next
 * (gathered whole), the others rest. */
static inline uint32_t sim_far_phase(const crowd_sim *sim, uint32_t chunk)
{
    return (chunk + sim->steps) % sim_chunk_interval(sim, chunk);
}

/* How far ahead (seconds) a far agent is gathered for the separation: halfway through its chunk's
 * interval from the step's end, so a push that moves it for a whole interval comes as a pair closes
 * in, not after (docs/simulation.md, "separation under the level of detail"). A near agent is
 * gathered where it is: it is stepped every step. */
static inline float sim_far_ahead(uint32_t interval, float dt)
{
    return 0.5f * (float)interval * dt;
}

/* The gathering's tag for a far chunk's agents on the step before its turn: their push counts for
 * its interval. */
static inline uint32_t sim_far_next_tag(const crowd_sim *sim, uint32_t chunk)
{
    return sim->chunk_offscreen[chunk] ? SIM_GATHER_OFFSCREEN : SIM_GATHER_FAR;
}

/* Walks far region `region` (slots [first, end), all live) while agents separate: steps the agents
 * whose chunk's turn it is, rests the others. Returns the records it rewrote. */
uint32_t sim_far_walk(crowd_sim *sim, const step_params *k, crowd_binner *bin, sim_gatherer *gatherer, uint32_t region,
                      uint32_t first, uint32_t end);

#endif
