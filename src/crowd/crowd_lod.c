/* Culling and level of detail: frustum planes, per-chunk classification (distance policy, far
 * pool), and per-instance screen coverage with hysteresis and a global vertex budget. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd_internal.h"

void crowd_frustum_planes(const float v[16], const float p[16], float planes[6][4])
{
    float m[16]; /* clip = p * v, column-major */
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++)
            m[col * 4 + row] = p[row] * v[col * 4] + p[4 + row] * v[col * 4 + 1] + p[8 + row] * v[col * 4 + 2] +
                               p[12 + row] * v[col * 4 + 3];
    /* Gribb & Hartmann: each plane is row 3 plus or minus row 0, 1, 2 (GL clip space). */
    for (int i = 0; i < 6; i++) {
        int axis = i / 2;
        float sign = (i % 2) ? -1.0f : 1.0f;
        float len = 0.0f;
        for (int k = 0; k < 4; k++)
            planes[i][k] = m[k * 4 + 3] + sign * m[k * 4 + axis];
        len = sqrtf(planes[i][0] * planes[i][0] + planes[i][1] * planes[i][1] + planes[i][2] * planes[i][2]);
        if (len > 0.0f)
            for (int k = 0; k < 4; k++)
                planes[i][k] /= len;
    }
}

void crowd_camera_from_view(const crowd_view *view, crowd_camera *camera)
{
    crowd_frustum_planes(view->view, view->projection, camera->planes);
    /* camera position = -R^T t for view = [R | t] */
    const float *v = view->view;
    for (int i = 0; i < 3; i++)
        camera->position[i] = -(v[i * 4] * v[12] + v[i * 4 + 1] * v[13] + v[i * 4 + 2] * v[14]);
    camera->projection_scale = view->projection[5];
    camera->perspective = view->projection[11] < -0.5f;
}

bool crowd_sphere_visible(const crowd_camera *camera, const float c[3], float radius)
{
    for (int i = 0; i < 6; i++) {
        const float *p = camera->planes[i];
        if (p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] < -radius)
            return false;
    }
    return true;
}

float crowd_instance_radius(const crowd *c, float scale)
{
    return c->asset->sphere_radius * scale;
}

/* Clip k's culling sphere as its lowest and highest y; the asset's for an index out of range. */
static void clip_cull_span(const crowd_asset *a, uint32_t k, float *lo, float *hi)
{
    float y = a->sphere_center_y, r = a->sphere_radius;
    if (k < a->clip_count)
        y = a->clips[k].cull_center_y, r = a->clips[k].cull_radius;
    *lo = y - r;
    *hi = y + r;
}

void crowd_cull_sphere(const crowd *c, const crowd_record *r, float centre[3], float *radius)
{
    float lo, hi, lo_b, hi_b;
    clip_cull_span(c->asset, crowd_record_clip(r, 0), &lo, &hi);
    clip_cull_span(c->asset, crowd_record_clip(r, 1), &lo_b, &hi_b);
    /* both spheres are centred on the y axis: the one holding both spans their extent on it */
    lo = lo_b < lo ? lo_b : lo;
    hi = hi_b > hi ? hi_b : hi;
    crowd_rec_position(r, (float)c->time, centre); /* extrapolated to the frame */
    centre[1] += (hi + lo) * 0.5f * r->scale;
    *radius = ((hi - lo) * 0.5f + c->cull_margin) * r->scale;
}

static void cell_sphere(const crowd *c, const crowd_cell *cell, float centre[3], float *radius)
{
    float r2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        centre[k] = 0.5f * (cell->min[k] + cell->max[k]);
        float h = 0.5f * (cell->max[k] - cell->min[k]);
        r2 += h * h;
    }
    centre[1] += c->asset->sphere_center_y * cell->max_scale;
    /* Bounds taken at another time than the frame's (a simulation step binned with its own dt)
     * grow by how far the chunk's fastest instance walks meanwhile: never culled while visible. */
    float stale = fabsf((float)c->time - c->bin_time);
    *radius = sqrtf(r2) + crowd_instance_radius(c, cell->max_scale) + c->cull_margin * cell->max_scale +
              cell->max_speed * stale;
}

/* Distance from the camera to a chunk: its centre, or the nearest point of its bounds. */
static float chunk_distance(const crowd *c, const crowd_cell *cell, const float centre[3], const float *eye)
{
    if (c->desc.lod_pivot == CROWD_PIVOT_CENTRE) {
        float d[3] = {centre[0] - eye[0], centre[1] - eye[1], centre[2] - eye[2]};
        return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    float pad = crowd_instance_radius(c, cell->max_scale), d2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        float lo = cell->min[k] - pad, hi = cell->max[k] + pad;
        if (k == 1)
            lo += c->asset->sphere_center_y * cell->max_scale, hi += c->asset->sphere_center_y * cell->max_scale;
        float e = eye[k] < lo ? lo - eye[k] : eye[k] > hi ? eye[k] - hi : 0.0f;
        d2 += e * e;
    }
    return sqrtf(d2);
}

