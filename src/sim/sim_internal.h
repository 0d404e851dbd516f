/* Internal: the simulation's state, shared by its source files (sim.c lifetime and spawn, sim_gaits.c,
 * sim_step.c the step, sim_far.c far regions under separation, sim_steer.c scenarios and obstacles,
 * sim_separation.c the fine neighbour grid, world.c several kinds). The simulation is a client of
 * the runtime: it sees the crowd only through crowd/crowd_client.h. */
#ifndef CROWD_SIM_INTERNAL_H
#define CROWD_SIM_INTERNAL_H

#include <math.h>

#include "crowd/crowd_client.h"
#include "crowdbake/sim.h"

/* Simulation state per slot, moved with the records so the simulation walks memory in order.
 * Random choices come from a hash of the instance index and a decision counter, so no generator
 * state is stored. */
typedef struct sim_agent {
    float velocity[2];    /* steering, x, z, m/s: where the agent walks; heading, gait and rate
                               follow it */
    int16_t direction[2]; /* desired heading, unit vector * 32767: no trigonometry per step */
    uint8_t cruise;       /* desired speed in twentieths of a m/s */
    uint8_t gait;         /* index into the sim's gait table */
    uint8_t lane;         /* parade lane */
    uint8_t due;          /* the sim's tick (twentieths of a second, mod 256) of the next wander
                               decision: a deadline, not a countdown, so waiting writes nothing */
} sim_agent;

/* Separation pushes, m/s (crowd_sim): a velocity that moves the agent without turning it. Apart
 * from sim_agent so that a crowd without separation never reads it: every byte per agent is
 * memory traffic a million-agent step pays. */
typedef struct sim_drift {
    float x, z;
} sim_drift;

/* Event-driven stepping (sim.c): a steady agent whose next step would change nothing sleeps
 * until its next event (a wander decision, reaching the world's margin, leaving its chunk), so a
 * step reads 4 or 8 bytes of it instead of its record and state. Per slot, moved with the records
 * like drift; all zero (awake) unless the simulation put it to sleep. Two arrays, not one of
 * pairs: a chunk's own region is scanned by time alone (sim_step.h scan_visits; on a far chunk's turn
 * without separation, by both), and at a million slots that scan reads 4 MB a step instead of 8. */
typedef struct sim_sleep {
    float *until;     /* shader time: the first step whose end reaches it steps the agent again */
    uint32_t *cell;   /* 0: awake; 1 .. resting: asleep until its event, in chunk cell - 1; above
                       that, asleep until its event or its chunk's next turn, in chunk
                       cell - 1 - resting (sim_sleep.h, "resting sleepers") */
    uint32_t resting; /* the crowd's chunk count */
} sim_sleep;

/* The chunk a sleeper (cell word v, not 0) sleeps in. */
static inline uint32_t sim_sleep_chunk(sim_sleep z, uint32_t v)
{
    return v - 1 - (v > z.resting ? z.resting : 0);
}

static inline void sim_sleep_wake(sim_sleep z, uint32_t s)
{
    z.until[s] = 0.0f;
    // cppcheck-suppress unreadVariable ; false positive: writes the array `z` points at, not the copy
    z.cell[s] = 0;
}

/* The sleepers of a chunk, which its binning no longer sees one by one: their count, and bounds
 * that hold every sleeper over its whole sleep (the segment it walks), grown as agents fall asleep.
 * The bounds come in two generations (docs/simulation.md): the agents that fell asleep since the last
 * turnover, and those before it, kept until the last of them has woken. Also a task's changes to
 * them, merged after the walk. */
typedef struct sim_sleepers {
    int32_t count;
    int32_t fell; /* changes only: of the count, agents that fell asleep in this walk (it binned them) */
    float lo[3], hi[3];
    float scale, speed;
    float until; /* the latest wake time of the agents whose falls the bounds hold */
    bool listed; /* a task's: in its delta's touched list */
} sim_sleepers;

