/* The step: one pass over the crowd's slots in memory order, binning them into the crowd's chunks as
 * it goes (the crowd's next update then skips its own binning). Per agent: desired velocity
 * (sim_steer.c), separation drift, obstacles, then speed -> gait -> stride-matched rate; agents
 * standing in their idle are not rewritten, steady walkers sleep (sim_sleep.h), far agents re-plan
 * at a lower rate and turn on closed-form records (docs/simulation.md). */
#include <math.h>
#include <string.h>

#include "core/clock.h"
#include "core/pool.h"
#include "sim/sim_sleep.h"
#include "sim/sim_testing.h"

bool sim_step_rare(crowd_sim *sim, const step_params *k, uint32_t s, const float p_in[3], float speed, sim_drift drift,
                   float target)
{
    crowd_record *r = &sim->slots.records[s];
    sim_agent *a = &sim_agents(sim)[s];
    float *v = a->velocity, p[3] = {p_in[0], p_in[1], p_in[2]};
    if (speed < 0.001f) { /* standing still: only a drift moves it */
        bool wrote = false;
        v[0] = v[1] = 0.0f;
        if (a->gait != 0 || (k->gather && sim->cheer_clip >= 0 && crowd_rec_clip_a(r) != (uint32_t)sim->cheer_clip)) {
            update_gait(sim, s, a, 0.0f, k->gather);
            wrote = sim->slots.dirty[s] != 0;
        }
        if (!drifts(drift)) {
            if (r->velocity) { /* it walked until now: stop the extrapolation where it is */
                crowd_rec_anchor(r, k->t_next);
                r->velocity = 0;
                sim->slots.dirty[s] = 1;
                return true;
            }
            return wrote; /* leave the record (and the upload) alone */
        }
    }
    if (k->wraps && p[0] > k->half)
        p[0] -= k->world;
    float x = p[0], z = p[2];
    p[0] = p[0] < -k->half ? -k->half : p[0] > k->half ? k->half : p[0];
    p[2] = p[2] < -k->half ? -k->half : p[2] > k->half ? k->half : p[2];
    /* held at the edge: it must not walk on past it between steps */
    bool held = p[0] != x || p[2] != z;
    write_motion(sim, s, p, k->t_next, held ? 0u : crowd_pack_velocity(v[0] + drift.x, v[1] + drift.z));
    if (speed < 0.001f)
        return true;
    if (speed > 0.05f)
        r->yaw = crowd_atan2(v[0], v[1]);
    update_gait(sim, s, a, target >= 0.0f ? target : speed, k->gather && speed < IDLE_ENTER);
    return true;
}

/* ---- turns: far agents' turns as closed-form records ---------------------------------------------
 *
 * Steering turns an agent's velocity v towards the desired one d by blend = dt x SIM_TURN_RATE per
 * step: v' = d + (v - d) e^(-k t) in the limit, k = SIM_TURN_RATE. While d holds (a wanderer's changes
 * at its decisions and at the edge margin only) that is a closed form a record carries
 * (CROWD_RECORD_TURN), so a far agent whose re-plan finds it turning writes one turning record and
 * changes nothing until its next event; its simulation velocity is d. Which agents turn this way, and
 * how their feet and gaits behave meanwhile: docs/simulation.md, "turns". */
#define SIM_TURN_RATE 4.0f

/* Whether slot s (record r, at p at the step's start, turning from its velocity v to `want`) may
 * turn on a record now: no fade running, not heading out past the edge margin, out of the obstacles'
 * reach for a quarter second, and no gait change that a fade could show. */
static bool may_turn(const crowd_sim *sim, uint32_t s, const float p[3], const float want[2], float edge)
{
    const crowd_record *r = &sim->slots.records[s];
    const sim_agent *a = &sim_agents(sim)[s];
    const float *v = a->velocity;
    if (r->fade_rate > 0.0f)
        return false;
    /* past the edge margin, the steering turns it in once and holds (sim_heads_out) */
    if ((fabsf(p[0]) > edge && p[0] * want[0] > 0.0f) || (fabsf(p[2]) > edge && p[2] * want[1] > 0.0f))
        return false;
    uint32_t chunk = crowd_chunk_at(&sim->grid.map, p);
    if (sim->chunk_obstacle_start[chunk] != sim->chunk_obstacle_start[chunk + 1]) {
        float ax = fabsf(v[0]) > fabsf(want[0]) ? fabsf(v[0]) : fabsf(want[0]);
        float az = fabsf(v[1]) > fabsf(want[1]) ? fabsf(v[1]) : fabsf(want[1]);
        if (sim_obstacle_reach_time(sim, chunk, p, sqrtf(ax * ax + az * az)) < 0.25f)
            return false;
    }
    float speed = sqrtf(want[0] * want[0] + want[1] * want[1]);
    return !(sim->gait_count && sim->fade_seconds > 0.0f &&
             sim->gaits[gait_for_speed(sim, a->gait, speed / r->scale)].clip != crowd_rec_clip_a(r));
}

