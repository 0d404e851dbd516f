/* Neighbour separation: agents within `separation_radius` push each other apart. A fine grid
 * with cells one radius wide (counting-sorted every step) limits each agent to the 3 x 3 cells
 * around it. The result is a velocity correction per slot in sim->push. */
#include <math.h>
#include <string.h>

#include "crowd/sim_internal.h"

typedef struct fine_grid {
    float origin, inv;
    int last;
    uint32_t dim;
} fine_grid;

static inline uint32_t fine_x(const fine_grid *g, float v)
{
    int x = (int)((v - g->origin) * g->inv);
    return (uint32_t)(x < 0 ? 0 : x > g->last ? g->last : x);
}

/* Live agents into fine-cell order: their slots and (x, z), so the pair loop reads two small
 * arrays in order instead of 64-byte records scattered over the store. Returns how many. */
static uint32_t sort_agents(crowd_sim *sim, const fine_grid *g)
{
    crowd *c = sim->crowd;
    uint32_t cells = g->dim * g->dim, *start = sim->fine_start, *cell_of = sim->fine_cell_of_slot;
    memset(start, 0, sizeof(uint32_t) * (cells + 1));
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t cell = UINT32_MAX;
        if (c->index_of_slot[s] < c->count) {
            const float *p = c->records[s].position;
            cell = fine_x(g, p[2]) * g->dim + fine_x(g, p[0]);
            start[cell + 1]++;
        }
        cell_of[s] = cell;
    }
    for (uint32_t i = 0; i < cells; i++)
        start[i + 1] += start[i];
    float *pos = sim->fine_position;
    for (uint32_t s = 0; s < c->slots; s++) {
        if (cell_of[s] == UINT32_MAX)
            continue;
        uint32_t k = start[cell_of[s]]++;
        sim->fine_sorted[k] = s;
        pos[2 * k] = c->records[s].position[0];
        pos[2 * k + 1] = c->records[s].position[2];
    }
    for (uint32_t i = cells; i > 0; i--) /* the scatter advanced each start to the next one's */
        start[i] = start[i - 1];
    start[0] = 0;
    return start[cells];
}

/* The push between agents k < j (sorted order), added to both: each pair is evaluated once.
 * Branch-free: about a third of candidates are in range, a branch would mispredict constantly. */
static inline void push_pair(const float *pos, float *push, uint32_t k, uint32_t j, float radius, float r2,
                             float *fx, float *fz)
{
    float ex = pos[2 * k] - pos[2 * j], ez = pos[2 * k + 1] - pos[2 * j + 1], d2 = ex * ex + ez * ez;
    bool tiny = d2 < 1e-8f; /* coincident: part along a direction fixed by the order */
    float in = d2 < r2 ? 1.0f : 0.0f;
    ex = tiny ? 1e-3f : ex;
    ez = tiny ? 0.0f : ez;
    d2 = tiny ? 1e-6f : d2;
    float d = sqrtf(d2), w = in * (radius - d) / (radius * d);
    *fx += ex * w;
    *fz += ez * w;
    push[2 * j] -= ex * w;
    push[2 * j + 1] -= ez * w;
}

/* Each agent meets the agents after it in its own row (its cell and the next: the sorted order
 * makes that one range) and those in the three cells of the row below: every neighbouring pair
 * exactly once. */
static void push_pairs(crowd_sim *sim, const fine_grid *g, uint32_t live)
{
    const float radius = sim->desc.separation_radius, r2 = radius * radius;
    const uint32_t *start = sim->fine_start;
    const float *pos = sim->fine_position;
    float *push = sim->fine_push;
    memset(push, 0, sizeof(float) * 2 * live);
    for (uint32_t k = 0; k < live; k++) {
        uint32_t cx = fine_x(g, pos[2 * k]), cz = fine_x(g, pos[2 * k + 1]), row = cz * g->dim;
        uint32_t x0 = cx > 0 ? cx - 1 : 0, x1 = cx + 1 < g->dim ? cx + 1 : cx;
        float fx = 0.0f, fz = 0.0f;
        for (uint32_t j = k + 1; j < start[row + x1 + 1]; j++)
            push_pair(pos, push, k, j, radius, r2, &fx, &fz);
        if (cz + 1 < g->dim)
            for (uint32_t j = start[row + g->dim + x0]; j < start[row + g->dim + x1 + 1]; j++)
                push_pair(pos, push, k, j, radius, r2, &fx, &fz);
        push[2 * k] += fx;
        push[2 * k + 1] += fz;
    }
}

void sim_separation(crowd_sim *sim)
{
    fine_grid g = {sim->crowd->world_min, 1.0f / sim->fine_size, (int)sim->fine_dim - 1, sim->fine_dim};
    uint32_t live = sort_agents(sim, &g);
    push_pairs(sim, &g, live);
    for (uint32_t k = 0; k < live; k++) {
        uint32_t slot = sim->fine_sorted[k];
        sim->push[2 * slot] = sim->fine_push[2 * k];
        sim->push[2 * slot + 1] = sim->fine_push[2 * k + 1];
    }
}
