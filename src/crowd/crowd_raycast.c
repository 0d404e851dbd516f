/* Rays against the crowd's instances: a cylinder per instance, the chunk grid refined as the
 * broadphase, a 2D DDA along the ray's XZ track (crowd.h "hit tests"). */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "crowd/crowd_internal.h"
#include "crowdbake/hits.h"

#define FOOTPRINT_EPSILON 1e-4f /* metres: a hit point's cell never falls outside its footprint */
#define TARGET_PER_CELL 2.0
#define NO_CYLINDER UINT32_MAX
#define DEAD UINT32_MAX /* hit_cylinder.index of a cylinder crowd_hits_remove took out */

/* libm's fminf/fmaxf are calls here (their NaN rules keep them from inlining); NaN never reaches
 * these (make_ray refuses non-finite rays, the loader non-finite assets, the setters records). */
static inline float min_f(float a, float b)
{
    return a < b ? a : b;
}

static inline float max_f(float a, float b)
{
    return a > b ? a : b;
}

typedef struct hit_cylinder {
    float x, z, r, y0, y1;
    uint32_t index;
} hit_cylinder;

struct crowd_hits {
    const crowd *crowd;
    uint32_t capacity, live;
    hit_cylinder *cylinders; /* the snapshot, in slot order */
    /* per index below `indexed`: its cylinder, or NO_CYLINDER (revived since the snapshot); kept
     * in step with crowd_hits_remove's swaps so a removal needs no search */
    uint32_t *cylinder_of_index;
    uint32_t indexed;
    uint32_t *entries; /* per cell, indices into cylinders: cell c owns [start[c], start[c + 1]) */
    uint32_t entry_capacity;
    uint32_t *start; /* max_cells + 1 */
    uint32_t *big, big_count, big_capacity;
    uint32_t k_max, dim, max_cells;
    float cell, world_min, world_max;
    float y_lo, y_hi; /* heights every cylinder lies within */
    /* the asset's cylinder at scale 1 */
    float box_r, box_y0, box_y1;
    float fit_r; /* the radius the cells fit (from the last update) */
};

/* The one place a record's position is read. */
static inline void hit_position(const crowd *c, const crowd_record *r, float p[3])
{
    crowd_rec_position(r, (float)c->time, p); /* extrapolated to the crowd's time, as drawn */
}

crowd_result crowd_hits_create(const crowd *c, crowd_hits **out, crowd_error *error)
{
    if (!c || !out)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_hits_create: NULL crowd or out");
    *out = NULL;
    crowd_hits *h = crowd_calloc(1, sizeof *h);
    if (!h)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "hits: out of memory");
    h->crowd = c;
    h->capacity = c->capacity;
    /* cells: about capacity / TARGET_PER_CELL, as k x k per chunk */
    double per_side = sqrt((double)c->capacity / TARGET_PER_CELL);
    h->k_max = (uint32_t)fmax(1.0, floor(per_side / c->grid_dim));
    uint32_t dim = c->grid_dim * h->k_max;
    h->max_cells = dim * dim;
    h->entry_capacity = 4u * c->capacity;
    h->big_capacity = c->capacity; /* every cylinder may be wide: none is ever dropped */
    h->cylinders = crowd_malloc(sizeof *h->cylinders * c->capacity);
    h->cylinder_of_index = crowd_malloc(sizeof *h->cylinder_of_index * c->capacity);
    h->entries = crowd_malloc(sizeof *h->entries * h->entry_capacity);
    h->start = crowd_calloc((size_t)h->max_cells + 1, sizeof *h->start);
    h->big = crowd_malloc(sizeof *h->big * h->big_capacity);
    if (!h->cylinders || !h->cylinder_of_index || !h->entries || !h->start || !h->big) {
        crowd_hits_destroy(h);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "hits: out of memory for %u instances", c->capacity);
    }
    const crowd_asset *a = c->asset;
    /* About the instance's own axis, so yaw never matters (no trigonometry per instance): half the
     * box's larger XZ extent plus how far the box's centre sits off the axis. */
    float bx = 0.5f * (a->bounds_min[0] + a->bounds_max[0]), bz = 0.5f * (a->bounds_min[2] + a->bounds_max[2]);
    h->box_r = 0.5f * max_f(a->bounds_max[0] - a->bounds_min[0], a->bounds_max[2] - a->bounds_min[2]) +
               sqrtf(bx * bx + bz * bz);
    h->box_y0 = a->bounds_min[1];
    h->box_y1 = a->bounds_max[1];
    h->fit_r = 1.5f * h->box_r; /* steady state for scales about 1 */
    h->dim = 1;
    *out = h;
    return CROWD_OK;
}

