/* Separation under the level of detail: the walk over a far region while agents separate.
 *
 * Far agents step a chunk at a time: every interval-th step, round robin by chunk (sim_far_phase),
 * a chunk's agents re-plan and move by their drift, which then decays by the interval's steps'
 * worth; in between the chunk rests and its agents walk on with their records. The pushes a
 * stepping chunk moves by are taken at the end of the step before and count the interval's steps
 * (SIM_GATHER_FAR, SIM_GATHER_OFFSCREEN), capped (sim_separation.c's far_push_scale). Far agents are
 * gathered where their records will have them halfway through their interval (ahead_of), near ones
 * where they are; resting far agents in or near a chunk that gets pushes are gathered as neighbours
 * that push but get no push (SIM_GATHER_PASSIVE). A chunk's own region steps or rests whole; the far
 * pool's agents take the phase of the chunk each is in. An agent just stepped, walking a straight
 * line away from its chunk's edges, sleeps through its chunk's rest steps (rest_sleep), read for the
 * gathering on the step before its chunk's turn. The records, pushes and drifts are those of a walk
 * that visits every agent, byte for byte, at a steady step. docs/simulation.md, "separation under
 * the level of detail", has the whole account. */
#include <math.h>
#include <stddef.h>

#include "sim/sim_sleep.h"
#include "sim/sim_testing.h"

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
    v[0] = crowd_rec_unhalf(r->velocity & 0xFFFFu);
    v[1] = crowd_rec_unhalf(r->velocity >> 16);
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
 * chunk whose agents get pushes at the end of this step (`active`: sim_step.c's mark_active_cells),
 * as a mover whose region is not yet its chunk's may be, or within `reach` (chunk units: the sim's
 * passive_reach) of one, across an edge or a corner. Anywhere else its pairs would push nobody.
 * Outside the grid, or with a reach of half a chunk or more (small chunks, a wide radius), always. */
static CROWD_ALWAYS_INLINE bool pushes_neighbours(const uint8_t *active, uint32_t stride, grid_spot at, float reach)
{
    if (!at.inside || reach >= 0.5f) /* (a reach of half a chunk or more: both sides, or farther) */
        return true;
    ptrdiff_t dx = at.fx < reach ? -1 : at.fx > 1.0f - reach ? 1 : 0;
    ptrdiff_t dz = at.fz < reach ? -(ptrdiff_t)stride : at.fz > 1.0f - reach ? (ptrdiff_t)stride : 0;
    if (!active) /* tests: every agent near any edge (the sim's every_edge hook) */
        return dx || dz;
    const uint8_t *a = active + (size_t)(at.iz + 1) * stride + at.ix + 1; /* the table's border is never active */
    return (a[0] | a[dx] | a[dz] | a[dx + dz]) != 0;
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
    bool now = sim->test_hooks && sim->test_hooks->gather_now;
    return (far_rate){interval, sim_far_next_tag(sim, chunk), far_blend(blend, interval), ((float)interval - 0.5f) * dt,
                      now ? 0.0f : sim_far_ahead(interval, dt)};
}

/* Where a far agent (at p, moving at u, `speed` its bound |u.x| + |u.z|) is gathered for the
 * separation: where its record has it `ahead` seconds on, or as far as `top` m/s would take it
 * there, if less (drift can be faster: the passive reach allows for `top` only). Whether it is
 * gathered as a neighbour, and how long it may sleep unread, go by that place too. */
static CROWD_ALWAYS_INLINE void ahead_of(const float p[3], const float u[2], float speed, float ahead, float top,
                                         float q[3])
{
    float t = speed > top ? ahead * (top / speed) : ahead;
    q[0] = p[0] + u[0] * t;
    q[1] = p[1];
    q[2] = p[2] + u[1] * t;
}

/* The far walk: the shared walk, the active chunks' table and reach, and the round robin (a chunk's
 * own region's phase; the pool's agents go by the chunk each is in, `phase_chunk` the last one's). */
typedef struct far_walk {
    sim_walk w;
    const uint8_t *active; /* NULL: every agent near any edge is gathered (tests) */
    uint32_t stride;       /* the active table's rows */
    float reach, top;      /* the sim's passive_reach; how far ahead_of may take an agent, per second */
    bool own, wanders, plain;
    uint32_t own_phase, phase_chunk, chunk_phase;
    far_rate rate;
} far_walk;

