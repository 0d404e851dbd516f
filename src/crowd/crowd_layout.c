/* The region layout of the distance policy (see crowd_slot_region in crowd_internal.h): a full re-layout
 * by counting sort when the camera changes which chunks draw together, and single-instance moves
 * when instances change chunk, so a walking crowd costs O(movers) per update instead of a copy of
 * every record.
 *
 * Slot moves use the back buffers as scratch: a mover is saved there, swap-removed from its
 * region, then appended to its new region, which grows into its neighbours' slack if it is full
 * (packed-memory-array style: each region in between shifts by moving at most `need` records). */
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd_internal.h"

/* Slack per region at a re-layout, in slots: a region of n drifts by about sqrt(n) instances over
 * a few seconds of walking, so n / 16 + 4 lasts long at every scale; grow_region handles the rest. */
static uint32_t wanted_slack(uint32_t n)
{
    return n / 16 + 4;
}

void crowd_move_slot(crowd *c, uint32_t from, uint32_t to)
{
    c->records[to] = c->records[from];
    crowd_client_copy(c, to, from);
    c->index_of_slot[to] = c->index_of_slot[from];
    c->lod_of_slot[to] = c->lod_of_slot[from];
    c->dirty[to] = 1; /* its bytes changed for the renderer */
    uint32_t index = c->index_of_slot[to];
    if (!crowd_is_stale(c, CROWD_STALE_INDEX_MAP) && index != CROWD_HOLE)
        c->slot_of_index[index] = to;
}

static void make_hole(crowd *c, uint32_t s)
{
    c->index_of_slot[s] = CROWD_HOLE;
    c->dirty[s] = 1; /* never drawn, but its owner changed (frame.slot_instances' readers) */
}

static void save_slot(crowd *c, uint32_t s, uint32_t k)
{
    c->records_back[k] = c->records[s];
    crowd_client_save(c, k, s);
    c->index_back[k] = c->index_of_slot[s];
    c->lod_back[k] = c->lod_of_slot[s];
}

static void restore_slot(crowd *c, uint32_t k, uint32_t s)
{
    c->records[s] = c->records_back[k];
    crowd_client_restore(c, s, k);
    c->index_of_slot[s] = c->index_back[k];
    c->lod_of_slot[s] = c->lod_back[k];
    c->dirty[s] = 1;
    if (!crowd_is_stale(c, CROWD_STALE_INDEX_MAP))
        c->slot_of_index[c->index_back[k]] = s;
}

static uint32_t target_region(const crowd *c, uint32_t cell)
{
    return cell == CROWD_PARKED_CELL ? c->parked_region : c->region_of_cell[cell];
}

/* ---- moving instances between regions --------------------------------------------------------- */

static void region_remove(crowd *c, uint32_t g, uint32_t s)
{
    crowd_slot_region *r = &c->regions[g];
    uint32_t last = r->start + r->count - 1;
    if (s != last)
        crowd_move_slot(c, last, s);
    make_hole(c, last);
    r->count--;
    r->dirty = true;
}

/* Moves region g's start by `need` slots (right or left), relocating at most `need` of its live
 * records (order inside a region does not matter); the caller fixes capacities. */
static void shift_region(crowd *c, uint32_t g, uint32_t need, bool right)
{
    crowd_slot_region *r = &c->regions[g];
    uint32_t n = r->count, moved = n < need ? n : need, src, dst;
    if (right) {
        src = r->start;
        dst = n <= need ? r->start + need : r->start + n;
        r->start += need;
    } else {
        src = n <= need ? r->start : r->start + n - need;
        dst = r->start - need;
        r->start -= need;
    }
    for (uint32_t i = 0; i < moved; i++) { /* source and destination never overlap */
        crowd_move_slot(c, src + i, dst + i);
        make_hole(c, src + i);
    }
    r->dirty |= moved > 0;
}