void crowd_hits_destroy(crowd_hits *h)
{
    if (!h)
        return;
    crowd_free(h->cylinders);
    crowd_free(h->cylinder_of_index);
    crowd_free(h->entries);
    crowd_free(h->start);
    crowd_free(h->big);
    crowd_free(h);
}

/* The cells a cylinder's footprint meets, or false when it is wider than a cell or leaves the grid. */
static bool footprint(const crowd_hits *h, const hit_cylinder *cy, uint32_t *x0, uint32_t *z0, uint32_t *x1,
                      uint32_t *z1)
{
    float r = cy->r + FOOTPRINT_EPSILON;
    if (2.0f * r > h->cell)
        return false;
    float inv = 1.0f / h->cell;
    float fx0 = (cy->x - r - h->world_min) * inv, fx1 = (cy->x + r - h->world_min) * inv;
    float fz0 = (cy->z - r - h->world_min) * inv, fz1 = (cy->z + r - h->world_min) * inv;
    float end = (float)h->dim;
    if (!(fx0 >= 0.0f && fz0 >= 0.0f && fx1 < end && fz1 < end))
        return false; /* outside the world: the short list */
    /* non-negative: truncation is floor */
    *x0 = (uint32_t)fx0, *x1 = (uint32_t)fx1, *z0 = (uint32_t)fz0, *z1 = (uint32_t)fz1;
    *x1 = *x1 >= h->dim ? h->dim - 1 : *x1; /* fx1 just below dim may round up to it */
    *z1 = *z1 >= h->dim ? h->dim - 1 : *z1;
    return true;
}

/* Cells of about TARGET_PER_CELL instances each, but at least 2 x r_fit wide. */
static void choose_cells(crowd_hits *h, float r_fit, uint32_t live)
{
    const crowd *c = h->crowd;
    float area = c->desc.world_size * c->desc.world_size;
    double want = sqrt(TARGET_PER_CELL * area / (live ? live : 1));
    want = fmax(want, 2.0 * r_fit + 2.0 * FOOTPRINT_EPSILON);
    uint32_t k = (uint32_t)fmax(1.0, floor(c->cell_size / want));
    k = k > h->k_max ? h->k_max : k;
    h->dim = c->grid_dim * k;
    h->cell = c->cell_size / (float)k;
    h->world_min = c->world_min;
    h->world_max = c->world_min + c->cell_size * (float)c->grid_dim;
    memset(h->start, 0, sizeof *h->start * ((size_t)h->dim * h->dim + 1));
}

void crowd_hits_update(crowd_hits *h)
{
    if (!h)
        return;
    const crowd *c = h->crowd;
    /* The cells are sized before the pass from the live count and the last update's radii, so one
     * pass over the records both snapshots and counts (a change of sizes this frame only sends
     * more cylinders to the short list: never a wrong answer). */
    choose_cells(h, h->fit_r, c->count);
    uint32_t cells = h->dim * h->dim, n = 0;
    float r_max = 0.0f;
    double r_sum = 0.0;
    h->y_lo = INFINITY;
    h->y_hi = -INFINITY;
    h->big_count = 0;
    /* pass 1: the cylinders of the live instances, their height slab, the count per cell (into
     * start[cell + 1]) */
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t index = c->index_of_slot[s];
        if (index >= c->count) /* slack (CROWD_HOLE) or parked */
            continue;
        const crowd_record *r = &c->records[s];
        float p[3];
        hit_position(c, r, p);
        float k = r->scale;
        hit_cylinder *cy = &h->cylinders[n++];
        cy->x = p[0];
        cy->z = p[2];
        cy->r = k * h->box_r;
        cy->y0 = p[1] + k * h->box_y0;
        cy->y1 = p[1] + k * h->box_y1;
        cy->index = index;
        h->cylinder_of_index[index] = n - 1;
        h->y_lo = min_f(h->y_lo, cy->y0);
        h->y_hi = max_f(h->y_hi, cy->y1);
        r_max = max_f(r_max, cy->r);
        r_sum += cy->r;
        uint32_t x0, z0, x1, z1;
        if (!footprint(h, cy, &x0, &z0, &x1, &z1))
            continue;
        for (uint32_t z = z0; z <= z1; z++)
            for (uint32_t x = x0; x <= x1; x++)
                h->start[z * h->dim + x + 1]++;
    }
    h->live = n;
    h->indexed = c->count;
    /* next update's cells fit the largest radius, but at most 1.5 x the mean: a few giants go to
     * the short list rather than coarsen every cell */
    if (n)
        h->fit_r = min_f(r_max, (float)(1.5 * r_sum / n));
    for (uint32_t i = 0; i < cells; i++)
        h->start[i + 1] += h->start[i];
    uint32_t total = h->start[cells]; /* at most 4 per cylinder (2 x 2 cells): fits entry_capacity */
    /* pass 2: fill each cell from its end backwards, so start[cell + 1] ends at the cell's first
     * entry; cylinders stay in slot order within a cell (the ray tests them in memory order) */
    for (uint32_t i = h->live; i-- > 0;) {
        uint32_t x0, z0, x1, z1;
        if (!footprint(h, &h->cylinders[i], &x0, &z0, &x1, &z1)) {
            h->big[h->big_count++] = i;
            continue;
        }
        for (uint32_t z = z0; z <= z1; z++)
            for (uint32_t x = x0; x <= x1; x++)
                h->entries[--h->start[z * h->dim + x + 1]] = i;
    }
    memmove(h->start, h->start + 1, sizeof *h->start * cells); /* start[c]: cell c's first entry */
    h->start[cells] = total;
}

