/* Internal: event-driven stepping, inline for the walks (sim_step.c, sim_far.c). A steady agent
 * whose next step would change nothing sleeps until its next event: the walk skips it and its
 * chunk counts it through the chunk's sleepers, whose bounds hold the path it walks while asleep.
 * Stepping a sleeper would have done nothing, so records, decisions and movers are those of a walk
 * that visits every agent, byte for byte. docs/simulation.md describes the whole machinery: what
 * sleeps, what wakes it, the bounds' two generations, resting sleepers, the gates. */
#ifndef CROWD_SIM_SLEEP_H
#define CROWD_SIM_SLEEP_H

#include <float.h>
#include <math.h>

#include "sim/sim_step.h"

/* ---- who a walk visits ---------------------------------------------------------------------------
 *
 * A sleeper sleeps on through the step ending at t_next while its time is ahead and the step's gate
 * byte for its sleep word is not 0 (sim->sleep_gate, sim_step.c's refresh_sleepers). */

/* The slots of the m from `from` that a walk visits, into `list` (offsets); returns how many: the
 * awake, and under separation (sim_far.c) the sleepers of a far chunk whose turn is next (gate
 * byte 3), flagged in `read_only` (the walk reads where they are for the gathering and leaves them
 * asleep; NULL where no such gate can come). `own_gate`: sim_own_gate's. */
static CROWD_ALWAYS_INLINE uint32_t scan_visits(sim_sleep sleep, uint32_t from, uint32_t m, float t_next,
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
 * another at memory latency). Returns the ring's entry for `base`. `far`: sim_far.c's walk, which
 * reads the sleepers of a chunk whose turn is next (read_only) and never the agents ahead. */
static CROWD_ALWAYS_INLINE uint32_t scan_ahead(scan_ring *ring, const sim_walk *w, uint32_t first, uint32_t end,
                                               uint32_t base, bool far)
{
    uint32_t b = (base - first) / STEP_BATCH;
    for (uint32_t d = base == first ? 0 : SCAN_AHEAD; d <= SCAN_AHEAD; d++) {
        uint32_t from = base + d * STEP_BATCH, at = (b + d) % (SCAN_AHEAD + 1);
        uint32_t m = from < end ? (end - from < STEP_BATCH ? end - from : STEP_BATCH) : 0;
        uint32_t n = scan_visits(w->sleep, from, m, w->k->t_next, w->gate, w->own_gate, ring->list[at],
                                 far ? ring->read_only[at] : NULL);
        for (uint32_t j = 0; j < n && d; j++) {
            crowd_prefetch(&w->records[from + ring->list[at][j]]);
            if (!far)
                crowd_prefetch(&w->agents[from + ring->list[at][j]]);
            crowd_prefetch(&w->sleep.cell[from + ring->list[at][j]]);
        }
        ring->count[at] = n;
    }
    return b % (SCAN_AHEAD + 1);
}

/* Sleeping slot s wakes: its chunk's sleepers (this walk's changes to them) count it no more, unless
 * its chunk's gate emptied them already (refresh_sleepers), and its sleep words are cleared. */
static CROWD_ALWAYS_INLINE void wake_sleeper(sim_walk *w, uint32_t s)
{
    uint32_t chunk = sim_sleep_chunk(w->sleep, w->sleep.cell[s]);
    if (w->gate[chunk + 1]) /* (a resting sleeper woken for its chunk's turn: that gate is 0, this one not) */
        sim_delta_of(w->delta, chunk)->count--;
    sim_sleep_wake(w->sleep, s);
}

/* The same for a sleeper until its event (under separation, the only kind: sim_far.c). */
static CROWD_ALWAYS_INLINE void wake_event_sleeper(sim_walk *w, uint32_t s)
{
    if (w->gate[w->sleep.cell[s]])
        sim_delta_of(w->delta, w->sleep.cell[s] - 1)->count--;
    sim_sleep_wake(w->sleep, s);
}

/* ---- falling asleep ------------------------------------------------------------------------------ */

