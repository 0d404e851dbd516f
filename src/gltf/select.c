/* What of the scene is the character: the skin (given or chosen), the mesh instances (with their
 * MSFT_lod levels) and the bones (selected skins' joints, rigid mesh nodes, their ancestors). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_build.h"

static uint64_t mesh_vertices(const gltf_doc *doc, uint32_t mesh)
{
    uint64_t n = 0;
    const cJSON *prim;
    cJSON_ArrayForEach(prim, cJSON_GetObjectItemCaseSensitive(doc->meshes[mesh].json, "primitives"))
    {
        const cJSON *pos =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(prim, "attributes"), "POSITION");
        n += doc->accessors[(uint32_t)pos->valuedouble].count;
    }
    return n;
}

/* Default: the skin of the animated skinned mesh with most vertices (any skinned mesh if none is
 * animated). Linear in the document: per-node and per-mesh facts are gathered once. */
static crowd_result default_skin(const gltf_doc *doc, int32_t *out, crowd_error *error)
{
    bool *animated = crowd_calloc(doc->node_count + 1, sizeof *animated);
    uint64_t *score = crowd_calloc(doc->skin_count + 1, sizeof *score),
             *vertices = crowd_calloc(doc->mesh_count + 1, sizeof *vertices);
    *out = -1;
    if (!animated || !score || !vertices) {
        crowd_free(animated), crowd_free(score), crowd_free(vertices);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "skins: out of memory");
    }
    for (uint32_t a = 0; a < doc->animation_count; a++)
        for (uint32_t c = 0; c < doc->anims[a].channel_count; c++)
            if (doc->anims[a].channels[c].node >= 0)
                animated[doc->anims[a].channels[c].node] = true;
    for (uint32_t m = 0; m < doc->mesh_count; m++)
        vertices[m] = mesh_vertices(doc, m) + 1;
    for (uint32_t n = 0; n < doc->node_count; n++) {
        const gltf_node *node = &doc->nodes[n];
        if (node->skin < 0 || !node->in_scene)
            continue;
        const gltf_skin *skin = &doc->skins[node->skin];
        bool moves = false;
        for (uint32_t j = 0; j < skin->joint_count && !moves; j++)
            moves = animated[skin->joints[j]];
        uint64_t candidate = vertices[node->mesh] + (moves ? (1ull << 40) : 0);
        if (candidate > score[node->skin])
            score[node->skin] = candidate;
    }
    uint64_t best = 0;
    for (uint32_t s = 0; s < doc->skin_count; s++)
        if (score[s] > best) {
            best = score[s];
            *out = (int32_t)s;
        }
    crowd_free(animated), crowd_free(score), crowd_free(vertices);
    return CROWD_OK;
}

static crowd_result select_skins(gltf_builder *b, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    const crowd_gltf_desc *desc = doc->desc;
    if (desc && desc->select_skin && desc->skin >= doc->skin_count)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gltf_desc.skin %u: the file has %u skins", desc->skin,
                          doc->skin_count);
    b->selected_skin = desc && desc->select_skin ? (int32_t)desc->skin : -1;
    crowd_result r = desc && desc->select_skin ? CROWD_OK : default_skin(doc, &b->selected_skin, error);
    if (r != CROWD_OK)
        return r;
    if (doc->skin_count && !(b->skin_selected = crowd_calloc(doc->skin_count, sizeof *b->skin_selected)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "skins: out of memory");
    if (b->selected_skin < 0)
        return CROWD_OK;
    /* skins that share a joint with the selected one belong to the same character */
    bool *joint = crowd_calloc(doc->node_count + 1, sizeof *joint);
    if (!joint)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "skins: out of memory");
    const gltf_skin *chosen = &doc->skins[b->selected_skin];
    for (uint32_t j = 0; j < chosen->joint_count; j++)
        joint[chosen->joints[j]] = true;
    for (uint32_t s = 0; s < doc->skin_count; s++)
        for (uint32_t j = 0; j < doc->skins[s].joint_count && !b->skin_selected[s]; j++)
            b->skin_selected[s] = joint[doc->skins[s].joints[j]];
    crowd_free(joint);
    return CROWD_OK;
}

/* ---- mesh instances -------------------------------------------------------------------------- */

static const cJSON *lod_ids(const gltf_node *node)
{
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(node->json, "extensions");
    const cJSON *lod = ext ? cJSON_GetObjectItemCaseSensitive(ext, "MSFT_lod") : NULL;
    return lod ? cJSON_GetObjectItemCaseSensitive(lod, "ids") : NULL;
}

