#include "bake/lod.h"

#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"

/* ---- connected components (union-find over triangle edges) ------------------------------------ */

static uint32_t find_root(uint32_t *parent, uint32_t v)
{
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a != b)
        parent[a < b ? b : a] = a < b ? a : b; /* smaller id wins: deterministic */
}

/* Component id per triangle, numbered 0.. in order of first appearance. */
static uint32_t label_components(const uint32_t *indices, uint32_t triangle_count, uint32_t vertex_count,
                                 uint32_t *parent, uint32_t *triangle_component)
{
    for (uint32_t v = 0; v < vertex_count; v++)
        parent[v] = v;
    for (uint32_t t = 0; t < triangle_count; t++) {
        unite(parent, indices[3 * t], indices[3 * t + 1]);
        unite(parent, indices[3 * t], indices[3 * t + 2]);
    }
    for (uint32_t t = 0; t < triangle_count; t++)
        triangle_component[t] = find_root(parent, indices[3 * t]);
    uint32_t count = 0;
    uint32_t *label = crowd_malloc(sizeof(uint32_t) * vertex_count);
    if (!label)
        return UINT32_MAX;
    for (uint32_t v = 0; v < vertex_count; v++)
        label[v] = UINT32_MAX;
    for (uint32_t t = 0; t < triangle_count; t++) {
        uint32_t root = triangle_component[t];
        if (label[root] == UINT32_MAX)
            label[root] = count++;
        triangle_component[t] = label[root];
    }
    crowd_free(label);
    return count;
}

/* ---- per-component simplification ------------------------------------------------------------- */

typedef struct component_work {
    uint32_t *local_indices; /* component triangles in local vertex ids */
    uint32_t local_index_count;
    uint32_t *local_to_global;
    uint32_t local_vertex_count;
    float *local_positions;
    uint32_t *scratch;         /* simplifier output */
    const uint32_t *next_twin; /* next vertex at the same position (a ring through the group) */
} component_work;

