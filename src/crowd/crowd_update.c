/* One update: time, the chunk grid (binning, which also folds finished fades), culling and LOD,
 * keeping records in draw order (region moves or a re-layout for the distance policy, a counting
 * sort for the coverage policy), upload ranges, draws and stats. */
#include <math.h>
#include <string.h>

#include "core/clock.h"
#include "core/error.h"
#include "crowd/crowd_testing.h"

/* Shader time is a float; past this many seconds it is rebased so phases keep ~1e-4 precision. */
#define REBASE_AFTER 2048.0
#define REBASE_BY 1024.0

/* A clip's offset after time moves back by REBASE_BY: a looping one wrapped into [0, 1); a held
 * one exact, unless it has played out (phase past 1, or below 0 backwards), where it is pinned at
 * its end so the offset stays small however long the clip holds. */
static float rebased_offset(float offset, float rate, bool hold, double time)
{
    double shifted = offset + REBASE_BY * (double)rate;
    if (!hold)
        return (float)(shifted - floor(shifted));
    double phase = offset + time * rate, later = time - REBASE_BY;
    if (rate >= 0.0f && phase >= 1.0)
        return (float)(1.0 - later * rate);
    if (rate < 0.0f && phase <= 0.0)
        return (float)(-later * rate);
    return (float)shifted;
}

static void rebase_time(crowd *c)
{
    for (uint32_t s = 0; s < c->slots; s++) {
        if (c->index_of_slot[s] == CROWD_HOLE)
            continue;
        crowd_record *r = &c->records[s];
        r->offset_a = rebased_offset(r->offset_a, r->rate_a, r->clips & CROWD_RECORD_HOLD_A, c->time);
        if (crowd_rec_turning(r)) {
            /* a turn goes on exactly (its words are no times), unless it has long converged (or
             * is parked): then it walks straight on at its desired velocity from now */
            if (c->index_of_slot[s] >= c->count || r->fade_start * ((float)c->time - r->ref_time) > 30.0f)
                crowd_rec_anchor(r, (float)c->time);
            r->ref_time = (float)((double)r->ref_time - REBASE_BY);
            c->dirty[s] = 1;
            continue;
        }
        r->offset_b = rebased_offset(r->offset_b, r->rate_b, r->clips & CROWD_RECORD_HOLD_B, c->time);
        r->fade_start = (float)(r->fade_start - REBASE_BY);
        /* re-anchored at the present, so time - ref_time stays small however long it walks on
         * (a parked record stands where it was parked, its time shifted with the rest) */
        if (c->index_of_slot[s] < c->count)
            crowd_rec_anchor(r, (float)c->time);
        r->ref_time = (float)((double)r->ref_time - REBASE_BY);
        c->dirty[s] = 1;
    }
    c->time -= REBASE_BY;
    crowd_note(c, CROWD_CHANGED_TIME);
}

/* One task's share of the live regions (crowd_tasks.c). */
static void bin_task(void *context, crowd_task *t)
{
    crowd *c = context;
    uint32_t first, end;
    while (crowd_task_span(t, &first, &end))
        for (uint32_t s = first; s < end; s++) {
            crowd_record *r = &c->records[s];
            float p[3];
            crowd_bin_fade(&t->bin, r, s);
            crowd_rec_position(r, t->bin.time, p);
            crowd_bin_add(&t->bin, s, r, p, crowd_chunk_at(&t->bin.grid, p));
        }
}

