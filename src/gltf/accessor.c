/* Accessors: typed views of buffer bytes. Parsing proves every element (and every sparse index
 * and value) lies inside its view; reading converts any component type to floats or integers,
 * removes matrix column padding and applies sparse substitution. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_internal.h"

uint32_t gltf_component_size(uint32_t component)
{
    switch (component) {
    case 5120:
    case 5121:
        return 1;
    case 5122:
    case 5123:
        return 2;
    case 5125:
    case 5126:
        return 4;
    default:
        return 0;
    }
}

static const struct {
    const char *name;
    uint32_t columns, rows;
} types[] = {{"SCALAR", 1, 1}, {"VEC2", 1, 2}, {"VEC3", 1, 3}, {"VEC4", 1, 4},
             {"MAT2", 2, 2},   {"MAT3", 3, 3}, {"MAT4", 4, 4}};

static uint32_t align4(uint32_t n)
{
    return (n + 3u) & ~3u;
}

/* Offset of the element range [offset, offset + (count-1)*stride + size) inside a view. */
static bool fits(const gltf_view *v, size_t offset, uint32_t count, uint32_t stride, uint32_t size)
{
    uint64_t end = (uint64_t)offset + (uint64_t)(count - 1) * stride + size;
    return count > 0 && end <= v->length;
}

static crowd_result parse_type(gltf_accessor *a, const cJSON *json, const char *path, crowd_error *error)
{
    const char *type = NULL;
    uint64_t component = 0, count = 0;
    crowd_result r = gj_string(json, "type", path, true, &type, error);
    if (r == CROWD_OK)
        r = gj_uint(json, "componentType", path, true, 5120, 5126, &component, error);
    if (r == CROWD_OK)
        r = gj_uint(json, "count", path, true, 1, UINT32_MAX, &count, error);
    if (r == CROWD_OK)
        r = gj_bool(json, "normalized", path, &a->normalized, error);
    if (r != CROWD_OK)
        return r;
    a->component = (uint32_t)component;
    a->component_size = gltf_component_size(a->component);
    if (!a->component_size)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.componentType: %u is not a glTF component type", path,
                          a->component);
    if (a->normalized && (a->component == 5125 || a->component == 5126))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.normalized: not allowed for componentType %u", path,
                          a->component);
    a->count = (uint32_t)count;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        if (strcmp(type, types[t].name) == 0) {
            a->columns = types[t].columns;
            a->rows = types[t].rows;
        }
    if (!a->rows)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.type: \"%.32s\" is not an accessor type", path, type);
    a->components = a->columns * a->rows;
    if ((uint64_t)a->count * a->components > GLTF_MAX_ACCESSOR_VALUES)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "%s.count: %u elements of %u values, limit %u values", path,
                          a->count, a->components, GLTF_MAX_ACCESSOR_VALUES);
    /* matrices: every column starts on a 4-byte boundary */
    a->element_size = a->columns > 1 ? a->columns * align4(a->rows * a->component_size) : a->rows * a->component_size;
    return CROWD_OK;
}

static crowd_result parse_bounds(gltf_accessor *a, const cJSON *json, const char *path, crowd_error *error)
{
    bool has_min = false, has_max = false;
    crowd_result r = gj_floats(json, "min", path, a->components, a->min, &has_min, error);
    if (r == CROWD_OK)
        r = gj_floats(json, "max", path, a->components, a->max, &has_max, error);
    a->has_bounds = has_min && has_max;
    return r;
}

