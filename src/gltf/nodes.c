/* Nodes (hierarchy, TRS or matrix), skins and the scene. The hierarchy is proven to be a forest:
 * one parent per node, no cycles, so every later walk up or down terminates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_internal.h"

/* ---- matrices -> TRS ------------------------------------------------------------------------- */

/* Nodes given as matrices are decomposed once; the rig stores TRS. A matrix with shear (or a
 * projective row) cannot be a TRS and is refused rather than silently changed. */
crowd_result gltf_decompose(const float m[16], crowd_trs *trs, const char *path, crowd_error *error)
{
    if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.matrix: last row is not 0 0 0 1", path);
    double col[3][3], scale[3];
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++)
            col[c][r] = m[c * 4 + r];
        scale[c] = sqrt(col[c][0] * col[c][0] + col[c][1] * col[c][1] + col[c][2] * col[c][2]);
        if (!(scale[c] > 1e-20))
            return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "%s.matrix: degenerate (zero scale)", path);
    }
    double det = col[0][0] * (col[1][1] * col[2][2] - col[1][2] * col[2][1]) -
                 col[1][0] * (col[0][1] * col[2][2] - col[0][2] * col[2][1]) +
                 col[2][0] * (col[0][1] * col[1][2] - col[0][2] * col[1][1]);
    if (det < 0)
        scale[0] = -scale[0];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            col[c][r] /= scale[c];
    double q[4];
    cb_quat_from_basis(col[0], col[1], col[2], q);
    for (int k = 0; k < 3; k++) {
        trs->translation[k] = m[12 + k];
        trs->scale[k] = (float)scale[k];
    }
    for (int k = 0; k < 4; k++)
        trs->rotation[k] = (float)q[k];
    float back[16];
    cb_mat4_from_trs(back, trs->translation, trs->rotation, trs->scale);
    double size = fmax(fabs(scale[0]), fmax(fabs(scale[1]), fabs(scale[2])));
    for (int i = 0; i < 12; i++)
        if (fabs(back[i] - m[i]) > 1e-4 * size)
            return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "%s.matrix: has shear, not a translation-rotation-scale",
                              path);
    return CROWD_OK;
}

/* ---- nodes ----------------------------------------------------------------------------------- */

static crowd_result parse_transform(gltf_node *n, const cJSON *json, const char *path, crowd_error *error)
{
    float matrix[16];
    bool has_t, has_r, has_s;
    n->trs = (crowd_trs){{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    crowd_result r;
    if ((r = gj_floats(json, "matrix", path, 16, matrix, &n->has_matrix, error)) ||
        (r = gj_floats(json, "translation", path, 3, n->trs.translation, &has_t, error)) ||
        (r = gj_floats(json, "rotation", path, 4, n->trs.rotation, &has_r, error)) ||
        (r = gj_floats(json, "scale", path, 3, n->trs.scale, &has_s, error)))
        return r;
    if (n->has_matrix && (has_t || has_r || has_s))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: has both a matrix and translation/rotation/scale",
                          path);
    if (n->has_matrix)
        return gltf_decompose(matrix, &n->trs, path, error);
    float *q = n->trs.rotation;
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(len > 0.5f && len < 1.5f))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.rotation: quaternion of length %g is not a rotation",
                          path, (double)len);
    cb_quat_normalize(q);
    return CROWD_OK;
}

static crowd_result parse_children(gltf_doc *doc, uint32_t i, const cJSON *json, const char *path, crowd_error *error)
{
    gltf_node *n = &doc->nodes[i];
    const cJSON *array;
    char sub[96];
    snprintf(sub, sizeof sub, "%s.children", path);
    crowd_result r = gj_array(json, "children", path, false, doc->node_count, &array, &n->child_count, error);
    if (r != CROWD_OK || !n->child_count)
        return r;
    if (!(n->children = crowd_malloc(n->child_count * sizeof *n->children)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", sub);
    uint32_t k = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        uint32_t child;
        if ((r = gj_index_item(item, sub, k, doc->node_count, "nodes", &child, error)))
            return r;
        if (doc->nodes[child].parent >= 0)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s[%u]: node %u already has parent %d", sub, k, child,
                              doc->nodes[child].parent);
        doc->nodes[child].parent = (int32_t)i;
        n->children[k++] = child;
    }
    return CROWD_OK;
}

