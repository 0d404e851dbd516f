/* Binning slots into the chunk grid (the per-slot part is inline in crowd_internal.h). */
#include <math.h>

#include "crowd/crowd_internal.h"

void crowd_bin_begin(crowd *c, crowd_binner *b, float time)
{
    for (uint32_t i = 0; i < c->cell_count; i++) {
        crowd_cell *cell = &c->cells[i];
        cell->count = 0;
        cell->min[0] = cell->min[1] = cell->min[2] = INFINITY;
        cell->max[0] = cell->max[1] = cell->max[2] = -INFINITY;
        cell->max_scale = cell->max_speed = 0.0f;
        cell->visible = cell->pooled = false;
    }
    c->mover_count = 0;
    c->movers_overflow = false;
    c->stale |= CROWD_STALE_GRID; /* bin_all decides at its end */
    c->bin_time = time;
    *b = (crowd_binner){.c = c,
                        .grid = crowd_grid_of(c),
                        .region = CROWD_NO_REGION,
                        .time = time,
                        .now = c->time,
                        .dirty = c->dirty,
                        .region_of_cell = c->region_of_cell,
                        .chunk_of_slot = c->cell_of_slot,
                        .run = {.id = CROWD_PARKED_CELL},
                        .cells = c->cells,
                        .movers = c->movers,
                        .mover_capacity = c->mover_capacity};
}

/* Region mode: the slots that follow belong to `region`. */
void crowd_bin_region(crowd_binner *b, uint32_t region)
{
    crowd_bin_close(b, &b->run);
    b->run = (crowd_run){.id = CROWD_PARKED_CELL}; /* the next slot opens a run and checks its region */
    b->region = region;
}

void crowd_bin_close(crowd_binner *b, const crowd_run *run)
{
    if (!run->n)
        return;
    crowd_cell *cell = &b->cells[run->id];
    if (b->touched && !cell->count)
        b->touched[b->touched_count++] = run->id;
    cell->count += run->n;
    const float lo[3] = {run->lo_x, run->lo_y, run->lo_z}, hi[3] = {run->hi_x, run->hi_y, run->hi_z};
    for (int k = 0; k < 3; k++) {
        cell->min[k] = lo[k] < cell->min[k] ? lo[k] : cell->min[k];
        cell->max[k] = hi[k] > cell->max[k] ? hi[k] : cell->max[k];
    }
    cell->max_scale = run->scale > cell->max_scale ? run->scale : cell->max_scale;
    cell->max_speed = run->speed > cell->max_speed ? run->speed : cell->max_speed;
    if (b->region != CROWD_NO_REGION) { /* the slots' region, not the chunk's */
        if (b->region_dirty)
            b->region_dirty[b->region] |= run->dirty;
        else
            b->c->regions[b->region].dirty |= run->dirty;
    }
}

void crowd_bin_mover(crowd_binner *b, uint32_t s, uint32_t id)
{
    if (b->mover_count == b->mover_capacity) {
        b->movers_overflow = true;
        return;
    }
    b->movers[b->mover_count++] = (crowd_mover){s, id, b->region};
}

/* Slot mode (no valid layout): any slot, live or parked; records its chunk. */
void crowd_bin_slot(crowd_binner *b, uint32_t s)
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

void crowd_bin_end(crowd_binner *b)
{
    crowd_bin_close(b, &b->run);
    b->run = (crowd_run){.id = CROWD_PARKED_CELL};
    b->c->mover_count = b->mover_count;
    b->c->movers_overflow = b->movers_overflow;
    b->c->fades_active = b->fades;
    crowd_refreshed(b->c, CROWD_STALE_BINNING);
}
