/* Mesh instances -> the rig's vertex streams. Two passes: a plan (sizes, shared vertices, LOD
 * levels) so everything is allocated once and overflow-checked first, then the fill. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_build.h"

typedef struct prim_plan {
    uint32_t instance;
    const cJSON *json;
    char path[64];
    uint32_t mode;
    uint32_t source_vertices;
    uint32_t triangles;
    bool flat;      /* no NORMAL: every triangle gets its own vertices */
    int32_t shares; /* an earlier plan with the same vertices, or -1 */
    uint32_t vertex_base;
    int32_t region;
    uint32_t texcoord;
} prim_plan;

typedef struct mesh_plan {
    prim_plan *prims;
    uint32_t prim_count;
    uint64_t vertices;
    uint64_t level_indices[CROWD_MAX_LODS];
    uint32_t *level_fill; /* indices written so far per level */
    uint32_t *levels[CROWD_MAX_LODS];
    uint32_t *top_level; /* per node: the highest LOD level of instances based on it */
    bool uvs, colors;
    uint32_t zero_weight_vertices;
} mesh_plan;

static const cJSON *attribute(const prim_plan *p, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p->json, "attributes"), name);
}

static uint32_t accessor_of(const cJSON *item)
{
    return (uint32_t)item->valuedouble; /* checked in mesh_check.c */
}

static uint32_t joint_sets(const prim_plan *p)
{
    uint32_t n = 0;
    char key[32];
    for (;; n++) {
        snprintf(key, sizeof key, "JOINTS_%u", n);
        if (!attribute(p, key))
            return n;
    }
}

/* Does level `level` of the rig show the instance's own level `own`? Levels past an instance's
 * last LOD keep showing that last LOD. */
static bool shows(const mesh_plan *m, const gltf_instance *in, uint32_t level)
{
    uint32_t top = m->top_level[in->base_node];
    return in->level == (level < top ? level : top);
}

/* ---- pass 1: the plan ------------------------------------------------------------------------ */

static bool same_json(const cJSON *a, const cJSON *b, const char *key)
{
    return gj_same_shape(cJSON_GetObjectItemCaseSensitive(a, key), cJSON_GetObjectItemCaseSensitive(b, key));
}

static crowd_result plan_primitive(gltf_builder *b, mesh_plan *m, uint32_t instance, uint32_t index, const cJSON *prim,
                                   crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    const gltf_instance *in = &b->instances[instance];
    prim_plan *p = &m->prims[m->prim_count];
    *p = (prim_plan){.instance = instance, .json = prim, .shares = -1};
    snprintf(p->path, sizeof p->path, "meshes[%d].primitives[%u]", doc->nodes[in->node].mesh, index);
    uint64_t mode = 4;
    gj_uint(prim, "mode", p->path, false, 0, 6, &mode, NULL);
    p->mode = (uint32_t)mode;
    if (p->mode < 4) {
        gltf_warn(doc, "%s: mode %u (points or lines) has no surface to bake; skipped", p->path, p->mode);
        return CROWD_OK;
    }
    p->source_vertices = doc->accessors[accessor_of(attribute(p, "POSITION"))].count;
    const cJSON *indices = cJSON_GetObjectItemCaseSensitive(prim, "indices");
    uint32_t n = indices ? doc->accessors[accessor_of(indices)].count : p->source_vertices;
    p->triangles = p->mode == 4 ? n / 3 : (n >= 3 ? n - 2 : 0);
    p->flat = !attribute(p, "NORMAL");
    int32_t material = -1;
    gj_index(prim, "material", p->path, false, doc->material_count, "materials", &material, NULL);
    if ((p->region = gltf_region_of(b, material, error)) < 0)
        return error ? error->code : CROWD_ERROR_LIMIT;
    gltf_material info = {.image = -1};
    if (material >= 0 && gltf_material_info(doc, (uint32_t)material, &info, error) != CROWD_OK)
        return error ? error->code : CROWD_ERROR_INVALID_DATA;
    p->texcoord = info.image >= 0 ? info.texcoord : 0;
    char key[32];
    snprintf(key, sizeof key, "TEXCOORD_%u", p->texcoord);
    m->uvs |= attribute(p, key) != NULL;
    m->colors |= attribute(p, "COLOR_0") != NULL;
    /* Primitives of one mesh often share their vertex accessors (one per material): share the
     * vertices too. Compared with the instance's last distinct primitive only, so planning stays
     * linear; exporters write such primitives one after another. */
    for (uint32_t q = m->prim_count; !p->flat && q-- > 0;) {
        const prim_plan *o = &m->prims[q];
        if (o->instance != instance)
            break;
        if (o->shares >= 0 || o->mode < 4)
            continue;
        if (!o->flat && same_json(o->json, prim, "attributes") && same_json(o->json, prim, "targets"))
            p->shares = (int32_t)q;
        break;
    }
    if (p->shares < 0) {
        p->vertex_base = (uint32_t)(m->vertices < UINT32_MAX ? m->vertices : UINT32_MAX);
        m->vertices += p->flat ? 3ull * p->triangles : p->source_vertices;
    }
    for (uint32_t l = 0; l < b->level_count; l++)
        m->level_indices[l] += shows(m, in, l) ? 3ull * p->triangles : 0;
    uint32_t influences = in->skin >= 0 ? 4 * joint_sets(p) : 1;
    if (influences > CROWD_GLTF_MAX_INFLUENCES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "%s.attributes: %u joints per vertex, limit %u", p->path,
                          influences, CROWD_GLTF_MAX_INFLUENCES);
    if (influences > b->rig->influence_count)
        b->rig->influence_count = influences;
    m->prim_count++;
    return CROWD_OK;
}