static CROWD_ALWAYS_INLINE far_walk far_walk_begin(crowd_sim *sim, const step_params *k, crowd_binner *bin,
                                                   const sim_gatherer *gatherer, uint32_t region)
{
    bool every_edge = sim->test_hooks && sim->test_hooks->every_edge, own = region < sim->grid.chunks;
    far_walk fw = {.w = sim_walk_begin(sim, k, bin, gatherer, region, sim->sleeping),
                   .active = every_edge ? NULL : sim->chunk_active,
                   .stride = sim->grid.dim + 2,
                   .reach = sim->passive_reach,
                   .top = sim_top_speed(sim),
                   .own = own,
                   .wanders = sim->desc.scenario == CROWD_SCENARIO_WANDER,
                   .plain = !k->wraps && !k->gather,
                   .own_phase = own ? sim_far_phase(sim, region) : 0,
                   .phase_chunk = UINT32_MAX,
                   .chunk_phase = 0,
                   .rate = far_rate_of(sim, own ? region : 0, k->blend, k->dt)};
    return fw;
}

/* Where a far agent's record has it at the step's end. */
typedef struct far_place {
    float p[3], u[2]; /* where, moving at u */
    float speed;      /* crowd_rec_speed_bound */
    uint32_t chunk;
} far_place;

/* A sleeper of a chunk whose turn is next: gathered where it will be, left asleep. */
static CROWD_ALWAYS_INLINE void gather_sleeper(far_walk *fw, uint32_t s)
{
    sim_walk *w = &fw->w;
    float q[3], u[2], bound = walk_on(&w->records[s], w->k->t_next, q, u);
    far_rate its = fw->own ? fw->rate : far_rate_of(w->sim, w->sleep.cell[s] - 1, w->k->blend, w->k->dt);
    ahead_of(q, u, bound, its.ahead, fw->top, q); /* (event words only: sleep.cell - 1 is its chunk) */
    sim_gather(&w->gather, s | its.next_tag, q);
}

/* Slot s (record r, at fp, `at` where it is gathered), just stepped, falls asleep through its
 * chunk's rest steps if it may (walking a straight line, no fade, not near its chunk's edge): for
 * the rate's hold, or until where it is gathered comes within the reach (chunk units) of its
 * chunk's edge, with a ten-thousandth of a chunk to spare. */
static CROWD_ALWAYS_INLINE void rest_sleep(far_walk *fw, uint32_t s, const crowd_record *r, const far_place *fp,
                                           grid_spot at)
{
    sim_walk *w = &fw->w;
    const crowd_grid_map *g = &w->grid;
    float lo = fw->reach + 1e-4f, hi = 1.0f - lo;
    if (r->fade_rate > 0.0f || (r->clips & CROWD_RECORD_TURN) || !at.inside ||
        at.iz * (uint32_t)(g->last + 1) + at.ix != fp->chunk ||  /* (ahead, in another chunk: near its edge) */
        !(at.fx > lo && at.fx < hi && at.fz > lo && at.fz < hi)) /* near an edge already */
        return;
    float ux = fp->u[0] * g->inv_cell, uz = fp->u[1] * g->inv_cell, span = fw->rate.hold, t;
    t = ux > 0.0f ? (hi - at.fx) / ux : ux < 0.0f ? (lo - at.fx) / ux : INFINITY;
    span = t < span ? t : span;
    t = uz > 0.0f ? (hi - at.fz) / uz : uz < 0.0f ? (lo - at.fz) / uz : INFINITY;
    span = t < span ? t : span;
    float t_next = w->k->t_next, until = t_next + span;
    if (!(span > 0.0f) || !(until > t_next))
        return;
    const float *p = fp->p, *v = fp->u;
    sleep_box box = {{p[0] + (v[0] < 0.0f ? v[0] : 0.0f) * span, p[1], p[2] + (v[1] < 0.0f ? v[1] : 0.0f) * span},
                     {p[0] + (v[0] > 0.0f ? v[0] : 0.0f) * span, p[1], p[2] + (v[1] > 0.0f ? v[1] : 0.0f) * span},
                     until,
                     fp->speed};
    sleep_in(w, s, r, fp->chunk, &box, false);
}

