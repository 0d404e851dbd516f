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

/* Live agent m (in slot order): its slot, fine cell and (x, z) into compact arrays, counted per
 * cell. */
static inline void gather_agent(crowd_sim *sim, const fine_grid *g, uint32_t m, uint32_t s, uint32_t *count)
{
    const float *p = sim->crowd->records[s].position;
    uint32_t cell = fine_x(g, p[2]) * g->dim + fine_x(g, p[0]);
    sim->fine_slots[m] = s;
    sim->fine_cell_of_slot[m] = cell;
    sim->fine_push[2 * m] = p[0]; /* scratch until the pairs need it */
    sim->fine_push[2 * m + 1] = p[2];
    count[cell + 1]++;
}

/* The live agents in slot order (walking the live regions when there is a layout). */
static uint32_t gather_agents(crowd_sim *sim, const fine_grid *g, uint32_t *count)
{
    crowd *c = sim->crowd;
    uint32_t m = 0;
    if (c->layout_valid && c->desc.lod_policy == CROWD_LOD_DISTANCE) {
        for (uint32_t r = 0; r < c->parked_region; r++)
            for (uint32_t s = c->regions[r].start; s < c->regions[r].start + c->regions[r].count; s++)
                gather_agent(sim, g, m++, s, count);
    } else {
        for (uint32_t s = 0; s < c->slots; s++)
            if (c->index_of_slot[s] < c->count)
                gather_agent(sim, g, m++, s, count);
    }
    return m;
}

/* Live agents into fine-cell order: their slots and (x, z), so the pair loop reads two small
 * arrays in order instead of 64-byte records scattered over the store. The counting sort fills
 * each cell from its end backwards, which leaves count[c + 1] at cell c's start: start = count + 1
 * needs no pass to shift the starts back. Returns how many. */
static uint32_t sort_agents(crowd_sim *sim, const fine_grid *g)
{
    uint32_t cells = g->dim * g->dim, *count = sim->fine_start;
    memset(count, 0, sizeof(uint32_t) * (cells + 2));
    uint32_t live = gather_agents(sim, g, count);
    for (uint32_t i = 0; i < cells; i++)
        count[i + 1] += count[i];
    const float *xz = sim->fine_push;
    float *pos = sim->fine_position;
    for (uint32_t m = live; m-- > 0;) {
        uint32_t k = --count[sim->fine_cell_of_slot[m] + 1];
        sim->fine_sorted[k] = sim->fine_slots[m];
        pos[2 * k] = xz[2 * m];
        pos[2 * k + 1] = xz[2 * m + 1];
    }
    count[cells + 1] = live;
    return live;
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
    const uint32_t *start = sim->fine_start + 1; /* see sort_agents */
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
