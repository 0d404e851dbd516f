/* The crowd's public API: creation, settings, and the per-instance setters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/pool.h"
#include "crowd/crowd_internal.h"

#define CROWD_MAX_CAPACITY (1u << 22)
#define CROWD_MAX_EVENT_CAPACITY (1u << 24)

static const float default_lod_distances[] = {6.0f, 14.0f, 34.0f, 80.0f};
static const float default_coverage[] = {0.25f, 0.10f, 0.04f, 0.015f, 0.0f};
#define LOD_DISTANCE_GROWTH 2.35f /* each completed LOD distance over the one before (the defaults' ratio) */

uint32_t crowd_pack_variant(const crowd_variant *v)
{
    uint32_t word = 0;
    for (int r = 0; r < 6; r++)
        word |= (uint32_t)(v->region_choice[r] & 15u) << (4 * r);
    return word | (uint32_t)v->accessories << 24;
}

static uint32_t pack_rgb(const uint8_t rgb[3])
{
    return (uint32_t)rgb[0] | (uint32_t)rgb[1] << 8 | (uint32_t)rgb[2] << 16 | 0xFF000000u;
}

/* ---- settings --------------------------------------------------------------------------------- */

static bool finite_nonnegative(float v)
{
    return v >= 0.0f && isfinite(v);
}

/* lod_distances: leading given entries, completed from the last one (see crowd.h). */
static crowd_result resolve_distances(crowd_desc *out, crowd_error *error)
{
    float *d = out->lod_distances;
    uint32_t given = 0;
    for (uint32_t l = 0; l + 1 < CROWD_MAX_LODS; l++)
        if (d[l] != 0.0f)
            given = l + 1;
    if (!given) {
        for (uint32_t l = 0; l < 4; l++)
            d[l] = default_lod_distances[l];
        given = 4;
    }
    for (uint32_t l = 0; l < given; l++) {
        if (!(d[l] > 0.0f && isfinite(d[l])))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                              "crowd: lod_distances[%u] = %g: must be positive and finite (zeros only after the last "
                              "given entry)",
                              l, (double)d[l]);
        if (l && d[l] < d[l - 1])
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: lod_distances[%u] = %g is below [%u] = %g", l,
                              (double)d[l], l - 1, (double)d[l - 1]);
    }
    for (uint32_t l = given; l + 1 < CROWD_MAX_LODS; l++) {
        float next = d[l - 1] * LOD_DISTANCE_GROWTH;
        d[l] = isfinite(next) ? next : d[l - 1];
    }
    return CROWD_OK;
}

static crowd_result resolve_coverage(crowd_desc *out, const crowd_asset *a, crowd_error *error)
{
    bool given = false;
    for (uint32_t l = 0; l < CROWD_MAX_LODS; l++) {
        if (!finite_nonnegative(out->screen_coverage[l]))
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: screen_coverage[%u] = %g: must be finite and >= 0",
                              l, (double)out->screen_coverage[l]);
        given |= out->screen_coverage[l] != 0.0f;
    }
    if (given) {
        for (uint32_t l = 1; l + 1 < a->lod_count; l++)
            if (out->screen_coverage[l] > out->screen_coverage[l - 1])
                return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                                  "crowd: screen_coverage[%u] = %g is above [%u] = %g (finer levels need more)", l,
                                  (double)out->screen_coverage[l], l - 1, (double)out->screen_coverage[l - 1]);
        return CROWD_OK;
    }
    bool hints = false;
    for (uint32_t l = 1; l < a->lod_count; l++)
        hints |= a->lods[l].screen_coverage > 0.0f;
    for (uint32_t l = 0; l < CROWD_MAX_LODS; l++) {
        float v = hints ? (l < a->lod_count ? a->lods[l].screen_coverage : 0.0f) : (l < 5 ? default_coverage[l] : 0.0f);
        out->screen_coverage[l] = finite_nonnegative(v) ? v : 0.0f;
    }
    return CROWD_OK;
}

static crowd_result resolve_max_lod(uint32_t *v, uint32_t fallback, const char *name, crowd_error *error)
{
    if (*v == CROWD_MAX_LOD_DEFAULT)
        *v = fallback;
    if (*v >= CROWD_MAX_LODS && *v != CROWD_MAX_LOD_ZERO && *v != CROWD_MAX_LOD_ALL && *v != 255u)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd: %s %u: a level 1..%u, CROWD_MAX_LOD_ZERO, CROWD_MAX_LOD_ALL or 0 for the default",
                          name, *v, CROWD_MAX_LODS - 1);
    return CROWD_OK;
}

/* marker_events and event_capacity (after capacity). */
static crowd_result resolve_events(crowd_desc *out, crowd_error *error)
{
    if (out->marker_events < -1 || out->marker_events > 1)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: marker_events %d: 0 (default: off), 1 or -1",
                          out->marker_events);
    if (out->event_capacity == 0)
        out->event_capacity = out->capacity / 4 + 256;
    if (out->event_capacity > CROWD_MAX_EVENT_CAPACITY)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: event_capacity %u above %u", out->event_capacity,
                          CROWD_MAX_EVENT_CAPACITY);
    return CROWD_OK;
}