static crowd_result parse_node(gltf_doc *doc, uint32_t i, const cJSON *json, crowd_error *error)
{
    char path[48];
    snprintf(path, sizeof path, "nodes[%u]", i);
    if (!cJSON_IsObject(json))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    gltf_node *n = &doc->nodes[i];
    n->json = json;
    const cJSON *weights;
    crowd_result r;
    if ((r = gj_string(json, "name", path, false, &n->name, error)) ||
        (r = gj_index(json, "mesh", path, false, doc->mesh_count, "meshes", &n->mesh, error)) ||
        (r = gj_index(json, "skin", path, false, doc->skin_count, "skins", &n->skin, error)) ||
        (r = parse_transform(n, json, path, error)) || (r = parse_children(doc, i, json, path, error)) ||
        (r = gj_array(json, "weights", path, false, CROWD_GLTF_MAX_MORPH_TARGETS, &weights, &n->weight_count, error)))
        return r;
    if (n->skin >= 0 && n->mesh < 0)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.skin: given without a mesh", path);
    if (n->weight_count) {
        bool present;
        if (!(n->weights = crowd_malloc(n->weight_count * sizeof(float))))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        if ((r = gj_floats(json, "weights", path, n->weight_count, n->weights, &present, error)))
            return r;
    }
    return CROWD_OK;
}

/* Each node has at most one parent (checked while linking), so a cycle is a parent chain that
 * never reaches a root: walk up at most node_count steps. Memoised, linear overall. */
static crowd_result check_cycles(gltf_doc *doc, crowd_error *error)
{
    uint8_t *state = crowd_calloc(doc->node_count, 1); /* 0 unknown, 1 on the current walk, 2 reaches a root */
    if (!state)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    crowd_result r = CROWD_OK;
    for (uint32_t start = 0; start < doc->node_count && r == CROWD_OK; start++) {
        int32_t n = (int32_t)start;
        while (n >= 0 && state[n] == 0) {
            state[n] = 1;
            n = doc->nodes[n].parent;
        }
        if (n >= 0 && state[n] == 1)
            r = crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                           "nodes[%d]: is its own ancestor (the hierarchy has a cycle)", n);
        for (n = (int32_t)start; n >= 0 && state[n] == 1; n = doc->nodes[n].parent)
            state[n] = 2;
    }
    crowd_free(state);
    return r;
}

crowd_result gltf_parse_nodes(gltf_doc *doc, crowd_error *error)
{
    const cJSON *array;
    crowd_result r = gj_array(doc->root, "nodes", "root", false, CROWD_GLTF_MAX_NODES, &array, &doc->node_count, error);
    if (r != CROWD_OK)
        return r;
    if (doc->node_count && !(doc->nodes = crowd_calloc(doc->node_count, sizeof *doc->nodes)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    for (uint32_t i = 0; i < doc->node_count; i++)
        doc->nodes[i].parent = -1;
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if ((r = parse_node(doc, i++, item, error)) != CROWD_OK)
            return r;
    }
    return check_cycles(doc, error);
}

void gltf_node_world_rest(const gltf_doc *doc, uint32_t node, float out[16])
{
    cb_mat4_identity(out);
    for (int32_t n = (int32_t)node; n >= 0; n = doc->nodes[n].parent) {
        float local[16], product[16];
        const crowd_trs *t = &doc->nodes[n].trs;
        cb_mat4_from_trs(local, t->translation, t->rotation, t->scale);
        cb_mat4_mul(product, local, out);
        memcpy(out, product, sizeof product);
    }
}

/* ---- skins ----------------------------------------------------------------------------------- */

static bool is_ancestor(const gltf_doc *doc, uint32_t ancestor, uint32_t node)
{
    for (int32_t n = (int32_t)node; n >= 0; n = doc->nodes[n].parent)
        if ((uint32_t)n == ancestor)
            return true;
    return false;
}

static int32_t root_of(const gltf_doc *doc, uint32_t node)
{
    int32_t n = (int32_t)node;
    while (doc->nodes[n].parent >= 0)
        n = doc->nodes[n].parent;
    return n;
}

crowd_result gltf_skin_binds(const gltf_doc *doc, uint32_t index, crowd_error *error)
{
    gltf_skin *s = &doc->skins[index];
    if (s->inverse_binds)
        return CROWD_OK;
    char sub[96];
    snprintf(sub, sizeof sub, "skins[%u].inverseBindMatrices", index);
    if (!(s->inverse_binds = crowd_malloc((size_t)s->joint_count * 16 * sizeof(float))))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", sub);
    for (uint32_t j = 0; s->ibm_accessor < 0 && j < s->joint_count; j++)
        cb_mat4_identity(s->inverse_binds + 16 * j); /* the spec's default */
    if (s->ibm_accessor < 0)
        return CROWD_OK;
    const gltf_accessor *a = &doc->accessors[s->ibm_accessor];
    float *all = crowd_malloc((size_t)a->count * 16 * sizeof(float));
    if (!all)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", sub);
    crowd_result r = gltf_read_floats(doc, (uint32_t)s->ibm_accessor, all, sub, error);
    if (r == CROWD_OK)
        memcpy(s->inverse_binds, all, (size_t)s->joint_count * 16 * sizeof(float));
    crowd_free(all);
    for (uint32_t j = 0; r == CROWD_OK && j < s->joint_count; j++) {
        const float *m = s->inverse_binds + 16 * j;
        if (fabsf(m[3]) > 1e-5f || fabsf(m[7]) > 1e-5f || fabsf(m[11]) > 1e-5f || fabsf(m[15] - 1.0f) > 1e-5f)
            r = crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s[%u]: not an affine matrix (last row not 0 0 0 1)", sub,
                           j);
    }
    return r;
}

