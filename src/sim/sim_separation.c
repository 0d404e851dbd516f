/* Neighbour separation: agents within `separation_radius` push each other apart. It runs at the
 * end of a step, on the positions the step has just written: the step gathers each live agent's
 * slot and (x, z) as it goes (sim_gather, inline in sim_internal.h), so this pass never reads a
 * record. A fine grid with cells one radius wide limits each agent to the cells around it: the
 * gathered agents are sorted by fine cell, row by row, every step. The push goes into the agent's
 * drift (sim_drift, 1.5 m/s per unit), which the next step moves it by and decays: the same
 * order as a push computed at the start of that step.
 *
 * The grid is never stored cell by cell: a crowd leaves most fine cells empty (100k agents on
 * the benchmark's 420 m world gather ~42k into 360k cells), and a table of every cell's start,
 * 1.4 MB there, missed the cache at each agent's count, at the prefix over it and at each pair
 * range looked up in it. Only each row's start is kept; within a row the agents are in column
 * order, so the ranges a pair walk needs are found by cursors that move forward along the row
 * (row_cursor below). */
#include <math.h>
#include <string.h>

#include "core/pool.h"
#include "sim/sim_internal.h"
#include "sim/sim_testing.h"

sim_gatherer sim_gather_begin(crowd_sim *sim)
{
    float lo = sim->grid.origin - 1.0f, hi = -sim->grid.origin + 1.0f;
    return (sim_gatherer){sim->grid.origin,       1.0f / sim->fine_size, lo, hi,
                          (int)sim->fine_dim - 1, sim->fine_dim,         0,  sim->fine_cell_of,
                          sim->fine_slots,        sim->fine_gathered};
}

/* A sorted agent's key: its fine row above its column (both below SIM_FINE_MAX_DIM, so column + 1
 * still fits in the column's bits). */
#define KEY_COLUMN_BITS 11u
#define KEY_COLUMN_MASK ((1u << KEY_COLUMN_BITS) - 1u)

static inline uint32_t key_column(uint32_t key)
{
    return key & KEY_COLUMN_MASK;
}

/* The row pass of the sort: agents [first, end) of `by_column` (key and gathered index, in column
 * order) to their places in fine-cell order, `next` holding each of their rows' next place: their
 * keys and (x, z) there, and each one's rank in that order (into g->cell, where each key was read
 * already). */
static inline void place_by_row(crowd_sim *sim, const sim_gatherer *g, const uint64_t *by_column, uint32_t first,
                                uint32_t end, uint32_t *next)
{
    uint32_t *sorted_key = sim->fine_sorted_key, *rank = g->cell;
    float *pos = sim->fine_position;
    const float *xz = g->xz;
    for (uint32_t i = first; i < end; i++) {
        uint32_t m = (uint32_t)by_column[i], k_key = (uint32_t)(by_column[i] >> 32);
        uint32_t k = next[k_key >> KEY_COLUMN_BITS]++;
        sorted_key[k] = k_key;
        rank[m] = k;
        pos[2 * k] = xz[2 * m];
        pos[2 * k + 1] = xz[2 * m + 1];
    }
}

/* Gathered agents into fine-cell order (row, then column, then gathered order): their keys and
 * (x, z), so the pair loop reads small arrays in order, each row's start, and each agent's rank
 * in that order (apply_pushes). Two stable counting passes, by column then by row (an LSD radix
 * sort on the key's two halves): their tables have one entry per column or row and stay in the
 * first-level cache, where one entry per cell did not (see the top). */
static void sort_agents(crowd_sim *sim, const sim_gatherer *g)
{
    const uint32_t n = g->n, dim = g->dim;
    uint32_t *row_start = sim->fine_rows, *column = sim->fine_rows + dim + 2; /* dim + 2 each */
    uint32_t *key = g->cell;
    const float *xz = g->xz;
    memset(sim->fine_rows, 0, sizeof(uint32_t) * 2 * (dim + 2));
    for (uint32_t m = 0; m < n; m++) {
        uint32_t row = sim_fine_index(g, xz[2 * m + 1]), col = sim_fine_index(g, xz[2 * m]);
        key[m] = row << KEY_COLUMN_BITS | col;
        row_start[row + 1]++;
        column[col + 1]++;
    }
    for (uint32_t i = 0; i <= dim; i++) {
        row_start[i + 1] += row_start[i];
        column[i + 1] += column[i];
    }
    uint64_t *by_column = sim->fine_keyed; /* key and gathered index, in column order */
    for (uint32_t m = 0; m < n; m++)
        by_column[column[key_column(key[m])]++] = (uint64_t)key[m] << 32 | m;
    memcpy(column, row_start, sizeof(uint32_t) * (dim + 1)); /* now each row's next place */
    place_by_row(sim, g, by_column, 0, n, column);
    sim->fine_sorted_key[n] = UINT32_MAX; /* above every key: the cursors' ends stop there (row_cursor) */
}

