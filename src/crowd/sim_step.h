/* Internal: one agent's step, shared by the region walks (sim.c, and sim_far.c for far regions
 * under separation): gaits, the record's motion, drift, binning the stepped agent. Everything per
 * agent is inline here (CROWD_ALWAYS_INLINE: the walks keep their locals in registers); the rare
 * cases are out of line in sim.c (sim_step_rare). */
#ifndef CROWD_SIM_STEP_H
#define CROWD_SIM_STEP_H

#include <math.h>

#include "crowd/sim_internal.h"

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
static CROWD_ALWAYS_INLINE void update_gait(crowd_sim *sim, uint32_t slot, crowd_agent *a, float speed, bool arrived)
{
    crowd *c = sim->crowd;
    if (sim->gait_count == 0)
        return;
    const crowd_record *r = &c->records[slot];
    /* A smaller body covers less ground per cycle: gaits and rates go by speed in its own sizes. */
    float own_speed = speed / r->scale;
    uint32_t gait = gait_for_speed(sim, a->gait, own_speed);
    const sim_gait *g = &sim->gaits[gait];
    uint32_t clip = g->clip;
    float rate = c->stride_matching && g->rate_per_speed > 0.0f ? own_speed * g->rate_per_speed : g->authored_rate;
    if (arrived && gait == 0 && sim->cheer_clip >= 0) {
        clip = (uint32_t)sim->cheer_clip;
        rate = crowd_stride_rate(c, clip, 0.0f, r->scale);
    }
    rate = clamp_rate(rate); /* a tiny agent pushed hard would otherwise leave the setters' range */
    bool fading = r->fade_rate > 0.0f;
    uint32_t showing = fading ? crowd_rec_clip_b(r) : crowd_rec_clip_a(r);
    if (showing != clip) {
        crowd_play_slot(c, slot, clip, rate, sim->fade_seconds, false);
    } else {
        float current = fading ? r->rate_b : r->rate_a;
        if (fabsf(rate - current) > 0.002f * current)
            crowd_set_rate_slot(c, slot, rate);
    }
    a->gait = (uint8_t)gait;
}

/* What every agent's step shares; passed by value so hot loops keep it in registers. t_now is the
 * shader time the step starts at, t_next the one it ends at (the frame's): records are anchored
 * there. */
typedef struct step_params {
    float dt, blend, world, half, t_now, t_next;
    bool separate, wraps, gather;
    bool turns; /* far agents' turns may be closed-form records ("turns" below) */
} step_params;

/* Re-anchors slot s's record at the end of the step: at p, moving on at the (rounded) velocity
 * word. The simulation reads positions back from the record, so what the GPU extrapolates is what
 * the next step starts from. */
static CROWD_ALWAYS_INLINE void write_motion(crowd *c, uint32_t s, const float p[3], float t, uint32_t velocity)
{
    crowd_rec_set_motion(&c->records[s], p, t, velocity); /* a straight line: any turn ends */
    c->dirty[s] = 1;
}

/* The rare cases, out of line (sim.c): standing still, wrapping round the world, held at its edge.
 * Returns whether the record changed. */
bool sim_step_rare(crowd_sim *sim, step_params k, uint32_t s, const float p_in[3], float speed, bool drifting,
                   crowd_drift drift, float target);

/* Separation pushes go into a drift velocity of their own that decays at the steering blend rate:
 * steering plus drift moves exactly as one velocity blended towards the desired one with pushes
 * added, but only steering turns the agent and sets its gait and rate. A jostled agent keeps
 * facing where it walks (and stays on the steady path: only its position changes) instead of
 * twitching its heading and gait every step. The step moves by the drift, then decays it; the
 * separation pass at the end of the step adds the new pushes. */
static CROWD_ALWAYS_INLINE crowd_drift decay_drift(crowd_drift d, float blend)
{
    float x = d.x - d.x * blend, z = d.z - d.z * blend;
    bool settled = fabsf(x) + fabsf(z) < 2e-3f; /* like the steering snap */
    return (crowd_drift){settled ? 0.0f : x, settled ? 0.0f : z};
}

