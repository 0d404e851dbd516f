/* Any rig as a self-contained .glb: bones as nodes, one skin, one mesh (a primitive per run of
 * triangles of one region, all sharing the vertex accessors), materials, the albedo as PNG, morph
 * targets, sockets as marked child nodes; write_anim.c adds the clips. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <stb_image_write.h>

#include "common/cbmath.h"
#include "core/alloc.h"
#include "core/error.h"
#include "crowdbake/bake.h"
#include "gltf/gltf_write.h"

/* ---- binary buffer and accessors ------------------------------------------------------------- */

static size_t append(gltf_writer *w, const void *data, size_t size)
{
    size_t at = (w->bin_size + 3) & ~(size_t)3; /* every view starts 4-byte aligned */
    if (at + size > w->bin_capacity) {
        size_t capacity = (at + size) * 2 + 1024;
        uint8_t *grown = crowd_realloc_sized(w->bin, w->bin_capacity, capacity);
        if (!grown) {
            w->failed = true;
            return 0;
        }
        w->bin = grown;
        w->bin_capacity = capacity;
    }
    memset(w->bin + w->bin_size, 0, at - w->bin_size);
    memcpy(w->bin + at, data, size);
    w->bin_size = at + size;
    return at;
}

cJSON *gltf_write_add(gltf_writer *w, cJSON *parent, const char *key, cJSON *item)
{
    if (!item || !parent || !(key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item))) {
        cJSON_Delete(item);
        w->failed = true;
        return NULL;
    }
    return item;
}

cJSON *gltf_write_floats(gltf_writer *w, const float *v, int n)
{
    cJSON *array = cJSON_CreateFloatArray(v, n);
    w->failed |= !array;
    return array;
}

static uint32_t components_of(const char *type)
{
    return !strcmp(type, "SCALAR") ? 1
           : !strcmp(type, "VEC2") ? 2
           : !strcmp(type, "VEC3") ? 3
           : !strcmp(type, "VEC4") ? 4
                                   : 16;
}

static void add_bounds(gltf_writer *w, cJSON *accessor, const float *data, uint32_t count, uint32_t n)
{
    float lo[16], hi[16];
    for (uint32_t k = 0; k < n; k++)
        lo[k] = hi[k] = data[k];
    for (uint32_t i = 1; i < count; i++)
        for (uint32_t k = 0; k < n; k++) {
            lo[k] = fminf(lo[k], data[(size_t)i * n + k]);
            hi[k] = fmaxf(hi[k], data[(size_t)i * n + k]);
        }
    gltf_write_add(w, accessor, "min", gltf_write_floats(w, lo, (int)n));
    gltf_write_add(w, accessor, "max", gltf_write_floats(w, hi, (int)n));
}

int gltf_write_accessor(gltf_writer *w, const void *data, uint32_t count, const char *type, uint32_t component,
                        bool bounds)
{
    uint32_t n = components_of(type);
    size_t size = (size_t)count * n * gltf_component_size(component);
    size_t at = append(w, data, size);
    cJSON *view = gltf_write_add(w, w->views, NULL, cJSON_CreateObject());
    cJSON *accessor = gltf_write_add(w, w->accessors, NULL, cJSON_CreateObject());
    if (!view || !accessor)
        return 0;
    gltf_write_add(w, view, "buffer", cJSON_CreateNumber(0));
    gltf_write_add(w, view, "byteOffset", cJSON_CreateNumber((double)at));
    gltf_write_add(w, view, "byteLength", cJSON_CreateNumber((double)size));
    gltf_write_add(w, accessor, "bufferView", cJSON_CreateNumber(cJSON_GetArraySize(w->views) - 1));
    gltf_write_add(w, accessor, "componentType", cJSON_CreateNumber(component));
    gltf_write_add(w, accessor, "count", cJSON_CreateNumber(count));
    gltf_write_add(w, accessor, "type", cJSON_CreateString(type));
    if (bounds)
        add_bounds(w, accessor, data, count, n);
    return cJSON_GetArraySize(w->accessors) - 1;
}