static crowd_result plan_targets(gltf_builder *b, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    crowd_rig *rig = b->rig;
    for (uint32_t i = 0; i < b->instance_count; i++) {
        gltf_instance *in = &b->instances[i];
        uint32_t count = doc->meshes[doc->nodes[in->node].mesh].target_count;
        if (in->level == 0) {
            in->first_target = rig->morph_target_count;
            rig->morph_target_count += count;
            if (rig->morph_target_count > CROWD_GLTF_MAX_MORPH_TARGETS)
                return crowd_fail(error, CROWD_ERROR_LIMIT, "meshes: %u morph targets in the character, limit %u",
                                  rig->morph_target_count, CROWD_GLTF_MAX_MORPH_TARGETS);
        }
    }
    for (uint32_t i = 0; i < b->instance_count; i++) { /* LODs borrow their base's targets */
        gltf_instance *in = &b->instances[i];
        for (uint32_t k = 0; in->level && k < b->instance_count; k++)
            if (b->instances[k].level == 0 && b->instances[k].node == in->base_node)
                in->first_target = b->instances[k].first_target;
    }
    return CROWD_OK;
}

/* Regions follow material order (then the material-less "default"), whatever order primitives
 * use them in, so a written file reads back with the same region ids. */
static crowd_result order_regions(gltf_builder *b, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    bool *used = crowd_calloc(doc->material_count + 2, sizeof *used);
    if (!used)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "materials: out of memory");
    for (uint32_t i = 0; i < b->instance_count; i++) {
        const cJSON *prim;
        cJSON_ArrayForEach(prim, cJSON_GetObjectItemCaseSensitive(
                                     doc->meshes[doc->nodes[b->instances[i].node].mesh].json, "primitives"))
        {
            const cJSON *material = cJSON_GetObjectItemCaseSensitive(prim, "material");
            used[material ? (uint32_t)material->valuedouble : doc->material_count] = true;
        }
    }
    crowd_result r = CROWD_OK;
    for (uint32_t m = 0; m <= doc->material_count && r == CROWD_OK; m++)
        if (used[m] && gltf_region_of(b, m < doc->material_count ? (int32_t)m : -1, error) < 0)
            r = error ? error->code : CROWD_ERROR_LIMIT;
    crowd_free(used);
    return r;
}