/* Entry distance of the ray into a cylinder within [0, t_max], or false. Both raycasts call this,
 * so they agree on every distance bit for bit. */
static bool cylinder_hit(const hit_cylinder *cy, const float o[3], const float d[3], float t_max, float *t)
{
    float ox = o[0] - cy->x, oz = o[2] - cy->z;
    float a = d[0] * d[0] + d[2] * d[2], b = ox * d[0] + oz * d[2], c = ox * ox + oz * oz - cy->r * cy->r;
    float enter = 0.0f, exit = t_max;
    if (a < 1e-12f) {
        if (c > 0.0f)
            return false;
    } else {
        float disc = b * b - a * c;
        if (disc < 0.0f)
            return false;
        float q = sqrtf(disc);
        enter = max_f(enter, (-b - q) / a);
        exit = min_f(exit, (-b + q) / a);
    }
    if (fabsf(d[1]) < 1e-12f) {
        if (o[1] < cy->y0 || o[1] > cy->y1)
            return false;
    } else {
        float ta = (cy->y0 - o[1]) / d[1], tb = (cy->y1 - o[1]) / d[1];
        enter = max_f(enter, min_f(ta, tb));
        exit = min_f(exit, max_f(ta, tb));
    }
    if (enter > exit)
        return false;
    *t = enter;
    return true;
}

typedef struct ray {
    float o[3], d[3], t_max;
} ray;