static crowd_result resolve(const crowd_desc *in, crowd_desc *out, crowd_error *error)
{
    *out = *in;
    const crowd_asset *a = in->asset;
    if (!a || !a->positions.data || !a->lod_count || !a->clip_count)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: desc.asset must be a loaded asset");
    if (!out->capacity)
        out->capacity = 10000;
    if (out->capacity > CROWD_MAX_CAPACITY)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: capacity %u above %u", out->capacity,
                          CROWD_MAX_CAPACITY);
    if (out->world_size == 0.0f)
        out->world_size = 420.0f;
    if (out->chunk_size == 0.0f)
        out->chunk_size = 24.0f;
    if (!(out->world_size > 0.0f && out->world_size < 1e6f) || !(out->chunk_size > 0.0f && isfinite(out->chunk_size)))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd: world_size %g must be in (0, 1e6) and chunk_size %g positive and finite",
                          (double)out->world_size, (double)out->chunk_size);
    if ((double)out->world_size / out->chunk_size > 4096.0)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: more than 4096 chunks per side (world %g, chunk %g)",
                          (double)out->world_size, (double)out->chunk_size);
    if (out->lod_policy != CROWD_LOD_DISTANCE && out->lod_policy != CROWD_LOD_SCREEN_COVERAGE)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: unknown LOD policy %d", (int)out->lod_policy);
    if (out->lod_pivot != CROWD_PIVOT_CENTRE && out->lod_pivot != CROWD_PIVOT_NEAR_EDGE)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: unknown LOD pivot %d", (int)out->lod_pivot);
    crowd_result r = resolve_distances(out, error);
    if (r == CROWD_OK)
        r = resolve_coverage(out, a, error);
    if (r != CROWD_OK)
        return r;
    if (out->lod_bias == 0.0f)
        out->lod_bias = 1.0f;
    if (out->hysteresis == 0.0f)
        out->hysteresis = 0.1f;
    if (!(out->lod_bias > 0.0f && out->lod_bias <= 1e6f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: lod_bias %g: must be in (0, 1e6]",
                          (double)out->lod_bias);
    if (!(out->hysteresis > 0.0f && out->hysteresis < 1.0f) && out->hysteresis != CROWD_HYSTERESIS_NONE)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd: hysteresis %g: must be in (0, 1), 0 (default) or CROWD_HYSTERESIS_NONE",
                          (double)out->hysteresis);
    if (!finite_nonnegative(out->min_coverage))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: min_coverage %g: must be finite and >= 0",
                          (double)out->min_coverage);
    r = resolve_max_lod(&out->shadow_max_lod, 2, "shadow_max_lod", error);
    if (r == CROWD_OK)
        r = resolve_max_lod(&out->cross_fade_max_lod, 1, "cross_fade_max_lod", error);
    if (r != CROWD_OK)
        return r;
    if (out->threads > CROWD_MAX_THREADS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: threads %u above %u", out->threads, CROWD_MAX_THREADS);
    if (out->imposters < -1 || out->imposters > 1)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd: imposters %d: 0 (default), 1 or -1", out->imposters);
    bool can = a->imposters.frames > 0 && a->lod_count < CROWD_MAX_LODS;
    if (out->imposters == 1 && !can)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          a->imposters.frames ? "crowd: imposters: the asset already has %u mesh levels"
                                              : "crowd: imposters: the asset has no imposter atlas (%u levels)",
                          a->lod_count);
    if (out->imposters == 0)
        out->imposters = can ? 1 : -1;
    if (out->imposter_band == 0.0f)
        out->imposter_band = 0.15f;
    if (!(out->imposter_band > 0.0f && out->imposter_band <= 1.0f) && out->imposter_band != CROWD_BAND_NONE)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd: imposter_band %g: must be in (0, 1], 0 (default) or CROWD_BAND_NONE",
                          (double)out->imposter_band);
    if (out->imposters > 0 && a->lod_count >= 2 && out->screen_coverage[a->lod_count - 1] == 0.0f)
        out->screen_coverage[a->lod_count - 1] = out->screen_coverage[a->lod_count - 2] / 2.5f;
    if ((r = resolve_events(out, error)) != CROWD_OK)
        return r;
    if (out->far_pool == 0)
        out->far_pool = 1;
    if (out->shadows == 0)
        out->shadows = 1;
    return CROWD_OK;
}

/* The resolved desc in the form the hot paths read. */
static void apply_settings(crowd *c, const crowd_desc *d)
{
    c->desc = *d;
    c->shadow_max = crowd_max_lod_level(d->shadow_max_lod);
    c->fade_max = crowd_max_lod_level(d->cross_fade_max_lod);
    c->hysteresis = crowd_width_of(d->hysteresis);
    bool imposters = d->imposters > 0;
    c->levels = d->asset->lod_count + (imposters ? 1u : 0u);
    c->imposter_level = imposters ? d->asset->lod_count : UINT32_MAX;
    c->band = crowd_width_of(d->imposter_band);
}

