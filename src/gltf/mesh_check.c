/* Meshes as the document declares them: every primitive's attributes, indices and morph targets
 * are checked for type, count and range, and every skinned mesh's joint indices and weights are
 * checked against the skin its node uses, whether or not the character is built from them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_internal.h"

/* Which accessor types an attribute semantic admits. */
static bool attribute_ok(const char *name, const gltf_accessor *a)
{
    bool unorm = a->normalized && (a->component == 5121 || a->component == 5123);
    bool quantized = a->component != 5125; /* KHR_mesh_quantization: any 8/16-bit or float */
    if (!strcmp(name, "POSITION") || !strcmp(name, "NORMAL"))
        return a->components == 3 && a->columns == 1 && quantized;
    if (!strcmp(name, "TANGENT"))
        return a->components == 4 && quantized;
    if (!strncmp(name, "TEXCOORD_", 9))
        return a->components == 2 && quantized;
    if (!strncmp(name, "COLOR_", 6))
        return (a->components == 3 || a->components == 4) && a->columns == 1 && (a->component == 5126 || unorm);
    if (!strncmp(name, "JOINTS_", 7))
        return a->components == 4 && a->columns == 1 && !a->normalized &&
               (a->component == 5121 || a->component == 5123);
    if (!strncmp(name, "WEIGHTS_", 8))
        return a->components == 4 && a->columns == 1 && (a->component == 5126 || unorm);
    return true; /* application-specific "_NAME" attributes are not ours to judge */
}

/* Counts consecutive JOINTS_n / WEIGHTS_n sets (0, 1, ...), one past the limit at most, so a
 * hostile attribute list cannot make this quadratic. */
static uint32_t count_sets(const cJSON *attributes, const char *prefix)
{
    uint32_t n = 0;
    for (;; n++) {
        if (n > CROWD_GLTF_MAX_INFLUENCES / 4)
            return n;
        char key[32];
        snprintf(key, sizeof key, "%s%u", prefix, n);
        if (!cJSON_GetObjectItemCaseSensitive(attributes, key))
            return n;
    }
}

/* Every member an accessor index of the given count; returns that count through *count. */
static crowd_result check_attributes(const gltf_doc *doc, const cJSON *attributes, const char *path, bool target,
                                     uint32_t *count, crowd_error *error)
{
    const cJSON *item;
    *count = 0;
    cJSON_ArrayForEach(item, attributes)
    {
        uint32_t index;
        char sub[160];
        snprintf(sub, sizeof sub, "%s.%.40s", path, item->string);
        crowd_result r = gj_index_item(item, sub, 0, doc->accessor_count, "accessors", &index, error);
        if (r != CROWD_OK)
            return crowd_fail(error, r, "%s: not a valid accessor index (%u accessors)", sub, doc->accessor_count);
        const gltf_accessor *a = &doc->accessors[index];
        if (!target && !attribute_ok(item->string, a))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "%s: accessors[%u] has a type or component type not allowed here", sub, index);
        if (target && a->components != 3 && strcmp(item->string, "TANGENT") && strncmp(item->string, "TEXCOORD_", 9) &&
            strncmp(item->string, "COLOR_", 6))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: morph target accessors[%u] must be VEC3", sub,
                              index);
        if (*count && a->count != *count)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: accessors[%u] has %u elements, the others %u", sub,
                              index, a->count, *count);
        *count = a->count;
    }
    return CROWD_OK;
}

static crowd_result check_indices(const gltf_doc *doc, const cJSON *prim, const char *path, uint32_t vertices,
                                  crowd_error *error)
{
    int32_t index = -1;
    crowd_result r = gj_index(prim, "indices", path, false, doc->accessor_count, "accessors", &index, error);
    if (r != CROWD_OK || index < 0)
        return r;
    const gltf_accessor *a = &doc->accessors[index];
    char sub[96];
    snprintf(sub, sizeof sub, "%s.indices", path);
    if (a->components != 1 || a->normalized || (a->component != 5121 && a->component != 5123 && a->component != 5125))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: accessors[%d] must be unsigned integer scalars", sub,
                          index);
    if (a->view >= 0 && doc->views[a->view].stride)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: bufferViews[%d] of indices must not have a byteStride",
                          sub, a->view);
    if (a->view >= 0 && !doc->buffers[doc->views[a->view].buffer].data)
        return CROWD_OK; /* nothing to check; building from it fails with a message */
    uint32_t *values = crowd_malloc((size_t)a->count * sizeof *values);
    if (!values)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", sub);
    r = gltf_read_uints(doc, (uint32_t)index, values, sub, error);
    for (uint32_t i = 0; r == CROWD_OK && i < a->count; i++)
        if (values[i] >= vertices)
            r = crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s[%u]: vertex %u out of range (%u vertices)", sub, i,
                           values[i], vertices);
    crowd_free(values);
    return r;
}

