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

/* ---- the chain ---------------------------------------------------------------------------------- */

/* Everything one build needs besides its output, allocated together. */
typedef struct lod_scratch {
    uint32_t *parent, *global_to_local;  /* per vertex: union-find, and gather_component's map */
    uint32_t *tri_component, *tri_order; /* per triangle (+1) */
    uint32_t *welded;                    /* the index buffer over position-welded vertices */
    uint32_t *next_twin;                 /* per vertex: the ring through its position group */
    float *keyed;                        /* xyz + part per vertex, with parts only */
    uint32_t *offsets;                   /* components + 1: each component's first triangle in tri_order */
    uint32_t components;
    component_work cw;
} lod_scratch;

static bool scratch_alloc(lod_scratch *s, const crowd_lod_mesh *m)
{
    uint32_t vertex_count = m->vertex_count, index_count = m->index_count, triangle_count = index_count / 3;
    memset(s, 0, sizeof *s);
    s->parent = crowd_malloc(sizeof(uint32_t) * vertex_count);
    s->global_to_local = crowd_malloc(sizeof(uint32_t) * vertex_count);
    s->tri_component = crowd_malloc(sizeof(uint32_t) * (triangle_count + 1));
    s->tri_order = crowd_malloc(sizeof(uint32_t) * (triangle_count + 1));
    s->welded = crowd_malloc(sizeof(uint32_t) * index_count);
    s->next_twin = crowd_malloc(sizeof(uint32_t) * vertex_count);
    s->keyed = m->parts ? crowd_malloc(sizeof(float) * 4 * vertex_count) : NULL;
    s->cw = (component_work){
        .next_twin = s->next_twin,
        .local_indices = crowd_malloc(sizeof(uint32_t) * index_count),
        .local_to_global = crowd_malloc(sizeof(uint32_t) * vertex_count),
        .local_positions = crowd_malloc(sizeof(float) * 3 * vertex_count),
        .scratch = crowd_malloc(sizeof(uint32_t) * 2 * index_count),
    };
    return !(m->parts && !s->keyed) && s->parent && s->global_to_local && s->tri_component && s->tri_order &&
           s->welded && s->next_twin && s->cw.local_indices && s->cw.local_to_global && s->cw.local_positions &&
           s->cw.scratch;
}

static void scratch_free(lod_scratch *s)
{
    crowd_free(s->parent);
    crowd_free(s->global_to_local);
    crowd_free(s->tri_component);
    crowd_free(s->tri_order);
    crowd_free(s->welded);
    crowd_free(s->keyed);
    crowd_free(s->next_twin);
    crowd_free(s->offsets);
    crowd_free(s->cw.local_indices);
    crowd_free(s->cw.local_to_global);
    crowd_free(s->cw.local_positions);
    crowd_free(s->cw.scratch);
}

/* Simplify over position-welded vertices: UV, normal and material seams split vertices that are
 * one point of the surface, and a flat-shaded mesh shares no vertex at all; unwelded, each side of
 * a seam would be a separate part that cannot collapse. Parts that only touch are not welded
 * (their vertices differ), so limbs still simplify on their own. Also links each position group
 * into a ring (next_twin) for best_twin. */
static void weld(const crowd_lod_mesh *m, lod_scratch *s)
{
    uint32_t vertex_count = m->vertex_count;
    if (s->keyed) { /* vertex frames: parts stand in for bones, and two parts never weld where they touch */
        for (uint32_t v = 0; v < vertex_count; v++) {
            memcpy(s->keyed + 4 * (size_t)v, m->positions + 3 * (size_t)v, 3 * sizeof(float));
            s->keyed[4 * (size_t)v + 3] = (float)m->parts[v];
        }
        meshopt_generateShadowIndexBuffer(s->welded, m->indices, m->index_count, s->keyed, vertex_count,
                                          4 * sizeof(float), 4 * sizeof(float));
    } else {
        meshopt_generateShadowIndexBuffer(s->welded, m->indices, m->index_count, m->positions, vertex_count,
                                          3 * sizeof(float), 3 * sizeof(float));
    }
    for (uint32_t v = 0; v < vertex_count; v++)
        s->next_twin[v] = v;
    for (uint32_t i = 0; i < m->index_count; i++) {
        uint32_t v = m->indices[i], head = s->welded[i];
        if (v != head && s->next_twin[v] == v) { /* not yet in its group's ring: insert after the head */
            s->next_twin[v] = s->next_twin[head];
            s->next_twin[head] = v;
        }
    }
}