/* For every node, the skin whose joint is the node or its nearest jointed ancestor (-1: none).
 * Memoised walk up: linear however deep the hierarchy. */
static crowd_result attached_skins(const gltf_doc *doc, int32_t **out, crowd_error *error)
{
    int32_t *skin = crowd_malloc((doc->node_count + 1) * sizeof *skin);
    uint8_t *known = crowd_calloc(doc->node_count + 1, 1);
    if (!skin || !known) {
        crowd_free(skin), crowd_free(known);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    }
    for (uint32_t n = 0; n < doc->node_count; n++)
        skin[n] = -1;
    for (uint32_t s = doc->skin_count; s-- > 0;) /* the lowest skin index wins */
        for (uint32_t j = 0; j < doc->skins[s].joint_count; j++) {
            skin[doc->skins[s].joints[j]] = (int32_t)s;
            known[doc->skins[s].joints[j]] = 1;
        }
    for (uint32_t start = 0; start < doc->node_count; start++) {
        int32_t n = (int32_t)start;
        while (n >= 0 && !known[n])
            n = doc->nodes[n].parent;
        int32_t found = n >= 0 ? skin[n] : -1;
        for (n = (int32_t)start; n >= 0 && !known[n]; n = doc->nodes[n].parent) {
            skin[n] = found;
            known[n] = 1;
        }
    }
    crowd_free(known);
    *out = skin;
    return CROWD_OK;
}

static bool belongs(const gltf_builder *b, const int32_t *attached, uint32_t node)
{
    const gltf_node *n = &b->doc->nodes[node];
    if (n->skin >= 0)
        return b->skin_selected[n->skin];
    return attached[node] < 0 || b->skin_selected[attached[node]];
}

static crowd_result add_instance(gltf_builder *b, uint32_t node, uint32_t base, uint32_t level, crowd_error *error)
{
    const gltf_node *n = &b->doc->nodes[node];
    for (uint32_t j = 0; n->skin >= 0 && level == 0 && j < b->doc->skins[n->skin].joint_count; j++)
        if (!b->doc->nodes[b->doc->skins[n->skin].joints[j]].in_scene) {
            gltf_warn(b->doc,
                      "nodes[%u]: skinned mesh in the scene, but joint node %u of skins[%d] is not (harmless: "
                      "joint transforms are defined anyway)",
                      node, b->doc->skins[n->skin].joints[j], n->skin);
            break;
        }
    if (n->mesh < 0)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "nodes[%u].extensions.MSFT_lod: LOD node %u has no mesh",
                          base, node);
    const gltf_node *bn = &b->doc->nodes[base];
    if ((n->skin >= 0) != (bn->skin >= 0))
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED,
                          "nodes[%u].extensions.MSFT_lod: LOD node %u is %sskinned, the base is %s", base, node,
                          n->skin >= 0 ? "" : "not ", bn->skin >= 0 ? "skinned" : "rigid");
    b->instances[b->instance_count++] = (gltf_instance){node, base, n->skin, level, 0};
    if (level + 1 > b->level_count)
        b->level_count = level + 1;
    return CROWD_OK;
}

static crowd_result add_lods(gltf_builder *b, uint32_t base, crowd_error *error)
{
    const cJSON *ids = lod_ids(&b->doc->nodes[base]), *item;
    char path[80];
    snprintf(path, sizeof path, "nodes[%u].extensions.MSFT_lod.ids", base);
    if (ids && (!cJSON_IsArray(ids) || cJSON_GetArraySize(ids) >= (int)CROWD_MAX_LODS))
        return crowd_fail(error, CROWD_ERROR_LIMIT, "%s: expected an array of at most %u node indices", path,
                          CROWD_MAX_LODS - 1);
    uint32_t level = 1;
    crowd_result r = CROWD_OK;
    cJSON_ArrayForEach(item, ids)
    {
        uint32_t node;
        if ((r = gj_index_item(item, path, level - 1, b->doc->node_count, "nodes", &node, error)) ||
            (r = add_instance(b, node, base, level++, error)))
            return r;
    }
    const cJSON *extras = cJSON_GetObjectItemCaseSensitive(b->doc->nodes[base].json, "extras");
    const cJSON *coverage = extras ? cJSON_GetObjectItemCaseSensitive(extras, "MSFT_screencoverage") : NULL;
    uint32_t k = 0;
    cJSON_ArrayForEach(item, coverage)
    {
        if (k < CROWD_MAX_LODS && cJSON_IsNumber(item) && item->valuedouble >= 0 && item->valuedouble <= 1)
            b->screen_coverage[k] = (float)item->valuedouble;
        k++;
    }
    return r;
}