/* The same order on the pool's threads (a serial sort was about a third of the separation's time on
 * two threads, the other thread idle): each thread's share of the gathered agents (in gathered order)
 * counts its agents per row and, after a serial prefix over rows and shares, puts (key, index) at its
 * rows' places, so each row holds its agents in gathered order; then each band of rows (as the pairs'
 * bands) sorts its agents by column and then by row, both stable, as sort_agents sorts the whole.
 * The result is sort_agents', entry for entry: the pushes are bit-identical whatever the split. */
typedef struct sort_job {
    crowd_sim *sim;
    const sim_gatherer *g;
    uint32_t shares, bands;
} sort_job;

static void count_share(void *context, uint32_t t)
{
    const sort_job *job = context;
    const sim_gatherer *g = job->g;
    uint32_t *rows = job->sim->fine_share_rows + (size_t)t * (g->dim + 2), *key = g->cell;
    uint32_t first = (uint32_t)((uint64_t)g->n * t / job->shares),
             end = (uint32_t)((uint64_t)g->n * (t + 1) / job->shares);
    memset(rows, 0, sizeof *rows * (g->dim + 2));
    for (uint32_t m = first; m < end; m++) {
        uint32_t row = sim_fine_index(g, g->xz[2 * m + 1]);
        key[m] = row << KEY_COLUMN_BITS | sim_fine_index(g, g->xz[2 * m]);
        rows[row]++;
    }
}

static void place_share(void *context, uint32_t t)
{
    const sort_job *job = context;
    const sim_gatherer *g = job->g;
    uint32_t *place = job->sim->fine_share_rows + (size_t)t * (g->dim + 2);
    const uint32_t *key = g->cell;
    uint64_t *by_row = job->sim->fine_keyed;
    uint32_t first = (uint32_t)((uint64_t)g->n * t / job->shares),
             end = (uint32_t)((uint64_t)g->n * (t + 1) / job->shares);
    for (uint32_t m = first; m < end; m++)
        by_row[place[key[m] >> KEY_COLUMN_BITS]++] = (uint64_t)key[m] << 32 | m;
}

/* Band b's rows: [*row0, *row1) of the fine grid (the pairs' bands: push_band). */
static void band_rows(uint32_t dim, uint32_t bands, uint32_t b, uint32_t *row0, uint32_t *row1)
{
    *row0 = (uint32_t)((uint64_t)dim * b / bands);
    *row1 = (uint32_t)((uint64_t)dim * (b + 1) / bands);
}

static void sort_band(void *context, uint32_t b)
{
    const sort_job *job = context;
    crowd_sim *sim = job->sim;
    const sim_gatherer *g = job->g;
    const uint32_t dim = g->dim, *row_start = sim->fine_rows;
    uint32_t row0, row1;
    band_rows(dim, job->bands, b, &row0, &row1);
    uint32_t first = row_start[row0], end = row_start[row1];
    uint32_t *column = sim->fine_band_tables + (size_t)b * 2 * (dim + 2), *next = column + dim + 2;
    const uint64_t *by_row = sim->fine_keyed;
    uint64_t *by_column = sim->fine_band_sorted;
    memset(column, 0, sizeof *column * (dim + 2));
    for (uint32_t i = first; i < end; i++)
        column[key_column((uint32_t)(by_row[i] >> 32)) + 1]++;
    column[0] = first;
    for (uint32_t c = 0; c <= dim; c++)
        column[c + 1] += column[c];
    for (uint32_t i = first; i < end; i++)
        by_column[column[key_column((uint32_t)(by_row[i] >> 32))]++] = by_row[i];
    memcpy(next + row0, row_start + row0, sizeof *next * (row1 - row0));
    place_by_row(sim, g, by_column, first, end, next);
}

