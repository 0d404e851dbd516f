/* Neighbour separation: agents within `separation_radius` push each other apart. It runs at the
 * end of a step, on the positions the step has just written: the step gathers each live agent's
 * slot and (x, z) as it goes (sim_gather, inline in sim_internal.h), so this pass never reads a
 * record. A fine grid with cells one radius wide (counting-sorted every step) limits each
 * agent to the cells around it. The push goes into the agent's drift (crowd_drift, 1.5 m/s per
 * unit), which the next step moves it by and decays: the same order as a push computed at the
 * start of that step.
 *
 * The grid has a column of empty cells on either side of every row and an empty row below the
 * last (cell = z * (dim + 2) + x + 1), so the neighbour ranges need no tests at the world's edge. */
#include <math.h>
#include <string.h>

#include "core/pool.h"
#include "crowd/sim_internal.h"

uint32_t sim_fine_cells(uint32_t dim)
{
    return (dim + 1) * (dim + 2);
}

sim_gatherer sim_gather_begin(crowd_sim *sim)
{
    memset(sim->fine_start, 0, sizeof(uint32_t) * (sim_fine_cells(sim->fine_dim) + 2));
    float lo = sim->crowd->world_min - 1.0f, hi = -sim->crowd->world_min + 1.0f;
    return (sim_gatherer){sim->crowd->world_min,
                          1.0f / sim->fine_size,
                          lo,
                          hi,
                          (int)sim->fine_dim - 1,
                          sim->fine_dim,
                          0,
                          sim->fine_start,
                          sim->fine_cell_of,
                          sim->fine_slots,
                          sim->fine_gathered};
}

/* Gathered agents into fine-cell order: their cells and (x, z), so the pair loop reads two small
 * arrays in order, and each one's rank in that order (apply_pushes). Cells are counted here rather
 * than in the step (its loop is busy enough; this one streams). The counting sort fills each cell
 * from its end backwards, which leaves count[c + 1] at cell c's start: start = count + 1 needs no
 * pass to shift the starts back. (A two-pass radix sort into a few thousand buckets, tried instead
 * to avoid this table's random increments, measured no faster here: 1,303 against 1,226 cycle
 * samples at 100k.) */
static void sort_agents(crowd_sim *sim, const sim_gatherer *g)
{
    uint32_t cells = sim_fine_cells(g->dim), *count = g->count;
    const float *xz = g->xz;
    for (uint32_t m = 0; m < g->n; m++) {
        uint32_t cell = sim_fine_index(g, xz[2 * m + 1]) * (g->dim + 2) + sim_fine_index(g, xz[2 * m]) + 1;
        g->cell[m] = cell;
        count[cell + 1]++;
    }
    for (uint32_t i = 0; i < cells; i++)
        count[i + 1] += count[i];
    float *pos = sim->fine_position;
    uint32_t *rank = g->cell; /* each cell is read once, just before its rank replaces it */
    for (uint32_t m = g->n; m-- > 0;) {
        uint32_t cell = g->cell[m], k = --count[cell + 1];
        sim->fine_sorted_cell[k] = cell;
        rank[m] = k;
        pos[2 * k] = xz[2 * m];
        pos[2 * k + 1] = xz[2 * m + 1];
    }
    count[cells + 1] = g->n;
}

/* The push between agents k < j (sorted order), as k's; j gets its opposite. Branch-free: about
 * a third of candidates are in range, a branch would mispredict constantly. */
static inline void pair_push(const float *pos, uint32_t k, uint32_t j, float radius, float r2, float *px, float *pz)
{
    float ex = pos[2 * k] - pos[2 * j], ez = pos[2 * k + 1] - pos[2 * j + 1], d2 = ex * ex + ez * ez;
    bool tiny = d2 < 1e-8f; /* coincident: part along a direction fixed by the order */
    float in = d2 < r2 ? 1.0f : 0.0f;
    ex = tiny ? 1e-3f : ex;
    ez = tiny ? 0.0f : ez;
    d2 = tiny ? 1e-6f : d2;
    /* A select, not a product with `in`: agents far apart (one hidden at 1e20 m in a border cell)
     * overflow d2 to inf, and 0 * (inf / inf) would be a NaN push, then a NaN position. */
    float d = sqrtf(d2), w = in > 0.0f ? (radius - d) / (radius * d) : 0.0f;
    *px = ex * w;
    *pz = ez * w;
}

/* The pair's push added to both: each pair is evaluated once. */
static inline void push_pair(const float *pos, float *push, uint32_t k, uint32_t j, float radius, float r2, float *fx,
                             float *fz)
{
    float px, pz;
    pair_push(pos, k, j, radius, r2, &px, &pz);
    *fx += px;
    *fz += pz;
    push[2 * j] -= px;
    push[2 * j + 1] -= pz;
}

/* Each agent meets the agents after it in its own row (its cell and the next: the sorted order
 * makes that one range) and those in the three cells of the row below (one range too): every
 * neighbouring pair exactly once. Only agents before k ever push k, so k's push is complete after
 * its own turn (apply_pushes then adds it to its drift).
 *
 * Threads: the fine grid's rows are cut into bands, one task each. A band owns the pushes of its
 * own rows: it first adds the pushes of the row above it (the previous band's last row) on its
 * first row, then walks its rows, and on its last row it adds only its own agents' side of the
 * pairs with the row below (the next band adds the other side). Every push then sums the same
 * terms in the same order as one walk over every row, so the drifts are the same, bit for bit,
 * whatever the band count; only the pairs across a band edge are evaluated twice. */
/* Pair tests per agent, at most: the neighbours after it in sorted order, its own row's first.
 * A crowd normally meets a handful per agent; a pile (agents sent far outside the world all
 * stand on its border, a gather of 100k on one point) would otherwise make the pass quadratic in
 * the pile's size. Past this many the pushes saturate anyway. */