/* What stepping one agent did: its chunk now, and whether its record changed. */
typedef struct step_result {
    uint32_t chunk;
    bool wrote;
} step_result;

/* After the velocity is settled and obstacles are avoided (p is the new position): the steady
 * path (walking a straight line at cruise speed, or drifting: the record changes only if the
 * velocity it moves with does), the changing one (turning, speeding up: heading, gait and rate
 * follow the steering) or sim_step_rare. The chunk returned is the record's, from where it now puts
 * the agent. */
static CROWD_ALWAYS_INLINE step_result step_move(crowd_sim *sim, const step_params *k, uint32_t s, const float p[3],
                                                 bool steady, bool drifting, crowd_drift drift, float target)
{
    crowd *c = sim->crowd;
    const crowd_grid_map grid = crowd_grid_of(c);
    crowd_record *r = &c->records[s];
    crowd_agent *a = &c->agents[s];
    const float *v = a->velocity;
    bool inside = fabsf(p[0]) < k->half && fabsf(p[2]) < k->half, wrote = false;
    float at[3];
    if (steady && (inside || (!drifting && !k->wraps))) { /* steady walkers never reach the edge; drift may */
        if (v[0] != 0.0f || v[1] != 0.0f || drifting) {
            uint32_t word = crowd_pack_velocity(v[0] + drift.x, v[1] + drift.z);
            if (word != r->velocity) {
                write_motion(c, s, p, k->t_next, word);
                wrote = true;
            }
            crowd_rec_position(r, k->t_next, at);
            return (step_result){crowd_chunk_at(&grid, at), wrote};
        }
        if (a->gait == 0 && !k->gather) { /* standing, and showing it already: nothing to write */
            if (r->velocity) {
                crowd_rec_anchor(r, k->t_next);
                r->velocity = 0;
                c->dirty[s] = 1;
                wrote = true;
            }
            crowd_rec_position(r, k->t_next, at);
            return (step_result){crowd_chunk_at(&grid, at), wrote};
        }
    }
    float speed = sqrtf(v[0] * v[0] + v[1] * v[1]);
    if (speed < 0.001f || !inside) {
        wrote = sim_step_rare(sim, *k, s, p, speed, drifting, drift, target);
    } else {
        write_motion(c, s, p, k->t_next, crowd_pack_velocity(v[0] + drift.x, v[1] + drift.z));
        if (speed > 0.05f)
            r->yaw = crowd_atan2(v[0], v[1]);
        update_gait(sim, s, a, target >= 0.0f ? target : speed, k->gather && speed < IDLE_ENTER);
        wrote = true;
    }
    crowd_rec_position(r, k->t_next, at);
    return (step_result){crowd_chunk_at(&grid, at), wrote};
}

/* One agent, its drift updated (zero unless drifting), given its desired velocity (sim_steer.c):
 * steering, obstacles, step_move. step_live takes the steady cases inline and calls this for the
 * rest. `blend`: how far the velocity turns towards the desired one (more for agents that re-plan
 * less often). `target`: the speed whose gait and rate to play (a far agent's, under closed-form
 * turns: its desired speed), or negative for the speed it moves at. */
static CROWD_ALWAYS_INLINE step_result step_agent_from(crowd_sim *sim, const step_params *k, uint32_t s,
                                                       const float now[3], const float desired[2], bool drifting,
                                                       crowd_drift drift, float blend, float target)
{
    crowd *c = sim->crowd;
    const crowd_grid_map grid = crowd_grid_of(c);
    crowd_agent *a = &c->agents[s];
    float *v = a->velocity;
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
    uint32_t chunk = crowd_chunk_at(&grid, p);
    if (sim->chunk_obstacle_start[chunk] != sim->chunk_obstacle_start[chunk + 1] &&
        sim_avoid_obstacles(sim, chunk, p, v))
        steady = false;
    return step_move(sim, k, s, p, steady, drifting, drift, target);
}