/* Region mode walks the live regions only (own regions and the pool come before parked). */
static void bin_all(crowd *c)
{
    crowd_binner b;
    crowd_bin_begin(c, &b, (float)c->time);
    if (crowd_tasks_enabled(c)) {
        uint32_t n;
        crowd_run_tasks(c, &b, bin_task, c, &n);
    } else if (crowd_has_regions(c)) {
        for (uint32_t g = 0; g < c->parked_region; g++) {
            const crowd_slot_region *region = &c->regions[g];
            if (!region->count)
                continue;
            crowd_bin_region(&b, g);
            for (uint32_t s = region->start; s < region->start + region->count; s++) {
                crowd_record *r = &c->records[s];
                float p[3];
                crowd_bin_fade(&b, r, s);
                crowd_rec_position(r, b.time, p);
                crowd_bin_add(&b, s, r, p, crowd_chunk_at(&b.grid, p));
            }
        }
    } else {
        for (uint32_t s = 0; s < c->slots; s++)
            crowd_bin_slot(&b, s);
    }
    crowd_bin_end(&b);
    bool settled = c->fades_active == 0;
    for (uint32_t i = 0; i < c->cell_count && settled; i++)
        settled = !(c->cells[i].count && c->cells[i].max_speed > 0.0f);
    if (settled)
        crowd_refreshed(c, CROWD_STALE_GRID);
}

/* The grid from the last binning, when it holds for this frame too: no live instance moves and no
 * fade runs (bin_all found), and nothing changed since (CROWD_STALE_GRID, a slot marked outside a
 * walk). No movers to apply, the cells' counts, bounds and speeds as they were: O(1) instead of
 * O(live), so a settled crowd costs no pass. */
static bool reuse_grid(crowd *c)
{
    if (crowd_is_stale(c, CROWD_STALE_GRID | CROWD_STALE_UPLOAD_SCAN))
        return false;
    c->mover_count = 0;
    c->movers_overflow = false;
    c->work.bins_reused++;
    return true;
}

/* ---- coverage policy: slots kept in order of level ------------------------------------------- */

/* A slot's rank is (level, chunk) (culled: after every level, by chunk; parked last) and its
 * bucket the level part: the draws need the slots grouped by bucket only (one draw per level), the
 * chunk order within one is for locality. So a frame whose buckets are still in order keeps its
 * slots; one where a few instances changed level (or were culled, or came back) moves just those
 * (move_buckets); holes, a first layout or many moves sort everything by rank (sort_slots). */
#define COVERAGE_BUCKETS (CROWD_MAX_LODS + 2)

static inline uint32_t bucket_of(const crowd *c, uint32_t rank)
{
    return rank / c->cell_count; /* levels 0.., CROWD_MAX_LODS culled, CROWD_MAX_LODS + 1 parked */
}

typedef enum coverage_order {
    ORDER_KEPT,  /* buckets in order: nothing to move */
    ORDER_MOVES, /* a few slots in the wrong bucket: move_buckets */
    ORDER_SORT   /* holes (or many moves): sort_slots */
} coverage_order;

/* Ranks are per slot; count them, and check whether slots are in bucket order (holes left by the
 * distance policy's regions are dropped by the sort, so any hole means sorting). */
static coverage_order coverage_ranks(crowd *c)
{
    uint32_t *start = c->rank_start, previous = 0, previous_rank = 0;
    bool in_order = true, rank_order = true, holes = false;
    memset(start, 0, sizeof(uint32_t) * (c->rank_count + 1));
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t rank = c->rank_of_slot[s];
        if (c->index_of_slot[s] == CROWD_HOLE) {
            holes = true;
            continue;
        }
        start[rank + 1]++;
        uint32_t bucket = bucket_of(c, rank);
        in_order &= bucket >= previous;
        previous = bucket;
        rank_order &= rank >= previous_rank;
        previous_rank = rank;
    }
    for (uint32_t r = 0; r < c->rank_count; r++)
        start[r + 1] += start[r];
    if (c->test_hooks && c->test_hooks->coverage_full_sort) /* the reference: any break of the rank order sorts */
        return rank_order && !holes ? ORDER_KEPT : ORDER_SORT;
    if (holes)
        return ORDER_SORT;
    return in_order ? ORDER_KEPT : ORDER_MOVES;
}