static crowd_result parse_placement(gltf_doc *doc, gltf_accessor *a, const cJSON *json, const char *path,
                                    crowd_error *error)
{
    uint64_t offset = 0;
    crowd_result r = gj_index(json, "bufferView", path, false, doc->view_count, "bufferViews", &a->view, error);
    if (r == CROWD_OK)
        r = gj_uint(json, "byteOffset", path, false, 0, UINT32_MAX * 4ull, &offset, error);
    if (r != CROWD_OK)
        return r;
    if (a->view < 0) {
        if (cJSON_GetObjectItemCaseSensitive(json, "byteOffset"))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.byteOffset: given without a bufferView", path);
        return CROWD_OK;
    }
    const gltf_view *v = &doc->views[a->view];
    a->offset = (size_t)offset;
    a->stride = v->stride ? v->stride : a->element_size;
    if (offset % a->component_size || (a->columns > 1 && offset % 4))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.byteOffset: %llu is not a multiple of %u", path,
                          (unsigned long long)offset, a->columns > 1 ? 4u : a->component_size);
    if ((v->offset + offset) % a->component_size)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "%s: starts at buffer offset %zu, not aligned to its %u-byte components", path,
                          v->offset + (size_t)offset, a->component_size);
    if (v->stride && v->stride < a->element_size)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: elements of %u bytes in a view of stride %u", path,
                          a->element_size, v->stride);
    if (!fits(v, a->offset, a->count, a->stride, a->element_size))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "%s: %u elements from byte %zu run past the end of bufferViews[%d] (%zu bytes)", path,
                          a->count, a->offset, a->view, v->length);
    return CROWD_OK;
}

static crowd_result parse_sparse_part(gltf_doc *doc, const cJSON *part, const char *path, uint32_t *view,
                                      size_t *offset, uint32_t size, uint32_t count, crowd_error *error)
{
    int32_t v = -1;
    uint64_t o = 0;
    crowd_result r = gj_index(part, "bufferView", path, true, doc->view_count, "bufferViews", &v, error);
    if (r == CROWD_OK)
        r = gj_uint(part, "byteOffset", path, false, 0, UINT32_MAX * 4ull, &o, error);
    if (r != CROWD_OK)
        return r;
    if (doc->views[v].stride)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                          "%s: bufferViews[%d] of sparse data must not have a byteStride", path, v);
    if (!fits(&doc->views[v], (size_t)o, count, size, size))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: %u entries run past the end of bufferViews[%d]", path,
                          count, v);
    *view = (uint32_t)v;
    *offset = (size_t)o;
    return CROWD_OK;
}

static crowd_result parse_sparse(gltf_doc *doc, gltf_accessor *a, const cJSON *json, const char *path,
                                 crowd_error *error)
{
    const cJSON *sparse, *indices, *values;
    char sub[96];
    crowd_result r = gj_object(json, "sparse", path, false, &sparse, error);
    if (r != CROWD_OK || !sparse)
        return r;
    snprintf(sub, sizeof sub, "%s.sparse", path);
    uint64_t count = 0, component = 0;
    if ((r = gj_uint(sparse, "count", sub, true, 1, a->count, &count, error)) ||
        (r = gj_object(sparse, "indices", sub, true, &indices, error)) ||
        (r = gj_object(sparse, "values", sub, true, &values, error)))
        return r;
    a->sparse_count = (uint32_t)count;
    snprintf(sub, sizeof sub, "%s.sparse.indices", path);
    if ((r = gj_uint(indices, "componentType", sub, true, 5121, 5125, &component, error)))
        return r;
    if (component != 5121 && component != 5123 && component != 5125)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.componentType: %llu is not an unsigned integer type",
                          sub, (unsigned long long)component);
    a->sparse_index_component = (uint32_t)component;
    if ((r = parse_sparse_part(doc, indices, sub, &a->sparse_index_view, &a->sparse_index_offset,
                               gltf_component_size(a->sparse_index_component), a->sparse_count, error)))
        return r;
    snprintf(sub, sizeof sub, "%s.sparse.values", path);
    return parse_sparse_part(doc, values, sub, &a->sparse_value_view, &a->sparse_value_offset, a->element_size,
                             a->sparse_count, error);
}

/* ---- reading --------------------------------------------------------------------------------- */

static const uint8_t *view_bytes(const gltf_doc *doc, uint32_t view, const char *path, crowd_error *error)
{
    const gltf_view *v = &doc->views[view];
    const gltf_buffer *b = &doc->buffers[v->buffer];
    if (!b->data) {
        crowd_fail(error, CROWD_ERROR_MISSING, "%s: buffers[%u] has no data (no uri, and not the .glb BIN chunk)", path,
                   v->buffer);
        return NULL;
    }
    return b->data + v->offset;
}