float crowd_band_random(const crowd_record *r)
{
    uint32_t h = r->tint * 0x9E3779B1u ^ r->variant;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

const crowd_desc *crowd_settings(const crowd *c)
{
    return c ? &c->desc : NULL;
}

const crowd_error *crowd_last_error(const crowd *c)
{
    return c ? &c->last_error : NULL;
}

crowd_result crowd_configure(crowd *c, const crowd_desc *desc, crowd_error *error)
{
    if (!c || !desc)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_configure: NULL");
    crowd_desc resolved;
    crowd_result r = resolve(desc, &resolved, &c->last_error);
    if (r == CROWD_OK && (resolved.asset != c->desc.asset || resolved.capacity != c->desc.capacity ||
                          resolved.world_size != c->desc.world_size || resolved.chunk_size != c->desc.chunk_size ||
                          resolved.threads != c->desc.threads || resolved.event_capacity != c->desc.event_capacity))
        r = crowd_fail(&c->last_error, CROWD_ERROR_ARGUMENT,
                       "crowd_configure: asset, capacity, world and chunk size, threads and event_capacity are fixed "
                       "at creation");
    if (r != CROWD_OK) {
        if (error)
            *error = c->last_error;
        return r;
    }
    crowd_note(c, resolved.lod_policy != c->desc.lod_policy ? CROWD_CHANGED_POLICY : CROWD_CHANGED_SETTINGS);
    apply_settings(c, &resolved);
    return CROWD_OK;
}

/* ---- creation --------------------------------------------------------------------------------- */

void crowd_destroy(crowd *c)
{
    if (!c)
        return;
    crowd_free(c->records);
    crowd_free(c->records_back);
    crowd_free(c->index_of_slot);
    crowd_free(c->index_back);
    crowd_free(c->dirty);
    crowd_free(c->dirty_back);
    crowd_free(c->lod_of_slot);
    crowd_free(c->lod_back);
    crowd_free(c->slot_of_index);
    crowd_free(c->cell_of_slot);
    crowd_free(c->cell_back);
    crowd_free(c->rank_of_slot);
    crowd_free(c->coverage_of_slot);
    crowd_free(c->cells);
    crowd_free(c->rank_start);
    crowd_free(c->rank_cursor);
    crowd_free(c->regions);
    crowd_free(c->region_of_cell);
    crowd_free(c->movers);
    crowd_free(c->draws);
    crowd_free(c->uploads);
    crowd_tasks_destroy(c);
    crowd_events_destroy(c);
    crowd_pool_destroy(c->pool);
    crowd_free(c);
}

crowd_result crowd_create(const crowd_desc *desc, crowd **out, crowd_error *error)
{
    if (!desc || !out)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_create: NULL desc or out");
    *out = NULL;
    crowd *c = crowd_calloc(1, sizeof *c);
    if (!c)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "crowd: out of memory");
    crowd_desc resolved;
    crowd_result r = resolve(desc, &resolved, error);
    if (r != CROWD_OK) {
        crowd_free(c);
        return r;
    }
    apply_settings(c, &resolved);
    c->asset = c->desc.asset;
    c->capacity = c->desc.capacity;
    c->stride_matching = true;
    c->stale = CROWD_STALE_BINNING | CROWD_STALE_GRID | CROWD_STALE_LAYOUT; /* nothing binned or laid out yet */
    c->world_min = -0.5f * c->desc.world_size;
    c->grid_dim = (uint32_t)ceil((double)c->desc.world_size / c->desc.chunk_size);
    if (c->grid_dim == 0)
        c->grid_dim = 1;
    c->cell_size = c->desc.world_size / (float)c->grid_dim;
    c->cell_count = c->grid_dim * c->grid_dim;
    /* ranks: distance policy needs one per cell + parked; coverage needs (levels + 1) per cell + parked */
    c->rank_count = (CROWD_MAX_LODS + 1) * c->cell_count + 1;
    c->draw_capacity = CROWD_MAX_LODS + 2 * c->cell_count + 1; /* a band chunk draws twice */
    /* Scattered rewrites (a turning walker here and there) are many short ranges: room for them,
     * or the list would give up and upload everything after its last range. */
    c->upload_capacity = 1024 + c->capacity / 32;
    c->slot_capacity = c->capacity + c->capacity / 8 + 1024; /* room for the regions' slack */
    c->mover_capacity = c->slot_capacity / 16 + 64;

    size_t n = c->slot_capacity;
    c->records = crowd_malloc(n * sizeof *c->records);
    c->records_back = crowd_malloc(n * sizeof *c->records);
    c->index_of_slot = crowd_malloc(n * sizeof(uint32_t));
    c->index_back = crowd_malloc(n * sizeof(uint32_t));
    c->dirty = crowd_calloc(n, 1);
    c->dirty_back = crowd_calloc(n, 1);
    c->lod_of_slot = crowd_calloc(n, 1);
    c->lod_back = crowd_calloc(n, 1);
    c->slot_of_index = crowd_malloc((size_t)c->capacity * sizeof(uint32_t));
    c->cell_of_slot = crowd_malloc(n * sizeof(uint32_t));
    c->cell_back = crowd_malloc(n * sizeof(uint32_t));
    c->rank_of_slot = crowd_malloc(n * sizeof(uint32_t));
    c->coverage_of_slot = crowd_malloc(n * sizeof(float));
    c->cells = crowd_calloc(c->cell_count, sizeof *c->cells);
    c->rank_start = crowd_calloc((size_t)c->rank_count + 1, sizeof(uint32_t));
    c->rank_cursor = crowd_calloc((size_t)c->rank_count, sizeof(uint32_t));
    c->draws = crowd_malloc(c->draw_capacity * sizeof *c->draws);
    c->uploads = crowd_malloc(c->upload_capacity * sizeof *c->uploads);
    c->regions = crowd_malloc(((size_t)c->cell_count + 3) * sizeof *c->regions);
    c->region_of_cell = crowd_malloc((size_t)c->cell_count * sizeof(uint32_t));
    c->movers = crowd_malloc((size_t)c->mover_capacity * sizeof *c->movers);
    if (!c->regions || !c->region_of_cell || !c->movers || !c->records || !c->records_back || !c->index_of_slot ||
        !c->index_back || !c->dirty || !c->dirty_back || !c->lod_of_slot || !c->lod_back || !c->slot_of_index ||
        !c->cell_of_slot || !c->cell_back || !c->rank_of_slot || !c->coverage_of_slot || !c->cells || !c->rank_start ||
        !c->rank_cursor || !c->draws || !c->uploads || !(c->pool = crowd_pool_create(c->desc.threads)) ||
        !crowd_tasks_create(c) || !crowd_events_create(c)) {
        uint32_t capacity = c->capacity;
        crowd_destroy(c);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "crowd: out of memory for %u instances", capacity);
    }
    *out = c;
    return CROWD_OK;
}