/* A pooled agent's chunk, and that chunk's phase and rate; the phase of s's chunk. */
static CROWD_ALWAYS_INLINE uint32_t phase_of(far_walk *fw, const crowd_record *r, far_place *fp)
{
    sim_walk *w = &fw->w;
    if (fw->own)
        return fw->own_phase;
    fp->speed = walk_on(r, w->k->t_next, fp->p, fp->u);
    fp->chunk = cached_chunk(&w->cache, &w->grid, w->obstacles, fp->p);
    if (fp->chunk != fw->phase_chunk) {
        fw->phase_chunk = fp->chunk;
        fw->chunk_phase = sim_far_phase(w->sim, fp->chunk);
        fw->rate = far_rate_of(w->sim, fp->chunk, w->k->blend, w->k->dt);
    }
    return fw->chunk_phase;
}

/* Off its chunk's turn: it walks on with its record, gathered whole on the step before the turn,
 * as a neighbour where it may push someone. */
static CROWD_ALWAYS_INLINE void rest_far(far_walk *fw, uint32_t s, crowd_record *r, far_place *fp, uint32_t phase)
{
    sim_walk *w = &fw->w;
    if (fw->own) {
        fp->speed = walk_on(r, w->k->t_next, fp->p, fp->u);
        fp->chunk = cached_chunk(&w->cache, &w->grid, w->obstacles, fp->p);
    }
    float q[3];
    ahead_of(fp->p, fp->u, fp->speed, fw->rate.ahead, fw->top, q);
    if (phase + 1 == fw->rate.interval)
        sim_gather(&w->gather, s | fw->rate.next_tag, q);
    else if (pushes_neighbours(fw->active, fw->stride, spot_of(&w->grid, q), fw->reach))
        sim_gather(&w->gather, s | SIM_GATHER_PASSIVE, q);
    bin_stepped_at(w, s, r, fp->p, fp->chunk, fp->speed);
}

/* What a far agent on its turn wants: the batch's, or (a wanderer with no decision due that does
 * not head out wants what it wanted, as sim_steer.c's wander_batch would say, without its call)
 * its own, into `one`. */
static CROWD_ALWAYS_INLINE const float *far_want(far_walk *fw, uint32_t s, const float now[3], const float *batch,
                                                 float one[2])
{
    sim_walk *w = &fw->w;
    const sim_agent *a = &w->agents[s];
    if (batch)
        return batch;
    if (fw->wanders && !sim_decision_due(a, w->tick) && !sim_heads_out(a, now, w->edge))
        sim_wander_velocity(a, w->sim->cruise_scale, one);
    else
        sim_desired_velocity(w->sim, s, one);
    return one;
}

/* Its chunk's turn: it re-plans and moves by its drift, as step_live steps a near agent. Returns
 * the chunk its record has it in at the step's end. `batch`: the batch's desired velocity for it,
 * or NULL. */
static CROWD_ALWAYS_INLINE uint32_t turn_far(far_walk *fw, uint32_t s, crowd_record *r, const float *batch)
{
    sim_walk *w = &fw->w;
    const step_params *k = w->k;
    sim_agent *a = &w->agents[s];
    float *v = a->velocity, one[2], now[3], u[2], p[3]; /* now: where the step starts */
    sim_drift drift = w->drifts[s];
    bool drifting = drifts(drift);
    walk_on(r, k->t_now, now, u);
    const float *want = far_want(fw, s, now, batch, one);
    if (r->clips & CROWD_RECORD_TURN) { /* a turn from before separation came on: per step from here */
        v[0] = u[0];                    /* (the turn's velocity now, from walk_on above) */
        v[1] = u[1];
        crowd_rec_anchor(r, k->t_now);
        w->dirty[s] = 1;
    }
    bool steady = fw->plain && v[0] == want[0] && v[1] == want[1], moving = v[0] != 0.0f || v[1] != 0.0f;
    if (steady && !drifting && (moving || (a->gait == 0 && !r->velocity && sim_faces(w->sim, r, a)))) {
        crowd_rec_position(r, k->t_next, p); /* the record moves it */
        uint32_t chunk = cached_chunk(&w->cache, &w->grid, w->obstacles, p);
        if (!w->cache.obstacles || !sim_avoid_obstacles(w->sim, chunk, p, v))
            return chunk;
        step_result moved = step_move(w->sim, k, s, p, false, drift, -1.0f);
        w->rewritten += moved.wrote;
        return moved.chunk;
    }
    if (steady && drifting && moving && fabsf(r->position[0]) < k->half - 1.0f &&
        fabsf(r->position[2]) < k->half - 1.0f)
        return step_jostled(w, s, now, drift, p);
    step_result moved = step_agent_from(w->sim, k, s, now, want, drift, fw->rate.blend, -1.0f);
    w->rewritten += moved.wrote;
    return moved.chunk;
}

