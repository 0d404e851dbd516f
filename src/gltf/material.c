/* Materials, textures and images: what a region's colour is and which image is its base colour.
 * Images are decoded with stb_image (PNG, JPEG), sizes checked before any pixel is allocated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include <stb_image.h>
#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_build.h"
#include "gltf/gltf_internal.h"

static const cJSON *base_color_source(const cJSON *material, bool *specular_glossiness)
{
    const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(material, "pbrMetallicRoughness");
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(material, "extensions");
    const cJSON *sg = ext ? cJSON_GetObjectItemCaseSensitive(ext, "KHR_materials_pbrSpecularGlossiness") : NULL;
    *specular_glossiness = !pbr && cJSON_IsObject(sg);
    return *specular_glossiness ? sg : pbr;
}

crowd_result gltf_material_info(const gltf_doc *doc, uint32_t m, gltf_material *info, crowd_error *error)
{
    char path[80];
    snprintf(path, sizeof path, "materials[%u]", m);
    const cJSON *json = doc->materials[m], *texture = NULL, *source;
    bool sg = false, present;
    *info = (gltf_material){.color = {1, 1, 1, 1}, .image = -1};
    if (!cJSON_IsObject(json))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    crowd_result r = gj_string(json, "name", path, false, &info->name, error);
    source = r == CROWD_OK ? base_color_source(json, &sg) : NULL;
    if (source && !cJSON_IsObject(source))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.pbrMetallicRoughness: expected an object", path);
    if (source) {
        strncat(path, sg ? ".extensions.KHR_materials_pbrSpecularGlossiness" : ".pbrMetallicRoughness",
                sizeof path - strlen(path) - 1);
        if ((r = gj_floats(source, sg ? "diffuseFactor" : "baseColorFactor", path, 4, info->color, &present, error)) ||
            (r = gj_object(source, sg ? "diffuseTexture" : "baseColorTexture", path, false, &texture, error)))
            return r;
    }
    for (int k = 0; k < 4; k++)
        if (!(info->color[k] >= 0.0f && info->color[k] <= 1.0f))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: base colour component %d (%g) outside 0..1", path,
                              k, (double)info->color[k]);
    if (r != CROWD_OK || !texture)
        return r;
    int32_t index = -1;
    uint64_t texcoord = 0;
    strncat(path, ".baseColorTexture", sizeof path - strlen(path) - 1);
    if ((r = gj_index(texture, "index", path, true, doc->texture_count, "textures", &index, error)) ||
        (r = gj_uint(texture, "texCoord", path, false, 0, 7, &texcoord, error)))
        return r;
    info->texcoord = (uint32_t)texcoord;
    const cJSON *tex = doc->textures[index];
    snprintf(path, sizeof path, "textures[%d]", index);
    if (!cJSON_IsObject(tex))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    return gj_index(tex, "source", path, false, doc->image_count, "images", &info->image, error);
}

static crowd_result check_image(const gltf_doc *doc, uint32_t i, crowd_error *error)
{
    char path[48];
    snprintf(path, sizeof path, "images[%u]", i);
    const cJSON *json = doc->images[i];
    const char *uri = NULL, *mime = NULL;
    int32_t view = -1;
    crowd_result r;
    if (!cJSON_IsObject(json))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    if ((r = gj_string(json, "uri", path, false, &uri, error)) ||
        (r = gj_string(json, "mimeType", path, false, &mime, error)) ||
        (r = gj_index(json, "bufferView", path, false, doc->view_count, "bufferViews", &view, error)))
        return r;
    if ((uri != NULL) == (view >= 0))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: needs exactly one of uri and bufferView", path);
    if (view >= 0 && !mime)
        return crowd_fail(error, CROWD_ERROR_MISSING, "%s.mimeType: required with a bufferView", path);
    return CROWD_OK;
}

crowd_result gltf_check_materials(gltf_doc *doc, crowd_error *error)
{
    crowd_result r = CROWD_OK;
    for (uint32_t i = 0; r == CROWD_OK && i < doc->image_count; i++)
        r = check_image(doc, i, error);
    for (uint32_t m = 0; r == CROWD_OK && m < doc->material_count; m++) {
        gltf_material info;
        r = gltf_material_info(doc, m, &info, error);
    }
    return r;
}

/* ---- images ---------------------------------------------------------------------------------- */

/* Decodes image `i` to rgba8. Returns false (after a warning) when it cannot: a texture that
 * cannot be decoded leaves the asset untextured rather than failing the bake. Hard errors (out
 * of memory) come back as a result. */
crowd_result gltf_decode_image(const gltf_doc *doc, uint32_t i, uint8_t **rgba, uint32_t *width, uint32_t *height,
                               crowd_error *error)
{
    char path[48];
    snprintf(path, sizeof path, "images[%u]", i);
    const cJSON *json = doc->images[i];
    const char *uri = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "uri"));
    const uint8_t *bytes = NULL;
    uint8_t *owned = NULL;
    size_t size = 0;
    *rgba = NULL;
    crowd_result r = CROWD_OK;
    if (uri) {
        r = gltf_resolve_uri(doc, uri, path, &owned, &size, error);
        bytes = owned;
    } else {
        const gltf_view *v = &doc->views[(uint32_t)cJSON_GetObjectItemCaseSensitive(json, "bufferView")->valuedouble];
        bytes = doc->buffers[v->buffer].data ? doc->buffers[v->buffer].data + v->offset : NULL;
        size = v->length;
        if (!bytes)
            r = crowd_fail(error, CROWD_ERROR_MISSING, "%s: its buffer has no data", path);
    }
    int w = 0, h = 0, channels = 0;
    gltf_image_allocation_reset();
    if (r == CROWD_OK && size <= INT32_MAX && stbi_info_from_memory(bytes, (int)size, &w, &h, &channels) && w > 0 &&
        h > 0 && (uint32_t)w <= CROWD_MAX_TEXTURE_DIM && (uint32_t)h <= CROWD_MAX_TEXTURE_DIM &&
        (uint64_t)w * h <= CROWD_GLTF_MAX_IMAGE_PIXELS)
        *rgba = stbi_load_from_memory(bytes, (int)size, &w, &h, &channels, 4);
    if (r == CROWD_OK && gltf_image_allocation_failed()) { /* even where stb found another way */
        crowd_free(*rgba);
        *rgba = NULL;
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory decoding it", path);
    } else if (r == CROWD_OK && !*rgba) {
        gltf_warn(doc, "%s: cannot decode (%s, %d x %d); the asset is baked untextured", path,
                  stbi_failure_reason() ? stbi_failure_reason() : "size limit", w, h);
    }
    crowd_free(owned);
    if (r == CROWD_ERROR_OUT_OF_MEMORY)
        return r;
    if (r != CROWD_OK)
        gltf_warn(doc, "%s", error ? error->message : "image unavailable");
    *width = *rgba ? (uint32_t)w : 0;
    *height = *rgba ? (uint32_t)h : 0;
    return CROWD_OK;
}