/* ---- nodes, skin ----------------------------------------------------------------------------- */

static void add_trs(gltf_writer *w, cJSON *node, const crowd_trs *t)
{
    const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, identity[4] = {0, 0, 0, 1};
    if (memcmp(t->translation, zero, sizeof zero))
        gltf_write_add(w, node, "translation", gltf_write_floats(w, t->translation, 3));
    if (memcmp(t->rotation, identity, sizeof identity))
        gltf_write_add(w, node, "rotation", gltf_write_floats(w, t->rotation, 4));
    if (memcmp(t->scale, one, sizeof one))
        gltf_write_add(w, node, "scale", gltf_write_floats(w, t->scale, 3));
}

static void add_child(gltf_writer *w, cJSON *nodes, int parent, int child)
{
    cJSON *p = cJSON_GetArrayItem(nodes, parent);
    cJSON *children = cJSON_GetObjectItemCaseSensitive(p, "children");
    if (!children)
        children = gltf_write_add(w, p, "children", cJSON_CreateArray());
    gltf_write_add(w, children, NULL, cJSON_CreateNumber(child));
}

static void write_nodes(gltf_writer *w, crowd_error *error)
{
    const crowd_rig *rig = w->rig;
    cJSON *nodes = gltf_write_add(w, w->root, "nodes", cJSON_CreateArray());
    cJSON *scene = gltf_write_add(w, cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(w->root, "scenes"), 0),
                                  "nodes", cJSON_CreateArray());
    uint32_t roots = 0;
    for (uint32_t b = 0; b < rig->bone_count; b++)
        roots += rig->bones[b].parent < 0;
    /* glTF wants a skin's joints under one common root: several root bones get a parent node */
    int group = roots > 1 ? (int)(rig->bone_count + rig->socket_count) : -1;
    for (uint32_t b = 0; b < rig->bone_count && !w->failed; b++) {
        cJSON *node = gltf_write_add(w, nodes, NULL, cJSON_CreateObject());
        gltf_write_add(w, node, "name", cJSON_CreateString(rig->bones[b].name));
        add_trs(w, node, &rig->bones[b].rest);
        if (rig->bones[b].parent >= 0)
            add_child(w, nodes, rig->bones[b].parent, (int)b);
        else if (group < 0)
            gltf_write_add(w, scene, NULL, cJSON_CreateNumber(b));
    }
    for (uint32_t s = 0; s < rig->socket_count && !w->failed; s++) {
        crowd_trs t;
        if (gltf_decompose(rig->sockets[s].offset, &t, rig->sockets[s].name, error) != CROWD_OK) {
            w->failed = true;
            return;
        }
        cJSON *node = gltf_write_add(w, nodes, NULL, cJSON_CreateObject());
        gltf_write_add(w, node, "name", cJSON_CreateString(rig->sockets[s].name));
        add_trs(w, node, &t);
        cJSON *extras = gltf_write_add(w, node, "extras", cJSON_CreateObject());
        gltf_write_add(w, extras, "crowdbake_socket", cJSON_CreateTrue());
        add_child(w, nodes, (int)rig->sockets[s].bone, cJSON_GetArraySize(nodes) - 1);
    }
    if (group >= 0) {
        cJSON *node = gltf_write_add(w, nodes, NULL, cJSON_CreateObject());
        gltf_write_add(w, node, "name", cJSON_CreateString("roots"));
        for (uint32_t b = 0; b < rig->bone_count; b++)
            if (rig->bones[b].parent < 0)
                add_child(w, nodes, group, (int)b);
        gltf_write_add(w, scene, NULL, cJSON_CreateNumber(group));
    }
    w->mesh_node = (uint32_t)cJSON_GetArraySize(nodes);
    cJSON *mesh_node = gltf_write_add(w, nodes, NULL, cJSON_CreateObject());
    gltf_write_add(w, mesh_node, "name", cJSON_CreateString("mesh"));
    gltf_write_add(w, mesh_node, "mesh", cJSON_CreateNumber(0));
    gltf_write_add(w, mesh_node, "skin", cJSON_CreateNumber(0));
    gltf_write_add(w, scene, NULL, cJSON_CreateNumber(w->mesh_node));
}

