/* Binning slots into the chunk grid (the per-slot part is inline in crowd_internal.h). */
#include <math.h>

#include "crowd/crowd_internal.h"

void crowd_fold_fade(crowd_record *r)
{
    r->clip_a = r->clip_b;
    r->offset_a = r->offset_b;
    r->rate_a = r->rate_b;
    r->fade_rate = 0.0f;
}

void crowd_bin_begin(crowd *c, crowd_binner *b)
{
    for (uint32_t i = 0; i < c->cell_count; i++) {
        crowd_cell *cell = &c->cells[i];
        cell->count = 0;
        cell->min[0] = cell->min[1] = cell->min[2] = INFINITY;
        cell->max[0] = cell->max[1] = cell->max[2] = -INFINITY;
        cell->max_scale = 0.0f;
        cell->visible = cell->pooled = false;
    }
    c->mover_count = 0;
    c->movers_overflow = false;
    *b = (crowd_binner){.c = c, .inv_cell = 1.0f / c->cell_size, .origin = c->world_min,
                        .last = (int)c->grid_dim - 1, .run_id = CROWD_PARKED_CELL, .region = CROWD_NO_REGION};
}

/* Region mode: the slots that follow belong to `region`. */
void crowd_bin_region(crowd_binner *b, uint32_t region)
{
    crowd_bin_flush(b);
    b->run_id = CROWD_PARKED_CELL; /* the next slot starts a run and checks its region */
    b->region = region;
}

void crowd_bin_flush(crowd_binner *b)
{
    if (!b->run_n)
        return;
    crowd_cell *cell = &b->c->cells[b->run_id];
    cell->count += b->run_n;
    for (int k = 0; k < 3; k++) {
        cell->min[k] = b->lo[k] < cell->min[k] ? b->lo[k] : cell->min[k];
        cell->max[k] = b->hi[k] > cell->max[k] ? b->hi[k] : cell->max[k];
    }
    cell->max_scale = b->scale > cell->max_scale ? b->scale : cell->max_scale;
    if (b->region != CROWD_NO_REGION)
        b->c->regions[b->region].dirty |= b->run_dirty; /* the slots' region, not the chunk's */
    b->run_n = 0;
    b->run_dirty = false;
}

void crowd_bin_start_run(crowd_binner *b, uint32_t id, const crowd_record *r)
{
    crowd_bin_flush(b);
    b->run_id = id;
    for (int k = 0; k < 3; k++)
        b->lo[k] = b->hi[k] = r->position[k];
    b->scale = r->scale;
    b->run_moves = b->region != CROWD_NO_REGION && b->c->region_of_cell[id] != b->region;
}

void crowd_bin_mover(crowd_binner *b, uint32_t s, uint32_t id)
{
    crowd *c = b->c;
    if (c->mover_count == c->mover_capacity) {
        c->movers_overflow = true;
        return;
    }
    c->movers[c->mover_count++] = (crowd_mover){s, id, b->region};
}

void crowd_bin_end(crowd_binner *b)
{
    crowd_bin_flush(b);
    b->c->fades_active = b->fades;
    b->c->binned = true;
}