static crowd_result select_instances(gltf_builder *b, crowd_error *error)
{
    gltf_doc *doc = b->doc;
    int32_t *attached = NULL;
    crowd_result r = attached_skins(doc, &attached, error);
    if (r != CROWD_OK)
        return r;
    bool *is_lod = crowd_calloc(doc->node_count + 1, sizeof *is_lod);
    if (!is_lod || !(b->instances = crowd_calloc((size_t)doc->node_count * CROWD_MAX_LODS + 1, sizeof *b->instances))) {
        crowd_free(is_lod), crowd_free(attached);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    }
    for (uint32_t n = 0; n < doc->node_count; n++) {
        const cJSON *item;
        cJSON_ArrayForEach(item, lod_ids(&doc->nodes[n]))
        {
            if (cJSON_IsNumber(item) && item->valuedouble >= 0 && item->valuedouble < doc->node_count)
                is_lod[(uint32_t)item->valuedouble] = true;
        }
    }
    b->level_count = 1;
    for (uint32_t n = 0; n < doc->node_count && r == CROWD_OK; n++) {
        if (doc->nodes[n].mesh < 0 || !doc->nodes[n].in_scene || is_lod[n] || !belongs(b, attached, n))
            continue;
        if ((r = add_instance(b, n, n, 0, error)) == CROWD_OK)
            r = add_lods(b, n, error);
    }
    crowd_free(is_lod);
    crowd_free(attached);
    if (r == CROWD_OK && b->instance_count == 0)
        r = crowd_fail(error, CROWD_ERROR_MISSING, "scene: no mesh to bake%s",
                       b->selected_skin >= 0 ? " with the selected skin" : "");
    return r;
}

/* ---- bones ----------------------------------------------------------------------------------- */

static crowd_result add_bone(gltf_builder *b, uint32_t node, int32_t parent, const char *suffix, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    if (rig->bone_count >= CROWD_MAX_BONES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "nodes: the character needs more than %u bones", CROWD_MAX_BONES);
    crowd_rig_bone *bone = &rig->bones[rig->bone_count];
    const gltf_node *n = &b->doc->nodes[node];
    char fallback[32];
    snprintf(fallback, sizeof fallback, "node %u", node);
    const char *name = n->name ? n->name : fallback;
    size_t length = strlen(name) + strlen(suffix) + 1;
    if (!(bone->name = crowd_malloc(length)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "bones: out of memory");
    snprintf(bone->name, length, "%s%s", name, suffix);
    bone->parent = parent;
    bone->rest = n->trs;
    float world[16];
    gltf_node_world_rest(b->doc, node, world);
    if (!cb_mat4_invert(bone->inverse_bind, world))
        cb_mat4_identity(bone->inverse_bind); /* only a joint's own matrix matters; see gltf.h */
    b->bone_node[rig->bone_count] = node;
    if (b->node_bone[node] < 0)
        b->node_bone[node] = (int32_t)rig->bone_count;
    rig->bone_count++;
    return CROWD_OK;
}

/* Marked nodes become bones, each after its parent; among ready nodes, lower indices first, so a
 * file whose parents precede children keeps its node order. */
static crowd_result emit_bone(gltf_builder *b, uint32_t node, crowd_error *error)
{
    if (b->node_bone[node] >= 0)
        return CROWD_OK;
    uint32_t chain[64];
    uint32_t depth = 0;
    for (int32_t n = (int32_t)node; n >= 0 && b->node_bone[n] < 0; n = b->doc->nodes[n].parent) {
        if (depth == 64) { /* a very deep chain: emit its upper part first */
            crowd_result r = emit_bone(b, (uint32_t)n, error);
            if (r != CROWD_OK)
                return r;
            break;
        }
        chain[depth++] = (uint32_t)n;
    }
    while (depth--) {
        int32_t parent = b->doc->nodes[chain[depth]].parent;
        crowd_result r = add_bone(b, chain[depth], parent >= 0 ? b->node_bone[parent] : -1, "", error);
        if (r != CROWD_OK)
            return r;
    }
    return CROWD_OK;
}

static bool same_matrix(const float *a, const float *b)
{
    for (int i = 0; i < 16; i++)
        if (fabsf(a[i] - b[i]) > 1e-5f * fmaxf(1.0f, fabsf(a[i])))
            return false;
    return true;
}

/* A joint of a selected skin takes the skin's inverse bind; a second skin with another matrix for
 * the same node gets a bone of its own that follows the same node. */
static crowd_result bind_skins(gltf_builder *b, bool *has_skin_bind, int32_t *next_same, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    crowd_rig *rig = b->rig;
    for (uint32_t s = 0; s < doc->skin_count; s++) {
        if (!b->skin_selected[s])
            continue;
        const gltf_skin *skin = &doc->skins[s];
        crowd_result r = gltf_skin_binds(doc, s, error);
        if (r != CROWD_OK)
            return r;
        if (!(b->skin_bones[s] = crowd_malloc(skin->joint_count * sizeof(uint32_t))))
            return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "skins: out of memory");
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            uint32_t node = skin->joints[j];
            const float *ibm = skin->inverse_binds + 16 * j;
            int32_t bone = -1;
            for (int32_t k = b->node_bone[node]; k >= 0 && bone < 0; k = next_same[k])
                if (!has_skin_bind[k] || same_matrix(rig->bones[k].inverse_bind, ibm))
                    bone = k;
            if (bone < 0) {
                char suffix[32];
                snprintf(suffix, sizeof suffix, " (skin %u)", s);
                r = add_bone(b, node, rig->bones[b->node_bone[node]].parent, suffix, error);
                if (r != CROWD_OK)
                    return r;
                bone = (int32_t)rig->bone_count - 1;
                next_same[bone] = next_same[b->node_bone[node]];
                next_same[b->node_bone[node]] = bone;
            }
            memcpy(rig->bones[bone].inverse_bind, ibm, 16 * sizeof(float));
            has_skin_bind[bone] = true;
            b->skin_bones[s][j] = (uint32_t)bone;
        }
    }
    return CROWD_OK;
}