/* ---- instances -------------------------------------------------------------------------------- */

/* A refused call: the reason into crowd_last_error. */
#define REFUSE(c, ...) crowd_fail(&(c)->last_error, CROWD_ERROR_ARGUMENT, __VA_ARGS__)

/* A setter wrote a slot outside a walk: its region's dirty flag is not set, so the next upload scan
 * looks everywhere (still cheap: clean bytes are skipped word by word). */
static void touch(crowd *c, uint32_t slot, crowd_change change)
{
    c->dirty[slot] = 1;
    crowd_note(c, change);
}

void crowd_rebuild_index_map(crowd *c)
{
    for (uint32_t s = 0; s < c->slots; s++)
        if (c->index_of_slot[s] != CROWD_HOLE)
            c->slot_of_index[c->index_of_slot[s]] = s;
    crowd_refreshed(c, CROWD_STALE_INDEX_MAP);
}

uint32_t crowd_slot_of(crowd *c, uint32_t index)
{
    if (crowd_is_stale(c, CROWD_STALE_INDEX_MAP)) /* a sort moved records within this update */
        crowd_rebuild_index_map(c);
    return c->slot_of_index[index];
}

static float authored_rate(const crowd_asset *a, uint32_t clip)
{
    float d = a->clips[clip].duration;
    float rate = d > 0.0f ? 1.0f / d : 0.0f;
    return rate <= CROWD_MAX_RATE ? rate : CROWD_MAX_RATE; /* a clip of 1e-40 s must not play at inf */
}

static void default_record(const crowd *c, crowd_record *r)
{
    memset(r, 0, sizeof *r);
    r->rate_a = r->rate_b = authored_rate(c->asset, 0);
    r->scale = 1.0f;
    r->tint = 0xFFFFFFFFu;
}

crowd_result crowd_set_count(crowd *c, uint32_t count)
{
    if (!c)
        return CROWD_ERROR_ARGUMENT;
    if (count > c->capacity)
        return REFUSE(c, "crowd_set_count: %u above the capacity %u", count, c->capacity);
    if (count == c->count)
        return CROWD_OK;
    crowd_slot_of(c, 0); /* the map must be current before slots are added or parked */
    if (count > c->instances && c->slots + (count - c->instances) > c->slot_capacity)
        crowd_compact_slots(c);    /* region slack gives way to new instances */
    while (c->instances < count) { /* brand-new instances take fresh slots */
        uint32_t slot = c->slots++, index = c->instances++;
        c->cell_of_slot[slot] = CROWD_PARKED_CELL;
        default_record(c, &c->records[slot]);
        crowd_client_zero(c, slot);
        c->index_of_slot[slot] = index;
        c->slot_of_index[index] = slot;
        c->dirty[slot] = 1;
        c->lod_of_slot[slot] = 0;
    }
    /* revived or parked instances change which draws they are in: their slots re-upload */
    uint32_t lo = count < c->count ? count : c->count, hi = count < c->count ? c->count : count;
    for (uint32_t i = lo; i < hi; i++) {
        crowd_record *r = &c->records[c->slot_of_index[i]];
        if (count < c->count) {
            crowd_rec_anchor(r, (float)c->time); /* parked: stands where it is now */
            crowd_events_forget(c, i);           /* and reports nothing, now or when revived */
        } else
            r->ref_time = (float)c->time; /* revived: walks on from where it was parked */
        c->dirty[c->slot_of_index[i]] = 1;
    }
    c->count = count;
    crowd_note(c, CROWD_CHANGED_COUNT); /* parked and revived instances change region: laid out afresh */
    return CROWD_OK;
}