/* Starts slot s's turn towards `want` (its velocity now in the agent, its record straight), if it
 * may; returns whether it did. */
static bool start_turn(crowd_sim *sim, const step_params *k, uint32_t s, const float want[2], float edge)
{
    crowd_record *r = &sim->slots.records[s];
    sim_agent *a = &sim_agents(sim)[s];
    float *v = a->velocity, p[3];
    crowd_rec_position(r, k->t_now, p);
    if (!may_turn(sim, s, p, want, edge))
        return false;
    uint32_t word = crowd_pack_velocity(v[0], v[1]);
    crowd_rec_set_motion(r, p, k->t_now, word);
    update_gait(sim, s, a, sqrtf(want[0] * want[0] + want[1] * want[1]), false); /* the rate it turns to */
    float u0 = crowd_rec_unhalf(word & 0xFFFFu), u1 = crowd_rec_unhalf(word >> 16);
    if (u0 * u0 + u1 * u1 > CROWD_TURN_YAW_SPEED2) /* the yaw field shows while it barely moves */
        r->yaw = crowd_atan2(u0, u1);
    r->offset_b = want[0];
    r->rate_b = want[1];
    r->fade_start = SIM_TURN_RATE;
    r->clips |= CROWD_RECORD_TURN;
    v[0] = want[0];
    v[1] = want[1];
    sim->slots.dirty[s] = 1;
    return true;
}

/* ---- the walk over a region --------------------------------------------------------------------- */

/* step_live's walk: the shared walk, and a far region's round robin (sim_far_phase: a chunk's own
 * region turns whole; the far pool's agents go by the chunks they are in, `phase_chunk` the last
 * one's). The steering's blend covers the interval's steps. */
typedef struct live_walk {
    sim_walk w;
    bool far, own, plain, resync, wanders;
    uint32_t interval, phase, phase_chunk;
    float blend;
} live_walk;

static CROWD_ALWAYS_INLINE live_walk live_walk_begin(crowd_sim *sim, const step_params *k, crowd_binner *bin,
                                                     const sim_gatherer *gatherer, uint32_t region, bool far)
{
    live_walk lw = {.w = sim_walk_begin(sim, k, bin, gatherer, region, sim->sleeping), .far = far};
    lw.own = region < sim->grid.chunks;
    lw.interval = far && lw.own ? sim_chunk_interval(sim, region) : 1;
    lw.phase = far && lw.own ? sim_far_phase(sim, region) : 0;
    lw.phase_chunk = UINT32_MAX;
    lw.blend = far ? far_blend(k->blend, lw.interval) : k->blend;
    lw.plain = !k->wraps && !k->gather;
    lw.resync = sim->resync;
    lw.wanders = sim->desc.scenario == CROWD_SCENARIO_WANDER;
    lw.w.far_turns = far && k->turns;
    return lw;
}

/* A far agent: its chunk's phase and how long it may rest (until its chunk's turn, half a step
 * early); off its turn it walks on with its record (binned, asleep where it may be), unless its
 * wander decision is due (then it re-plans now rather than up to interval - 1 steps late). True when
 * walking on is all its visit is. */
static CROWD_ALWAYS_INLINE bool far_walks_on(live_walk *lw, uint32_t s, crowd_record *r, sim_agent *a, float *rest)
{
    sim_walk *w = &lw->w;
    float p[3];
    uint32_t chunk = 0;
    if (!lw->own) { /* its chunk's phase */
        crowd_rec_position(r, w->k->t_next, p);
        chunk = cached_chunk(&w->cache, &w->grid, w->obstacles, p);
        if (chunk != lw->phase_chunk) {
            lw->phase_chunk = chunk;
            lw->interval = sim_chunk_interval(w->sim, chunk);
            lw->phase = sim_far_phase(w->sim, chunk);
            lw->blend = far_blend(w->k->blend, lw->interval);
        }
    }
    *rest = lw->interval > 1 ? ((float)(lw->interval - lw->phase) - 0.5f) * w->k->dt : 0.0f;
    if (!lw->phase || lw->resync || (lw->wanders && sim_decision_due(a, w->tick)))
        return false;
    if (lw->own) {
        crowd_rec_position(r, w->k->t_next, p);
        chunk = cached_chunk(&w->cache, &w->grid, w->obstacles, p);
    }
    settle_visit(w, s, r, a, p, chunk, *rest, SETTLE_IF_UNCHANGED);
    return true;
}