static uint32_t load_uint(const uint8_t *p, uint32_t size)
{
    switch (size) {
    case 1:
        return p[0];
    case 2:
        return (uint32_t)p[0] | (uint32_t)p[1] << 8;
    default:
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
}

static float load_float(const uint8_t *p, uint32_t component, bool normalized)
{
    uint32_t u = load_uint(p, gltf_component_size(component));
    switch (component) {
    case 5126: {
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    case 5120:
        return normalized ? fmaxf((float)(int8_t)u / 127.0f, -1.0f) : (float)(int8_t)u;
    case 5122:
        return normalized ? fmaxf((float)(int16_t)u / 32767.0f, -1.0f) : (float)(int16_t)u;
    case 5121:
        return normalized ? (float)u / 255.0f : (float)u;
    case 5123:
        return normalized ? (float)u / 65535.0f : (float)u;
    default:
        return (float)u;
    }
}

/* Byte offset of component c inside an element (matrix columns are padded to 4 bytes). */
static size_t component_offset(const gltf_accessor *a, uint32_t c)
{
    uint32_t column = c / a->rows, row = c % a->rows;
    return (size_t)column * align4(a->rows * a->component_size) * (a->columns > 1) + (size_t)row * a->component_size;
}

typedef void (*store_fn)(void *out, size_t i, const uint8_t *p, const gltf_accessor *a);

static void store_float(void *out, size_t i, const uint8_t *p, const gltf_accessor *a)
{
    ((float *)out)[i] = load_float(p, a->component, a->normalized);
}

static void store_uint(void *out, size_t i, const uint8_t *p, const gltf_accessor *a)
{
    ((uint32_t *)out)[i] = load_uint(p, a->component_size);
}

static crowd_result read_any(const gltf_doc *doc, uint32_t index, void *out, size_t value_size, store_fn store,
                             const char *path, crowd_error *error)
{
    const gltf_accessor *a = &doc->accessors[index];
    size_t n = (size_t)a->count * a->components;
    if (a->view < 0) {
        memset(out, 0, n * value_size);
    } else {
        const uint8_t *base = view_bytes(doc, (uint32_t)a->view, path, error);
        if (!base)
            return error ? error->code : CROWD_ERROR_MISSING;
        base += a->offset;
        for (uint32_t e = 0; e < a->count; e++)
            for (uint32_t c = 0; c < a->components; c++)
                store(out, (size_t)e * a->components + c, base + (size_t)e * a->stride + component_offset(a, c), a);
    }
    if (!a->sparse_count)
        return CROWD_OK;
    const uint8_t *ib = view_bytes(doc, a->sparse_index_view, path, error);
    const uint8_t *vb = view_bytes(doc, a->sparse_value_view, path, error);
    if (!ib || !vb)
        return error ? error->code : CROWD_ERROR_MISSING;
    ib += a->sparse_index_offset;
    vb += a->sparse_value_offset;
    uint32_t isize = gltf_component_size(a->sparse_index_component);
    for (uint32_t k = 0; k < a->sparse_count; k++) {
        uint32_t e = load_uint(ib + (size_t)k * isize, isize);
        uint32_t previous = k ? load_uint(ib + (size_t)(k - 1) * isize, isize) : 0;
        if (e >= a->count || (k && e <= previous))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA,
                              "accessors[%u].sparse.indices[%u]: %u is out of range or not increasing (count %u)",
                              index, k, e, a->count);
        for (uint32_t c = 0; c < a->components; c++)
            store(out, (size_t)e * a->components + c, vb + (size_t)k * a->element_size + component_offset(a, c), a);
    }
    return CROWD_OK;
}

crowd_result gltf_read_floats(const gltf_doc *doc, uint32_t index, float *out, const char *path, crowd_error *error)
{
    return read_any(doc, index, out, sizeof(float), store_float, path, error);
}

crowd_result gltf_read_uints(const gltf_doc *doc, uint32_t index, uint32_t *out, const char *path, crowd_error *error)
{
    if (doc->accessors[index].component == 5126)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: accessors[%u] holds floats, integers expected", path,
                          index);
    return read_any(doc, index, out, sizeof(uint32_t), store_uint, path, error);
}