static void face_normal(const float *positions, uint32_t a, uint32_t b, uint32_t c, double n[3])
{
    const float *p0 = positions + 3 * a, *p1 = positions + 3 * b, *p2 = positions + 3 * c;
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)p1[k] - p0[k];
        e2[k] = (double)p2[k] - p0[k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

static bool triangle_ok(const float *positions, const float *normals, uint32_t a, uint32_t b, uint32_t c)
{
    if (a == b || b == c || a == c)
        return false;
    double n[3];
    face_normal(positions, a, b, c, n);
    double area2 = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (area2 < 1e-12)
        return false;
    double vn[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        vn[k] = (double)normals[3 * a + k] + normals[3 * b + k] + normals[3 * c + k];
    return n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] > 0.0;
}

/* The simplifier works on position-welded vertices, so a kept corner names one vertex of its
 * position group; picks the group member whose normal best matches the face (the right side of a
 * hard edge, the right facet of a flat-shaded mesh), lowest id on ties. */
static uint32_t best_twin(const uint32_t *next_twin, const float *normals, uint32_t v, const double face[3])
{
    uint32_t best = v;
    double best_dot = -INFINITY;
    uint32_t m = v;
    do {
        const float *n = normals + 3 * m;
        double d = n[0] * face[0] + n[1] * face[1] + n[2] * face[2];
        if (d > best_dot || (d == best_dot && m < best)) {
            best_dot = d;
            best = m;
        }
        m = next_twin[m];
    } while (m != v);
    return best;
}

/* Simplifies one component towards `target_indices`; appends the kept triangles (global ids)
 * to `out` and returns how many indices were appended. */
static uint32_t simplify_component(const component_work *cw, const float *positions, const float *normals,
                                   uint32_t target_indices, uint32_t *out)
{
    float error = 0.0f;
    size_t count = meshopt_simplify(cw->scratch, cw->local_indices, cw->local_index_count, cw->local_positions,
                                    cw->local_vertex_count, 3 * sizeof(float), target_indices, 1.0f, 0, &error);
    if (count > target_indices + target_indices / 2) {
        /* Edge collapse stalled (topology it must preserve); clustering gets to the target. */
        uint32_t *sloppy = cw->scratch + cw->local_index_count;
        size_t sloppy_count =
            meshopt_simplifySloppy(sloppy, cw->local_indices, cw->local_index_count, cw->local_positions,
                                   cw->local_vertex_count, 3 * sizeof(float), target_indices, 1.0f, &error);
        if (sloppy_count >= 12 && sloppy_count < count) {
            memmove(cw->scratch, sloppy, sloppy_count * sizeof(uint32_t));
            count = sloppy_count;
        }
    }
    uint32_t kept = 0;
    for (size_t i = 0; i + 2 < count; i += 3) {
        uint32_t a = cw->local_to_global[cw->scratch[i]], b = cw->local_to_global[cw->scratch[i + 1]],
                 c = cw->local_to_global[cw->scratch[i + 2]];
        double face[3];
        face_normal(positions, a, b, c, face);
        a = best_twin(cw->next_twin, normals, a, face);
        b = best_twin(cw->next_twin, normals, b, face);
        c = best_twin(cw->next_twin, normals, c, face);
        if (!triangle_ok(positions, normals, a, b, c))
            continue;
        out[kept++] = a;
        out[kept++] = b;
        out[kept++] = c;
    }
    return kept;
}

/* Gathers the triangles of component `component` into local numbering. `global_to_local` is
 * all-UINT32_MAX on entry and on exit. */
static void gather_component(const float *positions, const uint32_t *indices, const uint32_t *triangle_order,
                             uint32_t first, uint32_t last, uint32_t *global_to_local, component_work *cw)
{
    cw->local_vertex_count = 0;
    cw->local_index_count = 0;
    for (uint32_t i = first; i < last; i++) {
        uint32_t t = triangle_order[i];
        for (int k = 0; k < 3; k++) {
            uint32_t g = indices[3 * t + k];
            if (global_to_local[g] == UINT32_MAX) {
                global_to_local[g] = cw->local_vertex_count;
                cw->local_to_global[cw->local_vertex_count] = g;
                memcpy(cw->local_positions + 3 * cw->local_vertex_count, positions + 3 * g, 3 * sizeof(float));
                cw->local_vertex_count++;
            }
            cw->local_indices[cw->local_index_count++] = global_to_local[g];
        }
    }
    for (uint32_t v = 0; v < cw->local_vertex_count; v++)
        global_to_local[cw->local_to_global[v]] = UINT32_MAX;
}

/* meshoptimizer allocates its scratch through base.h's allocator too, but it never checks for
 * NULL (it expects an allocator that throws or aborts). So a refused block is taken from libc
 * instead, tagged in a header so it goes back to libc, and the failure is remembered: the LOD build
 * then reports CROWD_ERROR_OUT_OF_MEMORY as if the hook's refusal had happened in our own code.
 * Only if libc refuses too is there no way out of meshoptimizer but abort. */
#define MESHOPT_HEADER 16 /* keeps malloc's alignment for the block behind it */

static _Thread_local bool meshopt_refused;

static void *meshopt_allocate(size_t size)
{
    unsigned char *p = size <= SIZE_MAX - MESHOPT_HEADER ? crowd_malloc(size + MESHOPT_HEADER) : NULL;
    unsigned char from_libc = 0;
    if (!p) {
        meshopt_refused = true;
        from_libc = 1;
        if (!(p = malloc(size + MESHOPT_HEADER)))
            abort();
    }
    p[0] = from_libc;
    return p + MESHOPT_HEADER;
}

static void meshopt_release(void *pointer)
{
    unsigned char *p = (unsigned char *)pointer - MESHOPT_HEADER;
    if (p[0])
        free(p);
    else
        crowd_free(p);
}

static void use_crowd_allocator(void)
{
    meshopt_setAllocator(meshopt_allocate, meshopt_release);
    meshopt_refused = false;
}

crowd_result crowd_build_lod_chain(const float *positions, const float *normals, const uint16_t *parts,
                                   uint32_t vertex_count, const uint32_t *indices, uint32_t index_count,
                                   const float *ratios, uint32_t level_count, crowd_lod_chain *out, crowd_error *error)
{
    use_crowd_allocator();
    memset(out, 0, sizeof *out);
    if (level_count == 0 || level_count > CROWD_MAX_LODS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "LOD count %u outside 1..%u", level_count, CROWD_MAX_LODS);
    uint32_t triangle_count = index_count / 3;
    crowd_result r = CROWD_OK;
    uint32_t *parent = crowd_malloc(sizeof(uint32_t) * vertex_count);
    uint32_t *global_to_local = crowd_malloc(sizeof(uint32_t) * vertex_count);
    uint32_t *tri_component = crowd_malloc(sizeof(uint32_t) * (triangle_count + 1));
    uint32_t *tri_order = crowd_malloc(sizeof(uint32_t) * (triangle_count + 1));
    uint32_t *welded = crowd_malloc(sizeof(uint32_t) * index_count);
    uint32_t *next_twin = crowd_malloc(sizeof(uint32_t) * vertex_count);
    float *keyed = parts ? crowd_malloc(sizeof(float) * 4 * vertex_count) : NULL;
    component_work cw = {
        .next_twin = next_twin,
        .local_indices = crowd_malloc(sizeof(uint32_t) * index_count),
        .local_to_global = crowd_malloc(sizeof(uint32_t) * vertex_count),
        .local_positions = crowd_malloc(sizeof(float) * 3 * vertex_count),
        .scratch = crowd_malloc(sizeof(uint32_t) * 2 * index_count),
    };
    /* worst case: every level keeps every triangle */
    out->indices = crowd_malloc(sizeof(uint32_t) * (size_t)index_count * level_count);
    uint32_t *offsets = NULL;
    if ((parts && !keyed) || !parent || !global_to_local || !tri_component || !tri_order || !welded || !next_twin ||
        !cw.local_indices || !cw.local_to_global || !cw.local_positions || !cw.scratch || !out->indices) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "LODs: out of memory for %u triangles", triangle_count);
        goto done;
    }

    /* Simplify over position-welded vertices: UV, normal and material seams split vertices that
     * are one point of the surface, and a flat-shaded mesh shares no vertex at all; unwelded, each
     * side of a seam would be a separate part that cannot collapse. Parts that only touch are not
     * welded (their vertices differ), so limbs still simplify on their own. */
    if (keyed) { /* vertex frames: parts stand in for bones, and two parts never weld where they touch */
        for (uint32_t v = 0; v < vertex_count; v++) {
            memcpy(keyed + 4 * (size_t)v, positions + 3 * (size_t)v, 3 * sizeof(float));
            keyed[4 * (size_t)v + 3] = (float)parts[v];
        }
        meshopt_generateShadowIndexBuffer(welded, indices, index_count, keyed, vertex_count, 4 * sizeof(float),
                                          4 * sizeof(float));
    } else {
        meshopt_generateShadowIndexBuffer(welded, indices, index_count, positions, vertex_count, 3 * sizeof(float),
                                          3 * sizeof(float));
    }
    for (uint32_t v = 0; v < vertex_count; v++)
        next_twin[v] = v;
    for (uint32_t i = 0; i < index_count; i++) {
        uint32_t v = indices[i], head = welded[i];
        if (v != head && next_twin[v] == v) { /* not yet in its group's ring: insert after the head */
            next_twin[v] = next_twin[head];
            next_twin[head] = v;
        }
    }
    uint32_t components = label_components(welded, triangle_count, vertex_count, parent, tri_component);
    /* UINT32_MAX: label_components ran out of memory (not a count to size a table with) */
    offsets = components != UINT32_MAX ? crowd_calloc((size_t)components + 1, sizeof(uint32_t)) : NULL;
    if (!offsets) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "LODs: out of memory");
        goto done;
    }
    /* counting sort of triangles by component, stable */
    for (uint32_t t = 0; t < triangle_count; t++)
        offsets[tri_component[t] + 1]++;
    for (uint32_t c = 0; c < components; c++)
        offsets[c + 1] += offsets[c];
    for (uint32_t t = 0; t < triangle_count; t++)
        tri_order[offsets[tri_component[t]]++] = t;
    for (uint32_t c = components; c > 0; c--)
        offsets[c] = offsets[c - 1];
    offsets[0] = 0;
    for (uint32_t v = 0; v < vertex_count; v++)
        global_to_local[v] = UINT32_MAX;

    uint32_t cursor = 0;
    for (uint32_t level = 0; level < level_count; level++) {
        uint32_t *level_out = out->indices + cursor;
        uint32_t level_indices = 0;
        if (level == 0) {
            memcpy(level_out, indices, sizeof(uint32_t) * index_count);
            level_indices = index_count;
        } else {
            for (uint32_t c = 0; c < components; c++) {
                gather_component(positions, welded, tri_order, offsets[c], offsets[c + 1], global_to_local, &cw);
                uint32_t target = (uint32_t)lround(ratios[level] * (double)cw.local_index_count / 3.0) * 3u;
                if (target < 12)
                    target = 12; /* a closed part needs four triangles */
                if (target > cw.local_index_count)
                    target = cw.local_index_count;
                level_indices += simplify_component(&cw, positions, normals, target, level_out + level_indices);
            }
            /* never more triangles than the level above */
            const crowd_lod *prev = &out->levels[level - 1];
            if (level_indices > prev->index_count || level_indices == 0) {
                memcpy(level_out, out->indices + prev->first_index, sizeof(uint32_t) * prev->index_count);
                level_indices = prev->index_count;
            }
        }
        meshopt_optimizeVertexCache(level_out, level_out, level_indices, vertex_count);
        out->levels[level] = (crowd_lod){cursor, level_indices, level_indices / 3, 0.0f};
        cursor += level_indices;
    }
    out->index_count = cursor;
    out->level_count = level_count;
    if (meshopt_refused)
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "LODs: out of memory in the simplifier");