/* A turning record, turning towards what it was told at its last re-plan: where that is still what
 * it wants, the record moves it (and its velocity, as a turning record's, is the one it turns to),
 * and its visit ends here (true). Otherwise it goes per step from here: straight on from where the
 * turn has it now (the record is written anyway, and setters called on the way then find a
 * straight one). */
static CROWD_ALWAYS_INLINE bool turn_walks_on(live_walk *lw, uint32_t s, crowd_record *r, sim_agent *a,
                                              const float want[2], sim_drift drift, float rest)
{
    sim_walk *w = &lw->w;
    float *v = a->velocity;
    if (w->far_turns && !drifts(drift) && v[0] == want[0] && v[1] == want[1]) {
        float p[3], q[3], u[2];
        crowd_rec_position(r, w->k->t_next, p);
        uint32_t chunk = cached_chunk(&w->cache, &w->grid, w->obstacles, p);
        memcpy(q, p, sizeof q);
        crowd_rec_turn_velocity(r, w->k->t_next, u);
        if (!w->cache.obstacles || !sim_avoid_obstacles(w->sim, chunk, q, u)) {
            settle_visit(w, s, r, a, p, chunk, rest, SETTLE_EVENT);
            return true;
        }
    }
    crowd_rec_turn_velocity(r, w->k->t_now, v);
    crowd_rec_anchor(r, w->k->t_now);
    w->dirty[s] = 1;
    return false;
}

/* A far agent that wants another velocity turns on a record, where it may (start_turn): its visit
 * ends here (true). */
static CROWD_ALWAYS_INLINE bool turn_starts(live_walk *lw, uint32_t s, crowd_record *r, const sim_agent *a,
                                            const float want[2], sim_drift drift, float rest)
{
    sim_walk *w = &lw->w;
    const float *v = a->velocity;
    if (!w->far_turns || drifts(drift) || (v[0] == want[0] && v[1] == want[1]) ||
        !start_turn(w->sim, w->k, s, want, w->edge))
        return false;
    w->rewritten++;
    float p[3];
    crowd_rec_position(r, w->k->t_next, p);
    settle_visit(w, s, r, a, p, cached_chunk(&w->cache, &w->grid, w->obstacles, p), rest, SETTLE_EVENT);
    return true;
}

/* A steady agent without drift: the record moves it, so where it is at the step's end is where the
 * GPU will draw it; obstacles may still steer it (then step_move). Returns its chunk, p where it
 * is; *may_sleep whether it may sleep until its event (a near agent's pushes need it awake). */
static CROWD_ALWAYS_INLINE uint32_t step_on_record(live_walk *lw, uint32_t s, crowd_record *r, sim_agent *a, float p[3],
                                                   bool *may_sleep)
{
    sim_walk *w = &lw->w;
    crowd_rec_position(r, w->k->t_next, p);
    uint32_t chunk = cached_chunk(&w->cache, &w->grid, w->obstacles, p);
    *may_sleep = w->sleeps && !w->separate;
    /* steady walkers never reach the world's edge (steering turns them first) */
    if (w->cache.obstacles && sim_avoid_obstacles(w->sim, chunk, p, a->velocity)) {
        *may_sleep = false;
        step_result moved = step_move(w->sim, w->k, s, p, false, (sim_drift){0.0f, 0.0f}, -1.0f);
        chunk = moved.chunk;
        w->rewritten += moved.wrote;
        crowd_rec_position(r, w->k->t_next, p);
    }
    return chunk;
}

/* The agent's step proper: steady on its record, jostled at cruise speed, or steered (step_agent);
 * then its drift decays and it is gathered for the separation, and it settles (binned, asleep where
 * it may be). */