bool gltf_accessor_has_bytes(const gltf_doc *doc, uint32_t index)
{
    const gltf_accessor *a = &doc->accessors[index];
    if (a->view < 0 && !a->sparse_count)
        return false; /* implicit zeros */
    bool present = a->view < 0 || doc->buffers[doc->views[a->view].buffer].data;
    if (a->sparse_count)
        present = present && doc->buffers[doc->views[a->sparse_index_view].buffer].data &&
                  doc->buffers[doc->views[a->sparse_value_view].buffer].data;
    return present;
}

/* ---- data checks of every accessor --------------------------------------------------------------
 * Non-finite floats are refused wherever they are (they would poison any bake). Declared min/max
 * that disagree with the data are only warned about: the baker never trusts them. */
static crowd_result check_data(gltf_doc *doc, uint32_t index, const char *path, crowd_error *error)
{
    const gltf_accessor *a = &doc->accessors[index];
    if (!gltf_accessor_has_bytes(doc, index))
        return CROWD_OK; /* zeros, or no bytes to check (any use of them fails with a message) */
    size_t n = (size_t)a->count * a->components;
    /* Accessors may overlap, so checking each could cost more than the file's size many times
     * over: a budget proportional to the buffer bytes keeps reading linear. */
    doc->checked_values += n;
    if (doc->checked_values > doc->check_budget)
        return crowd_fail(error, CROWD_ERROR_LIMIT,
                          "%s: accessors hold more than %llu values, %d times the buffers' bytes", path,
                          (unsigned long long)doc->check_budget, GLTF_OVERLAP_FACTOR);
    float *values = crowd_malloc(n * sizeof(float));
    if (!values)
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu values", path, n);
    crowd_result r = gltf_read_floats(doc, index, values, path, error);
    bool outside = false;
    for (size_t i = 0; r == CROWD_OK && i < n; i++) {
        if (!isfinite(values[i]))
            r = crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: element %zu component %zu is not a finite number",
                           path, i / a->components, i % a->components);
        else if (a->has_bounds)
            outside |= values[i] < a->min[i % a->components] || values[i] > a->max[i % a->components];
    }
    crowd_free(values);
    if (r == CROWD_OK && outside)
        gltf_warn(doc, "%s: elements lie outside the declared min/max (ignored: bounds are recomputed)", path);
    return r;
}

static crowd_result parse_accessor(gltf_doc *doc, uint32_t i, const cJSON *json, crowd_error *error)
{
    char path[48];
    snprintf(path, sizeof path, "accessors[%u]", i);
    if (!cJSON_IsObject(json))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s: expected an object", path);
    gltf_accessor *a = &doc->accessors[i];
    crowd_result r;
    if ((r = parse_type(a, json, path, error)) || (r = parse_bounds(a, json, path, error)) ||
        (r = parse_placement(doc, a, json, path, error)) || (r = parse_sparse(doc, a, json, path, error)))
        return r;
    return check_data(doc, i, path, error);
}

crowd_result gltf_parse_accessors(gltf_doc *doc, crowd_error *error)
{
    const cJSON *array;
    crowd_result r =
        gj_array(doc->root, "accessors", "root", false, CROWD_GLTF_MAX_ARRAY, &array, &doc->accessor_count, error);
    if (r != CROWD_OK)
        return r;
    if (doc->accessor_count && !(doc->accessors = crowd_calloc(doc->accessor_count, sizeof *doc->accessors)))
        return crowd_fail(error, CROWD_ERROR_OUT_OF_MEMORY, "accessors: out of memory");
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if ((r = parse_accessor(doc, i, item, error)) != CROWD_OK)
            return r;
        i++;
    }
    return CROWD_OK;
}
