/* Internal: the crowd's state, shared by the runtime's source files (crowd.c API, crowd_update.c
 * grid/sort/draws, crowd_lod.c culling and LOD, crowd_fade.c fades, sim*.c the simulation). */
#ifndef CROWD_CROWD_INTERNAL_H
#define CROWD_CROWD_INTERNAL_H

#include "crowdbake/crowd.h"

/* Simulation state per slot, permuted with the records so the simulation walks memory in order.
 * 16 bytes: the sort moves it every frame, so every byte here costs. Random choices come from a
 * hash of the instance index and a decision counter, so no generator state is stored. */
typedef struct crowd_agent {
    float velocity[2];      /* x, z, m/s */
    int16_t direction[2];   /* desired heading, unit vector * 32767: no trigonometry per step */
    uint8_t cruise;         /* desired speed in twentieths of a m/s */
    uint8_t gait;           /* index into the sim's gait table */
    uint8_t lane;           /* parade lane */
    uint8_t timer;          /* twentieths of a second until the next wander decision */
} crowd_agent;

/* Per chunk, rebuilt every update. */
typedef struct crowd_cell {
    uint32_t count;
    float min[3], max[3];   /* instance positions */
    float max_scale;
    uint32_t lod;
    uint32_t rank;          /* sort rank (distance policy) */
    uint32_t previous_rank; /* last update's rank: unchanged ranks and chunks = no sort needed */
    bool visible;
    bool pooled;
    bool dirty;             /* a member's record changed */
} crowd_cell;

#define CROWD_PARKED_CELL UINT32_MAX

struct crowd {
    crowd_desc desc;        /* resolved */
    const crowd_asset *asset;
    uint32_t capacity, count, slots;   /* slots in use = live + parked */
    bool stride_matching;

    /* Slot-ordered arrays, double-buffered for the counting sort. */
    crowd_record *records, *records_back;
    crowd_agent *agents, *agents_back;
    uint32_t *index_of_slot, *index_back;
    uint8_t *dirty, *dirty_back;       /* record changed since the last update */
    uint8_t *lod_of_slot, *lod_back;   /* coverage policy: the level chosen last time (hysteresis) */
    uint32_t *slot_of_index;           /* per index; rebuilt on demand after a sort (index_map_stale) */
    bool index_map_stale;
    uint32_t *cell_of_slot, *cell_back; /* the chunk (or CROWD_PARKED_CELL) of each slot, kept in slot
                                          order across updates: a slot whose chunk did not change tells
                                          the next update the order may still be sorted */
    bool binned;                       /* this frame's binning is done (the simulation did it) */
    bool order_may_hold;               /* binning saw no slot change chunk */
    uint32_t *rank_of_slot;            /* scratch: sort rank this update */
    uint32_t *budget_order;            /* scratch: slots sorted for budget demotion */
    float *coverage_of_slot;           /* scratch: projected coverage */

    /* Grid. */
    uint32_t grid_dim;                 /* cells per side */
    float cell_size, world_min;
    uint32_t cell_count;
    crowd_cell *cells;
    uint32_t rank_count;
    uint32_t *rank_start;              /* rank_count + 1: first slot of each rank after the sort */
    uint32_t *rank_cursor;             /* scratch for the scatter */

    /* Output. */
    crowd_draw *draws;
    uint32_t draw_capacity;
    crowd_range *uploads;
    uint32_t upload_capacity;
    crowd_frame frame;

    double time;
    uint32_t fades_active;
};

/* Binning slots into chunks (crowd_bin.c): one pass over every slot that also folds finished
 * cross-fades into clip A (LODs past cross_fade_max_lod draw clip A only: without folding, a
 * walker that faded to idle long ago would walk again when its chunk dropped to a far LOD).
 * crowd_update bins unless the simulation already did it in its own pass over the slots. */
typedef struct crowd_binner {
    crowd *c;
    float inv_cell, origin;
    int last;
    uint32_t run_id, run_n;
    float lo[3], hi[3], scale;
    bool run_dirty;
    bool moved;                        /* some slot changed chunk: the order needs a sort */
    uint32_t fades;
} crowd_binner;

void crowd_bin_begin(crowd *c, crowd_binner *b);
void crowd_bin_flush(crowd_binner *b);
void crowd_bin_end(crowd_binner *b);
void crowd_fold_fade(crowd_record *r);

static inline void crowd_bin_slot(crowd_binner *b, uint32_t s)
{
    crowd *c = b->c;
    uint32_t previous = c->cell_of_slot[s], id = CROWD_PARKED_CELL;
    if (c->index_of_slot[s] < c->count) {
        crowd_record *r = &c->records[s];
        if (r->fade_rate > 0.0f) {
            if ((float)c->time - r->fade_start >= 1.0f / r->fade_rate) {
                crowd_fold_fade(r);
                c->dirty[s] = 1;
            } else {
                b->fades++;
            }
        }
        int x = (int)((r->position[0] - b->origin) * b->inv_cell), z = (int)((r->position[2] - b->origin) * b->inv_cell);
        x = x < 0 ? 0 : x > b->last ? b->last : x; /* instances outside the world join the border chunks */
        z = z < 0 ? 0 : z > b->last ? b->last : z;
        id = (uint32_t)z * c->grid_dim + (uint32_t)x;
        if (id != b->run_id) {
            crowd_bin_flush(b);
            b->run_id = id;
            for (int k = 0; k < 3; k++)
                b->lo[k] = b->hi[k] = r->position[k];
            b->scale = r->scale;
        }
        b->run_n++;
        for (int k = 0; k < 3; k++) {
            float v = r->position[k];
            b->lo[k] = v < b->lo[k] ? v : b->lo[k];
            b->hi[k] = v > b->hi[k] ? v : b->hi[k];
        }
        b->scale = r->scale > b->scale ? r->scale : b->scale;
        b->run_dirty |= c->dirty[s] != 0;
    }
    b->moved |= id != previous;
    c->cell_of_slot[s] = id;
}

/* crowd_lod.c */
typedef struct crowd_camera {
    float planes[6][4];
    float position[3];
    float projection_scale;            /* projection[5]: 1 / tan(fovy / 2) */
    bool perspective;
} crowd_camera;
void crowd_camera_from_view(const crowd_view *view, crowd_camera *camera);
bool crowd_sphere_visible(const crowd_camera *camera, const float centre[3], float radius);
void crowd_classify_cells(crowd *c, const crowd_camera *camera);
uint32_t crowd_assign_coverage_lods(crowd *c, const crowd_camera *camera);
float crowd_instance_radius(const crowd *c, float scale);

/* crowd.c: slot-level versions of the setters, for the simulation (which walks slots). */
void crowd_mark_dirty(crowd *c, uint32_t slot);
uint32_t crowd_slot_of(crowd *c, uint32_t index); /* rebuilds the index map when stale */
void crowd_play_slot(crowd *c, uint32_t slot, uint32_t clip, float rate, float fade_seconds);
void crowd_set_rate_slot(crowd *c, uint32_t slot, float rate);
float crowd_stride_rate(const crowd *c, uint32_t clip, float speed); /* authored rate without a stride */

#endif
