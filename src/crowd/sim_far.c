/* Separation under the level of detail: the walk over a far region while agents separate.
 *
 * With separation on, far agents are stepped a chunk at a time: every lod_interval-th step, round
 * robin by chunk (sim_far_phase), a chunk's agents re-plan and move by their drift, which then
 * decays by the far blend (lod_interval steps' worth). In between, the chunk rests: its agents walk
 * on with their records (the velocity there includes the drift they had). The pushes a stepping
 * chunk moves by are taken at the end of the step before, from where everyone is then, and count
 * lod_interval steps each (SIM_GATHER_FAR): as fresh as the pushes of an agent stepped every step,
 * and the drift's steady value under a steady push is the same. So at every step the separation
 * gathers the near agents, the far chunks that step next, and, as neighbours that push them but
 * get no push themselves (SIM_GATHER_PASSIVE), the other far agents within a separation radius of
 * their chunk's edge: a neighbour in another chunk is that close to its own chunk's edge (but for
 * the few movers whose region is not yet their chunk's, until the next update re-slots them). The
 * separation then sorts and pairs about two fifths of a far crowd instead of all of it, and three
 * quarters of a far crowd write no record per step.
 *
 * A chunk's own region holds its agents, so it steps or rests whole, at its chunk's phase (movers
 * keep their region's until re-slotted). The far pool holds many chunks, a third or more of the
 * benchmark's crowd: its agents take their own chunk's phase one by one, so every step steps about
 * 1 / lod_interval of the far crowd. (Until session 15 the pool stepped whole at one phase: one
 * step in four stepped and separated three times the agents of the others, a 1.5x frame spike the
 * benchmark's median hid.)
 *
 * Resting sleepers: an agent just stepped, walking a straight line away from its chunk's edges with
 * no fade running, changes nothing through its chunk's rest steps but the position its record
 * extrapolates: it is not gathered (it is not near an edge) and does not change chunk (it would
 * come near the edge first). So it sleeps (sim.c, "sleep": skipped by the walk, counted and bounded
 * by its chunk's sleepers) for lod_interval - 1.5 steps of this one's length, or until it comes
 * within a separation radius of its chunk's edge if that is sooner: the rest steps then visit the
 * agents near edges, the movers and those turning or fading, about a seventh of the benchmark's far
 * crowd, instead of all of it. Its chunk wakes every sleeper on the step before its turn and on
 * its turn (sim.c, refresh_sleepers), should shorter steps have left some asleep. The records,
 * pushes and drifts are those of a walk that visits every agent, byte for byte (test_crowd,
 * sleepers_keep_chunks_exact with separation). */
#include <math.h>

#include "crowd/sim_step.h"

static CROWD_ALWAYS_INLINE bool near_chunk_edge(const crowd_grid_map *g, const float p[3], float reach)
{
    float tx = (p[0] - g->origin) * g->inv_cell, tz = (p[2] - g->origin) * g->inv_cell;
    float fx = tx - floorf(tx), fz = tz - floorf(tz); /* chunk edges are at whole chunk units */
    return fx < reach || fx > 1.0f - reach || fz < reach || fz > 1.0f - reach;
}

/* Slot s (record r, at p at the step's end, in chunk), just stepped, falls asleep through its
 * chunk's rest steps if it may (above): for `hold` seconds, or until it comes within `reach` (chunk
 * units) of its chunk's edge, with a ten-thousandth of a chunk to spare. */