static bool make_ray(const float origin[3], const float direction[3], float max_distance, ray *r)
{
    float len = sqrtf(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
    if (!(len > 0.0f) || !isfinite(len) || !isfinite(origin[0]) || !isfinite(origin[1]) || !isfinite(origin[2]) ||
        !(max_distance >= 0.0f))
        return false;
    for (int k = 0; k < 3; k++)
        r->o[k] = origin[k], r->d[k] = direction[k] / len;
    r->t_max = isfinite(max_distance) ? max_distance : 3.0e38f;
    return true;
}

static void test(const crowd_hits *h, uint32_t i, const ray *r, float *best_t, uint32_t *best, uint32_t *tested)
{
    const hit_cylinder *cy = &h->cylinders[i];
    float t;
    if (cy->index >= h->crowd->count) /* killed since the snapshot (DEAD), or parked by crowd_set_count */
        return;
    (*tested)++;
    if (cylinder_hit(cy, r->o, r->d, r->t_max, &t) &&
        (t < *best_t || (t == *best_t && cy->index < h->cylinders[*best].index))) {
        *best_t = t;
        *best = i;
    }
}

static bool finish(const crowd_hits *h, const ray *r, float best_t, uint32_t best, uint32_t tested, crowd_ray_hit *hit)
{
    crowd_ray_hit out = {UINT32_MAX, INFINITY, {0, 0, 0}, tested};
    if (best != UINT32_MAX) {
        out.index = h->cylinders[best].index;
        out.distance = best_t;
        for (int k = 0; k < 3; k++)
            out.point[k] = r->o[k] + r->d[k] * best_t;
    }
    if (hit)
        *hit = out;
    return best != UINT32_MAX;
}

bool crowd_raycast_brute(const crowd_hits *h, const float origin[3], const float direction[3], float max_distance,
                         crowd_ray_hit *hit)
{
    ray r;
    uint32_t best = UINT32_MAX, tested = 0;
    float best_t = INFINITY;
    if (!h || !origin || !direction || !make_ray(origin, direction, max_distance, &r))
        return h ? finish(h, &r, best_t, best, 0, hit) : false;
    for (uint32_t i = 0; i < h->live; i++)
        test(h, i, &r, &best_t, &best, &tested);
    return finish(h, &r, best_t, best, tested, hit);
}

/* [t0, t1] of the ray inside the slab lo <= o[axis] + t d[axis] <= hi; false when it misses. */
static bool clip_slab(float o, float d, float lo, float hi, float *t0, float *t1)
{
    if (fabsf(d) < 1e-12f)
        return o >= lo && o <= hi;
    float ta = (lo - o) / d, tb = (hi - o) / d;
    *t0 = max_f(*t0, min_f(ta, tb));
    *t1 = min_f(*t1, max_f(ta, tb));
    return *t0 <= *t1;
}

bool crowd_raycast(const crowd_hits *h, const float origin[3], const float direction[3], float max_distance,
                   crowd_ray_hit *hit)
{
    ray r;
    uint32_t best = UINT32_MAX, tested = 0;
    float best_t = INFINITY;
    if (!h || !origin || !direction || !make_ray(origin, direction, max_distance, &r))
        return h ? finish(h, &r, best_t, best, 0, hit) : false;
    for (uint32_t b = 0; b < h->big_count; b++)
        test(h, h->big[b], &r, &best_t, &best, &tested);
    float t0 = 0.0f, t1 = r.t_max;
    if (!h->live || !clip_slab(r.o[1], r.d[1], h->y_lo, h->y_hi, &t0, &t1) ||
        !clip_slab(r.o[0], r.d[0], h->world_min, h->world_max, &t0, &t1) ||
        !clip_slab(r.o[2], r.d[2], h->world_min, h->world_max, &t0, &t1))
        return finish(h, &r, best_t, best, tested, hit);
    /* the 2D DDA over the cells the XZ track crosses while inside the slab */
    float inv = 1.0f / h->cell;
    float px = (r.o[0] + r.d[0] * t0 - h->world_min) * inv, pz = (r.o[2] + r.d[2] * t0 - h->world_min) * inv;
    int last = (int)h->dim - 1;
    int ix = (int)floorf(px), iz = (int)floorf(pz);
    ix = ix < 0 ? 0 : (ix > last ? last : ix);
    iz = iz < 0 ? 0 : (iz > last ? last : iz);
    int sx = r.d[0] > 0.0f ? 1 : -1, sz = r.d[2] > 0.0f ? 1 : -1;
    float dx = fabsf(r.d[0]) > 1e-12f ? h->cell / fabsf(r.d[0]) : INFINITY;
    float dz = fabsf(r.d[2]) > 1e-12f ? h->cell / fabsf(r.d[2]) : INFINITY;
    /* the ray's t at the next cell boundary along each axis */
    float nx = isfinite(dx) ? (h->world_min + h->cell * (float)(ix + (sx > 0)) - r.o[0]) / r.d[0] : INFINITY;
    float nz = isfinite(dz) ? (h->world_min + h->cell * (float)(iz + (sz > 0)) - r.o[2]) / r.d[2] : INFINITY;
    float enter = t0;
    for (;;) {
        /* a hit nearer than this cell's start is final (the epsilon keeps rounding on our side) */
        if (best_t < enter - 1e-4f)
            break;
        uint32_t cell = (uint32_t)iz * h->dim + (uint32_t)ix;
        for (uint32_t e = h->start[cell]; e < h->start[cell + 1]; e++)
            test(h, h->entries[e], &r, &best_t, &best, &tested);
        if (nx < nz) {
            enter = nx;
            ix += sx;
            nx += dx;
        } else {
            enter = nz;
            iz += sz;
            nz += dz;
        }
        if (enter > t1 || ix < 0 || iz < 0 || ix > last || iz > last)
            break;
    }
    return finish(h, &r, best_t, best, tested, hit);
}

/* ---- removals ---------------------------------------------------------------------------------- */

crowd_result crowd_hits_remove(crowd_hits *h, uint32_t index)
{
    if (!h)
        return CROWD_ERROR_ARGUMENT;
    uint32_t last = h->crowd->count; /* the index the last live instance had before crowd_remove */
    if (index > last)
        return CROWD_ERROR_ARGUMENT;
    /* the snapshot swaps as the crowd did: the removed one's cylinder is out, the last one's takes
     * over `index` (none when it was revived after the snapshot) */
    if (index < h->indexed && h->cylinder_of_index[index] != NO_CYLINDER)
        h->cylinders[h->cylinder_of_index[index]].index = DEAD;
    if (last == index) {
        if (index < h->indexed)
            h->cylinder_of_index[index] = NO_CYLINDER;
    } else if (index < h->indexed) {
        uint32_t moved = last < h->indexed ? h->cylinder_of_index[last] : NO_CYLINDER;
        h->cylinder_of_index[index] = moved;
        if (moved != NO_CYLINDER)
            h->cylinders[moved].index = index;
    }
    if (last < h->indexed)
        h->indexed = last;
    return CROWD_OK;
}