/* The nearest region (other than g) with at least `need` free slots, or CROWD_NO_REGION. */
static uint32_t find_donor(const crowd *c, uint32_t g, uint32_t need)
{
    for (uint32_t d = 1; d < c->region_count; d++) {
        if (g + d < c->region_count && c->regions[g + d].capacity - c->regions[g + d].count >= need)
            return g + d;
        if (d <= g && c->regions[g - d].capacity - c->regions[g - d].count >= need)
            return g - d;
    }
    return CROWD_NO_REGION;
}

/* Gives full region g more slack, taken from the nearest region that has some; the regions in
 * between shift over. Always succeeds: the slot array is larger than the instances. */
static void grow_region(crowd *c, uint32_t g)
{
    uint32_t need = wanted_slack(c->regions[g].count), donor = find_donor(c, g, need);
    if (donor == CROWD_NO_REGION) {
        donor = find_donor(c, g, 1);
        need = c->regions[donor].capacity - c->regions[donor].count;
        need = need < wanted_slack(c->regions[g].count) ? need : wanted_slack(c->regions[g].count);
    }
    c->regions[donor].capacity -= need;
    if (donor > g)
        for (uint32_t q = donor; q > g; q--)
            shift_region(c, q, need, true);
    else
        for (uint32_t q = donor + 1; q <= g; q++)
            shift_region(c, q, need, false);
    c->regions[g].capacity += need;
    /* The holes a shift leaves can land in another region's range (one with less slack than
     * `need`, an empty one): every region from the donor to g is scanned for uploads, or those
     * holes' new owners never reach the renderer, whose GPU pass would then draw the stale record
     * there as a second copy of the instance that moved out (tests/test_gpu_driven). */
    for (uint32_t q = donor < g ? donor : g; q <= (donor < g ? g : donor); q++)
        c->regions[q].dirty = true;
    c->slots = c->regions[c->tail_region].start;
    c->work.grows++;
}

static void region_append(crowd *c, uint32_t g, uint32_t k)
{
    if (c->regions[g].count == c->regions[g].capacity)
        grow_region(c, g);
    crowd_slot_region *r = &c->regions[g];
    restore_slot(c, k, r->start + r->count++);
    r->dirty = true;
}

/* Movers were listed in slot order. Removing them in reverse order means the record that fills a
 * removed slot (its region's last live one) is never a mover still waiting. */
bool crowd_apply_movers(crowd *c)
{
    if (c->movers_overflow)
        return false;
    for (uint32_t k = c->mover_count; k-- > 0;) {
        save_slot(c, c->movers[k].slot, k);
        region_remove(c, c->movers[k].from, c->movers[k].slot);
    }
    for (uint32_t k = 0; k < c->mover_count; k++)
        region_append(c, target_region(c, c->movers[k].cell), k);
    c->mover_count = 0;
    return true;
}

/* The region holding slot s: the last one starting at or before it (empty regions share a start
 * with the next, which is the one that can hold s). */
static uint32_t region_of_slot(const crowd *c, uint32_t s)
{
    uint32_t lo = 0, hi = c->region_count; /* invariant: regions[lo].start <= s */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->regions[mid].start <= s)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void crowd_park_slot(crowd *c, uint32_t slot)
{
    uint32_t from = region_of_slot(c, slot);
    if (from == c->parked_region)
        return;
    save_slot(c, slot, 0);
    region_remove(c, from, slot);
    region_append(c, c->parked_region, 0);
}

/* ---- chunks changing draw group ---------------------------------------------------------------- */

static int compare_movers(const void *a, const void *b)
{
    uint32_t x = ((const crowd_mover *)a)->slot, y = ((const crowd_mover *)b)->slot;
    return (x > y) - (x < y);
}

/* Lists as movers every slot of region g whose chunk now belongs elsewhere. */
static bool rescan_region(crowd *c, uint32_t g)
{
    crowd_grid_map grid = crowd_grid_of(c);
    const crowd_slot_region *r = &c->regions[g];
    for (uint32_t s = r->start; s < r->start + r->count; s++) {
        float p[3];
        crowd_rec_position(&c->records[s], c->bin_time, p); /* where binning saw it */
        uint32_t cell = crowd_chunk_at(&grid, p);
        if (c->region_of_cell[cell] == g)
            continue;
        if (c->mover_count == c->mover_capacity)
            return false;
        c->movers[c->mover_count++] = (crowd_mover){s, cell, g};
    }
    return true;
}

