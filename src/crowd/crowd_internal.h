/* Internal: the crowd's state, shared by the runtime's source files (crowd.c the API and setters,
 * crowd_update.c update, draws and uploads, crowd_layout.c the region layout, crowd_bin.c binning,
 * crowd_lod.c culling and LOD, crowd_tasks.c split walks, crowd_client.c the client door,
 * crowd_changes.c change tracking, crowd_raycast.c hit tests). A client (the simulation) sees none
 * of it: it goes through crowd_client.h. */
#ifndef CROWD_CROWD_INTERNAL_H
#define CROWD_CROWD_INTERNAL_H

#include <math.h>
#include <string.h>

#include "crowd/crowd_client.h"
#include "crowdbake/crowd.h"

#define CROWD_HOLE UINT32_MAX /* index_of_slot of a slot no instance owns (region slack) */

/* ---- change tracking (crowd_changes.c) -----------------------------------------------------------
 *
 * Every call that changes instances, slots or settings names what it did, once; the table in
 * crowd_changes.c says which derived state that makes stale. The derived state's owners clear their
 * own bit when they have rebuilt it. */
typedef enum crowd_change {
    CROWD_CHANGED_LOOKS,     /* a setter wrote a record where it stands: clip, phase, rate, looks */
    CROWD_CHANGED_PLACE,     /* a setter moved an instance or changed its bounds: position, velocity, scale */
    CROWD_CHANGED_COUNT,     /* instances created, revived or parked */
    CROWD_CHANGED_REMOVED,   /* one instance parked, the last live one took its index */
    CROWD_CHANGED_SETTINGS,  /* crowd_configure within the same LOD policy */
    CROWD_CHANGED_POLICY,    /* crowd_configure to the other LOD policy */
    CROWD_CHANGED_TIME,      /* the shader time was rebased: every record's times moved */
    CROWD_CHANGED_ORDER,     /* slots re-laid out or sorted: records in new slots */
    CROWD_CHANGED_COMPACTED, /* holes dropped: the region layout is gone */
    CROWD_CHANGED_RATE_KEPT, /* crowd_set_speed left the rate as it was */
    CROWD_CHANGE_KINDS
} crowd_change;

/* What a change can make stale (bits of crowd.stale). */
enum {
    CROWD_STALE_BINNING = 1u << 0,     /* a walk's binning of this frame no longer holds */
    CROWD_STALE_GRID = 1u << 1,        /* the settled grid may not be reused */
    CROWD_STALE_LAYOUT = 1u << 2,      /* the region layout must be made afresh */
    CROWD_STALE_UPLOAD_SCAN = 1u << 3, /* a slot was marked outside a walk: the upload scan reads every region */
    CROWD_STALE_INDEX_MAP = 1u << 4,   /* slot_of_index must be rebuilt */
    CROWD_STALE_CLIENT = 1u << 5,      /* the client's derived state (crowd_client_changes grows) */
};

typedef struct crowd crowd;
void crowd_note(crowd *c, crowd_change change);
/* What each change makes stale (the table; for tests). */
uint32_t crowd_change_effects(crowd_change change);

/* Work the update did so far (tests and benchmarks read them through crowd_testing.h). */
typedef struct crowd_work {
    uint32_t layouts, grows, regroups;       /* full re-layouts, regions grown, chunks changing group */
    uint32_t bins_reused;                    /* updates that reused a settled grid */
    uint32_t coverage_moves, coverage_sorts; /* coverage updates that moved a few slots / sorted all */
} crowd_work;

/* The attached client's per-slot arrays (crowd_client.h). */
typedef struct crowd_client_state {
    crowd_client client;
    bool attached;
    uint64_t changes;
} crowd_client_state;

/* A one-shot followed for its finish: the instance and the clip its crowd_play_once started. */
typedef struct crowd_one_shot {
    uint32_t index, clip;
} crowd_one_shot;

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
    bool gpu_driven;   /* the view's culling: a GPU pass culls; no per-instance levels, no draw list */
    float cull_margin; /* the view's: metres per unit scale added to every culling sphere */
    uint32_t stale;    /* CROWD_STALE_* */

    /* Slot-ordered arrays, double-buffered: the back buffers receive full re-layouts and serve as
     * scratch for movers. The client's arrays move with them (crowd_client_state). */
    crowd_record *records, *records_back;
    crowd_client_state client;
    uint32_t *index_of_slot, *index_back; /* CROWD_HOLE for slack */
    uint8_t *dirty, *dirty_back;          /* record changed since the last update (only ever set on live or
                                          parked slots, never on holes) */
    uint8_t *lod_of_slot, *lod_back;      /* coverage policy: the level chosen last time (hysteresis) */
    uint32_t *slot_of_index;              /* per index; after a sort or re-layout (CROWD_STALE_INDEX_MAP)
                                          rebuilt before crowd_update returns, so readers never do */
    uint32_t *cell_of_slot, *cell_back;   /* coverage policy (and any update without a valid region
                                          layout): the chunk (or CROWD_PARKED_CELL) of each slot */
    uint32_t *rank_of_slot;               /* scratch: sort rank this update (coverage policy), or the
                                          destination of each slot in a re-layout */
    float *coverage_of_slot;              /* scratch: projected coverage */
    crowd_work work;
    const struct crowd_test_hooks *test_hooks; /* crowd_testing.h; NULL outside the tests */

    /* Grid. */
    uint32_t grid_dim; /* cells per side */
    float cell_size, world_min;
    uint32_t cell_count;
    crowd_cell *cells;
    uint32_t rank_count;
    uint32_t *rank_start;  /* rank_count + 1: first slot of each rank after the sort */
    uint32_t *rank_cursor; /* scratch for the scatter */

    /* Region layout (distance policy; crowd_layout.c). Regions lie in memory in the order of the
     * regions array and tile [0, slot_capacity) without gaps. */
    crowd_slot_region *regions; /* cell_count + 3 */
    uint32_t region_count, pool_region, parked_region, tail_region;
    uint32_t *region_of_cell; /* the region of each chunk's instances (pool_region if pooled) */
    crowd_mover *movers;
    uint32_t mover_count, mover_capacity;
    bool movers_overflow; /* more movers than mover_capacity: lay out afresh instead */

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
    crowd_cell *task_cells;     /* task_count * cell_count, reset between uses */
    uint32_t *task_touched;     /* task_count * cell_count */
    uint8_t *task_region_dirty; /* task_count * region_count, zero between uses */
    crowd_mover *task_movers;   /* task_count * task_mover_capacity */
    uint32_t task_mover_capacity;
    float eye[3]; /* the last update's camera (a client's level of detail) */
    bool has_eye;

    /* Events (crowd_events.c): the frame's buffer, the one-shots followed for their finish (a list,
     * so an update costs O(one-shots), nothing while none plays) and each clip's markers. */
    crowd_event *events;
    uint32_t event_capacity;
    crowd_one_shot *one_shots;
    uint32_t one_shot_count;
    uint32_t *one_shot_of_index; /* per index: its entry in one_shots, or CROWD_HOLE */
    uint32_t *marker_start;      /* clip_count + 1: clip k's markers are [start[k], start[k + 1]) */
};

