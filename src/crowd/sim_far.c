/* Separation under the level of detail: the walk over a far region while agents separate.
 *
 * With separation on, far agents are stepped a chunk at a time: every interval-th step, round
 * robin by chunk (sim_far_phase), a chunk's agents re-plan and move by their drift, which then
 * decays by the far blend (the interval's steps' worth). The interval is lod_interval, or
 * offscreen_interval for a chunk out of view (sim_chunk_interval; sim.c's mark_far_cells switches a
 * chunk's only where both rounds turn it). In between, the chunk rests: its agents walk on with their
 * records (the velocity there includes the drift they had). The pushes a stepping chunk moves by are
 * taken at the end of the step before, and count the interval's steps each (SIM_GATHER_FAR,
 * SIM_GATHER_OFFSCREEN), at most half the overlap over the interval (sim_separation.c's
 * far_push_scale: more overshoots and the crowd rings). Far agents are gathered where their records
 * will have them halfway through their interval (ahead_of, sim_step.h's sim_far_ahead), near ones
 * where they are. So at every step the separation gathers the near agents, the far chunks that step
 * next, and, as neighbours that push them but get no push themselves (SIM_GATHER_PASSIVE), the
 * resting far agents in or near those chunks (pushes_neighbours): within a separation radius of
 * one, plus a margin for movers whose region is not yet their chunk's and for how far ahead a
 * pushed agent is gathered (sim.c's mark_active_cells). Pairs among resting agents would push
 * nobody. In the benchmark's crowd (100k on 420 m) the separation then takes about a quarter of
 * the agents per step instead of all of them, and records written per step are about a fifth of
 * the array.
 *
 * A chunk's own region holds its agents, so it steps or rests whole, at its chunk's phase (movers
 * keep their region's until re-slotted). The far pool holds many chunks, a third or more of the
 * benchmark's crowd: its agents take the phase of the chunk they are in one by one, so every step
 * steps about 1 / interval of the far crowd. (Until session 15 the pool stepped whole at one
 * phase: one step in four stepped and separated three times the agents of the others, a 1.5x frame
 * spike the benchmark's median hid.) An agent that crosses into a chunk whose phase is one behind
 * (or re-slots into one) may take its turn twice in a row, or skip one: a few per step, none of
 * them in view. Into a chunk at the other rate (in view against out of it), its next turn may come
 * up to that chunk's interval late or early, and the push it carries is its old chunk's: capped
 * for 4 steps, it may drift for 8 and part the pair by its whole overlap. Rare: only across the
 * view's edges, and only the far pool's agents and movers.
 *
 * Resting sleepers: an agent just stepped, walking a straight line away from its chunk's edges with
 * no fade running, changes nothing through its chunk's rest steps but the position its record
 * extrapolates: it is not gathered as a neighbour (where it is gathered is farther than the reach
 * from every edge) and does not change chunk (it would come near the edge first). So it sleeps
 * (sim.c, "sleep": skipped by the walk, counted and bounded by its chunk's sleepers) for its
 * chunk's interval less half a step, of this one's length, or until where it is gathered comes
 * within that reach of an edge if sooner: the rest steps then
 * visit the agents near edges, the movers and those turning or fading, and on the step before its
 * chunk's turn the walk reads where each sleeper is for the gathering without waking it (sim.c's
 * refresh_sleepers gives the chunk gate 3 then). The turn wakes the chunk's sleepers (gate 0),
 * should shorter steps have left some asleep. The records, pushes and drifts are those of a walk
 * that visits every agent, byte for byte, at a steady step (test_crowd, sleepers_keep_chunks_exact
 * with separation); a step longer than the one a sleeper fell asleep in widens the movers' margin
 * past it, so a mover may miss it as a neighbour for that step. */
#include <math.h>
#include <stddef.h>

#include "crowd/sim_step.h"

/* Where record r has its agent at time t (into p), its velocity's halves decoded once (into v: the
 * record's velocity now, for a straight one); returns crowd_rec_speed_bound. */