/* Where a sleeper may walk while asleep, and until when. */
typedef struct sleep_box {
    float lo[3], hi[3];
    float until; /* shader time */
    float speed; /* its record's crowd_rec_speed_bound */
} sleep_box;

/* Slot s (record r) falls asleep in chunk within `box` (`resting`: until its event or its chunk's
 * next turn, whichever comes first): its chunk's sleepers (the walk's changes to them) count it and
 * hold the box. */
static CROWD_ALWAYS_INLINE void sleep_in(sim_walk *w, uint32_t s, const crowd_record *r, uint32_t chunk,
                                         const sleep_box *box, bool resting)
{
    sim_sleepers *d = sim_delta_of(w->delta, chunk);
    d->count++;
    d->fell++;
    for (int k = 0; k < 3; k++) { /* compares, not fminf/fmaxf (calls, for their NaN rules) */
        d->lo[k] = box->lo[k] < d->lo[k] ? box->lo[k] : d->lo[k];
        d->hi[k] = box->hi[k] > d->hi[k] ? box->hi[k] : d->hi[k];
    }
    d->scale = r->scale > d->scale ? r->scale : d->scale;
    d->speed = box->speed > d->speed ? box->speed : d->speed;
    d->until = box->until > d->until ? box->until : d->until;
    w->sleep.until[s] = box->until;
    w->sleep.cell[s] = chunk + 1 + (resting ? w->sleep.resting : 0);
}

#define SLEEP_EARLY 0.01f  /* seconds: a sleeper wakes this much before its decision */
#define SLEEP_LONGEST 6.4f /* seconds: 128 decision ticks, the longest sleep */

/* A would-be sleeper's path from p (the record r, at t_next): per axis, its velocity now (u) and
 * the one it turns to (d; a straight record's is u), and `settle`, a turning record's 1/k (else 0).
 * Its coordinate then moves by d t + (u - d)(1 - e^(-k t))/k, whose second term lies between 0 and
 * (u - d) min(t, 1/k): so its path keeps, per axis, between p + d t + min(0, u - d) min(t, 1/k) and
 * p + d t + max(0, u - d) min(t, 1/k). */
typedef struct sleep_path {
    float ux, uz, dx, dz, settle;
    bool turning;
} sleep_path;

