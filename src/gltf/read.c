/* The reader's entry points: open and validate the whole document, then build the rig. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/file_read.h"
#include "gltf/gltf_build.h"

/* Extensions whose data we would need to decode: refused by name, used or required. */
static const char *const compressed[] = {"KHR_draco_mesh_compression", "EXT_meshopt_compression",
                                         "KHR_meshopt_compression", "KHR_texture_basisu"};
/* Extensions that may be required: we implement them, or ignoring them cannot change a bake. */
static const char *const supported[] = {"KHR_mesh_quantization",
                                        "MSFT_lod",
                                        "KHR_materials_pbrSpecularGlossiness",
                                        "KHR_materials_unlit",
                                        "KHR_materials_emissive_strength",
                                        "KHR_materials_variants"};

void gltf_warn(const gltf_doc *doc, const char *fmt, ...)
{
    if (!doc->desc || !doc->desc->warn)
        return;
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    doc->desc->warn(doc->desc->warn_user, message);
}

static bool in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i]))
            return true;
    return false;
}

static bool in_array(const cJSON *array, const char *name)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (cJSON_IsString(item) && !strcmp(item->valuestring, name))
            return true;
    }
    return false;
}

static crowd_result check_extension_list(const gltf_doc *doc, const char *key, const cJSON **out, crowd_error *error)
{
    uint32_t count;
    crowd_result r = gj_array(doc->root, key, "root", false, CROWD_GLTF_MAX_ARRAY, out, &count, error);
    const cJSON *item;
    uint32_t i = 0;
    cJSON_ArrayForEach(item, *out)
    {
        if (!cJSON_IsString(item))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s[%u]: expected a string", key, i);
        i++;
    }
    return r;
}

/* Appends one refused extension to the list the refusal names, so a file needing two is told both. */
static void refuse(char *list, size_t size, uint32_t *count, const char *name, const char *where, uint32_t i,
                   bool compressed_data)
{
    size_t used = strlen(list);
    if (used + 1 < size)
        snprintf(list + used, size - used, "%s%.64s (%s[%u]%s)", *count ? ", " : "", name, where, i,
                 compressed_data ? ": compressed data that crowdbake does not decode" : ": not implemented");
    (*count)++;
}

static crowd_result check_asset(const gltf_doc *doc, crowd_error *error)
{
    const cJSON *asset, *used, *required, *item;
    const char *version = NULL, *min_version = NULL;
    crowd_result r;
    if ((r = gj_object(doc->root, "asset", "root", true, &asset, error)) ||
        (r = gj_string(asset, "version", "asset", true, &version, error)) ||
        (r = gj_string(asset, "minVersion", "asset", false, &min_version, error)))
        return r;
    if (strncmp(version, "2.", 2) != 0)
        return crowd_fail(error, CROWD_ERROR_BAD_VERSION, "asset.version: \"%.16s\", this reader reads glTF 2.x",
                          version);
    if (min_version && strcmp(min_version, "2.0") != 0)
        return crowd_fail(error, CROWD_ERROR_BAD_VERSION, "asset.minVersion: \"%.16s\" is newer than 2.0", min_version);
    if ((r = check_extension_list(doc, "extensionsUsed", &used, error)) ||
        (r = check_extension_list(doc, "extensionsRequired", &required, error)))
        return r;
    uint32_t i = 0, refused = 0;
    bool any_compressed = false;
    char list[400] = "";
    cJSON_ArrayForEach(item, required)
    {
        if (!in_array(used, item->valuestring))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "extensionsRequired[%u]: %.64s is not in extensionsUsed",
                              i, item->valuestring);
        bool packed = in_list(item->valuestring, compressed, sizeof compressed / sizeof *compressed);
        if (packed || !in_list(item->valuestring, supported, sizeof supported / sizeof *supported))
            refuse(list, sizeof list, &refused, item->valuestring, "extensionsRequired", i, packed);
        any_compressed |= packed;
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(item, used) /* compressed data refuses a file even where it is only "used" */
    {
        if (in_list(item->valuestring, compressed, sizeof compressed / sizeof *compressed) &&
            !in_array(required, item->valuestring)) {
            refuse(list, sizeof list, &refused, item->valuestring, "extensionsUsed", i, true);
            any_compressed = true;
        }
        i++;
    }
    if (refused)
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED,
                          "the file needs %u glTF extension%s crowdbake cannot read: %s%s", refused,
                          refused == 1 ? "" : "s", list,
                          any_compressed ? "; export the file without mesh or texture compression" : "");
    if (in_array(used, "KHR_texture_transform"))
        gltf_warn(doc,
                  "extensionsUsed: KHR_texture_transform is ignored (texture coordinates are baked untransformed)");
    return CROWD_OK;
}