static CROWD_ALWAYS_INLINE void step_visited(live_walk *lw, uint32_t s, crowd_record *r, sim_agent *a,
                                             const float want[2], sim_drift drift, float rest)
{
    sim_walk *w = &lw->w;
    const step_params *k = w->k;
    const float *v = a->velocity;
    bool steady = lw->plain && v[0] == want[0] && v[1] == want[1], drifting = drifts(drift);
    bool moving = v[0] != 0.0f || v[1] != 0.0f, may_sleep = false;
    float p[3];
    uint32_t chunk;
    if (steady && !drifting && (moving ? !lw->resync : a->gait == 0 && !r->velocity && sim_faces(w->sim, r, a))) {
        chunk = step_on_record(lw, s, r, a, p, &may_sleep);
    } else if (steady && drifting && fabsf(r->position[0]) < k->half - 1.0f && fabsf(r->position[2]) < k->half - 1.0f &&
               moving) {
        float now[3];
        crowd_rec_position(r, k->t_now, now);
        chunk = step_jostled(w, s, now, drift, p);
        crowd_rec_position(r, k->t_next, p);
    } else {
        float target = w->far_turns ? sqrtf(want[0] * want[0] + want[1] * want[1]) : -1.0f;
        step_result moved = step_agent(w->sim, k, s, want, drift, lw->blend, target);
        chunk = moved.chunk;
        w->rewritten += moved.wrote;
        crowd_rec_position(r, k->t_next, p);
    }
    if (w->separate) { /* (a near agent: far ones under separation walk in sim_far.c) */
        w->drifts[s] = decay_drift(drift, lw->blend);
        sim_gather(&w->gather, s, p);
    }
    settle_visit(w, s, r, a, p, chunk, rest, may_sleep ? SETTLE_EVENT : SETTLE_REST_ONLY);
}

/* One slot of the batch at `base` (offset i): woken if asleep, its lines asked for ahead, then its
 * visit. `want`: its desired velocity, computed for the whole batch unless `lazy` (a batch among
 * sleepers, or a far region: computed here, for the agents that re-plan). */
static CROWD_ALWAYS_INLINE void visit_live(live_walk *lw, uint32_t base, uint32_t i, float want[2], bool lazy)
{
    sim_walk *w = &lw->w;
    uint32_t s = base + i;
    if (w->sleeps && w->sleep.cell[s]) /* awake again: its event came, or its chunk came near */
        wake_sleeper(w, s);
    if (!lazy) { /* the next batch's record, every fourth slot's agent: the walk is bound by memory */
        uint32_t ahead = s + STEP_BATCH < w->slot_capacity ? s + STEP_BATCH : 0;
        crowd_prefetch(&w->records[ahead]);
        if (i % 4 == 0)
            crowd_prefetch(&w->agents[ahead]);
    }
    crowd_record *r = &w->records[s];
    sim_agent *a = &w->agents[s];
    sim_drift drift = w->separate ? w->drifts[s] : (sim_drift){0.0f, 0.0f};
    float rest = 0.0f; /* far: how long it may rest (rest_asleep), its chunk's turn half a step ahead */
    if (lw->far) {
        if (far_walks_on(lw, s, r, a, &rest))
            return;
        sim_desired_velocity(w->sim, s, want);
    } else if (lazy) {
        sim_desired_velocity(w->sim, s, want);
    }
    if ((r->clips & CROWD_RECORD_TURN) && turn_walks_on(lw, s, r, a, want, drift, rest))
        return;
    if (turn_starts(lw, s, r, a, want, drift, rest))
        return;
    step_visited(lw, s, r, a, want, drift, rest);
}

/* Region mode: slots [first, end) are all live. The steady cases are inline (the visit helpers
 * above), the walk's state in a local (sim_walk), and a steady walker's record is read, never
 * written: the GPU extrapolates it. `far`: a region the camera sees little of, whose agents re-plan
 * every interval-th step only (docs/simulation.md, "far level of detail"); with separation
 * sim_far.c walks it instead. */
static uint32_t step_live(crowd_sim *sim, const step_params *k, crowd_binner *bin, sim_gatherer *gatherer,
                          uint32_t region, uint32_t first, uint32_t end, bool far)
{
    /* a far region drawn past the cross-fade levels cuts between gaits (update_gait) */
    sim->fade_seconds = far && sim->far_of_cell[region] == 2 ? 0.0f : FADE_SECONDS;
    if (far && k->separate) /* stepped whole one step in its interval (sim_far.c) */
        return sim_far_walk(sim, k, bin, gatherer, region, first, end);
    live_walk lw = live_walk_begin(sim, k, bin, gatherer, region, far);
    float desired[2 * STEP_BATCH];
    scan_ring ring; /* the awake slots of the batch being stepped and of the SCAN_AHEAD after it */
    for (uint32_t base = first; base < end; base += STEP_BATCH) {
        uint32_t n = end - base < STEP_BATCH ? end - base : STEP_BATCH, awake = n, cur = 0;
        if (lw.w.sleeps) { /* a batch of sleepers only is skipped */
            cur = scan_ahead(&ring, &lw.w, first, end, base, false);
            awake = ring.count[cur];
            if (!awake)
                continue;
        }
        bool lazy = awake < n;
        if (!far && !lazy)
            sim_desired_velocities(sim, base, n, desired);
        for (uint32_t j = 0; j < awake; j++) {
            uint32_t i = lazy ? ring.list[cur][j] : j;
            visit_live(&lw, base, i, desired + 2 * i, lazy);
        }
    }
    return sim_walk_end(&lw.w, gatherer);
}