#define MAX_PAIRS_PER_AGENT 48u

static inline uint32_t capped(uint32_t n)
{
    return n < MAX_PAIRS_PER_AGENT ? n : MAX_PAIRS_PER_AGENT;
}

typedef struct band_job {
    crowd_sim *sim;
    const sim_gatherer *g;
    uint32_t bands;
} band_job;

static void push_band(void *context, uint32_t band)
{
    const band_job *job = context;
    crowd_sim *sim = job->sim;
    const sim_gatherer *g = job->g;
    const float radius = sim->desc.separation_radius, r2 = radius * radius;
    const uint32_t *start = g->count + 1, stride = g->dim + 2; /* see sort_agents */
    const uint32_t *sorted_cell = sim->fine_sorted_cell;
    const float *pos = sim->fine_position;
    float *push = sim->fine_push;
    uint32_t row0 = (uint32_t)((uint64_t)g->dim * band / job->bands);
    uint32_t row1 = (uint32_t)((uint64_t)g->dim * (band + 1) / job->bands);
    uint32_t first = start[row0 * stride], last_row = start[(row1 - 1) * stride], end = start[row1 * stride];
    bool last_band = band + 1 == job->bands;
    memset(push + 2 * first, 0, sizeof(float) * 2 * (end - first));
    if (row0 > 0) /* the row above's pushes on this band's first row, in its agents' order */
        for (uint32_t k = start[(row0 - 1) * stride]; k < first; k++) {
            uint32_t cell = sorted_cell[k], below_first = start[cell + stride - 1];
            uint32_t same = start[cell + 2] - (k + 1), below = start[cell + stride + 2] - below_first;
            uint32_t below_end = below_first + (capped(same + below) - capped(same)); /* as k's own walk */
            for (uint32_t j = below_first; j < below_end; j++) {
                float px, pz;
                pair_push(pos, k, j, radius, r2, &px, &pz);
                push[2 * j] -= px;
                push[2 * j + 1] -= pz;
            }
        }
    for (uint32_t k = first; k < end; k++) {
        uint32_t cell = sorted_cell[k], below_first = start[cell + stride - 1];
        /* the two ranges as one loop: one data-dependent exit to mispredict per agent, not two */
        uint32_t same = start[cell + 2] - (k + 1), below = start[cell + stride + 2] - below_first;
        float fx = 0.0f, fz = 0.0f;
        if (k < last_row || last_band) {
            for (uint32_t i = 0, n = capped(same + below); i < n; i++)
                push_pair(pos, push, k, i < same ? k + 1 + i : below_first + (i - same), radius, r2, &fx, &fz);
        } else { /* the band's last row: the row below is the next band's, so k's side only */
            for (uint32_t i = 0, n = capped(same); i < n; i++)
                push_pair(pos, push, k, k + 1 + i, radius, r2, &fx, &fz);
            for (uint32_t j = below_first, e = below_first + (capped(same + below) - capped(same)); j < e; j++) {
                float px, pz;
                pair_push(pos, k, j, radius, r2, &px, &pz);
                fx += px;
                fz += pz;
            }
        }
        push[2 * k] += fx; /* complete: apply_pushes adds it to the drift */
        push[2 * k + 1] += fz;
    }
}

/* The pushes into the drifts (1.5 m/s per unit, per step they stand for), in gathered order:
 * slots ascending, so the drifts are written in order, and each task writes a range of its own
 * (written in sorted order from the bands, agents next to each other in memory belong to different
 * bands: two threads then fought over the same cache lines, and two threads were slower than one).
 * The sums are the ones one walk makes, whatever the split. */
typedef struct apply_job {
    crowd_sim *sim;
    uint32_t n, tasks;
    float scale[4]; /* m/s per unit of push, by the gathered slot's tag (sim_internal.h) */
} apply_job;

static void apply_pushes(void *context, uint32_t task)
{
    const apply_job *job = context;
    crowd_sim *sim = job->sim;
    crowd_drift *drift = sim->crowd->drift;
    const uint32_t *slot = sim->fine_slots, *rank = sim->fine_cell_of;
    const float *push = sim->fine_push;
    uint32_t first = (uint32_t)((uint64_t)job->n * task / job->tasks);
    uint32_t end = (uint32_t)((uint64_t)job->n * (task + 1) / job->tasks);
    for (uint32_t m = first; m < end; m++) { /* a passive one's scale is 0: no branch to mispredict */
        crowd_drift *d = &drift[slot[m] & SIM_GATHER_SLOT];
        uint32_t k = rank[m];
        float scale = job->scale[slot[m] >> 30];
        d->x += push[2 * k] * scale;
        d->z += push[2 * k + 1] * scale;
    }
}

static void push_pairs(crowd_sim *sim, const sim_gatherer *g)
{
    uint32_t threads = crowd_pool_threads(sim->crowd->pool);
    /* Several bands per thread for balance (crowds are denser in places), each 8 rows or more. */
    uint32_t bands = threads > 1 ? threads * 8 : 1, most = g->dim / 8 ? g->dim / 8 : 1;
    band_job job = {sim, g, bands < most ? bands : most};
    crowd_pool_run(sim->crowd->pool, job.bands, push_band, &job);
    float far = 1.5f * (float)sim->desc.lod_interval;
    apply_job apply = {sim, g->n, threads > 1 && g->n >= 8192 ? threads : 1, {1.5f, far, 0.0f, 0.0f}};
    crowd_pool_run(sim->crowd->pool, apply.tasks, apply_pushes, &apply);
}

void sim_separation(crowd_sim *sim, const sim_gatherer *g)
{
    sort_agents(sim, g);
    push_pairs(sim, g);
}