static crowd_result select_bones(gltf_builder *b, crowd_error *error)
{
    gltf_doc *doc = b->doc;
    crowd_rig *rig = b->rig;
    size_t capacity = CROWD_MAX_BONES + 1;
    bool *marked = crowd_calloc(doc->node_count, sizeof *marked), *has_skin_bind = crowd_calloc(capacity, sizeof(bool));
    int32_t *next_same = crowd_malloc(capacity * sizeof *next_same); /* other bones of the same node */
    b->node_bone = crowd_malloc(doc->node_count * sizeof *b->node_bone);
    b->bone_node = crowd_malloc(capacity * sizeof *b->bone_node);
    b->skin_bones = crowd_calloc(doc->skin_count + 1, sizeof *b->skin_bones);
    rig->bones = crowd_calloc(capacity, sizeof *rig->bones);
    crowd_result r = CROWD_OK;
    if (!marked || !has_skin_bind || !next_same || !b->node_bone || !b->bone_node || !b->skin_bones || !rig->bones) {
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "bones: out of memory");
        goto done;
    }
    for (uint32_t n = 0; n < doc->node_count; n++)
        b->node_bone[n] = -1;
    for (size_t k = 0; k < capacity; k++)
        next_same[k] = -1;
    for (uint32_t s = 0; s < doc->skin_count; s++)
        for (uint32_t j = 0; b->skin_selected[s] && j < doc->skins[s].joint_count; j++)
            marked[doc->skins[s].joints[j]] = true;
    for (uint32_t i = 0; i < b->instance_count; i++)
        if (b->instances[i].skin < 0)
            marked[b->instances[i].base_node] = true;
    for (uint32_t n = 0; n < doc->node_count && r == CROWD_OK; n++)
        if (marked[n])
            r = emit_bone(b, n, error);
    if (r == CROWD_OK)
        r = bind_skins(b, has_skin_bind, next_same, error);
done:
    crowd_free(marked);
    crowd_free(has_skin_bind);
    crowd_free(next_same);
    return r;
}

crowd_result gltf_select(gltf_builder *b, crowd_error *error)
{
    crowd_result r;
    if ((r = select_skins(b, error)) || (r = select_instances(b, error)) || (r = select_bones(b, error)))
        return r;
    return CROWD_OK;
}