static crowd_result make_plan(gltf_builder *b, mesh_plan *m, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    uint64_t prims = 0;
    for (uint32_t i = 0; i < b->instance_count; i++)
        prims += doc->meshes[doc->nodes[b->instances[i].node].mesh].primitive_count;
    if (prims > CROWD_GLTF_MAX_ARRAY)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "meshes: %llu primitives in the character, limit %u",
                          (unsigned long long)prims, CROWD_GLTF_MAX_ARRAY);
    m->prims = crowd_calloc(prims + 1, sizeof *m->prims);
    m->top_level = crowd_calloc(doc->node_count + 1, sizeof *m->top_level);
    if (!m->prims || !m->top_level)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "meshes: out of memory");
    for (uint32_t i = 0; i < b->instance_count; i++)
        if (b->instances[i].level > m->top_level[b->instances[i].base_node])
            m->top_level[b->instances[i].base_node] = b->instances[i].level;
    crowd_result r = order_regions(b, error);
    for (uint32_t i = 0; i < b->instance_count && r == CROWD_OK; i++) {
        const cJSON *prim;
        uint32_t k = 0;
        cJSON_ArrayForEach(prim, cJSON_GetObjectItemCaseSensitive(
                                     doc->meshes[doc->nodes[b->instances[i].node].mesh].json, "primitives"))
        {
            if (r == CROWD_OK)
                r = plan_primitive(b, m, i, k++, prim, error);
        }
    }
    if (r != CROWD_OK)
        return r;
    if (m->vertices == 0 || m->vertices > CROWD_MAX_VERTICES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "meshes: %llu vertices to bake, need 1..%u",
                          (unsigned long long)m->vertices, CROWD_MAX_VERTICES);
    for (uint32_t l = 0; l < b->level_count; l++)
        if (m->level_indices[l] == 0 || m->level_indices[l] > CROWD_MAX_INDICES)
            return crowd_fail(error, CROWD_ERROR_LIMIT, "meshes: %llu triangle indices at LOD %u, need 1..%u",
                              (unsigned long long)m->level_indices[l], l, CROWD_MAX_INDICES);
    if (b->rig->influence_count == 0)
        b->rig->influence_count = 1;
    return plan_targets(b, error);
}

/* ---- pass 2: the fill ------------------------------------------------------------------------ */

typedef struct source {
    uint32_t n;
    float *positions, *normals, *uvs, *colors;
    uint32_t color_components;
    uint32_t *joints;
    float *weights;
    uint32_t sets;
    uint32_t *triangles; /* 3 per triangle, source vertex indices */
} source;

static void free_source(source *s)
{
    crowd_free(s->positions), crowd_free(s->normals), crowd_free(s->uvs), crowd_free(s->colors);
    crowd_free(s->joints), crowd_free(s->weights), crowd_free(s->triangles);
    memset(s, 0, sizeof *s);
}

static crowd_result read_attribute(const gltf_doc *doc, const prim_plan *p, const char *name, uint32_t width,
                                   float **out, crowd_error *error)
{
    const cJSON *a = attribute(p, name);
    *out = NULL;
    if (!a)
        return CROWD_OK;
    char path[128];
    snprintf(path, sizeof path, "%s.attributes.%s", p->path, name);
    if (!(*out = crowd_malloc((size_t)p->source_vertices * width * sizeof(float))))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    return gltf_read_floats(doc, accessor_of(a), *out, path, error);
}

static crowd_result read_triangles(const gltf_doc *doc, const prim_plan *p, source *s, crowd_error *error)
{
    const cJSON *indices = cJSON_GetObjectItemCaseSensitive(p->json, "indices");
    uint32_t n = indices ? doc->accessors[accessor_of(indices)].count : p->source_vertices;
    uint32_t *list = crowd_malloc(((size_t)n + 1) * sizeof *list);
    s->triangles = crowd_malloc(((size_t)p->triangles * 3 + 1) * sizeof *s->triangles);
    if (!list || !s->triangles) {
        crowd_free(list);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", p->path);
    }
    char path[96];
    snprintf(path, sizeof path, "%s.indices", p->path);
    crowd_result r = indices ? gltf_read_uints(doc, accessor_of(indices), list, path, error) : CROWD_OK;
    for (uint32_t i = 0; !indices && i < n; i++)
        list[i] = i;
    for (uint32_t t = 0; r == CROWD_OK && t < p->triangles; t++) {
        uint32_t *tri = s->triangles + 3 * (size_t)t;
        if (p->mode == 4) {
            tri[0] = list[3 * t], tri[1] = list[3 * t + 1], tri[2] = list[3 * t + 2];
        } else if (p->mode == 5) { /* strip: every other triangle flips to keep the winding */
            tri[0] = list[t], tri[1] = list[t + 1 + (t & 1)], tri[2] = list[t + 2 - (t & 1)];
        } else { /* fan */
            tri[0] = list[0], tri[1] = list[t + 1], tri[2] = list[t + 2];
        }
    }
    crowd_free(list);
    return r;
}