/* Slots a and b trade everything; both are dirty (their bytes changed for the renderer). */
static void swap_slots(crowd *c, uint32_t a, uint32_t b)
{
    crowd_record r = c->records[a];
    c->records[a] = c->records[b];
    c->records[b] = r;
    uint32_t u = c->index_of_slot[a];
    c->index_of_slot[a] = c->index_of_slot[b];
    c->index_of_slot[b] = u;
    u = c->cell_of_slot[a];
    c->cell_of_slot[a] = c->cell_of_slot[b];
    c->cell_of_slot[b] = u;
    u = c->rank_of_slot[a];
    c->rank_of_slot[a] = c->rank_of_slot[b];
    c->rank_of_slot[b] = u;
    uint8_t l = c->lod_of_slot[a];
    c->lod_of_slot[a] = c->lod_of_slot[b];
    c->lod_of_slot[b] = l;
    l = c->lod_back[a];
    c->lod_back[a] = c->lod_back[b];
    c->lod_back[b] = l;
    c->dirty[a] = c->dirty[b] = 1;
    crowd_client_swap(c, a, b);
    c->slot_of_index[c->index_of_slot[a]] = a;
    c->slot_of_index[c->index_of_slot[b]] = b;
}

/* In-place bucket placement (an American-flag pass): each bucket's range comes from the rank
 * counts; a slot in another bucket's range is swapped with the next slot of its own bucket's
 * range that does not belong there. Every swap puts at least one slot in place, so it moves the
 * instances that changed bucket (and as many displaced ones) instead of every record, and the
 * scans read the rank array once. False (nothing moved) when so many are out of place that the
 * full sort, which also restores the chunk order, is as cheap. */
static bool move_buckets(crowd *c)
{
    uint32_t bound[COVERAGE_BUCKETS + 1], cursor[COVERAGE_BUCKETS];
    for (uint32_t b = 0; b < COVERAGE_BUCKETS; b++)
        bound[b] = c->rank_start[b * c->cell_count];
    bound[COVERAGE_BUCKETS] = c->rank_start[c->rank_count];
    uint32_t misplaced = 0;
    for (uint32_t b = 0; b < COVERAGE_BUCKETS; b++)
        for (uint32_t s = bound[b]; s < bound[b + 1]; s++)
            misplaced += bucket_of(c, c->rank_of_slot[s]) != b;
    if (misplaced > c->slots / 8)
        return false;
    if (crowd_is_stale(c, CROWD_STALE_INDEX_MAP)) /* swaps keep the index map current: start from a current one */
        crowd_rebuild_index_map(c);
    memcpy(cursor, bound, sizeof cursor);
    for (uint32_t b = 0; b < COVERAGE_BUCKETS; b++)
        while (cursor[b] < bound[b + 1]) {
            uint32_t s = cursor[b], a = bucket_of(c, c->rank_of_slot[s]);
            if (a == b) {
                cursor[b]++;
                continue;
            }
            while (bucket_of(c, c->rank_of_slot[cursor[a]]) == a) /* buckets before b are full */
                cursor[a]++;
            swap_slots(c, s, cursor[a]++);
        }
    c->work.coverage_moves++;
    return true;
}

/* Stable counting sort of the slot arrays by rank into the back buffers, then swap. A slot's
 * bytes changed for the renderer when it moved or was written: that is its new dirty flag. */
static void sort_slots(crowd *c)
{
    uint32_t *next = c->rank_cursor, *dest = c->rank_of_slot, n = 0; /* (each rank read before its slot's dest) */
    c->work.coverage_sorts++;
    memcpy(next, c->rank_start, sizeof(uint32_t) * c->rank_count);
    for (uint32_t s = 0; s < c->slots; s++) {
        if (c->index_of_slot[s] == CROWD_HOLE) {
            dest[s] = UINT32_MAX;
            continue;
        }
        uint32_t d = next[c->rank_of_slot[s]]++;
        c->records_back[d] = c->records[s];
        c->index_back[d] = c->index_of_slot[s];
        c->cell_back[d] = c->cell_of_slot[s];
        c->dirty_back[d] = (uint8_t)(c->dirty[s] | (d != s));
        c->lod_back[d] = c->lod_of_slot[s];
        dest[s] = d;
        n++;
    }
    crowd_client_scatter(c, dest, c->slots);
    crowd_flip_slot_arrays(c, true);
    c->slots = n;
    crowd_note(c, CROWD_CHANGED_ORDER); /* the index map is rebuilt when someone asks by index */
}