static inline bool crowd_is_stale(const crowd *c, uint32_t what)
{
    return (c->stale & what) != 0;
}
static inline void crowd_refreshed(crowd *c, uint32_t what)
{
    c->stale &= ~what;
}

/* Whether the slots are in region order (the distance policy's layout). */
static inline bool crowd_has_regions(const crowd *c)
{
    return !crowd_is_stale(c, CROWD_STALE_LAYOUT) && c->desc.lod_policy == CROWD_LOD_DISTANCE;
}

static inline crowd_grid_map crowd_grid_of(const crowd *c)
{
    return (crowd_grid_map){c->world_min, 1.0f / c->cell_size, (int)c->grid_dim - 1};
}

/* crowd_tasks.c: scratch for the tasks, made by crowd_create when threads > 1 (false: out of
 * memory), and freed by crowd_destroy. */
bool crowd_tasks_create(crowd *c);
void crowd_tasks_destroy(crowd *c);

/* crowd_layout.c: the region layout. */
void crowd_layout_regions(crowd *c);                        /* full re-layout (counting sort), slack re-spread */
bool crowd_regroup_chunks(crowd *c);                        /* chunks joining or leaving the pool -> movers */
bool crowd_apply_movers(crowd *c);                          /* false: too many, lay out afresh */
void crowd_park_slot(crowd *c, uint32_t slot);              /* a live region's slot -> the parked region */
void crowd_compact_slots(crowd *c);                         /* drops holes, order kept; the layout is lost */
void crowd_move_slot(crowd *c, uint32_t from, uint32_t to); /* all per-slot state; `from` is left as is */

/* crowd_client.c: the client's arrays follow the records. */
void crowd_client_copy(crowd *c, uint32_t to, uint32_t from); /* live[to] = live[from] */
void crowd_client_save(crowd *c, uint32_t k, uint32_t from);  /* back[k] = live[from] */
void crowd_client_restore(crowd *c, uint32_t to, uint32_t k); /* live[to] = back[k] */
void crowd_client_swap(crowd *c, uint32_t a, uint32_t b);     /* live[a] <-> live[b] */
void crowd_client_zero(crowd *c, uint32_t slot);              /* a new instance's */
/* Every slot s of [0, n) with dest[s] != UINT32_MAX: back[dest[s]] = live[s]; then live and back
 * swap (a re-layout or sort into the back buffers). */
void crowd_client_scatter(crowd *c, const uint32_t *dest, uint32_t n);

/* crowd_events.c: the event tables (crowd_create; false: out of memory), what the setters tell
 * them, and the update's pass over the step from t0 to t1 (before the time's rebase). */
bool crowd_events_create(crowd *c);
void crowd_events_destroy(crowd *c);
void crowd_events_one_shot(crowd *c, uint32_t index, uint32_t clip); /* crowd_play_once */
void crowd_events_forget(crowd *c, uint32_t index);                  /* parked: no events */
void crowd_events_moved(crowd *c, uint32_t from, uint32_t to);       /* index from is now index to */
void crowd_events_collect(crowd *c, double t0, double t1);
void crowd_events_shift(crowd *c, double by); /* this frame's event times, after a rebase */

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
/* The sphere an instance is culled by (per instance, both render paths, camera and light): its
 * clip's yaw-invariant bound (crowd_clip.cull_center_y, cull_radius; the asset sphere for files
 * without per-clip bounds) at the record's position at the frame's time, scaled; while clip B
 * differs from clip A, the smallest sphere holding both clips' (a fade blends the two poses, and a
 * blend of two points lies in the hull of their spheres). Level of detail keeps the asset sphere
 * (crowd_instance_radius): a level must not change with the clip. cull.comp does the same sums.
 * The radius then grows by the view's cull margin x scale (what the caller draws on the instance
 * past its body: attachments); the renderer's GPU path grows its own per-clip spheres. */
void crowd_cull_sphere(const crowd *c, const crowd_record *r, float centre[3], float *radius);

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