/* ---- the walk on threads ------------------------------------------------------------------------
 *
 * The region walk split into tasks on the crowd's pool (crowd_run_tasks). A task steps its stretch
 * with a copy of the sim whose decision counter is its own (the counter is the only sim state a
 * step writes; each task's starts at its own offset, so the result depends on the split, which
 * depends only on the thread count), its own sleepers' changes (merged after, in any order: sums,
 * minima and maxima), and gathers into its own range of the separation's arrays (all slots of live
 * regions are live: a task's range starts at the live slots before it), so the gathered order is
 * the single-threaded one. */
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
    local.delta = &job->sim->task_deltas[t->index];
    sim_gatherer gather = job->gather;
    gather.n = t->live_before;
    uint32_t first, end;
    uint64_t rewritten = 0;
    while (crowd_task_span(t, &first, &end))
        rewritten +=
            step_live(&local, job->k, &t->bin, &gather, t->region, first, end, local.far_of_cell[t->region] != 0);
    t->out[0] = rewritten;
    t->out[1] = local.decisions - start;
    t->out[2] = gather.n - t->live_before;
}

/* The tasks' sleepers' changes into the step's. */
static void merge_task_deltas(crowd_sim *sim, uint32_t tasks)
{
    for (uint32_t t = 0; t < tasks; t++) {
        sim_sleep_delta *d = &sim->task_deltas[t];
        for (uint32_t i = 0; i < d->touched_count; i++) {
            sim_sleepers *from = &d->sleepers[d->touched[i]];
            sim_sleepers_merge(&sim->step_delta.sleepers[d->touched[i]], from);
            sim_sleepers_clear(from);
        }
        d->touched_count = 0;
    }
}