/* The sleepers' changes a walk makes (per chunk), merged after it: a task's own, or the step's. */
typedef struct sim_sleep_delta {
    sim_sleepers *sleepers;
    uint32_t *touched; /* a task's: the chunks whose sleepers it changed (NULL: the step's own) */
    uint32_t touched_count;
} sim_sleep_delta;

/* Empty, and merged: counts add, bounds and maxima widen (order-independent, so any split gives
 * the same). */
static inline void sim_sleepers_clear(sim_sleepers *z)
{
    *z = (sim_sleepers){0,         0,    {INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0.0f, 0.0f,
                        -INFINITY, false};
}
/* The walk's changes to chunk `cell`'s sleepers (listed for the merge when a task's). */
static inline sim_sleepers *sim_delta_of(sim_sleep_delta *d, uint32_t cell)
{
    sim_sleepers *z = &d->sleepers[cell];
    if (d->touched && !z->listed) {
        z->listed = true;
        d->touched[d->touched_count++] = cell;
    }
    return z;
}
static inline void sim_sleepers_merge(sim_sleepers *to, const sim_sleepers *from)
{
    to->count += from->count;
    to->fell += from->fell;
    for (int k = 0; k < 3; k++) {
        to->lo[k] = from->lo[k] < to->lo[k] ? from->lo[k] : to->lo[k];
        to->hi[k] = from->hi[k] > to->hi[k] ? from->hi[k] : to->hi[k];
    }
    to->scale = from->scale > to->scale ? from->scale : to->scale;
    to->speed = from->speed > to->speed ? from->speed : to->speed;
    to->until = from->until > to->until ? from->until : to->until;
}

/* The per-slot arrays the crowd moves with its records (crowd_client_attach): [live, back]. */
enum { SIM_AGENTS, SIM_DRIFT, SIM_WAKE_TIME, SIM_SLEEP_WORD, SIM_STATES };

#define SIM_MAX_GAITS 8
#define SIM_MAX_OBSTACLES 1024u
#define SIM_BODY_RADIUS 0.3f
#define SIM_WANDER_EDGE 8.0f /* m: inside the world's edge, a wandering agent heads back in */

typedef struct sim_gait {
    uint32_t clip;
    float speed;          /* natural speed (stride / duration), m/s; 0 for idle */
    float rate_per_speed; /* cycles per metre (1 / stride), 0 for clips without a stride */
    float authored_rate;  /* 1 / duration */
} sim_gait;

struct crowd_sim {
    crowd *crowd;
    const crowd_asset *asset;
    crowd_sim_desc desc; /* resolved */
    crowd_obstacle *obstacles;
    uint32_t obstacle_count;
    /* obstacles near each chunk (crowd grid), as ranges into obstacle_ids */
    uint32_t *chunk_obstacle_start; /* chunks + 1 */
    uint32_t *obstacle_ids;

    sim_gait gaits[SIM_MAX_GAITS];    /* [0] idle, then locomotion by speed */
    float gait_switch[SIM_MAX_GAITS]; /* [g]: above this speed gait g + 1 suits better (g >= 1) */
    float cruise_scale[256];          /* agent cruise byte -> m/s per unit of its int16 direction */
    uint32_t gait_count;
    int cheer_clip; /* -1 when the asset has none */
    /* No gait (gait_count 1): no scenario asks a speed, agents stand and turn in place towards
     * their heading (sim_faces) instead of gliding on their idle. */
    bool stands_only;
    /* >= 0: the asset has nothing to stand in but a gait (no idle, no pose), so standing holds that
     * gait still at this phase, its frame with the most of the body on the ground (sim_gaits.c) */
    float pose_phase;

    /* The crowd as the client door shows it, read afresh at each entry (a crowd_update may have
     * moved the slot arrays since): its slots, grid and regions. */
    crowd_slots slots;
    crowd_grid grid;
    crowd_regions regions;
    float world;          /* the crowd's world_size */
    bool stride_matching; /* the crowd's */
    /* The per-slot arrays (SIM_*), [live, back]: the crowd moves them with the records. */
    void *state[SIM_STATES][2];
    uint64_t seen_changes; /* crowd_client_changes when the sleepers were last known good */

    /* separation scratch: the fine grid, and live agents as gathered and as sorted */
    uint32_t fine_dim;
    float fine_size;
    uint32_t *fine_rows;       /* 2 x (fine_dim + 2): each fine row's first sorted agent; sort scratch */
    uint32_t *fine_cell_of;    /* gathered: fine cell key, then (sort_agents) its rank in fine-cell order */
    uint32_t *fine_slots;      /* gathered: slot */
    float *fine_gathered;      /* gathered: (x, z) */
    uint64_t *fine_keyed;      /* sort scratch: gathered agents in column order, key and index */
    uint32_t *fine_sorted_key; /* gathered agents in fine-cell order: their keys (row, column); + 1 */
    float *fine_position;      /* their (x, z), in the same order */
    float *fine_push;          /* their push, in the same order */
    /* the sort on several threads (sim_separation.c, sort_on_threads; NULL with one): */
    uint64_t *fine_band_sorted; /* cap: each band's agents by column */
    uint32_t *fine_share_rows;  /* threads x (fine_dim + 2): a share's agents per row, then its places */
    uint32_t *fine_band_tables; /* 8 x threads x 2 x (fine_dim + 2): a band's column counts, row places */

    uint32_t spawn_rng;
    bool attached;        /* the per-slot arrays are the crowd's client's */
    bool drifts;          /* the last step separated: agents may have drift */
    uint32_t tick;        /* this step's time in twentieths of a second (decision deadlines) */
    uint32_t decisions;   /* counter mixed into decision hashes */
    uint32_t steps;       /* steps so far: the round robin of the level of detail */
    float t_now;          /* shader time the step starts at: where steering reads positions */
    bool resync;          /* this step checks every record's velocity (separation just went off) */
    uint8_t *far_of_cell; /* per region (chunk, then the pool): re-plans at a lower rate (1),
                             and cuts between gaits (2, sim_step.c's mark_far_cells) */
    float fade_seconds;   /* the gait changes' cross-fade in the region being stepped: 0 (a cut) where
                             it draws past cross_fade_max_lod, whose levels show clip A only */
    float gather_area;    /* m^2 the gather's plaza holds; 0 = 1.2 per agent of this crowd (a crowd_world
                             sets every kind's to the area of all kinds, world.c) */
    /* Event-driven stepping (docs/simulation.md; sim_sleep.h): per chunk, its sleepers and the
     * walk's changes to them (a task's walk has its own, merged after it). */
    sim_sleepers *sleepers;
    sim_sleep_delta *delta; /* the walk's: the step's own, or (a task's copy of the sim) its task's */
    sim_sleep_delta step_delta;
    sim_sleep_delta *task_deltas; /* per task (crowd_client_task_count) */
    sim_sleepers *task_sleepers;  /* tasks x chunks */
    uint32_t *task_touched;       /* tasks x chunks */
    /* per chunk: the previous generation of its sleepers' bounds (its count unused) */
    sim_sleepers *sleep_prior;
    uint8_t *sleep_gate; /* 2 chunks + 1, per step, by sleep word (sim_sleep's cell): [chunk + 1]
                            is 1 where that chunk's sleepers sleep on (it does not come near),
                            [chunks + chunk + 1] the same for its resting ones (0 also on the
                            chunk's turn); [0] (an awake slot's) is 0 */
    uint8_t *chunk_far;  /* chunks: whether each chunk's agents were far at the last sleeping step */
    /* chunks: 1 where a chunk's far agents re-plan at offscreen_interval, 0 at lod_interval
     * (sim_step.c's mark_far_cells: its view when the two rounds last met) */
    uint8_t *chunk_offscreen;
    /* (dim + 2)^2, the chunk grid with a border of zeros: under separation, 1 where a chunk's
     * agents get pushes at the end of this step (sim_step.c's mark_active_cells; sim_far.c) */
    uint8_t *chunk_active;
    float passive_reach; /* chunk units: how near an active chunk a resting agent is gathered */
    bool sleeping;
    bool sleep_separate;                     /* the sleepers are far agents resting between turns (sim_far.c) */
    bool wake_pending;                       /* the scenario changed: the next step wakes everyone */
    const struct sim_test_hooks *test_hooks; /* sim_testing.h; NULL outside the tests */
    crowd_sim_stats stats;
};

/* The per-slot arrays, live. */
static inline sim_agent *sim_agents(const crowd_sim *sim)
{
    return (sim_agent *)sim->state[SIM_AGENTS][0];
}
static inline sim_drift *sim_drifts(const crowd_sim *sim)
{
    return (sim_drift *)sim->state[SIM_DRIFT][0];
}
static inline sim_sleep sim_sleep_of(const crowd_sim *sim)
{
    return (sim_sleep){(float *)sim->state[SIM_WAKE_TIME][0], (uint32_t *)sim->state[SIM_SLEEP_WORD][0],
                       sim->grid.chunks};
}

/* A walk's gate for all the sleepers of region `region` (sleep_gate `gate`, `chunks` chunks) where
 * they share one, as a chunk's own region's do unless its turn wakes its resting sleepers only (0,
 * everyone wakes; 1, a sleeper sleeps while its time is ahead, and an awake slot's time is 0; 3, as
 * sim_far.c's); else -1 (the far pool, or that turn: each sleeper's own gate byte, read with its
 * sleep word). */
static inline int sim_own_gate(const uint8_t *gate, uint32_t region, uint32_t chunks)
{
    if (region >= chunks)
        return -1;
    uint8_t g = gate[region + 1];
    return gate[chunks + region + 1] == g ? g : -1;
}

/* The crowd's slots, grid and regions as they are now (crowd_client.h), into the sim. */
void sim_refresh(crowd_sim *sim);

/* Where slot s's agent is at the start of the step (its record extrapolated). */
static inline void sim_position(const crowd_sim *sim, uint32_t s, float p[3])
{
    crowd_rec_position(&sim->slots.records[s], sim->t_now, p);
}

/* The wander scenario's per-agent rules, shared by its steering (sim_steer.c) and the step's sleep
 * (sim.c), which must predict that steering exactly. A decision is due at `tick` when the deadline
 * has come (deadlines are kept mod 256 and are at most 120 ticks ahead, so the byte difference
 * tick - due is under 128 exactly then) or the agent has none yet. */
static inline bool sim_decision_due(const sim_agent *a, uint32_t tick)
{
    return (uint8_t)((uint8_t)tick - a->due) < 128 || a->cruise == 0xFF;
}
/* Between decisions a wanderer wants its cruise along its direction (`scale_of`: the sim's
 * cruise_scale, passed so hot loops keep it in a local). */
static inline void sim_wander_velocity(const sim_agent *a, const float *scale_of, float out[2])
{
    float scale = scale_of[a->cruise];
    out[0] = a->direction[0] * scale;
    out[1] = a->direction[1] * scale;
}

/* Past the wander edge margin (`edge`: half the world less SIM_WANDER_EDGE) at p and heading further
 * out on an axis it is past it on: the wanderer's steering turns it back in (sim_steer.c). */
static inline bool sim_heads_out(const sim_agent *a, const float *p, float edge)
{
    return (fabsf(p[0]) > edge && p[0] * (float)a->direction[0] > 0.0f) ||
           (fabsf(p[2]) > edge && p[2] * (float)a->direction[1] > 0.0f);
}

/* Whether a standing agent faces its heading, as a gait-less simulation turns it (sim_step.h's
 * turn_in_place); always true where agents walk to turn. */
static inline bool sim_faces(const crowd_sim *sim, const crowd_record *r, const sim_agent *a)
{
    return !sim->stands_only || r->yaw == crowd_atan2((float)a->direction[0], (float)a->direction[1]);
}

/* sim_steer.c */
void sim_desired_velocity(crowd_sim *sim, uint32_t slot, float out[2]);
void sim_desired_velocities(crowd_sim *sim, uint32_t first, uint32_t n, float *out); /* 2 per slot */
bool sim_avoid_obstacles(const crowd_sim *sim, uint32_t cell, float position[3], float velocity[2]);
/* Seconds until an agent at `position` walking (vx, vz) first comes within reach of one of chunk
 * `cell`'s obstacles (where sim_avoid_obstacles would act), a little early; INFINITY if never, 0 if
 * within reach already. */
float sim_obstacle_time(const crowd_sim *sim, uint32_t cell, const float position[3], float vx, float vz);
/* The same for an agent whose path is unknown but no faster than `speed`: how soon it could come
 * within reach of one of chunk `cell`'s obstacles, at the earliest (0 within reach already). */
float sim_obstacle_reach_time(const crowd_sim *sim, uint32_t cell, const float position[3], float speed);
crowd_result sim_build_obstacle_grid(crowd_sim *sim, crowd_error *error);
/* The fastest desired speed any scenario asks of an agent, m/s. */
float sim_top_speed(const crowd_sim *sim);

/* sim_separation.c: the step gathers live agents as it writes their positions (a local copy of
 * this in the hot loop stays in registers), then sim_separation pushes them apart. */
typedef struct sim_gatherer {
    float origin, inv; /* the fine grid */
    float lo, hi;      /* gathered coordinates are clamped to the world plus a margin */
    int last;
    uint32_t dim, n; /* n: gathered so far */
    uint32_t *cell, *slot;
    float *xz;
} sim_gatherer;

/* The fine grid is at most this many cells a side (sort keys hold a row and a column + 1 in 11
 * bits each, sim_separation.c): cells one separation radius wide, or wider on a world over 2047
 * radii. */
#define SIM_FINE_MAX_DIM 2047u
/* The separation's passes over the fine grid's rows: bands per thread (crowds are denser in places) */
#define SIM_BANDS_PER_THREAD 8u
sim_gatherer sim_gather_begin(crowd_sim *sim);
void sim_separation(crowd_sim *sim, const sim_gatherer *g, float dt); /* dt: the step's */

static inline uint32_t sim_fine_index(const sim_gatherer *g, float v)
{
    return (uint32_t)crowd_clamp_cell((v - g->origin) * g->inv, (float)g->last);
}

/* A gathered slot carries in its top two bits how its push applies (slots stay far below 2^30:
 * capacity is at most 2^22; sim_far.c, "separation under the level of detail"): */
#define SIM_GATHER_FAR 0x40000000u /* a far chunk's that steps next: its push is lod_interval steps' (capped) */
#define SIM_GATHER_PASSIVE \
    0x80000000u                          /* a far agent not stepping next, in or near a chunk that gets
                                          pushes: pushes, gets no push */
#define SIM_GATHER_OFFSCREEN 0xC0000000u /* as SIM_GATHER_FAR, offscreen_interval steps' */
#define SIM_GATHER_SLOT 0x3FFFFFFFu

/* Live agent in slot s (with its SIM_GATHER_ tag), now at p, into the gathered arrays. */
static inline void sim_gather(sim_gatherer *g, uint32_t s, const float *p)
{
    uint32_t m = g->n++;
    /* An agent far outside (set there, 1e20 m away) is separated as if on the border: differences
     * of raw coordinates could overflow to inf and make NaN pushes. */
    float x = p[0] > g->lo ? p[0] : g->lo, z = p[2] > g->lo ? p[2] : g->lo;
    g->slot[m] = s;
    g->xz[2 * m] = x < g->hi ? x : g->hi;
    g->xz[2 * m + 1] = z < g->hi ? z : g->hi;
}

/* sim_gaits.c: the idle and the locomotion clips by speed (from the spawn options' names, or the
 * clips' roles); the spawn options' names and ranges checked against the asset. */
void sim_build_gaits(crowd_sim *sim);
crowd_result sim_check_spawn_options(const crowd_spawn_options *o, const crowd_asset *a, crowd_error *error);

/* sim.c */
uint32_t sim_random(uint32_t *state);
float sim_uniform(uint32_t *state);           /* [0, 1) */
uint32_t sim_hash(uint32_t a, uint32_t b);    /* well-mixed 32 bits of two words */
static inline float sim_hash_unit(uint32_t h) /* [0, 1) */
{
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

#endif