uint32_t crowd_count(const crowd *c)
{
    return c ? c->count : 0;
}

void crowd_unturn_slot(crowd *c, uint32_t slot)
{
    crowd_record *r = &c->records[slot];
    if (!crowd_rec_turning(r))
        return;
    const crowd_client *client = &c->client.client;
    if (c->client.attached && client->unturned) { /* a simulation steers on from the velocity it has now */
        float v[2];
        crowd_rec_turn_velocity(r, (float)c->time, v);
        client->unturned(client->user, slot, v);
    }
    crowd_rec_anchor(r, (float)c->time);
    c->dirty[slot] = 1;
}

static crowd_record *record_of(crowd *c, uint32_t index, crowd_change change)
{
    uint32_t slot = crowd_slot_of(c, index);
    touch(c, slot, change);
    return &c->records[slot];
}

/* The common refusals: no crowd, an index past the count. */
#define CHECK_INDEX(c, index, what)                                            \
    do {                                                                       \
        if (!(c))                                                              \
            return CROWD_ERROR_ARGUMENT;                                       \
        if ((index) >= (c)->count)                                             \
            return REFUSE(c, what ": instance %u of %u", (index), (c)->count); \
    } while (0)

crowd_result crowd_set_transform(crowd *c, uint32_t index, float x, float y, float z, float yaw)
{
    CHECK_INDEX(c, index, "crowd_set_transform");
    if (!isfinite(x) || !isfinite(y) || !isfinite(z) || !isfinite(yaw))
        return REFUSE(c, "crowd_set_transform: instance %u: position (%g, %g, %g) and yaw %g must be finite", index,
                      (double)x, (double)y, (double)z, (double)yaw);
    crowd_record *r = record_of(c, index, CROWD_CHANGED_PLACE);
    crowd_unturn_slot(c, crowd_slot_of(c, index)); /* the yaw given holds from now */
    r->position[0] = x;
    r->position[1] = y;
    r->position[2] = z;
    r->ref_time = (float)c->time;
    r->yaw = yaw;
    return CROWD_OK;
}

crowd_result crowd_set_velocity(crowd *c, uint32_t index, float vx, float vz)
{
    CHECK_INDEX(c, index, "crowd_set_velocity");
    if (!(fabsf(vx) <= CROWD_MAX_SPEED && fabsf(vz) <= CROWD_MAX_SPEED))
        return REFUSE(c, "crowd_set_velocity: instance %u: velocity (%g, %g) outside +-%g m/s", index, (double)vx,
                      (double)vz, (double)CROWD_MAX_SPEED);
    uint32_t slot = crowd_slot_of(c, index), word = crowd_pack_velocity(vx, vz);
    crowd_record *r = &c->records[slot];
    if (r->velocity == word && !crowd_rec_turning(r))
        return CROWD_OK; /* the same motion: nothing to write or upload */
    crowd_rec_anchor(r, (float)c->time);
    r->velocity = word;
    touch(c, slot, CROWD_CHANGED_PLACE);
    return CROWD_OK;
}

static bool rate_ok(float rate)
{
    return fabsf(rate) <= CROWD_MAX_RATE; /* false for NaN */
}

crowd_result crowd_set_scale(crowd *c, uint32_t index, float scale)
{
    CHECK_INDEX(c, index, "crowd_set_scale");
    if (!(scale >= 0.001f && scale <= 1000.0f))
        return REFUSE(c, "crowd_set_scale: instance %u: scale %g outside 0.001..1000", index, (double)scale);
    uint32_t slot = crowd_slot_of(c, index);
    crowd_record *r = &c->records[slot];
    float old_scale = r->scale;
    /* Same ground speed on longer or shorter legs: a stride-matched clip re-matches its rate, and
     * the product is checked before anything changes. */
    uint32_t showing = r->fade_rate > 0.0f ? crowd_rec_clip_b(r) : crowd_rec_clip_a(r);
    bool rematch = c->stride_matching && c->asset->clips[showing].stride > 0.0f && old_scale > 0.0f;
    float rate = r->fade_rate > 0.0f ? r->rate_b : r->rate_a;
    float matched = rematch ? (float)((double)rate * old_scale / scale) : rate;
    if (!rate_ok(matched))
        return REFUSE(c, "crowd_set_scale: instance %u: scale %g would make its rate %g (above %g)", index,
                      (double)scale, (double)matched, (double)CROWD_MAX_RATE);
    r->scale = scale;
    touch(c, slot, CROWD_CHANGED_PLACE); /* the size itself must reach the GPU, whatever happens to the rate */
    if (rematch)
        crowd_set_rate_slot(c, slot, matched);
    return CROWD_OK;
}