static CROWD_ALWAYS_INLINE void rest_sleep(crowd_binner *bin, crowd_sleep z, uint32_t s, const crowd_record *r,
                                           const float p[3], uint32_t chunk, float t_next, float hold, float reach)
{
    if (r->fade_rate > 0.0f || (r->clips & CROWD_RECORD_TURN))
        return;
    const crowd_grid_map *g = &bin->grid;
    float tx = (p[0] - g->origin) * g->inv_cell, tz = (p[2] - g->origin) * g->inv_cell;
    float fx = tx - floorf(tx), fz = tz - floorf(tz), lo = reach + 1e-4f, hi = 1.0f - lo;
    if (!(fx > lo && fx < hi && fz > lo && fz < hi)) /* near an edge already (or not a number) */
        return;
    float vx = crowd_float_from_half(r->velocity & 0xFFFFu), vz = crowd_float_from_half(r->velocity >> 16);
    float ux = vx * g->inv_cell, uz = vz * g->inv_cell, span = hold, t;
    t = ux > 0.0f ? (hi - fx) / ux : ux < 0.0f ? (lo - fx) / ux : INFINITY;
    span = t < span ? t : span;
    t = uz > 0.0f ? (hi - fz) / uz : uz < 0.0f ? (lo - fz) / uz : INFINITY;
    span = t < span ? t : span;
    float until = t_next + span;
    if (!(span > 0.0f) || !(until > t_next))
        return;
    const float box_lo[3] = {p[0] + (vx < 0.0f ? vx : 0.0f) * span, p[1], p[2] + (vz < 0.0f ? vz : 0.0f) * span};
    const float box_hi[3] = {p[0] + (vx > 0.0f ? vx : 0.0f) * span, p[1], p[2] + (vz > 0.0f ? vz : 0.0f) * span};
    sleep_until(bin, z, s, r, chunk, until, box_lo, box_hi);
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
    const uint32_t slot_capacity = c->slot_capacity, interval = sim->desc.lod_interval;
    const float dt = k->dt, half = k->half, t_now = k->t_now, t_next = k->t_next;
    const float blend = k->blend * (float)interval < 1.0f ? k->blend * (float)interval : 1.0f;
    const bool plain = !k->wraps && !k->gather;
    const float reach = sim->desc.separation_radius * grid.inv_cell; /* in chunk units */
    const float hold = ((float)interval - 1.5f) * dt;                /* a resting sleeper's longest sleep */
    /* a chunk's own region steps or rests whole; the pool's agents go by their chunks (above) */
    const bool own = region < c->cell_count;
    const uint32_t own_phase = own ? sim_far_phase(sim, region) : 0;
    const crowd_sleep sleep = bin->sleepers ? c->sleep : (crowd_sleep){NULL, NULL};
    const bool sleeps = sleep.until != NULL;
    const uint8_t *const gate = sim->sleep_gate;
    const int own_gate = own ? gate[region + 1] : -1;
    float desired[2 * STEP_BATCH];
    crowd_run run = {.id = CROWD_PARKED_CELL};
    chunk_cache cache = {1.0f, 0.0f, 1.0f, 0.0f, 0, false}; /* empty: the first agent fills it */
    uint32_t phase_chunk = UINT32_MAX, chunk_phase = 0;     /* the pool's: the last chunk's phase */
    sim_gatherer gather = *gatherer;
    uint32_t rewritten = 0;
    uint8_t awake_list[SCAN_AHEAD + 1][STEP_BATCH]; /* as step_live's (sim.c) */
    uint32_t awake_count[SCAN_AHEAD + 1] = {0}, cur = 0;
    for (uint32_t base = first; base < end; base += STEP_BATCH) {
        uint32_t n = end - base < STEP_BATCH ? end - base : STEP_BATCH, awake = n;
        bool lazy = false;
        if (sleeps) { /* the awake slots SCAN_AHEAD batches ahead, their lines asked for (as step_live) */
            uint32_t b = (base - first) / STEP_BATCH;
            for (uint32_t d = base == first ? 0 : SCAN_AHEAD; d <= SCAN_AHEAD; d++) {
                uint32_t from = base + d * STEP_BATCH;
                uint32_t m = from < end ? (end - from < STEP_BATCH ? end - from : STEP_BATCH) : 0;
                uint8_t *ahead_list = awake_list[(b + d) % (SCAN_AHEAD + 1)];
                uint32_t w = scan_awake(sleep, from, m, t_next, gate, own_gate, ahead_list);
                for (uint32_t j = 0; j < w && d; j++) {
                    crowd_prefetch(&records[from + ahead_list[j]]);
                    crowd_prefetch(&sleep.cell[from + ahead_list[j]]);
                }
                awake_count[(b + d) % (SCAN_AHEAD + 1)] = w;
            }
            cur = b % (SCAN_AHEAD + 1);
            awake = awake_count[cur];
            if (!awake)
                continue;
            lazy = awake < n;
        }
        /* a region stepping whole: desired velocities a batch at a time */
        const bool batch = own && own_phase == 0 && !lazy;
        if (batch)
            sim_desired_velocities(sim, base, n, desired);
        const uint8_t *const list = awake_list[cur];
        for (uint32_t j = 0; j < awake; j++) {
            uint32_t i = lazy ? list[j] : j;
            uint32_t s = base + i;
            if (sleeps && sleep.cell[s]) { /* awake again (sim.c's step_live says why) */
                if (gate[sleep.cell[s]])
                    crowd_bin_sleepers(bin, sleep.cell[s] - 1)->count--;
                crowd_sleep_wake(sleep, s);
            }
            if (!lazy) {
                uint32_t ahead = s + STEP_BATCH < slot_capacity ? s + STEP_BATCH : 0;
                crowd_prefetch(&records[ahead]);
                if (batch && i % 4 == 0)
                    crowd_prefetch(&agents[ahead]);
            }
            crowd_record *r = &records[s];
            float p[3];
            uint32_t chunk = 0, phase = own_phase;
            if (!own) { /* a pooled agent: its chunk's phase */
                crowd_rec_position(r, t_next, p);
                chunk = cached_chunk(&cache, &grid, obstacles, p);
                if (chunk != phase_chunk) {
                    phase_chunk = chunk;
                    chunk_phase = sim_far_phase(sim, chunk);
                }
                phase = chunk_phase;
            }
            if (phase) { /* resting: walks on with its record; gathered whole when it steps next */
                if (own) {
                    crowd_rec_position(r, t_next, p);
                    chunk = cached_chunk(&cache, &grid, obstacles, p);
                }
                if (phase + 1 == interval)
                    sim_gather(&gather, s | SIM_GATHER_FAR, p);
                else if (near_chunk_edge(&grid, p, reach))
                    sim_gather(&gather, s | SIM_GATHER_PASSIVE, p);
                bin_stepped(bin, &run, s, r, p, chunk, dirty);
                continue;
            }
            /* its turn: re-plans and moves by its drift, as step_live steps a near agent */
            crowd_agent *a = &agents[s];
            float *v = a->velocity, one[2];
            crowd_drift drift = drifts[s];
            bool drifting = drift.x != 0.0f || drift.z != 0.0f;
            const float *want = desired + 2 * i;
            if (!batch) {
                sim_desired_velocity(sim, s, one);
                want = one;
            }
            if (r->clips & CROWD_RECORD_TURN) { /* a turn from before separation came on: per step from here */
                crowd_rec_turn_velocity(r, t_now, v);
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
                    crowd_rec_position(r, t_next, p);
                }
            } else if (steady && drifting && moving && fabsf(r->position[0]) < half - 1.0f &&
                       fabsf(r->position[2]) < half - 1.0f) {
                /* jostled at cruise speed: only the position (and the velocity it moves on with) */
                float u0 = v[0] + drift.x, u1 = v[1] + drift.z;
                crowd_rec_position(r, t_now, p);
                p[0] += u0 * dt;
                p[2] += u1 * dt;
                chunk = cached_chunk(&cache, &grid, obstacles, p);
                if (cache.obstacles && sim_avoid_obstacles(sim, chunk, p, v)) {
                    step_result moved = step_move(sim, k, s, p, false, true, drift, -1.0f);
                    chunk = moved.chunk;
                    rewritten += moved.wrote;
                } else {
                    crowd_rec_set_motion(r, p, t_next, crowd_pack_velocity(u0, u1));
                    dirty[s] = 1;
                    rewritten++;
                }
                crowd_rec_position(r, t_next, p);
            } else {
                step_result moved = step_agent(sim, k, s, want, drifting, drift, blend, -1.0f);
                chunk = moved.chunk;
                rewritten += moved.wrote;
                crowd_rec_position(r, t_next, p);
            }
            drifts[s] = decay_drift(drift, blend); /* lod_interval steps' decay */
            if (near_chunk_edge(&grid, p, reach))  /* its next pushes come before its next turn */
                sim_gather(&gather, s | SIM_GATHER_PASSIVE, p);
            bin_stepped(bin, &run, s, r, p, chunk, dirty);
            if (sleeps && !run.moves)
                rest_sleep(bin, sleep, s, r, p, chunk, t_next, hold, reach);
        }
    }
    crowd_bin_close(bin, &run);
    *gatherer = gather;
    return rewritten;
}