static crowd_result read_influences(const gltf_doc *doc, const prim_plan *p, source *s, crowd_error *error)
{
    s->sets = joint_sets(p);
    if (!s->sets)
        return CROWD_OK;
    size_t n = (size_t)p->source_vertices * 4 * s->sets;
    s->joints = crowd_malloc(n * sizeof *s->joints);
    s->weights = crowd_malloc(n * sizeof *s->weights);
    if (!s->joints || !s->weights)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", p->path);
    crowd_result r = CROWD_OK;
    for (uint32_t k = 0; k < s->sets && r == CROWD_OK; k++) {
        char jkey[32], wkey[32];
        snprintf(jkey, sizeof jkey, "JOINTS_%u", k);
        snprintf(wkey, sizeof wkey, "WEIGHTS_%u", k);
        r = gltf_read_uints(doc, accessor_of(attribute(p, jkey)), s->joints + (size_t)p->source_vertices * 4 * k,
                            p->path, error);
        if (r == CROWD_OK)
            r = gltf_read_floats(doc, accessor_of(attribute(p, wkey)), s->weights + (size_t)p->source_vertices * 4 * k,
                                 p->path, error);
    }
    return r;
}

/* A primitive that shares an earlier one's vertices needs only its triangles: reading the shared
 * attributes again for every such primitive would cost primitives x vertices. */
static crowd_result read_source(const gltf_doc *doc, const prim_plan *p, source *s, crowd_error *error)
{
    if (p->shares >= 0) {
        s->n = p->source_vertices;
        return read_triangles(doc, p, s, error);
    }
    char key[32];
    snprintf(key, sizeof key, "TEXCOORD_%u", p->texcoord);
    const cJSON *color = attribute(p, "COLOR_0");
    s->n = p->source_vertices;
    s->color_components = color ? doc->accessors[accessor_of(color)].components : 0;
    crowd_result r;
    if ((r = read_attribute(doc, p, "POSITION", 3, &s->positions, error)) ||
        (r = read_attribute(doc, p, "NORMAL", 3, &s->normals, error)) ||
        (r = read_attribute(doc, p, key, 2, &s->uvs, error)) ||
        (r = read_attribute(doc, p, "COLOR_0", s->color_components, &s->colors, error)) ||
        (r = read_influences(doc, p, s, error)))
        return r;
    return read_triangles(doc, p, s, error);
}

/* Bind-space placement of an instance's vertices: identity for skinned meshes (glTF ignores the
 * mesh node's transform); for a rigid part the inverse of its bone's inverse bind, so that the
 * bone's skinning matrix (world x inverse bind) carries the part exactly as its node moves. */
typedef struct placement {
    float m[16]; /* positions */
    float n[9];  /* normals: inverse transpose of m's 3x3, column-major */
} placement;

static void make_placement(const gltf_builder *b, const gltf_instance *in, placement *pl)
{
    cb_mat4_identity(pl->m);
    if (in->skin < 0 && !cb_mat4_invert(pl->m, b->rig->bones[b->node_bone[in->base_node]].inverse_bind))
        cb_mat4_identity(pl->m);
    const float *m = pl->m;
    /* inverse transpose of the 3x3 = cofactor matrix / det; the scale does not matter (normalised) */
    pl->n[0] = m[5] * m[10] - m[6] * m[9], pl->n[1] = m[6] * m[8] - m[4] * m[10], pl->n[2] = m[4] * m[9] - m[5] * m[8];
    pl->n[3] = m[2] * m[9] - m[1] * m[10], pl->n[4] = m[0] * m[10] - m[2] * m[8], pl->n[5] = m[1] * m[8] - m[0] * m[9];
    pl->n[6] = m[1] * m[6] - m[2] * m[5], pl->n[7] = m[2] * m[4] - m[0] * m[6], pl->n[8] = m[0] * m[5] - m[1] * m[4];
}