crowd_result crowd_set_variant(crowd *c, uint32_t index, const crowd_variant *v)
{
    CHECK_INDEX(c, index, "crowd_set_variant");
    if (!v)
        return REFUSE(c, "crowd_set_variant: instance %u: NULL variant", index);
    crowd_record *r = record_of(c, index, CROWD_CHANGED_LOOKS);
    r->tint = pack_rgb(v->tint);
    r->variant = crowd_pack_variant(v);
    return CROWD_OK;
}

static double wrap(double phase)
{
    return phase - floor(phase);
}

/* Phase offset that keeps the phase continuous when the rate changes at time t: wrapped into
 * [0, 1) for a looping clip, as is for a held one (whose phase counts from its start). */
static float continuous_offset(double time, float offset, float old_rate, float new_rate, bool hold)
{
    double phase = offset + time * ((double)old_rate - new_rate);
    return (float)(hold ? phase : wrap(phase));
}

/* Ends a running fade before another starts. Two clips at most: the one that shows more becomes
 * clip A, so the cut is never more than half a blend (the fade towards B is dropped before its
 * half-way point). */
static void settle_fade(const crowd *c, crowd_record *r)
{
    float weight_b = ((float)c->time - r->fade_start) * r->fade_rate;
    if (weight_b >= 0.5f) {
        crowd_rec_fold_fade(r);
        return;
    }
    crowd_rec_set_clip_b(r, crowd_rec_clip_a(r));
    r->rate_b = r->rate_a;
    r->offset_b = r->offset_a;
    r->fade_rate = 0.0f;
    r->clips = (r->clips & ~CROWD_RECORD_HOLD_B) | ((r->clips & CROWD_RECORD_HOLD_A) ? CROWD_RECORD_HOLD_B : 0u);
}

/* Clip B (set up by the caller) shows from now: at once (a cut), or over a fade. */
static void start_fade(const crowd *c, crowd_record *r, float fade_seconds)
{
    if (fade_seconds == 0.0f) {
        crowd_rec_fold_fade(r);
        return;
    }
    r->fade_start = (float)c->time;
    r->fade_rate = 1.0f / fade_seconds; /* the next binning pass folds it once it has run */
}

void crowd_pose_slot(crowd *c, uint32_t slot, uint32_t clip, float phase, float fade_seconds)
{
    crowd_record *r = &c->records[slot];
    c->dirty[slot] = 1;
    crowd_unturn_slot(c, slot);
    if (r->fade_rate > 0.0f)
        settle_fade(c, r);
    /* clip B may be clip A at another phase: the fade blends two poses of one clip */
    crowd_rec_set_clip_b(r, clip);
    r->rate_b = 0.0f;
    r->offset_b = phase;
    r->clips &= ~CROWD_RECORD_HOLD_B;
    start_fade(c, r, fade_seconds);
}

void crowd_play_slot(crowd *c, uint32_t slot, uint32_t clip, float rate, float fade_seconds, bool once)
{
    crowd_record *r = &c->records[slot];
    c->dirty[slot] = 1;
    crowd_unturn_slot(c, slot); /* clip B's words are the fade's again */
    if (r->fade_rate > 0.0f) {
        if (crowd_rec_clip_b(r) == clip && !once) { /* already fading into it: the fade runs on, new rate */
            bool held = r->clips & CROWD_RECORD_HOLD_B;
            r->offset_b = (float)wrap(continuous_offset(c->time, r->offset_b, r->rate_b, rate, held));
            r->rate_b = rate;
            r->clips &= ~CROWD_RECORD_HOLD_B;
            return;
        }
        settle_fade(c, r);
    }
    if (crowd_rec_clip_a(r) == clip && !once) { /* the clip that plays: new rate, and it loops */
        bool held = r->clips & CROWD_RECORD_HOLD_A;
        r->offset_a = (float)wrap(continuous_offset(c->time, r->offset_a, r->rate_a, rate, held));
        r->rate_a = rate;
        r->offset_b = r->offset_a;
        r->rate_b = rate;
        r->clips &= ~(CROWD_RECORD_HOLD_A | CROWD_RECORD_HOLD_B);
        return;
    }
    /* the new clip starts from its beginning now: a looping clip's offset wrapped, a held one's not */
    double phase = -c->time * rate;
    crowd_rec_set_clip_b(r, clip);
    r->rate_b = rate;
    r->offset_b = (float)(once ? phase : wrap(phase));
    r->clips = (r->clips & ~CROWD_RECORD_HOLD_B) | (once ? CROWD_RECORD_HOLD_B : 0u);
    start_fade(c, r, fade_seconds);
}

