/* Sockets from named nodes: --socket name=node, and nodes crowd_gltf_write marked
 * (extras.crowdbake_socket). A socket hangs off the nearest bone at or above its node, offset by
 * the rest transforms in between. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_build.h"

static crowd_result add_socket(gltf_builder *b, const char *name, uint32_t node, const char *what, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    if (rig->socket_count >= CROWD_MAX_SOCKETS)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "sockets: more than %u", CROWD_MAX_SOCKETS);
    float offset[16], local[16], product[16];
    cb_mat4_identity(offset);
    int32_t n = (int32_t)node;
    for (; n >= 0 && b->node_bone[n] < 0; n = b->doc->nodes[n].parent) {
        const crowd_trs *t = &b->doc->nodes[n].trs;
        cb_mat4_from_trs(local, t->translation, t->rotation, t->scale);
        cb_mat4_mul(product, local, offset);
        memcpy(offset, product, sizeof product);
    }
    if (n < 0)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s: node %u is not attached to the character's skeleton", what,
                          node);
    crowd_rig_socket *s = &rig->sockets[rig->socket_count];
    if (!(s->name = crowd_malloc(strlen(name) + 1)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "sockets: out of memory");
    strcpy(s->name, name);
    s->bone = (uint32_t)b->node_bone[n];
    memcpy(s->offset, offset, sizeof offset);
    rig->socket_count++;
    return CROWD_OK;
}

static bool marked_socket(const gltf_node *node)
{
    const cJSON *extras = cJSON_GetObjectItemCaseSensitive(node->json, "extras");
    return node->name && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(extras, "crowdbake_socket"));
}

crowd_result gltf_build_sockets(gltf_builder *b, crowd_error *error)
{
    const gltf_doc *doc = b->doc;
    const crowd_gltf_desc *desc = doc->desc;
    uint32_t wanted = desc ? desc->socket_count : 0;
    for (uint32_t n = 0; n < doc->node_count; n++)
        wanted += marked_socket(&doc->nodes[n]);
    if (!wanted)
        return CROWD_OK;
    if (!(b->rig->sockets =
              crowd_calloc(wanted < CROWD_MAX_SOCKETS ? wanted : CROWD_MAX_SOCKETS, sizeof *b->rig->sockets)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "sockets: out of memory");
    crowd_result r = CROWD_OK;
    for (uint32_t n = 0; n < doc->node_count && r == CROWD_OK; n++)
        if (marked_socket(&doc->nodes[n]))
            r = add_socket(b, doc->nodes[n].name, n, "extras.crowdbake_socket", error);
    for (uint32_t i = 0; desc && i < desc->socket_count && r == CROWD_OK; i++) {
        const crowd_gltf_socket *s = &desc->sockets[i];
        char what[160];
        snprintf(what, sizeof what, "crowd_gltf_desc.sockets[%u] %.60s=%.60s", i, s->name ? s->name : "",
                 s->node ? s->node : "");
        int32_t node = -1;
        for (uint32_t n = 0; s->node && n < doc->node_count && node < 0; n++)
            if (doc->nodes[n].name && !strcmp(doc->nodes[n].name, s->node))
                node = (int32_t)n;
        if (!s->name || !*s->name || node < 0)
            return crowd_fail(error, CROWD_ERROR_ARGUMENT, "%s: no node of that name", what);
        r = add_socket(b, s->name, (uint32_t)node, what, error);
    }
    return r;
}
