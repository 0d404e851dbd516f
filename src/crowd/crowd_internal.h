/* Internal: the crowd's state, shared by the runtime's source files (crowd.c API, crowd_update.c
 * update/draws/uploads, crowd_layout.c the region layout, crowd_bin.c binning, crowd_lod.c culling
 * and LOD, sim*.c the simulation). */
#ifndef CROWD_CROWD_INTERNAL_H
#define CROWD_CROWD_INTERNAL_H

#include "crowdbake/crowd.h"

#include <math.h>
#include <string.h>

/* ---- the record's packed words (crowd.h, docs/format.md "Motion") ---------------------------- */

static inline uint32_t crowd_rec_clip_a(const crowd_record *r)
{
    return r->clips & CROWD_RECORD_CLIP_MASK;
}
static inline uint32_t crowd_rec_clip_b(const crowd_record *r)
{
    return (r->clips >> 12) & CROWD_RECORD_CLIP_MASK;
}
static inline void crowd_rec_set_clip_a(crowd_record *r, uint32_t clip)
{
    r->clips = (r->clips & ~CROWD_RECORD_CLIP_MASK) | (clip & CROWD_RECORD_CLIP_MASK);
}
static inline void crowd_rec_set_clip_b(crowd_record *r, uint32_t clip)
{
    r->clips = (r->clips & ~(CROWD_RECORD_CLIP_MASK << 12)) | (clip & CROWD_RECORD_CLIP_MASK) << 12;
}

/* IEEE half <-> float. Packing rounds to nearest even, stores magnitudes under 2^-14 as +0 and
 * clamps at 65504; unpacking is exact and is the shaders' record_half (record.glsl) bit for bit. */
static inline uint32_t crowd_half_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7FFFFFFFu;
    if (a < 0x38800000u) /* below the smallest normal half (NaN never gets here: callers check) */
        return 0u;
    if (a >= 0x477FE000u)
        return sign | 0x7BFFu;
    uint32_t r = a - 0x38000000u; /* exponent rebased from 127 to 15 */
    return sign | ((r + 0x0FFFu + ((r >> 13) & 1u)) >> 13);
}
static inline float crowd_float_from_half(uint32_t h)
{
    uint32_t x = (h & 0x7C00u) ? ((h & 0x8000u) << 16) | (((h & 0x7FFFu) + 0x1C000u) << 13) : 0u;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}
static inline uint32_t crowd_pack_velocity(float vx, float vz)
{
    return crowd_half_from_float(vx) | crowd_half_from_float(vz) << 16;
}
static inline bool crowd_rec_turning(const crowd_record *r)
{
    return (r->clips & CROWD_RECORD_TURN) != 0;
}
/* Where record r places its instance at shader time t: the one formula every CPU path uses
 * (record.glsl's record_position, operation for operation). A turning record: the velocity
 * v(t) = d + (v0 - d) e^(-k dt) integrated, p0 + d dt + (v0 - d) (1 - e^(-k dt)) / k. */
static inline void crowd_rec_position(const crowd_record *r, float t, float out[3])
{
    float dt = t - r->ref_time;
    float vx = crowd_float_from_half(r->velocity & 0xFFFFu), vz = crowd_float_from_half(r->velocity >> 16);
    if (r->clips & CROWD_RECORD_TURN) {
        float k = r->fade_start, e = expf(-k * dt), w = (1.0f - e) / k;
        out[0] = r->position[0] + r->offset_b * dt + (vx - r->offset_b) * w;
        out[1] = r->position[1];
        out[2] = r->position[2] + r->rate_b * dt + (vz - r->rate_b) * w;
        return;
    }
    out[0] = r->position[0] + vx * dt;
    out[1] = r->position[1];
    out[2] = r->position[2] + vz * dt;
}
/* A turning record's velocity at t (record.glsl's record_turn_velocity). */
static inline void crowd_rec_turn_velocity(const crowd_record *r, float t, float v[2])
{
    float e = expf(-r->fade_start * (t - r->ref_time));
    float vx = crowd_float_from_half(r->velocity & 0xFFFFu), vz = crowd_float_from_half(r->velocity >> 16);
    v[0] = r->offset_b + (vx - r->offset_b) * e;
    v[1] = r->rate_b + (vz - r->rate_b) * e;
}
/* atan2 to about 1e-3 rad without a libm call: the yaw of every moving agent (the simulation's, and
 * a turning record's decode: record.glsl's record_atan2, operation for operation). */