static CROWD_ALWAYS_INLINE float walk_on(const crowd_record *r, float t, float p[3], float v[2])
{
    if (r->clips & CROWD_RECORD_TURN) {
        crowd_rec_position(r, t, p);
        crowd_rec_turn_velocity(r, t, v);
        return crowd_rec_speed_bound(r);
    }
    float dt = t - r->ref_time;
    v[0] = crowd_float_from_half(r->velocity & 0xFFFFu);
    v[1] = crowd_float_from_half(r->velocity >> 16);
    p[0] = r->position[0] + v[0] * dt;
    p[1] = r->position[1];
    p[2] = r->position[2] + v[1] * dt;
    return fabsf(v[0]) + fabsf(v[1]);
}

/* A position in the chunk grid: its chunk's column and row, and where in it (0..1 along each axis;
 * chunk edges are at whole chunk units); `inside`: within the grid (else the rest is unset). */
typedef struct grid_spot {
    uint32_t ix, iz;
    float fx, fz;
    bool inside;
} grid_spot;

static CROWD_ALWAYS_INLINE grid_spot spot_of(const crowd_grid_map *g, const float p[3])
{
    float tx = (p[0] - g->origin) * g->inv_cell, tz = (p[2] - g->origin) * g->inv_cell, dim = (float)(g->last + 1);
    grid_spot at = {0, 0, 0.0f, 0.0f, tx >= 0.0f && tx < dim && tz >= 0.0f && tz < dim};
    if (at.inside) {
        at.ix = (uint32_t)tx;
        at.iz = (uint32_t)tz;
        at.fx = tx - (float)at.ix;
        at.fz = tz - (float)at.iz;
    }
    return at;
}

/* Whether a resting agent (at `at`) is gathered as a neighbour (SIM_GATHER_PASSIVE): it is in a
 * chunk whose agents get pushes at the end of this step (`active`: sim.c's mark_active_cells), as a
 * mover whose region is not yet its chunk's may be, or within `reach` (chunk units: sim.c's
 * passive_reach) of one, across an edge or a corner. Anywhere else its pairs would push nobody.
 * Outside the grid, or with a reach of half a chunk or more (small chunks, a wide radius), always. */
static CROWD_ALWAYS_INLINE bool pushes_neighbours(const uint8_t *active, uint32_t stride, grid_spot at, float reach)
{
    if (!at.inside || reach >= 0.5f) /* (a reach of half a chunk or more: both sides, or farther) */
        return true;
    ptrdiff_t dx = at.fx < reach ? -1 : at.fx > 1.0f - reach ? 1 : 0;
    ptrdiff_t dz = at.fz < reach ? -(ptrdiff_t)stride : at.fz > 1.0f - reach ? (ptrdiff_t)stride : 0;
    if (!active) /* tests: every agent near any edge (sim->every_edge) */
        return dx || dz;
    const uint8_t *a = active + (size_t)(at.iz + 1) * stride + at.ix + 1; /* the table's border is never active */
    return (a[0] | a[dx] | a[dz] | a[dx + dz]) != 0;
}

/* Slot s (record r, at p at the step's end moving at v, speed bound `speed`, in chunk; `at`: where
 * it is gathered, ahead_of p, in the grid), just stepped, falls asleep through its chunk's rest
 * steps if it may (above): for `hold` seconds, or until that place comes within `reach` (chunk units)
 * of its chunk's edge, with a ten-thousandth of a chunk to spare. */