/* After its turn: its drift decays by its interval's worth, it is gathered (where it steps again
 * next, or as a neighbour: its own pushes come before its next turn), binned, and asleep through
 * its chunk's rest steps where it may be. */
static CROWD_ALWAYS_INLINE void after_turn(far_walk *fw, uint32_t s, crowd_record *r, uint32_t chunk, sim_drift drift)
{
    sim_walk *w = &fw->w;
    far_place fp = {.chunk = chunk};
    fp.speed = walk_on(r, w->k->t_next, fp.p, fp.u); /* the record as the step left it */
    w->drifts[s] = decay_drift(drift, fw->rate.blend);
    float q[3];
    ahead_of(fp.p, fp.u, fp.speed, fw->rate.ahead, fw->top, q);
    grid_spot at = spot_of(&w->grid, q);
    if (fw->rate.interval == 1) /* (a visible far chunk at lod_interval 1: it steps again next) */
        sim_gather(&w->gather, s, fp.p);
    else if (pushes_neighbours(fw->active, fw->stride, at, fw->reach))
        sim_gather(&w->gather, s | SIM_GATHER_PASSIVE, q);
    bin_stepped_at(w, s, r, fp.p, chunk, fp.speed);
    if (w->sleeps && !w->run.moves && fw->rate.interval > 1)
        rest_sleep(fw, s, r, &fp, at);
}

/* One visited slot (offset i of its batch): a sleeper read for the gathering, or woken, then its
 * rest or its turn. `batch`: the batch's desired velocity for it, or NULL. */
static CROWD_ALWAYS_INLINE void visit_far(far_walk *fw, uint32_t s, uint32_t i, const float *batch, bool lazy,
                                          bool read_only)
{
    sim_walk *w = &fw->w;
    if (read_only) { /* asleep in a chunk whose turn is next: gathered, no more */
        gather_sleeper(fw, s);
        return;
    }
    if (w->sleeps && w->sleep.cell[s]) /* awake again: its time came, or its chunk's turn */
        wake_event_sleeper(w, s);
    if (!lazy) {
        uint32_t ahead = s + STEP_BATCH < w->slot_capacity ? s + STEP_BATCH : 0;
        crowd_prefetch(&w->records[ahead]);
        if (batch && i % 4 == 0)
            crowd_prefetch(&w->agents[ahead]);
    }
    crowd_record *r = &w->records[s];
    far_place fp = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f}, 0.0f, 0};
    uint32_t phase = phase_of(fw, r, &fp);
    if (phase) { /* resting: walks on with its record; gathered whole when it steps next */
        rest_far(fw, s, r, &fp, phase);
        return;
    }
    sim_drift drift = w->drifts[s];
    after_turn(fw, s, r, turn_far(fw, s, r, batch), drift);
}

uint32_t sim_far_walk(crowd_sim *sim, const step_params *k, crowd_binner *bin, sim_gatherer *gatherer, uint32_t region,
                      uint32_t first, uint32_t end)
{
    far_walk fw = far_walk_begin(sim, k, bin, gatherer, region);
    float desired[2 * STEP_BATCH];
    scan_ring ring; /* as step_live's (sim_step.c), with the sleepers read for the gathering flagged */
    for (uint32_t base = first; base < end; base += STEP_BATCH) {
        uint32_t n = end - base < STEP_BATCH ? end - base : STEP_BATCH, awake = n, cur = 0;
        bool lazy = false;
        if (fw.w.sleeps) {
            cur = scan_ahead(&ring, &fw.w, first, end, base, true);
            awake = ring.count[cur];
            if (!awake)
                continue;
            uint8_t reads = 0;
            for (uint32_t j = 0; j < awake; j++)
                reads |= ring.read_only[cur][j];
            lazy = awake < n || reads; /* the list, not every slot (`lazy` as in step_live) */
        }
        /* a region stepping whole: desired velocities a batch at a time (wanderers': one by one, inline) */
        const bool batch = fw.own && fw.own_phase == 0 && !lazy && !fw.wanders;
        if (batch)
            sim_desired_velocities(sim, base, n, desired);
        for (uint32_t j = 0; j < awake; j++) {
            uint32_t i = lazy ? ring.list[cur][j] : j;
            visit_far(&fw, base + i, i, batch ? desired + 2 * i : NULL, lazy, lazy && ring.read_only[cur][j]);
        }
    }
    return sim_walk_end(&fw.w, gatherer);
}