done:
    crowd_free(parent);
    crowd_free(global_to_local);
    crowd_free(tri_component);
    crowd_free(tri_order);
    crowd_free(welded);
    crowd_free(keyed);
    crowd_free(next_twin);
    crowd_free(offsets);
    crowd_free(cw.local_indices);
    crowd_free(cw.local_to_global);
    crowd_free(cw.local_positions);
    crowd_free(cw.scratch);
    if (r != CROWD_OK)
        crowd_lod_chain_free(out);
    return r;
}

crowd_result crowd_lod_chain_from_authored(const uint32_t *indices, const uint32_t *firsts, const uint32_t *counts,
                                           const float *coverage, uint32_t level_count, uint32_t vertex_count,
                                           crowd_lod_chain *out, crowd_error *error)
{
    use_crowd_allocator();
    memset(out, 0, sizeof *out);
    if (level_count == 0 || level_count > CROWD_MAX_LODS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "LOD count %u outside 1..%u", level_count, CROWD_MAX_LODS);
    uint64_t total = 0;
    for (uint32_t l = 0; l < level_count; l++)
        total += counts[l];
    if (total > CROWD_MAX_INDICES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "authored LODs hold %llu indices", (unsigned long long)total);
    out->indices = crowd_malloc(sizeof(uint32_t) * (total ? total : 1));
    if (!out->indices)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "LODs: out of memory");
    uint32_t cursor = 0;
    for (uint32_t l = 0; l < level_count; l++) {
        uint32_t n = counts[l];
        /* authored levels may grow where an author asks for it; the runtime relies on monotonic counts */
        if (l > 0 && n > out->levels[l - 1].index_count) {
            crowd_lod_chain_free(out);
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "authored LOD %u has more triangles (%u) than level %u (%u)", l, n / 3, l - 1,
                              out->levels[l - 1].index_count / 3);
        }
        meshopt_optimizeVertexCache(out->indices + cursor, indices + firsts[l], n, vertex_count);
        out->levels[l] = (crowd_lod){cursor, n, n / 3, coverage ? coverage[l] : 0.0f};
        cursor += n;
    }
    out->index_count = cursor;
    out->level_count = level_count;
    if (meshopt_refused) {
        crowd_lod_chain_free(out);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "LODs: out of memory in the vertex cache optimiser");
    }
    return CROWD_OK;
}

void crowd_lod_chain_free(crowd_lod_chain *chain)
{
    if (!chain)
        return;
    crowd_free(chain->indices);
    memset(chain, 0, sizeof *chain);
}