static inline float crowd_atan2(float y, float x)
{
    float ax = fabsf(x), ay = fabsf(y); /* finite: plain compares, not fminf's NaN-aware libm call */
    float a = (ax < ay ? ax : ay) / ((ax < ay ? ay : ax) + 1e-20f), s = a * a;
    float r = ((-0.0464964749f * s + 0.15931422f) * s - 0.327622764f) * s * a + a;
    if (ay > ax)
        r = 1.57079637f - r;
    if (x < 0.0f)
        r = 3.14159274f - r;
    return y < 0.0f ? -r : r;
}
/* Below this speed squared (0.05 m/s) a turning record shows its yaw field, as the simulation
 * keeps an agent's heading while it barely moves. */
#define CROWD_TURN_YAW_SPEED2 0.0025f
/* The yaw record r shows at shader time t (record.glsl's record_yaw). */
static inline float crowd_rec_yaw(const crowd_record *r, float t)
{
    if (!(r->clips & CROWD_RECORD_TURN))
        return r->yaw;
    float v[2];
    crowd_rec_turn_velocity(r, t, v);
    return v[0] * v[0] + v[1] * v[1] > CROWD_TURN_YAW_SPEED2 ? crowd_atan2(v[0], v[1]) : r->yaw;
}
/* |vx| + |vz| of a record: a bound on its speed (culling bounds grow by speed x staleness). A
 * turning record's velocity lies between v0 and d component by component, so max(|v0x|, |dx|) +
 * max(|v0z|, |dz|) bounds it at any time: |p(t) - p(t')| <= that x |t - t'|. */
static inline float crowd_rec_speed_bound(const crowd_record *r)
{
    float x = crowd_float_from_half(r->velocity & 0x7FFFu), z = crowd_float_from_half((r->velocity >> 16) & 0x7FFFu);
    if (r->clips & CROWD_RECORD_TURN) {
        float dx = fabsf(r->offset_b), dz = fabsf(r->rate_b);
        x = dx > x ? dx : x;
        z = dz > z ? dz : z;
    }
    return x + z;
}
/* Whether the record moves at all (its chunk bounds grow with time). */
static inline bool crowd_rec_moves(const crowd_record *r)
{
    return r->velocity != 0u || (r->clips & CROWD_RECORD_TURN);
}
/* A turning record becomes a straight one (no-op for others): clip B's words back to clip A's, as
 * when no fade runs. The caller writes the motion. */
static inline void crowd_rec_clear_turn(crowd_record *r)
{
    if (r->clips & CROWD_RECORD_TURN) {
        r->clips &= ~(uint32_t)CROWD_RECORD_TURN;
        r->offset_b = r->offset_a;
        r->rate_b = r->rate_a;
        r->fade_start = 0.0f;
    }
}
/* A new straight motion: at p (x, z) at time t, walking on at the velocity word. */
static inline void crowd_rec_set_motion(crowd_record *r, const float p[3], float t, uint32_t velocity)
{
    crowd_rec_clear_turn(r);
    r->position[0] = p[0];
    r->position[2] = p[2];
    r->ref_time = t;
    r->velocity = velocity;
}
/* Re-anchors a record at time t (its position there), for a write that changes its motion. A
 * turning record goes straight on from there at its velocity and yaw then (the velocity rounded
 * to halves). */
static inline void crowd_rec_anchor(crowd_record *r, float t)
{
    float p[3];
    crowd_rec_position(r, t, p);
    uint32_t velocity = r->velocity;
    if (r->clips & CROWD_RECORD_TURN) {
        float v[2];
        crowd_rec_turn_velocity(r, t, v);
        r->yaw = crowd_rec_yaw(r, t);
        velocity = crowd_pack_velocity(v[0], v[1]);
    }
    crowd_rec_set_motion(r, p, t, velocity);
}

/* Simulation state per slot, moved with the records so the simulation walks memory in order.
 * Random choices come from a hash of the instance index and a decision counter, so no generator
 * state is stored. */
typedef struct crowd_agent {
    float velocity[2];    /* steering, x, z, m/s: where the agent walks; heading, gait and rate
                               follow it */
    int16_t direction[2]; /* desired heading, unit vector * 32767: no trigonometry per step */
    uint8_t cruise;       /* desired speed in twentieths of a m/s */
    uint8_t gait;         /* index into the sim's gait table */
    uint8_t lane;         /* parade lane */
    uint8_t due;          /* the sim's tick (twentieths of a second, mod 256) of the next wander
                               decision: a deadline, not a countdown, so waiting writes nothing */
} crowd_agent;