static CROWD_ALWAYS_INLINE void rest_sleep(crowd_binner *bin, crowd_sleep z, uint32_t s, const crowd_record *r,
                                           const float p[3], grid_spot at, const float v[2], float speed,
                                           uint32_t chunk, float t_next, float hold, float reach)
{
    const crowd_grid_map *g = &bin->grid;
    float lo = reach + 1e-4f, hi = 1.0f - lo;
    if (r->fade_rate > 0.0f || (r->clips & CROWD_RECORD_TURN) || !at.inside ||
        at.iz * (uint32_t)(g->last + 1) + at.ix != chunk ||      /* (ahead, in another chunk: near its edge) */
        !(at.fx > lo && at.fx < hi && at.fz > lo && at.fz < hi)) /* near an edge already */
        return;
    float ux = v[0] * g->inv_cell, uz = v[1] * g->inv_cell, span = hold, t;
    t = ux > 0.0f ? (hi - at.fx) / ux : ux < 0.0f ? (lo - at.fx) / ux : INFINITY;
    span = t < span ? t : span;
    t = uz > 0.0f ? (hi - at.fz) / uz : uz < 0.0f ? (lo - at.fz) / uz : INFINITY;
    span = t < span ? t : span;
    float until = t_next + span;
    if (!(span > 0.0f) || !(until > t_next))
        return;
    const float box_lo[3] = {p[0] + (v[0] < 0.0f ? v[0] : 0.0f) * span, p[1],
                             p[2] + (v[1] < 0.0f ? v[1] : 0.0f) * span};
    const float box_hi[3] = {p[0] + (v[0] > 0.0f ? v[0] : 0.0f) * span, p[1],
                             p[2] + (v[1] > 0.0f ? v[1] : 0.0f) * span};
    sleep_until_at(bin, z, s, r, chunk, until, box_lo, box_hi, speed, false);
}

/* A far chunk's round robin: how often it turns, its push's tag on the step before, the steering's
 * blend over its interval, how long its resting sleepers sleep at most, and how far ahead its agents
 * are gathered (ahead_of). */
typedef struct far_rate {
    uint32_t interval, next_tag;
    float blend, hold, ahead;
} far_rate;

static inline far_rate far_rate_of(const crowd_sim *sim, uint32_t chunk, float blend, float dt)
{
    uint32_t interval = sim_chunk_interval(sim, chunk);
    return (far_rate){interval, sim_far_next_tag(sim, chunk), far_blend(blend, interval), ((float)interval - 0.5f) * dt,
                      sim->gather_now ? 0.0f : sim_far_ahead(interval, dt)};
}

/* Where a far agent (at p, moving at u, `speed` its bound |u.x| + |u.z|) is gathered for the
 * separation: where its record has it `ahead` seconds on, halfway through its chunk's interval
 * (sim_step.h's sim_far_ahead), or as far as `top` m/s would take it there, if less (drift can be
 * faster: the passive reach allows for `top` only, sim.c's mark_active_cells). Whether it is gathered
 * as a neighbour, and how long it may sleep unread, go by that place too. */
static CROWD_ALWAYS_INLINE void ahead_of(const float p[3], const float u[2], float speed, float ahead, float top,
                                         float q[3])
{
    float t = speed > top ? ahead * (top / speed) : ahead;
    q[0] = p[0] + u[0] * t;
    q[1] = p[1];
    q[2] = p[2] + u[1] * t;
}

