/* Internal: the runtime's one door for a client that keeps state per instance beside the records
 * and steps them in memory order (the simulation, src/sim). Everything such a client may read or
 * call is here; struct crowd stays closed to it.
 *
 * A client registers per-slot arrays (crowd_client_attach) that the crowd moves with the records
 * wherever a record moves (an instance changing chunk, a re-layout, a sort, compaction), so each
 * array stays in slot order; the client owns and frees them. It walks the slots through the region
 * walk (crowd_binner, crowd_run_tasks), writing records in place and marking them dirty, and bins
 * them as it goes, so the next crowd_update need not. What it does not visit it declares per chunk
 * (crowd_chunk_hold). crowd_client_changes tells it when anything changed slots or records behind
 * its back, so state it derived from them (sleep times) must be dropped. */
#ifndef CROWD_CROWD_CLIENT_H
#define CROWD_CROWD_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hot.h"
#include "crowd/record.h"
#include "crowdbake/crowd.h"

struct crowd_pool;

/* ---- attaching ---------------------------------------------------------------------------------- */

/* One per-slot array of the client: *live and *back point at two arrays of crowd_record_capacity()
 * elements of `size` bytes (up to 64). The crowd copies an element wherever it moves a record, uses
 * *back as scratch, and swaps the two pointers after a re-layout into *back. New instances' elements
 * are zeroed. */
typedef struct crowd_slot_state {
    void **live, **back;
    uint32_t size;
} crowd_slot_state;

#define CROWD_CLIENT_MAX_STATES 4u

typedef struct crowd_client {
    crowd_slot_state states[CROWD_CLIENT_MAX_STATES];
    uint32_t state_count;
    void *user;
    /* A call of the crowd's (a setter, or crowd_play_slot) straightened slot's turning record at the
     * crowd's time: it walks on at `velocity` (the turn's then, before rounding to the record). */
    void (*unturned)(void *user, uint32_t slot, const float velocity[2]);
} crowd_client;

/* False when a client is attached already (one per crowd) or the desc is out of range. */
bool crowd_client_attach(crowd *c, const crowd_client *client);
/* The crowd forgets the arrays (the client frees them). */
void crowd_client_detach(crowd *c);
bool crowd_client_attached(const crowd *c);

/* Grows whenever slots moved or records changed other than through the client's own writes and the
 * slot-level calls below: setters, count changes, removals, re-layouts and sorts, the time's rebase,
 * crowd_configure. The arrays moved along; anything the client derived from records or slots is
 * stale. */
uint64_t crowd_client_changes(const crowd *c);

/* ---- reading the crowd -------------------------------------------------------------------------- */

/* The slot arrays. Valid until crowd_update, crowd_set_count or crowd_remove (which may move them). */
typedef struct crowd_slots {
    crowd_record *records;
    uint8_t *dirty;           /* set a slot's byte to 1 when its record is written */
    const uint32_t *instance; /* the instance index of each slot; >= count for parked, UINT32_MAX for holes */
    uint32_t used;            /* slots in use, holes included */
    uint32_t count;           /* live instances */
    uint32_t capacity;        /* crowd_record_capacity */
} crowd_slots;
crowd_slots crowd_client_slots(crowd *c);

/* Position -> chunk (a copy in a local keeps it in registers in hot loops). */
typedef struct crowd_grid_map {
    float origin, inv_cell;
    int last;
} crowd_grid_map;

typedef struct crowd_grid {
    crowd_grid_map map;
    uint32_t dim, chunks; /* chunks per side, in all */
    float origin, chunk;  /* the world's low corner (x and z), a chunk's side, metres */
} crowd_grid;
crowd_grid crowd_client_grid(const crowd *c);

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

/* Per chunk, from the last binning (and classification, for `visible`, `lod` and `pooled`). */
typedef struct crowd_cell {
    uint32_t count;
    float min[3], max[3]; /* instance positions */
    float max_scale;
    float max_speed; /* |vx| + |vz| bound of its instances: bounds taken at the binning's time grow by
                        max_speed x |time - then| */
    uint32_t lod;
    bool visible;
    bool pooled;
    bool band; /* distance policy: inside the imposter hand-off band (drawn by both, CROWD_DRAW_BAND) */
} crowd_cell;
const crowd_cell *crowd_client_chunks(const crowd *c);

/* Distance policy: the slot array cut into regions, one per chunk (region i is chunk i's; empty
 * while the chunk is in the far pool), one for the far pool, then parked instances and a free tail.
 * A region's live records are packed at its start; the rest is slack. */
typedef struct crowd_slot_region {
    uint32_t start, count, capacity;
    bool dirty; /* a live slot was written or moved since the last update's uploads */
} crowd_slot_region;

