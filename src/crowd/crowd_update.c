/* One update: time, the chunk grid (binning, which also folds finished fades), culling and LOD,
 * the counting sort that keeps records in draw order, upload ranges, draws and stats. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "crowd/crowd_internal.h"

/* Shader time is a float; past this many seconds it is rebased so phases keep ~1e-4 precision. */
#define REBASE_AFTER 2048.0
#define REBASE_BY 1024.0

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void rebase_time(crowd *c)
{
    for (uint32_t s = 0; s < c->slots; s++) {
        crowd_record *r = &c->records[s];
        double a = r->offset_a + REBASE_BY * (double)r->rate_a, b = r->offset_b + REBASE_BY * (double)r->rate_b;
        r->offset_a = (float)(a - floor(a));
        r->offset_b = (float)(b - floor(b));
        r->fade_start = (float)(r->fade_start - REBASE_BY);
        c->dirty[s] = 1;
    }
    c->time -= REBASE_BY;
}

static void bin_all(crowd *c)
{
    crowd_binner b;
    crowd_bin_begin(c, &b);
    for (uint32_t s = 0; s < c->slots; s++)
        crowd_bin_slot(&b, s);
    crowd_bin_end(&b);
}

/* Distance policy: rank starts straight from the chunk counts (ranks are per chunk), and whether
 * the previous order still holds (no slot changed chunk and no chunk changed rank). */
static bool distance_ranks(crowd *c)
{
    uint32_t *start = c->rank_start;
    bool same = c->order_may_hold;
    memset(start, 0, sizeof(uint32_t) * (c->rank_count + 1));
    for (uint32_t i = 0; i < c->cell_count; i++) {
        crowd_cell *cell = &c->cells[i];
        if (!cell->count)
            continue;
        start[cell->rank + 1] = cell->count;
        same &= cell->rank == cell->previous_rank;
        cell->previous_rank = cell->rank;
    }
    start[c->rank_count] = c->slots - c->count; /* the parked rank is the last */
    for (uint32_t r = 0; r < c->rank_count; r++)
        start[r + 1] += start[r];
    return same;
}

/* Coverage policy: ranks are per slot; count them, and check whether slots are already in order. */
static bool coverage_ranks(crowd *c)
{
    uint32_t *start = c->rank_start, previous = 0;
    bool sorted = true;
    memset(start, 0, sizeof(uint32_t) * (c->rank_count + 1));
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t rank = c->rank_of_slot[s];
        start[rank + 1]++;
        sorted &= rank >= previous;
        previous = rank;
    }
    for (uint32_t r = 0; r < c->rank_count; r++)
        start[r + 1] += start[r];
    return sorted;
}

static uint32_t rank_of(const crowd *c, uint32_t s, bool distance)
{
    if (!distance)
        return c->rank_of_slot[s];
    uint32_t cell = c->cell_of_slot[s];
    return cell == CROWD_PARKED_CELL ? c->rank_count - 1 : c->cells[cell].rank;
}

/* Stable counting sort of the slot arrays by rank into the back buffers, then swap: the gather
 * that puts every chunk's instances in one contiguous range. A slot's bytes changed for the
 * renderer when it moved or was written: that is its new dirty flag. */
static void sort_slots(crowd *c, bool distance)
{
    uint32_t *next = c->rank_cursor;
    memcpy(next, c->rank_start, sizeof(uint32_t) * c->rank_count);
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t d = next[rank_of(c, s, distance)]++;
        c->records_back[d] = c->records[s];
        c->agents_back[d] = c->agents[s];
        c->index_back[d] = c->index_of_slot[s];
        c->cell_back[d] = c->cell_of_slot[s];
        c->dirty_back[d] = (uint8_t)(c->dirty[s] | (d != s));
        if (!distance)
            c->lod_back[d] = c->lod_of_slot[s];
    }
#define SWAP(a, b)                                                                                    \
    do {                                                                                              \
        void *t_ = (void *)(a);                                                                       \
        (a) = (b);                                                                                    \
        (b) = t_;                                                                                     \
    } while (0)
    SWAP(c->records, c->records_back);
    SWAP(c->agents, c->agents_back);
    SWAP(c->index_of_slot, c->index_back);
    SWAP(c->cell_of_slot, c->cell_back);
    SWAP(c->dirty, c->dirty_back);
    if (!distance)
        SWAP(c->lod_of_slot, c->lod_back);
#undef SWAP
    c->index_map_stale = true; /* rebuilt when someone asks by index, not on every frame */
}

/* Dirty slots -> a short list of ranges (runs merged across small gaps; one range if too many). */
static void build_uploads(crowd *c)
{
    const uint32_t gap = 16;
    uint32_t n = 0, s = 0;
    uint64_t bytes = 0;
    while (s < c->slots) {
        const uint8_t *hit = memchr(c->dirty + s, 1, c->slots - s);
        if (!hit)
            break;
        uint32_t first = (uint32_t)(hit - c->dirty), end = first;
        while (end < c->slots) {
            if (c->dirty[end]) {
                end++;
                continue;
            }
            uint32_t probe = end;
            while (probe < c->slots && probe - end < gap && !c->dirty[probe])
                probe++;
            if (probe < c->slots && probe - end < gap)
                end = probe;
            else
                break;
        }
        if (n == c->upload_capacity) { /* too fragmented: one range to the end */
            c->uploads[n - 1].count = c->slots - c->uploads[n - 1].first;
            break;
        }
        c->uploads[n++] = (crowd_range){first, end - first};
        s = end;
    }
    for (uint32_t i = 0; i < n; i++)
        bytes += (uint64_t)c->uploads[i].count * sizeof(crowd_record);
    memset(c->dirty, 0, c->slots);
    c->frame.uploads = c->uploads;
    c->frame.upload_count = n;
    c->frame.stats.bytes_uploaded = bytes;
}