static crowd_result parse_json(gltf_doc *doc, const uint8_t *data, size_t size, crowd_error *error)
{
    const uint8_t *json = data;
    size_t json_size = size;
    if (doc->is_glb) {
        crowd_result r = gltf_glb_parse(data, size, &doc->glb, error);
        if (r != CROWD_OK)
            return r;
        json = doc->glb.json;
        json_size = doc->glb.json_size;
    }
    if (json_size >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF) {
        /* the spec forbids a byte order mark; it cannot change what the document says */
        gltf_warn(doc, "JSON: starts with a UTF-8 byte order mark (ignored)");
        json += 3;
        json_size -= 3;
    } else if (!doc->is_glb && (json_size == 0 || (json[0] != '{' && json[0] != '[' && json[0] != ' ' &&
                                                   json[0] != '\t' && json[0] != '\n' && json[0] != '\r'))) {
        return crowd_fail(error, CROWD_ERROR_BAD_MAGIC, "%s: neither a .glb (magic \"glTF\") nor a JSON glTF document",
                          json_size ? "file" : "empty file");
    }
    if (json_size > CROWD_GLTF_MAX_JSON_BYTES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "JSON: %zu bytes, limit %u", json_size, CROWD_GLTF_MAX_JSON_BYTES);
    const char *end = NULL;
    gj_install_hooks();
    doc->root = cJSON_ParseWithLengthOpts((const char *)json, json_size, &end, false);
    if (!doc->root && gj_allocation_failed())
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "JSON: out of memory while parsing %zu bytes", json_size);
    if (!doc->root) {
        size_t at = end && end >= (const char *)json ? (size_t)(end - (const char *)json) : 0;
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "JSON: syntax error near byte %zu", at);
    }
    for (size_t at = (size_t)(end - (const char *)json); at < json_size; at++)
        if (json[at] != ' ' && json[at] != '\t' && json[at] != '\n' && json[at] != '\r' && json[at] != '\0')
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "JSON: unexpected data after the document at byte %zu",
                              at);
    if (!cJSON_IsObject(doc->root))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "root: expected a JSON object");
    return CROWD_OK;
}

/* The items of an array, indexable in O(1): cJSON_GetArrayItem walks a list, and a lookup per
 * primitive or per material would make reading quadratic. */
static crowd_result index_items(const cJSON *array, uint32_t count, const cJSON ***out, crowd_error *error)
{
    *out = NULL;
    if (!count)
        return CROWD_OK;
    if (!(*out = crowd_malloc(count * sizeof **out)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "out of memory for %u entries", count);
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        (*out)[i++] = item;
    }
    return CROWD_OK;
}

/* Array sizes that later parses check indices against, before those arrays are read. */
static crowd_result count_arrays(gltf_doc *doc, crowd_error *error)
{
    const cJSON *a, *materials, *textures, *images;
    crowd_result r;
    if ((r = gj_array(doc->root, "meshes", "root", false, CROWD_GLTF_MAX_ARRAY, &a, &doc->mesh_count, error)) ||
        (r = gj_array(doc->root, "skins", "root", false, CROWD_GLTF_MAX_ARRAY, &a, &doc->skin_count, error)) ||
        (r = gj_array(doc->root, "materials", "root", false, CROWD_GLTF_MAX_ARRAY, &materials, &doc->material_count,
                      error)) ||
        (r = gj_array(doc->root, "textures", "root", false, CROWD_GLTF_MAX_ARRAY, &textures, &doc->texture_count,
                      error)) ||
        (r = gj_array(doc->root, "images", "root", false, CROWD_GLTF_MAX_ARRAY, &images, &doc->image_count, error)) ||
        (r = index_items(materials, doc->material_count, &doc->materials, error)) ||
        (r = index_items(textures, doc->texture_count, &doc->textures, error)) ||
        (r = index_items(images, doc->image_count, &doc->images, error)))
        return r;
    return CROWD_OK;
}

crowd_result gltf_doc_open(gltf_doc *doc, const uint8_t *data, size_t size, crowd_error *error)
{
    doc->is_glb = gltf_is_glb(data, size);
    crowd_result r;
    if ((r = parse_json(doc, data, size, error)) || (r = check_asset(doc, error)) || (r = count_arrays(doc, error)) ||
        (r = gltf_load_buffers(doc, error)))
        goto fail;
    doc->check_budget = (uint64_t)(1u << 20);
    for (uint32_t i = 0; i < doc->buffer_count; i++)
        doc->check_budget += (uint64_t)GLTF_OVERLAP_FACTOR * doc->buffers[i].size;
    if ((r = gltf_parse_views(doc, error)) || (r = gltf_parse_accessors(doc, error)) ||
        (r = gltf_parse_meshes(doc, error)) || (r = gltf_parse_nodes(doc, error)) ||
        (r = gltf_parse_skins(doc, error)) || (r = gltf_check_materials(doc, error)) ||
        (r = gltf_parse_scene(doc, error)) || (r = gltf_parse_animations(doc, error)) ||
        (r = gltf_check_skinned_nodes(doc, error)))
        goto fail;
    return CROWD_OK;
fail:
    gltf_doc_close(doc);
    return r;
}