static crowd_result play(crowd *c, uint32_t index, uint32_t clip, float rate, float fade_seconds, bool once)
{
    const char *what = once ? "crowd_play_once" : "crowd_play";
    if (!c)
        return CROWD_ERROR_ARGUMENT;
    if (index >= c->count)
        return REFUSE(c, "%s: instance %u of %u", what, index, c->count);
    if (clip >= c->asset->clip_count)
        return REFUSE(c, "%s: instance %u: clip %u of %u", what, index, clip, c->asset->clip_count);
    if (!rate_ok(rate))
        return REFUSE(c, "%s: instance %u: rate %g outside +-%g cycles per second", what, index, (double)rate,
                      (double)CROWD_MAX_RATE);
    if (!(fade_seconds == 0.0f || (fade_seconds >= CROWD_MIN_FADE && fade_seconds <= 60.0f)))
        return REFUSE(c, "%s: instance %u: fade_seconds %g: 0 (a cut) or %g..60", what, index, (double)fade_seconds,
                      (double)CROWD_MIN_FADE);
    uint32_t slot = crowd_slot_of(c, index);
    crowd_play_slot(c, slot, clip, rate, fade_seconds, once);
    touch(c, slot, CROWD_CHANGED_LOOKS);
    if (once) /* followed until it finishes; replacing it needs no word here (crowd_events.c) */
        crowd_events_one_shot(c, index, clip);
    return CROWD_OK;
}

crowd_result crowd_play(crowd *c, uint32_t index, uint32_t clip, float rate, float fade_seconds)
{
    return play(c, index, clip, rate, fade_seconds, false);
}

crowd_result crowd_play_once(crowd *c, uint32_t index, uint32_t clip, float rate, float fade_seconds)
{
    return play(c, index, clip, rate, fade_seconds, true);
}

crowd_result crowd_set_phase(crowd *c, uint32_t index, float phase)
{
    CHECK_INDEX(c, index, "crowd_set_phase");
    if (!(phase >= 0.0f && phase <= 1.0f))
        return REFUSE(c, "crowd_set_phase: instance %u: phase %g outside 0..1", index, (double)phase);
    crowd_record *r = record_of(c, index, CROWD_CHANGED_LOOKS);
    double offset = phase - c->time * (double)r->rate_a;
    r->offset_a = (float)((r->clips & CROWD_RECORD_HOLD_A) ? offset : wrap(offset));
    if (r->fade_rate == 0.0f && !crowd_rec_turning(r)) /* a turn's words stay */
        r->offset_b = r->offset_a;
    if ((r->clips & CROWD_RECORD_HOLD_A) &&
        r->fade_rate == 0.0f) /* a one-shot put back before its end finishes again */
        crowd_events_one_shot(c, index, crowd_rec_clip_a(r));
    return CROWD_OK;
}

float crowd_stride_rate(const crowd *c, uint32_t clip, float speed, float scale)
{
    float stride = c->asset->clips[clip].stride;
    if (!c->stride_matching || !(stride > 0.0f))
        return authored_rate(c->asset, clip);
    return (float)((double)speed / ((double)stride * scale)); /* an instance at scale s covers s strides per cycle */
}

void crowd_set_rate_slot(crowd *c, uint32_t slot, float rate)
{
    crowd_record *r = &c->records[slot];
    bool turning = crowd_rec_turning(r); /* clip B's words hold the turn: clip A only */
    bool fading = r->fade_rate > 0.0f;   /* the clip that will be showing: B while fading, else A */
    float *rate_field = fading ? &r->rate_b : &r->rate_a;
    float *offset_field = fading ? &r->offset_b : &r->offset_a;
    if (*rate_field == rate)
        return; /* nothing to write: the slot stays clean */
    bool held = r->clips & (fading ? CROWD_RECORD_HOLD_B : CROWD_RECORD_HOLD_A);
    *offset_field = continuous_offset(c->time, *offset_field, *rate_field, rate, held);
    *rate_field = rate;
    if (!fading && !turning) {
        r->rate_b = rate;
        r->offset_b = r->offset_a;
    }
    c->dirty[slot] = 1;
}

crowd_result crowd_set_speed(crowd *c, uint32_t index, float speed)
{
    CHECK_INDEX(c, index, "crowd_set_speed");
    if (!(speed >= 0.0f && speed <= 10000.0f))
        return REFUSE(c, "crowd_set_speed: instance %u: speed %g outside 0..10000 m/s", index, (double)speed);
    uint32_t slot = crowd_slot_of(c, index);
    const crowd_record *r = &c->records[slot];
    uint32_t clip = r->fade_rate > 0.0f ? crowd_rec_clip_b(r) : crowd_rec_clip_a(r);
    if (!(c->asset->clips[clip].stride > 0.0f))
        return REFUSE(c, "crowd_set_speed: instance %u: clip %u (%s) has no stride", index, clip,
                      c->asset->clips[clip].name ? c->asset->clips[clip].name : "?");
    float rate = crowd_stride_rate(c, clip, speed, r->scale);
    if (!rate_ok(rate))
        return REFUSE(c, "crowd_set_speed: instance %u: %g m/s would play clip %u at %g cycles per second (above %g)",
                      index, (double)speed, clip, (double)rate, (double)CROWD_MAX_RATE);
    crowd_set_rate_slot(c, slot, rate);
    crowd_note(c, c->dirty[slot] ? CROWD_CHANGED_LOOKS : CROWD_CHANGED_RATE_KEPT);
    return CROWD_OK;
}

void crowd_set_stride_matching(crowd *c, bool on)
{
    if (c)
        c->stride_matching = on;
}