static void write_skin(gltf_writer *w)
{
    const crowd_rig *rig = w->rig;
    float *ibm = crowd_malloc((size_t)rig->bone_count * 16 * sizeof(float));
    int *joints = crowd_malloc(rig->bone_count * sizeof(int));
    if (!ibm || !joints) {
        w->failed = true;
        crowd_free(ibm), crowd_free(joints);
        return;
    }
    for (uint32_t b = 0; b < rig->bone_count; b++) {
        memcpy(ibm + 16 * b, rig->bones[b].inverse_bind, 16 * sizeof(float));
        ibm[16 * b + 3] = ibm[16 * b + 7] = ibm[16 * b + 11] = 0.0f; /* exactly affine, as the spec asks */
        ibm[16 * b + 15] = 1.0f;
        joints[b] = (int)b;
    }
    cJSON *skins = gltf_write_add(w, w->root, "skins", cJSON_CreateArray());
    cJSON *skin = gltf_write_add(w, skins, NULL, cJSON_CreateObject());
    gltf_write_add(w, skin, "inverseBindMatrices",
                   cJSON_CreateNumber(gltf_write_accessor(w, ibm, rig->bone_count, "MAT4", 5126, false)));
    gltf_write_add(w, skin, "joints", cJSON_CreateIntArray(joints, (int)rig->bone_count));
    crowd_free(ibm);
    crowd_free(joints);
}

/* ---- materials and the albedo ---------------------------------------------------------------- */

static void write_png(void *context, void *data, int size)
{
    gltf_writer *w = context;
    cJSON *images = gltf_write_add(w, w->root, "images", cJSON_CreateArray());
    cJSON *image = gltf_write_add(w, images, NULL, cJSON_CreateObject());
    append(w, data, (size_t)size);
    cJSON *view = gltf_write_add(w, w->views, NULL, cJSON_CreateObject());
    gltf_write_add(w, view, "buffer", cJSON_CreateNumber(0));
    gltf_write_add(w, view, "byteOffset", cJSON_CreateNumber((double)(w->bin_size - (size_t)size)));
    gltf_write_add(w, view, "byteLength", cJSON_CreateNumber(size));
    gltf_write_add(w, image, "bufferView", cJSON_CreateNumber(cJSON_GetArraySize(w->views) - 1));
    gltf_write_add(w, image, "mimeType", cJSON_CreateString("image/png"));
}

static void write_albedo(gltf_writer *w)
{
    const crowd_rig *rig = w->rig;
    if (!rig->albedo)
        return;
    if (!stbi_write_png_to_func(write_png, w, (int)rig->albedo_width, (int)rig->albedo_height, 4, rig->albedo,
                                (int)rig->albedo_width * 4)) {
        w->failed = true;
        return;
    }
    cJSON *textures = gltf_write_add(w, w->root, "textures", cJSON_CreateArray());
    cJSON *texture = gltf_write_add(w, textures, NULL, cJSON_CreateObject());
    gltf_write_add(w, texture, "source", cJSON_CreateNumber(0));
}