/* Movers from the binning, minus those of the rescanned regions (the scan finds them again). */
static void drop_movers_from(crowd *c, const uint32_t *regions, uint32_t n)
{
    uint32_t kept = 0;
    for (uint32_t k = 0; k < c->mover_count; k++) {
        bool rescanned = false;
        for (uint32_t i = 0; i < n; i++)
            rescanned |= c->movers[k].from == regions[i];
        if (!rescanned)
            c->movers[kept++] = c->movers[k];
    }
    c->mover_count = kept;
}

/* A chunk that joins the far pool (it moved past the last LOD distance, or walked into the far
 * field from empty) or leaves it (culled, or closer) moves its instances as movers: its own
 * region's, or those found by one scan of the pool region. Many chunks changing at once (the
 * camera moved) means a full re-layout is cheaper: returns false. */
bool crowd_regroup_chunks(crowd *c)
{
    const uint32_t most = 16;
    uint32_t rescan[16 + 1], n = 0;
    bool pool_leavers = false;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        bool in_pool = c->region_of_cell[i] == c->pool_region;
        if (!c->cells[i].count || c->cells[i].pooled == in_pool)
            continue;
        if (n == most)
            return false;
        c->region_of_cell[i] = c->cells[i].pooled ? c->pool_region : i; /* a chunk's own region is its id */
        c->work.regroups++;
        if (c->cells[i].pooled)
            rescan[n++] = i;
        pool_leavers |= !c->cells[i].pooled;
    }
    if (pool_leavers)
        rescan[n++] = c->pool_region;
    if (!n)
        return true;
    drop_movers_from(c, rescan, n);
    for (uint32_t i = 0; i < n; i++)
        if (!rescan_region(c, rescan[i]))
            return false;
    _Static_assert(sizeof(crowd_mover) <= CROWD_SORT_MAX_ITEM, "movers sort in place");
    crowd_sort(c->movers, c->mover_count, sizeof *c->movers, compare_movers); /* crowd_apply_movers needs slot order */
    return true;
}

/* ---- full re-layout --------------------------------------------------------------------------- */

#define HOLE_CELL (CROWD_PARKED_CELL - 1) /* cell_of_slot of a hole, during a re-layout */

/* Chunk of every slot (CROWD_PARKED_CELL for parked, HOLE_CELL for holes) into cell_of_slot, and
 * instances per chunk into rank_start (the layout counts for itself rather than trusting the
 * binning, so a slot array in any state lays out safely). Returns the parked count. */
static uint32_t count_slots(crowd *c)
{
    crowd_grid_map grid = crowd_grid_of(c);
    uint32_t *per_cell = c->rank_start, parked = 0;
    memset(per_cell, 0, sizeof(uint32_t) * c->cell_count);
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t index = c->index_of_slot[s], cell = HOLE_CELL;
        if (index < c->count) {
            float p[3];
            crowd_rec_position(&c->records[s], c->bin_time, p); /* where binning saw it */
            cell = crowd_chunk_at(&grid, p);
            per_cell[cell]++;
        } else if (index != CROWD_HOLE) {
            cell = CROWD_PARKED_CELL;
            parked++;
        }
        c->cell_of_slot[s] = cell;
    }
    return parked;
}

/* Region ids, counts and capacities: region i is chunk i's own (every chunk has one, so a chunk
 * that leaves the pool or gets its first instance has a place), then the pool, parked and the
 * tail. A pooled chunk's own region stays empty. */