/* Normals already unit to float precision stay bit-exact (skinned meshes: identity placement). */
static void transform_normal(const float n9[9], const float in[3], float out[3], bool normalize)
{
    for (int r = 0; r < 3; r++)
        out[r] = n9[r] * in[0] + n9[3 + r] * in[1] + n9[6 + r] * in[2];
    float len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (normalize && fabsf(len - 1.0f) > 1e-6f) {
        if (len > 1e-20f)
            for (int k = 0; k < 3; k++)
                out[k] /= len;
        else
            out[0] = 0, out[1] = 1, out[2] = 0;
    }
}

static uint8_t unit_to_byte(float v)
{
    return (uint8_t)lrintf(fminf(fmaxf(v, 0.0f), 1.0f) * 255.0f);
}

static void write_influences(gltf_builder *b, mesh_plan *m, const gltf_instance *in, const source *s, uint32_t src,
                             uint32_t v)
{
    crowd_rig *rig = b->rig;
    uint32_t ic = rig->influence_count;
    uint16_t *joints = rig->joints + (size_t)v * ic;
    float *weights = rig->weights + (size_t)v * ic;
    if (in->skin < 0) {
        joints[0] = (uint16_t)b->node_bone[in->base_node];
        weights[0] = 1.0f;
        return;
    }
    const uint32_t *map = b->skin_bones[in->skin];
    uint32_t joint_count = b->doc->skins[in->skin].joint_count;
    double sum = 0;
    for (uint32_t k = 0; k < 4 * s->sets; k++) {
        size_t i = ((size_t)s->n * (k / 4) + src) * 4 + k % 4;
        uint32_t j = s->joints[i] < joint_count ? s->joints[i] : 0; /* weight 0: checked in mesh_check.c */
        joints[k] = (uint16_t)map[j];
        weights[k] = s->weights[i];
        sum += s->weights[i];
    }
    if (sum == 0.0) { /* unweighted vertex: stays with its first joint */
        weights[0] = 1.0f;
        m->zero_weight_vertices++;
        return;
    }
    for (uint32_t k = 0; k < 4 * s->sets; k++)
        weights[k] = (float)(weights[k] / sum);
}

static void write_vertex(gltf_builder *b, mesh_plan *m, const prim_plan *p, const placement *pl, const source *s,
                         uint32_t src, uint32_t v, const float *face_normal)
{
    crowd_rig *rig = b->rig;
    cb_mat4_transform_point(pl->m, s->positions + 3 * (size_t)src, rig->positions + 3 * (size_t)v);
    if (face_normal)
        memcpy(rig->normals + 3 * (size_t)v, face_normal, 3 * sizeof(float));
    else
        transform_normal(pl->n, s->normals + 3 * (size_t)src, rig->normals + 3 * (size_t)v, true);
    rig->regions[v] = (uint8_t)p->region;
    if (rig->uvs && s->uvs)
        memcpy(rig->uvs + 2 * (size_t)v, s->uvs + 2 * (size_t)src, 2 * sizeof(float));
    for (uint32_t k = 0; rig->colors && k < 4; k++) {
        float c =
            s->colors ? (k < s->color_components ? s->colors[(size_t)src * s->color_components + k] : 1.0f) : 1.0f;
        rig->colors[4 * (size_t)v + k] = k < 3 ? gltf_linear_to_srgb8(c) : unit_to_byte(c);
    }
    write_influences(b, m, &b->instances[p->instance], s, src, v);
}