/* The same, from where its record has it at the step's start. */
static CROWD_ALWAYS_INLINE step_result step_agent(crowd_sim *sim, const step_params *k, uint32_t s,
                                                  const float desired[2], bool drifting, crowd_drift drift, float blend,
                                                  float target)
{
    float now[3];
    crowd_rec_position(&sim->crowd->records[s], k->t_now, now);
    return step_agent_from(sim, k, s, now, desired, drifting, drift, blend, target);
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

/* Adds stepped slot s (record r, now at p, in chunk) to the region walk's chunk run (a local of the caller).
 * Its dirty flag is read after the fade check, which may fold a fade and set it. */
static CROWD_ALWAYS_INLINE void bin_stepped_at(crowd_binner *bin, crowd_run *run, uint32_t s, crowd_record *r,
                                               const float *p, uint32_t chunk, const uint8_t *dirty, float speed)
{
    crowd_bin_fade(bin, r, s);
    if (chunk != run->id) {
        crowd_run closing = *run; /* a copy's address escapes, never the run's */
        crowd_bin_close(bin, &closing);
        *run = crowd_run_open(bin, chunk, r, p);
    }
    crowd_run_add_at(run, r, p, dirty[s] != 0, speed);
    if (run->moves)
        crowd_bin_mover(bin, s, chunk);
}

/* The same, the speed bound taken from the record (a fade's fold above leaves the motion alone). */
static CROWD_ALWAYS_INLINE void bin_stepped(crowd_binner *bin, crowd_run *run, uint32_t s, crowd_record *r,
                                            const float *p, uint32_t chunk, const uint8_t *dirty)
{
    bin_stepped_at(bin, run, s, r, p, chunk, dirty, crowd_rec_moves(r) ? crowd_rec_speed_bound(r) : 0.0f);
}

/* A jostled agent at cruise speed (steady, drifting, well inside the world): from `now`, where its
 * record has it at the step's start, it moves by its velocity and drift, and only the position and
 * the velocity it moves on with change, unless obstacles steer it (step_move). p: where it is at
 * the step's end; returns its chunk (the cache holds it). */
static CROWD_ALWAYS_INLINE uint32_t step_jostled(crowd_sim *sim, const step_params *k, uint32_t s, const float now[3],
                                                 crowd_drift drift, chunk_cache *cache, const crowd_grid_map *grid,
                                                 uint32_t *rewritten, float p[3])
{
    crowd *c = sim->crowd;
    float *v = c->agents[s].velocity, u0 = v[0] + drift.x, u1 = v[1] + drift.z;
    p[0] = now[0] + u0 * k->dt;
    p[1] = now[1];
    p[2] = now[2] + u1 * k->dt;
    uint32_t chunk = cached_chunk(cache, grid, sim->chunk_obstacle_start, p);
    if (cache->obstacles && sim_avoid_obstacles(sim, chunk, p, v)) {
        step_result moved = step_move(sim, k, s, p, false, true, drift, -1.0f);
        *rewritten += moved.wrote;
        return moved.chunk;
    }
    crowd_rec_set_motion(&c->records[s], p, k->t_next, crowd_pack_velocity(u0, u1));
    c->dirty[s] = 1;
    ++*rewritten;
    return chunk;
}

/* ---- far regions under separation (sim_far.c) -------------------------------------------------- */

/* How often a far chunk's agents re-plan: every lod_interval-th step, or offscreen_interval-th out of
 * view (sim.c's mark_far_cells). */
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
 * interval from the step's end. A push moves a far agent for a whole interval without a look at
 * its neighbours in between; taken from where the agents are at its start, it let pairs walking
 * towards each other close in before the next turn could part them. Taken from where their
 * records will have them halfway, it comes as they close in. (The crowd of test_crowd's
 * far_separation_keeps_space: pairs closer than 0.5 m 10 -> 1 at lod_interval 4, with the push cap of
 * sim_separation.c's far_push_scale; before the cap, a quarter of the interval ahead left 2, half 0,
 * the whole interval 1.) A near agent is gathered where it is: it is stepped every step. */
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

/* ---- sleepers (sim.c, "sleep"; sim_far.c, "resting sleepers") ----------------------------------
 *
 * A sleeper sleeps on through the step ending at t_next while its time is ahead and the step's gate
 * byte for its sleep word is not 0 (sim->sleep_gate, sim.c's refresh_sleepers: 0 where its chunk
 * comes near; under separation on the chunk's turn; without, for step_live's resting kind, on the
 * chunk's turn). (sim_far.c's resting sleepers, under separation, are stored as the event kind:
 * their chunk's turn wakes all its sleepers there.) */

/* scan_visits' `own_gate` for a walk over region `region` (sim->sleep_gate `gate`, `chunks` chunks):
 * the gate byte of all its sleepers where they share one, as a chunk's own region's do unless its
 * turn wakes its resting sleepers only (0, everyone wakes; 1, a sleeper sleeps while its time is
 * ahead, and an awake slot's time is 0; 3, as sim_far.c's); else -1 (the far pool, or that turn:
 * each sleeper's own gate byte, read with its sleep word). */
static inline int sim_own_gate(const uint8_t *gate, uint32_t region, uint32_t chunks)
{
    if (region >= chunks)
        return -1;
    uint8_t g = gate[region + 1];
    return gate[chunks + region + 1] == g ? g : -1;
}

/* The slots of the m from `from` that a walk visits, into `list` (offsets); returns how many: the
 * awake, and under separation (sim_far.c) the sleepers of a far chunk whose turn is next (gate
 * byte 3: sim.c's refresh_sleepers), flagged in `read_only` (the walk reads where they are for the
 * gathering and leaves them asleep; NULL where no such gate can come). `own_gate`: sim_own_gate's. */
static CROWD_ALWAYS_INLINE uint32_t scan_visits(crowd_sleep sleep, uint32_t from, uint32_t m, float t_next,
                                                const uint8_t *gate, int own_gate, uint8_t *list, uint8_t *read_only)
{
    uint32_t w = 0;
    if (own_gate < 0) {
        for (uint32_t i = 0; i < m; i++) {
            uint32_t g = gate[sleep.cell[from + i]], sleeping = g & (uint32_t)(t_next < sleep.until[from + i]);
            list[w] = (uint8_t)i;
            if (read_only)
                read_only[w] = (uint8_t)(sleeping & (g >> 1));
            w += (sleeping ^ 1u) | ((g >> 1) & 1u);
        }
    } else if (own_gate == 0 || own_gate == 3) {
        for (uint32_t i = 0; i < m; i++) {
            list[i] = (uint8_t)i;
            if (read_only)
                read_only[i] = (uint8_t)(own_gate && t_next < sleep.until[from + i]);
        }
        w = m;
    } else {
        /* (the common case: a chunk's own region among sleepers. Blocks of 16 are counted first,
         * a count the compilers vectorise, and at a fiftieth awake most have none.) */
        const float *until = sleep.until + from;
        for (uint32_t i = 0; i < m; i += 16) {
            uint32_t e = m - i < 16 ? m : i + 16;
            if (e == i + 16) {
                uint32_t awake = 0;
                for (uint32_t j = 0; j < 16; j++)
                    awake += until[i + j] <= t_next;
                if (!awake)
                    continue;
            }
            for (uint32_t j = i; j < e; j++) {
                list[w] = (uint8_t)j;
                if (read_only)
                    read_only[w] = 0;
                w += !(t_next < until[j]);
            }
        }
    }
    return w;
}

/* The walks' batches to visit, scanned SCAN_AHEAD batches ahead: a ring of their lists. */
typedef struct scan_ring {
    uint8_t list[SCAN_AHEAD + 1][STEP_BATCH], read_only[SCAN_AHEAD + 1][STEP_BATCH];
    uint32_t count[SCAN_AHEAD + 1];
} scan_ring;

/* For the batch at `base` of a walk over [first, end): each slot's sleep is tested once, as its
 * batch comes SCAN_AHEAD ahead (the first ones at the walk's first batch), and the lines of those
 * to visit are asked for then (scattered among sleepers, they would otherwise be fetched one after
 * another at memory latency; one batch ahead, with a fiftieth awake, left most of that latency in
 * the walk). Returns the ring's entry for `base`. `agents` NULL: their state is not asked for;
 * `read_only` as scan_visits'. */
static CROWD_ALWAYS_INLINE uint32_t scan_ahead(scan_ring *ring, crowd_sleep sleep, uint32_t first, uint32_t end,
                                               uint32_t base, float t_next, const uint8_t *gate, int own_gate,
                                               const crowd_record *records, const crowd_agent *agents, bool read_only)
{
    uint32_t b = (base - first) / STEP_BATCH;
    for (uint32_t d = base == first ? 0 : SCAN_AHEAD; d <= SCAN_AHEAD; d++) {
        uint32_t from = base + d * STEP_BATCH, at = (b + d) % (SCAN_AHEAD + 1);
        uint32_t m = from < end ? (end - from < STEP_BATCH ? end - from : STEP_BATCH) : 0;
        uint32_t w =
            scan_visits(sleep, from, m, t_next, gate, own_gate, ring->list[at], read_only ? ring->read_only[at] : NULL);
        for (uint32_t j = 0; j < w && d; j++) {
            crowd_prefetch(&records[from + ring->list[at][j]]);
            if (agents)
                crowd_prefetch(&agents[from + ring->list[at][j]]);
            crowd_prefetch(&sleep.cell[from + ring->list[at][j]]);
        }
        ring->count[at] = w;
    }
    return b % (SCAN_AHEAD + 1);
}

/* Sleeping slot s wakes: its chunk's sleepers (this walk's changes to them) count it no more, unless
 * its chunk's gate emptied them already (refresh_sleepers), and its sleep words are cleared (the
 * scans read only the time where they can). */
static CROWD_ALWAYS_INLINE void wake_sleeper(crowd_binner *bin, crowd_sleep sleep, const uint8_t *gate, uint32_t s)
{
    uint32_t chunk = crowd_sleep_chunk(sleep, sleep.cell[s]);
    if (gate[chunk + 1]) /* (a resting sleeper woken for its chunk's turn: that gate is 0, this one not) */
        crowd_bin_sleepers(bin, chunk)->count--;
    crowd_sleep_wake(sleep, s);
}

/* The same for a sleeper until its event (under separation, the only kind: sim_far.c). */
static CROWD_ALWAYS_INLINE void wake_event_sleeper(crowd_binner *bin, crowd_sleep sleep, const uint8_t *gate,
                                                   uint32_t s)
{
    if (gate[sleep.cell[s]])
        crowd_bin_sleepers(bin, sleep.cell[s] - 1)->count--;
    crowd_sleep_wake(sleep, s);
}

/* Slot s (record r, whose crowd_rec_speed_bound is `speed`) falls asleep in chunk until shader time
 * `until` (`resting`: or its chunk's next turn, whichever comes first), having walked, by then,
 * within the box lo..hi: its chunk's sleepers (this walk's changes to them) count it and hold that
 * box. */
static CROWD_ALWAYS_INLINE void sleep_until_at(crowd_binner *bin, crowd_sleep z, uint32_t s, const crowd_record *r,
                                               uint32_t chunk, float until, const float lo[3], const float hi[3],
                                               float speed, bool resting)
{
    crowd_sleepers *d = crowd_bin_sleepers(bin, chunk);
    d->count++;
    d->fell++;
    for (int k = 0; k < 3; k++) { /* compares, not fminf/fmaxf (calls, for their NaN rules) */
        d->lo[k] = lo[k] < d->lo[k] ? lo[k] : d->lo[k];
        d->hi[k] = hi[k] > d->hi[k] ? hi[k] : d->hi[k];
    }
    d->scale = r->scale > d->scale ? r->scale : d->scale;
    d->speed = speed > d->speed ? speed : d->speed;
    d->until = until > d->until ? until : d->until;
    z.until[s] = until;
    // cppcheck-suppress unreadVariable ; false positive: writes the array `z` points at, not the copy
    z.cell[s] = chunk + 1 + (resting ? z.resting : 0);
}

/* The same, the speed bound taken from the record. */
static CROWD_ALWAYS_INLINE void sleep_until(crowd_binner *bin, crowd_sleep z, uint32_t s, const crowd_record *r,
                                            uint32_t chunk, float until, const float lo[3], const float hi[3],
                                            bool resting)
{
    sleep_until_at(bin, z, s, r, chunk, until, lo, hi, crowd_rec_speed_bound(r), resting);
}

#endif