static crowd_result check_targets(const gltf_doc *doc, const cJSON *prim, const char *path, uint32_t vertices,
                                  uint32_t *target_count, crowd_error *error)
{
    const cJSON *targets, *item;
    crowd_result r =
        gj_array(prim, "targets", path, false, CROWD_GLTF_MAX_MORPH_TARGETS, &targets, target_count, error);
    uint32_t t = 0;
    cJSON_ArrayForEach(item, targets)
    {
        char sub[96];
        uint32_t count;
        snprintf(sub, sizeof sub, "%s.targets[%u]", path, t++);
        if (!cJSON_IsObject(item))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", sub);
        if ((r = check_attributes(doc, item, sub, true, &count, error)))
            return r;
        if (count && count != vertices)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: %u elements for %u vertices", sub, count, vertices);
    }
    return r;
}

static crowd_result check_primitive(const gltf_doc *doc, const cJSON *prim, const char *path, uint32_t *targets,
                                    crowd_error *error)
{
    if (!cJSON_IsObject(prim))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    const cJSON *attributes;
    uint64_t mode = 4;
    int32_t material = -1;
    uint32_t vertices = 0;
    crowd_result r;
    if ((r = gj_object(prim, "attributes", path, true, &attributes, error)) ||
        (r = gj_uint(prim, "mode", path, false, 0, 6, &mode, error)) ||
        (r = gj_index(prim, "material", path, false, doc->material_count, "materials", &material, error)))
        return r;
    char sub[96];
    snprintf(sub, sizeof sub, "%s.attributes", path);
    if ((r = check_attributes(doc, attributes, sub, false, &vertices, error)))
        return r;
    if (!cJSON_GetObjectItemCaseSensitive(attributes, "POSITION"))
        return crowd_fail(error, CROWD_ERROR_MISSING, "%s.POSITION: required but absent", sub);
    uint32_t joint_sets = count_sets(attributes, "JOINTS_"), weight_sets = count_sets(attributes, "WEIGHTS_");
    if (4 * joint_sets > CROWD_GLTF_MAX_INFLUENCES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "%s: %u JOINTS_n sets, limit %u", sub, joint_sets,
                          CROWD_GLTF_MAX_INFLUENCES / 4);
    if (joint_sets != weight_sets)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: %u JOINTS_n sets but %u WEIGHTS_n sets", sub,
                          joint_sets, weight_sets);
    if ((r = check_indices(doc, prim, path, vertices, error)))
        return r;
    return check_targets(doc, prim, path, vertices, targets, error);
}

static crowd_result check_mesh(gltf_doc *doc, uint32_t m, const cJSON *json, crowd_error *error)
{
    char path[48];
    snprintf(path, sizeof path, "meshes[%u]", m);
    if (!cJSON_IsObject(json))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    gltf_mesh *mesh = &doc->meshes[m];
    mesh->json = json;
    const cJSON *prims, *weights, *prim;
    uint32_t weight_count;
    crowd_result r;
    if ((r = gj_array(json, "primitives", path, true, CROWD_GLTF_MAX_ARRAY, &prims, &mesh->primitive_count, error)) ||
        (r = gj_array(json, "weights", path, false, CROWD_GLTF_MAX_MORPH_TARGETS, &weights, &weight_count, error)))
        return r;
    uint32_t p = 0;
    cJSON_ArrayForEach(prim, prims)
    {
        char sub[80];
        uint32_t targets = 0;
        snprintf(sub, sizeof sub, "%s.primitives[%u]", path, p);
        if ((r = check_primitive(doc, prim, sub, &targets, error)))
            return r;
        if (p && targets != mesh->target_count)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.targets: %u morph targets, primitive 0 has %u", sub,
                              targets, mesh->target_count);
        mesh->target_count = targets;
        p++;
    }
    if (weights && weight_count != mesh->target_count)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.weights: %u weights for %u morph targets", path,
                          weight_count, mesh->target_count);
    if (weights) {
        bool present;
        if (!(mesh->weights = crowd_malloc(weight_count * sizeof(float))))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        r = gj_floats(json, "weights", path, weight_count, mesh->weights, &present, error);
    }
    return r;
}