static crowd_result write_targets(gltf_builder *b, const prim_plan *p, const placement *pl, const source *s,
                                  crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    crowd_rig *rig = b->rig;
    const gltf_instance *in = &b->instances[p->instance];
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(p->json, "targets"), *target;
    uint32_t t = 0;
    float *delta = crowd_malloc((size_t)s->n * 3 * sizeof(float) + 1);
    if (!delta)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", p->path);
    crowd_result r = CROWD_OK;
    cJSON_ArrayForEach(target, targets)
    {
        uint32_t rt = in->first_target + t++;
        for (int which = 0; which < 2 && r == CROWD_OK; which++) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(target, which ? "NORMAL" : "POSITION");
            if (!a || (which && p->flat))
                continue;
            char path[128];
            snprintf(path, sizeof path, "%s.targets[%u].%s", p->path, t - 1, which ? "NORMAL" : "POSITION");
            if ((r = gltf_read_floats(doc, accessor_of(a), delta, path, error)) != CROWD_OK)
                break;
            float *dst = (which ? rig->morph_normals : rig->morph_positions) + (size_t)rt * rig->vertex_count * 3;
            for (uint32_t i = 0; i < (p->flat ? 3 * p->triangles : s->n); i++) {
                uint32_t src = p->flat ? s->triangles[i] : i;
                float *d = dst + 3 * ((size_t)p->vertex_base + i);
                if (which)
                    transform_normal(pl->n, delta + 3 * (size_t)src, d, false);
                else
                    for (int k = 0; k < 3; k++)
                        d[k] = pl->m[k] * delta[3 * src] + pl->m[4 + k] * delta[3 * src + 1] +
                               pl->m[8 + k] * delta[3 * src + 2];
            }
        }
    }
    crowd_free(delta);
    return r;
}

static void face_normal(const crowd_rig *rig, uint32_t v, float n[3])
{
    const float *a = rig->positions + 3 * (size_t)v, *b = a + 3, *c = a + 6;
    float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len > 1e-30f)
        n[0] /= len, n[1] /= len, n[2] /= len;
    else
        n[0] = 0, n[1] = 1, n[2] = 0;
}

static void emit_vertices(gltf_builder *b, mesh_plan *m, const prim_plan *p, const placement *pl, const source *s)
{
    if (!p->flat) {
        for (uint32_t i = 0; i < s->n; i++)
            write_vertex(b, m, p, pl, s, i, p->vertex_base + i, NULL);
        return;
    }
    for (uint32_t t = 0; t < p->triangles; t++) {
        uint32_t v = p->vertex_base + 3 * t;
        float n[3] = {0, 1, 0};
        for (int c = 0; c < 3; c++)
            write_vertex(b, m, p, pl, s, s->triangles[3 * t + c], v + (uint32_t)c, n);
        face_normal(b->rig, v, n);
        for (int c = 0; c < 3; c++)
            memcpy(b->rig->normals + 3 * ((size_t)v + (uint32_t)c), n, sizeof n);
    }
}

static void emit_indices(gltf_builder *b, mesh_plan *m, const prim_plan *p, const source *s)
{
    uint32_t base = p->shares >= 0 ? m->prims[p->shares].vertex_base : p->vertex_base;
    for (uint32_t l = 0; l < b->level_count; l++) {
        if (!shows(m, &b->instances[p->instance], l))
            continue;
        uint32_t *out = m->levels[l] + m->level_fill[l];
        for (uint32_t i = 0; i < 3 * p->triangles; i++) {
            out[i] = base + (p->flat ? i : s->triangles[i]);
            b->rig->regions[out[i]] = (uint8_t)p->region; /* shared vertices: the region that draws them */
        }
        m->level_fill[l] += 3 * p->triangles;
    }
}

static crowd_result fill_primitive(gltf_builder *b, mesh_plan *m, const prim_plan *p, crowd_error *error)
{
    if (p->mode < 4)
        return CROWD_OK;
    source s = {0};
    placement pl;
    make_placement(b, &b->instances[p->instance], &pl);
    crowd_result r = read_source(b->doc, p, &s, error);
    if (r == CROWD_OK && p->shares < 0) {
        emit_vertices(b, m, p, &pl, &s);
        if (b->rig->morph_target_count)
            r = write_targets(b, p, &pl, &s, error);
    }
    if (r == CROWD_OK)
        emit_indices(b, m, p, &s);
    free_source(&s);
    return r;
}