static uint32_t step_tasks(crowd_sim *sim, const step_params *k, crowd_binner *bin, sim_gatherer *gather)
{
    step_job job = {sim, k, *gather};
    uint32_t n;
    const crowd_task *tasks = crowd_run_tasks(sim->crowd, bin, step_task, &job, &n);
    merge_task_deltas(sim, n);
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
static uint32_t step_slots(crowd_sim *sim, const step_params *k, crowd_binner *bin, sim_gatherer *gather)
{
    crowd_record *records = sim->slots.records;
    sim_agent *agents = sim_agents(sim);
    sim_drift *drifts_of = sim_drifts(sim);
    uint32_t rewritten = 0;
    for (uint32_t s = 0; s < sim->slots.used; s++) {
        if (sim->slots.instance[s] >= sim->slots.count) {
            crowd_bin_slot(bin, s);
            continue;
        }
        float desired[2], p[3];
        sim_desired_velocity(sim, s, desired);
        sim_drift drift = k->separate ? drifts_of[s] : (sim_drift){0.0f, 0.0f};
        if (crowd_rec_turning(&records[s])) { /* per step from here: from where the turn has it now */
            crowd_rec_turn_velocity(&records[s], k->t_now, agents[s].velocity);
            crowd_rec_anchor(&records[s], k->t_now);
            sim->slots.dirty[s] = 1;
        }
        step_result moved = step_agent(sim, k, s, desired, drift, k->blend, -1.0f);
        crowd_rec_position(&records[s], k->t_next, p);
        if (k->separate) {
            drifts_of[s] = decay_drift(drift, k->blend);
            sim_gather(gather, s, p);
        }
        rewritten += moved.wrote;
        crowd_bin_fade(bin, &records[s], s);
        crowd_bin_add_slot(bin, s, &records[s], p, moved.chunk);
    }
    return rewritten;
}

/* ---- the level of detail, per chunk ------------------------------------------------------------ */

/* Ground distance, metres, from the eye to chunk i's square. */
static float chunk_ground_distance(const crowd_grid *g, uint32_t i, const float eye[3], float *dx_out, float *dz_out)
{
    float lo_x = g->origin + (float)(i % g->dim) * g->chunk, lo_z = g->origin + (float)(i / g->dim) * g->chunk;
    float dx = eye[0] < lo_x ? lo_x - eye[0] : eye[0] > lo_x + g->chunk ? eye[0] - lo_x - g->chunk : 0.0f;
    float dz = eye[2] < lo_z ? lo_z - eye[2] : eye[2] > lo_z + g->chunk ? eye[2] - lo_z - g->chunk : 0.0f;
    *dx_out = dx;
    *dz_out = dz;
    return sqrtf(dx * dx + dz * dz);
}

/* Which chunks re-plan at a lower rate (far_of_cell: 1), from the last update's view (its
 * visibility per chunk and its camera), before this step's binning clears them; until an update has
 * run, none. 2 for a far region none of whose instances can draw a cross-fade from there
 * (crowd_fades_unseen): its gait changes cut. A chunk changes rate (chunk_offscreen) only on a step
 * after which both rates would take its turn (docs/simulation.md, "offscreen rate"). */
static void mark_far_cells(crowd_sim *sim)
{
    const crowd_grid *g = &sim->grid;
    const crowd_cell *cells = crowd_client_chunks(sim->crowd);
    uint32_t offscreen = sim->desc.offscreen_interval;
    float reach = sim->desc.lod_distance, eye[3];
    bool has_eye = crowd_client_eye(sim->crowd, eye), pool_cuts = true;
    for (uint32_t i = 0; i < g->chunks; i++) {
        const crowd_cell *cell = &cells[i];
        float dx, dz, ground = chunk_ground_distance(g, i, eye, &dx, &dz);
        bool far = !cell->visible || dx * dx + dz * dz > reach * reach;
        if ((i + sim->steps + 1) % offscreen == 0) { /* (tests: stripes two chunks wide that move) */
            bool stripes = sim->test_hooks && sim->test_hooks->offscreen_stripes;
            sim->chunk_offscreen[i] = stripes ? ((i % g->dim) / 2 + sim->steps / 97) % 2 != 0 : !cell->visible;
        }
        /* cuts: from the chunk's square, less a body and a margin for movers and a frame's walk */
        ground -= crowd_instance_radius(sim->crowd, cell->max_scale > 1.0f ? cell->max_scale : 1.0f) + 1.0f;
        bool slow = has_eye && far && sim_chunk_interval(sim, i) > 1, cuts = crowd_fades_unseen(sim->crowd, ground);
        sim->far_of_cell[i] = (uint8_t)(slow ? (cuts ? 2 : 1) : 0);
        pool_cuts = pool_cuts && (sim->regions.of_chunk[i] != sim->regions.pool || cuts);
    }
    /* the far pool: its agents go by their chunks' rates (step_live, sim_far.c) */
    bool slow = has_eye && offscreen > 1;
    sim->far_of_cell[sim->regions.pool] = (uint8_t)(slow ? (pool_cuts ? 2 : 1) : 0);
}

/* Under separation, which chunks' agents get pushes at the end of this step (sim_far.c): near ones,
 * and far ones whose turn is next; and how near one a resting agent is gathered as a neighbour: a
 * separation radius, plus how far out of it an agent may have walked since the last update
 * re-slotted it (one step at twice the fastest speed a scenario asks for), plus how far ahead of
 * its chunk a pushed one may be gathered (sim_far_ahead). */
static void mark_active_cells(crowd_sim *sim, float dt)
{
    uint32_t dim = sim->grid.dim;
    for (uint32_t i = 0; i < sim->grid.chunks; i++) {
        bool far = sim->far_of_cell[sim->regions.of_chunk[i]] != 0;
        sim->chunk_active[(i / dim + 1) * (dim + 2) + i % dim + 1] =
            (uint8_t)(!far || sim_far_phase(sim, i) + 1 == sim_chunk_interval(sim, i));
    }
    float ahead = sim_far_ahead(sim->desc.offscreen_interval, dt);
    sim->passive_reach = (sim->desc.separation_radius + (2.0f * dt + ahead) * sim_top_speed(sim)) / sim->grid.chunk;
}

/* ---- the sleepers, per chunk --------------------------------------------------------------------- */

/* Every agent awake, every chunk without sleepers: when a step cannot keep them (separation, another
 * scenario, no region layout) or slots moved behind the sim's back. */
static void wake_all(crowd_sim *sim)
{
    sim_sleep z = sim_sleep_of(sim);
    memset(z.until, 0, sizeof *z.until * sim->slots.capacity);
    memset(z.cell, 0, sizeof *z.cell * sim->slots.capacity);
    for (uint32_t i = 0; i < sim->grid.chunks; i++) {
        sim_sleepers_clear(&sim->sleepers[i]);
        sim_sleepers_clear(&sim->sleep_prior[i]);
    }
}

/* Before the walk (whose steps end at t_next): a chunk coming near loses its sleepers (the walk
 * wakes them all), and a far chunk's turn its resting ones (under separation, all: the step before
 * it, they are read for the gathering, gate 3); elsewhere the bounds' generations turn over where
 * the previous one's last agent wakes in this step. */
static void refresh_sleepers(crowd_sim *sim, float t_next, bool separate)
{
    uint32_t chunks = sim->grid.chunks;
    sim->sleep_gate[0] = 0;
    for (uint32_t i = 0; i < chunks; i++) {
        uint8_t far = sim->far_of_cell[sim->regions.of_chunk[i]], sleeps_on = 1;
        bool wakes = sim->chunk_far[i] && !far, turns = false; /* turns: its resting sleepers wake */
        if (far) {
            uint32_t phase = sim_far_phase(sim, i);
            turns = phase == 0;
            if (separate) {
                wakes |= turns;
                sleeps_on = phase + 1 == sim_chunk_interval(sim, i) ? 3 : 1;
            }
        }
        sim->chunk_far[i] = far;
        sim_sleepers *z = &sim->sleepers[i], *prior = &sim->sleep_prior[i];
        if (wakes) {
            sim_sleepers_clear(z);
            sim_sleepers_clear(prior);
        } else if (!(t_next < prior->until)) { /* all of the previous generation wake by t_next */
            int32_t count = z->count;
            *prior = *z;
            sim_sleepers_clear(z);
            z->count = count;
        }
        sim->sleep_gate[i + 1] = wakes ? 0 : sleeps_on;
        sim->sleep_gate[chunks + i + 1] = wakes || turns ? 0 : sleeps_on;
    }
}

/* After the walk: its changes into the chunks' sleepers, and the sleepers into the chunk stats the
 * binning took from the agents it stepped (crowd_chunk_hold). Returns how many sleep. */
static uint32_t fold_sleepers(crowd_sim *sim)
{
    uint32_t sleeping = 0;
    for (uint32_t i = 0; i < sim->grid.chunks; i++) {
        sim_sleepers *z = &sim->sleepers[i], *d = &sim->step_delta.sleepers[i];
        const sim_sleepers *prior = &sim->sleep_prior[i];
        int32_t fell = d->fell; /* the walk binned these already */
        sim_sleepers_merge(z, d);
        sim_sleepers_clear(d);
        z->fell = 0;
        if (z->count <= 0) { /* none left (never below: every wake undoes one fall) */
            sim_sleepers_clear(z);
            sim_sleepers_clear(&sim->sleep_prior[i]);
            continue;
        }
        crowd_held held = {(uint32_t)(z->count - fell),
                           {0},
                           {0},
                           z->scale > prior->scale ? z->scale : prior->scale,
                           z->speed > prior->speed ? z->speed : prior->speed};
        for (int k = 0; k < 3; k++) { /* both generations' bounds (an empty one's are inverted) */
            held.lo[k] = z->lo[k] < prior->lo[k] ? z->lo[k] : prior->lo[k];
            held.hi[k] = z->hi[k] > prior->hi[k] ? z->hi[k] : prior->hi[k];
        }
        crowd_chunk_hold(sim->crowd, i, &held);
        sleeping += (uint32_t)z->count;
    }
    return sleeping;
}

/* ---- the step ----------------------------------------------------------------------------------- */

/* What the step shares, and the sim's per-step state (the decision tick, the round robin's step,
 * separation on or off, a resync of velocities after it went off). */
static step_params begin_step(crowd_sim *sim, float dt)
{
    double now = crowd_client_time(sim->crowd);
    sim_refresh(sim);
    sim->tick = (uint32_t)(now * 20.0 + dt * 20.0);
    sim->steps++;
    bool separate =
        sim->desc.separation > 0 || (sim->desc.separation == 0 && sim->slots.count <= sim->desc.separation_limit);
    sim->stats.separation_active = separate;
    /* Steps without separation never read drift: leave none behind, and have every record's
     * velocity checked once (it may still hold a drift the steady path would not see). */
    sim->resync = !separate && sim->drifts;
    if (sim->resync)
        memset(sim_drifts(sim), 0, sizeof(sim_drift) * sim->slots.used);
    sim->drifts = separate;
    bool regions = sim->regions.region != NULL;
    step_params k = {.dt = dt,
                     .blend = dt * SIM_TURN_RATE < 1.0f ? dt * SIM_TURN_RATE : 1.0f,
                     .world = sim->world,
                     .half = 0.5f * sim->world,
                     .t_now = (float)now,
                     .t_next = (float)(now + dt),
                     .separate = separate,
                     .wraps = sim->desc.scenario == CROWD_SCENARIO_STAMPEDE,
                     .gather = sim->desc.scenario == CROWD_SCENARIO_GATHER,
                     /* closed-form turns: the wander scenario's far agents, no drift */
                     .turns = sim->desc.scenario == CROWD_SCENARIO_WANDER && !separate && !sim->resync && regions};
    sim->t_now = k.t_now;
    return k;
}

/* Whether this step sleeps (docs/simulation.md: the region walk, and either no separation and the
 * wander scenario, or separation and far chunks that rest between turns, an interval of 2 or
 * more), waking everyone where the kind of sleep changed or slots changed behind the sim's back. */
static bool begin_sleep(crowd_sim *sim, const step_params *k)
{
    bool no_sleep = sim->test_hooks && sim->test_hooks->no_sleep;
    bool sleeps =
        sim->regions.region != NULL && !no_sleep &&
        (k->separate ? sim->desc.offscreen_interval >= 2 : sim->desc.scenario == CROWD_SCENARIO_WANDER && !sim->resync);
    uint64_t changes = crowd_client_changes(sim->crowd);
    if (sim->sleeping &&
        (!sleeps || changes != sim->seen_changes || sim->wake_pending || k->separate != sim->sleep_separate))
        wake_all(sim);
    sim->seen_changes = changes;
    sim->wake_pending = false;
    sim->sleeping = sleeps;
    sim->sleep_separate = k->separate;
    if (sleeps)
        refresh_sleepers(sim, k->t_next, k->separate);
    return sleeps;
}

/* The walk itself: on the pool, region by region, or slot by slot without regions. */
static uint32_t walk(crowd_sim *sim, const step_params *k, crowd_binner *bin, sim_gatherer *gather)
{
    if (crowd_tasks_enabled(sim->crowd))
        return step_tasks(sim, k, bin, gather);
    if (!sim->regions.region)
        return step_slots(sim, k, bin, gather);
    uint32_t rewritten = 0;
    for (uint32_t g = 0; g < sim->regions.live; g++) {
        const crowd_slot_region *region = &sim->regions.region[g];
        if (!region->count)
            continue;
        crowd_bin_region(bin, g);
        rewritten +=
            step_live(sim, k, bin, gather, g, region->start, region->start + region->count, sim->far_of_cell[g] != 0);
    }
    return rewritten;
}

void crowd_sim_step(crowd_sim *sim, float dt)
{
    if (!sim || !(dt > 0.0f) || !isfinite(dt))
        return;
    dt = dt < CROWD_SIM_MAX_DT ? dt : CROWD_SIM_MAX_DT; /* also keeps the decision clock's conversion defined */
    double t0 = crowd_clock_ms();
    step_params k = begin_step(sim, dt);
    if (sim->regions.region)
        mark_far_cells(sim);
    if (k.separate && sim->regions.region)
        mark_active_cells(sim, dt);
    bool sleeps = begin_sleep(sim, &k);
    /* The crowd's binning and the separation's gathering ride along: this pass touches every
     * record anyway. */
    crowd_binner bin;
    crowd_bin_begin(sim->crowd, &bin, k.t_next);
    sim_gatherer gather = k.separate ? sim_gather_begin(sim) : (sim_gatherer){0};
    sim->delta = &sim->step_delta;
    uint32_t rewritten = walk(sim, &k, &bin, &gather);
    crowd_bin_end(&bin);
    sim->fade_seconds = FADE_SECONDS;
    sim->stats.rewritten = rewritten;
    sim->stats.asleep = sleeps ? fold_sleepers(sim) : 0;
    double t1 = crowd_clock_ms();
    sim->stats.separated = gather.n;
    if (k.separate) /* pushes from where everyone is now, for the next step to move by */
        sim_separation(sim, &gather, dt);
    double t2 = crowd_clock_ms();
    sim->stats.ms_separation = t2 - t1;
    sim->stats.ms_step = t2 - t0;
}