crowd_result crowd_remove(crowd *c, uint32_t index)
{
    CHECK_INDEX(c, index, "crowd_remove");
    uint32_t last = c->count - 1;
    uint32_t removed_slot = crowd_slot_of(c, index), last_slot = crowd_slot_of(c, last);
    c->slot_of_index[index] = last_slot;
    c->slot_of_index[last] = removed_slot;
    c->index_of_slot[last_slot] = index;
    c->index_of_slot[removed_slot] = last;
    c->dirty[removed_slot] = 1;
    c->dirty[last_slot] = 1; /* its record stays, its owner's index changed (frame.slot_instances) */
    crowd_note(c, CROWD_CHANGED_REMOVED);
    crowd_rec_anchor(&c->records[removed_slot], (float)c->time); /* parked: stands where it is now */
    crowd_events_moved(c, last, index); /* the removed one's one-shot is forgotten, the moved one's follows it */
    c->count = last;
    if (!crowd_is_stale(
            c, CROWD_STALE_LAYOUT)) /* out of its chunk's region now, so no draw or pass over live slots sees it */
        crowd_park_slot(c, removed_slot);
    return CROWD_OK;
}

crowd_result crowd_get(const crowd *c, uint32_t index, crowd_record *record)
{
    if (!c || !record || index >= c->count)
        return CROWD_ERROR_ARGUMENT;               /* const: no message can be recorded */
    *record = c->records[c->slot_of_index[index]]; /* kept current: see crowd_update */
    return CROWD_OK;
}

crowd_result crowd_record_sample(const crowd_asset *a, const crowd_record *r, int which, float time,
                                 crowd_clip_sample *out)
{
    if (!a || !r || !out || (which != 0 && which != 1))
        return CROWD_ERROR_ARGUMENT;
    if (crowd_rec_turning(r)) /* clip B's words hold the turn: clip B is clip A */
        which = 0;
    uint32_t clip = which ? crowd_rec_clip_b(r) : crowd_rec_clip_a(r);
    float offset = which ? r->offset_b : r->offset_a, rate = which ? r->rate_b : r->rate_a;
    bool hold = r->clips & (which ? CROWD_RECORD_HOLD_B : CROWD_RECORD_HOLD_A);
    if (clip >= a->clip_count)
        return CROWD_ERROR_ARGUMENT;
    const crowd_clip *cl = &a->clips[clip];
    int n = (int)cl->frame_count, last = n - 1 > 0 ? n - 1 : 0;
    bool loops = (cl->flags & CROWD_CLIP_LOOP) != 0;
    /* crowd.vert's clip_sample, line for line */
    if (!isfinite(offset + time * rate))
        return CROWD_ERROR_ARGUMENT;
    float phase = crowd_rec_phase(offset, rate, hold, time);
    float f = phase * (float)(loops ? n : last);
    if (hold && f > (float)last)
        f = (float)last;
    int f0 = (int)f < n - 1 ? (int)f : n - 1;
    int f1 = loops && !hold ? (f0 + 1 == n ? 0 : f0 + 1) : (f0 + 1 < n - 1 ? f0 + 1 : n - 1);
    out->frame0 = cl->first_frame + (uint32_t)f0;
    out->frame1 = cl->first_frame + (uint32_t)f1;
    out->t = f - (float)f0;
    return CROWD_OK;
}

uint32_t crowd_record_clip(const crowd_record *r, int which)
{
    return r ? (which ? crowd_rec_clip_b(r) : crowd_rec_clip_a(r)) : 0u;
}

void crowd_record_velocity(const crowd_record *r, float v[2])
{
    if (!r || !v)
        return;
    v[0] = crowd_rec_unhalf(r->velocity & 0xFFFFu);
    v[1] = crowd_rec_unhalf(r->velocity >> 16);
}

void crowd_record_position(const crowd_record *r, float time, float out[3])
{
    if (r && out)
        crowd_rec_position(r, time, out);
}

float crowd_record_yaw(const crowd_record *r, float time)
{
    return r ? crowd_rec_yaw(r, time) : 0.0f;
}

float crowd_record_phase(const crowd_record *r, int which, float time)
{
    if (!r || (which != 0 && which != 1))
        return 0.0f;
    if (crowd_rec_turning(r)) /* clip B's words hold the turn: clip B is clip A */
        which = 0;
    bool hold = r->clips & (which ? CROWD_RECORD_HOLD_B : CROWD_RECORD_HOLD_A);
    float phase = crowd_rec_phase(which ? r->offset_b : r->offset_a, which ? r->rate_b : r->rate_a, hold, time);
    return isfinite(phase) ? phase : 0.0f;
}

float crowd_time(const crowd *c)
{
    return c ? (float)c->time : 0.0f;
}

uint32_t crowd_record_capacity(const crowd *c)
{
    return c ? c->slot_capacity : 0;
}

uint32_t crowd_index_of_slot(const crowd *c, uint32_t slot)
{
    if (!c || slot >= c->slots)
        return UINT32_MAX;
    uint32_t index = c->index_of_slot[slot];
    return index < c->count ? index : UINT32_MAX;
}