/* Separation pushes, m/s (crowd_sim): a velocity that moves the agent without turning it. Apart
 * from crowd_agent so that a crowd without separation never reads it: 8 more bytes per agent per
 * step cost a million-agent step about 0.7 ms. */
typedef struct crowd_drift {
    float x, z;
} crowd_drift;

/* Event-driven stepping (sim.c): a steady agent whose next step would change nothing sleeps
 * until its next event (a wander decision, reaching the world's margin, leaving its chunk), so a
 * step reads 4 or 8 bytes of it instead of its record and state. Per slot, moved with the records
 * like drift; all zero (awake) unless the simulation put it to sleep. Two arrays, not one of
 * pairs: a chunk's own region is scanned by time alone (sim_step.h scan_visits; on a far chunk's turn
 * without separation, by both), and at a million slots that scan reads 4 MB a step instead of 8. */
typedef struct crowd_sleep {
    float *until;     /* shader time: the first step whose end reaches it steps the agent again */
    uint32_t *cell;   /* 0: awake; 1 .. resting: asleep until its event, in chunk cell - 1; above
                       that, asleep until its event or its chunk's next turn, in chunk
                       cell - 1 - resting (sim.c, "resting sleepers") */
    uint32_t resting; /* the crowd's chunk count */
} crowd_sleep;

/* The chunk a sleeper (cell word v, not 0) sleeps in. */
static inline uint32_t crowd_sleep_chunk(crowd_sleep z, uint32_t v)
{
    return v - 1 - (v > z.resting ? z.resting : 0);
}

static inline void crowd_sleep_copy(crowd_sleep to, uint32_t t, crowd_sleep from, uint32_t f)
{
    to.until[t] = from.until[f];
    // cppcheck-suppress unreadVariable ; false positive: writes the array `to` points at, not the copy
    to.cell[t] = from.cell[f];
}

static inline void crowd_sleep_wake(crowd_sleep z, uint32_t s)
{
    z.until[s] = 0.0f;
    // cppcheck-suppress unreadVariable ; false positive: writes the array `z` points at, not the copy
    z.cell[s] = 0;
}

/* The sleepers of a chunk, which its binning no longer sees one by one: their count, and bounds
 * that hold every sleeper over its whole sleep (the segment it walks), grown as agents fall asleep.
 * The bounds come in two generations (sim.c, "sleep"): the agents that fell asleep since the last
 * turnover, and those before it, kept until the last of them has woken. Also a task's changes to
 * them, merged after the walk. */
typedef struct crowd_sleepers {
    int32_t count;
    int32_t fell; /* changes only: of the count, agents that fell asleep in this walk (it binned them) */
    float lo[3], hi[3];
    float scale, speed;
    float until; /* the latest wake time of the agents whose falls the bounds hold */
    bool listed; /* a task's: in its binner's sleep_touched list */
} crowd_sleepers;

/* Per chunk, rebuilt every update. */
typedef struct crowd_cell {
    uint32_t count;
    float min[3], max[3]; /* instance positions */
    float max_scale;
    float max_speed; /* |vx| + |vz| bound of its instances: bounds taken at bin_time grow by
                        max_speed x |time - bin_time| */
    uint32_t lod;
    bool visible;
    bool pooled;
    bool band; /* distance policy: inside the imposter hand-off band (drawn by both, see CROWD_DRAW_BAND) */
} crowd_cell;

#define CROWD_PARKED_CELL UINT32_MAX
#define CROWD_HOLE UINT32_MAX /* index_of_slot of a slot no instance owns (region slack) */
#define CROWD_NO_REGION UINT32_MAX

/* Distance policy: the record array is cut into regions, one per chunk (region i is chunk i's; it
 * holds the chunk's instances unless the chunk is in the far pool), one for the far pool (all its
 * chunks: one draw), one for parked instances and a free tail. A region owns slots [start, start + capacity); its live records are packed at its start and
 * the rest is slack, so an instance that changes chunk moves alone (swap-remove, append) instead of
 * the whole array being re-sorted. Regions lie in memory in the order of the regions array and
 * tile [0, slot_capacity) without gaps. */
typedef struct crowd_slot_region {
    uint32_t start, count, capacity;
    bool dirty; /* a live slot was written or moved since the last update's uploads */
} crowd_slot_region;

/* An instance whose chunk now belongs to another region (found by binning, moved by the update). */
typedef struct crowd_mover {
    uint32_t slot, cell, from; /* cell: the new chunk, or CROWD_PARKED_CELL; from: its region now */
} crowd_mover;

