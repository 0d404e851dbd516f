/* Typed access to the cJSON tree. Every problem is reported with the JSON path of the value, so a
 * user can find it in the file: "accessors[3].count: -2 is not a whole number in 1..4294967295". */
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gltf/gltf_internal.h"

static _Thread_local bool allocation_failed;

static void *allocate(size_t size)
{
    void *p = crowd_malloc_hook(size);
    if (!p)
        allocation_failed = true;
    return p;
}

void gj_install_hooks(void)
{
    allocation_failed = false;
    cJSON_InitHooks(&(cJSON_Hooks){allocate, crowd_free_hook});
}

bool gj_allocation_failed(void)
{
    return allocation_failed;
}

static const cJSON *member(const cJSON *parent, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(parent, key);
}

static crowd_result missing(const char *path, const char *key, crowd_error *error)
{
    return crowd_fail(error, CROWD_ERROR_MISSING, "%s.%s: required but absent", path, key);
}

crowd_result gj_object(const cJSON *parent, const char *key, const char *path, bool required, const cJSON **out,
                       crowd_error *error)
{
    const cJSON *v = member(parent, key);
    *out = NULL;
    if (!v)
        return required ? missing(path, key, error) : CROWD_OK;
    if (!cJSON_IsObject(v))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s: expected an object", path, key);
    *out = v;
    return CROWD_OK;
}

crowd_result gj_array(const cJSON *parent, const char *key, const char *path, bool required, uint32_t max,
                      const cJSON **out, uint32_t *count, crowd_error *error)
{
    const cJSON *v = member(parent, key);
    *out = NULL;
    *count = 0;
    if (!v)
        return required ? missing(path, key, error) : CROWD_OK;
    if (!cJSON_IsArray(v))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s: expected an array", path, key);
    int n = cJSON_GetArraySize(v);
    if (n < 0 || (uint32_t)n > max)
        return crowd_fail(error, CROWD_ERROR_LIMIT, "%s.%s: %d entries, limit %u", path, key, n, max);
    if (n == 0 && required)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s: empty array", path, key);
    *out = v;
    *count = (uint32_t)n;
    return CROWD_OK;
}

static bool whole_in(double v, uint64_t min, uint64_t max)
{
    return isfinite(v) && v == floor(v) && v >= (double)min && v <= (double)max;
}

crowd_result gj_uint(const cJSON *parent, const char *key, const char *path, bool required, uint64_t min, uint64_t max,
                     uint64_t *out, crowd_error *error)
{
    const cJSON *v = member(parent, key);
    if (!v)
        return required ? missing(path, key, error) : CROWD_OK;
    if (!cJSON_IsNumber(v) || !whole_in(v->valuedouble, min, max))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s: %s is not a whole number in %llu..%llu", path, key,
                          cJSON_IsNumber(v) ? "value" : "non-number", (unsigned long long)min, (unsigned long long)max);
    *out = (uint64_t)v->valuedouble;
    return CROWD_OK;
}

crowd_result gj_index(const cJSON *parent, const char *key, const char *path, bool required, uint32_t count,
                      const char *what, int32_t *out, crowd_error *error)
{
    const cJSON *v = member(parent, key);
    *out = -1;
    if (!v)
        return required ? missing(path, key, error) : CROWD_OK;
    if (!cJSON_IsNumber(v) || !whole_in(v->valuedouble, 0, INT32_MAX))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s: not a valid index", path, key);
    if (v->valuedouble >= count)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s: %s %.0f out of range (%u %s)", path, key, what,
                          v->valuedouble, count, what);
    *out = (int32_t)v->valuedouble;
    return CROWD_OK;
}

crowd_result gj_index_item(const cJSON *item, const char *path, uint32_t i, uint32_t count, const char *what,
                           uint32_t *out, crowd_error *error)
{
    if (!cJSON_IsNumber(item) || !whole_in(item->valuedouble, 0, INT32_MAX))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s[%u]: not a valid index", path, i);
    if (item->valuedouble >= count)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s[%u]: %s %.0f out of range (%u %s)", path, i, what,
                          item->valuedouble, count, what);
    *out = (uint32_t)item->valuedouble;
    return CROWD_OK;
}

crowd_result gj_floats(const cJSON *parent, const char *key, const char *path, uint32_t n, float *out, bool *present,
                       crowd_error *error)
{
    const cJSON *v = member(parent, key);
    *present = false;
    if (!v)
        return CROWD_OK;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != (int)n)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s: expected an array of %u numbers", path, key, n);
    uint32_t i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, v)
    {
        /* finite as a double and as a float: 1e300 is no more usable than inf */
        if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || !isfinite((float)item->valuedouble))
            return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s[%u]: not a finite number", path, key, i);
        out[i++] = (float)item->valuedouble;
    }
    *present = true;
    return CROWD_OK;
}

crowd_result gj_bool(const cJSON *parent, const char *key, const char *path, bool *out, crowd_error *error)
{
    const cJSON *v = member(parent, key);
    if (!v)
        return CROWD_OK;
    if (!cJSON_IsBool(v))
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s: expected true or false", path, key);
    *out = cJSON_IsTrue(v);
    return CROWD_OK;
}

crowd_result gj_string(const cJSON *parent, const char *key, const char *path, bool required, const char **out,
                       crowd_error *error)
{
    const cJSON *v = member(parent, key);
    *out = NULL;
    if (!v)
        return required ? missing(path, key, error) : CROWD_OK;
    if (!cJSON_IsString(v) || !v->valuestring)
        return crowd_fail(error, CROWD_ERROR_INVALID_DATA, "%s.%s: expected a string", path, key);
    *out = v->valuestring;
    return CROWD_OK;
}

bool gj_same_shape(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return a == b;
    if ((a->type & 0xff) != (b->type & 0xff))
        return false;
    if (cJSON_IsNumber(a))
        return a->valuedouble == b->valuedouble;
    if (!cJSON_IsObject(a) && !cJSON_IsArray(a))
        return cJSON_Compare(a, b, true);
    const cJSON *x = a->child, *y = b->child;
    for (; x && y; x = x->next, y = y->next) {
        bool keys = cJSON_IsArray(a) || (x->string && y->string && !strcmp(x->string, y->string));
        if (!keys || !gj_same_shape(x, y))
            return false;
    }
    return !x && !y;
}