/* Labels the welded mesh's connected components and sorts the triangles by component (a stable
 * counting sort into tri_order, offsets[c] the first of component c). False: out of memory. */
static bool sort_by_component(lod_scratch *s, const crowd_lod_mesh *m)
{
    uint32_t triangle_count = m->index_count / 3;
    s->components = label_components(s->welded, triangle_count, m->vertex_count, s->parent, s->tri_component);
    /* UINT32_MAX: label_components ran out of memory (not a count to size a table with) */
    s->offsets = s->components != UINT32_MAX ? crowd_calloc((size_t)s->components + 1, sizeof(uint32_t)) : NULL;
    if (!s->offsets)
        return false;
    uint32_t *offsets = s->offsets, components = s->components;
    for (uint32_t t = 0; t < triangle_count; t++)
        offsets[s->tri_component[t] + 1]++;
    for (uint32_t c = 0; c < components; c++)
        offsets[c + 1] += offsets[c];
    for (uint32_t t = 0; t < triangle_count; t++)
        s->tri_order[offsets[s->tri_component[t]]++] = t;
    for (uint32_t c = components; c > 0; c--)
        offsets[c] = offsets[c - 1];
    offsets[0] = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++)
        s->global_to_local[v] = UINT32_MAX;
    return true;
}

/* Every component simplified towards `ratio` of its triangles (at least four: a closed part needs
 * them), appended to `out`; returns the index count. */
static uint32_t simplify_level(const crowd_lod_mesh *m, lod_scratch *s, float ratio, uint32_t *out)
{
    uint32_t count = 0;
    for (uint32_t c = 0; c < s->components; c++) {
        gather_component(m->positions, s->welded, s->tri_order, s->offsets[c], s->offsets[c + 1], s->global_to_local,
                         &s->cw);
        uint32_t target = (uint32_t)lround(ratio * (double)s->cw.local_index_count / 3.0) * 3u;
        if (target < 12)
            target = 12;
        if (target > s->cw.local_index_count)
            target = s->cw.local_index_count;
        count += simplify_component(&s->cw, m->positions, m->normals, target, out + count);
    }
    return count;
}

/* Level `level` at out->indices + cursor, reordered for the vertex cache: the original triangles
 * for level 0, else the simplified components, never more triangles than the level above.
 * Returns its index count. */
static uint32_t build_level(const crowd_lod_mesh *m, lod_scratch *s, const float *ratios, uint32_t level,
                            uint32_t cursor, crowd_lod_chain *out)
{
    uint32_t *level_out = out->indices + cursor;
    uint32_t level_indices = m->index_count;
    if (level == 0) {
        memcpy(level_out, m->indices, sizeof(uint32_t) * m->index_count);
    } else {
        level_indices = simplify_level(m, s, ratios[level], level_out);
        const crowd_lod *prev = &out->levels[level - 1];
        if (level_indices > prev->index_count || level_indices == 0) {
            memcpy(level_out, out->indices + prev->first_index, sizeof(uint32_t) * prev->index_count);
            level_indices = prev->index_count;
        }
    }
    meshopt_optimizeVertexCache(level_out, level_out, level_indices, m->vertex_count);
    out->levels[level] = (crowd_lod){cursor, level_indices, level_indices / 3, 0.0f};
    return level_indices;
}

crowd_result crowd_build_lod_chain(const crowd_lod_mesh *mesh, const float *ratios, uint32_t level_count,
                                   crowd_lod_chain *out, crowd_error *error)
{
    use_crowd_allocator();
    memset(out, 0, sizeof *out);
    if (level_count == 0 || level_count > CROWD_MAX_LODS)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "LOD count %u outside 1..%u", level_count, CROWD_MAX_LODS);
    crowd_result r = CROWD_OK;
    lod_scratch s;
    bool ok = scratch_alloc(&s, mesh);
    /* worst case: every level keeps every triangle */
    out->indices = crowd_malloc(sizeof(uint32_t) * (size_t)mesh->index_count * level_count);
    if (!ok || !out->indices) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "LODs: out of memory for %u triangles", mesh->index_count / 3);
        goto done;
    }
    weld(mesh, &s);
    if (!sort_by_component(&s, mesh)) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "LODs: out of memory");
        goto done;
    }
    uint32_t cursor = 0;
    for (uint32_t level = 0; level < level_count; level++)
        cursor += build_level(mesh, &s, ratios, level, cursor, out);
    out->index_count = cursor;
    out->level_count = level_count;
    if (meshopt_refused)
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "LODs: out of memory in the simplifier");

done:
    scratch_free(&s);
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
