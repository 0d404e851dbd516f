/* Buffers (GLB BIN chunk, base64 data: URIs, files beside the document) and buffer views. After
 * this file has run, every view lies inside a buffer whose declared bytes are all present. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/file_read.h"
#include "gltf/gltf_internal.h"

/* ---- base64 ---------------------------------------------------------------------------------- */

static int base64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Strict: only the (standard or URL-safe) alphabet, at most two '=' of padding at the end. */
static crowd_result base64_decode(const char *text, const char *path, uint8_t **out, size_t *size, crowd_error *error)
{
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == '=' && strlen(text) - n < 2)
        n--;
    if (n % 4 == 1)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: base64 data has an impossible length", path);
    uint8_t *bytes = crowd_malloc(n / 4 * 3 + 3);
    if (!bytes)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, n);
    size_t o = 0;
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        int v = base64_value((unsigned char)text[i]);
        if (v < 0) {
            crowd_free(bytes);
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: invalid base64 character at offset %zu", path, i);
        }
        acc = acc << 6 | (uint32_t)v;
        if (i % 4 == 3) {
            bytes[o++] = (uint8_t)(acc >> 16);
            bytes[o++] = (uint8_t)(acc >> 8);
            bytes[o++] = (uint8_t)acc;
            acc = 0;
        }
    }
    if (n % 4 == 2)
        bytes[o++] = (uint8_t)(acc >> 4);
    else if (n % 4 == 3) {
        bytes[o++] = (uint8_t)(acc >> 10);
        bytes[o++] = (uint8_t)(acc >> 2);
    }
    *out = bytes;
    *size = o;
    return CROWD_OK;
}

/* ---- URIs ------------------------------------------------------------------------------------ */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static crowd_result read_external(const gltf_doc *doc, const char *uri, const char *path, uint8_t **owned, size_t *size,
                                  crowd_error *error)
{
    if (!doc->base_dir || (doc->desc && doc->desc->no_external_files))
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "%s: external file \"%.100s\" refused (reading from memory)",
                          path, uri);
    if (uri[0] == '/' || strstr(uri, "://") || strchr(uri, '\\'))
        return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "%s: \"%.100s\" is not a relative file reference", path, uri);
    size_t base = strlen(doc->base_dir), n = strlen(uri);
    char *file = crowd_malloc(base + n + 2);
    if (!file)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    size_t o = (size_t)snprintf(file, base + 2, "%s/", doc->base_dir);
    for (size_t i = 0; i < n; i++) { /* percent-decoding: "my%20file.bin" */
        int hi = uri[i] == '%' && i + 2 < n + 1 ? hex_value(uri[i + 1]) : -1;
        int lo = hi >= 0 ? hex_value(uri[i + 2]) : -1;
        if (lo >= 0 && (hi || lo)) {
            file[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            file[o++] = uri[i];
        }
    }
    file[o] = '\0';
    crowd_result r = CROWD_OK;
    FILE *f = crowd_file_open_read(file, error);
    uint64_t length = 0;
    *owned = NULL;
    if (!f) {
        r = CROWD_ERROR_IO;
        crowd_error_prefix(error, "%s: ", path);
    } else if ((r = crowd_file_size(f, file, CROWD_GLTF_MAX_FILE_BYTES, &length, error)) != CROWD_OK)
        crowd_error_prefix(error, "%s: ", path);
    else if (!(*owned = crowd_malloc((size_t)length + 1)))
        r = crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory for %llu bytes", path,
                       (unsigned long long)length);
    else if ((r = crowd_file_read_all(f, file, *owned, length, error)) != CROWD_OK)
        crowd_error_prefix(error, "%s: ", path);
    if (f)
        fclose(f);
    crowd_free(file);
    if (r != CROWD_OK) {
        crowd_free(*owned);
        *owned = NULL;
        return r;
    }
    *size = (size_t)length;
    return CROWD_OK;
}

crowd_result gltf_resolve_uri(const gltf_doc *doc, const char *uri, const char *path, uint8_t **owned, size_t *size,
                              crowd_error *error)
{
    *owned = NULL;
    *size = 0;
    if (strncmp(uri, "data:", 5) == 0) {
        const char *comma = strchr(uri, ',');
        if (!comma)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: data URI without a comma", path);
        size_t header = (size_t)(comma - uri);
        if (header < 12 || strncmp(comma - 7, ";base64", 7) != 0)
            return crowd_fail(error, CROWD_ERROR_UNSUPPORTED, "%s: data URI is not base64", path);
        return base64_decode(comma + 1, path, owned, size, error);
    }
    return read_external(doc, uri, path, owned, size, error);
}

/* ---- buffers --------------------------------------------------------------------------------- */