static crowd_result allocate(gltf_builder *b, mesh_plan *m, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    size_t vc = (size_t)m->vertices, ic = rig->influence_count;
    uint64_t morph = (uint64_t)rig->morph_target_count * vc * 6;
    if (morph > CROWD_GLTF_MAX_MORPH_FLOATS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "meshes: %u morph targets x %zu vertices exceed the limit",
                          rig->morph_target_count, vc);
    rig->vertex_count = (uint32_t)vc;
    rig->positions = crowd_malloc(vc * 3 * sizeof(float));
    rig->normals = crowd_malloc(vc * 3 * sizeof(float));
    rig->regions = crowd_calloc(vc, 1);
    rig->joints = crowd_calloc(vc * ic, sizeof *rig->joints);
    rig->weights = crowd_calloc(vc * ic, sizeof *rig->weights);
    rig->uvs = m->uvs ? crowd_calloc(vc * 2, sizeof(float)) : NULL;
    rig->colors = m->colors ? crowd_malloc(vc * 4) : NULL;
    rig->morph_positions = morph ? crowd_calloc(vc * 3 * rig->morph_target_count, sizeof(float)) : NULL;
    rig->morph_normals = morph ? crowd_calloc(vc * 3 * rig->morph_target_count, sizeof(float)) : NULL;
    m->level_fill = crowd_calloc(b->level_count, sizeof *m->level_fill);
    bool ok = rig->positions && rig->normals && rig->regions && rig->joints && rig->weights && m->level_fill &&
              (!m->uvs || rig->uvs) && (!m->colors || rig->colors) &&
              (!morph || (rig->morph_positions && rig->morph_normals));
    for (uint32_t l = 0; l < b->level_count; l++)
        ok = ok && (m->levels[l] = crowd_malloc(m->level_indices[l] * sizeof(uint32_t)));
    return ok ? CROWD_OK : crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "meshes: out of memory for %zu vertices", vc);
}

/* Level 0 becomes the rig's indices; with MSFT_lod every level goes to the authored LOD table. */
static crowd_result hand_over_levels(gltf_builder *b, mesh_plan *m, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    rig->index_count = m->level_fill[0];
    rig->indices = m->levels[0];
    m->levels[0] = NULL;
    if (b->level_count == 1)
        return CROWD_OK;
    uint64_t total = 0;
    for (uint32_t l = 0; l < b->level_count; l++)
        total += m->level_fill[l];
    if (!(rig->lod_indices = crowd_malloc(total * sizeof(uint32_t))))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "LODs: out of memory");
    uint32_t at = 0;
    for (uint32_t l = 0; l < b->level_count; l++) {
        const uint32_t *src = l ? m->levels[l] : rig->indices;
        memcpy(rig->lod_indices + at, src, m->level_fill[l] * sizeof(uint32_t));
        rig->lod_first_index[l] = at;
        rig->lod_index_count[l] = m->level_fill[l];
        rig->lod_screen_coverage[l] = b->screen_coverage[l];
        at += m->level_fill[l];
    }
    rig->lod_level_count = b->level_count;
    return CROWD_OK;
}

crowd_result gltf_build_mesh(gltf_builder *b, crowd_error *error)
{
    mesh_plan m = {0};
    crowd_result r = make_plan(b, &m, error);
    if (r == CROWD_OK)
        r = allocate(b, &m, error);
    for (uint32_t i = 0; i < m.prim_count && r == CROWD_OK; i++)
        r = fill_primitive(b, &m, &m.prims[i], error);
    if (r == CROWD_OK)
        r = hand_over_levels(b, &m, error);
    if (r == CROWD_OK && m.zero_weight_vertices)
        gltf_warn(b->doc, "meshes: %u vertices have all-zero weights; each follows its first joint",
                  m.zero_weight_vertices);
    for (uint32_t l = 0; l < CROWD_MAX_LODS; l++)
        crowd_free(m.levels[l]);
    crowd_free(m.level_fill);
    crowd_free(m.top_level);
    crowd_free(m.prims);
    return r;
}