/* The nearest and farthest distance from the eye to any record position the chunk may hold this
 * frame: its binned position box grown by how far its fastest instance walks since. This is the
 * distance the hand-off band's per-instance rule measures (CROWD_DRAW_BAND), so a chunk whose range
 * misses the band is drawn by one representation only; tighter than the culling sphere, which also
 * holds the bodies and their height. */
static void position_range(const crowd *c, const crowd_cell *cell, const float *eye, float *near, float *far)
{
    float pad = cell->max_speed * fabsf((float)c->time - c->bin_time), n2 = 0.0f, f2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        float lo = cell->min[k] - pad, hi = cell->max[k] + pad;
        float e = eye[k] < lo ? lo - eye[k] : eye[k] > hi ? eye[k] - hi : 0.0f;
        float g = fmaxf(fabsf(eye[k] - lo), fabsf(hi - eye[k]));
        n2 += e * e, f2 += g * g;
    }
    *near = sqrtf(n2), *far = sqrtf(f2);
}

static uint32_t distance_level(const crowd *c, float distance)
{
    uint32_t last = c->levels - 1, level = 0;
    float d = distance / c->desc.lod_bias;
    while (level < last && c->desc.lod_distances[level] > 0.0f && d >= c->desc.lod_distances[level])
        level++;
    return level;
}

bool crowd_fades_unseen(const crowd *c, float distance)
{
    if (c->desc.lod_policy != CROWD_LOD_DISTANCE)
        return false;
    float h = c->desc.hysteresis > 0.0f ? c->desc.hysteresis : 0.0f;
    return distance_level(c, distance / ((1.0f + h) * (1.0f + CROWD_CUT_BAND))) > c->fade_max;
}

/* Visibility and distance LOD per chunk; pooled = visible at the last level, so it joins the far
 * pool's single draw (distance policy only). */
void crowd_classify_cells(crowd *c, const crowd_camera *camera)
{
    uint32_t last = c->levels - 1;
    bool pool = c->desc.far_pool > 0 && c->desc.lod_policy == CROWD_LOD_DISTANCE;
    /* The imposter hand-off band in metres: a chunk whose instances may lie in it draws both
     * representations, and each instance's own distance picks one (CROWD_DRAW_BAND). */
    bool banded = c->imposter_level != UINT32_MAX && c->band > 0.0f && c->desc.lod_policy == CROWD_LOD_DISTANCE;
    float lo = 0.0f, hi = 0.0f;
    uint32_t mesh_side = 0; /* the band's mesh level: the one the chain has at the band's near end */
    if (banded) {
        float t = c->desc.lod_distances[c->imposter_level - 1] * c->desc.lod_bias;
        lo = t / (1.0f + c->band), hi = t * (1.0f + c->band);
        /* Not always the last mesh level: where the chain's levels end at the switch (the demo's
         * and crowd-bench's, clamped to the card distance), the last one owns no distances, and
         * handing off from it would show its coarsest mesh only inside the band. */
        mesh_side = distance_level(c, lo);
        mesh_side = mesh_side < c->imposter_level ? mesh_side : c->imposter_level - 1;
    }
    c->frame.imposter_band[0] = lo;
    c->frame.imposter_band[1] = hi;
    for (uint32_t i = 0; i < c->cell_count; i++) {
        crowd_cell *cell = &c->cells[i];
        if (!cell->count)
            continue;
        float centre[3], radius;
        cell_sphere(c, cell, centre, &radius);
        cell->visible = crowd_sphere_visible(camera, centre, radius);
        float distance = chunk_distance(c, cell, centre, camera->position);
        cell->lod = distance_level(c, distance);
        cell->band = false;
        if (banded) {
            float near, far;
            position_range(c, cell, camera->position, &near, &far);
            cell->band = far >= lo && near < hi;
            /* Every instance of the chunk at or past the band's near end: those the mesh keeps are in
             * the hand-off, drawn at its mesh side (a band chunk's mesh draw submits every instance,
             * collapsed or not, so nearer ones in it take that level too). */
            if (cell->band && (cell->lod >= mesh_side || near >= lo))
                cell->lod = mesh_side;
        }
        cell->pooled = pool && cell->visible && cell->lod == last && !cell->band;
    }
}

/* ---- screen coverage -------------------------------------------------------------------------- */

static float coverage_of(const crowd *c, const crowd_camera *camera, const crowd_record *r, float centre[3],
                         float *radius)
{
    crowd_rec_position(r, (float)c->time, centre); /* extrapolated to the frame */
    centre[1] += c->asset->sphere_center_y * r->scale;
    *radius = crowd_instance_radius(c, r->scale);
    if (!camera->perspective)
        return *radius * camera->projection_scale;
    float d[3] = {centre[0] - camera->position[0], centre[1] - camera->position[1], centre[2] - camera->position[2]};
    float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    return dist > *radius ? *radius * camera->projection_scale / dist : 1e9f;
}

/* The preferred level for `coverage`, with a dead band around each threshold on the side of the
 * previous level so small camera moves do not flip levels back and forth. */