uint32_t sim_far_walk(crowd_sim *sim, const step_params *k, crowd_binner *bin, sim_gatherer *gatherer, uint32_t region,
                      uint32_t first, uint32_t end)
{
    crowd *c = sim->crowd;
    crowd_record *const records = c->records;
    crowd_agent *const agents = c->agents;
    crowd_drift *const drifts = c->drift;
    uint8_t *const dirty = c->dirty;
    const uint32_t *const obstacles = sim->chunk_obstacle_start;
    const crowd_grid_map grid = bin->grid;
    const uint32_t slot_capacity = c->slot_capacity;
    const float dt = k->dt, half = k->half, t_now = k->t_now, t_next = k->t_next;
    const bool plain = !k->wraps && !k->gather, wanders = sim->desc.scenario == CROWD_SCENARIO_WANDER;
    const float edge = -c->world_min - SIM_WANDER_EDGE, *const scale_of = sim->cruise_scale; /* (wander's) */
    const uint32_t tick = sim->tick;
    const float reach = sim->passive_reach; /* chunk units (sim.c's mark_active_cells) */
    const float top = sim_top_speed(sim);   /* how far ahead_of may take an agent, per second */
    /* a chunk's own region steps or rests whole; the pool's agents go by their chunks (above) */
    const bool own = region < c->cell_count;
    const uint32_t own_phase = own ? sim_far_phase(sim, region) : 0;
    far_rate rate = far_rate_of(sim, own ? region : 0, k->blend, dt);
    const crowd_sleep sleep = bin->sleepers ? c->sleep : (crowd_sleep){NULL, NULL, 0};
    const bool sleeps = sleep.until != NULL;
    const uint8_t *const gate = sim->sleep_gate, *const active = sim->every_edge ? NULL : sim->chunk_active;
    const uint32_t stride = c->grid_dim + 2; /* the active table's rows */
    const int own_gate = sim_own_gate(gate, region, c->cell_count);
    float desired[2 * STEP_BATCH];
    crowd_run run = {.id = CROWD_PARKED_CELL};
    chunk_cache cache = {1.0f, 0.0f, 1.0f, 0.0f, 0, false}; /* empty: the first agent fills it */
    uint32_t phase_chunk = UINT32_MAX, chunk_phase = 0;     /* the pool's: the last chunk's phase, rate */
    sim_gatherer gather = *gatherer;
    uint32_t rewritten = 0;
    scan_ring ring; /* as step_live's (sim.c), with the sleepers read for the gathering flagged */
    uint32_t cur = 0;
    for (uint32_t base = first; base < end; base += STEP_BATCH) {
        uint32_t n = end - base < STEP_BATCH ? end - base : STEP_BATCH, awake = n;
        bool lazy = false;
        if (sleeps) {
            cur = scan_ahead(&ring, sleep, first, end, base, t_next, gate, own_gate, records, NULL, true);
            awake = ring.count[cur];
            if (!awake)
                continue;
            uint8_t reads = 0;
            for (uint32_t j = 0; j < awake; j++)
                reads |= ring.read_only[cur][j];
            lazy = awake < n || reads; /* the list, not every slot (`lazy` as in step_live) */
        }
        /* a region stepping whole: desired velocities a batch at a time (wanderers': one by one, inline) */
        const bool batch = own && own_phase == 0 && !lazy && !wanders;
        if (batch)
            sim_desired_velocities(sim, base, n, desired);
        const uint8_t *const list = ring.list[cur], *const only_read = ring.read_only[cur];
        for (uint32_t j = 0; j < awake; j++) {
            uint32_t i = lazy ? list[j] : j;
            uint32_t s = base + i;
            if (lazy && only_read[j]) { /* asleep in a chunk whose turn is next: gathered, no more */
                float q[3], u[2], bound = walk_on(&records[s], t_next, q, u);
                far_rate its = own ? rate : far_rate_of(sim, sleep.cell[s] - 1, k->blend, dt); /* (event words only) */
                ahead_of(q, u, bound, its.ahead, top, q);
                sim_gather(&gather, s | its.next_tag, q);
                continue;
            }
            if (sleeps && sleep.cell[s]) /* awake again: its time came, or its chunk's turn */
                wake_event_sleeper(bin, sleep, gate, s);
            if (!lazy) {
                uint32_t ahead = s + STEP_BATCH < slot_capacity ? s + STEP_BATCH : 0;
                crowd_prefetch(&records[ahead]);
                if (batch && i % 4 == 0)
                    crowd_prefetch(&agents[ahead]);
            }
            crowd_record *r = &records[s];
            float p[3], u[2], speed = 0.0f; /* where the record has it at t_next, moving at u */
            uint32_t chunk = 0, phase = own_phase;
            if (!own) { /* a pooled agent: its chunk's phase */
                speed = walk_on(r, t_next, p, u);
                chunk = cached_chunk(&cache, &grid, obstacles, p);
                if (chunk != phase_chunk) {
                    phase_chunk = chunk;
                    chunk_phase = sim_far_phase(sim, chunk);
                    rate = far_rate_of(sim, chunk, k->blend, dt);
                }
                phase = chunk_phase;
            }
            if (phase) { /* resting: walks on with its record; gathered whole when it steps next */
                if (own) {
                    speed = walk_on(r, t_next, p, u);
                    chunk = cached_chunk(&cache, &grid, obstacles, p);
                }
                float q[3];
                ahead_of(p, u, speed, rate.ahead, top, q);
                if (phase + 1 == rate.interval)
                    sim_gather(&gather, s | rate.next_tag, q);
                else if (pushes_neighbours(active, stride, spot_of(&grid, q), reach))
                    sim_gather(&gather, s | SIM_GATHER_PASSIVE, q);
                bin_stepped_at(bin, &run, s, r, p, chunk, dirty, speed);
                continue;
            }
            /* its turn: re-plans and moves by its drift, as step_live steps a near agent */
            crowd_agent *a = &agents[s];
            float *v = a->velocity, one[2], now[3]; /* now: where the step starts */
            crowd_drift drift = drifts[s];
            bool drifting = drift.x != 0.0f || drift.z != 0.0f;
            const float *want = desired + 2 * i;
            walk_on(r, t_now, now, u);
            if (!batch) {
                /* a wanderer with no decision due that does not head out wants what it wanted (as
                 * sim_steer.c's wander_batch would say, without its call) */
                if (wanders && !sim_decision_due(a, tick) && !sim_heads_out(a, now, edge))
                    sim_wander_velocity(a, scale_of, one);
                else
                    sim_desired_velocity(sim, s, one);
                want = one;
            }
            if (r->clips & CROWD_RECORD_TURN) { /* a turn from before separation came on: per step from here */
                v[0] = u[0];                    /* (the turn's velocity now, from walk_on above) */
                v[1] = u[1];
                crowd_rec_anchor(r, t_now);
                dirty[s] = 1;
            }
            bool steady = plain && v[0] == want[0] && v[1] == want[1];
            bool moving = v[0] != 0.0f || v[1] != 0.0f;
            if (steady && !drifting && (moving || (a->gait == 0 && !r->velocity))) {
                crowd_rec_position(r, t_next, p); /* the record moves it */
                chunk = cached_chunk(&cache, &grid, obstacles, p);
                if (cache.obstacles && sim_avoid_obstacles(sim, chunk, p, v)) {
                    step_result moved = step_move(sim, k, s, p, false, false, drift, -1.0f);
                    chunk = moved.chunk;
                    rewritten += moved.wrote;
                }
            } else if (steady && drifting && moving && fabsf(r->position[0]) < half - 1.0f &&
                       fabsf(r->position[2]) < half - 1.0f) {
                chunk = step_jostled(sim, k, s, now, drift, &cache, &grid, &rewritten, p);
            } else {
                step_result moved = step_agent_from(sim, k, s, now, want, drifting, drift, rate.blend, -1.0f);
                chunk = moved.chunk;
                rewritten += moved.wrote;
            }
            speed = walk_on(r, t_next, p, u);           /* the record as the step left it */
            drifts[s] = decay_drift(drift, rate.blend); /* its interval's decay */
            float q[3];
            ahead_of(p, u, speed, rate.ahead, top, q);
            grid_spot at = spot_of(&grid, q);
            if (rate.interval == 1) /* (a visible far chunk at lod_interval 1: it steps again next) */
                sim_gather(&gather, s, p);
            else if (pushes_neighbours(active, stride, at, reach)) /* (its own pushes come before its next turn) */
                sim_gather(&gather, s | SIM_GATHER_PASSIVE, q);
            bin_stepped_at(bin, &run, s, r, p, chunk, dirty, speed);
            if (sleeps && !run.moves && rate.interval > 1)
                rest_sleep(bin, sleep, s, r, p, at, u, speed, chunk, t_next, rate.hold, reach);
        }
    }
    crowd_bin_close(bin, &run);
    *gatherer = gather;
    return rewritten;
}