static crowd_result load_buffer(gltf_doc *doc, uint32_t i, const cJSON *json, crowd_error *error)
{
    char path[48];
    snprintf(path, sizeof path, "buffers[%u]", i);
    uint64_t length = 0;
    const char *uri = NULL;
    crowd_result r = gj_uint(json, "byteLength", path, true, 1, CROWD_GLTF_MAX_FILE_BYTES, &length, error);
    if (r == CROWD_OK)
        r = gj_string(json, "uri", path, false, &uri, error);
    if (r != CROWD_OK)
        return r;
    gltf_buffer *b = &doc->buffers[i];
    size_t have = 0;
    if (uri) {
        char upath[64];
        snprintf(upath, sizeof upath, "%s.uri", path);
        if ((r = gltf_resolve_uri(doc, uri, upath, &b->owned, &have, error)) != CROWD_OK)
            return r;
        b->data = b->owned;
        bool data_uri = strncmp(uri, "data:", 5) == 0;
        if (have < length || (data_uri && have != length))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: byteLength %llu but the URI holds %zu bytes", path,
                              (unsigned long long)length, have);
    } else if (doc->is_glb && i == 0) {
        if (!doc->glb.bin)
            return crowd_fail(error, CROWD_ERROR_MISSING, "%s: no uri and the .glb has no BIN chunk", path);
        have = doc->glb.bin_size;
        /* the chunk is padded to 4 bytes, never more */
        if (have < length || have - length > 3)
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: byteLength %llu but the BIN chunk has %zu bytes",
                              path, (unsigned long long)length, have);
        b->data = doc->glb.bin;
    }
    /* No data at all (a .gltf buffer without uri) is legal JSON: reading from it fails later. */
    b->size = (size_t)length;
    return CROWD_OK;
}

crowd_result gltf_load_buffers(gltf_doc *doc, crowd_error *error)
{
    const cJSON *array;
    crowd_result r =
        gj_array(doc->root, "buffers", "root", false, CROWD_GLTF_MAX_ARRAY, &array, &doc->buffer_count, error);
    if (r != CROWD_OK)
        return r;
    if (doc->buffer_count && !(doc->buffers = crowd_calloc(doc->buffer_count, sizeof *doc->buffers)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "buffers: out of memory");
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (!cJSON_IsObject(item))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "buffers[%u]: expected an object", i);
        if ((r = load_buffer(doc, i++, item, error)) != CROWD_OK)
            return r;
    }
    return CROWD_OK;
}

/* ---- buffer views ---------------------------------------------------------------------------- */

static crowd_result parse_view(gltf_doc *doc, uint32_t i, const cJSON *json, crowd_error *error)
{
    char path[48];
    snprintf(path, sizeof path, "bufferViews[%u]", i);
    int32_t buffer = -1;
    uint64_t offset = 0, length = 0, stride = 0;
    crowd_result r = gj_index(json, "buffer", path, true, doc->buffer_count, "buffers", &buffer, error);
    if (r == CROWD_OK)
        r = gj_uint(json, "byteOffset", path, false, 0, UINT32_MAX * 4ull, &offset, error);
    if (r == CROWD_OK)
        r = gj_uint(json, "byteLength", path, true, 1, UINT32_MAX * 4ull, &length, error);
    if (r == CROWD_OK)
        r = gj_uint(json, "byteStride", path, false, 4, 252, &stride, error);
    if (r != CROWD_OK)
        return r;
    if (stride % 4)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.byteStride: %llu is not a multiple of 4", path,
                          (unsigned long long)stride);
    if (stride > length)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.byteStride: %llu is larger than the view (%llu bytes)",
                          path, (unsigned long long)stride, (unsigned long long)length);
    const gltf_buffer *b = &doc->buffers[buffer];
    if (offset > b->size || length > b->size - offset)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "%s: bytes %llu..%llu lie past the end of buffers[%d] (%zu bytes)", path,
                          (unsigned long long)offset, (unsigned long long)(offset + length), buffer, b->size);
    doc->views[i] = (gltf_view){(uint32_t)buffer, (size_t)offset, (size_t)length, (uint32_t)stride};
    return CROWD_OK;
}

crowd_result gltf_parse_views(gltf_doc *doc, crowd_error *error)
{
    const cJSON *array;
    crowd_result r =
        gj_array(doc->root, "bufferViews", "root", false, CROWD_GLTF_MAX_ARRAY, &array, &doc->view_count, error);
    if (r != CROWD_OK)
        return r;
    if (doc->view_count && !(doc->views = crowd_calloc(doc->view_count, sizeof *doc->views)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "bufferViews: out of memory");
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (!cJSON_IsObject(item))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "bufferViews[%u]: expected an object", i);
        if ((r = parse_view(doc, i++, item, error)) != CROWD_OK)
            return r;
    }
    return CROWD_OK;
}