static uint32_t coverage_level(const crowd *c, float coverage, uint32_t previous, const crowd_record *r)
{
    uint32_t last = c->levels - 1;
    float h = c->hysteresis;
    for (uint32_t l = 0; l < last; l++) {
        float threshold = c->desc.screen_coverage[l] * (l < previous ? 1.0f + h : 1.0f - h);
        if (l + 1 == c->imposter_level && c->band > 0.0f) {
            /* the hand-off band replaces the dead band: a fixed value per instance decides, so a
             * still camera never flips anyone, and a moving one moves the split smoothly */
            float t = c->desc.screen_coverage[l], v = coverage * c->desc.lod_bias, b = 1.0f + c->band;
            if (v >= t * b)
                return l;
            if (v > t / b) {
                float f = logf(t * b / v) / (2.0f * logf(b)); /* 0 at the near end, 1 at the far */
                return crowd_band_random(r) < f ? l + 1 : l;
            }
            continue;
        }
        if (coverage * c->desc.lod_bias >= threshold)
            return l;
    }
    return last;
}

typedef struct budget_item {
    float coverage;
    uint32_t index;
    uint32_t slot;
} budget_item;

static int compare_budget(const void *a, const void *b)
{
    const budget_item *x = a, *y = b;
    if (x->coverage != y->coverage)
        return x->coverage < y->coverage ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index); /* stable: insertion (index) order */
}

/* Smallest coverage first, each demoted as far as it goes before the next is touched, until the
 * total fits. Never hides anyone: an impossible budget leaves everyone at the last level. */
static void apply_budget(crowd *c, uint32_t visible_count, uint64_t total)
{
    uint32_t last = c->levels - 1;
    budget_item *items = (budget_item *)(void *)c->records_back; /* scratch: sized for capacity records */
    uint32_t n = 0;
    for (uint32_t s = 0; s < c->slots && n < visible_count; s++)
        if (c->cell_of_slot[s] != CROWD_PARKED_CELL && c->coverage_of_slot[s] >= 0.0f)
            items[n++] = (budget_item){c->coverage_of_slot[s], c->index_of_slot[s], s};
    _Static_assert(sizeof(budget_item) <= CROWD_SORT_MAX_ITEM, "budget items sort in place");
    crowd_sort(items, n, sizeof *items, compare_budget);
    uint64_t budget = c->desc.vertex_budget;
    for (uint32_t i = 0; i < n && total > budget; i++) {
        uint8_t *level = &c->lod_back[items[i].slot]; /* lod_back holds this frame's choice */
        while (*level < last && total > budget) {
            total -= crowd_level_indices(c, *level);
            (*level)++;
            total += crowd_level_indices(c, *level);
        }
    }
    c->frame.stats.budget_satisfied = total <= budget;
}

/* Coverage policy: per-instance culling and LOD. Writes rank_of_slot, the levels into lod_back
 * (the preferred level, before budget demotion, goes to lod_of_slot for next frame's hysteresis)
 * and returns how many instances are visible. */
uint32_t crowd_assign_coverage_lods(crowd *c, const crowd_camera *camera)
{
    uint32_t last = c->levels - 1, visible = 0;
    uint32_t culled_base = CROWD_MAX_LODS * c->cell_count, parked = c->rank_count - 1;
    uint64_t total = 0;
    for (uint32_t s = 0; s < c->slots; s++) {
        uint32_t cell = c->cell_of_slot[s];
        c->coverage_of_slot[s] = -1.0f;
        if (cell == CROWD_PARKED_CELL) {
            c->rank_of_slot[s] = parked;
            continue;
        }
        bool seen = c->cells[cell].visible;
        float centre[3], radius, coverage = 0.0f;
        if (seen) {
            coverage = coverage_of(c, camera, &c->records[s], centre, &radius);
            if (coverage >= c->desc.min_coverage) {
                crowd_cull_sphere(c, &c->records[s], centre, &radius);
                seen = crowd_sphere_visible(camera, centre, radius);
            } else {
                seen = false;
            }
        }
        if (!seen) {
            c->rank_of_slot[s] = culled_base + cell;
            continue;
        }
        uint32_t level = coverage_level(c, coverage, c->lod_of_slot[s], &c->records[s]);
        c->lod_of_slot[s] = (uint8_t)level;
        c->lod_back[s] = (uint8_t)level;
        c->coverage_of_slot[s] = coverage;
        total += crowd_level_indices(c, level);
        visible++;
    }
    c->frame.stats.budget_satisfied = true;
    c->frame.stats.demoted = 0;
    if (c->desc.vertex_budget && total > c->desc.vertex_budget)
        apply_budget(c, visible, total);
    for (uint32_t s = 0; s < c->slots; s++) {
        if (c->coverage_of_slot[s] < 0.0f)
            continue;
        uint32_t level = c->lod_back[s] > last ? last : c->lod_back[s];
        c->frame.stats.demoted += level > c->lod_of_slot[s];
        c->rank_of_slot[s] = level * c->cell_count + c->cell_of_slot[s];
    }
    return visible;
}