typedef struct crowd_regions {
    const crowd_slot_region *region; /* NULL: slots in no region order (the coverage policy, or
                                        before the first update lays them out) */
    uint32_t live;                   /* regions [0, live) hold every live instance */
    uint32_t pool;                   /* the far pool's region */
    const uint32_t *of_chunk;        /* each chunk's region (`pool` when pooled) */
} crowd_regions;
crowd_regions crowd_client_regions(const crowd *c);

double crowd_client_time(const crowd *c);            /* crowd_time, unrounded */
bool crowd_client_eye(const crowd *c, float eye[3]); /* the last update's camera; false before one */
bool crowd_client_stride_matching(const crowd *c);
struct crowd_pool *crowd_client_pool(const crowd *c); /* the crowd's worker threads */
uint32_t crowd_client_task_count(const crowd *c);     /* tasks a split walk may have, at most */

/* The radius level of detail uses for an instance of `scale` (the asset's sphere). */
float crowd_instance_radius(const crowd *c, float scale);
/* Whether every instance within `distance` metres of ground of the eye draws past the crowd's
 * cross_fade_max_lod on either render path (hysteresis and a GPU band up to CROWD_CUT_BAND
 * included): a cross-fade could not show there. */
#define CROWD_CUT_BAND 0.5f
bool crowd_fades_unseen(const crowd *c, float distance);

/* ---- slot-level writes -------------------------------------------------------------------------- */

uint32_t crowd_slot_of(crowd *c, uint32_t index);
/* crowd_play / crowd_play_once (`once`) on a slot, unchecked; marks it dirty, not a change. */
void crowd_play_slot(crowd *c, uint32_t slot, uint32_t clip, float rate, float fade_seconds, bool once);
/* Holds `clip` still at `phase` (rate 0, looping), fading from what shows (which may be the same
 * clip at another phase) over fade_seconds, or a cut at 0; marks it dirty. */
void crowd_pose_slot(crowd *c, uint32_t slot, uint32_t clip, float phase, float fade_seconds);
/* The showing clip's rate, phase-continuously; marks it dirty where it changes. */
void crowd_set_rate_slot(crowd *c, uint32_t slot, float rate);
/* A turning record goes straight on from the crowd's time (crowd_rec_anchor) and the client hears
 * of it (crowd_client.unturned). No-op for a straight record. */
void crowd_unturn_slot(crowd *c, uint32_t slot);
/* Cycles per second for `speed` m/s on an instance of `scale`; the authored rate without a stride
 * or with stride matching off. */
float crowd_stride_rate(const crowd *c, uint32_t clip, float speed, float scale);

/* ---- the region walk: binning as the client goes ------------------------------------------------
 *
 * A walk bins every live slot into the chunk grid (counts, bounds, scales, speeds), folds finished
 * cross-fades into clip A (levels past cross_fade_max_lod draw clip A only), and lists movers: slots
 * whose chunk belongs to another region than the one walked. crowd_bin_begin, then per region
 * crowd_bin_region and crowd_bin_add for each of its slots (or crowd_run_tasks over the pool), then
 * crowd_bin_end: the next crowd_update uses the walk instead of binning itself. Without regions the
 * walk visits every slot (crowd_bin_slot for parked ones, crowd_bin_add_slot for live ones). */

#define CROWD_PARKED_CELL UINT32_MAX
#define CROWD_NO_REGION UINT32_MAX

/* A run of slots in one chunk: stats accumulate here and reach the chunk once per run. Hot loops
 * keep it in a local variable whose address is never taken (crowd_bin_close gets a copy's) so it
 * stays in registers: in memory, every store to a record or a flag byte would force it back. */
typedef struct crowd_run {
    uint32_t id, n;
    float lo_x, lo_y, lo_z, hi_x, hi_y, hi_z, scale, speed; /* named, not arrays: kept in registers */
    bool dirty;
    bool moves; /* the chunk belongs to another region than the walk's */
} crowd_run;

/* An instance whose chunk now belongs to another region (found by binning, moved by the update). */
typedef struct crowd_mover {
    uint32_t slot, cell, from; /* cell: the new chunk, or CROWD_PARKED_CELL; from: its region now */
} crowd_mover;