static void write_materials(gltf_writer *w)
{
    const crowd_rig *rig = w->rig;
    cJSON *materials = gltf_write_add(w, w->root, "materials", cJSON_CreateArray());
    for (uint32_t g = 0; g < rig->region_count && !w->failed; g++) {
        const crowd_rig_region *region = &rig->regions_info[g];
        cJSON *m = gltf_write_add(w, materials, NULL, cJSON_CreateObject());
        gltf_write_add(w, m, "name", cJSON_CreateString(region->name));
        cJSON *pbr = gltf_write_add(w, m, "pbrMetallicRoughness", cJSON_CreateObject());
        float color[4];
        for (int k = 0; k < 3; k++)
            color[k] = gltf_srgb8_to_linear(region->palette[0][k]);
        color[3] = region->palette[0][3] / 255.0f;
        gltf_write_add(w, pbr, "baseColorFactor", gltf_write_floats(w, color, 4));
        gltf_write_add(w, pbr, "metallicFactor", cJSON_CreateNumber(0));
        if (region->textured && rig->albedo) {
            cJSON *tex = gltf_write_add(w, pbr, "baseColorTexture", cJSON_CreateObject());
            gltf_write_add(w, tex, "index", cJSON_CreateNumber(0));
        }
        if (region->palette_count < 2)
            continue;
        cJSON *palette = cJSON_CreateArray();
        for (uint32_t c = 0; c < region->palette_count && palette; c++) {
            int rgba[4] = {region->palette[c][0], region->palette[c][1], region->palette[c][2], region->palette[c][3]};
            gltf_write_add(w, palette, NULL, cJSON_CreateIntArray(rgba, 4));
        }
        cJSON *extras = gltf_write_add(w, m, "extras", cJSON_CreateObject());
        gltf_write_add(w, extras, "crowdbake_palette", palette);
    }
}

/* ---- the mesh -------------------------------------------------------------------------------- */

static void write_influences(gltf_writer *w, cJSON *attributes)
{
    const crowd_rig *rig = w->rig;
    uint32_t sets = (rig->influence_count + 3) / 4, vc = rig->vertex_count;
    uint16_t *joints = crowd_calloc((size_t)vc * 4, sizeof *joints);
    float *weights = crowd_calloc((size_t)vc * 4, sizeof *weights);
    for (uint32_t s = 0; s < sets && joints && weights; s++) {
        for (uint32_t v = 0; v < vc; v++)
            for (uint32_t k = 0; k < 4; k++) {
                uint32_t i = 4 * s + k;
                float weight = i < rig->influence_count ? rig->weights[(size_t)v * rig->influence_count + i] : 0.0f;
                /* a zero weight points at joint 0, as validators expect */
                joints[4 * (size_t)v + k] = weight > 0 ? rig->joints[(size_t)v * rig->influence_count + i] : 0;
                weights[4 * (size_t)v + k] = weight;
            }
        char key[32];
        snprintf(key, sizeof key, "JOINTS_%u", s);
        gltf_write_add(w, attributes, key, cJSON_CreateNumber(gltf_write_accessor(w, joints, vc, "VEC4", 5123, false)));
        snprintf(key, sizeof key, "WEIGHTS_%u", s);
        gltf_write_add(w, attributes, key,
                       cJSON_CreateNumber(gltf_write_accessor(w, weights, vc, "VEC4", 5126, false)));
    }
    w->failed |= !joints || !weights;
    crowd_free(joints);
    crowd_free(weights);
}

static cJSON *write_attributes(gltf_writer *w)
{
    const crowd_rig *rig = w->rig;
    uint32_t vc = rig->vertex_count;
    cJSON *attributes = cJSON_CreateObject();
    w->failed |= !attributes;
    gltf_write_add(w, attributes, "POSITION",
                   cJSON_CreateNumber(gltf_write_accessor(w, rig->positions, vc, "VEC3", 5126, true)));
    gltf_write_add(w, attributes, "NORMAL",
                   cJSON_CreateNumber(gltf_write_accessor(w, rig->normals, vc, "VEC3", 5126, false)));
    if (rig->uvs)
        gltf_write_add(w, attributes, "TEXCOORD_0",
                       cJSON_CreateNumber(gltf_write_accessor(w, rig->uvs, vc, "VEC2", 5126, false)));
    if (rig->colors) {
        float *linear = crowd_malloc((size_t)vc * 4 * sizeof(float));
        for (size_t i = 0; linear && i < (size_t)vc * 4; i++)
            linear[i] = i % 4 == 3 ? rig->colors[i] / 255.0f : gltf_srgb8_to_linear(rig->colors[i]);
        w->failed |= !linear;
        if (linear)
            gltf_write_add(w, attributes, "COLOR_0",
                           cJSON_CreateNumber(gltf_write_accessor(w, linear, vc, "VEC4", 5126, false)));
        crowd_free(linear);
    }
    write_influences(w, attributes);
    return attributes;
}