static void plan_regions(crowd *c, uint32_t parked)
{
    const uint32_t *per_cell = c->rank_start;
    uint32_t pooled = 0;
    c->pool_region = c->cell_count;
    c->parked_region = c->cell_count + 1;
    c->tail_region = c->cell_count + 2;
    c->region_count = c->cell_count + 3;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        bool pool = per_cell[i] && c->cells[i].pooled;
        c->region_of_cell[i] = pool ? c->pool_region : i;
        c->regions[i] = (crowd_slot_region){0, pool ? 0 : per_cell[i], 0, true};
        pooled += pool ? per_cell[i] : 0;
    }
    c->regions[c->pool_region] = (crowd_slot_region){0, pooled, 0, true};
    c->regions[c->parked_region] = (crowd_slot_region){0, parked, 0, true};
    c->regions[c->tail_region] = (crowd_slot_region){0, 0, 0, true};

    uint64_t wanted = 0, spare = c->slot_capacity - (uint64_t)(c->count + parked);
    for (uint32_t r = 0; r < c->tail_region; r++)
        wanted += wanted_slack(c->regions[r].count);
    uint32_t start = 0;
    for (uint32_t r = 0; r < c->tail_region; r++) {
        uint64_t slack = wanted_slack(c->regions[r].count);
        if (wanted > spare) /* small crowds over many chunks: share what there is */
            slack = slack * spare / wanted;
        c->regions[r].start = start;
        c->regions[r].capacity = c->regions[r].count + (uint32_t)slack;
        start += c->regions[r].capacity;
    }
    c->regions[c->tail_region].start = start;
    c->regions[c->tail_region].capacity = c->slot_capacity - start;
}

/* Where each chunk's first instance goes: own regions at their start, pooled chunks one after
 * another in the pool (in chunk order, so the binning's runs stay long). */
static void chunk_cursors(crowd *c)
{
    uint32_t *cursor = c->rank_cursor, pool = c->regions[c->pool_region].start;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        uint32_t g = c->region_of_cell[i];
        if (g != c->pool_region) {
            cursor[i] = c->regions[g].start;
        } else {
            cursor[i] = pool;
            pool += c->rank_start[i];
        }
    }
}

/* Scatter into the back buffers, fill every other slot with holes, swap. */
static void scatter_slots(crowd *c)
{
    uint32_t *cursor = c->rank_cursor, parked = c->regions[c->parked_region].start, *dest = c->rank_of_slot;
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t cell = c->cell_of_slot[s];
        if (cell == HOLE_CELL) {
            dest[s] = UINT32_MAX;
            continue;
        }
        uint32_t d = cell == CROWD_PARKED_CELL ? parked++ : cursor[cell]++;
        c->records_back[d] = c->records[s];
        c->index_back[d] = c->index_of_slot[s];
        c->lod_back[d] = c->lod_of_slot[s];
        c->dirty_back[d] = (uint8_t)(c->dirty[s] | (d != s));
        dest[s] = d;
    }
    crowd_client_scatter(c, dest, c->slots); /* the client's state follows */
    for (uint32_t r = 0; r < c->region_count; r++) {
        const crowd_slot_region *g = &c->regions[r];
        uint32_t first = g->start + g->count, n = g->capacity - g->count;
        for (uint32_t s = first; s < first + n; s++) { /* a slot that held someone re-uploads as a hole */
            c->index_back[s] = CROWD_HOLE;
            c->dirty_back[s] = s < c->slots && c->index_of_slot[s] != CROWD_HOLE;
        }
    }
    crowd_flip_slot_arrays(c, false);
}

void crowd_layout_regions(crowd *c)
{
    uint32_t parked = count_slots(c);
    plan_regions(c, parked);
    chunk_cursors(c);
    scatter_slots(c);
    c->slots = c->regions[c->tail_region].start;
    crowd_refreshed(c, CROWD_STALE_LAYOUT);
    crowd_note(c, CROWD_CHANGED_ORDER); /* the index map is rebuilt when someone asks by index */
    c->mover_count = 0;
    c->work.layouts++;
}

/* ---- leaving the layout ----------------------------------------------------------------------- */

void crowd_compact_slots(crowd *c)
{
    uint32_t w = 0;
    for (uint32_t s = 0; s < c->slots; s++) {
        if (c->index_of_slot[s] == CROWD_HOLE)
            continue;
        if (w != s) {
            crowd_move_slot(c, s, w);
            c->cell_of_slot[w] = c->cell_of_slot[s];
        }
        w++;
    }
    c->slots = w;
    crowd_note(c, CROWD_CHANGED_COMPACTED);
}