/* Distance policy: instances that changed chunk move one by one, and so do the instances of the
 * few chunks that joined or left the far pool; many chunks changing group (the camera moved), too
 * many movers or no layout yet means a full re-layout. */
static void place_instances(crowd *c)
{
    if (crowd_is_stale(c, CROWD_STALE_LAYOUT) || !crowd_regroup_chunks(c) || !crowd_apply_movers(c))
        crowd_layout_regions(c);
}

/* ---- upload ranges ---------------------------------------------------------------------------- */

typedef struct upload_list {
    uint32_t n;
    bool full; /* out of ranges: the last one runs to the end */
} upload_list;

static void add_upload(crowd *c, upload_list *u, uint32_t first, uint32_t end)
{
    if (u->full)
        return;
    if (u->n == c->upload_capacity) { /* too fragmented: one range to the end */
        c->uploads[u->n - 1].count = c->slots - c->uploads[u->n - 1].first;
        u->full = true;
        return;
    }
    c->uploads[u->n++] = (crowd_range){first, end - first};
}

/* Dirty slots of [first, end) -> ranges, then the flags cleared. The scan reads eight flags at a
 * time (no call per run: a walking crowd has a standing agent every few slots); a range ends at
 * two clean words (16 slots or more of clean gap), and its ends are trimmed to dirty slots. */
static void scan_dirty(crowd *c, upload_list *u, uint32_t first, uint32_t end)
{
    const uint8_t *d = c->dirty;
    uint32_t run = UINT32_MAX, run_end = 0; /* the open range: [run, run_end) */
    for (uint32_t s = first; s < end; s += 8) {
        uint32_t n = end - s < 8 ? end - s : 8;
        uint64_t w = 0;
        memcpy(&w, d + s, n);
        if (!w) {
            if (run != UINT32_MAX && s >= run_end + 8) { /* this word and the last one clean */
                while (!d[run_end - 1])
                    run_end--;
                add_upload(c, u, run, run_end);
                run = UINT32_MAX;
            }
            continue;
        }
        if (run == UINT32_MAX)
            for (run = s; !d[run]; run++)
                ;
        run_end = s + n;
    }
    if (run != UINT32_MAX) {
        while (!d[run_end - 1])
            run_end--;
        add_upload(c, u, run, run_end);
    }
    memset(c->dirty + first, 0, end - first);
}

/* With regions, only regions where something was written or moved are scanned (a settled chunk
 * costs nothing), and ranges never span two regions' slack. */
static void build_uploads(crowd *c)
{
    upload_list u = {0, false};
    if (!crowd_is_stale(c, CROWD_STALE_LAYOUT)) {
        bool everywhere = crowd_is_stale(c, CROWD_STALE_UPLOAD_SCAN);
        for (uint32_t g = 0; g < c->tail_region; g++) {
            crowd_slot_region *r = &c->regions[g];
            if (r->dirty || everywhere) /* its slack too: slots that became holes re-upload */
                scan_dirty(c, &u, r->start, r->start + r->capacity);
            r->dirty = false;
        }
    } else {
        scan_dirty(c, &u, 0, c->slots);
    }
    crowd_refreshed(c, CROWD_STALE_UPLOAD_SCAN);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < u.n; i++)
        bytes += (uint64_t)c->uploads[i].count * sizeof(crowd_record);
    c->frame.uploads = c->uploads;
    c->frame.upload_count = u.n;
    c->frame.stats.bytes_uploaded = bytes;
}

static uint32_t draw_flags(const crowd *c, uint32_t lod)
{
    uint32_t flags = 0;
    if (c->desc.shadows > 0 && lod <= c->shadow_max)
        flags |= CROWD_DRAW_SHADOW;
    if (lod <= c->fade_max)
        flags |= CROWD_DRAW_CROSS_FADE;
    return flags;
}