static cJSON *write_targets(gltf_writer *w)
{
    const crowd_rig *rig = w->rig;
    cJSON *targets = cJSON_CreateArray();
    w->failed |= !targets;
    for (uint32_t t = 0; t < rig->morph_target_count && targets; t++) {
        size_t at = (size_t)t * rig->vertex_count * 3;
        cJSON *target = gltf_write_add(w, targets, NULL, cJSON_CreateObject());
        gltf_write_add(w, target, "POSITION",
                       cJSON_CreateNumber(
                           gltf_write_accessor(w, rig->morph_positions + at, rig->vertex_count, "VEC3", 5126, true)));
        if (rig->morph_normals)
            gltf_write_add(w, target, "NORMAL",
                           cJSON_CreateNumber(gltf_write_accessor(w, rig->morph_normals + at, rig->vertex_count, "VEC3",
                                                                  5126, false)));
    }
    return targets;
}

/* A primitive per run of consecutive triangles of one region: the triangle order survives the
 * round trip exactly (the reader concatenates primitives and shares their vertices). */
static void write_mesh(gltf_writer *w)
{
    const crowd_rig *rig = w->rig;
    cJSON *meshes = gltf_write_add(w, w->root, "meshes", cJSON_CreateArray());
    cJSON *mesh = gltf_write_add(w, meshes, NULL, cJSON_CreateObject());
    cJSON *prims = gltf_write_add(w, mesh, "primitives", cJSON_CreateArray());
    cJSON *attributes = write_attributes(w), *targets = rig->morph_target_count ? write_targets(w) : NULL;
    for (uint32_t start = 0; start < rig->index_count && !w->failed;) {
        uint8_t region = rig->regions[rig->indices[start]];
        uint32_t end = start + 3;
        while (end < rig->index_count && rig->regions[rig->indices[end]] == region)
            end += 3;
        cJSON *prim = gltf_write_add(w, prims, NULL, cJSON_CreateObject());
        gltf_write_add(w, prim, "attributes", cJSON_Duplicate(attributes, true));
        gltf_write_add(
            w, prim, "indices",
            cJSON_CreateNumber(gltf_write_accessor(w, rig->indices + start, end - start, "SCALAR", 5125, false)));
        gltf_write_add(w, prim, "material", cJSON_CreateNumber(region));
        if (targets)
            gltf_write_add(w, prim, "targets", cJSON_Duplicate(targets, true));
        start = end;
    }
    if (targets) {
        float *zeros = crowd_calloc(rig->morph_target_count, sizeof(float));
        w->failed |= !zeros;
        if (zeros)
            gltf_write_add(w, mesh, "weights", gltf_write_floats(w, zeros, (int)rig->morph_target_count));
        crowd_free(zeros);
    }
    cJSON_Delete(attributes);
    cJSON_Delete(targets);
}

/* ---- the container --------------------------------------------------------------------------- */

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static crowd_result pack_glb(gltf_writer *w, uint8_t **bytes, size_t *size, crowd_error *error)
{
    char *json = cJSON_PrintUnformatted(w->root);
    if (!json)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "glb: out of memory");
    size_t json_size = strlen(json), json_padded = (json_size + 3) & ~(size_t)3;
    size_t bin_padded = (w->bin_size + 3) & ~(size_t)3;
    size_t total = 12 + 8 + json_padded + 8 + bin_padded;
    if (total > UINT32_MAX) {
        crowd_free(json);
        return crowd_fail(error, CROWD_ERROR_LIMIT, "glb: %zu bytes do not fit a .glb (4 GiB)", total);
    }
    uint8_t *out = crowd_calloc(total, 1);
    if (!out) {
        crowd_free(json);
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "glb: out of memory for %zu bytes", total);
    }
    memcpy(out, "glTF", 4);
    wr32(out + 4, 2);
    wr32(out + 8, (uint32_t)total);
    wr32(out + 12, (uint32_t)json_padded);
    memcpy(out + 16, "JSON", 4);
    memcpy(out + 20, json, json_size);
    memset(out + 20 + json_size, ' ', json_padded - json_size);
    uint8_t *bin = out + 20 + json_padded;
    wr32(bin, (uint32_t)bin_padded);
    memcpy(bin + 4, "BIN\0", 4);
    if (w->bin_size)
        memcpy(bin + 8, w->bin, w->bin_size);
    crowd_free(json);
    *bytes = out;
    *size = total;
    return CROWD_OK;
}