typedef struct crowd_task crowd_task; /* crowd_tasks.c */

struct crowd {
    crowd_desc desc;               /* resolved (sentinels kept, for crowd_settings) */
    uint32_t shadow_max, fade_max; /* desc's max-LOD fields as levels */
    float hysteresis;              /* desc's, 0 for none */
    uint32_t levels;               /* mesh levels, plus one with the imposter level */
    uint32_t imposter_level;       /* asset->lod_count with imposters, else UINT32_MAX */
    float band;                    /* desc's imposter_band, 0 for none */
    crowd_error last_error;        /* crowd_last_error */
    const crowd_asset *asset;
    uint32_t capacity, count;
    uint32_t instances;     /* indices in use: live (count) + parked */
    uint32_t slots;         /* slots in use: the end of the last region with instances, holes included */
    uint32_t slot_capacity; /* capacity plus room for region slack */
    bool stride_matching;
    bool gpu_driven;   /* crowd_set_gpu_driven: a GPU pass culls; no per-instance levels, no draw list */
    float cull_margin; /* crowd_set_cull_margin: metres per unit scale added to every culling sphere */

    /* Slot-ordered arrays, double-buffered: the back buffers receive full re-layouts and serve as
     * scratch for movers. */
    crowd_record *records, *records_back;
    /* The simulation's per-slot state, moved with the records: NULL (and never touched) unless a
     * crowd_sim is attached (crowd_attach_sim_state); then owned by the crowd until detached. */
    crowd_agent *agents, *agents_back;
    crowd_drift *drift, *drift_back; /* all zero unless the simulation separates agents */
    crowd_sleep sleep, sleep_back;   /* the sim's sleepers (NULL arrays without a sim); _back: movers'
                                        scratch, never flipped (a full re-layout wakes everyone instead) */
    bool sleep_stale;                /* a setter or a re-layout changed slots behind the sim's back:
                                        its next step wakes every sleeper */
    bool has_sim;
    uint32_t *index_of_slot, *index_back; /* CROWD_HOLE for slack */
    uint8_t *dirty, *dirty_back;          /* record changed since the last update (only ever set on live or
                                          parked slots, never on holes) */
    uint8_t *lod_of_slot, *lod_back;      /* coverage policy: the level chosen last time (hysteresis) */
    uint32_t *slot_of_index;              /* per index; after a sort or re-layout (index_map_stale) it is
                                          rebuilt before crowd_update returns, so readers never do */
    bool index_map_stale;
    uint32_t *cell_of_slot, *cell_back;      /* coverage policy (and any update without a valid region
                                          layout): the chunk (or CROWD_PARKED_CELL) of each slot */
    bool binned;                             /* this frame's binning is done (the simulation did it) */
    uint32_t *rank_of_slot;                  /* scratch: sort rank this update (coverage policy) */
    bool coverage_full_sort;                 /* tests: sort every slot whenever the bucket order breaks (the old
                                policy, the reference for the incremental one) */
    uint32_t coverage_moves, coverage_sorts; /* updates that moved a few slots / sorted all (tests) */
    /* The last binning holds for any time: no live instance moves and no fade runs. Until a setter
     * marks a slot (dirty_unbinned), the count or the settings change, or the simulation bins, the
     * update reuses it instead of binning every instance again (a settled crowd costs no pass). */
    bool grid_settled;
    uint32_t bins_reused;    /* updates that reused it (tests) */
    float *coverage_of_slot; /* scratch: projected coverage */

    /* Grid. */
    uint32_t grid_dim; /* cells per side */
    float cell_size, world_min;
    uint32_t cell_count;
    crowd_cell *cells;
    uint32_t rank_count;
    uint32_t *rank_start;  /* rank_count + 1: first slot of each rank after the sort */
    uint32_t *rank_cursor; /* scratch for the scatter */

    /* Region layout (distance policy; crowd_layout.c). */
    bool layout_valid;          /* false: slots are in no particular order, the next update lays
                                          them out afresh */
    crowd_slot_region *regions; /* cell_count + 3 */
    uint32_t region_count, pool_region, parked_region, tail_region;
    uint32_t *region_of_cell; /* the region of each chunk's instances (pool_region if pooled) */
    crowd_mover *movers;
    uint32_t mover_count, mover_capacity;
    bool movers_overflow;              /* more movers than mover_capacity: lay out afresh instead */
    uint32_t layouts, grows, regroups; /* full re-layouts, regions grown, chunks changing group so
                                          far (tests, benchmarks) */
    bool dirty_unbinned;               /* a setter marked a slot after binning: scan every region */