static crowd_result check_inverse_binds(gltf_doc *doc, uint32_t index, const cJSON *json, const char *path,
                                        crowd_error *error)
{
    gltf_skin *s = &doc->skins[index];
    crowd_result r =
        gj_index(json, "inverseBindMatrices", path, false, doc->accessor_count, "accessors", &s->ibm_accessor, error);
    if (r != CROWD_OK || s->ibm_accessor < 0)
        return r;
    const gltf_accessor *a = &doc->accessors[s->ibm_accessor];
    char sub[96];
    snprintf(sub, sizeof sub, "%s.inverseBindMatrices", path);
    if (a->components != 16 || a->component != 5126)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: accessors[%d] must be MAT4 floats", sub,
                          s->ibm_accessor);
    if (a->count < s->joint_count)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: %u matrices for %u joints", sub, a->count,
                          s->joint_count);
    if (a->view >= 0 && doc->views[a->view].stride)
        gltf_warn(doc, "%s: bufferViews[%d] has a byteStride (not allowed for matrices; read anyway)", sub, a->view);
    return gltf_accessor_has_bytes(doc, (uint32_t)s->ibm_accessor) ? gltf_skin_binds(doc, index, error) : CROWD_OK;
}

static crowd_result parse_skin(gltf_doc *doc, uint32_t i, const cJSON *json, crowd_error *error)
{
    char path[48], sub[96];
    snprintf(path, sizeof path, "skins[%u]", i);
    snprintf(sub, sizeof sub, "%s.joints", path);
    if (!cJSON_IsObject(json))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    gltf_skin *s = &doc->skins[i];
    const cJSON *joints;
    int32_t skeleton = -1;
    crowd_result r;
    if ((r = gj_array(json, "joints", path, true, CROWD_MAX_BONES, &joints, &s->joint_count, error)) ||
        (r = gj_index(json, "skeleton", path, false, doc->node_count, "nodes", &skeleton, error)))
        return r;
    if (!(s->joints = crowd_malloc(s->joint_count * sizeof *s->joints)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    uint32_t k = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, joints)
    {
        if ((r = gj_index_item(item, sub, k, doc->node_count, "nodes", &s->joints[k], error)))
            return r;
        for (uint32_t p = 0; p < k; p++)
            if (s->joints[p] == s->joints[k])
                return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s[%u]: node %u is already joint %u", sub, k,
                                  s->joints[k], p);
        k++;
    }
    /* The skeleton property and a common root are informative only: skinning uses each joint's
     * own world transform, so a violation cannot change the bake. */
    bool common_root = true, skeleton_ok = true;
    for (uint32_t j = 0; j < s->joint_count; j++) {
        common_root &= root_of(doc, s->joints[j]) == root_of(doc, s->joints[0]);
        skeleton_ok &= skeleton < 0 || is_ancestor(doc, (uint32_t)skeleton, s->joints[j]);
    }
    if (!common_root)
        gltf_warn(doc, "%s: joints do not have a common root (harmless: each joint's world transform is used)", sub);
    if (!skeleton_ok)
        gltf_warn(doc, "%s.skeleton: node %d is not an ancestor of every joint (ignored)", path, skeleton);
    return check_inverse_binds(doc, i, json, path, error);
}