static void write_document(gltf_writer *w, crowd_error *error)
{
    cJSON *asset = gltf_write_add(w, w->root, "asset", cJSON_CreateObject());
    gltf_write_add(w, asset, "version", cJSON_CreateString("2.0"));
    gltf_write_add(w, asset, "generator", cJSON_CreateString("crowdbake crowd_gltf_write"));
    gltf_write_add(w, w->root, "scene", cJSON_CreateNumber(0));
    cJSON *scenes = gltf_write_add(w, w->root, "scenes", cJSON_CreateArray());
    gltf_write_add(w, scenes, NULL, cJSON_CreateObject());
    w->accessors = gltf_write_add(w, w->root, "accessors", cJSON_CreateArray());
    w->views = gltf_write_add(w, w->root, "bufferViews", cJSON_CreateArray());
    if (w->failed)
        return;
    write_nodes(w, error);
    write_skin(w);
    write_mesh(w);
    write_albedo(w);
    write_materials(w);
    gltf_write_animations(w);
    cJSON *buffers = gltf_write_add(w, w->root, "buffers", cJSON_CreateArray());
    cJSON *buffer = gltf_write_add(w, buffers, NULL, cJSON_CreateObject());
    gltf_write_add(w, buffer, "byteLength", cJSON_CreateNumber((double)((w->bin_size + 3) & ~(size_t)3)));
}

crowd_result crowd_gltf_write_glb(const crowd_rig *rig, const crowd_gltf_write_desc *desc, uint8_t **bytes,
                                  size_t *size, crowd_error *error)
{
    if (!bytes || !size)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gltf_write_glb: NULL output");
    *bytes = NULL;
    *size = 0;
    crowd_result r = crowd_rig_validate(rig, error);
    if (r != CROWD_OK)
        return r;
    float fps = desc && desc->fps != 0.0f ? desc->fps : 30.0f;
    if (!(fps >= 1.0f && fps <= 240.0f))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT,
                          "crowd_gltf_write_desc.fps %g outside 1..240 (0 for the default 30)", (double)fps);
    crowd_error local = {0};
    gj_install_hooks(); /* base.h's allocator */
    gltf_writer w = {.rig = rig, .fps = fps, .root = cJSON_CreateObject()};
    w.failed = !w.root;
    if (!w.failed)
        write_document(&w, &local);
    if (w.failed)
        r = local.code ? crowd_fail(error, local.code, "export: %s", local.message)
                       : crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "export: out of memory");
    else
        r = pack_glb(&w, bytes, size, error);
    cJSON_Delete(w.root);
    crowd_free(w.bin);
    return r;
}

crowd_result crowd_gltf_write_file(const crowd_rig *rig, const crowd_gltf_write_desc *desc, const char *path,
                                   crowd_error *error)
{
    uint8_t *bytes = NULL;
    size_t size = 0;
    crowd_result r = crowd_gltf_write_glb(rig, desc, &bytes, &size, error);
    if (r == CROWD_OK)
        r = crowd_write_file_atomic(path, bytes, size, error);
    crowd_free(bytes);
    return r;
}

void crowd_gltf_bytes_free(uint8_t *bytes)
{
    crowd_free(bytes);
}