typedef struct crowd_binner {
    crowd *c; /* for the out-of-line calls only: the inline ones read the fields below */
    crowd_grid_map grid;
    uint32_t region; /* the region being walked, or CROWD_NO_REGION */
    uint32_t fades;
    float time;                     /* shader time the positions are taken at (crowd_bin_begin's) */
    double now;                     /* the crowd's time (a fade that has run folds) */
    uint8_t *dirty;                 /* the slots' dirty bytes */
    const uint32_t *region_of_cell; /* each chunk's region */
    uint32_t *chunk_of_slot;        /* without regions: each slot's chunk */
    crowd_run run;                  /* the run of crowd_bin_add */
    /* Where stats and movers go: the crowd's own (crowd_bin_begin), or a task's scratch (a walk split
     * over the pool, merged in task order afterwards). */
    crowd_cell *cells;
    uint32_t *touched; /* a task's: the chunks it has stats for (NULL for the crowd's binner) */
    uint32_t touched_count;
    uint8_t *region_dirty; /* a task's: per region; NULL: the regions' own flags */
    crowd_mover *movers;
    uint32_t mover_count, mover_capacity;
    bool movers_overflow;
} crowd_binner;

/* `time`: the shader time the binned positions are taken at (the frame's). */
void crowd_bin_begin(crowd *c, crowd_binner *b, float time);
void crowd_bin_region(crowd_binner *b, uint32_t region);
void crowd_bin_close(crowd_binner *b, const crowd_run *run);
void crowd_bin_mover(crowd_binner *b, uint32_t s, uint32_t id);
void crowd_bin_slot(crowd_binner *b, uint32_t s); /* without regions: any slot, live or parked */
void crowd_bin_end(crowd_binner *b);

/* Folds a finished fade into clip A; counts running ones. */
static inline void crowd_bin_fade(crowd_binner *b, crowd_record *r, uint32_t s)
{
    if (r->fade_rate > 0.0f) {
        if ((float)b->now - r->fade_start >= 1.0f / r->fade_rate) {
            crowd_rec_fold_fade(r);
            b->dirty[s] = 1;
        } else {
            b->fades++;
        }
    }
}

/* A run starting at record r, now at p (crowd_rec_position at the binner's time), in chunk id. */
static inline crowd_run crowd_run_open(const crowd_binner *b, uint32_t id, const crowd_record *r, const float *p)
{
    crowd_run opened = {id, 0, p[0], p[1], p[2], p[0], p[1], p[2], r->scale, 0.0f, false, false};
    opened.moves = b->region != CROWD_NO_REGION && b->region_of_cell[id] != b->region;
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
    crowd_run_add(&b->run, r, p, b->dirty[s] != 0);
    if (b->run.moves)
        crowd_bin_mover(b, s, id);
}

/* The same without regions, recording the slot's chunk. */
static inline void crowd_bin_add_slot(crowd_binner *b, uint32_t s, const crowd_record *r, const float *p, uint32_t id)
{
    crowd_bin_add(b, s, r, p, id);
    b->chunk_of_slot[s] = id;
}

/* Instances of `chunk` the walk did not visit (a client's, known not to have moved out of it): its
 * stats count them and hold their box, scale and speed bound. After crowd_bin_end. */
typedef struct crowd_held {
    uint32_t count;
    float lo[3], hi[3];
    float scale, speed;
} crowd_held;
void crowd_chunk_hold(crowd *c, uint32_t chunk, const crowd_held *held);

/* A walk over the live regions split into tasks run on the crowd's pool. Task t walks a contiguous
 * stretch of live slots (a region may be split between tasks) with a binner of its own; afterwards
 * the tasks' chunk stats, movers, fades and region flags are merged in task order, which gives
 * exactly what one binner walking every region in order gives. The split depends only on the slot
 * counts and the crowd's task count, so a walk is deterministic for a given thread count. */
typedef struct crowd_task {
    crowd_binner bin;
    uint32_t index;        /* task number, 0 .. tasks - 1 */
    uint32_t live_before;  /* live slots walked by the tasks before this one */
    uint32_t live_count;   /* live slots this task walks */
    uint32_t region, skip; /* the walk's cursor: region, and its slots already walked */
    uint32_t first_region;
    uint64_t out[3]; /* the caller's results, summed by it after the walk */
} crowd_task;
typedef void (*crowd_task_fn)(void *context, crowd_task *task);
/* Whether crowd_run_tasks would split the walk (a pool of more than one thread, regions, a grid
 * small enough for per-task chunk tables, enough live slots to be worth it). */
bool crowd_tasks_enabled(const crowd *c);
/* Runs fn once per task (with bin ready: call crowd_task_span to walk), merges into main (which
 * crowd_bin_begin set up) and returns the tasks (valid until the next crowd_run_tasks) and their
 * count in *count. */
crowd_task *crowd_run_tasks(crowd *c, crowd_binner *main, crowd_task_fn fn, void *context, uint32_t *count);
/* The task's next stretch: region and slots [*first, *end), all live; crowd_bin_region has been
 * called for it. False when the task is done. */
bool crowd_task_span(crowd_task *task, uint32_t *first, uint32_t *end);

#endif