crowd_result gltf_parse_skins(gltf_doc *doc, crowd_error *error)
{
    const cJSON *array;
    uint32_t count;
    crowd_result r = gj_array(doc->root, "skins", "root", false, CROWD_GLTF_MAX_ARRAY, &array, &count, error);
    if (r != CROWD_OK || !count)
        return r;
    if (!(doc->skins = crowd_calloc(count, sizeof *doc->skins)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "skins: out of memory");
    doc->skin_count = count; /* nodes were checked against this count before the skins were read */
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if ((r = parse_skin(doc, i++, item, error)) != CROWD_OK)
            return r;
    }
    return CROWD_OK;
}

/* ---- the scene ------------------------------------------------------------------------------- */

/* Iterative: the depth of a hostile hierarchy must not reach the C stack. `stack` holds node_count. */
static void mark_in_scene(gltf_doc *doc, uint32_t root, uint32_t *stack)
{
    uint32_t top = 0;
    if (!doc->nodes[root].in_scene)
        stack[top++] = root;
    while (top) {
        gltf_node *n = &doc->nodes[stack[--top]];
        n->in_scene = true;
        for (uint32_t c = 0; c < n->child_count; c++)
            if (!doc->nodes[n->children[c]].in_scene)
                stack[top++] = n->children[c];
    }
}

crowd_result gltf_parse_scene(gltf_doc *doc, crowd_error *error)
{
    const cJSON *scenes, *scene_nodes = NULL;
    uint32_t scene_count, count = 0;
    int32_t scene = -1;
    crowd_result r = gj_array(doc->root, "scenes", "root", false, CROWD_GLTF_MAX_ARRAY, &scenes, &scene_count, error);
    if (r == CROWD_OK)
        r = gj_index(doc->root, "scene", "root", false, scene_count, "scenes", &scene, error);
    if (r != CROWD_OK)
        return r;
    char path[48];
    if (scene_count) {
        scene = scene < 0 ? 0 : scene;
        const cJSON *s = cJSON_GetArrayItem(scenes, scene);
        snprintf(path, sizeof path, "scenes[%d]", scene);
        if (!cJSON_IsObject(s))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
        if ((r = gj_array(s, "nodes", path, false, doc->node_count, &scene_nodes, &count, error)))
            return r;
    } else {
        for (uint32_t n = 0; n < doc->node_count; n++)
            count += doc->nodes[n].parent < 0;
    }
    if (count && !(doc->scene_roots = crowd_malloc(count * sizeof *doc->scene_roots)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "scenes: out of memory");
    doc->scene_root_count = count;
    uint32_t k = 0;
    if (scene_count) { /* the chosen scene's nodes (none when it lists none) */
        const cJSON *item;
        strncat(path, ".nodes", sizeof path - strlen(path) - 1);
        cJSON_ArrayForEach(item, scene_nodes)
        {
            if ((r = gj_index_item(item, path, k, doc->node_count, "nodes", &doc->scene_roots[k], error)))
                return r;
            if (doc->nodes[doc->scene_roots[k]].parent >= 0)
                gltf_warn(doc, "%s[%u]: node %u is not a root (harmless: it is in the scene through its parent too)",
                          path, k, doc->scene_roots[k]);
            k++;
        }
    } else {
        for (uint32_t n = 0; n < doc->node_count; n++)
            if (doc->nodes[n].parent < 0)
                doc->scene_roots[k++] = n;
    }
    uint32_t *stack = count ? crowd_malloc(doc->node_count * sizeof *stack) : NULL;
    if (count && !stack) /* an unmarked scene would read as "no mesh to bake" */
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "scenes: out of memory");
    for (uint32_t i = 0; i < count; i++)
        mark_in_scene(doc, doc->scene_roots[i], stack);
    crowd_free(stack);
    return CROWD_OK;
}
