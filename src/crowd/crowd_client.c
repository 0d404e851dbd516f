/* The client door (crowd_client.h): attaching a client's per-slot arrays, moving them with the
 * records, and what the client may read. */
#include <string.h>

#include "core/pool.h"
#include "crowd/crowd_internal.h"

#define MAX_STATE_SIZE 64u

bool crowd_client_attach(crowd *c, const crowd_client *client)
{
    if (!c || !client || c->client.attached || client->state_count > CROWD_CLIENT_MAX_STATES)
        return false;
    for (uint32_t i = 0; i < client->state_count; i++) {
        const crowd_slot_state *s = &client->states[i];
        if (!s->live || !s->back || !*s->live || !*s->back || !s->size || s->size > MAX_STATE_SIZE)
            return false;
    }
    c->client.client = *client;
    c->client.attached = true;
    return true;
}

void crowd_client_detach(crowd *c)
{
    if (!c)
        return;
    c->client.client = (crowd_client){0};
    c->client.attached = false;
}

bool crowd_client_attached(const crowd *c)
{
    return c->client.attached;
}

uint64_t crowd_client_changes(const crowd *c)
{
    return c->client.changes;
}

/* ---- the arrays follow the records ---------------------------------------------------------------- */

static inline unsigned char *live_of(const crowd_slot_state *s)
{
    return *s->live;
}
static inline unsigned char *back_of(const crowd_slot_state *s)
{
    return *s->back;
}

void crowd_client_copy(crowd *c, uint32_t to, uint32_t from)
{
    for (uint32_t i = 0; i < c->client.client.state_count; i++) {
        const crowd_slot_state *s = &c->client.client.states[i];
        memcpy(live_of(s) + (size_t)to * s->size, live_of(s) + (size_t)from * s->size, s->size);
    }
}

void crowd_client_save(crowd *c, uint32_t k, uint32_t from)
{
    for (uint32_t i = 0; i < c->client.client.state_count; i++) {
        const crowd_slot_state *s = &c->client.client.states[i];
        memcpy(back_of(s) + (size_t)k * s->size, live_of(s) + (size_t)from * s->size, s->size);
    }
}

void crowd_client_restore(crowd *c, uint32_t to, uint32_t k)
{
    for (uint32_t i = 0; i < c->client.client.state_count; i++) {
        const crowd_slot_state *s = &c->client.client.states[i];
        memcpy(live_of(s) + (size_t)to * s->size, back_of(s) + (size_t)k * s->size, s->size);
    }
}

void crowd_client_swap(crowd *c, uint32_t a, uint32_t b)
{
    unsigned char t[MAX_STATE_SIZE];
    for (uint32_t i = 0; i < c->client.client.state_count; i++) {
        const crowd_slot_state *s = &c->client.client.states[i];
        unsigned char *x = live_of(s) + (size_t)a * s->size, *y = live_of(s) + (size_t)b * s->size;
        memcpy(t, x, s->size);
        memcpy(x, y, s->size);
        memcpy(y, t, s->size);
    }
}

void crowd_client_zero(crowd *c, uint32_t slot)
{
    for (uint32_t i = 0; i < c->client.client.state_count; i++) {
        const crowd_slot_state *s = &c->client.client.states[i];
        memset(live_of(s) + (size_t)slot * s->size, 0, s->size);
    }
}

/* One array's scatter with the element size a constant: the compiler turns each copy into moves. */
static inline void scatter_sized(unsigned char *to, const unsigned char *from, const uint32_t *dest, uint32_t n,
                                 size_t size)
{
    for (uint32_t k = 0; k < n; k++)
        if (dest[k] != UINT32_MAX)
            memcpy(to + (size_t)dest[k] * size, from + (size_t)k * size, size);
}

void crowd_client_scatter(crowd *c, const uint32_t *dest, uint32_t n)
{
    for (uint32_t i = 0; i < c->client.client.state_count; i++) {
        const crowd_slot_state *s = &c->client.client.states[i];
        if (s->size == 4)
            scatter_sized(back_of(s), live_of(s), dest, n, 4);
        else if (s->size == 8)
            scatter_sized(back_of(s), live_of(s), dest, n, 8);
        else if (s->size == 16)
            scatter_sized(back_of(s), live_of(s), dest, n, 16);
        else
            scatter_sized(back_of(s), live_of(s), dest, n, s->size);
        CROWD_SWAP_POINTERS(*s->live, *s->back);
    }
}

/* ---- what the client reads ----------------------------------------------------------------------- */

crowd_slots crowd_client_slots(crowd *c)
{
    return (crowd_slots){c->records, c->dirty, c->index_of_slot, c->slots, c->count, c->slot_capacity};
}

crowd_grid crowd_client_grid(const crowd *c)
{
    return (crowd_grid){crowd_grid_of(c), c->grid_dim, c->cell_count, c->world_min, c->cell_size};
}

const crowd_cell *crowd_client_chunks(const crowd *c)
{
    return c->cells;
}

crowd_regions crowd_client_regions(const crowd *c)
{
    if (!crowd_has_regions(c))
        return (crowd_regions){NULL, 0, 0, c->region_of_cell};
    return (crowd_regions){c->regions, c->parked_region, c->pool_region, c->region_of_cell};
}

double crowd_client_time(const crowd *c)
{
    return c->time;
}

bool crowd_client_eye(const crowd *c, float eye[3])
{
    memcpy(eye, c->eye, sizeof c->eye);
    return c->has_eye;
}

bool crowd_client_stride_matching(const crowd *c)
{
    return c->stride_matching;
}

struct crowd_pool *crowd_client_pool(const crowd *c)
{
    return c->pool;
}

uint32_t crowd_client_task_count(const crowd *c)
{
    return c->task_count;
}

void crowd_chunk_hold(crowd *c, uint32_t chunk, const crowd_held *held)
{
    crowd_cell *cell = &c->cells[chunk];
    cell->count += held->count;
    for (int k = 0; k < 3; k++) {
        cell->min[k] = held->lo[k] < cell->min[k] ? held->lo[k] : cell->min[k];
        cell->max[k] = held->hi[k] > cell->max[k] ? held->hi[k] : cell->max[k];
    }
    cell->max_scale = held->scale > cell->max_scale ? held->scale : cell->max_scale;
    cell->max_speed = held->speed > cell->max_speed ? held->speed : cell->max_speed;
}