static void add_draw(crowd *c, uint32_t lod, uint32_t first, uint32_t count, uint32_t extra_flags)
{
    if (!count)
        return;
    crowd_stats *st = &c->frame.stats;
    uint32_t flags = draw_flags(c, lod) | extra_flags;
    if (lod == c->imposter_level) /* cards cast no mesh shadow and play one clip */
        flags = (flags & ~(uint32_t)(CROWD_DRAW_SHADOW | CROWD_DRAW_CROSS_FADE)) | CROWD_DRAW_IMPOSTER;
    c->draws[c->frame.draw_count++] = (crowd_draw){lod, first, count, flags};
    uint64_t tris = (uint64_t)count * crowd_level_triangles(c, lod);
    st->draws++;
    st->submitted += count;
    st->triangles += tris;
    st->lod_histogram[lod] += count;
    if (flags & CROWD_DRAW_SHADOW) {
        st->shadow_draws++;
        st->shadow_triangles += tris;
    }
}

/* Draws from the regions: each visible chunk that is not pooled alone, the far pool as one. */
static void build_draws_distance(crowd *c)
{
    for (uint32_t i = 0; i < c->cell_count; i++) {
        const crowd_cell *cell = &c->cells[i];
        if (!cell->count || !cell->visible)
            continue;
        c->frame.stats.chunks_visible++;
        if (!cell->pooled) {
            const crowd_slot_region *r = &c->regions[c->region_of_cell[i]];
            add_draw(c, cell->lod, r->start, r->count, cell->band ? CROWD_DRAW_BAND : 0);
            if (cell->band) /* the same records again as cards; each instance kept by one of the two */
                add_draw(c, c->imposter_level, r->start, r->count, CROWD_DRAW_BAND);
        }
    }
    const crowd_slot_region *pool = &c->regions[c->pool_region];
    add_draw(c, c->levels - 1, pool->start, pool->count, CROWD_DRAW_POOL);
}

static void count_visible_chunks(crowd *c)
{
    for (uint32_t i = 0; i < c->cell_count; i++)
        c->frame.stats.chunks_visible += c->cells[i].count && c->cells[i].visible;
}

/* Coverage policy: one draw per level; level l owns ranks [l * cells, (l + 1) * cells). */
static void build_draws_coverage(crowd *c)
{
    count_visible_chunks(c);
    for (uint32_t lod = 0; lod < c->levels; lod++) {
        uint32_t first = c->rank_start[lod * c->cell_count], end = c->rank_start[(lod + 1) * c->cell_count];
        add_draw(c, lod, first, end - first, 0);
    }
}

/* Whether the view's culling and margin are in range (else the reason into crowd_last_error). */
static bool view_ok(crowd *c, const crowd_view *view, const char *who)
{
    if (view->culling != CROWD_CULLING_CPU && view->culling != CROWD_CULLING_GPU) {
        crowd_fail(&c->last_error, CROWD_ERROR_ARGUMENT, "%s: view.culling %d: CROWD_CULLING_CPU or _GPU", who,
                   (int)view->culling);
        return false;
    }
    /* the largest accepted scale times the margin must stay a finite radius */
    if (!(view->cull_margin >= 0.0f && view->cull_margin <= CROWD_MAX_CULL_MARGIN)) {
        crowd_fail(&c->last_error, CROWD_ERROR_ARGUMENT, "%s: view.cull_margin %g m outside 0..%g", who,
                   (double)view->cull_margin, (double)CROWD_MAX_CULL_MARGIN);
        return false;
    }
    return true;
}

/* Time moves on by dt, and the step's events are taken from the records as the callers left them,
 * in the time base they were written in: before a rebase moves the offsets. A step longer than the
 * rebase interval (a resume from sleep, milliseconds passed as seconds) is clamped so one rebase
 * always brings time back under REBASE_AFTER. */
static void advance_time(crowd *c, float dt)
{
    double t0 = c->time;
    if (dt > 0.0f && isfinite(dt))
        c->time += dt < REBASE_BY ? dt : REBASE_BY;
    double e0 = crowd_clock_ms();
    crowd_events_collect(c, t0, c->time);
    c->frame.stats.ms_events = (float)(crowd_clock_ms() - e0);
    if (c->time > REBASE_AFTER) {
        rebase_time(c);
        crowd_events_shift(c, REBASE_BY);
    }
}