void gltf_doc_close(gltf_doc *doc)
{
    for (uint32_t i = 0; doc->buffers && i < doc->buffer_count; i++)
        crowd_free(doc->buffers[i].owned);
    for (uint32_t i = 0; doc->nodes && i < doc->node_count; i++) {
        crowd_free(doc->nodes[i].children);
        crowd_free(doc->nodes[i].weights);
    }
    for (uint32_t i = 0; doc->skins && i < doc->skin_count; i++) {
        crowd_free(doc->skins[i].joints);
        crowd_free(doc->skins[i].inverse_binds);
    }
    for (uint32_t i = 0; doc->meshes && i < doc->mesh_count; i++)
        crowd_free(doc->meshes[i].weights);
    gltf_animations_free(doc->anims, doc->animation_count);
    crowd_free(doc->buffers);
    crowd_free(doc->views);
    crowd_free(doc->accessors);
    crowd_free(doc->nodes);
    crowd_free(doc->skins);
    crowd_free(doc->meshes);
    crowd_free(doc->scene_roots);
    crowd_free(doc->materials);
    crowd_free(doc->textures);
    crowd_free(doc->images);
    cJSON_Delete(doc->root);
    memset(doc, 0, sizeof *doc);
}

void gltf_builder_free(gltf_builder *b)
{
    for (uint32_t s = 0; b->skin_bones && b->doc && s < b->doc->skin_count; s++)
        crowd_free(b->skin_bones[s]);
    crowd_free(b->skin_bones);
    crowd_free(b->skin_selected);
    crowd_free(b->node_bone);
    crowd_free(b->bone_node);
    crowd_free(b->instances);
    crowd_free(b->material_region);
    crowd_free(b->variant_material);
}

static crowd_result build(gltf_builder *b, const char *name, crowd_error *error)
{
    crowd_rig *rig = b->rig;
    crowd_result r;
    if ((r = gltf_select(b, error)) || (r = gltf_build_mesh(b, error)) || (r = gltf_read_variants(b, error)) ||
        (r = gltf_build_albedo(b, error)) || (r = gltf_build_clips(b, error)) || (r = gltf_build_sockets(b, error)))
        return r;
    rig->source = CROWD_RIG_GLTF;
    if (!(rig->source_name = crowd_malloc(strlen(name) + 1)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "out of memory");
    strcpy(rig->source_name, name);
    if ((r = crowd_rig_validate(rig, error)) != CROWD_OK)
        crowd_error_prefix(error, "the character built from the file is not bakeable: ");
    return r;
}

crowd_result crowd_gltf_read_memory(const void *data, size_t size, const char *name, const char *base_dir,
                                    const crowd_gltf_desc *desc, crowd_rig *rig, crowd_error *error)
{
    if (!rig || (!data && size))
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gltf_read_memory: NULL rig or data");
    memset(rig, 0, sizeof *rig);
    name = name ? name : "memory";
    gltf_doc doc = {.name = name, .base_dir = base_dir, .desc = desc};
    crowd_result r = gltf_doc_open(&doc, data ? data : (const void *)"", size, error);
    if (r != CROWD_OK) {
        crowd_error_prefix(error, "%s: ", name);
        return r;
    }
    gltf_builder b = {.doc = &doc, .rig = rig};
    r = build(&b, name, error);
    gltf_builder_free(&b);
    gltf_doc_close(&doc);
    if (r != CROWD_OK) {
        crowd_rig_free(rig);
        crowd_error_prefix(error, "%s: ", name);
    }
    return r;
}

crowd_result crowd_gltf_read_file(const char *path, const crowd_gltf_desc *desc, crowd_rig *rig, crowd_error *error)
{
    if (!path || !rig)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "crowd_gltf_read_file: NULL path or rig");
    memset(rig, 0, sizeof *rig);
    FILE *f = crowd_file_open_read(path, error);
    if (!f)
        return CROWD_ERROR_IO;
    uint8_t *bytes = NULL;
    uint64_t n = 0;
    crowd_result r = crowd_file_size(f, path, CROWD_GLTF_MAX_FILE_BYTES, &n, error);
    if (r == CROWD_OK && !(bytes = crowd_malloc((size_t)n + 1)))
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory for %llu bytes", path,
                       (unsigned long long)n);
    if (r == CROWD_OK)
        r = crowd_file_read_all(f, path, bytes, n, error);
    fclose(f);
    char *dir = r == CROWD_OK ? crowd_malloc(strlen(path) + 2) : NULL;
    if (r == CROWD_OK && !dir)
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    if (r == CROWD_OK) {
        strcpy(dir, path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            strcpy(dir, ".");
        r = crowd_gltf_read_memory(bytes, (size_t)n, path, dir, desc, rig, error);
    }
    crowd_free(dir);
    crowd_free(bytes);
    return r;
}