crowd_result gltf_parse_meshes(gltf_doc *doc, crowd_error *error)
{
    const cJSON *array, *item;
    uint32_t count;
    crowd_result r = gj_array(doc->root, "meshes", "root", false, CROWD_GLTF_MAX_ARRAY, &array, &count, error);
    if (r != CROWD_OK || !count)
        return r;
    if (!(doc->meshes = crowd_calloc(count, sizeof *doc->meshes)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "meshes: out of memory");
    uint32_t m = 0;
    cJSON_ArrayForEach(item, array)
    {
        if ((r = check_mesh(doc, m++, item, error)) != CROWD_OK)
            return r;
    }
    return CROWD_OK;
}

/* ---- skinned nodes: joints against the node's skin, weights non-negative and summing to 1 ---- */

/* A primitive's influences as read: `sets` JOINTS_n / WEIGHTS_n sets of 4 per vertex, set-major
 * ((vertices * set + vertex) * 4 + k), against a skin of joint_count joints. */
typedef struct influence_sets {
    const uint32_t *joints;
    const float *weights;
    uint32_t vertices, sets, joint_count;
    const char *path; /* for messages: the primitive's attributes */
} influence_sets;

/* Negative weights and weighted joints outside the skin are refused. Sums other than 1 are
 * common in real exports (RiggedFigure 0.90, RobotExpressive 1.07): they are renormalised and
 * counted in *off for one warning; all-zero weights bind the vertex to its first joint. */
static crowd_result check_vertex(const influence_sets *in, uint32_t v, uint32_t *off, crowd_error *error)
{
    double sum = 0;
    for (uint32_t s = 0; s < in->sets; s++)
        for (uint32_t k = 0; k < 4; k++) {
            size_t i = ((size_t)in->vertices * s + v) * 4 + k;
            float w = in->weights[i];
            if (!(w >= 0.0f))
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.WEIGHTS_%u[%u]: negative weight %g", in->path, s,
                                  v, (double)w);
            if ((w > 0.0f || (s == 0 && k == 0)) && in->joints[i] >= in->joint_count)
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                                  "%s.JOINTS_%u[%u]: joint %u out of range (%u joints)", in->path, s, v, in->joints[i],
                                  in->joint_count);
            sum += w;
        }
    *off += sum != 0.0 && fabs(sum - 1.0) > 0.01;
    return CROWD_OK;
}

static crowd_result check_influences(const gltf_doc *doc, const cJSON *attributes, uint32_t sets, uint32_t joint_count,
                                     const char *path, crowd_error *error)
{
    const cJSON *position = cJSON_GetObjectItemCaseSensitive(attributes, "POSITION");
    uint32_t vertices = doc->accessors[(uint32_t)position->valuedouble].count;
    uint32_t *joints = crowd_malloc((size_t)vertices * 4 * sets * sizeof *joints);
    float *weights = crowd_malloc((size_t)vertices * 4 * sets * sizeof *weights);
    crowd_result r =
        joints && weights ? CROWD_OK : crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    for (uint32_t s = 0; r == CROWD_OK && s < sets; s++) {
        char jkey[32], wkey[32], sub[160];
        snprintf(jkey, sizeof jkey, "JOINTS_%u", s);
        snprintf(wkey, sizeof wkey, "WEIGHTS_%u", s);
        uint32_t ja = (uint32_t)cJSON_GetObjectItemCaseSensitive(attributes, jkey)->valuedouble;
        uint32_t wa = (uint32_t)cJSON_GetObjectItemCaseSensitive(attributes, wkey)->valuedouble;
        snprintf(sub, sizeof sub, "%s.%s", path, jkey);
        r = gltf_read_uints(doc, ja, joints + (size_t)vertices * 4 * s, sub, error);
        snprintf(sub, sizeof sub, "%s.%s", path, wkey);
        if (r == CROWD_OK)
            r = gltf_read_floats(doc, wa, weights + (size_t)vertices * 4 * s, sub, error);
    }
    uint32_t off = 0;
    influence_sets in = {joints, weights, vertices, sets, joint_count, path};
    for (uint32_t v = 0; r == CROWD_OK && v < vertices; v++)
        r = check_vertex(&in, v, &off, error);
    if (r == CROWD_OK && off)
        gltf_warn(doc, "%s: %u vertices have weights that do not sum to 1 (renormalised)", path, off);
    crowd_free(joints);
    crowd_free(weights);
    return r;
}

/* Each mesh's influences are checked once per distinct attribute set (primitives often share
 * them) and once for the smallest skin that uses it (valid there means valid for larger skins),
 * so many nodes instancing one mesh, or many primitives sharing vertices, cost one pass. */
crowd_result gltf_check_skinned_nodes(gltf_doc *doc, crowd_error *error)
{
    for (uint32_t n = 0; n < doc->node_count; n++) {
        const gltf_node *node = &doc->nodes[n];
        if (node->skin < 0)
            continue;
        gltf_mesh *mesh = &doc->meshes[node->mesh];
        uint32_t joint_count = doc->skins[node->skin].joint_count;
        if (mesh->skin_checked && joint_count >= mesh->skin_checked)
            continue;
        const cJSON *prims = cJSON_GetObjectItemCaseSensitive(mesh->json, "primitives"), *prim, *previous = NULL;
        uint32_t p = 0;
        cJSON_ArrayForEach(prim, prims)
        {
            char path[96];
            snprintf(path, sizeof path, "meshes[%d].primitives[%u].attributes", node->mesh, p++);
            const cJSON *attributes = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
            uint32_t sets = count_sets(attributes, "JOINTS_");
            if (!sets)
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "nodes[%u].skin: %s has no JOINTS_0 to skin with", n,
                                  path);
            if (previous && gj_same_shape(previous, attributes))
                continue;
            crowd_result r = check_influences(doc, attributes, sets, joint_count, path, error);
            if (r != CROWD_OK)
                return r;
            previous = attributes;
        }
        mesh->skin_checked = joint_count;
    }
    return CROWD_OK;
}