static uint32_t draw_flags(const crowd *c, uint32_t lod)
{
    uint32_t flags = 0;
    if (c->desc.shadows > 0 && lod <= c->desc.shadow_max_lod)
        flags |= CROWD_DRAW_SHADOW;
    if (lod <= c->desc.cross_fade_max_lod)
        flags |= CROWD_DRAW_CROSS_FADE;
    return flags;
}

static void add_draw(crowd *c, uint32_t lod, uint32_t first, uint32_t count, uint32_t extra_flags)
{
    if (!count)
        return;
    crowd_stats *st = &c->frame.stats;
    uint32_t flags = draw_flags(c, lod) | extra_flags;
    c->draws[c->frame.draw_count++] = (crowd_draw){lod, first, count, flags};
    uint64_t tris = (uint64_t)count * c->asset->lods[lod].triangle_count;
    st->draws++;
    st->submitted += count;
    st->triangles += tris;
    st->lod_histogram[lod] += count;
    if (flags & CROWD_DRAW_SHADOW) {
        st->shadow_draws++;
        st->shadow_triangles += tris;
    }
}

/* Draws from the sorted layout: each visible chunk alone (in rank order), the far pool as one. */
static void build_draws_distance(crowd *c)
{
    uint32_t pool_first = UINT32_MAX, pool_end = 0;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        const crowd_cell *cell = &c->cells[i];
        if (!cell->count || !cell->visible)
            continue;
        c->frame.stats.chunks_visible++;
        uint32_t first = c->rank_start[cell->rank], count = c->rank_start[cell->rank + 1] - first;
        if (!cell->pooled) {
            add_draw(c, cell->lod, first, count, 0);
            continue;
        }
        pool_first = first < pool_first ? first : pool_first; /* pooled ranks are consecutive */
        pool_end = first + count > pool_end ? first + count : pool_end;
    }
    if (pool_first != UINT32_MAX)
        add_draw(c, c->asset->lod_count - 1, pool_first, pool_end - pool_first, CROWD_DRAW_POOL);
}

/* Coverage policy: one draw per level; level l owns ranks [l * cells, (l + 1) * cells). */
static void build_draws_coverage(crowd *c)
{
    for (uint32_t i = 0; i < c->cell_count; i++)
        c->frame.stats.chunks_visible += c->cells[i].count && c->cells[i].visible;
    for (uint32_t lod = 0; lod < c->asset->lod_count; lod++) {
        uint32_t first = c->rank_start[lod * c->cell_count], end = c->rank_start[(lod + 1) * c->cell_count];
        add_draw(c, lod, first, end - first, 0);
    }
}

const crowd_frame *crowd_update(crowd *c, float dt, const crowd_view *view)
{
    if (!c || !view)
        return NULL;
    if (dt > 0.0f && isfinite(dt))
        c->time += dt;
    if (c->time > REBASE_AFTER) {
        rebase_time(c);
        c->binned = false;
    }

    crowd_camera camera;
    crowd_camera_from_view(view, &camera);
    memset(&c->frame.stats, 0, sizeof c->frame.stats);
    c->frame.stats.budget_satisfied = true;
    c->frame.draw_count = 0;
    bool distance = c->desc.lod_policy == CROWD_LOD_DISTANCE;

    double t0 = now_ms();
    if (!c->binned)
        bin_all(c);
    c->binned = false;
    double t1 = now_ms();
    crowd_classify_cells(c, &camera);
    if (!distance)
        crowd_assign_coverage_lods(c, &camera);
    bool sorted = distance ? distance_ranks(c) : coverage_ranks(c);
    double t2 = now_ms();
    if (!sorted)
        sort_slots(c, distance);
    double t3 = now_ms();
    if (distance)
        build_draws_distance(c);
    else
        build_draws_coverage(c);
    build_uploads(c);
    double t4 = now_ms();

    crowd_stats *st = &c->frame.stats;
    st->ms_bin = (float)(t1 - t0);
    st->ms_lod = (float)(t2 - t1);
    st->ms_gather = (float)(t3 - t2);
    st->ms_output = (float)(t4 - t3);
    st->simulated = c->count;
    for (uint32_t i = 0; i < c->cell_count; i++)
        st->chunks_total += c->cells[i].count > 0;
    st->fades_active = c->fades_active;
    c->frame.draws = c->draws;
    c->frame.records = c->records;
    c->frame.record_count = c->slots;
    c->frame.time = (float)c->time;
    return &c->frame;
}

uint32_t crowd_count_visible(crowd *c, const crowd_view *view)
{
    if (!c || !view)
        return 0;
    crowd_camera camera;
    crowd_camera_from_view(view, &camera);
    uint32_t visible = 0;
    for (uint32_t d = 0; d < c->frame.draw_count; d++) {
        const crowd_draw *draw = &c->draws[d];
        for (uint32_t s = draw->first; s < draw->first + draw->count; s++) {
            const crowd_record *r = &c->records[s];
            float centre[3] = {r->position[0], r->position[1] + c->asset->sphere_center_y * r->scale, r->position[2]};
            visible += crowd_sphere_visible(&camera, centre, crowd_instance_radius(c, r->scale));
        }
    }
    c->frame.stats.rasterised = visible;
    return visible;
}
