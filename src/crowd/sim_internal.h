/* Internal: the simulation's state, shared by sim.c (agents, gaits, the step), sim_steer.c
 * (scenarios, obstacles) and sim_separation.c (the fine neighbour grid). */
#ifndef CROWD_SIM_INTERNAL_H
#define CROWD_SIM_INTERNAL_H

#include <math.h>

#include "crowd/crowd_internal.h"

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
    crowd_sim_desc desc; /* resolved */
    crowd_obstacle *obstacles;
    uint32_t obstacle_count;
    /* obstacles near each chunk (crowd grid), as ranges into obstacle_ids */
    uint32_t *chunk_obstacle_start; /* cell_count + 1 */
    uint32_t *obstacle_ids;

    sim_gait gaits[SIM_MAX_GAITS];    /* [0] idle, then locomotion by speed */
    float gait_switch[SIM_MAX_GAITS]; /* [g]: above this speed gait g + 1 suits better (g >= 1) */
    float cruise_scale[256];          /* agent cruise byte -> m/s per unit of its int16 direction */
    uint32_t gait_count;
    int cheer_clip; /* -1 when the asset has none */

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
    bool owns_state;      /* attached the crowd's agents/drift arrays (crowd_attach_sim_state) */
    bool drifts;          /* the last step separated: agents may have drift */
    uint32_t tick;        /* this step's time in twentieths of a second (decision deadlines) */
    uint32_t decisions;   /* counter mixed into decision hashes */
    uint32_t steps;       /* steps so far: the round robin of the level of detail */
    float t_now;          /* shader time the step starts at: where steering reads positions */
    bool resync;          /* this step checks every record's velocity (separation just went off) */
    uint8_t *far_of_cell; /* per region (chunk, then the pool): re-plans at a lower rate (1),
                             and cuts between gaits (2, sim.c's mark_far_cells) */
    float fade_seconds;   /* the gait changes' cross-fade in the region being stepped: 0 (a cut) where
                             it draws past cross_fade_max_lod, whose levels show clip A only */
    float gather_area;    /* m^2 the gather's plaza holds; 0 = 1.2 per agent of this crowd (a crowd_world
                             sets every kind's to the area of all kinds, world.c) */
    /* Event-driven stepping (sim.c, "sleep"): per chunk, its sleepers (and this walk's changes to
     * them); whether any agent may be asleep. */
    crowd_sleepers *sleepers, *sleep_delta;
    /* per chunk: the previous generation of its sleepers' bounds (its count unused) */
    crowd_sleepers *sleep_prior;
    uint8_t *sleep_gate; /* 2 cell_count + 1, per step, by sleep word (crowd_sleep's cell): [chunk + 1]
                            is 1 where that chunk's sleepers sleep on (it does not come near),
                            [cell_count + chunk + 1] the same for its resting ones (0 also on the
                            chunk's turn); [0] (an awake slot's) is 0 */
    uint8_t *chunk_far;  /* cell_count: whether each chunk's agents were far at the last sleeping step */
    /* cell_count: 1 where a chunk's far agents re-plan at offscreen_interval, 0 at lod_interval (sim.c's
     * mark_far_cells: its view when the two rounds last met) */
    uint8_t *chunk_offscreen;
    /* (grid_dim + 2)^2, the chunk grid with a border of zeros: under separation, 1 where a chunk's
     * agents get pushes at the end of this step (sim.c's mark_active_cells; sim_far.c) */
    uint8_t *chunk_active;
    float passive_reach; /* chunk units: how near an active chunk a resting agent is gathered */
    bool sleeping;
    bool sleep_separate; /* the sleepers are far agents resting between turns (sim_far.c) */
    bool no_sleep;       /* tests: the reference that steps every agent */
    bool every_edge;     /* tests: the reference that gathers every resting agent near a chunk edge */
    /* tests: the far separation as it was before sim_step.h's sim_far_ahead: far agents gathered where
     * they are, their pushes whole (sim_separation.c's far_push_scale) */
    bool gather_now;
    bool offscreen_stripes; /* tests: which chunks re-plan at the offscreen rate, whatever the view */
    crowd_sim_stats stats;
};

/* Where slot s's agent is at the start of the step (its record extrapolated). */
static inline void sim_position(const crowd_sim *sim, uint32_t s, float p[3])
{
    crowd_rec_position(&sim->crowd->records[s], sim->t_now, p);
}

/* The wander scenario's per-agent rules, shared by its steering (sim_steer.c) and the step's sleep
 * (sim.c), which must predict that steering exactly. A decision is due at `tick` when the deadline
 * has come (deadlines are kept mod 256 and are at most 120 ticks ahead, so the byte difference
 * tick - due is under 128 exactly then) or the agent has none yet. */
static inline bool sim_decision_due(const crowd_agent *a, uint32_t tick)
{
    return (uint8_t)((uint8_t)tick - a->due) < 128 || a->cruise == 0xFF;
}
/* Between decisions a wanderer wants its cruise along its direction (`scale_of`: the sim's
 * cruise_scale, passed so hot loops keep it in a local). */
static inline void sim_wander_velocity(const crowd_agent *a, const float *scale_of, float out[2])
{
    float scale = scale_of[a->cruise];
    out[0] = a->direction[0] * scale;
    out[1] = a->direction[1] * scale;
}

/* Past the wander edge margin (`edge`: half the world less SIM_WANDER_EDGE) at p and heading further
 * out on an axis it is past it on: the wanderer's steering turns it back in (sim_steer.c). */
static inline bool sim_heads_out(const crowd_agent *a, const float *p, float edge)
{
    return (fabsf(p[0]) > edge && p[0] * (float)a->direction[0] > 0.0f) ||
           (fabsf(p[2]) > edge && p[2] * (float)a->direction[1] > 0.0f);
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
float sim_gait_speed(const crowd_sim *sim, uint32_t gait);
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

/* sim.c */
uint32_t sim_random(uint32_t *state);
float sim_uniform(uint32_t *state);           /* [0, 1) */
uint32_t sim_hash(uint32_t a, uint32_t b);    /* well-mixed 32 bits of two words */
static inline float sim_hash_unit(uint32_t h) /* [0, 1) */
{
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

#endif