static CROWD_ALWAYS_INLINE sleep_path path_of(const crowd_record *r, float t_next)
{
    float vx = crowd_rec_unhalf(r->velocity & 0xFFFFu), vz = crowd_rec_unhalf(r->velocity >> 16);
    sleep_path p = {vx, vz, vx, vz, 0.0f, (r->clips & CROWD_RECORD_TURN) != 0};
    if (p.turning) {
        float u[2];
        crowd_rec_turn_velocity(r, t_next, u);
        p = (sleep_path){u[0], u[1], r->offset_b, r->rate_b, 1.0f / r->fade_start, true};
    }
    return p;
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

/* The most a path's velocity reaches along x and z (between u and d on each). */
static CROWD_ALWAYS_INLINE void path_extent(sleep_path w, float *ax, float *az)
{
    float ux = fabsf(w.ux), dx = fabsf(w.dx), uz = fabsf(w.uz), dz = fabsf(w.dz);
    *ax = ux > dx ? ux : dx; /* (compares, not fmaxf: a call, for its NaN rules) */
    *az = uz > dz ? uz : dz;
}

/* How near its chunk's edge (chunk units) a sleeper at p on path w, falling asleep at t_next, may be
 * woken: farther than float rounding can move it between where its sleep is reckoned and where a
 * later step's binning puts it: a few ulps of its coordinates and of the path a sleep may walk, its
 * speed times a few ulps of the shader time (wake times are floats, and the crowd's rebase keeps
 * them under 2^12 s), and a tenth of a millimetre. */
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

/* Slot s (record r, at p at the step's end on `path`, in chunk) sleeps for `span` seconds, if that
 * reaches past this step (`resting`: sleep_in's); returns whether it does. */
static CROWD_ALWAYS_INLINE bool sleep_along(sim_walk *w, uint32_t s, const crowd_record *r, const float p[3],
                                            uint32_t chunk, sleep_path path, float span, bool resting)
{
    float t_next = w->k->t_next, until = t_next + span;
    if (!(span > 0.0f) || !(until > t_next))
        return false;
    sleep_box box = {{p[0] - reach_forward(-path.ux, -path.dx, path.settle, span), p[1],
                      p[2] - reach_forward(-path.uz, -path.dz, path.settle, span)},
                     {p[0] + reach_forward(path.ux, path.dx, path.settle, span), p[1],
                      p[2] + reach_forward(path.uz, path.dz, path.settle, span)},
                     until,
                     crowd_rec_speed_bound(r)};
    sleep_in(w, s, r, chunk, &box, resting);
    return true;
}

/* Seconds from t_next until SLEEP_EARLY before agent a's next decision (at most 127 ticks on), or
 * a negative number where it has none ahead (or one due now). */
static CROWD_ALWAYS_INLINE float until_decision(const sim_agent *a, uint32_t tick, float t_next)
{
    uint32_t ahead = (uint8_t)(a->due - (uint8_t)tick); /* ticks to its next decision (sim_steer.c) */
    if (a->cruise == 0xFF || ahead == 0 || ahead >= 128)
        return -1.0f;
    return (float)((double)(tick + ahead) * 0.05) - SLEEP_EARLY - t_next;
}

/* The earliest the path may reach the wander edge margin on an axis it is not past (a straight
 * walker heads for one edge of each axis, a turning one may for either; on an axis it is past the
 * margin on, heading in, crossing back changes nothing), or `span` if sooner. */
static CROWD_ALWAYS_INLINE float until_margin(const float p[3], sleep_path path, float edge, float span)
{
    bool past_x = fabsf(p[0]) > edge, past_z = fabsf(p[2]) > edge;
    float e = edge - 0.01f, t;
    t = past_x ? INFINITY : time_to_rise(e - p[0], path.ux, path.dx, path.settle);
    span = t < span ? t : span;
    t = past_z ? INFINITY : time_to_rise(e - p[2], path.uz, path.dz, path.settle);
    span = t < span ? t : span;
    t = past_x ? INFINITY : time_to_fall(p[0] + e, path.ux, path.dx, path.settle);
    span = t < span ? t : span;
    t = past_z ? INFINITY : time_to_fall(p[2] + e, path.uz, path.dz, path.settle);
    return t < span ? t : span;
}

/* Slot s (record r, agent a, at p at the step's end, in chunk with the cache's bounds) falls asleep
 * until its next event (its decision, its chunk's edge, the edge margin, an obstacle's reach), if
 * that is after this step; returns whether it does. */
static CROWD_ALWAYS_INLINE bool fall_asleep(sim_walk *w, uint32_t s, const crowd_record *r, const sim_agent *a,
                                            const float p[3], uint32_t chunk)
{
    float t_next = w->k->t_next, span = until_decision(a, w->tick, t_next), edge = w->edge;
    /* Past the edge margin and heading further out on that axis, the next step's steering re-aims
     * it at the centre (sim_heads_out): awake. Heading in there, its direction holds. */
    if (!(span > 0.0f) || (fabsf(p[0]) > edge && p[0] * (float)a->direction[0] > 0.0f) ||
        (fabsf(p[2]) > edge && p[2] * (float)a->direction[1] > 0.0f))
        return false;
    sleep_path path = path_of(r, t_next);
    span = until_chunk_edge(&w->grid, &w->cache, p, path, t_next, span);
    span = until_margin(p, path, edge, span);
    if (w->cache.obstacles) { /* and the chunk's obstacles' reach */
        float t;
        if (path.turning) {
            float ax, az;
            path_extent(path, &ax, &az);
            t = sim_obstacle_reach_time(w->sim, chunk, p, sqrtf(ax * ax + az * az));
        } else {
            t = sim_obstacle_time(w->sim, chunk, p, path.ux, path.uz);
        }
        span = t < span ? t : span;
    }
    return sleep_along(w, s, r, p, chunk, path, span, false);
}

/* Resting sleepers: a far agent that cannot sleep until its event (above) sleeps until the earliest
 * of its decision, its chunk's edge and its chunk's next turn (`hold`: that many steps less half a
 * step, of this one's length): its chunk's turn wakes it (its sleep word says so). A fading
 * record's fold is the walk's (crowd_bin_fade): awake. Returns whether it sleeps. */
static CROWD_ALWAYS_INLINE bool rest_asleep(sim_walk *w, uint32_t s, const crowd_record *r, const sim_agent *a,
                                            const float p[3], uint32_t chunk, float hold)
{
    float t_next = w->k->t_next, span = until_decision(a, w->tick, t_next);
    if (!(hold > 0.0f) || !(span > 0.0f) || r->fade_rate > 0.0f)
        return false;
    sleep_path path = path_of(r, t_next);
    return sleep_along(w, s, r, p, chunk, path,
                       until_chunk_edge(&w->grid, &w->cache, p, path, t_next, span < hold ? span : hold), true);
}

/* Whether a far wanderer walking on between its re-plans (record r, agent a) would find, at its
 * next re-plan before its next event, that nothing changes: the velocity it steers by is its
 * desired one already (no decision is due and it does not head out, as fall_asleep wakes it before
 * either) and the record is the one such a re-plan leaves alone (a straight walk or standing
 * settled, or a closed-form turn to that velocity where turns are records; no fade running). Then
 * it may sleep until its event now, as an agent re-planned steady does. */
static CROWD_ALWAYS_INLINE bool walks_on_unchanged(const sim_walk *w, const crowd_record *r, const sim_agent *a)
{
    if (r->fade_rate > 0.0f)
        return false;
    const float *v = a->velocity;
    float want[2];
    sim_wander_velocity(a, w->sim->cruise_scale, want);
    if (v[0] != want[0] || v[1] != want[1])
        return false;
    if (r->clips & CROWD_RECORD_TURN)
        return w->far_turns;
    return v[0] != 0.0f || v[1] != 0.0f || (a->gait == 0 && !r->velocity && sim_faces(w->sim, r, a));
}

/* When a visited agent may sleep until its event (settle_visit). */
typedef enum settle_event {
    SETTLE_REST_ONLY,    /* not until its event; a far agent until its chunk's turn */
    SETTLE_EVENT,        /* until its event if no fade runs */
    SETTLE_IF_UNCHANGED, /* the same, if walks_on_unchanged */
} settle_event;

/* The end of a visit: the agent (record r, agent a, at p at the step's end, in chunk) into its
 * chunk's run, then, in a sleeping walk, asleep until its event where `event` allows, else, in a
 * far region (`rest` > 0: its chunk's turn that far ahead), until its chunk's next turn. A mover
 * stays awake (the update moves it). */
static CROWD_ALWAYS_INLINE void settle_visit(sim_walk *w, uint32_t s, crowd_record *r, const sim_agent *a,
                                             const float p[3], uint32_t chunk, float rest, settle_event event)
{
    bin_stepped(w, s, r, p, chunk); /* (folds a finished fade first: the tests below see the record after) */
    if (!w->sleeps || w->run.moves)
        return;
    bool eventful = event == SETTLE_EVENT          ? !(r->fade_rate > 0.0f)
                    : event == SETTLE_IF_UNCHANGED ? walks_on_unchanged(w, r, a)
                                                   : false;
    if (eventful && fall_asleep(w, s, r, a, p, chunk))
        return;
    /* (a step that moved it found its chunk without the cache: its bounds are fetched now) */
    if (rest > 0.0f && cached_chunk(&w->cache, &w->grid, w->obstacles, p) == chunk)
        rest_asleep(w, s, r, a, p, chunk, rest);
}

#endif