    /* Output. */
    crowd_draw *draws;
    uint32_t draw_capacity;
    crowd_range *uploads;
    uint32_t upload_capacity;
    crowd_frame frame;

    double time;
    float bin_time; /* the shader time the chunk bounds were taken at (the last binning) */
    uint32_t fades_active;

    /* Threads (crowd_desc.threads): the pool, and per-task scratch for split walks. */
    struct crowd_pool *pool;
    crowd_task *tasks;
    uint32_t task_count;
    crowd_cell *task_cells;        /* task_count * cell_count, reset between uses */
    uint32_t *task_touched;        /* task_count * cell_count */
    uint8_t *task_region_dirty;    /* task_count * region_count, zero between uses */
    crowd_mover *task_movers;      /* task_count * task_mover_capacity */
    crowd_sleepers *task_sleepers; /* task_count * cell_count (the sim's), empty between uses */
    uint32_t *task_sleep_touched;  /* task_count * cell_count */
    uint32_t task_mover_capacity;
    float eye[3]; /* the last update's camera (the simulation's level of detail) */
    bool has_eye;
};

/* Binning slots into chunks (crowd_bin.c): one pass over every live slot that also folds finished
 * cross-fades into clip A (LODs past cross_fade_max_lod draw clip A only: without folding, a
 * walker that faded to idle long ago would walk again when its chunk dropped to a far LOD).
 * crowd_update bins unless the simulation already did it in its own pass over the slots.
 *
 * With a valid region layout the pass walks regions (crowd_bin_region) and lists movers: slots
 * whose chunk belongs to another region. Without one it walks every slot and records each slot's
 * chunk in cell_of_slot. */
/* A run of slots in one chunk: stats accumulate here and reach the chunk once per run. Hot loops
 * keep it in a local variable whose address is never taken (crowd_bin_close gets a copy's) so it
 * stays in registers: in memory, every store to a record or a flag byte would force it back. */
typedef struct crowd_run {
    uint32_t id, n;
    float lo_x, lo_y, lo_z, hi_x, hi_y, hi_z, scale, speed; /* named, not arrays: kept in registers */
    bool dirty;
    bool moves; /* the chunk belongs to another region than the walk's */
} crowd_run;

/* For the few per-agent helpers whose inlining decides the simulation's speed (compilers
 * otherwise weigh their size against the loop's and go either way from one edit to the next). */
#if defined(__GNUC__) || defined(__clang__)
#define CROWD_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define CROWD_ALWAYS_INLINE inline
#endif