const crowd_frame *crowd_update(crowd *c, float dt, const crowd_view *view)
{
    if (!c || !view || !view_ok(c, view, "crowd_update"))
        return NULL;
    /* (switching who culls needs nothing undone: slots in no order are sorted by the next update
     * that ranks them) */
    c->gpu_driven = view->culling == CROWD_CULLING_GPU;
    c->cull_margin = view->cull_margin;
    memset(&c->frame.stats, 0, sizeof c->frame.stats);
    c->frame.stats.budget_satisfied = true;
    advance_time(c, dt);

    crowd_camera camera;
    crowd_camera_from_view(view, &camera);
    memcpy(c->eye, camera.position, sizeof c->eye);
    c->has_eye = true;
    c->frame.draw_count = 0;
    bool distance = c->desc.lod_policy == CROWD_LOD_DISTANCE;
    if (!distance)
        c->stale |= CROWD_STALE_LAYOUT;

    double t_bin = crowd_clock_ms();
    if (crowd_is_stale(c, CROWD_STALE_BINNING) && !reuse_grid(c)) /* (a walk binned this frame) */
        bin_all(c);
    c->stale |= CROWD_STALE_BINNING; /* the next frame's is the next walk's */
    double t1 = crowd_clock_ms();
    /* per chunk, also under a GPU pass: the simulation's level of detail reads the visibility */
    crowd_classify_cells(c, &camera);
    bool per_instance = !distance && !c->gpu_driven; /* a GPU pass picks the levels itself */
    if (per_instance)
        crowd_assign_coverage_lods(c, &camera);
    coverage_order order = per_instance ? coverage_ranks(c) : ORDER_KEPT;
    double t2 = crowd_clock_ms();
    if (distance) /* the region layout stays under a GPU pass: the simulation walks it */
        place_instances(c);
    else if (order == ORDER_SORT || (order == ORDER_MOVES && !move_buckets(c)))
        sort_slots(c);
    double t3 = crowd_clock_ms();
    if (c->gpu_driven)
        count_visible_chunks(c);
    else if (distance)
        build_draws_distance(c);
    else
        build_draws_coverage(c);
    build_uploads(c);
    double t4 = crowd_clock_ms();

    crowd_stats *st = &c->frame.stats;
    st->ms_bin = (float)(t1 - t_bin);
    st->ms_lod = (float)(t2 - t1);
    st->ms_gather = (float)(t3 - t2);
    st->ms_output = (float)(t4 - t3);
    st->simulated = c->count;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        st->chunks_total += c->cells[i].count > 0;
        st->extrapolating |= c->cells[i].count > 0 && c->cells[i].max_speed > 0.0f;
    }
    st->fades_active = c->fades_active;
    c->frame.draws = c->draws;
    if (crowd_is_stale(c, CROWD_STALE_INDEX_MAP)) /* readers (crowd_get is const) never rebuild it */
        crowd_rebuild_index_map(c);
    c->frame.records = c->records;
    c->frame.record_count = c->slots;
    c->frame.slot_instances = c->index_of_slot;
    c->frame.time = (float)c->time;
    c->frame.settings = &c->desc;
    c->frame.culling = view->culling;
    c->frame.cull_margin = view->cull_margin;
    return &c->frame;
}

uint32_t crowd_count_visible(crowd *c, const crowd_view *view)
{
    if (!c || !view || !view_ok(c, view, "crowd_count_visible"))
        return 0;
    c->cull_margin = view->cull_margin;
    crowd_camera camera;
    crowd_camera_from_view(view, &camera);
    uint32_t visible = 0;
    for (uint32_t d = 0; d < c->frame.draw_count; d++) {
        const crowd_draw *draw = &c->draws[d];
        for (uint32_t s = draw->first; s < draw->first + draw->count; s++) {
            const crowd_record *r = &c->records[s];
            float centre[3], radius;
            crowd_cull_sphere(c, r, centre, &radius);
            visible += crowd_sphere_visible(&camera, centre, radius);
        }
    }
    c->frame.stats.rasterised = visible;
    return visible;
}
