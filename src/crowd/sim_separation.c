/* Neighbour separation: agents within `separation_radius` push each other apart. A fine grid
 * with cells one radius wide (counting-sorted every step) limits each agent to the 3 x 3 cells
 * around it. The result is a velocity correction per slot in sim->push. */
#include <math.h>
#include <string.h>

#include "crowd/sim_internal.h"

static uint32_t fine_cell(const crowd_sim *sim, const float *p)
{
    float origin = sim->crowd->world_min, inv = 1.0f / sim->fine_size;
    int last = (int)sim->fine_dim - 1;
    int x = (int)((p[0] - origin) * inv), z = (int)((p[2] - origin) * inv);
    x = x < 0 ? 0 : x > last ? last : x;
    z = z < 0 ? 0 : z > last ? last : z;
    return (uint32_t)z * sim->fine_dim + (uint32_t)x;
}

void sim_separation(crowd_sim *sim)
{
    crowd *c = sim->crowd;
    uint32_t cells = sim->fine_dim * sim->fine_dim, parked = cells;
    uint32_t *start = sim->fine_start;
    memset(start, 0, sizeof(uint32_t) * (cells + 2));
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t cell = c->index_of_slot[s] < c->count ? fine_cell(sim, c->records[s].position) : parked;
        sim->fine_cell_of_slot[s] = cell;
        start[cell + 1]++;
    }
    for (uint32_t i = 0; i <= cells; i++)
        start[i + 1] += start[i];
    /* Scatter slots and their (x, z) into fine-cell order: the neighbour loop below then reads
     * small contiguous arrays instead of 64-byte records scattered over the store. */
    float *pos = sim->fine_position;
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t k = start[sim->fine_cell_of_slot[s]]++;
        sim->fine_sorted[k] = s;
        pos[2 * k] = c->records[s].position[0];
        pos[2 * k + 1] = c->records[s].position[2];
    }
    for (uint32_t i = cells + 1; i > 0; i--)
        start[i] = start[i - 1];
    start[0] = 0;

    const float radius = sim->desc.separation_radius, r2 = radius * radius;
    const int dim = (int)sim->fine_dim;
    uint32_t live = start[parked];
    for (uint32_t k = 0; k < live; k++) { /* agents in fine-cell order: empty cells cost nothing */
        uint32_t slot = sim->fine_sorted[k], cell = sim->fine_cell_of_slot[slot];
        int cx = (int)(cell % sim->fine_dim), cz = (int)(cell / sim->fine_dim);
        int x0 = cx > 0 ? cx - 1 : 0, x1 = cx + 1 < dim ? cx + 1 : dim - 1;
        float px = pos[2 * k], pz = pos[2 * k + 1], fx = 0.0f, fz = 0.0f;
        for (int z = cz > 0 ? cz - 1 : 0; z <= cz + 1 && z < dim; z++) {
            /* the three cells of a row are adjacent in the sorted order: one range */
            uint32_t row = (uint32_t)z * sim->fine_dim;
            for (uint32_t j = start[row + (uint32_t)x0]; j < start[row + (uint32_t)x1 + 1]; j++) {
                float ex = px - pos[2 * j], ez = pz - pos[2 * j + 1], d2 = ex * ex + ez * ez;
                if (d2 >= r2 || j == k)
                    continue;
                if (d2 < 1e-8f) { /* coincident: part along a direction fixed by the order */
                    ex = k < j ? 1e-3f : -1e-3f;
                    ez = 0.0f;
                    d2 = 1e-6f;
                }
                float d = sqrtf(d2), w = (radius - d) / (radius * d);
                fx += ex * w;
                fz += ez * w;
            }
        }
        sim->push[2 * slot] = fx;
        sim->push[2 * slot + 1] = fz;
    }
}