/* Asks for memory that a pass will read soon. */
static inline void crowd_prefetch(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

/* Position -> chunk (a copy in a local keeps it in registers in hot loops). */
typedef struct crowd_grid_map {
    float origin, inv_cell;
    int last;
} crowd_grid_map;

typedef struct crowd_binner {
    crowd *c;
    crowd_grid_map grid;
    uint32_t region; /* the region being walked, or CROWD_NO_REGION */
    uint32_t fades;
    float time;    /* shader time the positions are taken at (crowd_bin_begin's) */
    crowd_run run; /* the run of crowd_bin_add */
    /* Where stats and movers go: the crowd's own (crowd_bin_begin), or a task's scratch
     * (crowd_tasks.c: a walk split over the pool, merged in task order afterwards). */
    crowd_cell *cells;
    uint32_t *touched; /* a task's: the chunks it has stats for (NULL for the crowd's binner) */
    uint32_t touched_count;
    uint8_t *region_dirty; /* a task's: per region; NULL: the regions' own flags */
    crowd_mover *movers;
    uint32_t mover_count, mover_capacity;
    bool movers_overflow;
    crowd_sleepers *sleepers; /* per chunk: changes to its sleepers (the sim's walk; NULL otherwise) */
    uint32_t *sleep_touched;  /* a task's: the chunks whose sleepers it changed */
    uint32_t sleep_touched_count;
} crowd_binner;

/* `time`: the shader time the binned positions are taken at (the frame's). */
void crowd_bin_begin(crowd *c, crowd_binner *b, float time);
void crowd_bin_region(crowd_binner *b, uint32_t region);
void crowd_bin_close(crowd_binner *b, const crowd_run *run);
void crowd_bin_mover(crowd_binner *b, uint32_t s, uint32_t id);
void crowd_bin_end(crowd_binner *b);
void crowd_fold_fade(crowd_record *r);

static inline crowd_grid_map crowd_grid_of(const crowd *c)
{
    return (crowd_grid_map){c->world_min, 1.0f / c->cell_size, (int)c->grid_dim - 1};
}

/* A grid coordinate clamped to [0, last] as a float before the conversion: converting a far-off
 * coordinate (1e12) to int would be undefined. Written as compares, not fminf/fmaxf, which (NaN
 * rules) compile to calls; these compile to maxss/minss. NaN lands on 0. */
static inline int crowd_clamp_cell(float t, float last)
{
    t = t > 0.0f ? t : 0.0f;
    t = t < last ? t : last;
    return (int)t;
}

/* The chunk under a position; instances outside the world join the border chunks. */
static inline uint32_t crowd_chunk_at(const crowd_grid_map *g, const float *p)
{
    float last = (float)g->last;
    uint32_t x = (uint32_t)crowd_clamp_cell((p[0] - g->origin) * g->inv_cell, last);
    uint32_t z = (uint32_t)crowd_clamp_cell((p[2] - g->origin) * g->inv_cell, last);
    return z * (uint32_t)(g->last + 1) + x;
}

/* Folds a finished fade into clip A; counts running ones. */
static inline void crowd_bin_fade(crowd_binner *b, crowd_record *r, uint32_t s)
{
    if (r->fade_rate > 0.0f) {
        if ((float)b->c->time - r->fade_start >= 1.0f / r->fade_rate) {
            crowd_fold_fade(r);
            b->c->dirty[s] = 1;
        } else {
            b->fades++;
        }
    }
}

/* A run starting at record r, now at p (crowd_rec_position at the binner's time), in chunk id. */
static inline crowd_run crowd_run_open(const crowd_binner *b, uint32_t id, const crowd_record *r, const float *p)
{
    crowd_run opened = {id, 0, p[0], p[1], p[2], p[0], p[1], p[2], r->scale, 0.0f, false, false};
    opened.moves = b->region != CROWD_NO_REGION && b->c->region_of_cell[id] != b->region;
    return opened;
}

/* The same, given the record's crowd_rec_speed_bound (a walk that decoded its velocity already). */
static inline void crowd_run_add_at(crowd_run *run, const crowd_record *r, const float *p, bool dirty, float speed)
{
    run->n++;
    run->speed = speed > run->speed ? speed : run->speed;
    run->lo_x = p[0] < run->lo_x ? p[0] : run->lo_x;
    run->lo_y = p[1] < run->lo_y ? p[1] : run->lo_y;
    run->lo_z = p[2] < run->lo_z ? p[2] : run->lo_z;
    run->hi_x = p[0] > run->hi_x ? p[0] : run->hi_x;
    run->hi_y = p[1] > run->hi_y ? p[1] : run->hi_y;
    run->hi_z = p[2] > run->hi_z ? p[2] : run->hi_z;
    run->scale = r->scale > run->scale ? r->scale : run->scale;
    run->dirty |= dirty;
}

static inline void crowd_run_add(crowd_run *run, const crowd_record *r, const float *p, bool dirty)
{
    crowd_run_add_at(run, r, p, dirty, crowd_rec_moves(r) ? crowd_rec_speed_bound(r) : 0.0f);
}

/* Adds live slot s, whose record r is at p in chunk id, to its chunk's stats. Records are mostly
 * in chunk order, so runs are long. */
static inline void crowd_bin_add(crowd_binner *b, uint32_t s, const crowd_record *r, const float *p, uint32_t id)
{
    if (id != b->run.id) {
        crowd_bin_close(b, &b->run);
        b->run = crowd_run_open(b, id, r, p);
    }
    crowd_run_add(&b->run, r, p, b->c->dirty[s] != 0);
    if (b->run.moves)
        crowd_bin_mover(b, s, id);
}

/* Slot mode (no valid layout): any slot, live or parked; records its chunk. */
static inline void crowd_bin_slot(crowd_binner *b, uint32_t s)
{
    crowd *c = b->c;
    uint32_t id = CROWD_PARKED_CELL;
    if (c->index_of_slot[s] < c->count) {
        crowd_record *r = &c->records[s];
        crowd_bin_fade(b, r, s);
        float p[3];
        crowd_rec_position(r, b->time, p);
        id = crowd_chunk_at(&b->grid, p);
        crowd_bin_add(b, s, r, p, id);
    }
    c->cell_of_slot[s] = id;
}

/* crowd_tasks.c: a walk over the live regions (the distance policy's layout) split into tasks
 * run on the crowd's pool. Task t walks a contiguous stretch of live slots (a region may be split
 * between tasks) with a binner of its own; afterwards the tasks' chunk stats, movers, fades and
 * region flags are merged into `main` in task order, which gives exactly what one binner walking
 * every region in order gives (stats are sums, minima and maxima; movers are listed in slot
 * order). The split depends only on the slot counts and the crowd's task count, so a walk is
 * deterministic for a given thread count. */
struct crowd_task {
    crowd_binner bin;
    uint32_t index;        /* task number, 0 .. tasks - 1 */
    uint32_t live_before;  /* live slots walked by the tasks before this one */
    uint32_t live_count;   /* live slots this task walks */
    uint32_t region, skip; /* the walk's cursor: region, and its slots already walked */
    uint32_t first_region;
    uint64_t out[3]; /* the caller's results, summed by it after the walk */
};
typedef void (*crowd_task_fn)(void *context, crowd_task *task);
/* Whether crowd_run_tasks would split the walk (a pool of more than one thread, a valid layout,
 * a grid small enough for per-task chunk tables, enough live slots to be worth it). */
bool crowd_tasks_enabled(const crowd *c);
/* Runs fn once per task (with bin ready: call crowd_task_span to walk), merges into main (which
 * crowd_bin_begin set up) and returns the tasks (valid until the next crowd_run_tasks) and their
 * count in *count. */
crowd_task *crowd_run_tasks(crowd *c, crowd_binner *main, crowd_task_fn fn, void *context, uint32_t *count);
/* The task's next stretch: region and slots [*first, *end), all live; crowd_bin_region has been
 * called for it. False when the task is done. */
bool crowd_task_span(crowd_task *task, uint32_t *first, uint32_t *end);
/* Scratch for the tasks, made by crowd_create when threads > 1 (false: out of memory). */
bool crowd_tasks_create(crowd *c);
/* Empty, and merged: counts add, bounds and maxima widen (order-independent, so any split gives
 * the same). */
static inline void crowd_sleepers_clear(crowd_sleepers *z)
{
    *z = (crowd_sleepers){
        0, 0, {INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0.0f, 0.0f, -INFINITY, false};
}
/* The binner's changes to chunk `cell`'s sleepers (listed for the merge when a task's). */
static inline crowd_sleepers *crowd_bin_sleepers(crowd_binner *b, uint32_t cell)
{
    crowd_sleepers *z = &b->sleepers[cell];
    if (b->sleep_touched && !z->listed) {
        z->listed = true;
        b->sleep_touched[b->sleep_touched_count++] = cell;
    }
    return z;
}
static inline void crowd_sleepers_merge(crowd_sleepers *to, const crowd_sleepers *from)
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
void crowd_tasks_destroy(crowd *c);

/* crowd_layout.c: the region layout. */
void crowd_layout_regions(crowd *c);                        /* full re-layout (counting sort), slack re-spread */
bool crowd_regroup_chunks(crowd *c);                        /* chunks joining or leaving the pool -> movers */
bool crowd_apply_movers(crowd *c);                          /* false: too many, lay out afresh */
void crowd_park_slot(crowd *c, uint32_t slot);              /* a live region's slot -> the parked region */
void crowd_compact_slots(crowd *c);                         /* drops holes, order kept; the layout is lost */
void crowd_move_slot(crowd *c, uint32_t from, uint32_t to); /* all per-slot state; `from` is left as is */

/* crowd_lod.c */
typedef struct crowd_camera {
    float planes[6][4];
    float position[3];
    float projection_scale; /* projection[5]: 1 / tan(fovy / 2) */
    bool perspective;
} crowd_camera;
void crowd_camera_from_view(const crowd_view *view, crowd_camera *camera);
bool crowd_sphere_visible(const crowd_camera *camera, const float centre[3], float radius);
void crowd_classify_cells(crowd *c, const crowd_camera *camera);
uint32_t crowd_assign_coverage_lods(crowd *c, const crowd_camera *camera);
float crowd_instance_radius(const crowd *c, float scale);
/* The sphere an instance is culled by (per instance, both render paths, camera and light): its
 * clip's yaw-invariant bound (crowd_clip.cull_center_y, cull_radius; the asset sphere for files
 * without per-clip bounds) at the record's position at the frame's time, scaled; while clip B
 * differs from clip A, the smallest sphere holding both clips' (a fade blends the two poses, and a
 * blend of two points lies in the hull of their spheres). Level of detail keeps the asset sphere
 * (crowd_instance_radius): a level must not change with the clip. cull.comp does the same sums.
 * The radius then grows by crowd_set_cull_margin's margin x scale (what the caller draws on the
 * instance past its body: attachments); the renderer's GPU path grows its own per-clip spheres. */
void crowd_cull_sphere(const crowd *c, const crowd_record *r, float centre[3], float *radius);
/* Whether every instance within `distance` metres of ground of the eye's nearest point (a chunk's
 * square's, less a margin for bodies and movers) draws past cross_fade_max_lod on either render
 * path: the distance policy's level of that distance shrunk by the hysteresis and by a band up to
 * CROWD_CUT_BAND (the GPU path's default band, 0.15, and beyond), where a cross-fade cannot show
 * (those levels draw clip A only). The simulation then cuts between far agents' gaits (sim.c). */
#define CROWD_CUT_BAND 0.5f
bool crowd_fades_unseen(const crowd *c, float distance);

/* crowd.c: the simulation's per-slot arrays (each slot_capacity long, zeroed): the crowd moves
 * them with the records from now on, and frees them at destroy unless detached first. Detaching
 * hands them back (the caller frees them). */
void crowd_attach_sim_state(crowd *c, crowd_agent *agents, crowd_agent *agents_back, crowd_drift *drift,
                            crowd_drift *drift_back);
void crowd_detach_sim_state(crowd *c);

/* crowd.c: slot-level versions of the setters, for the simulation (which walks slots). */
/* A turning record goes straight on from the crowd's time (crowd_rec_anchor), before a setter
 * writes clip B's words or the yaw; the simulation's agent, if any, steers on from its velocity
 * then. No-op for a straight record. */
void crowd_unturn_slot(crowd *c, uint32_t slot);
uint32_t crowd_slot_of(crowd *c, uint32_t index); /* rebuilds the index map when stale */
void crowd_rebuild_index_map(crowd *c);

/* After a re-layout into the *_back arrays: the back arrays become the live ones (and the live ones
 * the next scratch). cell_of_slot too when `cells` (the layout pass keeps it in place). */
#define CROWD_SWAP_POINTERS(a, b) \
    do {                          \
        void *t_ = (void *)(a);   \
        (a) = (b);                \
        (b) = t_;                 \
    } while (0)
static inline void crowd_flip_slot_arrays(crowd *c, bool cells)
{
    CROWD_SWAP_POINTERS(c->records, c->records_back);
    CROWD_SWAP_POINTERS(c->agents, c->agents_back); /* NULL with NULL without a sim */
    CROWD_SWAP_POINTERS(c->drift, c->drift_back);
    CROWD_SWAP_POINTERS(c->index_of_slot, c->index_back);
    CROWD_SWAP_POINTERS(c->dirty, c->dirty_back);
    CROWD_SWAP_POINTERS(c->lod_of_slot, c->lod_back);
    if (cells)
        CROWD_SWAP_POINTERS(c->cell_of_slot, c->cell_back);
}

/* Sorts n items of `size` bytes (at most CROWD_SORT_MAX_ITEM: callers assert it) in place, with
 * no allocation (crowd_sort.c). Not stable: comparators must give a total order. */
#define CROWD_SORT_MAX_ITEM 32
typedef int (*crowd_compare_fn)(const void *a, const void *b);
void crowd_sort(void *base, size_t n, size_t size, crowd_compare_fn compare);
/* `once`: play once and hold (crowd_play_once); otherwise loop (crowd_play). */
void crowd_play_slot(crowd *c, uint32_t slot, uint32_t clip, float rate, float fade_seconds, bool once);
void crowd_set_rate_slot(crowd *c, uint32_t slot, float rate);
/* Cycles per second for `speed` m/s on an instance of `scale`; the authored rate without a stride
 * or with stride matching off. */
float crowd_stride_rate(const crowd *c, uint32_t clip, float speed, float scale);

/* Indices and triangles one instance submits at `level` (the imposter level: one card). */
static inline uint32_t crowd_level_indices(const crowd *c, uint32_t level)
{
    return level == c->imposter_level ? 6u : c->asset->lods[level].index_count;
}
static inline uint32_t crowd_level_triangles(const crowd *c, uint32_t level)
{
    return level == c->imposter_level ? 2u : c->asset->lods[level].triangle_count;
}

#endif