static void sort_on_threads(crowd_sim *sim, const sim_gatherer *g, uint32_t threads, uint32_t bands)
{
    sort_job job = {sim, g, threads, bands};
    crowd_pool_run(crowd_client_pool(sim->crowd), threads, count_share, &job);
    /* each row's start, and each share's first place in each row (in share order) */
    const uint32_t dim = g->dim, stride = dim + 2;
    uint32_t *row_start = sim->fine_rows, at = 0;
    for (uint32_t row = 0; row < dim; row++) {
        row_start[row] = at;
        for (uint32_t t = 0; t < threads; t++) {
            uint32_t *cell = &sim->fine_share_rows[(size_t)t * stride + row], count = *cell;
            *cell = at;
            at += count;
        }
    }
    row_start[dim] = row_start[dim + 1] = at;
    crowd_pool_run(crowd_client_pool(sim->crowd), threads, place_share, &job);
    crowd_pool_run(crowd_client_pool(sim->crowd), bands, sort_band, &job);
    sim->fine_sorted_key[g->n] = UINT32_MAX;
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

/* The ranges an agent's pairs walk, found along its row: the agents after it in its own cell and
 * the next (one range in sorted order, ending at `same_end`) and those in the three cells of the
 * row below (`below_first` to `below_end`). Agents come in column order, so all three ends only
 * move forward along a row, a step or two per agent. They compare whole keys: the row in a key's
 * high bits stops each end at its row's last agent, and sort_agents puts a key above every row
 * after the last agent, so no end needs a bounds test. The first two steps are taken without a
 * branch (a data-dependent loop exit mispredicts about once per agent and end otherwise). */
typedef struct row_cursor {
    uint32_t same_end, below_first, below_end;
} row_cursor;

static inline uint32_t advance_while_at_most(const uint32_t *sorted_key, uint32_t i, uint32_t limit)
{
    i += sorted_key[i] <= limit;
    i += sorted_key[i] <= limit;
    while (sorted_key[i] <= limit)
        i++;
    return i;
}

/* The cursor for row z's first agent (row_start: see sort_agents). */
static inline row_cursor row_cursor_at(const uint32_t *row_start, uint32_t z)
{
    return (row_cursor){row_start[z], row_start[z + 1], row_start[z + 1]};
}

/* Moves the cursor on to agent k (key `key`: row z, column c). */
static inline void row_cursor_to(row_cursor *q, const uint32_t *sorted_key, uint32_t k, uint32_t key)
{
    uint32_t below = key + (1u << KEY_COLUMN_BITS), c = key_column(key); /* row z + 1, column c */
    q->same_end = advance_while_at_most(sorted_key, q->same_end > k ? q->same_end : k + 1, key + 1);
    /* column c - 1 and after: past those at most at column c - 2 (none for c < 2) */
    q->below_first = c >= 2 ? advance_while_at_most(sorted_key, q->below_first, below - 2) : q->below_first;
    q->below_end =
        advance_while_at_most(sorted_key, q->below_end > q->below_first ? q->below_end : q->below_first, below + 1);
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
    const uint32_t *row_start = sim->fine_rows, *sorted_key = sim->fine_sorted_key;
    const float *pos = sim->fine_position;
    float *push = sim->fine_push;
    uint32_t row0, row1;
    band_rows(g->dim, job->bands, band, &row0, &row1);
    uint32_t first = row_start[row0], end = row_start[row1];
    bool last_band = band + 1 == job->bands;
    memset(push + 2 * first, 0, sizeof(float) * 2 * (end - first));
    if (row0 > 0) { /* the row above's pushes on this band's first row, in its agents' order */
        row_cursor q = row_cursor_at(row_start, row0 - 1);
        for (uint32_t k = row_start[row0 - 1]; k < first; k++) {
            row_cursor_to(&q, sorted_key, k, sorted_key[k]);
            uint32_t same = q.same_end - (k + 1), below = q.below_end - q.below_first;
            uint32_t below_end = q.below_first + (capped(same + below) - capped(same)); /* as k's own walk */
            for (uint32_t j = q.below_first; j < below_end; j++) {
                float px, pz;
                pair_push(pos, k, j, radius, r2, &px, &pz);
                push[2 * j] -= px;
                push[2 * j + 1] -= pz;
            }
        }
    }
    for (uint32_t z = row0; z < row1; z++) {
        row_cursor q = row_cursor_at(row_start, z);
        bool own_below = z + 1 < row1 || last_band; /* else the row below is the next band's */
        for (uint32_t k = row_start[z], row_end = row_start[z + 1]; k < row_end; k++) {
            row_cursor_to(&q, sorted_key, k, sorted_key[k]);
            uint32_t same = q.same_end - (k + 1), below = q.below_end - q.below_first, below_first = q.below_first;
            float fx = 0.0f, fz = 0.0f;
            if (own_below) { /* the two ranges as one loop: one data-dependent exit to mispredict, not two */
                for (uint32_t i = 0, n = capped(same + below); i < n; i++)
                    push_pair(pos, push, k, i < same ? k + 1 + i : below_first + (i - same), radius, r2, &fx, &fz);
            } else { /* k's side only of the pairs with the row below */
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
    sim_drift *drift = sim_drifts(sim);
    const uint32_t *slot = sim->fine_slots, *rank = sim->fine_cell_of;
    const float *push = sim->fine_push;
    uint32_t first = (uint32_t)((uint64_t)job->n * task / job->tasks);
    uint32_t end = (uint32_t)((uint64_t)job->n * (task + 1) / job->tasks);
    for (uint32_t m = first; m < end; m++) { /* a passive one's scale is 0: no branch to mispredict */
        sim_drift *d = &drift[slot[m] & SIM_GATHER_SLOT];
        uint32_t k = rank[m];
        float scale = job->scale[slot[m] >> 30];
        d->x += push[2 * k] * scale;
        d->z += push[2 * k + 1] * scale;
    }
}

/* m/s of drift per unit of push for a far agent re-planning every `interval` steps of dt: its push
 * is that many steps' (1.5 m/s each, a near agent's), but at most what moves it by half the pair's
 * overlap over the interval it walks with it (a unit of push is an overlap of one radius). Past
 * about 4 steps (dt 1/60, radius 0.7) the full push moved pairs apart further than they overlapped:
 * the crowd rang, far agents flew at twice the top speed and more (2.7 % of agent-frames at
 * offscreen_interval 8 in test_crowd's passive_neighbours crowd; 16 per 4 million with the cap). */
static float far_push_scale(const crowd_sim *sim, uint32_t interval, float dt)
{
    float whole = 1.5f * (float)interval, half_overlap = sim->desc.separation_radius / (2.0f * (float)interval * dt);
    return whole < half_overlap || (sim->test_hooks && sim->test_hooks->gather_now) ? whole : half_overlap;
}

static void push_pairs(crowd_sim *sim, const sim_gatherer *g, float dt, uint32_t bands)
{
    uint32_t threads = crowd_pool_threads(crowd_client_pool(sim->crowd));
    band_job job = {sim, g, bands};
    crowd_pool_run(crowd_client_pool(sim->crowd), job.bands, push_band, &job);
    float far = far_push_scale(sim, sim->desc.lod_interval, dt);
    float offscreen = far_push_scale(sim, sim->desc.offscreen_interval, dt);
    apply_job apply = {sim, g->n, threads > 1 && g->n >= 8192 ? threads : 1, {1.5f, far, 0.0f, offscreen}};
    crowd_pool_run(crowd_client_pool(sim->crowd), apply.tasks, apply_pushes, &apply);
}

void sim_separation(crowd_sim *sim, const sim_gatherer *g, float dt)
{
    uint32_t threads = crowd_pool_threads(crowd_client_pool(sim->crowd));
    /* Several bands per thread for balance (crowds are denser in places), each 8 rows or more. */
    uint32_t bands = threads > 1 ? threads * SIM_BANDS_PER_THREAD : 1, most = g->dim / 8 ? g->dim / 8 : 1;
    bands = bands < most ? bands : most;
    if (threads > 1 && g->n >= 8192 && sim->fine_band_sorted)
        sort_on_threads(sim, g, threads, bands);
    else
        sort_agents(sim, g);
    push_pairs(sim, g, dt, bands);
}
